// Developer platform: API keys, webhook endpoints and their delivery engine, the Partner API, the
// sandbox and the public status. Provides the platform's API key check. Background work (webhook
// deliveries, the device.offline watchdog, key alerts, health checks, retention) is declared in
// `background` and runs on the platform's durable job queue, so exactly one instance does each run.
import { migrationsDir, type ModuleCreate, type ModuleParts, type ModuleDefinition } from '../../platform/module.ts';
import type { Operation } from '../../platform/operation.ts';
import { ALERT_STREAM, ALERT_RAISED, ALERT_RESOLVED } from '../alerts/index.ts';
import { DAY_MS } from './common.ts';
import { createKeyAlerts } from './apikeys/alerts.ts';
import { createKeyService, KEY_ALERTS_KIND } from './apikeys/service.ts';
import { apiKeyOperations } from './routes/apikeys.ts';
import { createSecretBox } from './webhooks/secrets.ts';
import { createWebhookService } from './webhooks/service.ts';
import { webhookOperations } from './routes/webhooks.ts';
import { createDeliveryEngine, DELIVER_JOB, FANOUT_JOB } from './deliveries/engine.ts';
import { deliveryStore } from './deliveries/store.ts';
import { createOfflineWatchdog, WATCHDOG_EVERY_MS, WATCHDOG_KIND } from './deliveries/watchdog.ts';
import { createSandboxData } from './sandbox/generator.ts';
import { createSandboxService, IDEMPOTENCY_TTL_MS } from './sandbox/service.ts';
import { idempotencyStore } from './sandbox/store.ts';
import { createPartnerService } from './partner/service.ts';
import { partnerOperations } from './routes/partner.ts';
import { createStatusService, readStatus, CHECK_EVERY_MS, COMPONENTS } from './status/service.ts';
import { serviceKey } from '../../platform/services.ts';
import { healthStore } from './status/store.ts';
import { statusOperations } from './routes/status.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { ORG_DIRECTORY } from '../orgs/index.ts';
import { REGISTRY_READS } from '../registry/index.ts';
import { TELEMETRY_READS } from '../telemetry/index.ts';
import { devtoolsMetrics } from './metrics.ts';
import { sectionOf } from '../../core/config-section.ts';
import { devtoolsConfig } from './config.ts';
import { DEVTOOLS_ERROR_DOCS } from './errors.ts';

/** Signing for other modules' signed webhooks (concepts.md section 6): the same scheme and secret sealing. */
export { signatureHeader, createSecretBox, secretKeyBytes, type SecretBox } from './webhooks/secrets.ts';
export { API_VERSION } from './common.ts';

/**
 * The platform's component health for other modules (the status module): the state now and observed
 * availability from the health checks the `devtools.health-checks` schedule records, and the names of
 * the components checked. Reads only; no check is run.
 */
export interface PlatformHealth {
  status(): ReturnType<typeof readStatus>;
  components: readonly { name: string; description: string }[];
}
export const PLATFORM_HEALTH = serviceKey<PlatformHealth>('devtools.platform-health');

export const EVENT_RETENTION_MS = 30 * DAY_MS;
const HOUR_MS = 3_600_000;

export const devtoolsModule: ModuleCreate = (deps) => {
  const { db, clock, config, cursors } = deps;
  const settings = sectionOf(config, devtoolsConfig);
  const audit = deps.services.get(AUDIT_LOG);
  // Job handlers read and write through the background store (its own connections and statement
  // timeout, decision 0018); request handlers through `db`.
  const work = deps.backgroundDb;
  const queue = deps.jobs;
  const counters = devtoolsMetrics(deps.metrics);
  const alerts = deps.services.get(ALERT_STREAM);
  const orgs = deps.services.get(ORG_DIRECTORY);
  const registry = deps.services.get(REGISTRY_READS);
  const telemetry = deps.services.get(TELEMETRY_READS);
  const box = createSecretBox(config.jwtSecret);
  let deprecated: readonly Operation[] = [];
  const keyAlerts = createKeyAlerts({ alerts, deprecatedOps: () => deprecated });
  const keys = createKeyService({ db, clock, audit, config, keyAlerts, orgs, units: deps.jobUnits });
  const sandbox = createSandboxData(config);
  // The engine's own reads are the delivery job's; requests reach it with their transaction.
  const engine = createDeliveryEngine({
    db: work,
    clock,
    config,
    webhookTimeoutMs: settings.webhookTimeoutMs,
    alerts,
    audit,
    queue,
    box,
    orgs,
    onOutcome: counters.delivered,
  });
  const hooks = createWebhookService({
    db,
    clock,
    config,
    sandboxMaxPendingDeliveries: settings.sandboxMaxPendingDeliveries,
    audit,
    alerts,
    cursors,
    box,
    engine,
    sandbox,
    orgs,
  });
  const partner = createPartnerService({ db, clock, cursors, alerts, keys, sandbox, orgs, registry, telemetry });
  const sandboxTests = createSandboxService({ db, clock, audit, engine, sandbox, maxPending: settings.sandboxMaxPendingDeliveries });
  const probeKey = `${config.apiKeyPrefix}_live_0000000000000000_${'A'.repeat(43)}`;
  const status = createStatusService({
    db,
    cache: deps.cache,
    bus: deps.bus,
    clock,
    partnerProbe: async () => (await keys.authenticator.authenticate(probeKey)) === null,
    deliveryLag: () => queue.waitingAge([DELIVER_JOB]),
  });

  const watchdog = createOfflineWatchdog({ db: work, clock, engine, registry, telemetry, units: deps.jobUnits });

  const instance: ModuleParts = {
    tags: {
      devtools: 'API keys, webhook endpoints and their delivery logs, and the public API status.',
      partner: 'The Partner API (API keys): telemetry, devices, alerts and the sandbox.',
    },
    errors: DEVTOOLS_ERROR_DOCS,
    operations: [
      ...apiKeyOperations(keys, deps.scopes),
      ...webhookOperations(hooks),
      ...partnerOperations(partner, sandboxTests, deps.scopes),
      ...statusOperations(status),
    ],
    provides: { apiKeys: keys.authenticator },
    // The developer platform's answers use the error envelope and carry X-Request-Id (concepts.md 7).
    envelopePrefixes: ['/api/devtools'],
    limitClasses: {
      // Key and webhook management: 60 requests a minute per organisation (concepts.md section 8).
      'devtools-management': { policy: 'devtools', limit: settings.managementPerMinutePerOrg, windowMs: 60_000 },
    },
    background: {
      jobs: [
        { kind: DELIVER_JOB, handler: engine.deliver },
        { kind: FANOUT_JOB, handler: engine.fanout },
      ],
      subscriptions: [
        { topic: ALERT_RAISED, kind: FANOUT_JOB },
        { topic: ALERT_RESOLVED, kind: FANOUT_JOB },
      ],
      schedules: [
        { kind: 'devtools.health-checks', everyMs: CHECK_EVERY_MS, run: () => status.runChecks() },
        { kind: WATCHDOG_KIND, everyMs: WATCHDOG_EVERY_MS, run: async () => void (await watchdog()) },
        { kind: KEY_ALERTS_KIND, everyMs: HOUR_MS, run: () => keys.syncAllAlerts() },
        {
          kind: 'devtools.retention',
          everyMs: HOUR_MS,
          run: async () => {
            const now = clock.now().getTime();
            await deliveryStore.purgeEventsBefore(work, new Date(now - EVENT_RETENTION_MS));
            await idempotencyStore.purge(work, new Date(now - IDEMPOTENCY_TTL_MS));
            await healthStore.purge(work, new Date(now - 31 * DAY_MS));
          },
        },
      ],
    },
    async start(ctx) {
      deprecated = ctx.operations.filter((op) => op.deprecation && op.access.kind === 'key');
    },
  };
  return instance;
};

/** This module as the module list names it. */
export const devtoolsDefinition: ModuleDefinition = {
  name: 'devtools',
  dependsOn: ['orgs', 'alerts', 'telemetry', 'registry', 'audit'],
  migrations: migrationsDir(import.meta.url),
  config: devtoolsConfig,
  provides: (deps, registry) => registry.provide(PLATFORM_HEALTH, { status: () => readStatus(deps.db, deps.clock), components: COMPONENTS }),
  create: devtoolsModule,
};
