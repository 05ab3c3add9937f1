// Site access: personas and per-site grants to members of the organisation.
import { migrationsDir, type ModuleCreate, type ModuleDefinition } from '../../platform/module.ts';
import { createSiteAccess } from './service.ts';
import { accessOperations } from './routes.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { MEMBERS } from '../identity/index.ts';

export { PERSONAS, PERMISSIONS, type Persona, type Permission } from './personas.ts';

export const accessModule: ModuleCreate = (deps) => ({
  tags: { access: 'Site access personas and who may see which sites.' },
  operations: accessOperations(createSiteAccess({ db: deps.db, clock: deps.clock, audit: deps.services.get(AUDIT_LOG), members: deps.services.get(MEMBERS) })),
});

/** This module as the module list names it. */
export const accessDefinition: ModuleDefinition = {
  name: 'access',
  dependsOn: ['orgs', 'identity', 'audit'],
  migrations: migrationsDir(import.meta.url),
  create: accessModule,
};
