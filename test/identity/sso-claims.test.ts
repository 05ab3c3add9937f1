// Who holds an identity provider tenant (decision 0029): naming a tid makes a pending claim and
// tells nothing about other organisations; one completed sign-in from the tenant, or a platform
// administrator's approval, makes a claim the verified one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import { json, type TestService } from '../helpers/service.ts';
import { startFakeServer, sendJson, type FakeServer } from '../helpers/fake-server.ts';
import { auditEntries, bearer, claims, startService } from './support.ts';
import { assertRefused } from '../helpers/refusal.ts';

type Key = Awaited<ReturnType<typeof generateKeyPair>> & { kid: string; jwk: JWK };
let svc: TestService;
let idp: FakeServer;
let realKey: Key;
let squatterKey: Key;

async function makeKey(kid: string): Promise<Key> {
  const pair = await generateKeyPair('RS256', { extractable: true });
  return { ...pair, kid, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

/** The tenant's real authority publishes /real/keys; a squatter publishes its own at /squatter/keys. */
before(async () => {
  svc = await startService();
  realKey = await makeKey('real-1');
  squatterKey = await makeKey('squat-1');
  idp = await startFakeServer((req, res) => {
    if (req.url === '/real/keys') return sendJson(res, 200, { keys: [realKey.jwk] });
    if (req.url === '/squatter/keys') return sendJson(res, 200, { keys: [squatterKey.jwk] });
    sendJson(res, 404, {});
  });
  for (const org of ['owner', 'squatter', 'owner2', 'squatter2', 'one', 'two', 'platform']) await svc.createOrg(org);
});
after(async () => {
  await idp.close();
  await svc.stop();
});

const issuerOf = (tid: string) => `https://login.example.com/${tid}/v2.0`;
const adminOf = (orgId: string) => svc.token({ orgId, roles: ['ORG_ADMIN'] });
const platformAdmin = () => svc.token({ orgId: 'platform', roles: ['VIEWER'], staff: true, admin: true });

async function configure(orgId: string, tid: string, app: string, keys: 'real' | 'squatter', group = 'g-staff') {
  const token = await adminOf(orgId);
  const res = await svc.request({
    method: 'PUT',
    url: '/api/auth/sso/idp/provider',
    headers: bearer(token),
    payload: { tid, issuer: issuerOf(tid), application_id: app, jwks_url: `${idp.url}/${keys}/keys` },
  });
  assert.equal(res.statusCode, 200, res.body);
  const m = await svc.request({ method: 'POST', url: '/api/auth/sso/idp/mappings', headers: bearer(token), payload: { group_id: group, role: 'OPERATOR' } });
  assert.equal(m.statusCode, 201, m.body);
  return json(res);
}

function idToken(tid: string, app: string, key: Key, group = 'g-staff') {
  const now = Math.floor(svc.clock.now().getTime() / 1000);
  return new SignJWT({ tid, oid: `oid-${key.kid}`, groups: [group] })
    .setProtectedHeader({ alg: 'RS256', kid: key.kid })
    .setIssuer(issuerOf(tid))
    .setAudience(app)
    .setIssuedAt(now - 10)
    .setExpirationTime(now + 3600)
    .sign(key.privateKey);
}

const exchange = async (id_token: string) => {
  const res = await svc.request({ method: 'POST', url: '/api/auth/sso/idp/exchange', payload: { id_token } });
  return { status: res.statusCode, body: json(res) };
};
const providerOf = async (orgId: string) =>
  json(await svc.request({ method: 'GET', url: '/api/auth/sso/idp/provider', headers: bearer(await adminOf(orgId)) }));

test('a tenant id named first by another organisation is not refused, nor does the answer reveal it', async () => {
  const tid = 'tenant-contoso';
  const squatted = await configure('squatter', tid, 'api://squatter-app', 'squatter');
  const mine = await configure('owner', tid, 'api://owner-app', 'real');
  // The same answer as for a tenant nobody uses: pending, and nothing about anyone else.
  assert.equal(mine.verification, 'pending');
  assert.deepEqual(Object.keys(mine).sort(), Object.keys(squatted).sort());
  assert.ok(!JSON.stringify(mine).includes('squatter'));

  // A real sign-in from the tenant through the owner's configuration proves the owner's claim.
  const session = await exchange(await idToken(tid, 'api://owner-app', realKey));
  assert.equal(session.status, 200, JSON.stringify(session.body));
  assert.equal(claims(session.body.access_token).org_id, 'owner');
  assert.equal((await providerOf('owner')).verification, 'verified');
  assert.equal((await providerOf('squatter')).verification, 'pending');
  const verified = await auditEntries(svc, await adminOf('owner'), '&action=auth.sso.provider.verify');
  assert.equal(verified.length, 1);
  assert.equal(verified[0].details.method, 'sign_in');
  // From now on only the owner's configuration admits sign-ins for the tenant.
  const squat = await exchange(await idToken(tid, 'api://squatter-app', squatterKey));
  assert.equal(squat.status, 401);
  assert.equal(squat.body.detail.error, 'sso_refused');
});

test('a claim proven with keys of its own is undone by a platform administrator approving the real one', async () => {
  const tid = 'tenant-fabrikam';
  await configure('squatter2', tid, 'api://squatter-app', 'squatter');
  // The squatter signs its own token first and so holds the tenant.
  assert.equal((await exchange(await idToken(tid, 'api://squatter-app', squatterKey))).status, 200);
  await configure('owner2', tid, 'api://owner-app', 'real');
  assertRefused(await exchange(await idToken(tid, 'api://owner-app', realKey)), 401, { detail: { error: 'sso_refused', reason: 'unknown_signing_key' } });
  assert.equal((await providerOf('owner2')).verification, 'pending');

  const approve = (orgId: string, token: string) =>
    svc.request({ method: 'POST', url: `/api/auth/sso/idp/providers/${orgId}/approve`, headers: bearer(token) });
  const notAdmin = await approve('owner2', await adminOf('owner2'));
  assert.equal(notAdmin.statusCode, 403);
  assert.deepEqual(json(notAdmin), { detail: 'Platform administrators only' });
  assertRefused(await approve('nobody-here', await platformAdmin()), 404, 'Not Found');

  const ok = await approve('owner2', await platformAdmin());
  assert.equal(ok.statusCode, 200, ok.body);
  assert.equal(json(ok).verification, 'verified');
  assert.equal((await approve('owner2', await platformAdmin())).statusCode, 200, 'idempotent');
  assert.equal((await providerOf('squatter2')).verification, 'pending');
  const released = await auditEntries(svc, await adminOf('squatter2'), '&action=auth.sso.provider.release');
  assert.equal(released.length, 1);

  const session = await exchange(await idToken(tid, 'api://owner-app', realKey));
  assert.equal(session.status, 200);
  assert.equal(claims(session.body.access_token).org_id, 'owner2');
  assertRefused(await exchange(await idToken(tid, 'api://squatter-app', squatterKey)), 401, {
    detail: { error: 'sso_refused', reason: 'unknown_signing_key' },
  });
});

test('with several pending claims a token none admits is 404, each refusal recorded in its own log', async () => {
  const tid = 'tenant-northwind';
  await configure('one', tid, 'api://one-app', 'real');
  await configure('two', tid, 'api://two-app', 'real');
  const r = await exchange(await idToken(tid, 'api://third-app', realKey));
  assert.deepEqual(r, { status: 404, body: { detail: { error: 'sso_refused', reason: 'tenant_not_configured' } } });
  for (const org of ['one', 'two']) {
    const refused = await auditEntries(svc, await adminOf(org), '&action=auth.sso.refused');
    assert.deepEqual(
      refused.map((e) => e.details.reason),
      ['audience_mismatch'],
    );
    assert.equal((await providerOf(org)).verification, 'pending');
  }
  // The token meant for one of them proves that one only.
  assert.equal((await exchange(await idToken(tid, 'api://two-app', realKey))).status, 200);
  assert.equal((await providerOf('two')).verification, 'verified');
  assert.equal((await providerOf('one')).verification, 'pending');
});
