import type { ModuleFactory, ModuleDefinition } from '../../platform/module.ts';
import { probeOperations } from './routes.ts';

export const probesModule: ModuleFactory = (deps) => ({
  name: 'probes',
  tags: {
    probes: 'Liveness, readiness and Prometheus metrics (public).',
  },
  operations: probeOperations(deps),
});

/** This module as the module list names it. */
export const probesDefinition: ModuleDefinition = { name: 'probes', create: probesModule };
