// A cache that stops answering costs a request at most the cache budget (reliability plan T-8:
// "nothing waits on Redis longer than the budget"). Found by the T-8 run: the session-revocation
// check on every signed-in request waited for the Redis command timeout twice (read, then fill).
// Here a second instance runs on the first one's store with a cache whose calls never settle: were
// any request-path call unbounded, its request would never be answered. Each such call waits out
// the real 50 ms budget (RATE_LIMIT_BUDGET_MS): that deadline is the behaviour under test.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { startService, type Service } from '../../src/server.ts';
import { CacheUnavailableError, type Cache } from '../../src/infra/cache/index.ts';
import { withinBudget } from '../../src/infra/cache/budget.ts';
import type { InjectOptions } from 'fastify';

const never = () => new Promise<never>(() => {});
const silentRedis: Cache = {
  kind: 'redis',
  hit: never,
  hitMany: never,
  get: never,
  set: never,
  setIfAbsent: never,
  del: never,
  ping: async () => false,
  close: async () => {},
};

const services: { stop(): Promise<void> }[] = [];
after(async () => {
  for (const s of services.reverse()) await s.stop();
});

test('a reply that arrived while the event loop was busy past the budget still counts', (t) => {
  // The budget's timer is the service's only clock here, so it is mocked: the test fires it, then
  // delivers the reply in the same turn of the loop, as Node does after a busy spell (due timers run
  // before the I/O phase reads the waiting reply). The verdict must wait for that I/O phase. The
  // same ordering on a real event loop and a real socket: test/infra/ping-under-lag.test.ts.
  t.mock.timers.enable({ apis: ['setTimeout'] });
  let deliver!: (v: string) => void;
  const reply = new Promise<string>((resolve) => (deliver = resolve));
  const checked = withinBudget(reply, 50);
  t.mock.timers.tick(50); // the budget is past ...
  deliver('counted'); // ... and the reply is already there
  return checked.then((v) => assert.equal(v, 'counted'));
});

test('a reply that never comes is cut at the budget', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const checked = withinBudget(new Promise<string>(() => {}), 50);
  t.mock.timers.tick(49);
  t.mock.timers.tick(1);
  await assert.rejects(checked, CacheUnavailableError);
});

test('with a cache that never answers, sign-in, signed-in reads and key reads are answered; key writes get 503', async () => {
  const first: TestService = await startTestService();
  services.push(first);
  const second: Service = await startService(first.config, {
    clock: first.clock,
    sharedInfra: { db: first.deps.db, cache: silentRedis, bus: first.deps.bus },
  });
  services.push(second);
  const inject = (o: InjectOptions) => second.app.inject(o);

  await first.createOrg('acme');
  await first.createUser('acme', 'admin@acme.example', 'ORG_ADMIN', 'a-long-enough-password-1');
  const login = await inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'admin@acme.example', password: 'a-long-enough-password-1' } });
  assert.equal(login.statusCode, 200, login.body);
  const bearer = { authorization: `Bearer ${json(login).access_token}` };

  // Signed-in read: the session check asks the store when the cache is past its budget.
  const me = await inject({ method: 'GET', url: '/api/auth/me', headers: bearer });
  assert.equal(me.statusCode, 200, me.body);

  const key = await inject({ method: 'POST', url: '/api/devtools/apikeys', headers: bearer, payload: { name: 'k', scopes: ['devices:read'] } });
  assert.equal(key.statusCode, 201, key.body);
  const keyAuth = { authorization: `Bearer ${json(key).secret ?? json(key).key}` };
  const read = await inject({ method: 'GET', url: '/api/devtools/partner/v1/me', headers: keyAuth });
  assert.equal(read.statusCode, 200, read.body);
  const write = await inject({ method: 'POST', url: '/api/devtools/partner/v1/sandbox/webhooks/test', headers: keyAuth, payload: {} });
  assert.equal(write.statusCode, 503);
  assert.equal(write.headers['retry-after'], '30');
  assert.equal(json(write).detail, 'service_unavailable');
  assert.equal(json(write).error.code, 'service_unavailable');
});
