// Connect: how sites get into the service. Site onboarding (templates, proposal, confirmation and
// its clock), the gateway link (heartbeat, status, check; the demo-realm watchdog on the platform
// job queue raising asset_silence in the organisation alert stream), buffer replay into production
// telemetry, the home-automation connector (phase 1, read only) and the demo-realm rehearsals.
import { migrationsDir, type ModuleDefinition, type ModuleFactory } from '../../platform/module.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { ALERT_STREAM } from '../alerts/index.ts';
import { ORG_DIRECTORY } from '../orgs/index.ts';
import { REGISTRY_SITES } from '../registry/index.ts';
import { TELEMETRY_WRITER } from '../telemetry/index.ts';
import { createOnboarding } from './onboarding.ts';
import { createGatewayLink, WATCHDOG_EVERY_MS, WATCHDOG_KIND } from './gateway.ts';
import { createBufferReplay } from './buffer.ts';
import { createHomeAutomation } from './home-automation.ts';
import { connectOperations } from './routes.ts';
import { CONNECT_ERROR_DOCS } from './errors.ts';

export const connectModule: ModuleFactory = (deps) => {
  const audit = deps.services.get(AUDIT_LOG);
  const registry = deps.services.get(REGISTRY_SITES);
  const writer = deps.services.get(TELEMETRY_WRITER);
  const { db, clock, cursors } = deps;
  const onboarding = createOnboarding({ db, clock, audit, registry, cursors });
  const gateway = createGatewayLink({
    db,
    work: deps.backgroundDb,
    clock,
    alerts: deps.services.get(ALERT_STREAM),
    orgs: deps.services.get(ORG_DIRECTORY),
    registry,
    units: deps.jobUnits,
  });
  const buffer = createBufferReplay({ db, clock, writer, registry, cursors });
  const ha = createHomeAutomation({ db, clock, audit, registry, writer });
  return {
    name: 'connect',
    tags: {
      onboarding: 'Site onboarding: templates, sites from a template with a proposed device mapping, confirmation and time to confirm.',
      gateway: 'Gateway link (heartbeat, status, check) and buffer replay into production telemetry.',
      'home-automation': 'The home-automation connector (phase 1, read only: nothing sends or queues a device command).',
      demo: 'Demo-realm operations: rehearsals on simulated sites of demo organisations.',
    },
    errors: CONNECT_ERROR_DOCS,
    operations: connectOperations(onboarding, gateway, buffer, ha),
    background: {
      schedules: [{ kind: WATCHDOG_KIND, everyMs: WATCHDOG_EVERY_MS, run: async () => void (await gateway.watchdog()) }],
    },
  };
};

/** This module as the module list names it. */
export const connectDefinition: ModuleDefinition = {
  name: 'connect',
  dependsOn: ['orgs', 'audit', 'alerts', 'telemetry', 'registry'],
  migrations: migrationsDir(import.meta.url),
  create: connectModule,
};
