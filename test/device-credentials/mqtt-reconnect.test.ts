// Why a device MQTT consumer reconnects (decision 0497), on a real Mosquitto started by
// ops/mosquitto.sh. CI saw a QoS 1 message answered twice: the broker sent it again after the
// consumer's connection was made again, because another deployment starting on the same broker (the
// suite runs two MQTT files at once) gave the shared administrator account its root's role, and
// Mosquitto drops every connection of a username whose roles change. The consumer now signs in as
// its root's own account; a disconnect it did not ask for is logged with its reason and counted.
// (Mosquitto 2.0 closes a connection whose client id another connection took without a reason
// code: that one is counted as connection_lost; the broker's log says "already connected".)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import mqtt, { type MqttClient } from 'mqtt';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ADMIN_PASSWORD, MOSQUITTO_SCRIPT as script, noBroker as skip, registerBattery, SHARED_PORT as PORT } from './broker.ts';

const URL_ = `mqtt://127.0.0.1:${PORT}`;
// Roots, organisation and client ids of this run's own: the broker outlives the stores.
const RUN = Date.now().toString(36);
const ROOT_A = `ca${RUN}`;
const ROOT_B = `cb${RUN}`;
const ORG = `rc-${RUN}`;
const CLIENT_A = `eps-test-reconnect-${RUN}`;

/** The service's warnings and errors, as JSON lines. */
const lines: Record<string, unknown>[] = [];
const logDestination = { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) };

let a: TestService;
let admin: string;

const envFor = (root: string, clientId: string) => ({
  MQTT_URL: URL_,
  MQTT_ADMIN_PASSWORD: ADMIN_PASSWORD,
  MQTT_TOPIC_ROOT: root,
  MQTT_CLIENT_ID: clientId,
  LOG_LEVEL: 'warn',
});

before(async () => {
  if (skip) return;
  execFileSync(script, { env: { ...process.env, MQTT_PORT: PORT, MQTT_ADMIN_PASSWORD: ADMIN_PASSWORD }, stdio: 'ignore' });
  a = await startTestService({ env: envFor(ROOT_A, CLIENT_A), logDestination });
  await a.createOrg(ORG);
  admin = await a.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: '3650d' });
  await registerBattery(a, admin, 'r.battery', 'site-r');
});
after(async () => {
  if (!skip) await a.stop();
});

/** The service's metric samples whose name starts with `name`, as `name{labels}` -> value. */
async function metrics(svc: TestService, name: string) {
  const res = await svc.request({ method: 'GET', url: '/api/telemetry/metrics' });
  assert.equal(res.statusCode, 200, res.body);
  return Object.fromEntries(
    res.body
      .split('\n')
      .filter((l) => l.startsWith(name))
      .map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))]),
  );
}

/** Until the service's consumer is connected (readiness says so). */
async function connected(svc: TestService) {
  for (let i = 0; i < 100; i++) {
    const res = await svc.request({ method: 'GET', url: '/api/telemetry/readyz' });
    if ((json(res) as { mqtt?: { connected?: boolean } }).mqtt?.connected) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail('the consumer did not connect within 10 s');
}

async function device() {
  const res = await a.request({
    method: 'POST',
    url: '/api/hardware/device-credentials',
    headers: { authorization: `Bearer ${admin}` },
    payload: { name: 'gw', site_id: 'site-r', scopes: ['telemetry:write'] },
  });
  assert.equal(res.statusCode, 201, res.body);
  const cred = json(res) as { id: string; secret: string };
  const d = await mqtt.connectAsync(URL_, { username: cred.id, password: cred.secret, protocolVersion: 5, reconnectPeriod: 0, connectTimeout: 3000 });
  // Every answer, by the correlation data of the message it answers.
  const answered = new Map<string, number[]>();
  d.on('message', (_t, payload, packet) => {
    const key = packet.properties?.correlationData?.toString() ?? '';
    answered.set(key, [...(answered.get(key) ?? []), Number((JSON.parse(payload.toString('utf8')) as { status: number }).status)]);
  });
  await d.subscribeAsync(`${ROOT_A}/${ORG}/site-r/results`, { qos: 1 });
  return { d, answered };
}

let minute = 0;
const publish = (d: MqttClient, key: string) =>
  d.publishAsync(
    `${ROOT_A}/${ORG}/site-r/telemetry`,
    JSON.stringify({ device_id: 'r.battery', ts: new Date(a.clock.now().getTime() - ++minute * 60_000).toISOString(), soc_pct: 50 }),
    {
      qos: 1,
      properties: { correlationData: Buffer.from(key) },
    },
  );

async function until(what: string, ok: () => boolean, ms = 20_000) {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) assert.fail(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('another deployment starting on the same broker leaves this one’s consumer connected: every message answered once', {
  skip,
  timeout: 60_000,
}, async () => {
  await connected(a);
  const { d, answered } = await device();
  try {
    // Messages in flight while the other deployment (another topic root: its own role and consumer account) starts.
    const sent: string[] = [];
    let publishing = true;
    const stream = (async () => {
      while (publishing && sent.length < 250) {
        const key = `m${sent.length}`;
        sent.push(key);
        await publish(d, key);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const b = await startTestService({ env: envFor(ROOT_B, `eps-test-reconnect-b-${RUN}`) });
    try {
      await connected(b);
      // Past the consumer's reconnect (2 s), had it been dropped: a redelivery would have come by now.
      await new Promise((r) => setTimeout(r, 3_000));
      publishing = false;
      await stream;
      await until('every message answered', () => sent.every((k) => answered.has(k)));
      await new Promise((r) => setTimeout(r, 500));
      const twice = sent.filter((k) => answered.get(k)!.length !== 1);
      assert.deepEqual(twice, [], 'messages answered more than once');
      assert.ok(
        sent.every((k) => answered.get(k)![0] === 200),
        JSON.stringify(Object.fromEntries(answered)),
      );
      assert.deepEqual(await metrics(a, 'eps_device_mqtt_consumer_disconnects'), {}, 'the consumer was never disconnected');
      assert.deepEqual(
        lines.filter((l) => String(l.msg).includes('consumer disconnected')),
        [],
      );
    } finally {
      await b.stop();
    }
  } finally {
    d.end(true);
  }
});

/** Dynamic security commands as the administrator; their answers. */
async function dynsec(commands: Record<string, unknown>[]) {
  const c = await mqtt.connectAsync(URL_, { username: 'eps-admin', password: ADMIN_PASSWORD, reconnectPeriod: 0 });
  try {
    await c.subscribeAsync('$CONTROL/dynamic-security/v1/response', { qos: 1 });
    const answer = new Promise<{ responses: { error?: string }[] }>((resolve) => c.once('message', (_t, p) => resolve(JSON.parse(p.toString('utf8')))));
    await c.publishAsync('$CONTROL/dynamic-security/v1', JSON.stringify({ commands }), { qos: 1 });
    return (await answer).responses;
  } finally {
    await c.endAsync(true);
  }
}

test('the broker dropping the consumer: the disconnect is logged with the broker’s reason code and counted, and the consumer comes back', {
  skip,
  timeout: 60_000,
}, async () => {
  await connected(a);
  lines.length = 0;
  // A role given to the consumer's account: Mosquitto drops that account's connections (DISCONNECT 0x98, administrative action).
  const probe = `${ROOT_A}-probe`;
  const answers = await dynsec([
    { command: 'createRole', rolename: probe },
    { command: 'addClientRole', username: `${ROOT_A}-service`, rolename: probe },
  ]);
  assert.deepEqual(
    answers.map((r) => r.error),
    [undefined, undefined],
  );
  await until('the disconnect logged', () => lines.some((l) => String(l.msg).includes('consumer disconnected')));
  const logged = lines.filter((l) => String(l.msg).includes('consumer disconnected'));
  assert.equal(logged.length, 1, JSON.stringify(logged));
  assert.equal(logged[0].level, 40, JSON.stringify(logged[0]));
  assert.equal(logged[0].reason, 'administrative_action');
  assert.equal(logged[0].reasonCode, 0x98);
  assert.equal(logged[0].clientId, CLIENT_A);
  assert.deepEqual(await metrics(a, 'eps_device_mqtt_consumer_disconnects'), { 'eps_device_mqtt_consumer_disconnects{reason="administrative_action"}': 1 });
  // It reconnects and consumes again.
  await connected(a);
  const { d, answered } = await device();
  try {
    await publish(d, 'after');
    await until('the answer after the reconnect', () => answered.has('after'));
    assert.deepEqual(answered.get('after'), [200]);
  } finally {
    d.end(true);
  }
});
