// Site access: personas, per-site grants to members, the caller's own personas.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { json, type TestService } from '../helpers/service.ts';
import { auditEntries, bearer, claims, signIn, startService } from '../identity/support.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let admin: string;
let operator: string;
let viewer: string;
let viewerId: string;
let outsiderId: string;

before(async () => {
  svc = await startService();
  await svc.createOrg('acme');
  await svc.createOrg('beta');
  await svc.createUser('acme', 'admin@acme.example', 'ORG_ADMIN');
  await svc.createUser('acme', 'op@acme.example', 'OPERATOR');
  viewerId = (await svc.createUser('acme', 'viewer@acme.example', 'VIEWER')).id;
  outsiderId = (await svc.createUser('beta', 'outsider@beta.example', 'ORG_ADMIN')).id;
  admin = (await signIn(svc, 'admin@acme.example')).access_token;
  operator = (await signIn(svc, 'op@acme.example')).access_token;
  viewer = (await signIn(svc, 'viewer@acme.example')).access_token;
});
after(() => svc.stop());

const URL_ = '/api/hardware/ems/access/memberships';
const put = (token: string, payload: object) => svc.request({ method: 'PUT', url: URL_, headers: bearer(token), payload });
const get = (token: string, query = '') => svc.request({ method: 'GET', url: `${URL_}${query}`, headers: bearer(token) });
const del = (token: string, query: string) => svc.request({ method: 'DELETE', url: `${URL_}${query}`, headers: bearer(token) });

test('five personas, each with permissions, readable by every role', async () => {
  const res = await svc.request({ method: 'GET', url: '/api/hardware/ems/access/personas', headers: bearer(viewer) });
  assert.equal(res.statusCode, 200);
  const { personas, permissions } = json(res);
  assert.deepEqual(
    personas.map((p: any) => p.id),
    ['owner', 'energy_manager', 'installer', 'maintenance_contractor', 'viewer'],
  );
  const known = new Set(permissions.map((p: any) => p.id));
  for (const p of personas) {
    assert.ok(p.permissions.length > 0, p.id);
    for (const perm of p.permissions) assert.ok(known.has(perm), `${p.id}: ${perm}`);
  }
  assertRefused(await svc.request({ method: 'GET', url: '/api/hardware/ems/access/personas' }), 401, 'Authorization header missing');
});

test('an administrator grants a persona by user id or email, changes it, and the grant is listed and audited', async () => {
  const byId = await put(admin, { site_id: 'site-1', user_id: viewerId, persona: 'installer' });
  assert.equal(byId.statusCode, 200);
  assert.equal(json(byId).persona, 'installer');
  assert.ok(json(byId).permissions.includes('commissioning.perform'));
  const byEmail = await put(admin, { site_id: 'site-2', email: 'VIEWER@acme.example', persona: 'viewer' });
  assert.equal(json(byEmail).user_id, viewerId);
  const changed = await put(admin, { site_id: 'site-1', user_id: viewerId, persona: 'energy_manager' });
  assert.equal(json(changed).persona, 'energy_manager');

  const all = json(await get(operator)).memberships;
  assert.deepEqual(
    all.map((m: any) => `${m.site_id}:${m.email}:${m.persona}`),
    ['site-1:viewer@acme.example:energy_manager', 'site-2:viewer@acme.example:viewer'],
  );
  assert.equal(json(await get(admin, '?site_id=site-2')).memberships.length, 1);
  assert.equal(json(await get(admin, `?user_id=${viewerId}`)).memberships.length, 2);

  const entries = await auditEntries(svc, admin, '&action=access.membership.set');
  assert.equal(entries.length, 3);
  assert.equal(entries[0].details.previous_persona, 'installer');
});

test('GET /access/me lists the caller’s own personas per site', async () => {
  const mine = json(await svc.request({ method: 'GET', url: '/api/hardware/ems/access/me', headers: bearer(viewer) }));
  assert.equal(mine.user_id, claims(viewer).sub);
  assert.deepEqual(
    mine.sites.map((s: any) => [s.site_id, s.persona]),
    [
      ['site-1', 'energy_manager'],
      ['site-2', 'viewer'],
    ],
  );
  const none = json(await svc.request({ method: 'GET', url: '/api/hardware/ems/access/me', headers: bearer(operator) }));
  assert.deepEqual(none.sites, []);
});

test('refusals: wrong role 403, unknown persona 422, user_id and email both or neither 422, not a member 422', async () => {
  assert.deepEqual(json(await put(operator, { site_id: 's', user_id: viewerId, persona: 'viewer' })), {
    detail: 'Insufficient permissions',
  });
  assertRefused(await get(viewer), 403, 'Insufficient permissions');
  assertRefused(await del(operator, `?site_id=site-1&user_id=${viewerId}`), 403, 'Insufficient permissions');
  assertRefused(await put(admin, { site_id: 's', user_id: viewerId, persona: 'superuser' }), 422, { fields: ['body.persona'] });
  assertRefused(await put(admin, { site_id: 's', persona: 'viewer' }), 422, { fields: ['body.user_id'] });
  assertRefused(await put(admin, { site_id: 's', user_id: viewerId, email: 'viewer@acme.example', persona: 'viewer' }), 422, { fields: ['body.user_id'] });
  const outsider = await put(admin, { site_id: 's', user_id: outsiderId, persona: 'viewer' });
  assert.equal(outsider.statusCode, 422);
  assert.equal(json(outsider).detail[0].msg, 'Not a member of this organisation');
  const ghost = await put(admin, { site_id: 's', user_id: 'no-such-user', persona: 'viewer' });
  assert.deepEqual(json(ghost).detail[0].msg, json(outsider).detail[0].msg, 'another organisation’s user looks like nobody');
  assertRefused(await put(admin, { site_id: 's', email: 'outsider@beta.example', persona: 'viewer' }), 422, { fields: ['body.email'] });
  assertRefused(await del(admin, '?site_id=site-1'), 422, { fields: ['query.user_id'] });
});

test('DELETE removes a grant; removing it again is 404', async () => {
  assert.equal((await del(admin, `?site_id=site-2&user_id=${viewerId}`)).statusCode, 204);
  assertRefused(await del(admin, `?site_id=site-2&user_id=${viewerId}`), 404, 'Not Found');
  assert.equal(json(await get(admin, '?site_id=site-2')).memberships.length, 0);
  const removed = await auditEntries(svc, admin, '&action=access.membership.remove');
  assert.equal(removed.length, 1);
});
