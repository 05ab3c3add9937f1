// One contract for every cache adapter: memory always, Redis when TEST_REDIS_URL is set.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Cache } from '../../src/infra/cache/index.ts';
import { createMemoryCache } from '../../src/infra/cache/memory.ts';
import { openRedisCache } from '../../src/infra/cache/redis.ts';
import { CacheUnavailableError } from '../../src/infra/cache/index.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { Redis } from 'ioredis';

interface Adapter {
  open(): Promise<Cache>;
  /** Checks that `key` expires `ttlMs` after it was set. */
  expires(cache: Cache, key: string, ttlMs: number): Promise<void>;
}

// The memory cache reads the injected clock, which the test moves past the ttl.
const memoryClock = new ManualClock();
const adapters: [string, Adapter][] = [
  [
    'memory',
    {
      open: async () => createMemoryCache(() => memoryClock.now().getTime()),
      async expires(cache, key, ttlMs) {
        memoryClock.advance(ttlMs - 1);
        assert.equal(await cache.get(key), 'v', 'still there just before the ttl');
        memoryClock.advance(1);
        assert.equal(await cache.get(key), null, 'gone at the ttl');
      },
    },
  ],
];
if (process.env.TEST_REDIS_URL) {
  adapters.push([
    'redis',
    {
      open: () => openRedisCache({ url: process.env.TEST_REDIS_URL! }),
      // Redis expires keys on its own clock; what the adapter owes is the relative expiry it sets,
      // read back with PTTL instead of waiting for Redis to drop the key.
      async expires(_cache, key, ttlMs) {
        const r = new Redis(process.env.TEST_REDIS_URL!);
        try {
          const pttl = await r.pttl(key);
          assert.ok(pttl > 0 && pttl <= ttlMs, `pttl ${pttl}`);
        } finally {
          r.disconnect();
        }
      },
    },
  ]);
}

for (const [name, { open, expires }] of adapters) {
  describe(`cache contract: ${name}`, () => {
    let cache: Cache;
    const k = (s: string) => `test:${randomBytes(6).toString('hex')}:${s}`;
    after(() => cache?.close());

    test('opens and answers ping', async () => {
      cache = await open();
      assert.equal(await cache.ping(), true);
    });

    test('hit counts within a window and restarts in the next', async () => {
      const key = k('hits');
      // An hour-long window, so a run cannot straddle its end.
      const counts = [];
      for (let i = 0; i < 3; i++) counts.push(await cache.hit(key, 3_600_000));
      assert.deepEqual(
        counts.map((c) => c.count),
        [1, 2, 3],
      );
      assert.ok(counts.every((c) => c.resetMs >= 1 && c.resetMs <= 3_600_000));
      const other = k('other');
      assert.equal((await cache.hit(other, 3_600_000)).count, 1);
    });

    test('hitMany counts each key in order, a repeated key twice, into the same windows as hit', async () => {
      const [a, b] = [k('many-a'), k('many-b')];
      assert.equal((await cache.hit(a, 3_600_000)).count, 1);
      const counts = await cache.hitMany([a, b, a, a], 3_600_000);
      assert.deepEqual(
        counts.map((c) => c.count),
        [2, 1, 3, 4],
      );
      assert.ok(counts.every((c) => c.resetMs >= 1 && c.resetMs <= 3_600_000));
      assert.equal((await cache.hit(b, 3_600_000)).count, 2);
      assert.deepEqual(await cache.hitMany([], 3_600_000), []);
    });

    test('concurrent hits are all counted (atomic)', async () => {
      const key = k('concurrent');
      const counts = (await Promise.all(Array.from({ length: 50 }, () => cache.hit(key, 3_600_000)))).map((c) => c.count);
      assert.deepEqual(
        [...counts].sort((a, b) => a - b),
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
    });

    test('get / set / del', async () => {
      const key = k('kv');
      assert.equal(await cache.get(key), null);
      await cache.set(key, 'v1');
      assert.equal(await cache.get(key), 'v1');
      await cache.del(key);
      assert.equal(await cache.get(key), null);
    });

    test('set with a ttl expires', async () => {
      const key = k('ttl');
      await cache.set(key, 'v', 50_000);
      assert.equal(await cache.get(key), 'v');
      await expires(cache, key, 50_000);
    });

    test('setIfAbsent sets once', async () => {
      const key = k('nx');
      assert.equal(await cache.setIfAbsent(key, 'a', 10_000), true);
      assert.equal(await cache.setIfAbsent(key, 'b', 10_000), false);
      assert.equal(await cache.get(key), 'a');
    });

    test('after close, ping is false', async () => {
      const c = await open();
      await c.close();
      assert.equal(await c.ping(), false);
    });
  });
}

describe('redis cache with the server unreachable', () => {
  test('starts, reports ping false and fails commands fast with CacheUnavailableError', async () => {
    const cache = await openRedisCache({ url: 'redis://127.0.0.1:6399', commandTimeoutMs: 100 });
    try {
      assert.equal(await cache.ping(200), false);
      await assert.rejects(cache.hit('x', 1000), CacheUnavailableError);
    } finally {
      await cache.close();
    }
  });
});
