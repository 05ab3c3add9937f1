// The Redis cache adapter after its connection went silent (found by the T-7 fault run,
// bench/faults/redis-partner.ts): commands that timed out while the network dropped everything
// still owed replies on that connection, so after the network came back every reply paired with
// the wrong command (or never came) and the rate limits stayed per instance for good. The adapter
// now starts a fresh connection after a timeout. Needs a real Redis (TEST_REDIS_URL); the fault
// proxy sits between the adapter and the server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { openRedisCache } from '../../src/infra/cache/redis.ts';
import { CacheUnavailableError } from '../../src/infra/cache/index.ts';
import { startFaultProxy } from '../../bench/lib/fault-proxy.ts';
import { Inbox } from '../helpers/signal.ts';

const url = process.env.TEST_REDIS_URL;

test('after a blackholed connection comes back, commands pair with their own replies again', { skip: !url, timeout: 60_000 }, async () => {
  const target = new URL(url!);
  const proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 6379) });
  const connection = new Inbox<boolean>();
  const cache = await openRedisCache({ url: proxy.url('redis'), commandTimeoutMs: 100, onConnectionChange: connection.push });
  const k = (s: string) => `test:${randomBytes(6).toString('hex')}:${s}`;
  try {
    assert.equal((await cache.hit(k('before'), 3_600_000)).count, 1);

    proxy.set({ kind: 'blackhole' });
    // Several commands go unanswered (their bytes are dropped), as with a silent network.
    const lost = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => cache.hit(k(`lost${i}`), 3_600_000)));
    for (const r of lost) {
      assert.equal(r.status, 'rejected');
      assert.ok((r as PromiseRejectedResult).reason instanceof CacheUnavailableError);
    }
    assert.equal(await cache.ping(200), false, 'readiness sees the silent cache');

    const mark = connection.items.length;
    proxy.set({ kind: 'pass' });
    // The adapter's fresh connection becomes ready on the client's own retry timers (real time:
    // the behaviour); the test waits for that event, not for a probe to come back.
    await connection.until((c) => c.slice(mark).includes(true), 'a fresh connection is ready', 15_000);
    assert.equal(await cache.ping(500), true, 'the cache answers again');
    // Every command gets its own reply: distinct keys, values and counts do not get mixed up.
    const a = k('a');
    const b = k('b');
    await cache.set(a, 'value-a');
    await cache.set(b, 'value-b');
    assert.equal(await cache.get(a), 'value-a');
    assert.equal(await cache.get(b), 'value-b');
    const counter = k('counter');
    assert.deepEqual(await Promise.all([1, 2, 3].map(() => cache.hit(counter, 3_600_000))).then((c) => c.map((x) => x.count).sort()), [1, 2, 3]);
    assert.equal(await cache.get(a), 'value-a');
  } finally {
    await cache.close();
    await proxy.close();
  }
});
