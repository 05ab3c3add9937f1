// Device listings, source priority and data integrity over the registry and stored telemetry.
import type { ModuleFactory, ModuleDefinition } from '../../platform/module.ts';
import { createRegistryStore } from '../registry/index.ts';
import { createDevicesStore } from './store.ts';
import { createDevicesService } from './service.ts';
import { deviceOperations } from './routes.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { TELEMETRY_READS } from '../telemetry/index.ts';

export const devicesModule: ModuleFactory = (deps) => {
  const service = createDevicesService({
    db: deps.db,
    clock: deps.clock,
    audit: deps.services.get(AUDIT_LOG),
    registry: createRegistryStore(deps.services.get(TELEMETRY_READS)),
    store: createDevicesStore(),
  });
  return {
    name: 'devices',
    tags: {
      devices: 'Device listings (chargers, solar, batteries, heat pumps, meters, vehicles) with last-reported times and sources.',
    },
    operations: deviceOperations(service) };
};

/** This module as the module list names it. */
export const devicesDefinition: ModuleDefinition = {
  name: 'devices',
  dependsOn: ['registry', 'telemetry'],
  scopes: { 'devices:read': 'read devices and their state' },
  create: devicesModule,
};
