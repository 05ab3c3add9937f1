// Single sign-on: provider configuration, group mappings and the id_token exchange against a
// loopback identity provider publishing its keys (JWKS).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import { json, type TestService } from '../helpers/service.ts';
import { startFakeServer, sendJson, type FakeServer } from '../helpers/fake-server.ts';
import { auditEntries, bearer, claims, clockOf, signIn, startService } from './support.ts';
import { assertRefused } from '../helpers/refusal.ts';

const TID = '11111111-2222-3333-4444-555555555555';
const APP = 'api://energy-platform';
const ISSUER = `https://login.example.com/${TID}/v2.0`;
const G_ADMIN = 'group-admins';
const G_OPS = 'group-operators';

type Key = Awaited<ReturnType<typeof generateKeyPair>> & { kid: string; jwk: JWK };
let svc: TestService;
let idp: FakeServer;
let admin: string;
let published: JWK[] = [];
let current: Key;

async function makeKey(kid: string): Promise<Key> {
  const pair = await generateKeyPair('RS256', { extractable: true });
  return { ...pair, kid, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

function idToken(claimsIn: Record<string, unknown> = {}, opts: { key?: Key; kid?: string; exp?: number } = {}) {
  const key = opts.key ?? current;
  const now = Math.floor(svc.clock.now().getTime() / 1000);
  return new SignJWT({ tid: TID, oid: 'user-oid-1', email: 'sso.user@acme.example', groups: [G_OPS], ...claimsIn })
    .setProtectedHeader({ alg: 'RS256', kid: opts.kid ?? key.kid })
    .setIssuer(ISSUER)
    .setAudience(APP)
    .setSubject('user-sub-1')
    .setIssuedAt(now - 60)
    .setExpirationTime(opts.exp ?? now + 3600)
    .sign(key.privateKey);
}

const exchange = (id_token: string) => svc.request({ method: 'POST', url: '/api/auth/sso/idp/exchange', payload: { id_token } });
const jwksFetches = () => idp.requests.filter((r) => r.url === '/keys').length;
const putProvider = (token: string, payload: object) => svc.request({ method: 'PUT', url: '/api/auth/sso/idp/provider', headers: bearer(token), payload });
const addMapping = (token: string, payload: object) => svc.request({ method: 'POST', url: '/api/auth/sso/idp/mappings', headers: bearer(token), payload });

before(async () => {
  svc = await startService();
  current = await makeKey('key-1');
  published = [current.jwk];
  idp = await startFakeServer((req, res) => {
    if (req.url === '/keys') return sendJson(res, 200, { keys: published });
    if (req.url === '/.well-known/openid-configuration') return sendJson(res, 200, { issuer: ISSUER, jwks_uri: `${idp.url}/keys` });
    sendJson(res, 404, {});
  });
  await svc.createOrg('acme');
  await svc.createOrg('beta');
  await svc.createUser('acme', 'admin@acme.example', 'ORG_ADMIN');
  await svc.createUser('acme', 'op@acme.example', 'OPERATOR');
  admin = (await signIn(svc, 'admin@acme.example')).access_token;
});
after(async () => {
  await idp.close();
  await svc.stop();
});

test('provider configuration: unset, set, read back; administrators only; bad input refused', async () => {
  const empty = json(await svc.request({ method: 'GET', url: '/api/auth/sso/idp/provider', headers: bearer(admin) }));
  assert.equal(empty.configured, false);
  const op = (await signIn(svc, 'op@acme.example')).access_token;
  assertRefused(await putProvider(op, { tid: TID, issuer: ISSUER, application_id: APP, jwks_url: `${idp.url}/keys` }), 403, 'Insufficient permissions');
  assertRefused(await svc.request({ method: 'GET', url: '/api/auth/sso/idp/provider', headers: bearer(op) }), 403, 'Insufficient permissions');

  const neither = await putProvider(admin, { tid: TID, issuer: ISSUER, application_id: APP });
  assert.equal(neither.statusCode, 422);
  assert.deepEqual(json(neither).detail[0].loc, ['body', 'jwks_url']);
  assertRefused(await putProvider(admin, { tid: TID, issuer: ISSUER, application_id: APP, jwks_url: 'ftp://x/keys' }), 422, { fields: ['body.jwks_url'] });

  const res = await putProvider(admin, { tid: TID, issuer: ISSUER, application_id: APP, jwks_url: `${idp.url}/keys` });
  assert.equal(res.statusCode, 200);
  const got = json(await svc.request({ method: 'GET', url: '/api/auth/sso/idp/provider', headers: bearer(admin) }));
  assert.equal(got.configured, true);
  assert.equal(got.tid, TID);
  assert.equal(got.application_id, APP);
  assert.equal(got.enabled, true);

  assert.equal(got.verification, 'pending');
  // Another organisation naming the same tenant is not told anything: its claim is pending too
  // (which claim counts is settled by sign-in or approval: sso-claims.test.ts).
  const betaAdmin = await svc.token({ orgId: 'beta', roles: ['ORG_ADMIN'] });
  const second = await putProvider(betaAdmin, { tid: TID, issuer: ISSUER, application_id: 'api://beta-app', jwks_url: `${idp.url}/keys` });
  assert.equal(second.statusCode, 200);
  assert.equal(json(second).verification, 'pending');
});

test('mappings: add, list, repeat 409, bad role 422, delete', async () => {
  const a = await addMapping(admin, { group_id: G_ADMIN, role: 'ORG_ADMIN' });
  assert.equal(a.statusCode, 201);
  assert.equal((await addMapping(admin, { group_id: G_OPS, role: 'OPERATOR' })).statusCode, 201);
  assert.equal((await addMapping(admin, { group_id: G_OPS, role: 'ANALYST' })).statusCode, 201);
  assertRefused(await addMapping(admin, { group_id: G_OPS, role: 'OPERATOR' }), 409, 'This group already maps to this role');
  assertRefused(await addMapping(admin, { group_id: G_OPS, role: 'ROOT' }), 422, { fields: ['body.role'] });
  const temp = json(await addMapping(admin, { group_id: 'temp', role: 'VIEWER' }));
  const del = await svc.request({ method: 'DELETE', url: `/api/auth/sso/idp/mappings/${temp.id}`, headers: bearer(admin) });
  assert.equal(del.statusCode, 204);
  const again = await svc.request({ method: 'DELETE', url: `/api/auth/sso/idp/mappings/${temp.id}`, headers: bearer(admin) });
  assertRefused(again, 404, 'Not Found');
  const list = json(await svc.request({ method: 'GET', url: '/api/auth/sso/idp/mappings', headers: bearer(admin) })).mappings;
  assert.deepEqual(list.map((m: any) => `${m.group_id}:${m.role}`).sort(), [`${G_ADMIN}:ORG_ADMIN`, `${G_OPS}:ANALYST`, `${G_OPS}:OPERATOR`]);
  const viewer = await svc.token({ orgId: 'acme', roles: ['VIEWER'] });
  assertRefused(await svc.request({ method: 'GET', url: '/api/auth/sso/idp/mappings', headers: bearer(viewer) }), 403, 'Insufficient permissions');
});

test('a good token becomes a session with the union of mapped roles, audited as auth.sso.login', async () => {
  const res = await exchange(await idToken());
  assert.equal(res.statusCode, 200);
  const s = json(res);
  // That sign-in proved the claim.
  assert.equal(json(await svc.request({ method: 'GET', url: '/api/auth/sso/idp/provider', headers: bearer(admin) })).verification, 'verified');
  assert.deepEqual(s.roles, ['ANALYST', 'OPERATOR']);
  assert.equal(claims(s.access_token).org_id, 'acme');
  const me = json(await svc.request({ method: 'GET', url: '/api/auth/me', headers: bearer(s.access_token) }));
  assert.equal(me.auth_method, 'sso');
  assert.equal(me.email, 'sso.user@acme.example');
  assert.equal(me.user_id, `sso:${TID}:user-oid-1`);
  const logins = await auditEntries(svc, admin, '&action=auth.sso.login');
  assert.equal(logins.length, 1);
  assert.deepEqual(logins[0].details.roles, ['ANALYST', 'OPERATOR']);
  // Refresh works and re-maps the groups.
  const r = await svc.request({ method: 'POST', url: '/api/auth/token/refresh', payload: { refresh_token: s.refresh_token } });
  assert.equal(r.statusCode, 200);
  assert.deepEqual(json(r).roles, ['ANALYST', 'OPERATOR']);
});

async function refusal(token: string) {
  const res = await exchange(token);
  return { status: res.statusCode, detail: json(res).detail };
}

test('tokens that do not verify: 401 sso_refused with the reason', async () => {
  const stranger = await makeKey('key-1'); // same kid, other key
  assert.deepEqual(await refusal(await idToken({}, { key: stranger })), {
    status: 401,
    detail: { error: 'sso_refused', reason: 'invalid_signature' },
  });
  const now = Math.floor(svc.clock.now().getTime() / 1000);
  assert.deepEqual((await refusal(await idToken({}, { exp: now - 3600 }))).detail.reason, 'token_expired');
  const wrongAud = await new SignJWT({ tid: TID, groups: [G_OPS] })
    .setProtectedHeader({ alg: 'RS256', kid: current.kid })
    .setIssuer(ISSUER)
    .setAudience('api://someone-else')
    .setSubject('s')
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(current.privateKey);
  assert.deepEqual(await refusal(wrongAud), { status: 401, detail: { error: 'sso_refused', reason: 'audience_mismatch' } });
  const wrongIss = await new SignJWT({ tid: TID, groups: [G_OPS] })
    .setProtectedHeader({ alg: 'RS256', kid: current.kid })
    .setIssuer('https://evil.example.com/')
    .setAudience(APP)
    .setSubject('s')
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(current.privateKey);
  assert.equal((await refusal(wrongIss)).detail.reason, 'issuer_mismatch');
  // An HS256 token cannot sneak in as the provider's.
  const hs = await new SignJWT({ tid: TID, groups: [G_OPS] })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(ISSUER)
    .setAudience(APP)
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(new TextEncoder().encode(svc.config.jwtSecret));
  assertRefused(await refusal(hs), 401, { detail: { error: 'sso_refused', reason: 'algorithm_not_allowed' } });
  assert.deepEqual(await refusal('not.a.token'), { status: 401, detail: { error: 'sso_refused', reason: 'malformed_token' } });
});

test('unknown tenant and disabled provider: 404 sso_refused', async () => {
  assert.deepEqual(await refusal(await idToken({ tid: 'another-tenant' })), {
    status: 404,
    detail: { error: 'sso_refused', reason: 'tenant_not_configured' },
  });
  await putProvider(admin, { tid: TID, issuer: ISSUER, application_id: APP, jwks_url: `${idp.url}/keys`, enabled: false });
  assertRefused(await refusal(await idToken()), 404, { detail: { error: 'sso_refused', reason: 'tenant_not_configured' } });
  await putProvider(admin, { tid: TID, issuer: ISSUER, application_id: APP, jwks_url: `${idp.url}/keys`, enabled: true });
  assert.equal((await exchange(await idToken())).statusCode, 200);
});

test('no mapped group (group ids listed) and groups overage: 403 sso_refused', async () => {
  assert.deepEqual(await refusal(await idToken({ groups: ['g-unmapped', 'g-other'] })), {
    status: 403,
    detail: { error: 'sso_refused', reason: 'no_mapped_group', groups: ['g-unmapped', 'g-other'] },
  });
  assert.deepEqual((await refusal(await idToken({ groups: undefined }))).detail.reason, 'no_mapped_group');
  const overage = await idToken({ groups: undefined, _claim_names: { groups: 'src1' }, _claim_sources: { src1: { endpoint: 'x' } } });
  assert.deepEqual(await refusal(overage), { status: 403, detail: { error: 'sso_refused', reason: 'groups_overage' } });
  assert.equal((await refusal(await idToken({ hasgroups: true }))).detail.reason, 'groups_overage');
  const refused = await auditEntries(svc, admin, '&action=auth.sso.refused');
  assert.ok(refused.some((e) => e.details.reason === 'groups_overage'));
});

test('key rotation: a new kid is accepted after one refetch; a flood of unknown kids refetches at most once per cooldown', async () => {
  clockOf(svc).advance(60_000); // past the cooldown since the last fetch
  const before = jwksFetches();
  const next = await makeKey('key-2');
  published = [current.jwk, next.jwk];
  current = next;
  assert.equal((await exchange(await idToken())).statusCode, 200);
  assert.equal(jwksFetches(), before + 1, 'one refetch for the new kid');

  for (let i = 0; i < 5; i++) {
    const r = await refusal(await idToken({}, { kid: `made-up-${i}` }));
    assert.deepEqual(r, { status: 401, detail: { error: 'sso_refused', reason: 'unknown_signing_key' } });
  }
  assert.equal(jwksFetches(), before + 1, 'no refetch inside the cooldown');
  clockOf(svc).advance(31_000);
  for (let i = 0; i < 5; i++) await refusal(await idToken({}, { kid: `made-up-again-${i}` }));
  assert.equal(jwksFetches(), before + 2, 'one refetch in the next cooldown window');
});

test('a discovery URL finds the keys; removing a mapping takes the role away at the next refresh', async () => {
  await putProvider(admin, { tid: TID, issuer: ISSUER, application_id: APP, discovery_url: `${idp.url}/.well-known/openid-configuration` });
  const s = json(await exchange(await idToken({ groups: [G_ADMIN] })));
  assert.deepEqual(s.roles, ['ORG_ADMIN']);
  const mappings = json(await svc.request({ method: 'GET', url: '/api/auth/sso/idp/mappings', headers: bearer(admin) })).mappings;
  const adminMapping = mappings.find((m: any) => m.group_id === G_ADMIN);
  await svc.request({ method: 'DELETE', url: `/api/auth/sso/idp/mappings/${adminMapping.id}`, headers: bearer(admin) });
  const r = await svc.request({ method: 'POST', url: '/api/auth/token/refresh', payload: { refresh_token: s.refresh_token } });
  assertRefused(r, 401, 'Invalid or expired refresh token');
});

test('keys that cannot be fetched: 502, not a session', async () => {
  const down = await startFakeServer((_req, res) => sendJson(res, 500, {}));
  try {
    const betaAdmin = await svc.token({ orgId: 'beta', roles: ['ORG_ADMIN'] });
    await putProvider(betaAdmin, { tid: 'beta-tenant', issuer: ISSUER, application_id: APP, jwks_url: `${down.url}/keys` });
    await addMapping(betaAdmin, { group_id: G_OPS, role: 'VIEWER' });
    const res = await exchange(await idToken({ tid: 'beta-tenant' }));
    assert.equal(res.statusCode, 502);
    assert.deepEqual(json(res), { detail: 'Identity provider API error' });
  } finally {
    await down.close();
  }
});
