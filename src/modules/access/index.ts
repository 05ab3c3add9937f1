// Site access: personas and per-site grants to members of the organisation.
import type { ModuleFactory } from '../../platform/module.ts';
import { createSiteAccess } from './service.ts';
import { accessOperations } from './routes.ts';

export { PERSONAS, PERMISSIONS, type Persona, type Permission } from './personas.ts';

export const accessModule: ModuleFactory = (deps) => ({
  name: 'access',
  operations: accessOperations(createSiteAccess({ db: deps.db, clock: deps.clock, audit: deps.audit })),
});
