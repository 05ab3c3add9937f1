// Shared counters and short-lived values. Memory (one process) or Redis (shared across instances).

export interface Cache {
  readonly kind: 'memory' | 'redis';
  /**
   * Counts one hit against `key` in the current fixed window of `windowMs`. The window is read off
   * the cache's own clock (Redis: its `TIME`; memory: the clock it was made with), never the
   * caller's, so instances whose clocks disagree still count into one window, and the counter
   * expires relative to when it was made. Returns the count after this hit and the milliseconds
   * left in the window.
   */
  hit(key: string, windowMs: number): Promise<WindowCount>;
  /**
   * One hit on each key, in order, as `hit` counts them (a key given twice counts twice), sent to
   * the cache together: Redis gets one write for all of them, not one a key.
   */
  hitMany(keys: readonly string[], windowMs: number): Promise<WindowCount[]>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Sets only when absent; true when this call set it. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  del(key: string): Promise<void>;
  ping(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface WindowCount {
  count: number;
  /** Milliseconds until the window ends (>= 1). */
  resetMs: number;
}

export class CacheUnavailableError extends Error {}
