// Public charging hub on the OCPP charger stack: an OCPP 1.6J / 2.0.1 endpoint on the service's own
// HTTP server (ocpp.ts), sites, charge points, published price schedules, quotes, costed
// transactions, reliability and PCPR 2023 compliance, and demo-realm load sharing.
import { migrationsDir, type ModuleDefinition, type ModuleCreate } from '../../platform/module.ts';
import { sectionOf } from '../../core/config-section.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { ORG_DIRECTORY } from '../orgs/index.ts';
import { REGISTRY_SITES } from '../registry/index.ts';
import { TELEMETRY_WRITER } from '../telemetry/index.ts';
import { hubConfig } from './config.ts';
import { createOcppGateway } from './ocpp.ts';
import { createHubService } from './service.ts';
import { hubOperations } from './routes.ts';
import { HUB_ERROR_DOCS } from './errors.ts';
import { hubExportables } from './store.ts';
import { failStaleCommands } from './services/commands.ts';

const STALE_COMMANDS_KIND = 'hub.stale-commands';

const listenHost = (h: string) => (h === '0.0.0.0' || h === '::' || h === '' ? 'localhost' : h.includes(':') ? `[${h}]` : h);

export const hubModule: ModuleCreate = (deps) => {
  const settings = sectionOf(deps.config, hubConfig);
  const gateway = createOcppGateway({
    db: deps.db,
    bus: deps.bus,
    clock: deps.clock,
    log: deps.log,
    writer: deps.services.get(TELEMETRY_WRITER),
    settings,
    entries: deps.entries,
    failedAuth: deps.failedAuth,
    metrics: deps.metrics,
    trustProxy: deps.config.trustProxy,
    tls: settings.tls,
    host: deps.config.host,
  });
  const folded = deps.metrics.counter({
    name: 'hub_boot_alignments_folded_total',
    help: "Boots whose aligned-metering request joined the charger's one already waiting (a charger booting in a loop)",
  });
  const service = createHubService({
    onAlignmentFolded: () => folded.inc(),
    db: deps.db,
    clock: deps.clock,
    cursors: deps.cursors,
    orgs: deps.services.get(ORG_DIRECTORY),
    registry: deps.services.get(REGISTRY_SITES),
    audit: deps.services.get(AUDIT_LOG),
    gateway,
    // Never a request's Host (issue 35, finding 10): the configured URL (required in production),
    // else where this instance listens (its TLS listener's wss:// when there is one), else where it
    // is configured to listen.
    publicUrl: () =>
      settings.ocppPublicUrl ??
      gateway.listeningUrl() ??
      (settings.tls ? `wss://${listenHost(deps.config.host)}:${settings.tls.port}` : `ws://${listenHost(deps.config.host)}:${deps.config.port}`),
  });
  if (settings.meterAlignedSeconds > 0) gateway.onBoot((s, version) => service.alignMetering(s.orgId, s.cpId, version, settings.meterAlignedSeconds));
  return {
    tags: {
      hub: 'Public charging hub: sites, OCPP charge points, price schedules, quotes, transactions and cost, reliability and PCPR 2023 compliance, load sharing (demo realm).',
    },
    errors: HUB_ERROR_DOCS,
    operations: hubOperations(service),
    start: async ({ server }) => gateway.start(server),
    background: {
      // A command whose outcome an instance could not record (it stopped, or its store failed,
      // after the CALL left) is failed with its reason once overdue (decision 0437).
      schedules: [
        {
          kind: STALE_COMMANDS_KIND,
          everyMs: 60_000,
          run: async () => {
            const n = await failStaleCommands(deps.backgroundDb, deps.clock.now(), settings.commandTimeoutMs);
            if (n) deps.log.warn({ commands: n }, 'hub: commands whose outcome was never recorded are stored as failed');
          },
        },
      ],
    },
    closing: () => gateway.closing(),
    stop: () => gateway.stop(),
  };
};

/** The gateway's instance view, for tests and benchmarks (connections held here). */
export { createOcppGateway, OCPP_PATH, SUBPROTOCOLS } from './ocpp.ts';

/** This module as the module list names it. */
export const hubDefinition: ModuleDefinition = {
  name: 'hub',
  dependsOn: ['orgs', 'audit', 'telemetry', 'registry', 'market'],
  migrations: migrationsDir(import.meta.url),
  exportable: hubExportables,
  config: hubConfig,
  create: hubModule,
};
