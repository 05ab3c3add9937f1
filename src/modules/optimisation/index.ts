// Advisory optimisation: the import limit and the tariff schedule, planned on request with HiGHS
// (a real LP solver) and recorded, and battery warranty limits (endpoints.md 4.6; concepts.md
// section 1 rules 4, 5 and 8; decisions 0191-0193). Nothing is sent to a device except an
// import-limit run with dispatch=true in the demo realm, through control's verified write.
import { migrationsDir, type ModuleDefinition, type ModuleCreate } from '../../platform/module.ts';
import { REGISTRY_SITES } from '../registry/index.ts';
import { MARKET_DATA } from '../market/index.ts';
import { CONTROL_SETPOINTS, DECISION_LOG } from '../control/index.ts';
import { SITE_FORECAST } from '../forecasting/index.ts';
import { RETAIL_TARIFFS } from '../pricing/index.ts';
import { createOptimisation } from './service.ts';
import { optimisationOperations } from './routes/optimisation.ts';
import { OPT_ERROR_DOCS } from './errors.ts';
import { createAwareness } from './awareness.ts';
import { awarenessOperations } from './routes/awareness.ts';

export const optimisationModule: ModuleCreate = (deps) => {
  const o = createOptimisation({
    db: deps.db,
    clock: deps.clock,
    cursors: deps.cursors,
    registry: deps.services.get(REGISTRY_SITES),
    market: deps.services.get(MARKET_DATA),
    tariffs: deps.services.get(RETAIL_TARIFFS),
    forecast: deps.services.get(SITE_FORECAST),
    setpoints: deps.services.get(CONTROL_SETPOINTS),
    decisions: deps.services.get(DECISION_LOG),
  });
  const a = createAwareness({
    db: deps.db,
    clock: deps.clock,
    registry: deps.services.get(REGISTRY_SITES),
    market: deps.services.get(MARKET_DATA),
    forecast: deps.services.get(SITE_FORECAST),
  });
  return {
    tags: {
      optimisation:
        'Advisory optimisation: import-limit plans (dispatch in the demo realm only), battery tariff schedules solved with HiGHS, and warranty limits.',
      awareness:
        'Awareness layers (prices, carbon, site forecast, grid constraints, tenders, device availability) with their status, and shadow plans that are never sent.',
    },
    errors: OPT_ERROR_DOCS,
    operations: [...optimisationOperations(o), ...awarenessOperations(a)],
  };
};

/** This module as the module list names it. */
export const optimisationDefinition: ModuleDefinition = {
  name: 'optimisation',
  dependsOn: ['orgs', 'registry', 'telemetry', 'market', 'pricing', 'control', 'forecasting'],
  migrations: migrationsDir(import.meta.url),
  create: optimisationModule,
};
