// The device MQTT consumer (issue 40, item 2; decision 0377) against a real Mosquitto started by
// ops/mosquitto.sh: a device publishes with the mqtt client (and mosquitto_pub), the service
// ingests through HTTP ingestion's path, the rows are read back through the HTTP history API, and
// each message's outcome arrives on the results topic. Refusals by the broker (another site, an
// unlisted device) and by the service (malformed, oversize, too many records, another device in a
// device's topic, a flood); another organisation unaffected. Broker in step at start.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import type { MqttClient } from 'mqtt';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import {
  ADMIN_PASSWORD,
  MOSQUITTO_SCRIPT as script,
  noBroker as skip,
  registerBattery,
  SHARED_PORT as PORT,
  connectDevice,
  issueCredential,
} from './broker.ts';

// The embedded and the real-services suites run side by side in CI: each has its own broker, so
// neither's consumer takes the other's messages or session.

const URL_ = `mqtt://127.0.0.1:${PORT}`;
// Ids unique per run: the broker outlives the test's store.
const RUN = Date.now().toString(36);
const ORG = `mq-${RUN}`;
const OTHER = `mq2-${RUN}`;
// A topic root (and so a shared-subscription group) and consumer sessions of this run's own: the
// other MQTT test files' services on the same broker (the suite runs two files at once) are never
// members of its group, and no session of an earlier run holds messages for it.
const ROOT = `t${RUN}`;
const CLIENT = `eps-test-consumer-${RUN}`;
const ENV = {
  MQTT_URL: URL_,
  MQTT_ADMIN_PASSWORD: ADMIN_PASSWORD,
  MQTT_TOPIC_ROOT: ROOT,
  MQTT_CLIENT_ID: CLIENT,
  MQTT_MAX_PAYLOAD_BYTES: '4096',
  MQTT_MAX_RECORDS: '20',
  MQTT_PUBLISHER_PER_MIN: '8',
};

let svc: TestService;
let admin: string;
let otherAdmin: string;

before(async () => {
  if (skip) return;
  execFileSync(script, { env: { ...process.env, MQTT_PORT: PORT, MQTT_ADMIN_PASSWORD: ADMIN_PASSWORD }, stdio: 'ignore' });
  svc = await startTestService({ env: ENV });
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  admin = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: '3650d' });
  otherAdmin = await svc.token({ orgId: OTHER, roles: ['ORG_ADMIN'], expiresIn: '3650d' });
  for (const [token, asset_id, site_id] of [
    [admin, 'a.battery', 'site-a'],
    [admin, 'a.meter', 'site-a'],
    [admin, 'b.battery', 'site-b'],
    [otherAdmin, 'x.battery', 'site-x'],
  ]) {
    await register(token, asset_id, site_id);
  }
});
after(async () => {
  if (!skip) await svc.stop();
});

/** Registers a battery asset on a site of the token's organisation. */
const register = (token: string, asset_id: string, site_id: string) => registerBattery(svc, token, asset_id, site_id);

const issue = (token: string, site: string, device_ids?: string[]) => issueCredential(svc, token, { site_id: site, scopes: ['telemetry:write'], device_ids });
const connect = (c: { id: string; secret: string }) => connectDevice(c);

/** Subscribes to a results topic and returns a function that waits for the next answer on it. */
/**
 * The answers on `topic`, in arrival order. `next(key)` waits for the answer to the message
 * published with that correlation data and passes over others: QoS 1 is at least once, so a message
 * the broker delivered again (after a consumer reconnects) may be answered again.
 */
async function answers(device: MqttClient, topic: string) {
  const queue: { m: Record<string, unknown>; key?: string }[] = [];
  const waiters: ((a: { m: Record<string, unknown>; key?: string }) => void)[] = [];
  device.on('message', (t, payload, packet) => {
    if (t !== topic) return;
    const a = { m: JSON.parse(payload.toString('utf8')) as Record<string, unknown>, key: packet.properties?.correlationData?.toString() };
    const w = waiters.shift();
    if (w) w(a);
    else queue.push(a);
  });
  await device.subscribeAsync(topic, { qos: 1 });
  const one = () =>
    queue.length
      ? Promise.resolve(queue.shift()!)
      : new Promise<{ m: Record<string, unknown>; key?: string }>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no answer on ${topic} within 30 s`)), 30_000);
          waiters.push((a) => {
            clearTimeout(timer);
            resolve(a);
          });
        });
  return async (key?: string) => {
    for (;;) {
      const a = await one();
      if (key === undefined || a.key === key) return a.m;
    }
  };
}

async function history(token: string, assetId: string) {
  const res = await svc.request({
    method: 'GET',
    url: `/api/telemetry/assets/battery/${assetId}/history?range=hourly&metric=soc`,
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(res.statusCode, 200, res.body);
  return json(res) as { summary: { count: number; latest: number | null } };
}

const ts = (minutesAgo: number) => new Date(svc.clock.now().getTime() - minutesAgo * 60_000).toISOString();
const notAuthorised = /not authori[sz]ed|135|0x87/i;

/** eps_device_mqtt_message_duration_seconds of one topic kind: messages handled and their seconds in the service. */
async function handledSeconds(kind: string) {
  const res = await svc.request({ method: 'GET', url: '/api/telemetry/metrics' });
  assert.equal(res.statusCode, 200, res.body);
  const value = (suffix: string) => {
    const line = res.body.split('\n').find((l) => l.startsWith(`eps_device_mqtt_message_duration_seconds_${suffix}{kind="${kind}"}`));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  };
  return { count: value('count'), sum: value('sum') };
}

test('a site-wide credential publishes its site telemetry: stored as over HTTP, answered per record on the results topic', { skip }, async () => {
  const cred = await issue(admin, 'site-a');
  const device = await connect(cred);
  try {
    const next = await answers(device, `${ROOT}/${ORG}/site-a/results`);
    const timed = await handledSeconds('telemetry');
    await device.publishAsync(
      `${ROOT}/${ORG}/site-a/telemetry`,
      JSON.stringify([
        { device_id: 'a.battery', ts: ts(3), power_kw: 1.5, soc_pct: 54 },
        { device_id: 'a.battery', ts: ts(2), power_kw: 1.4, soc_pct: 55 },
        { device_id: 'a.battery', ts: ts(2), power_kw: 1.4, soc_pct: 55 },
        { device_id: 'b.battery', ts: ts(2), power_kw: 1, soc_pct: 10 },
        { device_id: 'a.battery', power_kw: 1 },
      ]),
      { qos: 1, properties: { correlationData: Buffer.from('batch-1') } },
    );
    const a = await next();
    assert.equal(a.topic, `${ROOT}/${ORG}/site-a/telemetry`);
    assert.equal(a.status, 207);
    assert.equal(a.count, 5);
    assert.equal(a.stored, 2);
    assert.equal(a.duplicates, 1);
    assert.equal(a.rejected, 2);
    const results = a.results as { index: number; status: string; reason?: string }[];
    assert.deepEqual(
      results.map((r) => [r.index, r.status, r.reason]),
      [
        [0, 'stored', undefined],
        [1, 'stored', undefined],
        [2, 'duplicate', undefined],
        [3, 'rejected', 'device_on_another_site'],
        [4, 'rejected', 'missing_ts'],
      ],
    );
    // The service's part of the wait is measured (decision 0498): one more telemetry message, some time taken.
    const timedAfter = await handledSeconds('telemetry');
    assert.equal(timedAfter.count, timed.count + 1);
    assert.ok(timedAfter.sum > timed.sum, 'the message took some time in the service');
    const h = await history(admin, 'a.battery');
    assert.equal(h.summary.count, 2);
    assert.equal(h.summary.latest, 55);
    // The broker refuses another site's topic and the site's device topics.
    await assert.rejects(device.publishAsync(`${ROOT}/${ORG}/site-b/telemetry`, '[]', { qos: 1 }), notAuthorised);
    await assert.rejects(device.publishAsync(`${ROOT}/${ORG}/site-a/devices/a.battery/telemetry`, '[]', { qos: 1 }), notAuthorised);
    await assert.rejects(device.subscribeAsync(`${ROOT}/${ORG}/site-b/results/#`, { qos: 1 }), /Not authorized/);
  } finally {
    await device.endAsync();
  }
});

test('a credential listing devices publishes on each device topic: the topic names the device; another device in the records is rejected', {
  skip,
}, async () => {
  const cred = await issue(admin, 'site-a', ['a.meter']);
  const device = await connect(cred);
  try {
    const next = await answers(device, `${ROOT}/${ORG}/site-a/results/a.meter`);
    await device.publishAsync(
      `${ROOT}/${ORG}/site-a/devices/a.meter/telemetry`,
      JSON.stringify([
        { ts: ts(4), soc_pct: 70 },
        { device_id: 'a.battery', ts: ts(4), soc_pct: 99 },
      ]),
      { qos: 1 },
    );
    const a = await next();
    assert.equal(a.status, 207);
    assert.equal(a.stored, 1);
    const results = a.results as { status: string; reason?: string }[];
    assert.equal(results[1].reason, 'device_not_in_topic');
    assert.equal((await history(admin, 'a.meter')).summary.count, 1);
    // Not its site's topic, nor an unlisted device's, nor another device's answers.
    await assert.rejects(device.publishAsync(`${ROOT}/${ORG}/site-a/telemetry`, '[]', { qos: 1 }), notAuthorised);
    await assert.rejects(device.publishAsync(`${ROOT}/${ORG}/site-a/devices/a.battery/telemetry`, '[]', { qos: 1 }), notAuthorised);
    await assert.rejects(device.subscribeAsync(`${ROOT}/${ORG}/site-a/results/a.battery`, { qos: 1 }), /Not authorized/);
    await assert.rejects(device.subscribeAsync(`${ROOT}/${ORG}/site-a/results`, { qos: 1 }), /Not authorized/);
  } finally {
    await device.endAsync();
  }
});

test('messages that arrive together are each answered as its own HTTP request: records, duplicates within a message, refusals, 403 and 422', {
  skip,
}, async () => {
  for (const asset_id of ['c.battery', 'c.meter']) {
    await register(admin, asset_id, 'site-c');
  }
  const cred = await issue(admin, 'site-c');
  const device = await connect(cred);
  try {
    const got = new Map<string, Record<string, unknown>>();
    device.on('message', (_t, payload, packet) => {
      const key = packet.properties?.correlationData?.toString();
      if (key) got.set(key, JSON.parse(payload.toString('utf8')) as Record<string, unknown>);
    });
    await device.subscribeAsync(`${ROOT}/${ORG}/site-c/results`, { qos: 1 });
    const r = (device_id: string, minutesAgo: number, soc_pct: number) => ({ device_id, ts: ts(minutesAgo), soc_pct });
    const bodies: unknown[] = [
      // An exact copy within a message is a duplicate of its first.
      [r('c.battery', 10, 1), r('c.battery', 10, 1), r('c.battery', 9, 2)],
      // The same record in another message is not (as in another HTTP request).
      [r('c.battery', 10, 1)],
      // Another site's device is refused, this site's stored.
      [r('a.battery', 8, 3), r('c.meter', 8, 3)],
      // Every record rejected: 422, nothing stored.
      [{ device_id: 'c.meter', ts: 'yesterday', soc_pct: 1 }],
      // Another organisation's record: 403, nothing stored.
      [{ ...r('c.meter', 7, 4), tenant_id: OTHER }],
      r('c.meter', 6, 5),
    ];
    // Published back to back without waiting: the consumer takes them together.
    await Promise.all(
      bodies.map((b, i) =>
        device.publishAsync(`${ROOT}/${ORG}/site-c/telemetry`, JSON.stringify(b), { qos: 1, properties: { correlationData: Buffer.from(`m${i}`) } }),
      ),
    );
    for (let i = 0; i < 200 && got.size < bodies.length; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    assert.equal(got.size, bodies.length, `every message answered (${got.size} of ${bodies.length})`);
    const mqttStored = (await history(admin, 'c.battery')).summary.count + (await history(admin, 'c.meter')).summary.count;
    assert.equal(mqttStored, 5);
    // The same bodies over HTTP, one request each, with the same credential.
    for (const [i, b] of bodies.entries()) {
      const res = await svc.request({
        method: 'POST',
        url: '/api/telemetry/ingest',
        headers: { authorization: `Bearer ${cred.secret}` },
        payload: b as object,
      });
      const { topic, status, ...answer } = got.get(`m${i}`)!;
      assert.equal(topic, `${ROOT}/${ORG}/site-c/telemetry`);
      assert.equal(status, res.statusCode, `message ${i}: ${JSON.stringify(answer)} against ${res.body}`);
      const http = json(res) as Record<string, unknown>;
      if (res.statusCode < 300) assert.deepEqual(answer, http, `message ${i}`);
      else {
        assert.equal(answer.code, http.code ?? http.detail, `message ${i}`);
        for (const k of ['count', 'accepted', 'rejected', 'duplicates', 'stored', 'results', 'index', 'field'])
          assert.deepEqual(answer[k], http[k], `message ${i}: ${k}`);
      }
    }
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((i) => got.get(`m${i}`)!.status),
      [207, 200, 207, 422, 403, 200],
    );
    // HTTP stored the same five again: the bodies' own records, neither lost nor merged.
    assert.equal((await history(admin, 'c.battery')).summary.count + (await history(admin, 'c.meter')).summary.count, 10);
  } finally {
    await device.endAsync();
  }
});

test('two sites publishing together: each message is judged by its own site (another site’s device refused, its own stored), though their registry questions go as one', {
  skip,
}, async () => {
  for (const [asset_id, site_id] of [
    ['d.battery', 'site-d'],
    ['e.battery', 'site-e'],
  ]) {
    await register(admin, asset_id, site_id);
  }
  const credA = await issue(admin, 'site-d');
  const credB = await issue(admin, 'site-e');
  const [devA, devB] = [await connect(credA), await connect(credB)];
  try {
    const got = new Map<string, Record<string, unknown>>();
    for (const [dev, site] of [
      [devA, 'site-d'],
      [devB, 'site-e'],
    ] as const) {
      dev.on('message', (_t, payload, packet) => {
        const key = packet.properties?.correlationData?.toString();
        if (key) got.set(key, JSON.parse(payload.toString('utf8')) as Record<string, unknown>);
      });
      await dev.subscribeAsync(`${ROOT}/${ORG}/${site}/results`, { qos: 1 });
    }
    // Each message names both sites' batteries: this site's is stored, the other's refused. Four
    // rounds back to back from both connections (within the publishers' rate of 8 a minute), so
    // messages of both sites share transactions.
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < 4; i++) {
      const at = ts(200 + i);
      sends.push(
        devA.publishAsync(
          `${ROOT}/${ORG}/site-d/telemetry`,
          JSON.stringify([
            { device_id: 'e.battery', ts: at, soc_pct: i },
            { device_id: 'd.battery', ts: at, soc_pct: i },
          ]),
          { qos: 1, properties: { correlationData: Buffer.from(`a${i}`) } },
        ),
        devB.publishAsync(
          `${ROOT}/${ORG}/site-e/telemetry`,
          JSON.stringify([
            { device_id: 'd.battery', ts: at, soc_pct: i },
            { device_id: 'e.battery', ts: at, soc_pct: i },
          ]),
          { qos: 1, properties: { correlationData: Buffer.from(`b${i}`) } },
        ),
      );
    }
    await Promise.all(sends);
    for (let i = 0; i < 200 && got.size < 8; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    assert.equal(got.size, 8, `every message answered (${got.size} of 8)`);
    for (const [key, site, other] of [
      ['a', 'site-d', 'e.battery'],
      ['b', 'site-e', 'd.battery'],
    ]) {
      for (let i = 0; i < 4; i++) {
        const a = got.get(`${key}${i}`)!;
        assert.equal(a.status, 207, `${key}${i}: ${JSON.stringify(a)}`);
        assert.equal(a.stored, 1);
        const results = a.results as { index: number; status: string; reason?: string; message?: string }[];
        assert.deepEqual(
          results.map((r) => [r.index, r.status, r.reason]),
          [
            [0, 'rejected', 'device_on_another_site'],
            [1, 'stored', undefined],
          ],
          `${key}${i}`,
        );
        assert.equal(results[0].message, `${other} is registered to another site, not ${site}`);
      }
    }
  } finally {
    await devA.endAsync();
    await devB.endAsync();
  }
});

test('malformed, oversize and too many records are answered with a reason; the service carries on', { skip }, async () => {
  const cred = await issue(admin, 'site-b');
  const device = await connect(cred);
  try {
    const next = await answers(device, `${ROOT}/${ORG}/site-b/results`);
    const topic = `${ROOT}/${ORG}/site-b/telemetry`;
    const cases: [string, number, string][] = [
      ['not json {', 400, 'malformed_payload'],
      ['"a string"', 400, 'malformed_payload'],
      ['[]', 422, 'validation_error'],
      [JSON.stringify([{ device_id: 'b.battery', ts: ts(1), soc_pct: 1, pad: 'x'.repeat(5000) }]), 413, 'payload_too_large'],
      [JSON.stringify(Array.from({ length: 21 }, (_, i) => ({ device_id: 'b.battery', ts: ts(30 - i), soc_pct: i }))), 413, 'too_many_records'],
      [JSON.stringify([{ device_id: 'b.battery', ts: 'yesterday', soc_pct: 1 }]), 422, 'all_records_rejected'],
    ];
    for (const [payload, status, code] of cases) {
      await device.publishAsync(topic, payload, { qos: 1 });
      const a = await next();
      assert.equal(a.status, status, JSON.stringify(a));
      assert.equal(a.code, code, JSON.stringify(a));
      assert.equal(typeof a.message, 'string');
    }
    await device.publishAsync(topic, JSON.stringify({ device_id: 'b.battery', ts: ts(1), soc_pct: 42 }), { qos: 1 });
    assert.equal((await next()).status, 200);
    assert.equal((await history(admin, 'b.battery')).summary.count, 1);
  } finally {
    await device.endAsync();
  }
});

test('a publisher past its rate is dropped and answered; another organisation and other publishers are unaffected', { skip }, async () => {
  const flood = await issue(admin, 'site-b', ['b.battery']);
  const other = await issue(otherAdmin, 'site-x');
  const d1 = await connect(flood);
  const d2 = await connect(other);
  try {
    const next1 = await answers(d1, `${ROOT}/${ORG}/site-b/results/b.battery`);
    const next2 = await answers(d2, `${ROOT}/${OTHER}/site-x/results`);
    const statuses: unknown[] = [];
    for (let i = 0; i < 9; i++) {
      // The first three too large: a message the consumer refuses counts against the rate too.
      const pad = i < 3 ? { pad: 'x'.repeat(5000) } : {};
      await d1.publishAsync(`${ROOT}/${ORG}/site-b/devices/b.battery/telemetry`, JSON.stringify({ ts: ts(50 - i), soc_pct: i, ...pad }), { qos: 1 });
      statuses.push((await next1()).status);
    }
    // MQTT_PUBLISHER_PER_MIN is 8.
    assert.deepEqual(statuses, [413, 413, 413, 200, 200, 200, 200, 200, 429]);
    await d2.publishAsync(`${ROOT}/${OTHER}/site-x/telemetry`, JSON.stringify([{ device_id: 'x.battery', ts: ts(1), soc_pct: 77 }]), { qos: 1 });
    assert.equal((await next2()).status, 200);
    assert.equal((await history(otherAdmin, 'x.battery')).summary.count, 1);
    // Neither organisation sees the other's readings, and the other organisation's topics are refused.
    assert.equal((await history(otherAdmin, 'b.battery')).summary.count, 0);
    await assert.rejects(d2.publishAsync(`${ROOT}/${ORG}/site-b/telemetry`, '[]', { qos: 1 }), notAuthorised);
  } finally {
    await d1.endAsync();
    await d2.endAsync();
  }
});

test('a device built by someone else: mosquitto_pub publishes a reading that is stored', { skip }, async () => {
  const cred = await issue(otherAdmin, 'site-x');
  const before = (await history(otherAdmin, 'x.battery')).summary.count;
  const pub = spawnSync(
    'mosquitto_pub',
    [
      '-p',
      PORT,
      '-V',
      'mqttv5',
      '-q',
      '1',
      '-u',
      cred.id,
      '-P',
      cred.secret,
      '-t',
      `${ROOT}/${OTHER}/site-x/telemetry`,
      '-m',
      JSON.stringify({ device_id: 'x.battery', ts: ts(7), soc_pct: 12 }),
    ],
    { encoding: 'utf8' },
  );
  assert.equal(pub.status, 0, pub.stderr);
  // Acknowledged by the broker; stored once the consumer's turn comes.
  for (let i = 0; i < 50 && (await history(otherAdmin, 'x.battery')).summary.count === before; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal((await history(otherAdmin, 'x.battery')).summary.count, before + 1);
});

test('a rotation overlap that ends by time: the periodic job removes the old client; a second instance starts in step and both consume', { skip }, async () => {
  const cred = await issue(admin, 'site-a');
  const res = await svc.request({
    method: 'POST',
    url: `/api/hardware/device-credentials/${cred.id}/rotate`,
    headers: { authorization: `Bearer ${admin}` },
    payload: { overlap_seconds: 120 },
  });
  assert.equal(res.statusCode, 200, res.body);
  const next = json(res) as { id: string; secret: string };
  // Inside the overlap both connect.
  await (await connect(cred)).endAsync();
  await (await connect(next)).endAsync();
  (svc.clock as import('../../src/platform/clock.ts').ManualClock).advance(121_000);
  await svc.runDue();
  await assert.rejects(connect(cred), /Not authorized|Bad user name or password|135|134/i);
  await (await connect(next)).endAsync();
  // A second instance on the same store (its own consumer session) starts with the broker in step and takes a share.
  const second = await startTestService({ shareWith: svc, env: { ...ENV, MQTT_CLIENT_ID: `${CLIENT}-2` } });
  let device: MqttClient | undefined;
  try {
    device = await connect(next);
    const answer = await answers(device, `${ROOT}/${ORG}/site-a/results`);
    const before = (await history(admin, 'a.battery')).summary.count;
    for (let i = 0; i < 4; i++) {
      await device.publishAsync(`${ROOT}/${ORG}/site-a/telemetry`, JSON.stringify({ device_id: 'a.battery', ts: ts(100 + i), soc_pct: 30 + i }), { qos: 1 });
      assert.equal((await answer()).status, 200);
    }
    assert.equal((await history(admin, 'a.battery')).summary.count, before + 4);
  } finally {
    // Closed whatever happened above: an open client keeps the test process alive (CI hung on it).
    device?.end(true);
    await second.stop();
  }
});

// ---- Heartbeat and replay over MQTT (decision 0440): the gateway operations' path and scopes ----

const issueScoped = (token: string, site: string, scopes: string[], device_ids?: string[]) =>
  issueCredential(svc, token, { site_id: site, scopes, device_ids });

/** A new minute on the service clock: each publisher's count (MQTT_PUBLISHER_PER_MIN, 8 here) starts again. */
const nextMinute = () => (svc.clock as import('../../src/platform/clock.ts').ManualClock).advance(61_000);

async function gatewayStatus(token: string, site: string) {
  const res = await svc.request({ method: 'GET', url: `/api/hardware/ems/comms/${site}/status`, headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.statusCode, 200, res.body);
  return json(res) as { heartbeat_count: number; firmware: string | null; buffer_depth: number | null; state: string };
}

test('a heartbeat on the heartbeat topic is recorded as the HTTP heartbeat records it and answered with the gateway status; bad bodies get the same 422', {
  skip,
}, async () => {
  nextMinute();
  const cred = await issueScoped(admin, 'site-a', ['gateway:heartbeat']);
  const device = await connect(cred);
  try {
    const next = await answers(device, `${ROOT}/${ORG}/site-a/results`);
    const before = (await gatewayStatus(admin, 'site-a')).heartbeat_count;
    await device.publishAsync(`${ROOT}/${ORG}/site-a/heartbeat`, JSON.stringify({ gateway_id: 'gw-7', firmware: '4.2.0', buffer_depth: 12 }), {
      qos: 1,
      properties: { correlationData: Buffer.from('hb-1') },
    });
    const a = await next();
    assert.equal(a.topic, `${ROOT}/${ORG}/site-a/heartbeat`);
    assert.equal(a.status, 200);
    assert.equal(a.site_id, 'site-a');
    assert.equal(a.state, 'online');
    assert.equal(a.firmware, '4.2.0');
    assert.equal(a.gateway_id, 'gw-7');
    assert.equal(a.buffer_depth, 12);
    assert.equal(a.heartbeat_count, before + 1);
    // Read back through HTTP: the same record the HTTP heartbeat makes.
    const s = await gatewayStatus(admin, 'site-a');
    assert.equal(s.heartbeat_count, before + 1);
    assert.equal(s.firmware, '4.2.0');
    // The body rules are the route's: a field error list, as HTTP's 422.
    await device.publishAsync(`${ROOT}/${ORG}/site-a/heartbeat`, JSON.stringify({ buffer_depth: -1, colour: 'red' }), { qos: 1 });
    const bad = await next();
    assert.equal(bad.status, 422);
    assert.equal(bad.code, 'validation_error');
    const fields = (bad.detail as { type: string; loc: unknown[] }[]).map((f) => [f.type, f.loc.join('.')]).sort();
    assert.deepEqual(fields, [
      ['extra_forbidden', 'body.colour'],
      ['greater_than_equal', 'body.buffer_depth'],
    ]);
    // The service's own rule (silent after late) as over HTTP.
    const tagged = (key: string) => ({ qos: 1 as const, properties: { correlationData: Buffer.from(key) } });
    await device.publishAsync(`${ROOT}/${ORG}/site-a/heartbeat`, JSON.stringify({ thresholds: { late_after_s: 300, silent_after_s: 200 } }), tagged('rule'));
    const rule = await next('rule');
    assert.equal(rule.status, 422, JSON.stringify(rule));
    await device.publishAsync(`${ROOT}/${ORG}/site-a/heartbeat`, '[1]', tagged('malformed'));
    assert.equal((await next('malformed')).code, 'malformed_payload');
    // Text no store can hold: HTTP's 422, acknowledged (it was a store error the broker sent again
    // and again, holding up the consumer connection's other messages).
    await device.publishAsync(`${ROOT}/${ORG}/site-a/heartbeat`, JSON.stringify({ firmware: '4.2\u0000' }), tagged('nul'));
    const nul = await next('nul');
    assert.equal(nul.status, 422, JSON.stringify(nul));
    assert.deepEqual(
      (nul.detail as { type: string; loc: unknown[] }[]).map((f) => [f.type, f.loc.join('.')]),
      [['string_pattern_mismatch', 'body.firmware']],
    );
    assert.equal((await gatewayStatus(admin, 'site-a')).heartbeat_count, before + 1, 'refused heartbeats record nothing');
    // Scopes: this credential may not write telemetry nor replay; the broker refuses.
    await assert.rejects(device.publishAsync(`${ROOT}/${ORG}/site-a/telemetry`, '[]', { qos: 1 }), notAuthorised);
    await assert.rejects(device.publishAsync(`${ROOT}/${ORG}/site-a/replay`, '{}', { qos: 1 }), notAuthorised);
    await assert.rejects(device.publishAsync(`${ROOT}/${ORG}/site-b/heartbeat`, '{}', { qos: 1 }), notAuthorised);
  } finally {
    await device.endAsync();
  }
});

test('a telemetry-only credential may not heartbeat nor replay over MQTT (its scopes); a device-listed one may heartbeat but never replay', {
  skip,
}, async () => {
  nextMinute();
  const tOnly = await issueScoped(admin, 'site-b', ['telemetry:write']);
  const listed = await issueScoped(admin, 'site-b', ['telemetry:write', 'gateway:heartbeat', 'buffer:replay'], ['b.battery']);
  const d1 = await connect(tOnly);
  const d2 = await connect(listed);
  try {
    const before = (await gatewayStatus(admin, 'site-b')).heartbeat_count;
    await assert.rejects(d1.publishAsync(`${ROOT}/${ORG}/site-b/heartbeat`, '{}', { qos: 1 }), notAuthorised);
    await assert.rejects(d1.publishAsync(`${ROOT}/${ORG}/site-b/replay`, '{}', { qos: 1 }), notAuthorised);
    await assert.rejects(d2.publishAsync(`${ROOT}/${ORG}/site-b/replay`, '{}', { qos: 1 }), notAuthorised);
    await d2.publishAsync(`${ROOT}/${ORG}/site-b/heartbeat`, '', { qos: 1 });
    for (let i = 0; i < 50 && (await gatewayStatus(admin, 'site-b')).heartbeat_count === before; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal((await gatewayStatus(admin, 'site-b')).heartbeat_count, before + 1);
  } finally {
    await d1.endAsync();
    await d2.endAsync();
  }
});

test('a buffer replay on the replay topic: stored once per (device, sequence) as over HTTP, retried as duplicates, another site’s device refused per record', {
  skip,
}, async () => {
  nextMinute();
  const cred = await issueScoped(admin, 'site-a', ['buffer:replay']);
  const device = await connect(cred);
  try {
    const next = await answers(device, `${ROOT}/${ORG}/site-a/results`);
    const body = {
      replay_id: `r-${RUN}`,
      remaining: 40,
      records: [
        { device_id: 'a.battery', sequence: 1, ts: ts(300), soc_pct: 20 },
        { device_id: 'a.battery', sequence: 2, ts: ts(299), soc_pct: 21 },
        { device_id: 'a.battery', sequence: 4, ts: ts(297), soc_pct: 23 },
        { device_id: 'b.battery', sequence: 1, ts: ts(297), soc_pct: 23 },
      ],
    };
    await device.publishAsync(`${ROOT}/${ORG}/site-a/replay`, JSON.stringify(body), { qos: 1 });
    const a = await next();
    assert.equal(a.topic, `${ROOT}/${ORG}/site-a/replay`);
    assert.equal(a.status, 207, JSON.stringify(a));
    assert.equal(a.replay_id, `r-${RUN}`);
    assert.equal(a.stored, 3);
    assert.equal(a.rejected, 1);
    const results = a.results as { status: string; reason?: string }[];
    assert.deepEqual(
      results.map((r) => [r.status, r.reason]),
      [
        ['stored', undefined],
        ['stored', undefined],
        ['stored', undefined],
        ['rejected', 'device_on_another_site'],
      ],
    );
    assert.deepEqual(a.gaps, [{ device_id: 'a.battery', from_sequence: 3, to_sequence: 3, missing: 1 }]);
    // Sent again (a gateway that lost the answer): nothing twice.
    await device.publishAsync(`${ROOT}/${ORG}/site-a/replay`, JSON.stringify(body), { qos: 1 });
    const again = await next();
    assert.equal(again.stored, 0);
    assert.equal(again.duplicates, 3);
    // The HTTP buffer status counts them.
    const st = await svc.request({ method: 'GET', url: '/api/hardware/ems/buffer/site-a/status', headers: { authorization: `Bearer ${admin}` } });
    assert.equal(st.statusCode, 200, st.body);
    assert.equal((json(st) as { stored: number }).stored, 3);
    // Refusals: no records (the route's 422 field list), more than MQTT_MAX_RECORDS, not an object.
    await device.publishAsync(`${ROOT}/${ORG}/site-a/replay`, JSON.stringify({ records: [] }), { qos: 1 });
    const empty = await next();
    assert.equal(empty.status, 422);
    assert.equal(empty.code, 'validation_error');
    assert.deepEqual((empty.detail as { loc: unknown[] }[])[0].loc, ['body', 'records']);
    await device.publishAsync(
      `${ROOT}/${ORG}/site-a/replay`,
      JSON.stringify({ records: Array.from({ length: 21 }, (_, i) => ({ device_id: 'a.battery', sequence: 100 + i, ts: ts(200 - i), soc_pct: 1 })) }),
      { qos: 1 },
    );
    assert.equal((await next()).code, 'too_many_records');
    await device.publishAsync(`${ROOT}/${ORG}/site-a/replay`, '[]', { qos: 1 });
    assert.equal((await next()).code, 'malformed_payload');
  } finally {
    await device.endAsync();
  }
});

test('mosquitto_pub as a gateway: an empty heartbeat and a replay are taken, answered on the results topic', { skip }, async () => {
  nextMinute();
  const cred = await issueScoped(otherAdmin, 'site-x', ['gateway:heartbeat', 'buffer:replay']);
  const watcher = await connect(cred);
  try {
    const next = await answers(watcher, `${ROOT}/${OTHER}/site-x/results`);
    const pub = (topic: string, message: string[]) =>
      spawnSync('mosquitto_pub', ['-p', PORT, '-V', 'mqttv5', '-q', '1', '-u', cred.id, '-P', cred.secret, '-t', topic, ...message], { encoding: 'utf8' });
    const hb = pub(`${ROOT}/${OTHER}/site-x/heartbeat`, ['-n']);
    assert.equal(hb.status, 0, hb.stderr);
    const h = await next();
    assert.equal(h.status, 200);
    assert.equal(h.state, 'online');
    const rp = pub(`${ROOT}/${OTHER}/site-x/replay`, ['-m', JSON.stringify({ records: [{ device_id: 'x.battery', sequence: 1, ts: ts(90), soc_pct: 5 }] })]);
    assert.equal(rp.status, 0, rp.stderr);
    const r = await next();
    assert.equal(r.status, 200, JSON.stringify(r));
    assert.equal(r.stored, 1);
  } finally {
    await watcher.endAsync();
  }
});

test('readiness reports MQTT: configured and connected', { skip }, async () => {
  const res = await svc.request({ method: 'GET', url: '/api/telemetry/readyz' });
  assert.equal(res.statusCode, 200, res.body);
  const body = json(res) as { status: string; checks: Record<string, boolean>; mqtt: unknown };
  assert.equal(body.status, 'ready');
  assert.deepEqual(Object.keys(body.checks).sort(), ['bus', 'cache', 'database']);
  assert.deepEqual(body.mqtt, { configured: true, connected: true });
});

test('a message the store keeps refusing while it stores others is answered not_storable and acknowledged, so it never holds up the connection', {
  skip,
}, async () => {
  // A value no check foresaw that the store refuses: a trigger refusing one reading of b.battery.
  await svc.deps.db.query(`
    create or replace function eps_test_poison() returns trigger language plpgsql as $$
    begin
      if new.asset_id = 'b.battery' and new.soc_pct = 13.13 then raise exception 'a value the store refuses (test)'; end if;
      return new;
    end $$`);
  await svc.deps.db.query('create trigger eps_test_poison before insert on telemetry for each row execute function eps_test_poison()');
  const good = await issue(admin, 'site-a');
  const bad = await issue(admin, 'site-b');
  const a = await connect(good);
  const b = await connect(bad);
  try {
    const nextA = await answers(a, `${ROOT}/${ORG}/site-a/results`);
    const nextB = await answers(b, `${ROOT}/${ORG}/site-b/results`);
    nextMinute();
    await b.publishAsync(`${ROOT}/${ORG}/site-b/telemetry`, JSON.stringify([{ device_id: 'b.battery', ts: ts(1), soc_pct: 13.13 }]), { qos: 1 });
    // The consumer takes it again after each failure; other devices' messages are stored meanwhile.
    let poisoned: Record<string, unknown> | undefined;
    const fromB = nextB().then((m) => {
      poisoned = m;
    });
    let stored = 0;
    for (let i = 0; i < 12 && !poisoned; i++) {
      nextMinute();
      await a.publishAsync(`${ROOT}/${ORG}/site-a/telemetry`, JSON.stringify([{ device_id: 'a.battery', ts: ts(0.5 + i / 100), soc_pct: 60 + i }]), { qos: 1 });
      const ok = await nextA();
      assert.equal(ok.status, 200, JSON.stringify(ok));
      stored++;
    }
    await fromB;
    assert.deepEqual([poisoned?.status, poisoned?.code], [422, 'not_storable'], JSON.stringify(poisoned));
    assert.match(String(poisoned?.detail), /could not store this message in 3 attempts while it stored others/);
    assert.doesNotMatch(JSON.stringify(poisoned), /test\)|exception|trigger/, 'the store error itself is the operator’s, not the device’s');
    assert.ok(stored >= 3, `the other device's messages were stored meanwhile (${stored})`);
  } finally {
    a.end(true);
    b.end(true);
    await svc.deps.db.query('drop trigger eps_test_poison on telemetry');
    await svc.deps.db.query('drop function eps_test_poison()');
  }
});
