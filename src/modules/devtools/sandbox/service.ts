// POST /api/devtools/partner/v1/sandbox/webhooks/test: a signed sample event to the organisation's
// sandbox endpoints, delivered and retried like a live event. Idempotency-Key (optional): the
// first request's answer is stored with the work in one transaction; a repeat with the same key in
// the same organisation returns it byte for byte (Idempotent-Replayed: true) and queues nothing; the
// same key with another request is 409. Keys are kept 24 hours.
import { createHash } from 'node:crypto';
import type { Db } from '../../../infra/db/index.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { RequestContext } from '../../../platform/operation.ts';
import type { AuditLog } from '../../audit/index.ts';
import { DAY_MS, type EventType } from '../common.ts';
import { devtoolsErrors } from '../errors.ts';
import type { DeliveryEngine } from '../deliveries/engine.ts';
import type { SandboxData } from './generator.ts';
import { idempotencyStore } from './store.ts';
import { endpointStore } from '../webhooks/store.ts';
import { errors } from '../../../platform/errors.ts';

const OPERATION = 'sandboxWebhookTest';
export const IDEMPOTENCY_TTL_MS = DAY_MS;

export interface SandboxTestResult {
  status: number;
  body: string;
  replayed: boolean;
}

export function createSandboxService(deps: { db: Db; clock: Clock; audit: AuditLog; engine: DeliveryEngine; sandbox: SandboxData; maxPending: number }) {
  const { db, clock, audit, engine, sandbox, maxPending } = deps;

  return {
    async webhookTest(ctx: RequestContext, body: { event_type?: EventType; endpoint_id?: string } | null, idemKey?: string): Promise<SandboxTestResult> {
      const type: EventType = body?.event_type ?? 'webhook.test';
      const request = { event_type: type, endpoint_id: body?.endpoint_id ?? null };
      const hash = createHash('sha256').update(JSON.stringify(request)).digest('hex');
      const now = clock.now();
      return db.tx(async (q) => {
        if (idemKey !== undefined) {
          const first = await idempotencyStore.claim(q, ctx.orgId, OPERATION, idemKey, hash, now, new Date(now.getTime() - IDEMPOTENCY_TTL_MS));
          if (!first) {
            const prior = await idempotencyStore.get(q, ctx.orgId, OPERATION, idemKey);
            if (!prior || prior.request_hash !== hash) throw devtoolsErrors.idempotencyConflict();
            if (prior.response_body === null || prior.status_code === null) throw devtoolsErrors.idempotencyInProgress();
            return { status: prior.status_code, body: prior.response_body, replayed: true };
          }
        }
        if (request.endpoint_id) {
          const ep = await endpointStore.get(q, ctx.orgId, request.endpoint_id);
          if (!ep || ep.environment !== 'sandbox') throw errors.notFound();
          if (!ep.enabled) throw devtoolsErrors.endpointDisabled();
        }
        const sandboxOrg = sandbox.orgOf(ctx.orgId);
        const queued = await engine.queueEvent(q, {
          orgId: ctx.orgId,
          environment: 'sandbox',
          type,
          data: sandbox.sampleEventData(ctx.orgId, type, now, { endpointId: request.endpoint_id ?? undefined }),
          envelopeOrgId: sandboxOrg,
          endpointIds: request.endpoint_id ? [request.endpoint_id] : undefined,
          maxPending,
        });
        const out = JSON.stringify({
          event_id: queued.event_id,
          event_type: type,
          organisation_id: sandboxOrg,
          created_at: queued.created_at,
          queued: queued.deliveries.length,
          deliveries: queued.deliveries,
        });
        if (idemKey !== undefined) await idempotencyStore.complete(q, ctx.orgId, OPERATION, idemKey, 202, out);
        await audit.record(q, ctx, {
          action: 'webhook.sandbox_test',
          targetType: 'webhook_event',
          targetId: queued.event_id,
          details: { event_type: type, deliveries: queued.deliveries.length },
        });
        return { status: 202, body: out, replayed: false };
      });
    },
  };
}

export type SandboxService = ReturnType<typeof createSandboxService>;
