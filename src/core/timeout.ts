// Time limits that a busy event loop cannot turn into a false "no answer".

/**
 * Settles like `p`, or as `onLate()` does (its value, or its throw) once `ms` have passed. The
 * verdict waits for the I/O phase after the timer fires: when the event loop was busy past `ms`,
 * Node runs due timers before it reads sockets, so a reply already waiting would otherwise lose to
 * the timer and a busy but healthy instance would report its dependencies down (readiness under
 * load, the T-8 run: key writes refused with Redis healthy on a busy box). `p` goes on; a late
 * result is dropped.
 */
export function settleWithin<T>(p: Promise<T>, ms: number, onLate: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          try {
            resolve(onLate());
          } catch (e) {
            reject(e);
          }
        }),
      ms,
    );
    timer.unref?.();
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

/** Settles like `p`, or with `fallback` once `ms` have passed (also when `p` rejects). */
export function withTimeout<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  return settleWithin(
    p.catch(() => fallback),
    ms,
    () => fallback,
  );
}
