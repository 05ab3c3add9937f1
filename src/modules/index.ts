// The module list app.ts registers, in order.
import type { ModuleFactory } from '../platform/module.ts';
import { probesModule } from './probes/index.ts';
import { identityModule } from './identity/index.ts';
import { accessModule } from './access/index.ts';
import { auditModule } from './audit/index.ts';

export const defaultModules: ModuleFactory[] = [probesModule, identityModule, accessModule, auditModule];
