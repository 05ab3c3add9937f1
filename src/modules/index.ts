// The module list app.ts registers, in order.
import type { ModuleFactory } from '../platform/module.ts';
import { probesModule } from './probes/index.ts';

export const defaultModules: ModuleFactory[] = [probesModule];
