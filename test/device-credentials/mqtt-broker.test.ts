// The broker's clients follow the device credentials (issue 40, item 2 in part; decision 0376),
// against a real Mosquitto with the dynamic security plugin started by ops/mosquitto.sh: issued ->
// a client that may publish only under its own site's topics and subscribe only to its own results
// topic; revoked -> removed and its connection dropped within a second; rotated without overlap ->
// the old one removed, the new one connects. A device built by someone else: mosquitto_pub.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { createBrokerSync } from '../../src/modules/device-credentials/broker.ts';
import { credentialStore } from '../../src/modules/device-credentials/store.ts';
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

let svc: TestService;
let admin: string;
const ORG = 'mqtt-org';
const URL_ = `mqtt://127.0.0.1:${PORT}`;

before(async () => {
  if (skip) return;
  execFileSync(script, { env: { ...process.env, MQTT_PORT: PORT, MQTT_ADMIN_PASSWORD: ADMIN_PASSWORD }, stdio: 'ignore' });
  svc = await startTestService({ env: { MQTT_URL: URL_, MQTT_ADMIN_PASSWORD: ADMIN_PASSWORD, MQTT_CLIENT_ID: 'eps-test-broker' } });
  await svc.createOrg(ORG);
  admin = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: '3650d' });
  for (const [asset_id, site_id] of [
    ['s1.battery', 'site-1'],
    ['s2.battery', 'site-2'],
  ]) {
    await registerBattery(svc, admin, asset_id, site_id);
  }
});
after(async () => {
  if (!skip) await svc.stop();
});

const issue = (site: string, scopes = ['telemetry:write', 'gateway:heartbeat']) => issueCredential(svc, admin, { site_id: site, scopes });
const connect = (c: { id: string; secret: string }) => connectDevice(c);

test('issued: the device connects; publishes under its own site, not another; subscribes to its own results only', { skip }, async () => {
  const cred = await issue('site-1');
  const device = await connect(cred);
  try {
    await device.publishAsync(`eps/${ORG}/site-1/telemetry`, JSON.stringify([{ device_id: 's1.battery', ts: new Date().toISOString(), power_kw: 1 }]), {
      qos: 1,
    });
    await assert.rejects(device.publishAsync(`eps/${ORG}/site-2/telemetry`, '[]', { qos: 1 }), /not authori[sz]ed|135|0x87/i);
    // buffer:replay was not granted.
    await assert.rejects(device.publishAsync(`eps/${ORG}/site-1/replay`, '[]', { qos: 1 }), /not authori[sz]ed|135|0x87/i);
    // A site-wide credential reads every answer of its site (decision 0377).
    const own = await device.subscribeAsync(`eps/${ORG}/site-1/results/#`, { qos: 1 });
    assert.ok(own[0].qos <= 1, `own site's results granted (got ${own[0].qos})`);
    // Refused subscriptions answer 0x87 (not authorised), which the client raises.
    await assert.rejects(device.subscribeAsync(`eps/${ORG}/site-2/results/#`, { qos: 1 }), /Not authorized/);
    // The site's device topics are for credentials listing those devices.
    await assert.rejects(device.publishAsync(`eps/${ORG}/site-1/devices/s1.battery/telemetry`, '[]', { qos: 1 }), /not authori[sz]ed|135|0x87/i);
    await assert.rejects(device.subscribeAsync(`eps/${ORG}/#`, { qos: 1 }), /Not authorized/);
  } finally {
    await device.endAsync();
  }
  // A device built by someone else, with Debian's client.
  const pub = spawnSync(
    'mosquitto_pub',
    ['-p', PORT, '-V', 'mqttv5', '-q', '1', '-u', cred.id, '-P', cred.secret, '-t', `eps/${ORG}/site-1/heartbeat`, '-m', '{}'],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(pub.status, 0, pub.stderr);
  const bad = spawnSync('mosquitto_pub', ['-p', PORT, '-u', cred.id, '-P', 'wrong', '-t', `eps/${ORG}/site-1/heartbeat`, '-m', '{}'], { encoding: 'utf8' });
  assert.notEqual(bad.status, 0, 'a wrong password is refused by the broker');
});

test('revoked: the broker has removed the client before the answer, and its connection is dropped', { skip, timeout: 30_000 }, async () => {
  const cred = await issue('site-1');
  const device = await connect(cred);
  const closed = new Promise<void>((resolve) => device.once('close', () => resolve()));
  const res = await svc.request({ method: 'POST', url: `/api/hardware/device-credentials/${cred.id}/revoke`, headers: { authorization: `Bearer ${admin}` } });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(json(res).status, 'revoked');
  // The answer waits for the broker's own confirmation of deleteClient, which disconnects the
  // client as it deletes it; so the close is already on its way (within a second on a quiet box,
  // not asserted as a time: the test's timeout only bounds a hang).
  await closed;
  device.end(true);
  await assert.rejects(connect(cred));
});

test('rotated without overlap: the old client is gone, the successor connects with the new credential', { skip }, async () => {
  const cred = await issue('site-2', ['telemetry:write']);
  const res = await svc.request({
    method: 'POST',
    url: `/api/hardware/device-credentials/${cred.id}/rotate`,
    headers: { authorization: `Bearer ${admin}` },
    payload: {},
  });
  assert.equal(res.statusCode, 200, res.body);
  const next = json(res) as { id: string; secret: string };
  await assert.rejects(connect(cred));
  const device = await connect(next);
  await device.publishAsync(`eps/${ORG}/site-2/telemetry`, '[]', { qos: 1 });
  await device.endAsync();
});

test('a credential issued while the periodic pass runs keeps its broker client: the pass lists the broker before it reads the table', { skip }, async () => {
  // The pass as the service runs it every minute, on this service's deployment (namespace, root).
  const sync = createBrokerSync({
    url: URL_,
    username: 'eps-admin',
    password: ADMIN_PASSWORD,
    namespace: svc.config.namespace,
    root: 'eps',
    log: svc.deps.log,
  });
  let late: { id: string; secret: string } | undefined;
  try {
    const report = await sync.reconcile(
      async () => {
        // The worst case: the table as read before an issue committed, returned after the issue
        // made its broker client (the pass used to read first and list after, and deleted it).
        const read = await credentialStore.validAll(svc.deps.db, svc.clock.now());
        late = await issue('site-2');
        return read;
      },
      { roles: false },
    );
    assert.equal(report.removed, 0);
  } finally {
    await sync.close();
  }
  const device = await connect(late!);
  await device.endAsync();
});

test('a site id shaped like a broker ACL pattern (%c: the client id) stays literal: its credential cannot reach another site by choosing its client id', {
  skip,
}, async () => {
  // Mosquitto's acl_file substitutes %c and %u in `pattern` rules; the dynamic security plugin's
  // rules must not, or a site named %c would let its device name any site of the organisation.
  await registerBattery(svc, admin, 'pc.battery', '%c');
  const cred = await issue('%c');
  const device = await connectDevice(cred, { clientId: 'site-2' });
  try {
    await assert.rejects(device.publishAsync(`eps/${ORG}/site-2/telemetry`, '[]', { qos: 1 }), /not authori[sz]ed|135|0x87/i);
    await assert.rejects(device.subscribeAsync(`eps/${ORG}/site-2/results/#`, { qos: 1 }), /Not authorized/);
    // Its own site's topic, to the letter.
    await device.publishAsync(`eps/${ORG}/%c/heartbeat`, '{}', { qos: 1 });
  } finally {
    await device.endAsync();
  }
});
