// The Mosquitto the MQTT tests share: the script that starts it (ops/mosquitto.sh, from Debian's
// packages), its port, the dynamic security administrator's password, the reason the tests skip
// when no broker can be run here, and the asset a credential's site needs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestService } from '../helpers/service.ts';

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
