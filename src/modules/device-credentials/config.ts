// The device MQTT settings (docs/devices.md): with no MQTT_URL the feature is off.
import { hostname } from 'node:os';
import { configSection } from '../../core/config-section.ts';

export interface DeviceMqttConfig {
  /** The Mosquitto broker with the dynamic security plugin (ops/mosquitto.sh); undefined: MQTT off. */
  url?: string;
  /** The dynamic security administrator the service signs in as. */
  adminUsername: string;
  adminPassword?: string;
  /**
   * The first topic level of every device topic, the broker roles' ACLs and the consumer's shared
   * subscription group (decision 0442): deployments sharing one broker each take their own root.
   */
  topicRoot: string;
  /** The consumer's client id: its persistent session (unacknowledged messages come back to it after a restart). */
  clientId: string;
  /**
   * Consumer connections per instance (decision 0443), each its own persistent session in the
   * shared group: `clientId` for the first, `clientId-2`... for the others.
   */
  connections: number;
  /**
   * Messages of one consumer connection worked on at once (decision 0480), its MQTT 5 Receive
   * Maximum: the broker sends no more until some are acknowledged.
   */
  inFlight: number;
  /**
   * Telemetry transactions of one organisation at once per consumer connection (decisions 0480,
   * 0498): each holds a request-pool connection for its length; messages that arrive while this many
   * run wait and go together in the next.
   */
  transactionsPerOrg: number;
  /** A telemetry message's payload at most (bytes); larger ones are answered `payload_too_large`. */
  maxPayloadBytes: number;
  /** Records in one message at most; more are answered `too_many_records`. */
  maxRecords: number;
  /** Messages per minute one publisher (a site's or a device's topic) may send; past it they are dropped and answered. */
  perMinute: number;
}

export const deviceMqttConfig = configSection<DeviceMqttConfig>('device-mqtt', (r) => {
  const url = r.url('MQTT_URL', ['mqtt:', 'mqtts:']);
  const adminPassword = r.optional('MQTT_ADMIN_PASSWORD');
  if (url && !adminPassword) r.fail('MQTT_URL is set but MQTT_ADMIN_PASSWORD is not: the service signs in to the broker as its dynamic security administrator');
  return {
    url,
    adminUsername: r.str('MQTT_ADMIN_USERNAME', 'eps-admin'),
    adminPassword,
    topicRoot: r.pattern('MQTT_TOPIC_ROOT', 'eps', /^[A-Za-z0-9_-]{1,32}$/, 'letters, digits, _ - (at most 32; one topic level)'),
    clientId: r.pattern(
      'MQTT_CLIENT_ID',
      `eps-${hostname().replace(/[^A-Za-z0-9._-]/g, '-')}`.slice(0, 64),
      /^[A-Za-z0-9._-]{1,64}$/,
      'letters, digits, . _ - (at most 64)',
    ),
    connections: r.int('MQTT_CONSUMER_CONNECTIONS', 1, 1, 64),
    inFlight: r.int('MQTT_CONSUMER_IN_FLIGHT', 1000, 1, 65_535),
    transactionsPerOrg: r.int('MQTT_TRANSACTIONS_PER_ORG', 8, 1, 64),
    maxPayloadBytes: r.int('MQTT_MAX_PAYLOAD_BYTES', 6 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    maxRecords: r.int('MQTT_MAX_RECORDS', 5000, 1, 1_000_000),
    perMinute: r.int('MQTT_PUBLISHER_PER_MIN', 600, 1, 10_000_000),
  };
});
