// A concurrency gate for CPU-heavy work (the password KDF): at most `concurrency` tasks at once,
// the rest queued in arrival order; past `maxWaiting` queued, a task is refused with 503 and
// Retry-After (code `overloaded`), as the load shedding answers (decision 0012).
import { errors } from './errors.ts';

/** Runs tasks at most `concurrency` at a time, first come first served, `maxWaiting` queued. */
export function createGate(concurrency: number, maxWaiting: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async function run<T>(task: () => Promise<T>): Promise<T> {
    if (running >= concurrency) {
      if (waiting.length >= maxWaiting) throw errors.overloaded();
      await new Promise<void>((resolve) => waiting.push(resolve));
    } else running++;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next in line, or free it.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
