// Overload is answered, not queued: once MAX_INFLIGHT_REQUESTS requests are being handled, a new
// one gets 503 with Retry-After at once instead of waiting seconds behind the others for a
// saturated core or store (reliability plan T-2). Probes are exempt, so readiness and metrics
// still answer under overload. By Little's law the bound also bounds queueing: latency is at
// most about the limit divided by the throughput the service is achieving.
//
// One organisation's share of those places is bounded too (MAX_INFLIGHT_PER_ORG, decision 0505):
// its requests past the share get the same 503 once it is authenticated, so requests that last
// long (an alert dispatch to receivers it controls answering just inside their 10 s, say) cannot
// take every place of an instance and turn every other organisation away.
import type { FastifyInstance, FastifyReply } from 'fastify';
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

/** Requests of each organisation in progress on this instance, each at most `maxPerOrg`. */
export function createOrgShares(maxPerOrg: number) {
  const inFlight = new Map<string, number>();
  return {
    /** Counts the request against its organisation until its answer ends; 503 past the share. */
    admit(orgId: string, reply: FastifyReply): void {
      const n = inFlight.get(orgId) ?? 0;
      if (n >= maxPerOrg) throw errors.overloaded();
      inFlight.set(orgId, n + 1);
      reply.raw.once('close', () => {
        const left = (inFlight.get(orgId) ?? 1) - 1;
        if (left > 0) inFlight.set(orgId, left);
        else inFlight.delete(orgId);
      });
    },
  };
}
export type OrgShares = ReturnType<typeof createOrgShares>;
