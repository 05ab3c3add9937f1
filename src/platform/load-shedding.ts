// Overload is answered, not queued: once MAX_INFLIGHT_REQUESTS requests are being handled, a new
// one gets 503 with Retry-After at once instead of waiting seconds behind the others for a
// saturated core or store (reliability plan T-2). Probes are exempt, so readiness and metrics
// still answer under overload. By Little's law the bound also bounds queueing: latency is at
// most about the limit divided by the throughput the service is achieving.
import type { FastifyInstance } from 'fastify';
import type { Gauge } from 'prom-client';
import { errors } from './errors.ts';

export function registerLoadShedding(app: FastifyInstance, o: { maxInFlight: number; gauge: Gauge }): void {
  let inFlight = 0;
  app.addHook('onRequest', async (req, reply) => {
    const op = req.routeOptions.config?.op;
    if (op?.probe) return;
    // A stream (server-sent events) is admitted like any request but holds no slot while it lasts.
    if (op?.stream) {
      if (inFlight >= o.maxInFlight) throw errors.overloaded();
      return;
    }
    if (inFlight >= o.maxInFlight) {
      throw errors.overloaded();
    }
    inFlight++;
    o.gauge.set(inFlight);
    // 'close' fires once, whether the answer was sent or the client went away first.
    reply.raw.once('close', () => {
      inFlight--;
      o.gauge.set(inFlight);
    });
  });
}
