// Flexibility (tenders, contracts, offers with the two network operators), the fleet portfolio,
// and enrolment in the service's virtual power plant with its signal.
import { migrationsDir, type ModuleCreate, type ModuleDefinition } from '../../platform/module.ts';
import { MARKET_DATA } from '../market/index.ts';
import { createFlexService } from './flex-service.ts';
import { flexConfig } from './config.ts';
import { createVppService } from './vpp-service.ts';
import { flexOperations } from './routes/flexibility.ts';
import { vppOperations } from './routes/vpp.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { FLEX_ERROR_DOCS } from './errors.ts';

export const flexModule: ModuleCreate = (deps) => ({
  tags: {
    flex: 'DNO flexibility tenders, contracts and priced offers.',
    vpp: "Enrolment in the service's virtual power plant and its signal.",
  },
  errors: FLEX_ERROR_DOCS,
  operations: [
    ...flexOperations(deps, createFlexService({ ...deps, audit: deps.services.get(AUDIT_LOG) })),
    ...vppOperations(createVppService({ ...deps, audit: deps.services.get(AUDIT_LOG) }, deps.services.get(MARKET_DATA))),
  ],
});

/** This module as the module list names it. */
export const flexDefinition: ModuleDefinition = {
  name: 'flex',
  dependsOn: ['orgs', 'registry', 'market', 'audit'],
  migrations: migrationsDir(import.meta.url),
  config: flexConfig,
  create: flexModule,
};
