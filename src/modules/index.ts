// The module list app.ts registers, in order.
import type { ModuleFactory } from '../platform/module.ts';
import { probesModule } from './probes/index.ts';
import { identityModule } from './identity/index.ts';
import { accessModule } from './access/index.ts';
import { auditModule } from './audit/index.ts';
import { registryModule } from './registry/index.ts';
import { devicesModule } from './devices/index.ts';
import { telemetryModule } from './telemetry/index.ts';
import { marketModule } from './market/index.ts';
import { flexModule } from './flex/index.ts';
import { esgModule } from './esg/index.ts';
import { settlementModule } from './settlement/index.ts';
import { devtoolsModule } from './devtools/index.ts';

export const defaultModules: ModuleFactory[] = [probesModule, identityModule, accessModule, auditModule, registryModule, devicesModule, telemetryModule, marketModule, flexModule, esgModule, settlementModule, devtoolsModule];
