// The telemetry module: ingestion, live events, history, and the partition maintenance that keeps
// monthly partitions made ahead and applies retention. What other modules may use is exported here.
import { migrationsDir, type ModuleFactory, type ModuleDefinition } from '../../platform/module.ts';
import { sectionOf } from '../../core/config-section.ts';
import { telemetryConfig } from './config.ts';
import { createTelemetryService } from './service.ts';
import { telemetryOperations } from './routes.ts';
import { createPartitionMaintenance } from './maintenance.ts';

export { createTelemetryService, type TelemetryService } from './service.ts';
export { ASSET_METRICS, defaultMetric } from './metrics.ts';
export { trustedTsSql } from './store.ts';

export const telemetryModule: ModuleFactory = (deps) => {
  // The spec names telemetry_ingest_total, so it keeps its name; the others carry the prefix.
  const ingestTotal = deps.metrics.counter({
    name: 'telemetry_ingest_total',
    help: 'Telemetry records accepted and stored since start',
    unprefixed: true,
  });
  const rejectedTotal = deps.metrics.counter({
    name: 'telemetry_records_rejected_total',
    help: 'Telemetry records refused by the record rules, by reason (stored ones are in telemetry_ingest_total)',
    labelNames: ['reason'],
  });
  const service = createTelemetryService({
    db: deps.db,
    bus: deps.bus,
    clock: deps.clock,
    log: deps.log,
    onStored: (n) => ingestTotal.inc(n),
    onRejected: (reason) => rejectedTotal.inc({ reason }),
    retentionDays: sectionOf(deps.config, telemetryConfig).retentionDays,
  });
  const maintenance = createPartitionMaintenance({
    db: deps.backgroundDb,
    clock: deps.clock,
    log: deps.log,
    retentionDays: sectionOf(deps.config, telemetryConfig).retentionDays,
  });
  return {
    name: 'telemetry', tags: { telemetry: 'Telemetry ingestion, live events and history.' },
    operations: telemetryOperations(service, deps.config),
    start: () => maintenance.start(),
    stop: () => maintenance.stop(),
  };
};

/** This module as the module list names it. */
export const telemetryDefinition: ModuleDefinition = {
  name: 'telemetry',
  dependsOn: ['orgs'],
  migrations: migrationsDir(import.meta.url),
  config: telemetryConfig,
  scopes: {
    'telemetry:read': 'read telemetry (latest readings and history)',
    'telemetry:write': 'write telemetry (the home-automation connector)',
  },
  create: telemetryModule,
};
