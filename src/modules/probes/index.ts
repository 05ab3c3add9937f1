import type { ModuleCreate, ModuleDefinition } from '../../platform/module.ts';
import { probeOperations } from './routes.ts';

export const probesModule: ModuleCreate = (deps) => ({
  tags: {
    probes: 'Liveness, readiness and Prometheus metrics (public).',
  },
  operations: probeOperations(deps),
});

/** This module as the module list names it. */
export const probesDefinition: ModuleDefinition = { name: 'probes', create: probesModule };
