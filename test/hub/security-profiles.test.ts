// OCPP security profiles 2 and 3 and password rotation (issue 39 item 3, decisions 0430-0432),
// through HTTP and real OCPP chargers (ocpp-rpc clients over TLS): certificates made on the fly with
// the openssl command (a server certificate for the hub's TLS listener, the organisation's charger
// CA, another CA, charger certificates from each). Profile 2: the right password over TLS accepted,
// a wrong one and the right one over plain ws refused; profile 3: a certificate from the
// organisation's CA naming the charger accepted without a password, one from another CA, one naming
// another charger, an expired one and a password alone refused. The charger CA operations and the
// security profile operation, with their refusals. Password rotation over 1.6 ChangeConfiguration
// and 2.0.1 SetVariables: the old password works until the charger answers Accepted, then only the
// new one; Rejected keeps the old; the new one is shown once and never stored in clear.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ocppRpc from 'ocpp-rpc';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { sectionOf } from '../../src/core/config-section.ts';
import { hubConfig } from '../../src/modules/hub/config.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { eventually } from '../helpers/eventually.ts';
import { auth, charger, listen, type Charger } from './helpers.ts';

const { RPCClient } = ocppRpc;
const H = '/api/csms/api/hub';
const NO_CA = "Security profile 3 needs the organisation's charger CA: upload it first (PUT /charger-ca)";
const ORG = 'hub-security';
const OTHER = 'hub-security-other';
const dir = mkdtempSync(join(tmpdir(), 'hub-tls-'));
const file = (name: string) => join(dir, name);
const pem = (name: string) => readFileSync(file(name), 'utf8');
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });

/** A CA certificate and its key (EC P-256), valid from now for 30 days. */
function makeCa(name: string, cn: string) {
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.pem`,
    '-days',
    '30',
    '-subj',
    `/CN=${cn}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
}

/** A certificate for `cn` issued by the CA `ca` from a CSR, with the given extensions. */
function issue(name: string, ca: string, cn: string, ext: string) {
  openssl(
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    `/CN=${cn}/O=Hub test`,
  );
  writeFileSync(file(`${name}.ext`), ext);
  openssl(
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.pem`,
    '-CAkey',
    `${ca}.key`,
    '-set_serial',
    String(Date.now()),
    '-days',
    '20',
    '-out',
    `${name}.pem`,
    '-extfile',
    `${name}.ext`,
  );
}

const CLIENT_EXT = 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n';
makeCa('server-ca', 'Hub test server CA');
issue('server', 'server-ca', 'localhost', 'basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n');
makeCa('org-ca', 'Hub security org charger CA');
makeCa('other-ca', 'Somebody else CA');
issue('cp3', 'org-ca', 'CP3', CLIENT_EXT);
issue('cp3-other-ca', 'other-ca', 'CP3', CLIENT_EXT);
issue('cp3b', 'org-ca', 'CP3B', CLIENT_EXT);
// The hub's listener: the server certificate with its CA after it (a chain).
writeFileSync(file('server-chain.pem'), pem('server.pem') + pem('server-ca.pem'));

const env = {
  HUB_OCPP_TLS_CERT_FILE: file('server-chain.pem'),
  HUB_OCPP_TLS_KEY_FILE: file('server.key'),
  HUB_OCPP_TLS_PORT: '0',
  // Short, so that the charger that never answers is quick (the CALL's timer is ocpp-rpc's, in real time).
  HUB_COMMAND_TIMEOUT_MS: '1500',
  // Every refusal here is a failed authentication from 127.0.0.1: keep the address unblocked.
  RATE_LIMIT_ANON_PER_MIN: '1000',
};
// The certificates are valid from the moment they were made: the service clock starts there.
const clock = new ManualClock(new Date(Math.floor(Date.now() / 1000) * 1000 + 1000));
let svc: TestService;
let plainBase: string;
let admin: string;
let operator: string;
let viewer: string;
let other: string;
const open: Charger[] = [];
const pw: Record<string, string> = {};
const urls: Record<string, string> = {};
const req = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token: string, payload?: unknown) =>
  svc.request({ method, url, headers: auth(token), ...(payload !== undefined && { payload: payload as object }) });

/** A charger over TLS (the hub's listener; trusting its CA), with a password and/or a client certificate. */
function tlsCharger(o: { id: string; password?: string; cert?: string; protocol?: 'ocpp1.6' | 'ocpp2.0.1'; endpoint?: string }): Charger {
  const endpoint = o.endpoint ?? urls[o.id].slice(0, urls[o.id].lastIndexOf('/'));
  const c = new RPCClient({
    endpoint,
    identity: o.id,
    ...(o.password !== undefined && { password: o.password }),
    protocols: [o.protocol ?? 'ocpp1.6'],
    strictMode: true,
    reconnect: false,
    callTimeoutMs: 5_000,
    wsOpts: { ca: pem('server-ca.pem'), ...(o.cert && { cert: pem(`${o.cert}.pem`), key: pem(`${o.cert}.key`) }) },
  } as never) as unknown as Charger;
  open.push(c);
  return c;
}

/** Connects; the HTTP status of a refused handshake, or 'open' (the connection is closed again). */
async function attempt(c: Charger): Promise<number | 'open' | string> {
  try {
    await c.connect();
  } catch (e: any) {
    return e.response?.statusCode ?? e.code ?? String(e);
  }
  await c.close({ force: true });
  return 'open';
}

async function register(id: string, profile?: 1 | 2 | 3, on: TestService = svc) {
  const r = await on.request({
    method: 'POST',
    url: `${H}/sites/sec/charge-points`,
    headers: auth(admin),
    payload: {
      charge_point_id: id,
      max_power_kw: 22,
      ...(profile !== undefined && { security_profile: profile }),
    },
  });
  assert.equal(r.statusCode, 201, r.body);
  const b = json(r);
  pw[id] = b.password;
  urls[id] = b.ocpp_url;
  return b;
}

const chargePoint = async (id: string) => json(await req('GET', `${H}/sites/sec`, viewer)).charge_points.find((x: any) => x.charge_point_id === id);

before(async () => {
  svc = await startTestService({ clock, env });
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  admin = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: '400d' });
  operator = await svc.token({ orgId: ORG, roles: ['OPERATOR'], expiresIn: '400d' });
  viewer = await svc.token({ orgId: ORG, roles: ['VIEWER'], expiresIn: '400d' });
  other = await svc.token({ orgId: OTHER, roles: ['ORG_ADMIN'], expiresIn: '400d' });
  plainBase = await listen(svc);
  assert.equal((await req('POST', `${H}/sites`, admin, { site_id: 'sec', name: 'Secure site', free_vend: true })).statusCode, 201);
  assert.equal((await req('POST', `${H}/sites`, other, { site_id: 'sec', name: 'Other site' })).statusCode, 201);
});
after(async () => {
  await Promise.allSettled(open.map((c) => c.close({ force: true })));
  await svc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('settings', () => {
  const base = { NODE_ENV: 'test', DATA_DIR: ':memory:' };
  const tls = { HUB_OCPP_TLS_CERT_FILE: env.HUB_OCPP_TLS_CERT_FILE, HUB_OCPP_TLS_KEY_FILE: env.HUB_OCPP_TLS_KEY_FILE };
  test('the TLS listener: certificate and key together, readable, PEM, matching; the port alone and a ws:// public URL beside it refused', () => {
    const hub = sectionOf(loadConfig({ ...base, ...tls }), hubConfig);
    assert.equal(hub.tls?.port, 8443);
    assert.match(hub.tls?.cert ?? '', /BEGIN CERTIFICATE/);
    assert.equal(sectionOf(loadConfig(base), hubConfig).tls, null);
    for (const [extra, refusal] of [
      [{ HUB_OCPP_TLS_CERT_FILE: tls.HUB_OCPP_TLS_CERT_FILE }, /set together/],
      [{ ...tls, HUB_OCPP_TLS_CERT_FILE: file('missing.pem') }, /HUB_OCPP_TLS_CERT_FILE: cannot read .*missing\.pem \(ENOENT\)/],
      [{ ...tls, HUB_OCPP_TLS_CERT_FILE: file('server.key') }, /HUB_OCPP_TLS_CERT_FILE: .* is not a PEM certificate/],
      [{ ...tls, HUB_OCPP_TLS_KEY_FILE: file('server.pem') }, /HUB_OCPP_TLS_KEY_FILE: .* is not a PEM private key/],
      [{ ...tls, HUB_OCPP_TLS_KEY_FILE: file('cp3.key') }, /not the private key of the certificate/],
      [{ HUB_OCPP_TLS_PORT: '9443' }, /HUB_OCPP_TLS_PORT is set but the TLS listener is not/],
      [{ ...tls, HUB_OCPP_PUBLIC_URL: 'ws://hub.example.com' }, /HUB_OCPP_PUBLIC_URL is ws:\/\/ but the OCPP TLS listener is configured/],
    ] as const) {
      assert.throws(() => loadConfig({ ...base, ...extra }), refusal);
    }
    // The key's text is never in a refusal.
    assert.throws(
      () => loadConfig({ ...base, ...tls, HUB_OCPP_TLS_KEY_FILE: file('cp3.key') }),
      (e: Error) => !e.message.includes('PRIVATE KEY'),
    );
  });
});

describe('the endpoint handed out', () => {
  test('is the TLS listener (wss://) when it is configured; the profile registered is in the answer and the site view', async () => {
    const b = await register('CP1');
    assert.match(b.ocpp_endpoint, /^wss:\/\/127\.0\.0\.1:\d+\/ocpp\/hub-security$/);
    assert.equal(b.ocpp_url, `${b.ocpp_endpoint}/CP1`);
    assert.notEqual(new URL(b.ocpp_url).port, new URL(plainBase).port, 'its own port, beside the plain listener');
    assert.equal(b.security_profile, 1);
    const b2 = await register('CP2', 2);
    assert.equal(b2.security_profile, 2);
    assert.deepEqual([(await chargePoint('CP2')).security_profile, (await chargePoint('CP2')).password_change_pending], [2, false]);
  });

  test('registration refusals: a profile that does not exist (422); profile 3 before the organisation has a charger CA (409)', async () => {
    const bad = await req('POST', `${H}/sites/sec/charge-points`, admin, { charge_point_id: 'CPX', max_power_kw: 22, security_profile: 4 });
    assert.equal(bad.statusCode, 422, bad.body);
    await assertRefused(
      await req('POST', `${H}/sites/sec/charge-points`, admin, { charge_point_id: 'CPX', max_power_kw: 22, security_profile: 3 }),
      409,
      NO_CA,
    );
    assert.equal((await req('GET', `${H}/sites/sec`, viewer)).body.includes('CPX'), false, 'nothing registered');
  });

  test('the TLS listener answers anything but an OCPP upgrade 404', async () => {
    const r = await fetchTls(`${new URL(urls.CP1).origin.replace('wss:', 'https:')}/api/csms/api/hub/sites`);
    assert.equal(r, 404);
  });
});

/** A plain HTTPS GET to the TLS listener (trusting the test server CA): its status. */
async function fetchTls(url: string): Promise<number> {
  const https = await import('node:https');
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca: pem('server-ca.pem') }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

describe('profile 1 and 2', () => {
  test('a profile 1 charger connects on plain ws and over TLS with its password', async () => {
    assert.equal(await attempt(charger({ base: plainBase, orgId: ORG, id: 'CP1', password: pw.CP1, protocol: 'ocpp1.6' })), 'open');
    assert.equal(await attempt(tlsCharger({ id: 'CP1', password: pw.CP1 })), 'open');
  });

  test('a profile 2 charger: the right password over TLS accepted (and served); a wrong password refused; the right one on plain ws refused (401)', async () => {
    const c = tlsCharger({ id: 'CP2', password: pw.CP2 });
    await c.connect();
    const boot = await c.call('BootNotification', { chargePointVendor: 'Acme', chargePointModel: 'TLS-2' });
    assert.equal(boot.status, 'Accepted');
    await eventually(async () => (await chargePoint('CP2')).connected === true, 'CP2 connected');
    await c.close({ force: true });
    assert.equal(await attempt(tlsCharger({ id: 'CP2', password: 'wrong-password-0000000' })), 401);
    assert.equal(await attempt(tlsCharger({ id: 'CP2' })), 401, 'no password at all');
    assert.equal(await attempt(charger({ base: plainBase, orgId: ORG, id: 'CP2', password: pw.CP2, protocol: 'ocpp1.6' })), 401);
  });

  test('TLS ended by a proxy counts only from a proxy in TRUST_PROXY (X-Forwarded-Proto https)', async () => {
    // This service trusts no proxy: the header from 127.0.0.1 is ignored.
    const c = new RPCClient({
      endpoint: `${plainBase}/ocpp/${ORG}`,
      identity: 'CP2',
      password: pw.CP2,
      protocols: ['ocpp1.6'],
      reconnect: false,
      headers: { 'x-forwarded-proto': 'https' },
    } as never) as unknown as Charger;
    open.push(c);
    assert.equal(await attempt(c), 401);
    const behind = await startTestService({ shareWith: svc, clock, env: { ...env, TRUST_PROXY: 'loopback' } });
    try {
      const base2 = await listen(behind);
      const forwarded = (proto: string) =>
        new RPCClient({
          endpoint: `${base2}/ocpp/${ORG}`,
          identity: 'CP2',
          password: pw.CP2,
          protocols: ['ocpp1.6'],
          reconnect: false,
          headers: { 'x-forwarded-proto': proto },
        } as never) as unknown as Charger;
      assert.equal(await attempt(forwarded('https')), 'open');
      assert.equal(await attempt(forwarded('http')), 401);
    } finally {
      await behind.stop();
    }
  });
});

describe('the charger CA (profile 3)', () => {
  test('refusals: VIEWER may not set it (403); not a certificate, a private key, a certificate that is no CA, an expired CA (422); removing none (404)', async () => {
    await assertRefused(await req('PUT', `${H}/charger-ca`, viewer, { certificate_pem: pem('org-ca.pem') }), 403, 'Insufficient permissions');
    for (const [bundle, why] of [
      ['not a certificate', /No PEM certificate/],
      [pem('org-ca.pem') + pem('org-ca.key'), /private key/],
      [pem('cp3.pem'), /not a CA certificate/],
      ['-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', /cannot be read/],
    ] as const) {
      const r = await req('PUT', `${H}/charger-ca`, admin, { certificate_pem: bundle });
      assert.equal(r.statusCode, 422, r.body);
      assert.match(JSON.stringify(json(r)), why);
      assert.ok(!r.body.includes('PRIVATE KEY'), 'the key is not echoed');
    }
    clock.advance(31 * 24 * 3600_000); // the CA (30 days) has expired
    try {
      const expired = await req('PUT', `${H}/charger-ca`, admin, { certificate_pem: pem('org-ca.pem') });
      assert.equal(expired.statusCode, 422, expired.body);
      assert.match(expired.body, /Certificate 1 expired at /);
    } finally {
      clock.advance(-31 * 24 * 3600_000);
    }
    await assertRefused(await req('DELETE', `${H}/charger-ca`, admin), 404, 'Charger CA not found');
    assert.deepEqual(json(await req('GET', `${H}/charger-ca`, viewer)), { certificates: [] });
  });

  test('set (ORG_ADMIN or OPERATOR), read by every role, audited; another organisation sees none of it', async () => {
    const r = await req('PUT', `${H}/charger-ca`, operator, { certificate_pem: pem('org-ca.pem') });
    assert.equal(r.statusCode, 200, r.body);
    const { certificates } = json(r);
    assert.equal(certificates.length, 1);
    const expectedFp = execFileSync('openssl', ['x509', '-in', file('org-ca.pem'), '-noout', '-fingerprint', '-sha256'])
      .toString()
      .split('=')[1]
      .trim()
      .replaceAll(':', '')
      .toLowerCase();
    assert.equal(certificates[0].fingerprint_sha256, expectedFp);
    assert.equal(certificates[0].subject, 'CN=Hub security org charger CA');
    assert.match(certificates[0].certificate_pem, /^-----BEGIN CERTIFICATE-----/);
    assert.deepEqual(json(await req('GET', `${H}/charger-ca`, viewer)), { certificates });
    assert.deepEqual(json(await req('GET', `${H}/charger-ca`, other)), { certificates: [] });
    const audit = json(await req('GET', '/api/hardware/admin/audit-log?action=hub.charger_ca.replace', admin));
    assert.deepEqual(audit.entries[0].details, { fingerprints_sha256: [expectedFp] });
  });

  test('a profile 3 charger: its certificate from the organisation CA accepted with no password; another CA, another charger, a password alone, an expired certificate refused', async () => {
    await register('CP3', 3);
    await register('CP3B', 3);
    const c = tlsCharger({ id: 'CP3', cert: 'cp3', protocol: 'ocpp2.0.1' });
    await c.connect();
    const boot = await c.call('BootNotification', { reason: 'PowerUp', chargingStation: { model: 'TLS-3', vendorName: 'Acme' } });
    assert.equal(boot.status, 'Accepted');
    await c.close({ force: true });
    assert.equal(await attempt(tlsCharger({ id: 'CP3', cert: 'cp3-other-ca' })), 401, 'issued by another CA');
    assert.equal(await attempt(tlsCharger({ id: 'CP3', cert: 'cp3b' })), 401, "another charger's certificate");
    assert.equal(await attempt(tlsCharger({ id: 'CP3B', cert: 'cp3' })), 401, "CP3's certificate for CP3B");
    assert.equal(await attempt(tlsCharger({ id: 'CP3', password: pw.CP3 })), 401, 'a password is profile 2');
    assert.equal(await attempt(charger({ base: plainBase, orgId: ORG, id: 'CP3', password: pw.CP3, protocol: 'ocpp1.6' })), 401);
    assert.equal(await attempt(tlsCharger({ id: 'CP3B', cert: 'cp3b' })), 'open', 'its own certificate');
    assert.equal(await attempt(tlsCharger({ id: 'CP2', cert: 'cp3' })), 401, "CP3's certificate does not name CP2 (and no password)");
    clock.advance(21 * 24 * 3600_000); // the charger certificates (20 days) have expired, the CA (30) has not
    try {
      assert.equal(await attempt(tlsCharger({ id: 'CP3', cert: 'cp3' })), 401, 'expired');
    } finally {
      clock.advance(-21 * 24 * 3600_000);
    }
  });

  test('removed: profile 3 chargers are refused until a CA is set again', async () => {
    const d = await req('DELETE', `${H}/charger-ca`, admin);
    assert.equal(d.statusCode, 204, d.body);
    assert.equal(await attempt(tlsCharger({ id: 'CP3', cert: 'cp3' })), 401);
    assert.equal((await req('PUT', `${H}/charger-ca`, admin, { certificate_pem: pem('other-ca.pem') + pem('org-ca.pem') })).statusCode, 200);
    assert.equal(json(await req('GET', `${H}/charger-ca`, viewer)).certificates.length, 2);
    assert.equal(await attempt(tlsCharger({ id: 'CP3', cert: 'cp3' })), 'open');
  });
});

describe('the security profile operation', () => {
  test('raising a charger to profile 2 refuses it on plain ws from its next connection; lowering lets it back; audited', async () => {
    await register('CPUP');
    assert.equal(await attempt(charger({ base: plainBase, orgId: ORG, id: 'CPUP', password: pw.CPUP, protocol: 'ocpp1.6' })), 'open');
    const r = await req('PUT', `${H}/charge-points/CPUP/security-profile`, operator, { security_profile: 2 });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(json(r), { charge_point_id: 'CPUP', security_profile: 2 });
    assert.equal((await chargePoint('CPUP')).security_profile, 2);
    assert.equal(await attempt(charger({ base: plainBase, orgId: ORG, id: 'CPUP', password: pw.CPUP, protocol: 'ocpp1.6' })), 401);
    assert.equal(await attempt(tlsCharger({ id: 'CPUP', password: pw.CPUP })), 'open');
    assert.equal((await req('PUT', `${H}/charge-points/CPUP/security-profile`, admin, { security_profile: 1 })).statusCode, 200);
    assert.equal(await attempt(charger({ base: plainBase, orgId: ORG, id: 'CPUP', password: pw.CPUP, protocol: 'ocpp1.6' })), 'open');
    const audit = json(await req('GET', '/api/hardware/admin/audit-log?action=hub.charge_point.security_profile', admin));
    assert.deepEqual(audit.entries.map((e: any) => e.details).slice(0, 2), [
      { from: 2, to: 1 },
      { from: 1, to: 2 },
    ]);
  });

  test('refusals: VIEWER (403), an unknown or other organisation charge point (404), profile 3 without a charger CA (409), a profile that does not exist (422)', async () => {
    await assertRefused(await req('PUT', `${H}/charge-points/CPUP/security-profile`, viewer, { security_profile: 2 }), 403, 'Insufficient permissions');
    await assertRefused(await req('PUT', `${H}/charge-points/NOPE/security-profile`, admin, { security_profile: 2 }), 404, 'Charge point not found');
    await assertRefused(await req('PUT', `${H}/charge-points/CPUP/security-profile`, other, { security_profile: 2 }), 404, 'Charge point not found');
    const otherCp = await req('POST', `${H}/sites/sec/charge-points`, other, { charge_point_id: 'CPO', max_power_kw: 7 });
    assert.equal(otherCp.statusCode, 201);
    await assertRefused(await req('PUT', `${H}/charge-points/CPO/security-profile`, other, { security_profile: 3 }), 409, NO_CA);
    const bad = await req('PUT', `${H}/charge-points/CPUP/security-profile`, admin, { security_profile: 0 });
    assert.equal(bad.statusCode, 422, bad.body);
    assert.equal((await chargePoint('CPUP')).security_profile, 1, 'unchanged');
  });
});

describe('password rotation over OCPP', () => {
  test('1.6 ChangeConfiguration AuthorizationKey: Rejected keeps the old; the old works until Accepted, then only the new; shown once, stored redacted', async () => {
    // The charger stays connected to the first instance while it answers; the passwords are tried
    // on a second instance's TLS listener (a second connection to the same instance would replace it).
    const svc2 = await startTestService({ shareWith: svc, clock, env });
    await register('CPR', 2, svc2);
    const c = tlsCharger({ id: 'CPR', password: pw.CPR, endpoint: urls.CP1.slice(0, urls.CP1.lastIndexOf('/')) });
    await c.connect();
    await eventually(async () => (await chargePoint('CPR')).connected === true, 'CPR connected');
    const got: any[] = [];
    let answer = 'Rejected';
    let duringCall: (number | 'open' | string)[] = [];
    c.handle('ChangeConfiguration', async ({ params }) => {
      got.push(params);
      // While the charger has not answered, the old password still opens a connection.
      if (answer === 'Accepted') duringCall = [await attempt(tlsCharger({ id: 'CPR', password: pw.CPR }))];
      return { status: answer };
    });

    const rejected = await req('POST', `${H}/charge-points/CPR/commands/rotate-password`, operator, {});
    assert.equal(rejected.statusCode, 201, rejected.body);
    const r1 = json(rejected);
    assert.deepEqual(
      [r1.action, r1.status, r1.ocpp_action, r1.password, r1.request],
      ['rotate-password', 'rejected', 'ChangeConfiguration', null, { key: 'AuthorizationKey', value: '(redacted)' }],
    );
    assert.equal(got[0].key, 'AuthorizationKey');
    assert.match(got[0].value, /^[A-Za-z0-9]{20}$/);
    assert.equal((await chargePoint('CPR')).password_change_pending, false);
    assert.equal(await attempt(tlsCharger({ id: 'CPR', password: pw.CPR })), 'open', 'Rejected: the old password stays');
    assert.equal(await attempt(tlsCharger({ id: 'CPR', password: got[0].value })), 401, 'and the refused one is void');

    answer = 'Accepted';
    const accepted = await req('POST', `${H}/charge-points/CPR/commands/rotate-password`, admin, {});
    assert.equal(accepted.statusCode, 201, accepted.body);
    const r2 = json(accepted);
    assert.equal(r2.status, 'accepted');
    assert.equal(r2.password, got[1].value, 'the password the charger was sent, shown once');
    assert.deepEqual(duringCall, ['open'], 'the old password worked until the charger answered');
    assert.equal(await attempt(tlsCharger({ id: 'CPR', password: pw.CPR })), 401, 'after Accepted the old one is refused');
    assert.equal(await attempt(tlsCharger({ id: 'CPR', password: r2.password })), 'open', 'and the new one opens');
    // Never again in clear: not in the stored command, nor its listing, nor the audit.
    const stored = await req('GET', `${H}/commands/${r2.command_id}`, viewer);
    assert.equal(json(stored).request.value, '(redacted)');
    assert.equal('password' in json(stored), false);
    assert.ok(!(await req('GET', `${H}/charge-points/CPR/commands`, viewer)).body.includes(r2.password));
    assert.ok(!(await req('GET', '/api/hardware/admin/audit-log', admin)).body.includes(r2.password));
    await c.close({ force: true });
    await svc2.stop();
  });

  test('2.0.1 SetVariables SecurityCtrlr.BasicAuthPassword: RebootRequired keeps both until the charger connects with the new one', async () => {
    await register('CPR2', 2);
    const c = tlsCharger({ id: 'CPR2', password: pw.CPR2, protocol: 'ocpp2.0.1' });
    await c.connect();
    await eventually(async () => (await chargePoint('CPR2')).connected === true, 'CPR2 connected');
    const got: any[] = [];
    c.handle('SetVariables', ({ params }) => {
      got.push(params);
      return { setVariableResult: [{ attributeStatus: 'RebootRequired', component: { name: 'SecurityCtrlr' }, variable: { name: 'BasicAuthPassword' } }] };
    });
    const r = json(await req('POST', `${H}/charge-points/CPR2/commands/rotate-password`, operator, {}));
    assert.equal(r.status, 'accepted');
    assert.deepEqual(got[0].setVariableData[0].component, { name: 'SecurityCtrlr' });
    assert.deepEqual(got[0].setVariableData[0].variable, { name: 'BasicAuthPassword' });
    assert.equal(got[0].setVariableData[0].attributeValue, r.password);
    assert.equal(r.request.setVariableData[0].attributeValue, '(redacted)');
    assert.equal((await chargePoint('CPR2')).password_change_pending, true);
    await c.close({ force: true });
    // Before its reboot the charger still has the old one; after it, the new one, which confirms it.
    assert.equal(await attempt(tlsCharger({ id: 'CPR2', password: pw.CPR2, protocol: 'ocpp2.0.1' })), 'open');
    assert.equal(await attempt(tlsCharger({ id: 'CPR2', password: r.password, protocol: 'ocpp2.0.1' })), 'open');
    assert.equal((await chargePoint('CPR2')).password_change_pending, false);
    assert.equal(await attempt(tlsCharger({ id: 'CPR2', password: pw.CPR2, protocol: 'ocpp2.0.1' })), 401, 'the old one ended there');
  });

  test('no answer in time: the new password is shown and both stay valid until the charger connects with the new one', async () => {
    await register('CPR3', 2);
    const c = tlsCharger({ id: 'CPR3', password: pw.CPR3 });
    await c.connect();
    await eventually(async () => (await chargePoint('CPR3')).connected === true, 'CPR3 connected');
    c.handle('ChangeConfiguration', () => new Promise(() => {})); // never answers
    const r = json(await req('POST', `${H}/charge-points/CPR3/commands/rotate-password`, operator, {}));
    assert.deepEqual([r.status, r.response, typeof r.password], ['timeout', null, 'string']);
    assert.equal((await chargePoint('CPR3')).password_change_pending, true);
    await c.close({ force: true });
    assert.equal(await attempt(tlsCharger({ id: 'CPR3', password: pw.CPR3 })), 'open', 'the old one still opens');
    assert.equal(await attempt(tlsCharger({ id: 'CPR3', password: r.password })), 'open', 'so does the new one, which confirms it');
    assert.equal(await attempt(tlsCharger({ id: 'CPR3', password: pw.CPR3 })), 401, 'the old one ended there');
  });

  test('refusals: VIEWER (403), another organisation (404), a body with members (422), the charger offline (409, nothing pending)', async () => {
    await assertRefused(await req('POST', `${H}/charge-points/CPR/commands/rotate-password`, viewer, {}), 403, 'Insufficient permissions');
    await assertRefused(await req('POST', `${H}/charge-points/CPR/commands/rotate-password`, other, {}), 404, 'Charge point not found');
    const bad = await req('POST', `${H}/charge-points/CPR/commands/rotate-password`, operator, { password: 'mine-please-0000000' });
    assert.equal(bad.statusCode, 422, bad.body);
    await eventually(async () => (await chargePoint('CPR')).connected === false, 'CPR offline');
    await assertRefused(await req('POST', `${H}/charge-points/CPR/commands/rotate-password`, operator, {}), 409, 'Charge point not connected');
    assert.equal((await chargePoint('CPR')).password_change_pending, false);
  });
});
