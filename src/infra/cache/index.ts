// Shared counters and short-lived values. Memory (one process) or Redis (shared across instances).

export interface Cache {
  readonly kind: 'memory' | 'redis';
  /**
   * Counts one hit against `key` in a window that ends at `windowEndMs` (epoch ms); the key expires
   * then. Returns the count after this hit. Callers derive the key from the window so that every
   * instance counts into the same one.
   */
  hit(key: string, windowEndMs: number, nowMs: number): Promise<number>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Sets only when absent; true when this call set it. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  del(key: string): Promise<void>;
  ping(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export class CacheUnavailableError extends Error {}
