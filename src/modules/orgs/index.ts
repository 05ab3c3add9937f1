// Organisations (tenants): what other modules and the CLI may use.
export { createOrgStore, MODULES, type OrgModule, type Organisation, type OrgStore } from './store.ts';
