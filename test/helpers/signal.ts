// Deterministic synchronisation for tests: instead of sleeping or polling until something has
// happened, the thing that happens (a fake server receiving a request, a bus subscriber getting a
// message, a fixture handler being entered, a fault proxy dropping bytes) pushes to an Inbox or
// resolves a Deferred, and the test awaits that. A wait never passes time on purpose; its bound
// only turns a hang into a failure that says what never happened.

/** A promise with its resolve function outside. */
export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
  settled(): boolean;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let done = false;
  const promise = new Promise<T>((r) => (resolve = r));
  return {
    promise,
    resolve(v) {
      done = true;
      resolve(v);
    },
    settled: () => done,
  };
}

/** Fails with `never happened: <what>` if `p` has not settled after `boundMs` (a bound, not a wait). */
export function bounded<T>(p: Promise<T>, what: string, boundMs = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`never happened: ${what}`)), boundMs);
    timer.unref();
  });
  return Promise.race([p, bound]).finally(() => clearTimeout(timer));
}

/** Items pushed as they happen; `until` resolves as soon as the items seen so far satisfy a check. */
export class Inbox<T> {
  readonly items: T[] = [];
  private waiters: { check: (items: readonly T[]) => boolean; done: () => void }[] = [];

  push = (item: T): void => {
    this.items.push(item);
    this.waiters = this.waiters.filter((w) => {
      if (!w.check(this.items)) return true;
      w.done();
      return false;
    });
  };

  until(check: (items: readonly T[]) => boolean, what: string, boundMs?: number): Promise<void> {
    if (check(this.items)) return Promise.resolve();
    const d = deferred();
    this.waiters.push({ check, done: () => d.resolve() });
    return bounded(d.promise, what, boundMs);
  }

  /** Resolves once `n` items have arrived. */
  count(n: number, what = `${n} items`, boundMs?: number): Promise<void> {
    return this.until((items) => items.length >= n, what, boundMs);
  }
}
