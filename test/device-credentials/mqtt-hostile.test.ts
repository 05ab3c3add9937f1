// Payloads built to hurt the device MQTT consumer (the project rule on input from devices), against
// a real Mosquitto started by ops/mosquitto.sh, with the service's default payload limit: each is
// answered on its results topic with a reason, as HTTP refuses the same body, and another
// organisation's messages on the same consumer connection are taken meanwhile.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
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

const URL_ = `mqtt://127.0.0.1:${PORT}`;
// A root, organisations and a consumer session of this run's own: the broker outlives the store.
const RUN = Date.now().toString(36);
const ROOT = `h${RUN}`;
const HOSTILE = `mqh-${RUN}`;
const OTHER = `mqo-${RUN}`;
// One consumer connection: every message of both organisations comes to it.
const ENV = { MQTT_URL: URL_, MQTT_ADMIN_PASSWORD: ADMIN_PASSWORD, MQTT_TOPIC_ROOT: ROOT, MQTT_CLIENT_ID: `eps-test-hostile-${RUN}` };

let svc: TestService;
let admin: string;
let otherAdmin: string;

before(async () => {
  if (skip) return;
  execFileSync(script, { env: { ...process.env, MQTT_PORT: PORT, MQTT_ADMIN_PASSWORD: ADMIN_PASSWORD }, stdio: 'ignore' });
  svc = await startTestService({ env: ENV });
  await svc.createOrg(HOSTILE);
  await svc.createOrg(OTHER);
  admin = await svc.token({ orgId: HOSTILE, roles: ['ORG_ADMIN'], expiresIn: '3650d' });
  otherAdmin = await svc.token({ orgId: OTHER, roles: ['ORG_ADMIN'], expiresIn: '3650d' });
  await registerBattery(svc, admin, 'h.battery', 'site-h');
  await registerBattery(svc, otherAdmin, 'o.battery', 'site-o');
});
after(async () => {
  if (!skip) await svc.stop();
});

const issue = (token: string, site: string, scopes: string[]) => issueCredential(svc, token, { site_id: site, scopes });
const connect = (c: { id: string; secret: string }) => connectDevice(c);

/** The answers on a results topic by correlation data: `next(key)` waits up to `ms` for that message's answer. */
async function answers(device: MqttClient, topic: string) {
  const got = new Map<string, Record<string, unknown>>();
  const waiters = new Map<string, () => void>();
  device.on('message', (t, payload, packet) => {
    const key = packet.properties?.correlationData?.toString();
    if (t !== topic || key === undefined) return;
    got.set(key, JSON.parse(payload.toString('utf8')) as Record<string, unknown>);
    waiters.get(key)?.();
  });
  await device.subscribeAsync(topic, { qos: 1 });
  return (key: string, ms = 15_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      if (got.has(key)) return resolve(got.get(key)!);
      const timer = setTimeout(() => reject(new Error(`no answer to ${key} on ${topic} within ${ms / 1000} s`)), ms);
      waiters.set(key, () => {
        clearTimeout(timer);
        resolve(got.get(key)!);
      });
    });
}

const tagged = (key: string, qos: 0 | 1) => ({ qos, properties: { correlationData: Buffer.from(key) } });
const ts = (minutesAgo: number) => new Date(svc.clock.now().getTime() - minutesAgo * 60_000).toISOString();

async function heartbeats(token: string, site: string) {
  const res = await svc.request({ method: 'GET', url: `/api/hardware/ems/comms/${site}/status`, headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.statusCode, 200, res.body);
  return (json(res) as { heartbeat_count: number }).heartbeat_count;
}

async function history(token: string, assetId: string) {
  const res = await svc.request({
    method: 'GET',
    url: `/api/telemetry/assets/battery/${assetId}/history?range=hourly&metric=soc`,
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(res.statusCode, 200, res.body);
  return (json(res) as { summary: { count: number; latest: number | null } }).summary;
}

test('a heartbeat nested thousands of levels deep is answered malformed_payload (HTTP refuses it too), and another organisation’s telemetry on the same connection is stored meanwhile', {
  skip,
}, async () => {
  const hostile = await connect(await issue(admin, 'site-h', ['gateway:heartbeat']));
  const other = await connect(await issue(otherAdmin, 'site-o', ['telemetry:write']));
  try {
    const nextHostile = await answers(hostile, `${ROOT}/${HOSTILE}/site-h/results`);
    const nextOther = await answers(other, `${ROOT}/${OTHER}/site-o/results`);
    const before = await heartbeats(admin, 'site-h');
    // 40 KB, well under the default MQTT_MAX_PAYLOAD_BYTES: an unknown member holding 20 000 nested arrays.
    const deep = `{"firmware":"1.0","x":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    // At QoS 0 (mosquitto_pub's default) and at QoS 1.
    await hostile.publishAsync(`${ROOT}/${HOSTILE}/site-h/heartbeat`, deep, tagged('deep-0', 0));
    await hostile.publishAsync(`${ROOT}/${HOSTILE}/site-h/heartbeat`, deep, tagged('deep-1', 1));
    // The other organisation's reading, after them on the same consumer connection: stored and answered.
    await other.publishAsync(`${ROOT}/${OTHER}/site-o/telemetry`, JSON.stringify({ device_id: 'o.battery', ts: ts(1), soc_pct: 61 }), tagged('o-1', 1));
    assert.equal((await nextOther('o-1')).status, 200);
    assert.deepEqual((await history(otherAdmin, 'o.battery')).count, 1);
    for (const key of ['deep-0', 'deep-1']) {
      const a = await nextHostile(key);
      assert.deepEqual([a.status, a.code], [400, 'malformed_payload'], JSON.stringify(a).slice(0, 300));
      assert.match(String(a.message), /nested deeper than 64 levels/);
    }
    assert.equal(await heartbeats(admin, 'site-h'), before, 'nothing recorded');
    // The device's next heartbeat is taken as ever.
    await hostile.publishAsync(`${ROOT}/${HOSTILE}/site-h/heartbeat`, JSON.stringify({ firmware: '1.1' }), tagged('ok', 1));
    assert.equal((await nextHostile('ok')).status, 200);
    assert.equal(await heartbeats(admin, 'site-h'), before + 1);
  } finally {
    hostile.end(true);
    other.end(true);
  }
});

test('a payload that is not UTF-8 is answered malformed_payload, never stored with U+FFFD in its place (as HTTP refuses it)', { skip }, async () => {
  const device = await connect(await issue(otherAdmin, 'site-o', ['telemetry:write']));
  try {
    const next = await answers(device, `${ROOT}/${OTHER}/site-o/results`);
    const before = await history(otherAdmin, 'o.battery');
    // A Latin-1 "é" (0xE9) inside a status: not a UTF-8 sequence.
    const bytes = Buffer.concat([Buffer.from(`{"device_id":"o.battery","ts":"${ts(2)}","soc_pct":62,"status":"charg`), Buffer.from([0xe9]), Buffer.from('"}')]);
    await device.publishAsync(`${ROOT}/${OTHER}/site-o/telemetry`, bytes, tagged('latin1', 1));
    const a = await next('latin1');
    assert.deepEqual([a.status, a.code], [400, 'malformed_payload'], JSON.stringify(a));
    assert.match(String(a.message), /not UTF-8/);
    assert.equal((await history(otherAdmin, 'o.battery')).count, before.count, 'nothing stored');
    // The same reading in UTF-8 is stored.
    await device.publishAsync(
      `${ROOT}/${OTHER}/site-o/telemetry`,
      JSON.stringify({ device_id: 'o.battery', ts: ts(2), soc_pct: 62, status: 'chargé' }),
      tagged('utf8', 1),
    );
    assert.equal((await next('utf8')).status, 200);
    assert.equal((await history(otherAdmin, 'o.battery')).count, before.count + 1);
  } finally {
    device.end(true);
  }
});

test('a reading with a __proto__ key is answered malformed_payload, as HTTP refuses the same body; nothing stored', { skip }, async () => {
  const device = await connect(await issue(otherAdmin, 'site-o', ['telemetry:write']));
  try {
    const next = await answers(device, `${ROOT}/${OTHER}/site-o/results`);
    const before = await history(otherAdmin, 'o.battery');
    const poisoned = `{"device_id":"o.battery","ts":"${ts(3)}","soc_pct":63,"__proto__":{"admin":true}}`;
    // HTTP's answer to the same record.
    const http = await svc.request({
      method: 'POST',
      url: '/api/telemetry/ingest',
      headers: { authorization: `Bearer ${otherAdmin}`, 'content-type': 'application/json' },
      payload: poisoned,
    });
    assert.equal(http.statusCode, 422, http.body);
    assert.equal((json(http) as { detail: { type: string }[] }).detail[0].type, 'json_invalid');
    await device.publishAsync(`${ROOT}/${OTHER}/site-o/telemetry`, poisoned, tagged('proto', 1));
    const a = await next('proto');
    assert.deepEqual([a.status, a.code], [400, 'malformed_payload'], JSON.stringify(a));
    assert.match(String(a.message), /__proto__/);
    const ctor = `{"device_id":"o.battery","ts":"${ts(3)}","soc_pct":63,"constructor":{"prototype":{"admin":true}}}`;
    await device.publishAsync(`${ROOT}/${OTHER}/site-o/telemetry`, ctor, tagged('ctor', 1));
    assert.deepEqual(((x) => [x.status, x.code])(await next('ctor')), [400, 'malformed_payload']);
    assert.equal((await history(otherAdmin, 'o.battery')).count, before.count, 'nothing stored');
  } finally {
    device.end(true);
  }
});

test('QoS 0 messages share the consumer window: one organisation’s message stuck in the store does not hold up another organisation’s next message, and is answered writer_error when the store gives up on it', {
  skip: skip || (!process.env.TEST_DATABASE_URL && 'needs PostgreSQL: a row lock held by another connection (the embedded store has one)'),
}, async () => {
  const hostile = await connect(await issue(admin, 'site-h', ['telemetry:write']));
  const other = await connect(await issue(otherAdmin, 'site-o', ['telemetry:write']));
  try {
    const nextHostile = await answers(hostile, `${ROOT}/${HOSTILE}/site-h/results`);
    const nextOther = await answers(other, `${ROOT}/${OTHER}/site-o/results`);
    // The hostile device's newest reading exists, so its next one updates that row.
    await hostile.publishAsync(
      `${ROOT}/${HOSTILE}/site-h/telemetry`,
      JSON.stringify({ device_id: 'h.battery', ts: ts(10), soc_pct: 40 }),
      tagged('h-first', 1),
    );
    assert.equal((await nextHostile('h-first')).status, 200);
    const hostileBefore = (await history(admin, 'h.battery')).count;
    const otherBefore = (await history(otherAdmin, 'o.battery')).count;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    // Another connection locks that row: the hostile device's next message waits in the store for
    // it until the statement timeout (4.4 s) ends its transaction.
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = svc.deps.db.tx(async (q) => {
      const row = await q.query('select 1 from telemetry_latest where org_id = $1 and asset_id = $2 for update', [HOSTILE, 'h.battery']);
      assert.equal(row.rows.length, 1, 'the row is locked');
      locked();
      await released;
    });
    await isLocked;
    try {
      // Both at QoS 0, the hostile one first on the one consumer connection.
      await hostile.publishAsync(
        `${ROOT}/${HOSTILE}/site-h/telemetry`,
        JSON.stringify({ device_id: 'h.battery', ts: ts(5), soc_pct: 41 }),
        tagged('h-stuck', 0),
      );
      await other.publishAsync(`${ROOT}/${OTHER}/site-o/telemetry`, JSON.stringify({ device_id: 'o.battery', ts: ts(5), soc_pct: 64 }), tagged('o-next', 0));
      // The other organisation's message is stored and answered while the hostile one still waits
      // (before, it waited behind it until the timeout).
      assert.equal((await nextOther('o-next', 3_000)).status, 200);
      assert.equal((await history(otherAdmin, 'o.battery')).count, otherBefore + 1);
      // The store gives up on the hostile one: the broker will not send a QoS 0 message again, so
      // the device is told to (before, it was dropped without a word).
      const stuck = await nextHostile('h-stuck');
      assert.deepEqual([stuck.status, stuck.code], [503, 'writer_error'], JSON.stringify(stuck));
    } finally {
      release();
      await holder;
    }
    assert.equal((await history(admin, 'h.battery')).count, hostileBefore, 'not stored');
    // Sent again, it is stored.
    await hostile.publishAsync(`${ROOT}/${HOSTILE}/site-h/telemetry`, JSON.stringify({ device_id: 'h.battery', ts: ts(5), soc_pct: 41 }), tagged('h-again', 0));
    assert.equal((await nextHostile('h-again')).status, 200);
    assert.equal((await history(admin, 'h.battery')).count, hostileBefore + 1);
  } finally {
    hostile.end(true);
    other.end(true);
  }
});
