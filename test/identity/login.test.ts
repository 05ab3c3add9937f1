// POST /api/auth/login and GET /api/auth/me: tokens, organisations, refusals.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { json, type TestService } from '../helpers/service.ts';
import { createProvisioning } from '../../src/cli/provisioning.ts';
import { auditEntries, bearer, claims, login, PASSWORD, signIn, startService } from './support.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;

before(async () => {
  svc = await startService();
  await svc.createOrg('acme');
  await svc.createOrg('beta');
  await svc.createUser('acme', 'admin@acme.example', 'ORG_ADMIN');
  await svc.createUser('acme', 'viewer@acme.example', 'VIEWER');
  await svc.createUser('acme', 'multi@acme.example', 'OPERATOR');
  await svc.createUser('beta', 'multi@acme.example', 'ANALYST');
  await createProvisioning(svc.deps.db).createUser({
    orgId: 'acme',
    email: 'staff@platform.example',
    password: PASSWORD,
    role: 'VIEWER',
    staff: true,
    admin: true,
  });
});
after(() => svc.stop());

test('login answers an access token with the spec claims and a 7-day refresh token', async () => {
  const r = await login(svc, 'admin@acme.example');
  assert.equal(r.status, 200);
  const b = r.body;
  assert.equal(b.token_type, 'bearer');
  assert.equal(b.expires_in, 3600);
  assert.equal(b.refresh_expires_in, 7 * 24 * 3600);
  assert.equal(b.organisation_id, 'acme');
  assert.deepEqual(b.roles, ['ORG_ADMIN']);
  const c = claims(b.access_token);
  assert.equal(c.tenant_id, 'acme');
  assert.equal(c.org_id, 'acme');
  assert.deepEqual(c.roles, ['ORG_ADMIN']);
  assert.equal(c.exp - c.iat, 3600);
  assert.ok(c.sub && c.jti && c.sid);
  assert.equal(c.platform_staff, undefined);
  const rc = claims(b.refresh_token);
  assert.equal(rc.exp - rc.iat, 7 * 24 * 3600);
  assert.equal(rc.sid, c.sid);
  // The token works on a protected operation.
  const me = await svc.request({ method: 'GET', url: '/api/auth/me', headers: bearer(b.access_token) });
  assert.equal(me.statusCode, 200);
});

test('platform staff and administrator flags are carried on the token and in /me', async () => {
  const t = await signIn(svc, 'staff@platform.example');
  const c = claims(t.access_token);
  assert.equal(c.platform_staff, true);
  assert.equal(c.platform_admin, true);
  const me = json(await svc.request({ method: 'GET', url: '/api/auth/me', headers: bearer(t.access_token) }));
  assert.equal(me.platform_staff, true);
  assert.equal(me.platform_admin, true);
});

test('a wrong password and an unknown email get the same 401', async () => {
  const wrong = await login(svc, 'viewer@acme.example', 'not-the-password');
  const unknown = await login(svc, 'nobody@acme.example', 'not-the-password');
  assert.equal(wrong.status, 401);
  assert.deepEqual(wrong.body, { detail: 'Invalid email or password' });
  assert.equal(unknown.status, wrong.status);
  assert.deepEqual(unknown.body, wrong.body);
  // Email case does not matter for the account.
  assert.equal((await login(svc, 'VIEWER@ACME.example')).status, 200);
});

test('bad input is 422 and the password is never echoed', async () => {
  const res = await svc.request({ method: 'POST', url: '/api/auth/login', payload: { email: 'not-an-email', password: 'secret-value' } });
  assert.equal(res.statusCode, 422);
  assert.ok(!res.body.includes('secret-value'));
  const missing = await svc.request({ method: 'POST', url: '/api/auth/login', payload: { email: 'a@b.co' } });
  assert.equal(missing.statusCode, 422);
  assert.deepEqual(json(missing).detail[0].loc, ['body', 'password']);
});

test('several organisations: organisation_id is required (422) and chooses the token organisation', async () => {
  const none = await login(svc, 'multi@acme.example');
  assert.equal(none.status, 422);
  assert.deepEqual(none.body.detail[0].loc, ['body', 'organisation_id']);
  assert.match(none.body.detail[0].msg, /several organisations/);

  const beta = await login(svc, 'multi@acme.example', PASSWORD, 'beta');
  assert.equal(beta.status, 200);
  assert.equal(claims(beta.body.access_token).org_id, 'beta');
  assert.deepEqual(beta.body.roles, ['ANALYST']);

  const me = json(await svc.request({ method: 'GET', url: '/api/auth/me', headers: bearer(beta.body.access_token) }));
  assert.equal(me.organisation_id, 'beta');
  assert.deepEqual(me.roles, ['ANALYST']);
  assert.deepEqual(
    me.memberships.map((m: any) => [m.organisation_id, m.role]),
    [
      ['acme', 'OPERATOR'],
      ['beta', 'ANALYST'],
    ],
  );

  const notMember = await login(svc, 'viewer@acme.example', PASSWORD, 'beta');
  assert.equal(notMember.status, 403);
  assert.equal(notMember.body.detail, 'Not a member of this organisation');
});

test('GET /api/auth/me: identity context; no or bad token is 401', async () => {
  const t = await signIn(svc, 'viewer@acme.example');
  const me = json(await svc.request({ method: 'GET', url: '/api/auth/me', headers: bearer(t.access_token) }));
  assert.equal(me.email, 'viewer@acme.example');
  assert.equal(me.organisation_id, 'acme');
  assert.equal(me.organisation_name, 'Org acme');
  assert.deepEqual(me.roles, ['VIEWER']);
  assert.equal(me.auth_method, 'password');
  assert.equal(me.session_id, claims(t.access_token).sid);
  assertRefused(await svc.request({ method: 'GET', url: '/api/auth/me' }), 401, 'Authorization header missing');
  const bad = await svc.request({ method: 'GET', url: '/api/auth/me', headers: bearer(t.refresh_token) });
  assert.deepEqual(json(bad), { detail: 'Invalid or expired token' }, 'a refresh token is not an access token');
});

test('sign-ins and failed sign-ins are audited in the organisation', async () => {
  const admin = await signIn(svc, 'admin@acme.example');
  await login(svc, 'viewer@acme.example', 'wrong-password-here');
  const entries = await auditEntries(svc, admin.access_token);
  const viewerId = claims((await signIn(svc, 'viewer@acme.example')).access_token).sub;
  assert.ok(entries.some((e) => e.action === 'auth.login' && e.actor_id === claims(admin.access_token).sub));
  const failed = entries.find((e) => e.action === 'auth.login.failed' && e.actor_id === viewerId);
  assert.ok(failed);
  assert.equal(failed.details.reason, 'bad_password');
  assert.ok(!JSON.stringify(entries).includes('wrong-password-here'), 'no password in the log');
});
