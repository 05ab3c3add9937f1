// Connect: how sites get into the service. Site onboarding (templates, proposal, confirmation and
// its clock), the gateway link (heartbeat, status, check; the demo-realm watchdog on the platform
// job queue raising asset_silence in the organisation alert stream), buffer replay into production
// telemetry, the home-automation connector (phase 1, read only) and the demo-realm rehearsals.
import { migrationsDir, type ModuleDefinition, type ModuleCreate } from '../../platform/module.ts';
import { serviceKey } from '../../platform/services.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { ALERT_STREAM } from '../alerts/index.ts';
import { ORG_DIRECTORY } from '../orgs/index.ts';
import { REGISTRY_SITES } from '../registry/index.ts';
import { TELEMETRY_WRITER } from '../telemetry/index.ts';
import { createOnboarding } from './onboarding.ts';
import { createGatewayLink, WATCHDOG_EVERY_MS, WATCHDOG_KIND, type GatewayLink } from './gateway.ts';
import { createBufferReplay, type BufferReplay } from './buffer.ts';
import { createGatewayEntry, type GatewayEntry } from './device-entry.ts';
import { createHomeAutomation } from './home-automation.ts';
import { connectOperations } from './routes.ts';
import { CONNECT_ERROR_DOCS } from './errors.ts';

export type { GatewayEntry } from './device-entry.ts';
/**
 * Heartbeat and buffer replay for other entries (device MQTT, decision 0440): the gateway
 * operations' own validation, service and answers.
 */
export const CONNECT_GATEWAY = serviceKey<GatewayEntry>('connect.gateway');
/** The module's own gateway link and buffer replay (one of each, for its routes and for CONNECT_GATEWAY). */
const CONNECT_LINK = serviceKey<{ gateway: GatewayLink; buffer: BufferReplay }>('connect.link');

export const connectModule: ModuleCreate = (deps) => {
  const audit = deps.services.get(AUDIT_LOG);
  const registry = deps.services.get(REGISTRY_SITES);
  const writer = deps.services.get(TELEMETRY_WRITER);
  const { db, clock, cursors } = deps;
  const onboarding = createOnboarding({ db, clock, audit, registry, cursors });
  const { gateway, buffer } = deps.services.get(CONNECT_LINK);
  const ha = createHomeAutomation({ db, clock, audit, registry, writer });
  return {
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
  provides: (deps, registry) => {
    const regs = registry.get(REGISTRY_SITES);
    const gateway = createGatewayLink({
      db: deps.db,
      work: deps.backgroundDb,
      clock: deps.clock,
      alerts: registry.get(ALERT_STREAM),
      orgs: registry.get(ORG_DIRECTORY),
      registry: regs,
      units: deps.jobUnits,
    });
    const buffer = createBufferReplay({ db: deps.db, clock: deps.clock, writer: registry.get(TELEMETRY_WRITER), registry: regs, cursors: deps.cursors });
    registry.provide(CONNECT_LINK, { gateway, buffer });
    registry.provide(CONNECT_GATEWAY, createGatewayEntry(gateway, buffer));
  },
  create: connectModule,
};
