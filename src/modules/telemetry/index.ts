// The telemetry module: ingestion, live events, history, and the partition maintenance that keeps
// monthly partitions made ahead and applies retention. What other modules may use is exported here.
import { migrationsDir, type ModuleCreate, type ModuleDefinition } from '../../platform/module.ts';
import { createTelemetryService, type TelemetryService } from './service.ts';
import { serviceKey } from '../../platform/services.ts';
import { sectionOf } from '../../core/config-section.ts';
import { telemetryConfig } from './config.ts';
import { telemetryOperations } from './routes.ts';
import { createPartitionMaintenance, SEAL_KIND } from './maintenance.ts';
import { telemetryReads, createEnergyReads, telemetryExportable, type TelemetryReads } from './store.ts';
import type { Queryable } from '../../infra/db/index.ts';

export { createTelemetryService, type TelemetryService, type IngestOutcome, type JudgedRecord, type BatchStatement, type TouchedRange } from './service.ts';
export type { PowerHalfHour, CounterHalfHour, ReadingRow } from './store.ts';
export { ASSET_METRICS, defaultMetric } from './metrics.ts';
/** A record's canonical form (keys sorted at every level): two records are exact copies when these match. */
export {
  MEASUREMENT_BOUNDS,
  COUNTER_BOUND_KWH,
  ENERGY_COUNTER_KEYS,
  ENERGY_RATE_BOUND_KW,
  type EnergyCounterKey,
  readingValuesOf,
  type ReadingValues,
} from './normalise.ts';
/** The schema members of a reading's measured values (a record's, the newest reading's). */
export { ReadingValueProperties } from './schemas.ts';
export type { HalfHourRow, LatestReading, StoredReading, IntegrityRow, SourceValueRow, TelemetryReads } from './store.ts';

/**
 * Reads of stored telemetry for other modules, in the caller's Queryable (its transaction when it
 * has one): half-hourly means (EMS alerts), the newest record of assets (registry, devices, the
 * partner API, the device.offline watchdog), pages of stored readings, positions, ignition, values
 * by source, integrity and anomaly counts (devices). No other module reads telemetry's tables.
 */
export const TELEMETRY_READS = serviceKey<TelemetryReads>('telemetry.reads');

/** Telemetry writes for other modules: judge records by the ingestion rules, write them in the
 * caller's transaction, then count and stream them after commit (`TELEMETRY_WRITER`). */
export type TelemetryWriter = Pick<TelemetryService, 'judge' | 'writeInTx' | 'committed'>;
export const TELEMETRY_WRITER = serviceKey<TelemetryWriter>('telemetry.writer');
const TELEMETRY_SERVICE = serviceKey<TelemetryService>('telemetry.service');

/**
 * HTTP ingestion's own path for other entries (device MQTT, decision 0377): `ingest(ctx, body)`, and
 * `ingestMany` for bodies of one organisation that arrived together (one transaction, decision 0480),
 * with the same rules, duplicates, device refusals, transaction and live stream as
 * POST /api/telemetry/ingest. The caller runs it in the organisation's scope.
 */
export type TelemetryIngest = Pick<TelemetryService, 'ingest' | 'ingestMany'>;
export const TELEMETRY_INGEST = serviceKey<TelemetryIngest>('telemetry.ingest');

/**
 * Energy from stored telemetry, for the energy module (`TELEMETRY_ENERGY`): a statement run as
 * part of every batch's own statement (BatchStatement), half-hour integrals of power and counter advances computed in
 * SQL over the samples, the span of an asset's records, readings by time and the newest readings.
 * Every read takes the store to run on (a request's or the background store) and the organisation.
 */
export interface TelemetryEnergy {
  onBatchStatement: TelemetryService['onBatchStatement'];
  reads(q: Queryable): ReturnType<typeof createEnergyReads>;
}
export const TELEMETRY_ENERGY = serviceKey<TelemetryEnergy>('telemetry.energy');

export const telemetryModule: ModuleCreate = (deps) => {
  const service = deps.services.get(TELEMETRY_SERVICE);
  const maintenance = createPartitionMaintenance({
    db: deps.backgroundDb,
    units: deps.jobUnits,
    clock: deps.clock,
    log: deps.log,
    retentionDays: sectionOf(deps.config, telemetryConfig).retentionDays,
  });
  return {
    tags: { telemetry: 'Telemetry ingestion, live events and history.' },
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
  // One ingestion service (and one set of counters) for the module's own operations and for others.
  // Stored telemetry records for the organisation's data export.
  exportable: [telemetryExportable],
  provides: (deps, registry) => {
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
      readDb: deps.readDb,
      bus: deps.bus,
      clock: deps.clock,
      log: deps.log,
      onStored: (n) => ingestTotal.inc(n),
      onRejected: (reason) => rejectedTotal.inc({ reason }),
      retentionDays: sectionOf(deps.config, telemetryConfig).retentionDays,
      unsealedDays: async (orgId) => (await deps.jobUnits.status(deps.db, SEAL_KIND, orgId)).map((u) => u.key),
    });
    registry.provide(TELEMETRY_SERVICE, service);
    registry.provide(TELEMETRY_WRITER, service);
    registry.provide(TELEMETRY_INGEST, service);
    registry.provide(TELEMETRY_READS, telemetryReads);
    registry.provide(TELEMETRY_ENERGY, { onBatchStatement: (st) => service.onBatchStatement(st), reads: (q) => createEnergyReads(q) });
  },
  create: telemetryModule,
};
