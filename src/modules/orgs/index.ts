// Organisations (tenants): what other modules and the CLI may use.
import { migrationsDir, type ModuleDefinition } from '../../platform/module.ts';
import { serviceKey } from '../../platform/services.ts';
import type { Queryable } from '../../infra/db/index.ts';
import { createOrgStore, type Realm } from './store.ts';
export { createOrgStore, realmForId, MODULES, type OrgModule, type Organisation, type OrgStore, type Realm } from './store.ts';

/** What other modules may ask about an organisation: its realm and the modules it has enabled. */
export interface OrgDirectory {
  /** The organisation's realm (demo or production); null when it does not exist. */
  realmOf(orgId: string): Promise<Realm | null>;
  /** Whether the organisation has this module (gate) enabled. */
  hasModule(orgId: string, module: string): Promise<boolean>;
  /** The organisation's name; null when it does not exist. */
  nameOf(orgId: string): Promise<string | null>;
  /**
   * Locks the organisation's row in the caller's transaction `q` (serialising writes counted
   * against its plan limits) and returns its plan limits by metric; null when it does not exist.
   */
  lockPlanLimits(q: Queryable, orgId: string): Promise<Record<string, number> | null>;
}

/** `deps.services.get(ORG_DIRECTORY).realmOf(orgId)`. */
export const ORG_DIRECTORY = serviceKey<OrgDirectory>('orgs.directory');

/** This module as the module list names it. */
export const orgsDefinition: ModuleDefinition = {
  name: 'orgs',
  migrations: migrationsDir(import.meta.url),
  provides: (deps, registry) => {
    const store = createOrgStore(deps.db);
    registry.provide(ORG_DIRECTORY, {
      realmOf: async (orgId) => (await store.gatesOf(orgId))?.realm ?? null,
      hasModule: async (orgId, module) => (await store.gatesOf(orgId))?.modules.includes(module) ?? false,
      nameOf: (orgId) => store.nameOf(orgId),
      lockPlanLimits: (q, orgId) => createOrgStore(q).lockPlanLimits(orgId),
    });
  },
};
