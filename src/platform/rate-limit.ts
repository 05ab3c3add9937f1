// Fixed-window rate limits counted in the cache, so instances sharing Redis share the counts.
// Each check has its own time budget; past it (or with the cache down) the limiter falls back to
// counting in this process and says so (`shared: false`), and the caller decides what that means.
import type { Cache } from '../infra/cache/index.ts';
import { createMemoryCache } from '../infra/cache/memory.ts';
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

export interface RateLimiter {
  check(policy: LimitPolicy, subject: string): Promise<LimitResult>;
  close(): Promise<void>;
}

export function createRateLimiter(opts: { cache: Cache; clock: Clock; namespace: string; budgetMs: number }): RateLimiter {
  const local = createMemoryCache(() => opts.clock.now().getTime());
  const withBudget = <T>(p: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('limiter budget exceeded')), opts.budgetMs);
      p.then(
        (v) => {
          clearTimeout(t);
          resolve(v);
        },
        (e) => {
          clearTimeout(t);
          reject(e);
        },
      );
    });
  return {
    async check(policy, subject) {
      const now = opts.clock.now().getTime();
      const windowStart = Math.floor(now / policy.windowMs) * policy.windowMs;
      const windowEnd = windowStart + policy.windowMs;
      const key = `${opts.namespace}:rl:${policy.name}:${subject}:${windowStart}`;
      let count: number;
      let shared = true;
      try {
        count = await withBudget(opts.cache.hit(key, windowEnd, now));
      } catch {
        shared = false;
        count = await local.hit(key, windowEnd, now);
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
