// Two deployments on one broker (decision 0442): each with its own MQTT_TOPIC_ROOT, the same
// organisation and site ids in both, against a real Mosquitto started by ops/mosquitto.sh. Each
// service takes only its own root's messages (its shared group is named after its root), its
// devices may publish and subscribe only under their root, and one's start leaves the other's
// broker clients alone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import mqtt from 'mqtt';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ADMIN_PASSWORD, MOSQUITTO_SCRIPT as script, noBroker as skip, registerBattery, SHARED_PORT as PORT } from './broker.ts';

const URL_ = `mqtt://127.0.0.1:${PORT}`;
// Roots unique per run: the broker outlives the stores, and other runs may share it.
const RUN = Date.now().toString(36);
const ROOT_A = `ra${RUN}`;
const ROOT_B = `rb${RUN}`;
// The same organisation and site in both deployments: only the root tells their topics apart.
const ORG = `shared-${RUN}`;
const notAuthorised = /not authori[sz]ed|135|0x87/i;

interface Deployment {
  svc: TestService;
  admin: string;
  cred: { id: string; secret: string };
}
let a: Deployment;
let b: Deployment;

async function deployment(root: string): Promise<Deployment> {
  const svc = await startTestService({
    env: { MQTT_URL: URL_, MQTT_ADMIN_PASSWORD: ADMIN_PASSWORD, MQTT_CLIENT_ID: `eps-test-${root}`, MQTT_TOPIC_ROOT: root },
  });
  await svc.createOrg(ORG);
  const admin = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: '3650d' });
  await registerBattery(svc, admin, 's1.battery', 'site-1');
  const issued = await svc.request({
    method: 'POST',
    url: '/api/hardware/device-credentials',
    headers: { authorization: `Bearer ${admin}` },
    payload: { name: 'gw', site_id: 'site-1', scopes: ['telemetry:write', 'gateway:heartbeat'] },
  });
  assert.equal(issued.statusCode, 201, issued.body);
  return { svc, admin, cred: json(issued) as { id: string; secret: string } };
}

before(async () => {
  if (skip) return;
  execFileSync(script, { env: { ...process.env, MQTT_PORT: PORT, MQTT_ADMIN_PASSWORD: ADMIN_PASSWORD }, stdio: 'ignore' });
  a = await deployment(ROOT_A);
  // B starts (and brings the broker in step with its own table) after A issued its credential.
  b = await deployment(ROOT_B);
});
after(async () => {
  if (skip) return;
  await a?.svc.stop();
  await b?.svc.stop();
});

async function count(d: Deployment) {
  const res = await d.svc.request({
    method: 'GET',
    url: '/api/telemetry/assets/battery/s1.battery/history?range=hourly&metric=soc',
    headers: { authorization: `Bearer ${d.admin}` },
  });
  assert.equal(res.statusCode, 200, res.body);
  return (json(res) as { summary: { count: number } }).summary.count;
}

const ts = (d: Deployment, minutesAgo: number) => new Date(d.svc.clock.now().getTime() - minutesAgo * 60_000).toISOString();

test('two deployments with different topic roots on one broker: each stores only its own devices’ readings and answers only them', { skip }, async () => {
  const da = await mqtt.connectAsync(URL_, { username: a.cred.id, password: a.cred.secret, protocolVersion: 5, reconnectPeriod: 0 });
  const db = await mqtt.connectAsync(URL_, { username: b.cred.id, password: b.cred.secret, protocolVersion: 5, reconnectPeriod: 0 });
  try {
    const got: Record<string, string[]> = { a: [], b: [] };
    da.on('message', (t) => got.a.push(t));
    db.on('message', (t) => got.b.push(t));
    await da.subscribeAsync(`${ROOT_A}/${ORG}/site-1/results`, { qos: 1 });
    await db.subscribeAsync(`${ROOT_B}/${ORG}/site-1/results`, { qos: 1 });
    for (let i = 0; i < 5; i++) {
      await da.publishAsync(`${ROOT_A}/${ORG}/site-1/telemetry`, JSON.stringify({ device_id: 's1.battery', ts: ts(a, 10 + i), soc_pct: 40 + i }), { qos: 1 });
    }
    await db.publishAsync(`${ROOT_B}/${ORG}/site-1/telemetry`, JSON.stringify({ device_id: 's1.battery', ts: ts(b, 30), soc_pct: 90 }), { qos: 1 });
    for (let i = 0; i < 100 && (got.a.length < 5 || got.b.length < 1); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(got.a.length, 5, 'A answered its five messages');
    assert.equal(got.b.length, 1, 'B answered its one');
    assert.equal(await count(a), 5);
    assert.equal(await count(b), 1);
    // Each device is confined to its deployment's root: the other root's topics and answers are refused.
    await assert.rejects(da.publishAsync(`${ROOT_B}/${ORG}/site-1/telemetry`, '[]', { qos: 1 }), notAuthorised);
    await assert.rejects(db.publishAsync(`eps/${ORG}/site-1/telemetry`, '[]', { qos: 1 }), notAuthorised);
    await assert.rejects(da.subscribeAsync(`${ROOT_B}/${ORG}/site-1/results`, { qos: 1 }), /Not authorized/);
    // Readiness of each: configured and connected.
    for (const d of [a, b])
      assert.deepEqual(json(await d.svc.request({ method: 'GET', url: '/api/telemetry/readyz' })).mqtt, { configured: true, connected: true });
  } finally {
    await da.endAsync();
    await db.endAsync();
  }
});

test('a heartbeat under one root is recorded by that deployment only', { skip }, async () => {
  const status = async (d: Deployment) =>
    (
      json(await d.svc.request({ method: 'GET', url: '/api/hardware/ems/comms/site-1/status', headers: { authorization: `Bearer ${d.admin}` } })) as {
        heartbeat_count: number;
      }
    ).heartbeat_count;
  const [beforeA, beforeB] = [await status(a), await status(b)];
  const pub = spawnSync(
    'mosquitto_pub',
    ['-p', PORT, '-V', 'mqttv5', '-q', '1', '-u', b.cred.id, '-P', b.cred.secret, '-t', `${ROOT_B}/${ORG}/site-1/heartbeat`, '-n'],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(pub.status, 0, pub.stderr);
  for (let i = 0; i < 100 && (await status(b)) === beforeB; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(await status(b), beforeB + 1);
  assert.equal(await status(a), beforeA);
});
