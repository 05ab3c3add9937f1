// The module list: one line a module. The platform derives the operations it registers, the order
// of the migrations and everything else from these definitions.
import { migrationOrder, moduleFactory, type ModuleDefinition, type ModuleFactory } from '../platform/module.ts';
import { orgsDefinition } from './orgs/index.ts';
import { probesDefinition } from './probes/index.ts';
import { identityDefinition } from './identity/index.ts';
import { accessDefinition } from './access/index.ts';
import { auditDefinition } from './audit/index.ts';
import { registryDefinition } from './registry/index.ts';
import { devicesDefinition } from './devices/index.ts';
import { telemetryDefinition } from './telemetry/index.ts';
import { marketDefinition } from './market/index.ts';
import { flexDefinition } from './flex/index.ts';
import { esgDefinition } from './esg/index.ts';
import { settlementDefinition } from './settlement/index.ts';
import { alertsDefinition } from './alerts/index.ts';
import { devtoolsDefinition } from './devtools/index.ts';
import { connectDefinition } from './connect/index.ts';
import { notificationsDefinition } from './notifications/index.ts';
import { emsAlertsDefinition } from './ems-alerts/index.ts';
import { energyDefinition } from './energy/index.ts';
import { pricingDefinition } from './pricing/index.ts';
import { fieldDefinition } from './field/index.ts';
import { controlDefinition } from './control/index.ts';
import { hubDefinition } from './hub/index.ts';
import { statementsDefinition } from './statements/index.ts';
import { exportDefinition } from './export/index.ts';
import { forecastingDefinition } from './forecasting/index.ts';
import { optimisationDefinition } from './optimisation/index.ts';
import { crmDefinition } from './crm/index.ts';
import { studiesDefinition } from './studies/index.ts';
import { fleetDefinition } from './fleet/index.ts';
import { statusDefinition } from './status/index.ts';
import { liveDefinition } from './livestream/index.ts';
import { deviceCredentialsDefinition } from './device-credentials/index.ts';

export const moduleList: readonly ModuleDefinition[] = [
  orgsDefinition,
  probesDefinition,
  identityDefinition,
  accessDefinition,
  auditDefinition,
  registryDefinition,
  devicesDefinition,
  telemetryDefinition,
  marketDefinition,
  flexDefinition,
  esgDefinition,
  settlementDefinition,
  alertsDefinition,
  devtoolsDefinition,
  connectDefinition,
  notificationsDefinition,
  emsAlertsDefinition,
  energyDefinition,
  pricingDefinition,
  fieldDefinition,
  controlDefinition,
  hubDefinition,
  statementsDefinition,
  exportDefinition,
  forecastingDefinition,
  optimisationDefinition,
  crmDefinition,
  studiesDefinition,
  fleetDefinition,
  statusDefinition,
  liveDefinition,
  deviceCredentialsDefinition,
];

/**
 * The factories of the modules that serve operations or run background work, in list order, each
 * seeing only the services of the modules in its dependsOn (decision 0330).
 */
export const defaultModules: ModuleFactory[] = moduleList.flatMap((m) => (m.create ? [moduleFactory({ ...m, create: m.create })] : []));

/** Every module's configuration section, read by the one config loader (src/config.ts). */
export const configSections = moduleList.flatMap((m) => (m.config ? [m.config] : []));

/** Every module's migrations, in dependency order (the platform's own run first). */
export const moduleMigrations = migrationOrder(moduleList);
