// Partner API limits (concepts.md section 8): per key, counted across servers, RateLimit-* headers,
// 429 with Retry-After; with the shared counter store unreachable, reads limited per server and
// key-authenticated writes 503 service_unavailable with Retry-After: 30 (T-7, T-10).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { clockOf, issueKey, registerEndpoint } from './helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

const ME = '/api/devtools/partner/v1/me';
const WRITE = '/api/devtools/partner/v1/sandbox/webhooks/test';

/** A clock at the start of a minute, so a test's requests share one window. */
const minuteClock = () => new ManualClock(Math.ceil(Date.now() / 60_000) * 60_000 + 1000);

test('per key: RateLimit headers, Remaining never rises nor goes negative, 429 with Retry-After; failed auth spends nothing; the window resets', async () => {
  const svc = await startTestService({ clock: minuteClock(), env: { RATE_LIMIT_PARTNER_PER_MIN: '5' } });
  try {
    await svc.createOrg('lim-org');
    const key = await issueKey(svc, 'lim-org');
    const other = await issueKey(svc, 'lim-org');
    // Wrong secret for the victim's key id: 401, and the quota is untouched.
    const forged = key.auth.authorization.slice(0, -3) + (key.auth.authorization.endsWith('AAA') ? 'BBB' : 'AAA');
    for (let i = 0; i < 3; i++)
      assertRefused(await svc.request({ method: 'GET', url: ME, headers: { authorization: forged } }), 401, {
        code: 'invalid_api_key',
        detail: 'Invalid or expired API key',
      });
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await svc.request({ method: 'GET', url: ME, headers: key.auth });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['ratelimit-limit'], '5');
      assert.equal(res.headers['ratelimit-policy'], '5;w=60');
      remaining.push(Number(res.headers['ratelimit-remaining']));
    }
    assert.deepEqual(remaining, [4, 3, 2, 1, 0]);
    const over = await svc.request({ method: 'GET', url: ME, headers: key.auth });
    assert.equal(over.statusCode, 429);
    const retry = Number(over.headers['retry-after']);
    assert.ok(Number.isInteger(retry) && retry >= 1);
    assert.ok(retry >= Number(over.headers['ratelimit-reset']), 'not earlier than the window end');
    assert.equal(over.headers['ratelimit-remaining'], '0');
    assert.equal(json(over).code, 'rate_limited');
    assert.ok(json(over).error.request_id);
    // Another key is counted separately.
    assert.equal((await svc.request({ method: 'GET', url: ME, headers: other.auth })).statusCode, 200);
    clockOf(svc).advance(60_000);
    assert.equal((await svc.request({ method: 'GET', url: ME, headers: key.auth })).statusCode, 200);
  } finally {
    await svc.stop();
  }
});

test('counted across servers: two instances sharing one cache admit exactly the limit', async () => {
  const a = await startTestService({ clock: minuteClock(), env: { RATE_LIMIT_PARTNER_PER_MIN: '10' } });
  const b = await startTestService({ shareWith: a, env: { RATE_LIMIT_PARTNER_PER_MIN: '10' } });
  try {
    await a.createOrg('lim-shared');
    const key = await issueKey(a, 'lim-shared');
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).request({ method: 'GET', url: ME, headers: key.auth })));
    assert.equal(results.filter((r) => r.statusCode === 200).length, 10);
    assert.equal(results.filter((r) => r.statusCode === 429).length, 20);
    // Revocation is seen by both instances at once.
    await a.request({
      method: 'POST',
      url: `/api/devtools/apikeys/${key.id}/revoke`,
      headers: { authorization: `Bearer ${await a.token({ orgId: 'lim-shared' })}` },
    });
    assertRefused(await b.request({ method: 'GET', url: ME, headers: key.auth }), 401, { code: 'invalid_api_key', detail: 'Invalid or expired API key' });
  } finally {
    await b.stop();
    await a.stop();
  }
});

test('Redis unreachable: reads answered and limited per server; key-authenticated writes 503 service_unavailable, Retry-After: 30', async () => {
  let svc: TestService | undefined;
  try {
    svc = await startTestService({ clock: minuteClock(), env: { REDIS_URL: 'redis://127.0.0.1:6399', RATE_LIMIT_PARTNER_PER_MIN: '3' } });
    await svc.createOrg('lim-down');
    const key = await issueKey(svc, 'lim-down', { scopes: ['alerts:read'] });
    await registerEndpoint(svc, 'lim-down', 'http://127.0.0.1:9/h', { environment: 'sandbox' });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await svc.request({ method: 'GET', url: ME, headers: key.auth }));
    assert.deepEqual(
      answers.map((r) => r.statusCode),
      [200, 200, 200, 429],
    );
    assertRefused(answers[3], 429, { code: 'rate_limited', detail: 'Rate limit exceeded' });
    const w = await svc.request({ method: 'POST', url: WRITE, headers: key.auth });
    assert.equal(w.statusCode, 503);
    assert.equal(w.headers['retry-after'], '30');
    assert.equal(json(w).detail, 'service_unavailable');
    assert.equal(json(w).code, 'service_unavailable');
    const queued = await svc.deps.db.query<{ n: number }>(`select count(*)::int as n from webhook_events where org_id = 'lim-down'`);
    assert.equal(queued.rows[0].n, 0, 'nothing written without its limit');
  } finally {
    await svc?.stop();
  }
});
