// Asset registry: twin v1 (/api/twin/) and registry v2 (/api/twin/registry/...), one `assets` table.
// What other modules may use: the vocabulary, freshness, topology checks and read access.
import { migrationsDir, type ModuleCreate, type ModuleDefinition } from '../../platform/module.ts';
import { createRegistryStore } from './store.ts';
import { createRegistryService } from './service.ts';
import { twinOperations } from './routes/twin.ts';
import { registryOperations } from './routes/registry.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { serviceKey } from '../../platform/services.ts';
import { TELEMETRY_READS } from '../telemetry/index.ts';
import { createRegistrySites, type RegistrySites } from './sites-service.ts';
import type { Queryable } from '../../infra/db/index.ts';
import { REGISTRY_ERROR_DOCS } from './errors.ts';
import {
  registryExportables,
  priorityStore,
  commissioningStore,
  type AssetFilter,
  type AssetRow,
  type AssetWithLatest,
  type UnregisteredDevice,
} from './store.ts';

/** Read access for other modules, in the caller's Queryable (its transaction when it has one). */
export interface RegistryReads {
  /** The organisation's assets with their newest stored record, by site and asset id. */
  assets(q: Queryable, orgId: string, filter?: AssetFilter): Promise<AssetWithLatest[]>;
  /** One registered asset (locked for the caller's write with forUpdate); null when absent. */
  asset(q: Queryable, orgId: string, assetId: string, opts?: { forUpdate?: boolean }): Promise<AssetRow | null>;
  /** Registered assets without readings, by asset id: of these ids when given (the ids of a page). */
  records(q: Queryable, orgId: string, f?: { assetIds?: readonly string[] }): Promise<AssetRow[]>;
  /** A page of registered assets, newest registration first (created_key: created_at to the microsecond). */
  page(q: Queryable, orgId: string, before: { t: string; id: string } | null, limit: number): Promise<(AssetRow & { created_key: string })[]>;
  /** Devices with a stored record and no registry entry, by asset id: those naming this site, or of these ids. */
  unregisteredDevices(q: Queryable, orgId: string, f: { siteRef?: string; assetIds?: string[] }): Promise<UnregisteredDevice[]>;
}
export const REGISTRY_READS = serviceKey<RegistryReads>('registry.reads');

/** Per-asset source priorities (devices): the registry removes and renames them with the asset. */
export type SourcePriorities = typeof priorityStore;
export const SOURCE_PRIORITIES = serviceKey<SourcePriorities>('registry.source-priorities');

/** A site's commissioning runs (devices). */
export type CommissioningRuns = typeof commissioningStore;
export const COMMISSIONING_RUNS = serviceKey<CommissioningRuns>('registry.commissioning-runs');

export const registryModule: ModuleCreate = (deps) => {
  const service = createRegistryService({
    db: deps.db,
    clock: deps.clock,
    audit: deps.services.get(AUDIT_LOG),
    store: createRegistryStore(deps.services.get(TELEMETRY_READS)),
  });
  return {
    tags: {
      registry: 'The asset registry and digital twin: sites, assets, classes, topology, source priority, data integrity and commissioning.',
    },
    errors: REGISTRY_ERROR_DOCS,
    operations: [...twinOperations(service), ...registryOperations(service)],
  };
};

export * from './vocabulary.ts';
export { ASSETS_CHANGED, type AssetsChangedPayload } from './events.ts';
export type { AssetRow, AssetWithLatest, AssetFilter, UnregisteredDevice, PriorityRow, RunRow } from './store.ts';
export { findingsOf, type Finding } from './topology.ts';
export { assetNames, registryView, reportingView, twinView, latestReading, iso } from './service.ts';
export { SiteId, SourceSchema, FreshnessSchema } from './schemas.ts';

/** This module as the module list names it. */
export const registryDefinition: ModuleDefinition = {
  name: 'registry',
  dependsOn: ['orgs', 'telemetry', 'audit'],
  migrations: migrationsDir(import.meta.url),
  // Sites and assets for the organisation's data export.
  exportable: registryExportables,
  provides: (deps, registry) => {
    const store = createRegistryStore(registry.get(TELEMETRY_READS));
    registry.provide(REGISTRY_SITES, createRegistrySites({ clock: deps.clock, store }));
    registry.provide(REGISTRY_READS, {
      assets: (q, orgId, filter) => store.list(q, orgId, filter),
      asset: (q, orgId, assetId, opts) => store.get(q, orgId, assetId, opts),
      records: (q, orgId, f) => store.records(q, orgId, f),
      page: (q, orgId, before, limit) => store.page(q, orgId, before, limit),
      unregisteredDevices: (q, orgId, f) => store.unregisteredDevices(q, orgId, f),
    });
    registry.provide(SOURCE_PRIORITIES, priorityStore);
    registry.provide(COMMISSIONING_RUNS, commissioningStore);
  },
  create: registryModule,
};

/** Sites and assets for other modules (onboarding): `deps.services.get(REGISTRY_SITES)`. */
export const REGISTRY_SITES = serviceKey<RegistrySites>('registry.sites');
export type { RegistrySites, PlannedAsset, ReportingDevice, SiteAsset } from './sites-service.ts';
