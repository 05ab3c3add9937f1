// Entries from outside that are not Fastify routes (decision 0270): WebSocket upgrades, socket and
// emitter callbacks, bus deliveries, timers, promises nobody awaits. Fastify catches what a route
// throws and answers in the spec's shape; nothing does that for these, and a throw there (or an
// unhandled rejection) would end the process. Every such entry goes through this guard: a failure
// becomes a log line and a count in `eps_uncaught_entry_errors_total{entry}`, never an exit, and the
// caller refuses whatever it was serving (a 400 on the socket, a CALLERROR, a dropped message).
import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from './metrics.ts';

export interface EntryGuard {
  /** Records one failure at an entry: an error log line and the metric. Never throws. */
  failed(entry: string, err: unknown, fields?: Record<string, unknown>): void;
  /**
   * A callback an emitter, a socket, a timer or the bus calls: what it throws, or the promise it
   * returns rejects with, is recorded and `onError` (if given) refuses; nothing propagates.
   */
  wrap<A extends unknown[]>(entry: string, fn: (...args: A) => unknown, onError?: (err: unknown, ...args: A) => void): (...args: A) => void;
  /** A promise nobody awaits (`void p`): its rejection is recorded. */
  settle(entry: string, p: Promise<unknown>): void;
}

export function createEntryGuard(deps: { log: FastifyBaseLogger; metrics: Pick<Metrics, 'uncaughtEntries'> }): EntryGuard {
  const failed = (entry: string, err: unknown, fields?: Record<string, unknown>) => {
    try {
      deps.metrics.uncaughtEntries.inc({ entry });
      deps.log.error({ err, entry, ...fields }, `uncaught failure at ${entry}: refused, the service carries on`);
    } catch {
      // Logging and counting must not become the next uncaught failure.
    }
  };
  const refuse = <A extends unknown[]>(onError: ((err: unknown, ...args: A) => void) | undefined, err: unknown, args: A, entry: string) => {
    if (!onError) return;
    try {
      onError(err, ...args);
    } catch (again) {
      failed(`${entry}.refusal`, again);
    }
  };
  return {
    failed,
    wrap(entry, fn, onError) {
      return (...args) => {
        let out: unknown;
        try {
          out = fn(...args);
        } catch (err) {
          failed(entry, err);
          refuse(onError, err, args, entry);
          return;
        }
        if (out instanceof Promise) {
          out.catch((err) => {
            failed(entry, err);
            refuse(onError, err, args, entry);
          });
        }
      };
    },
    settle(entry, p) {
      p.catch((err) => failed(entry, err));
    },
  };
}
