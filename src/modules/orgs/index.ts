// Organisations (tenants): what other modules and the CLI may use.
import { migrationsDir, type ModuleDefinition } from '../../platform/module.ts';
export { createOrgStore, realmForId, MODULES, type OrgModule, type Organisation, type OrgStore, type Realm } from './store.ts';

/** This module as the module list names it. */
export const orgsDefinition: ModuleDefinition = { name: 'orgs', migrations: migrationsDir(import.meta.url) };
