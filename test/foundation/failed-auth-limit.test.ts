// Failed authentication is limited like unauthenticated traffic (20 a minute per source address,
// decision 0027), counted across instances, refused before any verification, and without locking
// out the signed-in users who share the address.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { issueKey } from '../devtools/helpers.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { createMemoryCache } from '../../src/infra/cache/memory.ts';
import { createRateLimiter } from '../../src/platform/rate-limit.ts';
import { createFailedAuthLimit } from '../../src/platform/auth-failures.ts';
import { assertRefused } from '../helpers/refusal.ts';

const LIMIT = 20;
let a: TestService;
let b: TestService;

before(async () => {
  a = await startTestService();
  b = await startTestService({ shareWith: a });
  await a.createOrg('acme');
});
after(async () => {
  await b.stop();
  await a.stop();
});

const from = (svc: TestService, ip: string, o: InjectOptions) => svc.request({ ...o, remoteAddress: ip });
const me = (svc: TestService, ip: string, authorization: string) => from(svc, ip, { method: 'GET', url: '/api/auth/me', headers: { authorization } });
const partnerMe = (svc: TestService, ip: string, authorization: string) =>
  from(svc, ip, { method: 'GET', url: '/api/devtools/partner/v1/me', headers: { authorization } });

function assertLimited(res: Awaited<ReturnType<TestService['request']>>) {
  assert.equal(res.statusCode, 429, res.body);
  assert.deepEqual(json(res), { detail: 'Rate limit exceeded' });
  const after = Number(res.headers['retry-after']);
  assert.ok(after >= 1 && after <= 60, `Retry-After ${res.headers['retry-after']}`);
}

test('bad bearer tokens: twenty a minute per address across instances, then 429 with Retry-After', async () => {
  const ip = '192.0.2.10';
  for (let i = 0; i < LIMIT; i++) {
    const res = await me(i % 2 ? a : b, ip, `Bearer not.a.token${i}`);
    assert.equal(res.statusCode, 401);
    assert.deepEqual(json(res), { detail: 'Invalid or expired token' });
  }
  assertLimited(await me(a, ip, 'Bearer not.a.token-again'));
  assertLimited(await me(b, ip, 'Bearer not.a.token-again'));
  // A missing or malformed header from the same address is refused the same way.
  assertLimited(await from(b, ip, { method: 'GET', url: '/api/auth/me' }));
  // Another address is not affected.
  assertRefused(await me(b, '192.0.2.11', 'Bearer not.a.token'), 401, 'Invalid or expired token');
});

test('bad API keys count too, and an unseen valid credential is refused without being verified', async () => {
  const ip = '192.0.2.20';
  const key = await issueKey(a, 'acme');
  const unseenToken = await a.token({ orgId: 'acme', roles: ['VIEWER'] });
  const badKey = `${key.secret.slice(0, -4)}AAAA`;
  for (let i = 0; i < LIMIT; i++) {
    const res = await partnerMe(i % 2 ? a : b, ip, `Bearer ${badKey}`);
    assert.equal(res.statusCode, 401);
    assert.equal(json(res).error.code, 'invalid_api_key');
  }
  // Valid, but never verified: answered 429 before the key or token is looked at.
  const limited = await partnerMe(b, ip, key.auth.authorization);
  assert.equal(limited.statusCode, 429);
  assert.equal(json(limited).error.code, 'rate_limited');
  assert.ok(Number(limited.headers['retry-after']) >= 1);
  assertLimited(await me(a, ip, `Bearer ${unseenToken}`));
  // From elsewhere the same key works.
  assert.equal((await partnerMe(a, '192.0.2.21', key.auth.authorization)).statusCode, 200);
});

test('signed-in users behind the attacked address keep working on every instance', async () => {
  const ip = '192.0.2.30';
  const user = `Bearer ${await a.token({ orgId: 'acme', roles: ['VIEWER'] })}`;
  const key = await issueKey(a, 'acme');
  assert.equal((await me(a, ip, user)).statusCode, 200);
  assert.equal((await partnerMe(a, ip, key.auth.authorization)).statusCode, 200);
  for (let i = 0; i <= LIMIT; i++) await me(b, ip, `Bearer forged.token.${i}`);
  assertLimited(await me(a, ip, 'Bearer forged.token.more'));
  const mine = await me(b, ip, user);
  assert.equal(mine.statusCode, 200, mine.body);
  assert.deepEqual(json(mine).roles, ['VIEWER']);
  assert.equal((await partnerMe(b, ip, key.auth.authorization)).statusCode, 200);
  // A credential that verified once is still verified in full: revoked, it is refused 401.
  await a.request({ method: 'POST', url: `/api/devtools/apikeys/${key.id}/revoke`, headers: { authorization: `Bearer ${await a.token({ orgId: 'acme' })}` } });
  assertRefused(await partnerMe(b, ip, key.auth.authorization), 401, { code: 'invalid_api_key', detail: 'Invalid or expired API key' });
});

test('refusals of a verified credential (403) are not failed authentication', async () => {
  const ip = '192.0.2.40';
  const viewer = `Bearer ${await a.token({ orgId: 'acme', roles: ['VIEWER'] })}`;
  for (let i = 0; i < LIMIT + 5; i++) {
    const res = await from(a, ip, { method: 'GET', url: '/api/devtools/apikeys', headers: { authorization: viewer } });
    assertRefused(res, 403, { code: 'insufficient_permissions', detail: 'Insufficient permissions' });
  }
  assert.equal((await me(a, ip, `Bearer ${await a.token({ orgId: 'acme', roles: ['VIEWER'] })}`)).statusCode, 200);
});

test('a credential this instance verified lately is checked without a cache read; a blocked address still refuses a stranger', async () => {
  const clock = new ManualClock(Date.parse('2030-01-01T00:00:00Z'));
  const inner = createMemoryCache(() => clock.now().getTime());
  let reads = 0;
  const cache = { ...inner, get: (key: string) => ((reads += 1), inner.get(key)) };
  const limiter = createRateLimiter({ cache, clock, namespace: 'fa', budgetMs: 50 });
  const limit = createFailedAuthLimit({ cache, limiter, clock, namespace: 'fa', limit: 2 });
  await limit.recordSuccess('Bearer known');
  await limit.refuseIfBlocked('10.0.0.1', 'Bearer known');
  assert.equal(reads, 0, 'no cache read for a credential verified here');
  await limit.refuseIfBlocked('10.0.0.1', 'Bearer stranger');
  assert.equal(reads, 1, 'an unseen credential costs one read of the block marker');
  await limit.recordFailure('10.0.0.1');
  await limit.recordFailure('10.0.0.1');
  await assert.rejects(limit.refuseIfBlocked('10.0.0.1', 'Bearer stranger'), (e: { status: number }) => e.status === 429);
  await limit.refuseIfBlocked('10.0.0.1', 'Bearer known');
  await limiter.close();
});
