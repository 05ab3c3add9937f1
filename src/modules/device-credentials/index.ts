// Device credentials: a gateway's or device's own credential, bound to one site, accepted by the
// gateway operations only (decision 0375). The platform's guard asks this module's authenticator.
import { migrationsDir, type ModuleDefinition, type ModuleCreate } from '../../platform/module.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { REGISTRY_SITES } from '../registry/index.ts';
import { createCredentialService, CREDENTIAL_ERROR_DOCS } from './service.ts';
import { credentialOperations } from './routes.ts';
import { sectionOf } from '../../core/config-section.ts';
import { deviceMqttConfig } from './config.ts';
import { consumerAccount, createBrokerSync, type BrokerSync } from './broker.ts';
import { createConsumer, MQTT_ERROR_DOCS } from './consumer.ts';
import { TELEMETRY_INGEST } from '../telemetry/index.ts';
import { CONNECT_GATEWAY } from '../connect/index.ts';
import type { AppDeps } from '../../platform/module.ts';
import type { CredentialService } from './service.ts';

/** How often the broker's clients are compared with the table (overlaps that ended by time, expiries). */
const RECONCILE_EVERY_MS = 60_000;
const RECONCILE_KIND = 'device-mqtt.reconcile';

export type { CredentialService, CredentialChange, CredentialListener } from './service.ts';

export const deviceCredentialsModule: ModuleCreate = (deps) => {
  const service = createCredentialService({
    db: deps.db,
    clock: deps.clock,
    audit: deps.services.get(AUDIT_LOG),
    registry: deps.services.get(REGISTRY_SITES),
    prefix: `${deps.config.apiKeyPrefix}dev`,
  });
  // MQTT (docs/devices.md): off without MQTT_URL; with it, the broker's clients follow the credentials.
  const mqtt = sectionOf(deps.config, deviceMqttConfig);
  const broker = mqtt.url
    ? createBrokerSync({
        url: mqtt.url,
        username: mqtt.adminUsername,
        password: mqtt.adminPassword ?? '',
        namespace: deps.config.namespace,
        root: mqtt.topicRoot,
        log: deps.log,
      })
    : undefined;
  // MQTT_CONSUMER_CONNECTIONS connections, each a member of the shared group with its own session
  // (decision 0443), signed in as this root's consumer account, not the administrator (decision 0497).
  const account = consumerAccount(mqtt.topicRoot, mqtt.adminPassword ?? '');
  // Where a device's wait goes (decision 0498): the service's part of publish-to-answer, by topic kind.
  const handled = deps.metrics.histogram({
    name: 'device_mqtt_message_duration_seconds',
    help: "Device MQTT: seconds from a message's arrival at this instance's consumer to its answer on the results topic (after its records committed), by topic kind (telemetry, heartbeat, replay); the rest of a device's publish-to-answer is the broker's and the network's",
    labelNames: ['kind'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5, 0.75, 1, 2.5, 5, 10],
  });
  const consumers = !mqtt.url
    ? []
    : Array.from({ length: mqtt.connections }, (_, i) =>
        createConsumer({
          url: mqtt.url!,
          root: mqtt.topicRoot,
          username: account.username,
          password: account.password,
          clientId: i === 0 ? mqtt.clientId : `${mqtt.clientId}-${i + 1}`,
          maxPayloadBytes: mqtt.maxPayloadBytes,
          maxRecords: mqtt.maxRecords,
          perMinute: mqtt.perMinute,
          inFlight: mqtt.inFlight,
          transactionsPerOrg: mqtt.transactionsPerOrg,
          ingest: deps.services.get(TELEMETRY_INGEST),
          gateway: deps.services.get(CONNECT_GATEWAY),
          sitesRefusals: service.sitesRefusals,
          limiter: deps.limiter,
          entries: deps.entries,
          log: deps.log,
          handled: (kind, seconds) => handled.observe({ kind }, seconds),
        }),
      );
  const consumer = consumers.length
    ? {
        state: () => (consumers.every((c) => c.state() === 'connected') ? 'connected' : 'connecting'),
        counts: () =>
          consumers.reduce(
            (acc, c) => {
              const n = c.counts();
              return {
                stored: acc.stored + n.stored,
                refused: acc.refused + n.refused,
                unacknowledged: acc.unacknowledged + n.unacknowledged,
                transactions: acc.transactions + n.transactions,
              };
            },
            { stored: 0, refused: 0, unacknowledged: 0, transactions: 0 },
          ),
        disconnects: () => {
          const all = new Map<string, number>();
          for (const c of consumers) for (const [reason, n] of c.disconnects()) all.set(reason, (all.get(reason) ?? 0) + n);
          return all;
        },
        start: async () => {
          for (const c of consumers) await c.start();
        },
        stop: async () => {
          await Promise.all(consumers.map((c) => c.stop()));
        },
      }
    : undefined;
  if (broker) {
    service.onChange(async (change) => {
      try {
        await broker.apply(change);
      } catch (err) {
        deps.log.warn({ err }, 'device MQTT: the broker could not be brought in step');
      }
    });
  }
  // Whether MQTT is on, and the consumer's connection: off (no MQTT_URL), on (connecting) or connected.
  // Readiness says it too (decision 0441): informational, never `degraded`.
  deps.readiness.add('mqtt', () => ({ configured: !!consumer, connected: consumer?.state() === 'connected' }));
  deps.metrics.gauge({
    name: 'device_mqtt_state',
    help: 'Device MQTT: 0 off (MQTT_URL not set), 1 on but the consumer is not connected to the broker, 2 connected',
    collect: (g) => g.set(!consumer ? 0 : consumer.state() === 'connected' ? 2 : 1),
  });
  deps.metrics.gauge({
    name: 'device_mqtt_messages',
    help: 'Device MQTT messages this instance consumed since start, by outcome (stored: 200/207; refused: answered with an error; unacknowledged: left for redelivery)',
    labelNames: ['outcome'],
    collect: (g) => {
      const c = consumer?.counts() ?? { stored: 0, refused: 0, unacknowledged: 0 };
      g.set({ outcome: 'stored' }, c.stored);
      g.set({ outcome: 'refused' }, c.refused);
      g.set({ outcome: 'unacknowledged' }, c.unacknowledged);
    },
  });
  deps.metrics.gauge({
    name: 'device_mqtt_telemetry_transactions',
    help: 'Device MQTT: telemetry ingestion transactions this instance ran since start; telemetry messages of one organisation that arrived together share one (decision 0480)',
    collect: (g) => g.set(consumer?.counts().transactions ?? 0),
  });
  deps.metrics.gauge({
    name: 'device_mqtt_consumer_disconnects',
    help: 'Device MQTT: consumer connections of this instance that ended since start other than by a stop, each followed by a reconnect, by reason (session_taken_over: another connection with its client id; administrative_action: the broker dropped it; keepalive_timeout; server_shutting_down; protocol_error; broker_other; message_not_stored: dropped by the consumer so the broker sends a message again; connection_error; connection_lost) (decision 0497)',
    labelNames: ['reason'],
    collect: (g) => {
      g.reset();
      for (const [reason, n] of consumer?.disconnects() ?? []) g.set({ reason }, n);
    },
  });
  return {
    tags: { 'device-credentials': "Device credentials: a gateway's own credential for one site (an extension beside the spec's user sign-in)." },
    errors: [...CREDENTIAL_ERROR_DOCS, ...MQTT_ERROR_DOCS],
    operations: credentialOperations(service),
    provides: { devices: service.authenticator },
    start: async () => {
      if (!broker || !consumer) {
        deps.log.info('device MQTT: off (MQTT_URL not set); device credentials work over HTTP only');
        return;
      }
      // The broker may be away at start: the service starts anyway, and the periodic pass catches up.
      await inStep(deps, service, broker, true);
      await consumer.start();
    },
    // Overlaps that end by time and expiries leave the broker's clients behind: one instance removes them every minute.
    ...(broker && { background: { schedules: [{ kind: RECONCILE_KIND, everyMs: RECONCILE_EVERY_MS, run: () => inStep(deps, service, broker, false) }] } }),
    stop: async () => {
      await consumer?.stop();
      await broker?.close();
    },
  };
};

/** This module as the module list names it. */
export const deviceCredentialsDefinition: ModuleDefinition = {
  name: 'device-credentials',
  dependsOn: ['orgs', 'audit', 'registry', 'telemetry', 'connect'],
  migrations: migrationsDir(import.meta.url),
  config: deviceMqttConfig,
  create: deviceCredentialsModule,
};

/**
 * Brings the broker in step with the table (decision 0377): the consumer's account and role (decision 0497), clients of
 * credentials no longer valid removed (an overlap that ended by time, an expiry, a change made
 * while the broker was away) and, at start, roles rewritten to the current topic design. A valid
 * credential without a client (issued while MQTT was off) cannot be made one: only its hash is kept.
 */
async function inStep(deps: AppDeps, service: CredentialService, broker: BrokerSync, atStart: boolean) {
  try {
    // At start, and at each pass until it has worked (the broker may have been away at start).
    if (atStart || !broker.serviceAccountReady()) await broker.ensureServiceAccount();
    const r = await broker.reconcile(() => service.validAll(deps.backgroundDb), { roles: atStart });
    if (r.removed || r.updated) deps.log.info({ removed: r.removed, updated: r.updated }, 'device MQTT: broker clients brought in step with the credentials');
    if (atStart && r.missing.length) {
      deps.log.warn(
        { count: r.missing.length, credentials: r.missing.slice(0, 20) },
        'device MQTT: valid credentials without a broker client (issued while MQTT was off); rotate them to use MQTT',
      );
    }
  } catch (err) {
    deps.log.warn({ err }, 'device MQTT: the broker could not be brought in step with the credentials');
  }
}
