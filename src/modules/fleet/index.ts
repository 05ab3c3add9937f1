// Fleet departure readiness and depot planning (decision 0211): depot constraints, shift schedule,
// vehicle requirements from CSV, a half-hourly charging plan within charger and connection limits.
import { migrationsDir, type ModuleDefinition, type ModuleCreate } from '../../platform/module.ts';
import { fleetOperations } from './routes.ts';
import { createFleet, FLEET_ERROR_DOCS } from './service.ts';

export const fleetModule: ModuleCreate = (deps) => ({
  tags: { fleet: 'Fleet departure readiness: the depot, its constraints and shifts, vehicle requirements, the charging plan and electrification.' },
  errors: FLEET_ERROR_DOCS,
  operations: fleetOperations(createFleet({ db: deps.db, clock: deps.clock })),
});

/** This module as the module list names it. */
export const fleetDefinition: ModuleDefinition = {
  name: 'fleet',
  dependsOn: ['orgs', 'market'],
  migrations: migrationsDir(import.meta.url),
  create: fleetModule,
};
