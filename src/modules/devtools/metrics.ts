// What the developer platform counts, registered through the platform's metrics facility: webhook
// deliveries by outcome. (The job queue's own gauges are the platform's: src/platform/jobs.ts.)
import type { Metrics } from '../../platform/metrics.ts';
import type { DeliveryOutcome } from './deliveries/engine.ts';

export function devtoolsMetrics(metrics: Metrics) {
  const deliveries = metrics.counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (succeeded, retrying, failed = no attempt left), and deliveries cancelled before an attempt',
    labelNames: ['outcome'],
  });
  return { delivered: (outcome: DeliveryOutcome) => deliveries.inc({ outcome }) };
}
