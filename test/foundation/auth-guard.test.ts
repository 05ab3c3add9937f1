// Credential verification on every non-public operation: the exact answers of section 7.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT, UnsecuredJWT } from 'jose';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { fixtureModule } from '../helpers/fixtures.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
const ORG = 'acme';
const key = () => new TextEncoder().encode(svc.config.jwtSecret);
const URL_ = '/api/test-fixture/field-only';

before(async () => {
  svc = await startTestService({ extraModules: [fixtureModule] });
  await svc.createOrg(ORG, ['field']);
  await svc.createOrg('plain');
  await svc.createOrg('demo-alpha');
});
after(() => svc.stop());

async function call(headers: Record<string, string>, url = URL_, method: 'GET' | 'POST' = 'GET') {
  const res = await svc.request({ method, url, headers });
  return { status: res.statusCode, detail: json(res).detail };
}

function sign(claims: Record<string, unknown>, opts: { exp?: number; secret?: Uint8Array; alg?: string } = {}) {
  const now = Math.floor(svc.clock.now().getTime() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: opts.alg ?? 'HS256' })
    .setSubject('u1')
    .setIssuedAt(now)
    .setExpirationTime(opts.exp ?? now + 600)
    .sign(opts.secret ?? key());
}

test('no credential: 401 Authorization header missing', async () => {
  assert.deepEqual(await call({}), { status: 401, detail: 'Authorization header missing' });
});

test('a 401 says how to authenticate: WWW-Authenticate Bearer, with error="invalid_token" when a credential was sent and refused', async () => {
  const none = await svc.request({ method: 'GET', url: URL_ });
  assert.equal(none.statusCode, 401);
  assert.equal(none.headers['www-authenticate'], 'Bearer realm="energy-platform"');
  const bad = await svc.request({ method: 'GET', url: URL_, headers: { authorization: 'Bearer not-a-token' } });
  assert.equal(bad.statusCode, 401);
  assert.equal(bad.headers['www-authenticate'], 'Bearer realm="energy-platform", error="invalid_token"');
  // Not on other refusals.
  const token = await svc.token({ orgId: 'plain', roles: ['VIEWER'] });
  const forbidden = await svc.request({ method: 'GET', url: URL_, headers: { authorization: `Bearer ${token}` } });
  assert.equal(forbidden.statusCode, 403);
  assert.equal(forbidden.headers['www-authenticate'], undefined);
});

test('not "Bearer <token>": 401 Invalid authorization header', async () => {
  for (const h of ['Basic abc', 'Bearer', 'Bearer a b', 'token']) {
    assert.deepEqual(await call({ authorization: h }), { status: 401, detail: 'Invalid authorization header' }, h);
  }
});

test('bad signature, other key, alg none, expired: 401 Invalid or expired token', async () => {
  const good = { tenant_id: ORG, org_id: ORG, roles: ['ORG_ADMIN'] };
  const now = Math.floor(svc.clock.now().getTime() / 1000);
  const tokens = [
    await sign(good, { secret: new TextEncoder().encode('another-secret-another-secret-another') }),
    new UnsecuredJWT(good)
      .setSubject('u1')
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .encode(),
    await sign(good, { exp: now - 1 }),
    (await sign(good)).slice(0, -2) + 'xx',
    'not.a.jwt',
  ];
  for (const t of tokens) {
    assert.deepEqual(await call({ authorization: `Bearer ${t}` }), { status: 401, detail: 'Invalid or expired token' });
  }
});

test('a token that expires is refused once the clock passes exp', async () => {
  const now = Math.floor(svc.clock.now().getTime() / 1000);
  const t = await sign({ tenant_id: ORG, org_id: ORG, roles: ['VIEWER'] }, { exp: now + 5 });
  assert.equal((await call({ authorization: `Bearer ${t}` })).status, 200);
  (svc.clock as import('../../src/platform/clock.ts').ManualClock).advance(6000);
  assert.equal((await call({ authorization: `Bearer ${t}` })).detail, 'Invalid or expired token');
});

test('a token accepted before is judged again at each use: refused before nbf, also after the clock moved back', async () => {
  const clock = svc.clock as import('../../src/platform/clock.ts').ManualClock;
  const now = Math.floor(clock.now().getTime() / 1000);
  const t = await new SignJWT({ tenant_id: ORG, org_id: ORG, roles: ['VIEWER'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('u1')
    .setIssuedAt(now)
    .setNotBefore(now + 10)
    .setExpirationTime(now + 600)
    .sign(key());
  const start = clock.now();
  try {
    assert.equal((await call({ authorization: `Bearer ${t}` })).detail, 'Invalid or expired token');
    clock.advance(11_000);
    assert.equal((await call({ authorization: `Bearer ${t}` })).status, 200);
    assert.equal((await call({ authorization: `Bearer ${t}` })).status, 200);
    clock.set(start);
    assert.equal((await call({ authorization: `Bearer ${t}` })).detail, 'Invalid or expired token');
  } finally {
    clock.set(new Date(start.getTime() + 11_000));
  }
});

test('no tenant in token or header: 401 Tenant missing', async () => {
  const t = await sign({ org_id: ORG, roles: ['ORG_ADMIN'] });
  assert.deepEqual(await call({ authorization: `Bearer ${t}` }), { status: 401, detail: 'Tenant missing' });
  // The X-Tenant-ID header can supply it.
  assert.equal((await call({ authorization: `Bearer ${t}`, 'x-tenant-id': ORG })).status, 200);
});

test('X-Tenant-ID disagreeing with the token: 403 Tenant mismatch', async () => {
  const t = await svc.token({ orgId: ORG });
  assert.deepEqual(await call({ authorization: `Bearer ${t}`, 'x-tenant-id': 'plain' }), { status: 403, detail: 'Tenant mismatch' });
});

test('token without org_id: 400 Organisation context missing', async () => {
  const t = await sign({ tenant_id: ORG, roles: ['ORG_ADMIN'] });
  assert.deepEqual(await call({ authorization: `Bearer ${t}` }), { status: 400, detail: 'Organisation context missing' });
});

test('empty or missing roles: 403 Roles missing on token', async () => {
  for (const roles of [[], undefined, 'ORG_ADMIN']) {
    const t = await sign({ tenant_id: ORG, org_id: ORG, ...(roles !== undefined && { roles }) });
    assert.deepEqual(await call({ authorization: `Bearer ${t}` }), { status: 403, detail: 'Roles missing on token' });
  }
});

test('a role the operation does not admit: 403 Insufficient permissions', async () => {
  const t = await svc.token({ orgId: ORG, roles: ['VIEWER'] });
  const res = await svc.request({
    method: 'POST',
    url: '/api/devtools/test-fixture/echo',
    headers: { authorization: `Bearer ${t}` },
    payload: { name: 'x' },
  });
  assert.equal(res.statusCode, 403);
  assert.equal(json(res).detail, 'Insufficient permissions');
});

test('an API key on a bearer-only operation: 401', async () => {
  const res = await call({ authorization: `Bearer ${svc.config.apiKeyPrefix}_live_abcdef0123456789` });
  assertRefused(res, 401, 'API keys are not accepted by this operation');
});

test('module gate: 403 Module not enabled for an organisation without it', async () => {
  const ok = await svc.token({ orgId: ORG });
  assert.equal((await call({ authorization: `Bearer ${ok}` })).status, 200);
  const no = await svc.token({ orgId: 'plain' });
  assert.deepEqual(await call({ authorization: `Bearer ${no}` }), { status: 403, detail: 'Module not enabled: field' });
});

test('demo-realm operation: 403 Demo realm only for a production organisation', async () => {
  const prod = await svc.token({ orgId: ORG });
  assert.deepEqual(await call({ authorization: `Bearer ${prod}` }, '/api/test-fixture/demo-only', 'POST'), {
    status: 403,
    detail: 'Demo realm only',
  });
  const demo = await svc.token({ orgId: 'demo-alpha' });
  assert.equal((await call({ authorization: `Bearer ${demo}` }, '/api/test-fixture/demo-only', 'POST')).status, 200);
});

test('the realm is an attribute of the organisation, set when it is made, and agrees with its id', async () => {
  // A demo-looking id is not enough: an organisation that was never made has no realm.
  const ghost = await svc.token({ orgId: 'demo-never-made' });
  assert.deepEqual(await call({ authorization: `Bearer ${ghost}` }, '/api/test-fixture/demo-only', 'POST'), {
    status: 403,
    detail: 'Demo realm only',
  });
  const { rows } = await svc.deps.db.query<{ id: string; realm: string }>(`select id, realm from organisations where id in ($1, $2) order by id`, [
    'demo-alpha',
    ORG,
  ]);
  assert.deepEqual(
    rows.map((r) => [r.id, r.realm]).sort(),
    [
      [ORG, 'production'],
      ['demo-alpha', 'demo'],
    ].sort(),
  );
  await assert.rejects(svc.deps.db.query(`update organisations set realm = 'demo' where id = $1`, [ORG]), /organisations_realm_check/);
  await assert.rejects(svc.deps.db.query(`update organisations set realm = 'production' where id = 'demo-alpha'`), /organisations_realm_check/);
});

test('platform-staff operation: 403 for a partner (organisation) token, 200 for staff', async () => {
  const partner = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'] });
  assertRefused(await call({ authorization: `Bearer ${partner}` }, '/api/test-fixture/staff-only'), 403, 'Platform staff only');
  const staff = await svc.token({ orgId: ORG, roles: ['VIEWER'], staff: true });
  assert.equal((await call({ authorization: `Bearer ${staff}` }, '/api/test-fixture/staff-only')).status, 200);
});

test('awaiting-migration operations are served', async () => {
  const t = await svc.token({ orgId: ORG, roles: ['VIEWER'] });
  assert.equal((await call({ authorization: `Bearer ${t}` }, '/api/test-fixture/awaiting')).status, 200);
});

test('deprecated operation: Deprecation, Sunset and Link on success and error answers', async () => {
  const t = await svc.token({ orgId: ORG });
  for (const [id, status] of [
    ['x', 200],
    ['missing', 404],
  ] as const) {
    const res = await svc.request({ method: 'GET', url: `/api/test-fixture/deprecated/${id}`, headers: { authorization: `Bearer ${t}` } });
    assert.equal(res.statusCode, status);
    assert.equal(res.headers.deprecation, `@${Date.parse('2026-11-01T00:00:00Z') / 1000}`);
    assert.equal(res.headers.sunset, 'Sat, 01 May 2027 23:59:59 GMT');
    assert.match(String(res.headers.link), /^<.+#deprecation>; rel="deprecation"; type="text\/html"$/);
  }
});
