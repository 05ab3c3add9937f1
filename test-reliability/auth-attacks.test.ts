// T-22/T-23: authentication attacks. Credential spraying across accounts and source addresses
// meets the per-IP limit and locks nobody; an unknown account is indistinguishable from a wrong
// password; the stored hash names its KDF; refresh rotation and reuse detection hold over random
// sequences (a model of the allowlist checked against the real API).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { startTestService, json, type TestService } from '../test/helpers/service.ts';
import { hashPassword } from '../src/modules/identity/password.ts';
import { createUserStore } from '../src/modules/identity/users-store.ts';
import type { ManualClock } from '../src/platform/clock.ts';
import { assertRefused } from '../test/helpers/refusal.ts';

const ORG = 'spray-org';
const PASSWORD = 'the-right-password-1';

describe('credential spraying from many source addresses', () => {
  let svc: TestService;
  const accounts: string[] = [];
  before(async () => {
    svc = await startTestService();
    await svc.createOrg(ORG);
    // One hash for all accounts keeps the setup fast; each account is a real user and membership.
    const hash = await hashPassword(PASSWORD);
    const users = createUserStore(svc.deps.db);
    for (let i = 0; i < 200; i++) {
      const u = await users.create({ email: `user${i}@spray.example`, passwordHash: hash });
      await users.setMembership(u.id, ORG, 'VIEWER');
      accounts.push(`user${i}@spray.example`);
    }
  });
  after(() => svc?.stop());

  test('one password over 200 accounts from 40 addresses trips the per-IP limits and locks no account', async () => {
    const statuses: Record<number, number> = {};
    // The 200 sign-ins take tens of seconds of real time while the test clock stands still; Redis
    // expires a window's counter at its end in real time. Put the window an hour ahead, so a real
    // Redis keeps the counters for the whole test.
    (svc.clock as ManualClock).set(Math.floor((Date.now() + 3_600_000) / 60_000) * 60_000 + 1_000);
    for (let i = 0; i < accounts.length; i++) {
      const ip = `127.0.0.${2 + (i % 40)}`;
      const res = await svc.request({ method: 'POST', url: '/api/auth/login', remoteAddress: ip, payload: { email: accounts[i], password: 'Summer2026!' } });
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      if (res.statusCode === 429) assert.ok(Number(res.headers['retry-after']) >= 1);
    }
    // 40 addresses x 5 per minute: every one of the 200 attempts is within its address's limit.
    assert.equal(statuses[401], 200, JSON.stringify(statuses));
    // A sixth attempt from one address inside the minute is limited before the password is checked.
    const sixth = await svc.request({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: '127.0.0.2',
      payload: { email: accounts[0], password: PASSWORD },
    });
    assertRefused(sixth, 429, 'Rate limit exceeded');
    // Nobody was locked: after the window, the right password works for every account tried.
    (svc.clock as ManualClock).advance(61_000);
    for (const [i, email] of accounts.slice(0, 10).entries()) {
      const res = await svc.request({ method: 'POST', url: '/api/auth/login', remoteAddress: `127.0.1.${i + 1}`, payload: { email, password: PASSWORD } });
      assert.equal(res.statusCode, 200, `${email}: ${res.body}`);
    }
  });

  test('an unknown account and a wrong password get the same status and body', async () => {
    (svc.clock as ManualClock).advance(61_000);
    const times: Record<string, number[]> = { unknown: [], wrong: [] };
    for (let i = 0; i < 8; i++) {
      const t0 = performance.now();
      const a = await svc.request({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: `127.0.2.${i + 1}`,
        payload: { email: `nobody${i}@spray.example`, password: 'x-password-x' },
      });
      times.unknown.push(performance.now() - t0);
      const t1 = performance.now();
      const b = await svc.request({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: `127.0.3.${i + 1}`,
        payload: { email: accounts[100 + i], password: 'x-password-x' },
      });
      times.wrong.push(performance.now() - t1);
      assert.equal(a.statusCode, b.statusCode);
      assert.deepEqual(json(a), json(b));
    }
    const median = (v: number[]) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)];
    console.log(`login timing medians: unknown ${median(times.unknown).toFixed(0)} ms, wrong password ${median(times.wrong).toFixed(0)} ms`);
  });

  test('the stored hash names its KDF and parameters (scrypt N=2^15, r=8, p=3)', async () => {
    const u = await createUserStore(svc.deps.db).byEmail(accounts[0]);
    assert.match(u!.password_hash!, /^scrypt\$32768\$8\$3\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
  });
});

describe('refresh rotation and reuse: a model against the real API', () => {
  let svc: TestService;
  before(async () => {
    // Not about limits: the model uses revoked tokens (401s) far more than 20 times a minute.
    svc = await startTestService({ env: { RATE_LIMIT_AUTH_PER_MIN: '1000000', RATE_LIMIT_USER_PER_MIN: '1000000', RATE_LIMIT_ANON_PER_MIN: '1000000' } });
    await svc.createOrg(ORG);
    await svc.createUser(ORG, 'model@spray.example', 'OPERATOR', PASSWORD);
  });
  after(() => svc?.stop());

  test('random sequences of refresh, replay, logout and use match the allowlist model', async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('refresh' as const), which: fc.nat(5) }),
      fc.record({ kind: fc.constant('use' as const), which: fc.nat(5) }),
      fc.record({ kind: fc.constant('logout' as const), which: fc.nat(5) }),
    );
    const runs = fc.sample(fc.array(step, { minLength: 3, maxLength: 10 }), { numRuns: Number(process.env.REFRESH_RUNS ?? 25), seed: 11 });
    for (const steps of runs) {
      const login = json(await svc.request({ method: 'POST', url: '/api/auth/login', payload: { email: 'model@spray.example', password: PASSWORD } }));
      // Model: every refresh token ever issued in this family, the live one, and whether the family is revoked.
      const refreshTokens: string[] = [login.refresh_token];
      const accessTokens: string[] = [login.access_token];
      let live = 0;
      let revoked = false;
      for (const s of steps) {
        const i = Math.min(s.which, refreshTokens.length - 1);
        if (s.kind === 'refresh') {
          const res = await svc.request({ method: 'POST', url: '/api/auth/token/refresh', payload: { refresh_token: refreshTokens[i] } });
          if (!revoked && i === live) {
            assert.equal(res.statusCode, 200, 'the live refresh token rotates');
            const body = json(res);
            refreshTokens.push(body.refresh_token);
            accessTokens.push(body.access_token);
            live = refreshTokens.length - 1;
          } else {
            assert.equal(res.statusCode, 401, 'a used or revoked refresh token is refused');
            revoked = true; // reuse revokes the whole family
          }
        } else if (s.kind === 'logout') {
          const res = await svc.request({
            method: 'POST',
            url: '/api/auth/logout',
            headers: { authorization: `Bearer ${accessTokens[accessTokens.length - 1]}` },
            payload: { refresh_token: refreshTokens[i] },
          });
          // Any refresh token of the caller's own live sign-in ends it (the safe direction);
          // once the sign-in is revoked its access token is refused.
          if (!revoked) {
            assert.equal(res.statusCode, 200);
            revoked = true;
          } else assertRefused(res, 401, 'Invalid or expired token', 'logout after revocation');
        } else {
          const res = await svc.request({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${accessTokens[accessTokens.length - 1]}` } });
          assert.equal(res.statusCode, revoked ? 401 : 200, 'access tokens follow their family');
        }
      }
    }
  });
});
