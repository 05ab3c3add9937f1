import { Redis } from 'ioredis';
import type { Cache } from './index.ts';
import { CacheUnavailableError } from './index.ts';

// INCR and set the expiry on first hit, atomically.
const HIT = `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIREAT', KEYS[1], ARGV[1]) end
return c`;

/** ioredis' message for a command past `commandTimeout`. */
const TIMED_OUT = 'Command timed out';

export interface RedisCacheOptions {
  url: string;
  /** Every command gives up after this many ms (the limiter's budget). */
  commandTimeoutMs?: number;
}

export async function openRedisCache(opts: RedisCacheOptions): Promise<Cache> {
  const client = new Redis(opts.url, {
    lazyConnect: true,
    // Fail fast while disconnected instead of queueing: callers take the degraded path.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: opts.commandTimeoutMs ?? 200,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  // Connection errors are reported through ping/readiness, not as crashes.
  client.on('error', () => {});
  await client.connect().catch(() => {});
  let closed = false;
  // A command that timed out still owes its reply on this connection, and Redis replies carry no
  // command id: once a request went unanswered (a silent network, a blackhole) every later reply
  // would pair with the wrong command, or never come. Start a fresh connection instead; until it is
  // ready, commands fail at once (no offline queue) and callers take the degraded path.
  const resync = () => {
    if (!closed && client.status === 'ready') client.disconnect(true);
  };
  const run = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      if ((e as Error).message === TIMED_OUT) resync();
      throw new CacheUnavailableError(`cache unavailable: ${(e as Error).message}`);
    }
  };
  return {
    kind: 'redis',
    hit: (key, windowEndMs) => run(async () => Number(await client.eval(HIT, 1, key, String(windowEndMs)))),
    get: (key) => run(() => client.get(key)),
    set: (key, value, ttlMs) =>
      run(async () => {
        if (ttlMs) await client.set(key, value, 'PX', ttlMs);
        else await client.set(key, value);
      }),
    setIfAbsent: (key, value, ttlMs) => run(async () => (await client.set(key, value, 'PX', ttlMs, 'NX')) === 'OK'),
    del: (key) =>
      run(async () => {
        await client.del(key);
      }),
    async ping(timeoutMs = 1000) {
      if (closed || client.status !== 'ready') return false;
      try {
        const r = await Promise.race([
          client.ping(),
          new Promise<string>((resolve) => setTimeout(() => resolve('timeout'), timeoutMs).unref()),
        ]);
        return r === 'PONG';
      } catch (e) {
        if ((e as Error).message === TIMED_OUT) resync();
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      client.disconnect();
    },
  };
}
