// The telemetry module: ingestion, live events, history, and the partition maintenance that keeps
// monthly partitions made ahead and applies retention. What other modules may use is exported here.
import { migrationsDir, type ModuleFactory, type ModuleDefinition } from '../../platform/module.ts';
import { createTelemetryService } from './service.ts';
import { telemetryOperations } from './routes.ts';
import { createPartitionMaintenance } from './maintenance.ts';

export { createTelemetryService, type TelemetryService } from './service.ts';
export { ASSET_METRICS, defaultMetric } from './metrics.ts';
export { trustedTsSql } from './store.ts';

export const telemetryModule: ModuleFactory = (deps) => {
  const service = createTelemetryService({
    db: deps.db,
    bus: deps.bus,
    clock: deps.clock,
    log: deps.log,
    onStored: (n) => deps.metrics.ingestTotal.inc(n),
    retentionDays: deps.config.telemetryRetentionDays,
  });
  const maintenance = createPartitionMaintenance({
    db: deps.db,
    clock: deps.clock,
    log: deps.log,
    retentionDays: deps.config.telemetryRetentionDays,
  });
  return {
    name: 'telemetry', tags: { telemetry: 'Telemetry ingestion, live events and history.' },
    operations: telemetryOperations(service, deps.config),
    start: () => maintenance.start(),
    stop: () => maintenance.stop(),
  };
};

/** This module as the module list names it. */
export const telemetryDefinition: ModuleDefinition = { name: 'telemetry', dependsOn: ['orgs'], migrations: migrationsDir(import.meta.url), create: telemetryModule };
