// Invitations: created by an organisation administrator, accepted once with the token.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { json, type TestService } from '../helpers/service.ts';
import { auditEntries, bearer, claims, clockOf, login, PASSWORD, signIn, startService } from './support.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let admin: string;
let operator: string;
const DAY = 24 * 3600 * 1000;

before(async () => {
  svc = await startService();
  await svc.createOrg('acme');
  await svc.createOrg('beta');
  await svc.createUser('acme', 'admin@acme.example', 'ORG_ADMIN');
  await svc.createUser('acme', 'op@acme.example', 'OPERATOR');
  await svc.createUser('beta', 'member@beta.example', 'VIEWER');
  admin = (await signIn(svc, 'admin@acme.example')).access_token;
  operator = (await signIn(svc, 'op@acme.example')).access_token;
});
after(() => svc.stop());

const invite = (token: string, payload: object) => svc.request({ method: 'POST', url: '/api/auth/invitations', headers: bearer(token), payload });
const accept = (payload: object) => svc.request({ method: 'POST', url: '/api/auth/invitations/accept', payload });
const list = async (token = admin) => json(await svc.request({ method: 'GET', url: '/api/auth/invitations', headers: bearer(token) })).invitations as any[];

test('an administrator invites; the token is shown once; a new invitee sets a password and is signed in', async () => {
  const res = await invite(admin, { email: 'new@acme.example', role: 'ANALYST' });
  assert.equal(res.statusCode, 201);
  const inv = json(res);
  assert.equal(inv.status, 'pending');
  assert.equal(inv.role, 'ANALYST');
  assert.match(inv.token, /^inv_/);
  assert.equal(Date.parse(inv.expires_at) - Date.parse(inv.created_at), 7 * DAY);
  const listed = (await list()).find((i) => i.id === inv.id);
  assert.equal(listed.status, 'pending');
  assert.equal(listed.token, undefined, 'never shown again');

  const acc = await accept({ token: inv.token, password: 'a-brand-new-password' });
  assert.equal(acc.statusCode, 200);
  const tokens = json(acc);
  assert.deepEqual(tokens.roles, ['ANALYST']);
  assert.equal(claims(tokens.access_token).org_id, 'acme');
  const me = json(await svc.request({ method: 'GET', url: '/api/auth/me', headers: bearer(tokens.access_token) }));
  assert.equal(me.email, 'new@acme.example');
  assert.equal(me.auth_method, 'invitation');
  // Single use; the new password signs in.
  assert.deepEqual(json(await accept({ token: inv.token, password: 'a-brand-new-password' })), {
    detail: 'Invalid or expired invitation',
  });
  assert.equal((await login(svc, 'new@acme.example', 'a-brand-new-password')).status, 200);
  assert.equal((await list()).find((i) => i.id === inv.id).status, 'accepted');
  const actions = (await auditEntries(svc, admin)).map((e) => e.action);
  assert.ok(actions.includes('auth.invitation.create') && actions.includes('auth.invitation.accept'));
});

test('someone with an account proves it with their password (under the lockout rules) and joins', async () => {
  const inv = json(await invite(admin, { email: 'member@beta.example', role: 'VIEWER' }));
  const wrong = await accept({ token: inv.token, password: 'not-their-password' });
  assert.equal(wrong.statusCode, 401);
  assert.deepEqual(json(wrong), { detail: 'Invalid email or password' });
  const ok = await accept({ token: inv.token, password: PASSWORD });
  assert.equal(ok.statusCode, 200);
  assert.equal(claims(json(ok).access_token).org_id, 'acme');
  const orgs = json(await svc.request({ method: 'GET', url: '/api/auth/me', headers: bearer(json(ok).access_token) })).memberships;
  assert.deepEqual(
    orgs.map((m: any) => m.organisation_id),
    ['acme', 'beta'],
  );
});

test('a new account needs a password of at least 12 characters', async () => {
  const inv = json(await invite(admin, { email: 'short@acme.example', role: 'VIEWER' }));
  const res = await accept({ token: inv.token, password: 'short' });
  assert.equal(res.statusCode, 422);
  assert.deepEqual(json(res).detail[0].loc, ['body', 'password']);
  assert.equal(json(res).detail[0].input, '[redacted]');
  assert.equal((await list()).find((i) => i.id === inv.id).status, 'pending', 'still usable');
});

test('refusals: non-administrator 403, bad input 422, already a member or already invited 409', async () => {
  assert.deepEqual(json(await invite(operator, { email: 'x@acme.example', role: 'VIEWER' })), { detail: 'Insufficient permissions' });
  assertRefused(await svc.request({ method: 'GET', url: '/api/auth/invitations', headers: bearer(operator) }), 403, 'Insufficient permissions');
  assertRefused(await invite(admin, { email: 'not-an-email', role: 'VIEWER' }), 422, { fields: ['body.email'] });
  assertRefused(await invite(admin, { email: 'x@acme.example', role: 'SUPERUSER' }), 422, { fields: ['body.role'] });
  assertRefused(await invite(admin, { email: 'OP@acme.example', role: 'VIEWER' }), 409, 'Already a member of this organisation');
  assert.equal((await invite(admin, { email: 'twice@acme.example', role: 'VIEWER' })).statusCode, 201);
  const again = await invite(admin, { email: 'twice@acme.example', role: 'ANALYST' });
  assert.equal(again.statusCode, 409);
  assert.equal(json(again).detail, 'An invitation for this email is already pending');
  assertRefused(await accept({ token: 'inv_unknown', password: 'whatever-password' }), 401, 'Invalid or expired invitation');
  assertRefused(await accept({ token: 'inv_x' }), 422, { fields: ['body.password'] });
});

test('revoke: the token stops working; revoking an accepted one is 409; unknown is 404', async () => {
  const inv = json(await invite(admin, { email: 'revoked@acme.example', role: 'VIEWER' }));
  const del = (id: string, token = admin) => svc.request({ method: 'DELETE', url: `/api/auth/invitations/${id}`, headers: bearer(token) });
  assertRefused(await del(inv.id, operator), 403, 'Insufficient permissions');
  assert.equal((await del(inv.id)).statusCode, 204);
  assertRefused(await accept({ token: inv.token, password: 'a-brand-new-password' }), 401, 'Invalid or expired invitation');
  assert.equal((await list()).find((i) => i.id === inv.id).status, 'revoked');
  assertRefused(await del('no-such-invitation'), 404, 'Not Found');

  const used = json(await invite(admin, { email: 'used@acme.example', role: 'VIEWER' }));
  await accept({ token: used.token, password: 'a-brand-new-password' });
  assertRefused(await del(used.id), 409, 'Invitation already accepted');
});

test('an invitation expires after 7 days', async () => {
  const inv = json(await invite(admin, { email: 'late@acme.example', role: 'VIEWER' }));
  clockOf(svc).advance(7 * DAY + 1000);
  assertRefused(await accept({ token: inv.token, password: 'a-brand-new-password' }), 401, 'Invalid or expired invitation');
  const fresh = (await signIn(svc, 'admin@acme.example')).access_token;
  assert.equal((await list(fresh)).find((i) => i.id === inv.id).status, 'expired');
  // A new invitation for the same email can be made once the old one has expired.
  assert.equal((await invite(fresh, { email: 'late@acme.example', role: 'VIEWER' })).statusCode, 201);
});
