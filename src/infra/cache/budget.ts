// A time budget on cache calls made on a request's path. Past the budget the caller gets
// CacheUnavailableError and takes its cache-down path; the command itself goes on and its late
// reply is dropped. So a slow Redis costs a request at most the budget (reliability plan T-8),
// while the adapter's own, longer command timeout decides when the connection is replaced.
import { CacheUnavailableError, type Cache } from './index.ts';
import { settleWithin } from '../../core/timeout.ts';

/** Settles like `p`, or rejects with CacheUnavailableError once `budgetMs` has passed. */
export function withinBudget<T>(p: Promise<T>, budgetMs: number): Promise<T> {
  return settleWithin(p, budgetMs, () => {
    throw new CacheUnavailableError('cache budget exceeded');
  });
}

/** The same cache with every call but ping and close bounded by the budget (memory needs none). */
export function budgeted(cache: Cache, budgetMs: number): Cache {
  if (cache.kind === 'memory') return cache;
  return {
    kind: cache.kind,
    hit: (key, windowMs) => withinBudget(cache.hit(key, windowMs), budgetMs),
    hitMany: (keys, windowMs) => withinBudget(cache.hitMany(keys, windowMs), budgetMs),
    get: (key) => withinBudget(cache.get(key), budgetMs),
    set: (key, value, ttlMs) => withinBudget(cache.set(key, value, ttlMs), budgetMs),
    setIfAbsent: (key, value, ttlMs) => withinBudget(cache.setIfAbsent(key, value, ttlMs), budgetMs),
    del: (key) => withinBudget(cache.del(key), budgetMs),
    ping: (timeoutMs) => cache.ping(timeoutMs),
    close: () => cache.close(),
  };
}
