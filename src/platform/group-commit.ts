// Group commit: callers that each need a small write committed before they answer share one
// transaction. A write waits for the next flush; a flush takes every write queued since the last one
// began, so under load a thousand callers a second cost a few store transactions, and a lone caller
// waits for nothing but its own. A flush that fails fails each of its callers (nothing is retried
// here: the caller answers its error as it would have for its own write).
export type GroupCommit<T> = (item: T) => Promise<void>;

export function groupCommit<T>(write: (items: T[]) => Promise<void>): GroupCommit<T> {
  let queue: { item: T; done: (err?: unknown) => void }[] = [];
  let running = false;
  async function drain(): Promise<void> {
    running = true;
    try {
      while (queue.length) {
        const batch = queue;
        queue = [];
        try {
          await write(batch.map((b) => b.item));
          for (const b of batch) b.done();
        } catch (err) {
          for (const b of batch) b.done(err);
        }
      }
    } finally {
      running = false;
    }
  }
  return (item) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ item, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (!running) void drain();
    });
}
