// Lockout (5 consecutive failures lock 15 minutes, 423) and the shared authentication limit.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { auditEntries, clockOf, login, PASSWORD, secondInstance, signIn, startService, type Instance } from './support.ts';
import { assertRefused } from '../helpers/refusal.ts';

const LOCKED = { detail: 'Account locked. Try again later.' };
const MINUTE = 60_000;

let svc: TestService;
let other: Instance;

before(async () => {
  svc = await startService();
  other = await secondInstance(svc);
  await svc.createOrg('acme');
  for (const name of ['lock', 'reset', 'shared', 'admin']) {
    await svc.createUser('acme', `${name}@acme.example`, name === 'admin' ? 'ORG_ADMIN' : 'OPERATOR');
  }
});
after(async () => {
  await other.stop();
  await svc.stop();
});

test('5 consecutive failures lock the account 15 minutes, whatever the password; then it opens again', async () => {
  for (let i = 1; i <= 5; i++) {
    const r = await login(svc, 'lock@acme.example', `wrong-${i}`);
    assertRefused(r, 401, 'Invalid email or password', `attempt ${i}`);
  }
  const locked = await login(svc, 'lock@acme.example', PASSWORD);
  assert.equal(locked.status, 423);
  assert.deepEqual(locked.body, LOCKED);
  clockOf(svc).advance(14 * MINUTE);
  assertRefused(await login(svc, 'lock@acme.example', PASSWORD), 423, 'Account locked. Try again later.', 'still locked at 14 minutes');
  clockOf(svc).advance(MINUTE + 1000);
  assert.equal((await login(svc, 'lock@acme.example', PASSWORD)).status, 200, 'open after 15 minutes');

  const admin = await signIn(svc, 'admin@acme.example');
  const lockouts = (await auditEntries(svc, admin.access_token, '&action=auth.lockout')).filter((e) => e.target_id);
  assert.equal(lockouts.length, 1, 'the lockout is audited once');
});

test('a success resets the count of consecutive failures', async () => {
  for (let i = 0; i < 4; i++) assertRefused(await login(svc, 'reset@acme.example', 'wrong'), 401, 'Invalid email or password');
  assert.equal((await login(svc, 'reset@acme.example')).status, 200);
  for (let i = 0; i < 4; i++) assertRefused(await login(svc, 'reset@acme.example', 'wrong'), 401, 'Invalid email or password');
  assert.equal((await login(svc, 'reset@acme.example')).status, 200, 'four failures after a success do not lock');
});

test('an unknown email is locked exactly like a real account', async () => {
  const answers = [];
  for (let i = 0; i < 6; i++) answers.push(await login(svc, 'ghost@acme.example', 'whatever'));
  assert.deepEqual(
    answers.map((a) => a.status),
    [401, 401, 401, 401, 401, 423],
  );
  assert.deepEqual(answers[5].body, LOCKED);
});

test('the lockout holds across two instances sharing the store', async () => {
  for (let i = 0; i < 3; i++) assertRefused(await login(svc, 'shared@acme.example', 'wrong'), 401, 'Invalid email or password');
  for (let i = 0; i < 2; i++) assertRefused(await login(other, 'shared@acme.example', 'wrong'), 401, 'Invalid email or password');
  const r = await login(svc, 'shared@acme.example', PASSWORD);
  assertRefused(r, 423, 'Account locked. Try again later.');
  assertRefused(await login(other, 'shared@acme.example', PASSWORD), 423, 'Account locked. Try again later.');
});

test('the authentication limit: 429 with Retry-After before the password is checked, not counted toward lockout', async () => {
  const limited = await startTestService({ env: { RATE_LIMIT_USER_PER_MIN: '100000' } });
  try {
    await limited.createOrg('acme');
    await limited.createUser('acme', 'user@acme.example', 'VIEWER');
    clockOf(limited).set(Math.ceil(limited.clock.now().getTime() / MINUTE) * MINUTE + 1000); // start of a window
    for (let i = 0; i < 4; i++) assertRefused(await login(limited, 'user@acme.example', 'wrong'), 401, 'Invalid email or password');
    // The fifth request in the minute is allowed (another auth endpoint shares the count), the sixth is refused.
    const refresh = await limited.request({ method: 'POST', url: '/api/auth/token/refresh', payload: { refresh_token: 'x' } });
    assertRefused(refresh, 401, 'Invalid or expired refresh token');
    for (let i = 0; i < 3; i++) {
      const r = await login(limited, 'user@acme.example', 'wrong');
      assertRefused(r, 429, 'Rate limit exceeded');
      assert.ok(Number(r.res.headers['retry-after']) >= 1);
    }
    clockOf(limited).advance(MINUTE);
    // Only four failures counted: the right password still gets in.
    assert.equal((await login(limited, 'user@acme.example')).status, 200);
  } finally {
    await limited.stop();
  }
});
