// The Mosquitto the MQTT tests share: the script that starts it (ops/mosquitto.sh, from Debian's
// packages), its port, the dynamic security administrator's password, the reason the tests skip
// when no broker can be run here, and the asset a credential's site needs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import mqtt from 'mqtt';
import { json, type TestService } from '../helpers/service.ts';

export const MOSQUITTO_SCRIPT = fileURLToPath(new URL('../../ops/mosquitto.sh', import.meta.url));
/** TEST_MQTT_PORT: a broker of one's own (a run by hand beside CI's or another's); else one per suite (embedded, real servers). */
export const SHARED_PORT = process.env.TEST_MQTT_PORT ?? (process.env.TEST_DATABASE_URL ? '1886' : '1884');
export const ADMIN_PASSWORD = 'eps-dev-admin-password';
export const haveMosquitto = spawnSync('sh', ['-c', 'command -v mosquitto && command -v mosquitto_pub'], { encoding: 'utf8' }).status === 0;
/** The skip reason when Mosquitto is absent, false otherwise. */
export const noBroker: string | false = haveMosquitto
  ? false
  : 'mosquitto is not installed (apt-get install mosquitto mosquitto-clients): the MQTT tests need a real broker';

/** Registers a battery asset on a site of the token's organisation (the site a credential is then issued for). */
export async function registerBattery(svc: TestService, token: string, asset_id: string, site_id: string): Promise<void> {
  const res = await svc.request({
    method: 'POST',
    url: '/api/twin/registry/assets',
    headers: { authorization: `Bearer ${token}` },
    payload: { asset_id, site_id, asset_class: 'battery', name: asset_id },
  });
  assert.equal(res.statusCode, 201, res.body);
}

/** A device credential issued through HTTP (201 asserted): its id and the secret shown once. */
export async function issueCredential(
  svc: TestService,
  token: string,
  c: { site_id: string; scopes: string[]; device_ids?: string[] },
): Promise<{ id: string; secret: string }> {
  const res = await svc.request({
    method: 'POST',
    url: '/api/hardware/device-credentials',
    headers: { authorization: `Bearer ${token}` },
    payload: { name: 'gw', site_id: c.site_id, scopes: c.scopes, ...(c.device_ids && { device_ids: c.device_ids }) },
  });
  assert.equal(res.statusCode, 201, res.body);
  return json(res) as { id: string; secret: string };
}

/** A device connected to the shared broker with its credential (MQTT 5, no reconnect). */
export const connectDevice = (c: { id: string; secret: string }, opts: { clientId?: string } = {}) =>
  mqtt.connectAsync(`mqtt://127.0.0.1:${SHARED_PORT}`, {
    username: c.id,
    password: c.secret,
    protocolVersion: 5,
    reconnectPeriod: 0,
    connectTimeout: 3000,
    ...opts,
  });
