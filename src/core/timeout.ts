// A time limit that a busy event loop cannot turn into a false "no answer".

/**
 * Settles like `p`, or with `fallback` once `ms` have passed (also when `p` rejects). The verdict
 * waits for the I/O phase after the timer fires: when the event loop was busy past `ms`, Node runs
 * due timers before it reads sockets, so a reply already waiting would otherwise lose to the timer
 * and a busy but healthy instance would report its dependencies down (readiness under load).
 */
export function withTimeout<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  return new Promise<T>((resolve) => {
    const timer = setTimeout(() => setImmediate(() => resolve(fallback)), ms);
    timer.unref?.();
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      () => {
        clearTimeout(timer);
        resolve(fallback);
      },
    );
  });
}
