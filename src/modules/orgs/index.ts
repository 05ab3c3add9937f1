// Organisations (tenants): what other modules and the CLI may use.
import { migrationsDir, type ModuleDefinition } from '../../platform/module.ts';
import { serviceKey } from '../../platform/services.ts';
import type { Queryable } from '../../infra/db/index.ts';
import { createOrgStore, type Realm } from './store.ts';
export { createOrgStore, realmForId, MODULES, type OrgModule, type Organisation, type OrgStore, type Realm } from './store.ts';

/** What other modules may ask about an organisation: its realm (demo or production). */
export interface OrgDirectory {
  /** The organisation's realm; null when it does not exist. */
  realmOf(orgId: string): Promise<Realm | null>;
}

/** `deps.services.get(ORG_DIRECTORY).realmOf(orgId)`. */
export const ORG_DIRECTORY = serviceKey<OrgDirectory>('orgs.directory');

/** This module as the module list names it. */
export const orgsDefinition: ModuleDefinition = {
  name: 'orgs',
  migrations: migrationsDir(import.meta.url),
  provides: (deps, registry) => {
    const store = createOrgStore(deps.db);
    registry.provide(ORG_DIRECTORY, { realmOf: async (orgId) => (await store.gatesOf(orgId))?.realm ?? null });
    registry.provide(ORG_GATES, { gatesOf: (q, orgId) => createOrgStore(q).gatesOf(orgId) });
  },
};

/** An organisation's enabled modules and realm, for modules whose behaviour depends on them. */
export interface OrgGates {
  gatesOf(q: Queryable, orgId: string): Promise<{ modules: string[]; realm: Realm } | null>;
}
export const ORG_GATES = serviceKey<OrgGates>('orgs.gates');
