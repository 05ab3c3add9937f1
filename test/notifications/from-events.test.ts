// Notifications made from other modules' events, through HTTP: an accepted invitation tells its
// inviter; an API key entering its 14-day expiry warning tells the organisation's administrators
// (and nobody else, and nobody in another organisation); a kind switched off is not sent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { json, type TestService } from '../helpers/service.ts';
import { bearer, signIn, startService } from '../identity/support.ts';

let svc: TestService;
let admin: string;
let admin2: string;
let operator: string;
let betaAdmin: string;
const DAY = 24 * 3600 * 1000;

before(async () => {
  svc = await startService();
  await svc.createOrg('acme');
  await svc.createOrg('beta');
  await svc.createUser('acme', 'admin@acme.example', 'ORG_ADMIN');
  await svc.createUser('acme', 'second@acme.example', 'ORG_ADMIN');
  await svc.createUser('acme', 'op@acme.example', 'OPERATOR');
  await svc.createUser('beta', 'admin@beta.example', 'ORG_ADMIN');
  admin = (await signIn(svc, 'admin@acme.example')).access_token;
  admin2 = (await signIn(svc, 'second@acme.example')).access_token;
  operator = (await signIn(svc, 'op@acme.example')).access_token;
  betaAdmin = (await signIn(svc, 'admin@beta.example')).access_token;
});
after(() => svc.stop());

const inbox = async (token: string, kind: string) =>
  json(await svc.request({ method: 'GET', url: `/api/notifications/?kind=${kind}`, headers: bearer(token) })).notifications as {
    title: string;
    kind: string;
    data: Record<string, unknown>;
  }[];

test('an accepted invitation tells its inviter, once, and nobody else', async () => {
  const inv = json(
    await svc.request({ method: 'POST', url: '/api/auth/invitations', headers: bearer(admin), payload: { email: 'new@acme.example', role: 'ANALYST' } }),
  );
  const acc = await svc.request({ method: 'POST', url: '/api/auth/invitations/accept', payload: { token: inv.token, password: 'a-brand-new-password' } });
  assert.equal(acc.statusCode, 200, acc.body);
  assert.deepEqual(await inbox(admin, 'invitation_accepted'), [], 'delivered by the job queue, not in the request');
  await svc.runDue();
  const mine = await inbox(admin, 'invitation_accepted');
  assert.equal(mine.length, 1);
  assert.equal(mine[0].title, 'new@acme.example accepted your invitation and joined as ANALYST');
  assert.equal(mine[0].data.invitation_id, inv.id);
  await svc.runDue();
  assert.equal((await inbox(admin, 'invitation_accepted')).length, 1, 'not twice');
  assert.deepEqual(await inbox(admin2, 'invitation_accepted'), [], 'another administrator did not invite');
});

test("an API key entering its expiry warning tells each of the organisation's administrators, not operators or other organisations", async () => {
  // admin2 does not want these.
  const off = await svc.request({
    method: 'PUT',
    url: '/api/notifications/preferences',
    headers: bearer(admin2),
    payload: { kinds: { api_key_expiring: false } },
  });
  assert.equal(off.statusCode, 200, off.body);
  const expires = new Date(svc.clock.now().getTime() + 5 * DAY).toISOString();
  const key = await svc.request({
    method: 'POST',
    url: '/api/devtools/apikeys',
    headers: bearer(admin),
    payload: { name: 'billing', scopes: ['telemetry:read'], expires_at: expires },
  });
  assert.equal(key.statusCode, 201, key.body);
  await svc.runDue();
  const mine = await inbox(admin, 'api_key_expiring');
  assert.equal(mine.length, 1);
  assert.match(mine[0].title, /^API key "billing" expires on \d{4}-\d{2}-\d{2}; rotate it$/);
  assert.equal(mine[0].data.key_id, json(key).id);
  assert.deepEqual(await inbox(admin2, 'api_key_expiring'), [], 'switched off in the preferences');
  assert.deepEqual(await inbox(operator, 'api_key_expiring'), [], 'administrators only');
  assert.deepEqual(await inbox(betaAdmin, 'api_key_expiring'), [], 'another organisation hears nothing');
});
