import type { ModuleFactory } from '../../platform/module.ts';
import { probeOperations } from './routes.ts';

export const probesModule: ModuleFactory = (deps) => ({ name: 'probes', operations: probeOperations(deps) });
