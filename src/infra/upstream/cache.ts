// Response cache for provider data. Entries live in the shared cache (Redis when configured, so
// every instance sees them) and, as a fallback, in a small in-process map: a Redis outage does not
// turn into a provider outage. Freshness is judged by the injected clock; an entry is kept after
// it stops being fresh so that it can be served, marked stale, while the provider is down.
import type { Cache } from '../cache/index.ts';
import type { Clock } from '../../core/clock.ts';
import type { UpstreamMetrics } from './client.ts';
import { UpstreamError } from './client.ts';

export interface CacheEntry<T> {
  value: T;
  /** When the provider gave this value (epoch ms, service clock). */
  fetchedAt: number;
  /** Fresh until (epoch ms, service clock). */
  freshUntil: number;
}

export interface Served<T> {
  value: T;
  fetchedAt: number;
  /** True when the entry was past its freshness and the provider could not be reached. */
  stale: boolean;
  /** True when no provider call was made or the call failed (served from the cache). */
  fromCache: boolean;
}

export interface ServeOptions<T> {
  /** Metrics label of the provider. */
  provider: string;
  fetch: () => Promise<T>;
  /** How long a freshly fetched value stays fresh (ms), given the value and the time. */
  freshFor: (value: T, nowMs: number) => number;
  /** How long an entry is kept in total, to be served stale during an outage (ms). */
  retainMs: number;
}

export interface UpstreamCache {
  read<T>(key: string): Promise<CacheEntry<T> | null>;
  write<T>(key: string, entry: CacheEntry<T>, retainMs: number): Promise<void>;
  /**
   * Fresh entry → served without a call. Otherwise one call (shared by concurrent callers in this
   * process); on success the entry is replaced; on an UpstreamError an expired entry is served
   * with stale=true, and without one the error is thrown.
   */
  serve<T>(key: string, opts: ServeOptions<T>): Promise<Served<T>>;
}

export interface UpstreamCacheOptions {
  cache: Cache;
  clock: Clock;
  /** Prefix so deployments and test runs sharing a Redis do not see each other's entries. */
  namespace: string;
  metrics: Pick<UpstreamMetrics, 'upstreamCalls'>;
  localMaxEntries?: number;
}

export function createUpstreamCache(opts: UpstreamCacheOptions): UpstreamCache {
  const { cache, clock, metrics } = opts;
  const max = opts.localMaxEntries ?? 500;
  const local = new Map<string, { json: string; expiresAt: number }>();
  const inflight = new Map<string, Promise<Served<unknown>>>();
  const fullKey = (key: string) => `${opts.namespace}:upstream:${key}`;

  function localGet(key: string): string | null {
    const e = local.get(key);
    if (!e) return null;
    if (e.expiresAt <= Date.now()) {
      local.delete(key);
      return null;
    }
    // Least recently used goes first when the map is full.
    local.delete(key);
    local.set(key, e);
    return e.json;
  }

  function localSet(key: string, json: string, retainMs: number) {
    local.delete(key);
    local.set(key, { json, expiresAt: Date.now() + retainMs });
    while (local.size > max) local.delete(local.keys().next().value as string);
  }

  function parse<T>(json: string | null): CacheEntry<T> | null {
    if (!json) return null;
    try {
      const e = JSON.parse(json) as CacheEntry<T>;
      return typeof e?.fetchedAt === 'number' && typeof e.freshUntil === 'number' ? e : null;
    } catch {
      return null;
    }
  }

  async function read<T>(key: string): Promise<CacheEntry<T> | null> {
    const k = fullKey(key);
    const shared = parse<T>(await cache.get(k).catch(() => null));
    const mine = parse<T>(localGet(k));
    if (!shared) return mine;
    if (!mine) return shared;
    return mine.fetchedAt > shared.fetchedAt ? mine : shared;
  }

  async function write<T>(key: string, entry: CacheEntry<T>, retainMs: number): Promise<void> {
    const k = fullKey(key);
    const json = JSON.stringify(entry);
    localSet(k, json, retainMs);
    await cache.set(k, json, retainMs).catch(() => {});
  }

  async function refresh<T>(key: string, o: ServeOptions<T>, previous: CacheEntry<T> | null): Promise<Served<T>> {
    try {
      const value = await o.fetch();
      const now = clock.now().getTime();
      await write(key, { value, fetchedAt: now, freshUntil: now + Math.max(0, o.freshFor(value, now)) }, o.retainMs);
      return { value, fetchedAt: now, stale: false, fromCache: false };
    } catch (e) {
      if (!(e instanceof UpstreamError) || !previous) throw e;
      metrics.upstreamCalls.inc({ provider: o.provider, outcome: 'stale_served' });
      return { value: previous.value, fetchedAt: previous.fetchedAt, stale: true, fromCache: true };
    }
  }

  async function serve<T>(key: string, o: ServeOptions<T>): Promise<Served<T>> {
    const entry = await read<T>(key);
    if (entry && clock.now().getTime() < entry.freshUntil) {
      metrics.upstreamCalls.inc({ provider: o.provider, outcome: 'cache_hit' });
      return { value: entry.value, fetchedAt: entry.fetchedAt, stale: false, fromCache: true };
    }
    const running = inflight.get(key) as Promise<Served<T>> | undefined;
    if (running) return running;
    const p = refresh(key, o, entry).finally(() => inflight.delete(key));
    inflight.set(key, p as Promise<Served<unknown>>);
    return p;
  }

  return { read, write, serve };
}
