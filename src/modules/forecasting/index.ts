// Forecasting: each site's half-hourly load and generation forecast from stored telemetry (measured
// persistence by default, seasonal, or a blend), forecast against actual, accuracy metrics and a
// rolling-origin backtest (endpoints.md 4.6; decision 0190). Sends no device command or market write.
import { migrationsDir, type ModuleDefinition, type ModuleFactory } from '../../platform/module.ts';
import { REGISTRY_SITES } from '../registry/index.ts';
import { TELEMETRY_READS } from '../telemetry/index.ts';
import { createForecasting } from './service.ts';
import { forecastingOperations } from './routes.ts';
import { FORECAST_ERROR_DOCS } from './errors.ts';

export { forecastAt, metricsOf, METHODS, type Method, type Metrics } from './methods.ts';

export const forecastingModule: ModuleFactory = (deps) => {
  const f = createForecasting({ db: deps.db, clock: deps.clock, registry: deps.services.get(REGISTRY_SITES), telemetry: deps.services.get(TELEMETRY_READS) });
  return {
    name: 'forecasting',
    tags: { forecasting: 'Site load and generation forecasts (measured persistence by default), forecast against actual, accuracy metrics and backtests. Advisory: sends nothing.' },
    errors: FORECAST_ERROR_DOCS,
    operations: forecastingOperations(f),
  };
};

/** This module as the module list names it. */
export const forecastingDefinition: ModuleDefinition = {
  name: 'forecasting',
  dependsOn: ['orgs', 'registry', 'telemetry', 'market'],
  migrations: migrationsDir(import.meta.url),
  create: forecastingModule,
};
