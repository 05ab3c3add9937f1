// Fixed-window rate limits counted in the cache, so instances sharing Redis share the counts.
// Each check has its own time budget; past it (or with the cache down) the limiter falls back to
// counting in this process and says so (`shared: false`), and the caller decides what that means.
// A local count starts from the last shared count this process saw in the window, so a fallback
// never reports more remaining than the shared counter last did, nor admits past a limit the
// shared counter had already reached (found by the T-10 run on a loaded box).
import type { Cache } from '../infra/cache/index.ts';
import { createMemoryCache } from '../infra/cache/memory.ts';
import { withinBudget } from '../infra/cache/budget.ts';
import type { Clock } from './clock.ts';

export interface LimitPolicy {
  name: string;
  limit: number;
  windowMs: number;
}

export interface LimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (>= 1). */
  resetSeconds: number;
  /** False when the shared counter store could not be used and a local count was taken. */
  shared: boolean;
}

export interface CheckOptions {
  /** False: without the shared store the request will be refused anyway, so it spends nothing. */
  countLocally?: boolean;
}

export interface RateLimiter {
  check(policy: LimitPolicy, subject: string, options?: CheckOptions): Promise<LimitResult>;
  close(): Promise<void>;
}

export function createRateLimiter(opts: { cache: Cache; clock: Clock; namespace: string; budgetMs: number }): RateLimiter {
  const local = createMemoryCache(() => opts.clock.now().getTime());
  const lastShared = new Map<string, { count: number; windowEnd: number }>();
  const remember = (key: string, count: number, windowEnd: number, now: number) => {
    if (lastShared.size > 50_000) for (const [k, v] of lastShared) if (v.windowEnd <= now) lastShared.delete(k);
    lastShared.set(key, { count: Math.max(count, lastShared.get(key)?.count ?? 0), windowEnd });
  };
  return {
    async check(policy, subject, options = {}) {
      const now = opts.clock.now().getTime();
      const windowStart = Math.floor(now / policy.windowMs) * policy.windowMs;
      const windowEnd = windowStart + policy.windowMs;
      const key = `${opts.namespace}:rl:${policy.name}:${subject}:${windowStart}`;
      let count: number;
      let shared = true;
      try {
        count = await withinBudget(opts.cache.hit(key, windowEnd, now), opts.budgetMs);
        remember(key, count, windowEnd, now);
      } catch {
        shared = false;
        const seen = lastShared.get(key)?.count ?? 0;
        count = seen + (options.countLocally === false ? 0 : await local.hit(key, windowEnd, now));
      }
      return {
        allowed: count <= policy.limit,
        limit: policy.limit,
        remaining: Math.max(0, policy.limit - count),
        resetSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)),
        shared,
      };
    },
    close: () => local.close(),
  };
}
