// What the developer platform counts, registered through the platform's metrics facility:
// webhook deliveries by outcome, and the durable job queue's depth, age and dead jobs per kind
// (read from the store at each scrape, one query shared by the three gauges).
import type { Queryable } from '../../infra/db/index.ts';
import { queueStats, type QueueStats } from '../../infra/jobs/queue.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Metrics } from '../../platform/metrics.ts';
import type { DeliveryOutcome } from './deliveries/engine.ts';

export function devtoolsMetrics(metrics: Metrics, deps: { db: Queryable; clock: Clock; kinds: () => readonly string[] }) {
  const deliveries = metrics.counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (succeeded, retrying, failed = no attempt left), and deliveries cancelled before an attempt',
    labelNames: ['outcome'],
  });
  // One read per scrape: the gauges are collected together, so they share the pending query.
  let pending: Promise<QueueStats[]> | undefined;
  const read = () =>
    (pending ??= queueStats(deps.db, deps.clock.now()).finally(() => setImmediate(() => (pending = undefined))));
  const perKind = (name: string, help: string, value: (s: QueueStats) => number) =>
    metrics.gauge({
      name,
      help,
      labelNames: ['kind'],
      async collect(gauge) {
        const stats = await read();
        gauge.reset();
        for (const kind of deps.kinds()) gauge.set({ kind }, 0);
        for (const s of stats) gauge.set({ kind: s.kind }, value(s));
      },
    });
  perKind('job_queue_depth', 'Jobs due now and waiting to be claimed, by kind', (s) => s.due);
  perKind('job_queue_oldest_age_seconds', 'How long the oldest job waiting to be claimed has been due, by kind', (s) => s.oldestDueMs / 1000);
  perKind('job_queue_dead', 'Jobs that gave up after their last attempt, by kind', (s) => s.dead);
  return { delivered: (outcome: DeliveryOutcome) => deliveries.inc({ outcome }) };
}
