// Platform status and incidents (decision 0224): component health from devtools' recorded health
// checks (PLATFORM_HEALTH, never its tables) and platform-wide incidents written by platform
// administrators and read by members of every organisation.
import { migrationsDir, type ModuleDefinition, type ModuleCreate } from '../../platform/module.ts';
import { PLATFORM_HEALTH } from '../devtools/index.ts';
import { statusOperations } from './routes.ts';
import { createStatus, STATUS_ERROR_DOCS } from './service.ts';

export const statusModule: ModuleCreate = (deps) => ({
  tags: { 'platform-status': 'Platform status: component health from the recorded health checks, and platform incidents.' },
  errors: STATUS_ERROR_DOCS,
  operations: statusOperations(createStatus({ db: deps.db, clock: deps.clock, health: deps.services.get(PLATFORM_HEALTH) })),
});

/** This module as the module list names it. */
export const statusDefinition: ModuleDefinition = {
  name: 'status',
  dependsOn: ['devtools', 'audit'],
  migrations: migrationsDir(import.meta.url),
  create: statusModule,
};
