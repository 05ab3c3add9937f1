// Public charging hub on the OCPP charger stack: an OCPP 1.6J / 2.0.1 endpoint on the service's own
// HTTP server (ocpp.ts), sites, charge points, published price schedules, quotes, costed
// transactions, reliability and PCPR 2023 compliance, and demo-realm load sharing.
import { migrationsDir, type ModuleDefinition, type ModuleFactory } from '../../platform/module.ts';
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
import { serviceKey } from '../../platform/services.ts';
import type { ExportableCollection } from '../../platform/exportable.ts';
import { hubExportables } from './store.ts';

const listenHost = (h: string) => (h === '0.0.0.0' || h === '::' || h === '' ? 'localhost' : h.includes(':') ? `[${h}]` : h);

export const hubModule: ModuleFactory = (deps) => {
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
  });
  const service = createHubService({
    db: deps.db,
    clock: deps.clock,
    cursors: deps.cursors,
    orgs: deps.services.get(ORG_DIRECTORY),
    registry: deps.services.get(REGISTRY_SITES),
    audit: deps.services.get(AUDIT_LOG),
    gateway,
    // Never a request's Host (issue 35, finding 10): the configured URL (required in production),
    // else where this instance listens, else where it is configured to listen.
    publicUrl: () => settings.ocppPublicUrl ?? gateway.listeningUrl() ?? `ws://${listenHost(deps.config.host)}:${deps.config.port}`,
  });
  return {
    name: 'hub',
    tags: {
      hub: 'Public charging hub: sites, OCPP charge points, price schedules, quotes, transactions and cost, reliability and PCPR 2023 compliance, load sharing (demo realm).',
    },
    errors: HUB_ERROR_DOCS,
    operations: hubOperations(service),
    start: async ({ server }) => gateway.start(server),
    closing: () => gateway.closing(),
    stop: () => gateway.stop(),
  };
};

/** The gateway's instance view, for tests and benchmarks (connections held here). */
export { createOcppGateway, OCPP_PATH, SUBPROTOCOLS } from './ocpp.ts';

/** This module as the module list names it. */
/** This module's data for the organisation's data export (the export module's collection shape). */
export const HUB_EXPORTABLE = serviceKey<ExportableCollection[]>('hub.exportable');

export const hubDefinition: ModuleDefinition = {
  name: 'hub',
  dependsOn: ['orgs', 'audit', 'telemetry', 'registry', 'market'],
  migrations: migrationsDir(import.meta.url),
  provides: (_deps, registry) => registry.provide(HUB_EXPORTABLE, hubExportables),
  config: hubConfig,
  create: hubModule,
};
