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
  // The shared cache keeps the window on its own clock (decision 0004). The local fallback and the
  // memory of the last shared count use this process's clock, which is all a single process has.
  const local = createMemoryCache(() => opts.clock.now().getTime());
  const lastShared = new Map<string, { count: number; windowEnd: number }>();
  const remember = (key: string, count: number, windowEnd: number, now: number) => {
    if (lastShared.size > 50_000) for (const [k, v] of lastShared) if (v.windowEnd <= now) lastShared.delete(k);
    const prev = lastShared.get(key);
    const same = prev && prev.windowEnd > now;
    lastShared.set(key, { count: same ? Math.max(count, prev.count) : count, windowEnd });
  };
  return {
    async check(policy, subject, options = {}) {
      const now = opts.clock.now().getTime();
      const key = `${opts.namespace}:rl:${policy.name}:${subject}`;
      let count: number;
      let resetMs: number;
      let shared = true;
      try {
        ({ count, resetMs } = await withinBudget(opts.cache.hit(key, policy.windowMs), opts.budgetMs));
        remember(key, count, now + resetMs, now);
      } catch {
        shared = false;
        const last = lastShared.get(key);
        const seen = last && last.windowEnd > now ? last.count : 0;
        if (options.countLocally === false) {
          count = seen;
          resetMs = last && last.windowEnd > now ? last.windowEnd - now : policy.windowMs - (now % policy.windowMs);
        } else {
          const hit = await local.hit(key, policy.windowMs);
          count = seen + hit.count;
          resetMs = hit.resetMs;
        }
      }
      return {
        allowed: count <= policy.limit,
        limit: policy.limit,
        remaining: Math.max(0, policy.limit - count),
        resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
        shared,
      };
    },
    close: () => local.close(),
  };
}
