// Tenant isolation: no identity, access or audit operation reads or changes another
// organisation's data. Organisation beta has one of everything; acme's administrator tries it all.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { json, type TestService } from '../helpers/service.ts';
import { bearer, signIn, startService } from './support.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let acme: string;
let beta: { access_token: string; refresh_token: string };
let betaUserId: string;
let betaInvitationId: string;
let betaMappingId: string;

before(async () => {
  svc = await startService();
  await svc.createOrg('acme');
  await svc.createOrg('beta');
  await svc.createUser('acme', 'admin@acme.example', 'ORG_ADMIN');
  await svc.createUser('beta', 'admin@beta.example', 'ORG_ADMIN');
  betaUserId = (await svc.createUser('beta', 'member@beta.example', 'VIEWER')).id;
  acme = (await signIn(svc, 'admin@acme.example')).access_token;
  beta = await signIn(svc, 'admin@beta.example');
  const b = bearer(beta.access_token);
  betaInvitationId = json(
    await svc.request({ method: 'POST', url: '/api/auth/invitations', headers: b, payload: { email: 'new@beta.example', role: 'VIEWER' } }),
  ).id;
  await svc.request({
    method: 'PUT',
    url: '/api/auth/sso/idp/provider',
    headers: b,
    payload: { tid: 'beta-tid', issuer: 'https://idp.example/beta', application_id: 'beta-app', jwks_url: 'http://127.0.0.1:9/keys' },
  });
  betaMappingId = json(
    await svc.request({ method: 'POST', url: '/api/auth/sso/idp/mappings', headers: b, payload: { group_id: 'beta-group', role: 'VIEWER' } }),
  ).id;
  await svc.request({
    method: 'PUT',
    url: '/api/hardware/ems/access/memberships',
    headers: b,
    payload: { site_id: 'beta-site', user_id: betaUserId, persona: 'owner' },
  });
});
after(() => svc.stop());

const asAcme = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  svc.request({ method, url, headers: bearer(acme), ...(payload && { payload }) });

test('reads show nothing of the other organisation', async () => {
  assert.deepEqual(json(await asAcme('GET', '/api/auth/invitations')).invitations, []);
  assert.equal(json(await asAcme('GET', '/api/auth/sso/idp/provider')).configured, false);
  assert.deepEqual(json(await asAcme('GET', '/api/auth/sso/idp/mappings')).mappings, []);
  assert.deepEqual(json(await asAcme('GET', '/api/hardware/ems/access/memberships')).memberships, []);
  assert.deepEqual(json(await asAcme('GET', `/api/hardware/ems/access/memberships?user_id=${betaUserId}`)).memberships, []);
  const me = json(await asAcme('GET', '/api/auth/me'));
  assert.deepEqual(
    me.memberships.map((m: any) => m.organisation_id),
    ['acme'],
  );

  const log = json(await asAcme('GET', '/api/hardware/admin/audit-log?limit=200')).entries;
  assert.ok(log.length > 0);
  const text = JSON.stringify(log);
  for (const leak of ['beta', betaUserId, betaInvitationId, betaMappingId]) assert.ok(!text.includes(leak), leak);
  const csv = (await asAcme('GET', '/api/hardware/admin/audit-log/export.csv')).body;
  for (const leak of ['beta', betaUserId, betaInvitationId]) assert.ok(!csv.includes(leak), leak);
  const actions = json(await asAcme('GET', '/api/hardware/admin/audit-log/actions')).actions;
  assert.equal(actions.find((a: any) => a.action === 'auth.invitation.create').count, 0);
  assert.equal(actions.find((a: any) => a.action === 'auth.sso.mapping.create').count, 0);
});

test('writes cannot reach the other organisation’s rows', async () => {
  assertRefused(await asAcme('DELETE', `/api/auth/invitations/${betaInvitationId}`), 404, 'Not Found');
  assertRefused(await asAcme('DELETE', `/api/auth/sso/idp/mappings/${betaMappingId}`), 404, 'Not Found');
  assertRefused(await asAcme('DELETE', `/api/hardware/ems/access/memberships?site_id=beta-site&user_id=${betaUserId}`), 404, 'Not Found');
  const grant = await asAcme('PUT', '/api/hardware/ems/access/memberships', { site_id: 'beta-site', user_id: betaUserId, persona: 'viewer' });
  assertRefused(grant, 422, { fields: ['body.user_id'] });
  const byEmail = await asAcme('PUT', '/api/hardware/ems/access/memberships', { site_id: 's', email: 'member@beta.example', persona: 'viewer' });
  assertRefused(byEmail, 422, { fields: ['body.email'] });
  // Naming beta's provider tenant makes only a pending claim of acme's own (decision 0029): the
  // answer says nothing of beta, and beta's configuration is untouched (checked below).
  const tid = await asAcme('PUT', '/api/auth/sso/idp/provider', {
    tid: 'beta-tid',
    issuer: 'https://idp.example/acme',
    application_id: 'acme-app',
    jwks_url: 'http://127.0.0.1:9/keys',
  });
  assert.equal(tid.statusCode, 200, tid.body);
  assert.equal(json(tid).verification, 'pending');
  assert.ok(!tid.body.includes('beta-app'));
  // Logging out beta's session with acme's token is refused.
  const out = await asAcme('POST', '/api/auth/logout', { refresh_token: beta.refresh_token });
  assertRefused(out, 401, 'Invalid or expired refresh token');

  // Beta's data is intact.
  const b = bearer(beta.access_token);
  assert.equal(json(await svc.request({ method: 'GET', url: '/api/auth/invitations', headers: b })).invitations[0].status, 'pending');
  assert.equal(json(await svc.request({ method: 'GET', url: '/api/auth/sso/idp/mappings', headers: b })).mappings.length, 1);
  const provider = json(await svc.request({ method: 'GET', url: '/api/auth/sso/idp/provider', headers: b }));
  assert.equal(provider.application_id, 'beta-app');
  const grants = json(await svc.request({ method: 'GET', url: '/api/hardware/ems/access/memberships', headers: b })).memberships;
  assert.deepEqual(
    grants.map((g: any) => g.persona),
    ['owner'],
  );
  assert.equal((await svc.request({ method: 'GET', url: '/api/auth/me', headers: b })).statusCode, 200);
});

test('the organisation comes from the token: a tenant header naming another organisation is 403', async () => {
  const res = await svc.request({
    method: 'GET',
    url: '/api/hardware/admin/audit-log',
    headers: { ...bearer(acme), 'x-tenant-id': 'beta' },
  });
  assert.deepEqual(json(res), { detail: 'Tenant mismatch' });
});
