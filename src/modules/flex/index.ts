// Flexibility (tenders, contracts, offers with the two network operators), the fleet portfolio,
// and enrolment in the service's virtual power plant with its signal.
import { migrationsDir, type ModuleFactory, type ModuleDefinition } from '../../platform/module.ts';
import { createMarketData } from '../market/index.ts';
import { createFlexService } from './flex-service.ts';
import { createVppService } from './vpp-service.ts';
import { flexOperations } from './routes.ts';
import { vppOperations } from './vpp-routes.ts';

export const flexModule: ModuleFactory = (deps) => ({
  name: 'flex',
  operations: [
    ...flexOperations(deps, createFlexService(deps)),
    ...vppOperations(createVppService(deps, createMarketData(deps))),
  ],
});

/** This module as the module list names it. */
export const flexDefinition: ModuleDefinition = { name: 'flex', dependsOn: ['orgs', 'registry'], migrations: migrationsDir(import.meta.url), create: flexModule };
