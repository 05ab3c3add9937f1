import type { Bus, BusHandler } from './index.ts';
import { payloadJson, subjectMatches } from './index.ts';

export function createMemoryBus(): Bus {
  const subs = new Set<{ pattern: string; handler: BusHandler }>();
  let closed = false;
  const bus: Bus = {
    kind: 'memory',
    async publishRetrying(subject, payload) {
      // In process nothing refuses a message: accepted at once.
      await bus.publish(subject, payload);
      return { accepted: true, settled: Promise.resolve(true) };
    },
    async publish(subject, payload) {
      // A copy, so a subscriber cannot change what the publisher holds (as over a wire).
      const copy = JSON.parse(payloadJson(payload));
      for (const s of subs) {
        if (subjectMatches(s.pattern, subject)) {
          queueMicrotask(() => {
            Promise.resolve(s.handler(copy, subject)).catch(() => {});
          });
        }
      }
    },
    async subscribe(pattern, handler) {
      const entry = { pattern, handler };
      subs.add(entry);
      return async () => {
        subs.delete(entry);
      };
    },
    async ping() {
      return !closed;
    },
    async close() {
      closed = true;
      subs.clear();
    },
  };
  return bus;
}
