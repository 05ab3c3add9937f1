// The shared provider mechanics: retry only where it is safe, the response cache's stale fallback,
// and the in-process fallback when the shared cache is unreachable.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createUpstreamCache, createUpstreamClient, UpstreamError, jsonBody } from '../../src/infra/upstream/index.ts';
import { CacheUnavailableError, type Cache } from '../../src/infra/cache/index.ts';
import { createMemoryCache } from '../../src/infra/cache/memory.ts';
import { createMetrics } from '../../src/platform/metrics.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { startFakeServer, sendJson } from '../helpers/fake-server.ts';
import { deferred } from '../helpers/signal.ts';

const fake = await startFakeServer((req, res) => sendJson(res, 503, { detail: 'busy' }));
after(() => fake.close());

function client(retries = 2) {
  return createUpstreamClient({
    provider: 'test',
    baseUrl: fake.url + '/prefix',
    timeoutMs: 500,
    retries,
    retryBaseMs: 1,
    allowPrivate: true,
    metrics: createMetrics(),
  });
}

const down: Cache = {
  kind: 'redis',
  hit: async () => {
    throw new CacheUnavailableError('down');
  },
  hitMany: async () => {
    throw new CacheUnavailableError('down');
  },
  get: async () => {
    throw new CacheUnavailableError('down');
  },
  set: async () => {
    throw new CacheUnavailableError('down');
  },
  setIfAbsent: async () => {
    throw new CacheUnavailableError('down');
  },
  del: async () => {
    throw new CacheUnavailableError('down');
  },
  ping: async () => false,
  close: async () => {},
};

test('upstream: reads are retried on 5xx; writes never are', async () => {
  fake.requests.length = 0;
  await assert.rejects(client().call({ url: '/x', decode: jsonBody }), (e: UpstreamError) => e.kind === 'status' && e.status === 503);
  assert.equal(fake.requests.length, 3);
  fake.requests.length = 0;
  await assert.rejects(client().call({ method: 'POST', url: '/x', json: { a: 1 }, decode: jsonBody }));
  assert.equal(fake.requests.length, 1);
  assert.equal(fake.requests[0].url, '/prefix/x');
});

test('upstream: a link handed back by the provider is moved onto the configured base URL', () => {
  const c = client();
  assert.equal(c.onBase('https://elsewhere.example/v1/a/?page=2'), `${fake.url}/prefix/v1/a/?page=2`);
  assert.equal(c.onBase(`${fake.url}/prefix/v1/a/`), `${fake.url}/prefix/v1/a/`);
});

test('upstream cache: served from the in-process fallback while the shared cache is unreachable', async () => {
  const clock = new ManualClock('2026-01-01T00:00:00Z');
  const cache = createUpstreamCache({ cache: down, clock, namespace: 't', metrics: createMetrics() });
  let calls = 0;
  const opts = { provider: 'p', fetch: async () => ++calls, freshFor: () => 60_000, retainMs: 3600_000 };
  assert.deepEqual(await cache.serve('k', opts), { value: 1, fetchedAt: clock.now().getTime(), stale: false, fromCache: false });
  assert.equal((await cache.serve('k', opts)).value, 1);
  assert.equal(calls, 1);
  clock.advance(61_000);
  const failing = {
    ...opts,
    fetch: async (): Promise<number> => {
      throw new UpstreamError('p', 'timeout', 'slow');
    },
  };
  const stale = await cache.serve('k', failing);
  assert.equal(stale.stale, true);
  assert.equal(stale.value, 1);
});

test('upstream cache: concurrent misses share one provider call; a non-provider error is not hidden', async () => {
  const clock = new ManualClock('2026-01-01T00:00:00Z');
  const mem = createMemoryCache();
  const cache = createUpstreamCache({ cache: mem, clock, namespace: 't', metrics: createMetrics() });
  let calls = 0;
  // The provider call is held until all three requests are in, so they overlap whatever the timing.
  const answer = deferred();
  const opts = {
    provider: 'p',
    fetch: async () => {
      calls++;
      await answer.promise;
      return 'v';
    },
    freshFor: () => 1000,
    retainMs: 10_000,
  };
  const pending = Promise.all([cache.serve('s', opts), cache.serve('s', opts), cache.serve('s', opts)]);
  // One turn of the event loop (not a wait on time): on the memory cache, with no I/O, all three
  // requests have by then missed and joined the one provider call.
  await new Promise((r) => setImmediate(r));
  answer.resolve();
  const all = await pending;
  assert.equal(calls, 1);
  assert.ok(all.every((x) => x.value === 'v'));
  clock.advance(2000);
  await assert.rejects(
    cache.serve('s', {
      ...opts,
      fetch: async () => {
        throw new TypeError('bug');
      },
    }),
    TypeError,
  );
  await mem.close();
});
