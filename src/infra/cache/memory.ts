import type { Cache, WindowCount } from './index.ts';

interface Entry {
  value: string;
  expiresAt: number; // epoch ms, Infinity = never
}

/** One process only: counters are not shared between instances. */
export function createMemoryCache(now: () => number = Date.now): Cache {
  const map = new Map<string, Entry>();
  let closed = false;
  const live = (key: string): Entry | undefined => {
    const e = map.get(key);
    if (e && e.expiresAt <= now()) {
      map.delete(key);
      return undefined;
    }
    return e;
  };
  // Expired counters are swept lazily and by this timer, so the map does not grow without bound.
  const sweep = setInterval(() => {
    const t = now();
    for (const [k, e] of map) if (e.expiresAt <= t) map.delete(k);
  }, 30_000);
  sweep.unref();
  const hit = (key: string, windowMs: number): WindowCount => {
    const t = now();
    const windowEnd = Math.floor(t / windowMs) * windowMs + windowMs;
    const k = `${key}:${windowEnd}`;
    const e = live(k);
    const count = e ? Number(e.value) + 1 : 1;
    map.set(k, { value: String(count), expiresAt: windowEnd });
    return { count, resetMs: Math.max(1, windowEnd - t) };
  };
  return {
    kind: 'memory',
    async hit(key, windowMs) {
      return hit(key, windowMs);
    },
    async hitMany(keys, windowMs) {
      return keys.map((key) => hit(key, windowMs));
    },
    async get(key) {
      return live(key)?.value ?? null;
    },
    async set(key, value, ttlMs) {
      map.set(key, { value, expiresAt: ttlMs ? now() + ttlMs : Infinity });
    },
    async setIfAbsent(key, value, ttlMs) {
      if (live(key)) return false;
      map.set(key, { value, expiresAt: now() + ttlMs });
      return true;
    },
    async del(key) {
      map.delete(key);
    },
    async ping() {
      return !closed;
    },
    async close() {
      closed = true;
      clearInterval(sweep);
      map.clear();
    },
  };
}
