// Asset registry: twin v1 (/api/twin/) and registry v2 (/api/twin/registry/...), one `assets` table.
// What other modules may use: the vocabulary, freshness, topology checks and read access.
import { migrationsDir, type ModuleFactory, type ModuleDefinition } from '../../platform/module.ts';
import { createRegistryStore } from './store.ts';
import { createRegistryService } from './service.ts';
import { twinOperations } from './routes-twin.ts';
import { registryOperations } from './routes-registry.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { serviceKey } from '../../platform/services.ts';
import { TELEMETRY_READS } from '../telemetry/index.ts';
import { createRegistrySites, type RegistrySites } from './sites-service.ts';
import type { Queryable } from '../../infra/db/index.ts';
import type { AssetFilter, AssetWithLatest } from './store.ts';

/** Read access for other modules: the organisation's assets with their newest stored record. */
export interface RegistryReads {
  assets(q: Queryable, orgId: string, filter?: AssetFilter): Promise<AssetWithLatest[]>;
}
export const REGISTRY_READS = serviceKey<RegistryReads>('registry.reads');

export const registryModule: ModuleFactory = (deps) => {
  const service = createRegistryService({ db: deps.db, clock: deps.clock, audit: deps.services.get(AUDIT_LOG), store: createRegistryStore(deps.services.get(TELEMETRY_READS)) });
  return {
    name: 'registry',
    tags: {
      registry: 'The asset registry and digital twin: sites, assets, classes, topology, source priority, data integrity and commissioning.',
    },
    errors: [
      { code: 'asset_exists', status: 409, description: 'An asset with this asset_id is already registered in the organisation.' },
      { code: 'asset_has_children', status: 409, description: 'The asset has child assets; move, re-link or delete them first.' },
    ],
    operations: [...twinOperations(service), ...registryOperations(service)] };
};

export * from './vocabulary.ts';
export { createRegistryStore, reportedSourceSql, type AssetRow, type AssetWithLatest, type AssetFilter, type RegistryStore } from './store.ts';
export { findingsOf, type Finding } from './topology.ts';
export { registryView, twinView, latestReading, iso } from './service.ts';
export { ErrorBody, SiteId, SourceSchema, FreshnessSchema } from './schemas.ts';

/** This module as the module list names it. */
export const registryDefinition: ModuleDefinition = {
  name: 'registry',
  dependsOn: ['orgs', 'telemetry'],
  migrations: migrationsDir(import.meta.url),
  provides: (deps, registry) => {
    const store = createRegistryStore(registry.get(TELEMETRY_READS));
    registry.provide(REGISTRY_SITES, createRegistrySites({ clock: deps.clock, store }));
    registry.provide(REGISTRY_READS, { assets: (q, orgId, filter) => store.list(q, orgId, filter) });
  },
  create: registryModule,
};

/** Sites and assets for other modules (onboarding): `deps.services.get(REGISTRY_SITES)`. */
export const REGISTRY_SITES = serviceKey<RegistrySites>('registry.sites');
export type { RegistrySites, PlannedAsset, ReportingDevice, SiteAsset } from './sites-service.ts';
