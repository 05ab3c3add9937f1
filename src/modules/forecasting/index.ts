// Forecasting: each site's half-hourly load and generation forecast from the energy ledger's half
// hours (measured persistence by default, seasonal, or a blend), forecast against actual, accuracy
// metrics and a rolling-origin backtest (endpoints.md 4.6; decisions 0190, 0326). Sends no device
// command or market write.
import { migrationsDir, type ModuleDefinition, type ModuleCreate } from '../../platform/module.ts';
import { REGISTRY_SITES } from '../registry/index.ts';
import { ENERGY_FIGURES } from '../energy/index.ts';
import { serviceKey } from '../../platform/services.ts';
import { BACKTEST_KIND, createForecasting, type Forecasting } from './service.ts';
import { forecastingOperations } from './routes.ts';
import { FORECAST_ERROR_DOCS } from './errors.ts';
import { forecastingConfig } from './config.ts';
import { sectionOf } from '../../core/config-section.ts';

export { forecastAt, metricsOf, METHODS, type Method, type Metrics } from './methods.ts';

/** A site's forecast for other modules (the optimiser), in the caller's Queryable. */
export type SiteForecast = Pick<Forecasting, 'forecastSeries'>;
export const SITE_FORECAST = serviceKey<SiteForecast>('forecasting.site');
const FORECASTING = serviceKey<Forecasting>('forecasting.instance');

export const forecastingModule: ModuleCreate = (deps) => {
  const f = deps.services.get(FORECASTING);
  return {
    tags: {
      forecasting:
        'Site load and generation forecasts (measured persistence by default), forecast against actual, accuracy metrics and backtests. Advisory: sends nothing.',
    },
    errors: FORECAST_ERROR_DOCS,
    operations: forecastingOperations(f, deps.jobs),
    background: {
      jobs: [{ kind: BACKTEST_KIND, handler: (job: Parameters<Forecasting['runBacktestStep']>[0]) => f.runBacktestStep(job, deps.jobs) }],
    },
  };
};

/** This module as the module list names it. */
export const forecastingDefinition: ModuleDefinition = {
  name: 'forecasting',
  dependsOn: ['orgs', 'registry', 'energy', 'market'],
  migrations: migrationsDir(import.meta.url),
  config: forecastingConfig,
  provides: (deps, registry) => {
    const f = createForecasting({
      db: deps.db,
      backgroundDb: deps.backgroundDb,
      clock: deps.clock,
      registry: registry.get(REGISTRY_SITES),
      energy: registry.get(ENERGY_FIGURES),
      maxQueuedBacktests: sectionOf(deps.config, forecastingConfig).maxQueuedBacktests,
    });
    registry.provide(FORECASTING, f);
    registry.provide(SITE_FORECAST, { forecastSeries: (q, orgId, siteId, origin, n) => f.forecastSeries(q, orgId, siteId, origin, n) });
  },
  create: forecastingModule,
};
