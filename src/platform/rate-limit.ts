// Fixed-window rate limits counted in the cache, so instances sharing Redis share the counts.
// Each check has its own time budget; past it (or with the cache down) the limiter falls back to
// counting in this process and says so (`shared: false`), and the caller decides what that means.
// A local count starts from the last shared count this process saw in the window, so a fallback
// never reports more remaining than the shared counter last did, nor admits past a limit the
// shared counter had already reached (found by the T-10 run on a loaded box).
import type { Cache, WindowCount } from '../infra/cache/index.ts';
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
  /**
   * One check for each subject, in order (a subject given twice counts twice), sent to the shared
   * store together: a caller with many checks in one turn of the event loop (the device MQTT
   * consumer, a check a message) writes to Redis once for all of them.
   */
  checkMany(policy: LimitPolicy, subjects: readonly string[], options?: CheckOptions): Promise<LimitResult[]>;
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
  const keyOf = (policy: LimitPolicy, subject: string) => `${opts.namespace}:rl:${policy.name}:${subject}`;
  const result = (policy: LimitPolicy, count: number, resetMs: number, shared: boolean): LimitResult => ({
    allowed: count <= policy.limit,
    limit: policy.limit,
    remaining: Math.max(0, policy.limit - count),
    resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
    shared,
  });
  /** A count of the shared windows' hits (remembered as the last shared count seen). */
  const counted = (policy: LimitPolicy, key: string, c: WindowCount, now: number) => {
    remember(key, c.count, now + c.resetMs, now);
    return result(policy, c.count, c.resetMs, true);
  };
  /** Without the shared store: counted here, from the last shared count this process saw. */
  const countedHere = async (policy: LimitPolicy, key: string, now: number, options: CheckOptions) => {
    const last = lastShared.get(key);
    const seen = last && last.windowEnd > now ? last.count : 0;
    if (options.countLocally === false) {
      const resetMs = last && last.windowEnd > now ? last.windowEnd - now : policy.windowMs - (now % policy.windowMs);
      return result(policy, seen, resetMs, false);
    }
    const hit = await local.hit(key, policy.windowMs);
    return result(policy, seen + hit.count, hit.resetMs, false);
  };
  return {
    async check(policy, subject, options = {}) {
      const now = opts.clock.now().getTime();
      const key = keyOf(policy, subject);
      let c: WindowCount;
      try {
        c = await withinBudget(opts.cache.hit(key, policy.windowMs), opts.budgetMs);
      } catch {
        return countedHere(policy, key, now, options);
      }
      return counted(policy, key, c, now);
    },
    async checkMany(policy, subjects, options = {}) {
      const now = opts.clock.now().getTime();
      const keys = subjects.map((s) => keyOf(policy, s));
      let cs: WindowCount[];
      try {
        cs = await withinBudget(opts.cache.hitMany(keys, policy.windowMs), opts.budgetMs);
      } catch {
        const out: LimitResult[] = [];
        for (const key of keys) out.push(await countedHere(policy, key, now, options));
        return out;
      }
      return cs.map((c, i) => counted(policy, keys[i]!, c, now));
    },
    close: () => local.close(),
  };
}
