import { Redis, type Result } from 'ioredis';
import type { Cache } from './index.ts';
import { CacheUnavailableError } from './index.ts';
import { withTimeout } from '../../core/timeout.ts';

// One hit in the current window, atomically. The window comes from Redis's own TIME (or from an
// injected clock, ARGV[2], in tests that move time), so instances whose clocks disagree count into
// the same key, and the expiry is relative (PEXPIRE), so nothing depends on the service's clock
// agreeing with Redis's. The window's end is part of the key.
const HIT = `local now
if ARGV[2] then now = tonumber(ARGV[2]) else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local w = tonumber(ARGV[1])
local wend = now - (now % w) + w
local k = KEYS[1] .. ':' .. wend
local c = redis.call('INCR', k)
-- An injected clock (tests) may stand still while real time passes: keep its counters an hour
-- longer, so a window does not vanish under a test that takes longer than the window.
local ttl = wend - now + 1000
if ARGV[2] then ttl = ttl + 3600000 end
if c == 1 then redis.call('PEXPIRE', k, ttl) end
return {c, wend - now}`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** HIT, defined by defineCommand: EVALSHA with the script's hash, EVAL on a connection's first use or NOSCRIPT. */
    epsHit(key: string, ...args: string[]): Result<[number, number], Context>;
  }
}

/** ioredis' message for a command past `commandTimeout`. */
const TIMED_OUT = 'Command timed out';

export interface RedisCacheOptions {
  /** The server; with `sentinels`, only its credentials and database number are used. */
  url?: string;
  /**
   * Redis Sentinels naming the primary of `sentinelName`: the client asks them where the primary is
   * at every (re)connection and moves to a new one after a failover (issue 43).
   */
  sentinels?: { host: string; port: number }[];
  sentinelName?: string;
  /** Every command gives up after this many ms (the limiter's budget). */
  commandTimeoutMs?: number;
  /**
   * Windows follow this clock instead of Redis's TIME. Only for tests that move time on the
   * service clock; a deployment leaves it unset so every instance counts on Redis's one clock.
   */
  windowClock?: () => number;
  /** Told when the connection becomes ready (true) or goes (false); a seam for fault tests. */
  onConnectionChange?: (ready: boolean) => void;
}

export async function openRedisCache(opts: RedisCacheOptions): Promise<Cache> {
  const options = {
    lazyConnect: true,
    // Fail fast while disconnected instead of queueing: callers take the degraded path.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: opts.commandTimeoutMs ?? 200,
    connectTimeout: 2000,
    // Not auto-pipelined (decision 0502): a pipelined command is written on the next tick, so one
    // issued just before a busy spell of the event loop would be written after it and time out.
    retryStrategy: (times: number) => Math.min(times * 200, 2000),
    // A server that became a replica under this connection (the old primary back after a failover)
    // refuses writes with READONLY: connect again, which asks the Sentinels for the primary.
    reconnectOnError: (err: Error) => err.message.startsWith('READONLY'),
    ...(opts.sentinels && {
      sentinels: opts.sentinels,
      name: opts.sentinelName ?? 'mymaster',
      sentinelRetryStrategy: (times: number) => Math.min(times * 200, 2000),
      // Sentinel's +switch-master is followed at once instead of at the next connection error.
      failoverDetector: true,
    }),
  };
  const client = opts.url ? new Redis(opts.url, options) : new Redis(options);
  // The script travels once a connection (EVAL), then as its hash (EVALSHA): not 700 bytes a check.
  client.defineCommand('epsHit', { numberOfKeys: 1, lua: HIT });
  // Connection errors are reported through ping/readiness, not as crashes.
  client.on('error', () => {});
  if (opts.onConnectionChange) {
    const tell = opts.onConnectionChange;
    client.on('ready', () => tell(true)).on('close', () => tell(false));
  }
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
    hit: (key, windowMs) =>
      run(async () => {
        const args = opts.windowClock ? [String(windowMs), String(opts.windowClock())] : [String(windowMs)];
        const [count, resetMs] = await client.epsHit(key, ...args);
        return { count: Number(count), resetMs: Math.max(1, Number(resetMs)) };
      }),
    hitMany: (keys, windowMs) =>
      run(async () => {
        if (!keys.length) return [];
        // An explicit pipeline is written when exec() is called, in this turn of the event loop (not
        // on the next, as auto-pipelining would: decision 0502), so each command's timeout runs
        // from its write as it does for hit.
        const args = opts.windowClock ? [String(windowMs), String(opts.windowClock())] : [String(windowMs)];
        const pipeline = client.pipeline();
        for (const key of keys) pipeline.epsHit(key, ...args);
        const replies = (await pipeline.exec()) ?? [];
        return replies.map(([err, reply]) => {
          if (err) throw err;
          const [count, resetMs] = reply as [number, number];
          return { count: Number(count), resetMs: Math.max(1, Number(resetMs)) };
        });
      }),
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
      const r = await withTimeout(
        client.ping().catch((e: Error) => {
          if (e.message === TIMED_OUT) resync();
          return 'failed';
        }),
        timeoutMs,
        'timeout',
      );
      return r === 'PONG';
    },
    async close() {
      if (closed) return;
      closed = true;
      client.disconnect();
    },
  };
}
