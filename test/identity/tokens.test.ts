// Refresh rotation, reuse detection and logout: revoked sign-ins stop working at once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { json, type TestService } from '../helpers/service.ts';
import { auditEntries, bearer, claims, clockOf, secondInstance, signIn, startService, type Instance } from './support.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let other: Instance;
const DAY = 24 * 3600 * 1000;

before(async () => {
  svc = await startService();
  other = await secondInstance(svc);
  await svc.createOrg('acme');
  await svc.createOrg('beta');
  await svc.createUser('acme', 'admin@acme.example', 'ORG_ADMIN');
  await svc.createUser('acme', 'op@acme.example', 'OPERATOR');
  await svc.createUser('beta', 'admin@beta.example', 'ORG_ADMIN');
});
after(async () => {
  await other.stop();
  await svc.stop();
});

const refresh = (refresh_token: unknown, target: { request: TestService['request'] } = svc) =>
  target.request({ method: 'POST', url: '/api/auth/token/refresh', payload: { refresh_token } });
const me = (token: string, target: { request: TestService['request'] } = svc) => target.request({ method: 'GET', url: '/api/auth/me', headers: bearer(token) });
const logout = (token: string, refresh_token: string) =>
  svc.request({ method: 'POST', url: '/api/auth/logout', headers: bearer(token), payload: { refresh_token } });

test('refresh rotates: a new pair of the same sign-in; the presented refresh token is used up', async () => {
  const first = await signIn(svc, 'op@acme.example');
  const res = await refresh(first.refresh_token);
  assert.equal(res.statusCode, 200);
  const second = json(res);
  assert.notEqual(second.refresh_token, first.refresh_token);
  assert.equal(claims(second.access_token).sid, claims(first.access_token).sid);
  assert.deepEqual(second.roles, ['OPERATOR']);
  assert.equal((await me(second.access_token)).statusCode, 200);
  // The next rotation works from the new token.
  assert.equal((await refresh(second.refresh_token)).statusCode, 200);
});

test('reuse of a used refresh token revokes every token of that sign-in, and is audited', async () => {
  const first = await signIn(svc, 'op@acme.example');
  const unrelated = await signIn(svc, 'op@acme.example');
  const second = json(await refresh(first.refresh_token));
  assert.equal((await me(second.access_token)).statusCode, 200);

  const reused = await refresh(first.refresh_token);
  assert.equal(reused.statusCode, 401);
  assert.deepEqual(json(reused), { detail: 'Invalid or expired refresh token' });
  // Every descendant of that login is dead: the rotated refresh token and both access tokens.
  assertRefused(await refresh(second.refresh_token), 401, 'Invalid or expired refresh token');
  assert.deepEqual(json(await me(second.access_token)), { detail: 'Invalid or expired token' });
  assertRefused(await me(first.access_token), 401, 'Invalid or expired token');
  assertRefused(await me(second.access_token, other), 401, 'Invalid or expired token', 'on the other instance too');
  // Another sign-in of the same user is untouched.
  assert.equal((await me(unrelated.access_token)).statusCode, 200);
  assert.equal((await refresh(unrelated.refresh_token)).statusCode, 200);

  const admin = await signIn(svc, 'admin@acme.example');
  const reuse = await auditEntries(svc, admin.access_token, '&action=auth.token.reuse');
  assert.equal(reuse.length, 1);
  assert.equal(reuse[0].target_id, claims(first.access_token).sid);
});

test('logout revokes at once: its refresh token and access tokens stop working on every instance', async () => {
  const t = await signIn(svc, 'op@acme.example');
  // The other instance has seen the session as active (and may cache that).
  assert.equal((await me(t.access_token, other)).statusCode, 200);
  const res = await logout(t.access_token, t.refresh_token);
  assert.equal(res.statusCode, 200);
  assert.equal(json(res).status, 'ok');
  assert.equal(typeof json(res).message, 'string');
  assertRefused(await me(t.access_token), 401, 'Invalid or expired token');
  assertRefused(await me(t.access_token, other), 401, 'Invalid or expired token');
  assertRefused(await refresh(t.refresh_token), 401, 'Invalid or expired refresh token');
  assertRefused(await refresh(t.refresh_token, other), 401, 'Invalid or expired refresh token');
});

test('logout refusals: no bearer, someone else’s refresh token, not a refresh token', async () => {
  const mine = await signIn(svc, 'op@acme.example');
  const theirs = await signIn(svc, 'admin@beta.example');
  const noBearer = await svc.request({ method: 'POST', url: '/api/auth/logout', payload: { refresh_token: mine.refresh_token } });
  assert.deepEqual(json(noBearer), { detail: 'Authorization header missing' });
  assertRefused(await logout(mine.access_token, theirs.refresh_token), 401, 'Invalid or expired refresh token');
  assertRefused(await logout(mine.access_token, mine.access_token), 401, 'Invalid or expired refresh token');
  assertRefused(await logout(mine.access_token, 'garbage'), 401, 'Invalid or expired refresh token');
  // Their session is untouched.
  assert.equal((await me(theirs.access_token)).statusCode, 200);
  const missing = await svc.request({ method: 'POST', url: '/api/auth/logout', headers: bearer(mine.access_token), payload: {} });
  assertRefused(missing, 422, { fields: ['body.refresh_token'] });
});

test('refresh refusals: garbage, an access token, bad input, and a refresh token past 7 days', async () => {
  const t = await signIn(svc, 'op@acme.example');
  assertRefused(await refresh('not-a-token'), 401, 'Invalid or expired refresh token');
  assertRefused(await refresh(t.access_token), 401, 'Invalid or expired refresh token', 'an access token is not a refresh token');
  assertRefused(await refresh(42), 422, { fields: ['body.refresh_token'] });
  assertRefused(await svc.request({ method: 'POST', url: '/api/auth/token/refresh', payload: {} }), 422, { fields: ['body.refresh_token'] });
  clockOf(svc).advance(7 * DAY + 1000);
  assertRefused(await refresh(t.refresh_token), 401, 'Invalid or expired refresh token');
  assertRefused(await me(t.access_token), 401, 'Invalid or expired token', 'the access token expired long ago');
});

test('a removed membership ends the session at its next refresh', async () => {
  await svc.createUser('acme', 'leaver@acme.example', 'ANALYST');
  const t = await signIn(svc, 'leaver@acme.example');
  await svc.deps.db.query(`delete from memberships where org_id = 'acme' and user_id = $1`, [claims(t.access_token).sub]);
  assertRefused(await refresh(t.refresh_token), 401, 'Invalid or expired refresh token');
});
