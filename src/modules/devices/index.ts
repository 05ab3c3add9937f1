// Device listings, source priority, data integrity and commissioning over the registry's assets and
// the stored telemetry, both read through the services those modules provide.
import type { ModuleCreate, ModuleDefinition } from '../../platform/module.ts';
import { COMMISSIONING_RUNS, REGISTRY_READS, SOURCE_PRIORITIES } from '../registry/index.ts';
import { createDevicesService } from './service.ts';
import { deviceOperations } from './routes.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { TELEMETRY_READS } from '../telemetry/index.ts';

export const devicesModule: ModuleCreate = (deps) => {
  const service = createDevicesService({
    db: deps.db,
    clock: deps.clock,
    audit: deps.services.get(AUDIT_LOG),
    registry: deps.services.get(REGISTRY_READS),
    priorities: deps.services.get(SOURCE_PRIORITIES),
    runs: deps.services.get(COMMISSIONING_RUNS),
    telemetry: deps.services.get(TELEMETRY_READS),
  });
  return {
    tags: {
      devices: 'Device listings (chargers, solar, batteries, heat pumps, meters, vehicles) with last-reported times and sources.',
    },
    operations: deviceOperations(service),
  };
};

/** This module as the module list names it. */
export const devicesDefinition: ModuleDefinition = {
  name: 'devices',
  dependsOn: ['registry', 'telemetry', 'audit'],
  scopes: { 'devices:read': 'read devices and their state' },
  create: devicesModule,
};
