// The delivery engine: events become one delivery per endpoint, each delivery one job in the
// durable queue; each run of the job is one signed attempt. Schedule, outcomes and disabling are
// in docs/decisions/0082-webhook-delivery-schedule.md.
import type { Db, Queryable } from '../../../infra/db/index.ts';
import { cancelJob, type Job, type JobOutcome, type JobQueue } from '../../../infra/jobs/queue.ts';
import { OutboundRefusedError, outboundRequest } from '../../../infra/outbound/http-client.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { Config } from '../../../core/config.ts';
import type { AuditLog } from '../../audit/index.ts';
import type { OrgDirectory } from '../../orgs/index.ts';
import { PARTNER_ALERTS, type AlertStream } from '../../alerts/index.ts';
import { API_VERSION, newId, type Environment } from '../common.ts';
import { devtoolsErrors } from '../errors.ts';
import { endpointStore, type EndpointRow } from '../webhooks/store.ts';
import { signatureHeader, type SecretBox } from '../webhooks/secrets.ts';
import { deliveryStore } from './store.ts';
import { nextAttemptAt, firstAttemptAt, DISABLE_AFTER_MS, parseRetryAfter, MAX_ATTEMPTS } from './schedule.ts';

export const DELIVER_JOB = 'webhooks.deliver';
export const FANOUT_JOB = 'webhooks.fanout';

export const disabledAlertKey = (endpointId: string) => `${PARTNER_ALERTS.webhookDisabled}:${endpointId}`;

export interface QueueEventInput {
  orgId: string;
  environment: Environment;
  type: string;
  data: Record<string, unknown>;
  /** organisation_id in the envelope: the organisation, or its sandbox organisation. */
  envelopeOrgId: string;
  /** Send to exactly these endpoints (enabled, same environment) instead of every subscriber. */
  endpointIds?: string[];
  /**
   * Refuse (429) when the organisation's pending deliveries of this environment plus this event's
   * would pass this bound (sample sends, decision 0089). Takes the organisation's row lock, so
   * concurrent sends cannot pass it together.
   */
  maxPending?: number;
}

export interface QueuedEvent {
  event_id: string;
  event_type: string;
  created_at: string;
  deliveries: { delivery_id: string; endpoint_id: string }[];
}

export interface EngineDeps {
  db: Db;
  clock: Clock;
  config: Config;
  /** Deadline of one attempt (devtools settings). */
  webhookTimeoutMs: number;
  alerts: AlertStream;
  audit: AuditLog;
  queue: Pick<JobQueue, 'enqueue'>;
  box: SecretBox;
  /** Locks the organisation's row: sandbox backlog checks are serialised per organisation. */
  orgs: Pick<OrgDirectory, 'lockPlanLimits'>;
  /** Told each delivery attempt's recorded outcome, and each delivery cancelled before its attempt. */
  onOutcome?: (outcome: DeliveryOutcome) => void;
}

/** `retrying`: the attempt failed and another is scheduled; `failed`: it failed and none is left. */
export type DeliveryOutcome = 'succeeded' | 'retrying' | 'failed' | 'cancelled';

export function createDeliveryEngine(deps: EngineDeps) {
  const { db, clock, config, alerts, audit, queue, box, orgs } = deps;
  // One deadline for the whole exchange (spec: 10 s). A receiver that accepts and never answers
  // holds one worker slot for this long, and its organisation's cap bounds how many (0088).
  const timeoutMs = deps.webhookTimeoutMs;
  const timeoutText = timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`;
  // The one error recorded for an attempt without an HTTP answer, whatever went wrong (refused,
  // reset, timed out, TLS or DNS failure): the log must not let its reader map hosts and ports
  // behind the receiver's address (decision 0016). Its times are its start and its duration 0.
  const noAnswer = `connection failed: no HTTP answer within ${timeoutText}`;
  const counted = (outcome: DeliveryOutcome) => deps.onOutcome?.(outcome);
  const cancel = async (q: Queryable, orgId: string, id: string, reason: string, at: Date) => {
    await deliveryStore.cancel(q, orgId, id, reason, at);
    counted('cancelled');
  };

  async function addDelivery(q: Queryable, orgId: string, endpointId: string, eventId: string, now: Date, replay: boolean) {
    const id = newId('dlv');
    const runAt = firstAttemptAt(now);
    await deliveryStore.insertDelivery(q, orgId, { id, endpointId, eventId, nextAttemptAt: runAt, replay, now });
    await queue.enqueue(q, { kind: DELIVER_JOB, payload: { delivery_id: id }, orgId, runAt, dedupeKey: `delivery:${id}` });
    return { delivery_id: id, endpoint_id: endpointId };
  }

  /** Stores the event (kept 30 days) and queues one delivery per target endpoint, in the caller's transaction. */
  async function queueEvent(q: Queryable, input: QueueEventInput): Promise<QueuedEvent> {
    const now = clock.now();
    const targets = await endpointStore.targets(q, input.orgId, input.environment, input.type, input.endpointIds);
    if (input.maxPending !== undefined) await checkBacklog(q, input.orgId, input.environment, targets.length, input.maxPending);
    const id = newId('evt');
    const envelope = {
      id,
      type: input.type,
      created_at: now.toISOString(),
      organisation_id: input.envelopeOrgId,
      api_version: API_VERSION,
      data: input.data,
    };
    await deliveryStore.insertEvent(q, input.orgId, {
      id,
      environment: input.environment,
      type: input.type,
      body: JSON.stringify(envelope),
      created_at: now,
    });
    const deliveries = [];
    for (const ep of targets) deliveries.push(await addDelivery(q, input.orgId, ep.id, id, now, false));
    return { event_id: id, event_type: input.type, created_at: envelope.created_at, deliveries };
  }

  async function checkBacklog(q: Queryable, orgId: string, env: Environment, adding: number, max: number) {
    await orgs.lockPlanLimits(q, orgId);
    const pending = await deliveryStore.pendingCount(q, orgId, env);
    if (pending + adding > max) throw devtoolsErrors.sandboxBacklogFull(pending, adding, max);
  }

  function secretsOf(ep: EndpointRow, now: Date): string[] {
    const out = [box.open(ep.secret_enc)];
    if (ep.previous_secret_enc && ep.previous_secret_until && ep.previous_secret_until > now) out.push(box.open(ep.previous_secret_enc));
    return out;
  }

  async function onFailureOfEndpoint(q: Queryable, ep: EndpointRow, now: Date): Promise<boolean> {
    const state = await endpointStore.markFailure(q, ep.org_id, ep.id, now);
    if (!state?.enabled || now.getTime() - new Date(state.failing_since).getTime() < DISABLE_AFTER_MS) return false;
    if (!(await endpointStore.disableFailing(q, ep.org_id, ep.id, now))) return false;
    const cancelled = await deliveryStore.cancelPendingOfEndpoint(q, ep.org_id, ep.id, 'endpoint_disabled', now);
    await alerts.raise(q, ep.org_id, {
      type: PARTNER_ALERTS.webhookDisabled,
      source: 'devtools.webhooks',
      severity: 'critical',
      title: `Webhook endpoint ${ep.url} was disabled after 72 hours of failed deliveries`,
      subject: { type: 'webhook_endpoint', id: ep.id },
      details: {
        endpoint_id: ep.id,
        url: ep.url,
        environment: ep.environment,
        failing_since: new Date(state.failing_since).toISOString(),
        cancelled_deliveries: cancelled,
      },
      dedupeKey: disabledAlertKey(ep.id),
    });
    await audit.record(
      q,
      { orgId: ep.org_id, actorType: 'system', actorId: 'webhook-delivery' },
      {
        action: 'webhook.disable',
        targetType: 'webhook_endpoint',
        targetId: ep.id,
        details: { reason: 'failing', failing_since: new Date(state.failing_since).toISOString() },
      },
    );
    return true;
  }

  /** One attempt of one delivery. */
  async function deliver(job: Job<{ delivery_id: string }>): Promise<JobOutcome | void> {
    const orgId = job.orgId!;
    const d = await deliveryStore.getDelivery(db, orgId, job.payload.delivery_id);
    if (!d || d.status !== 'pending') return;
    const ep = await endpointStore.get(db, orgId, d.endpoint_id);
    if (!ep) return;
    const started = clock.now();
    if (!ep.enabled) {
      return { finalize: (q) => cancel(q, orgId, d.id, 'endpoint_disabled', started) };
    }
    const event = await deliveryStore.getEvent(db, orgId, d.event_id);
    if (!event) return { finalize: (q) => cancel(q, orgId, d.id, 'event_expired', started) };
    const t = Math.floor(started.getTime() / 1000);
    let status: number | null = null;
    let error: string | null = null;
    let retryAfter: number | null = null;
    const t0 = performance.now();
    try {
      const res = await outboundRequest(
        ep.url,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'platform-signature': signatureHeader(event.body, t, secretsOf(ep, started)),
            'platform-event-id': event.id,
            'platform-event-type': event.type,
            'platform-delivery-id': d.id,
          },
          body: event.body,
        },
        { allowPrivate: config.allowPrivateOutbound, requireHttps: true, timeoutMs, maxResponseBytes: 256 * 1024 },
      );
      status = res.status;
      if (status < 200 || status > 299) error = status >= 300 && status < 400 ? `redirect (${status}) not followed` : `HTTP ${status}`;
      retryAfter = parseRetryAfter(res.headers['retry-after'], clock.now());
    } catch (e) {
      // A refusal by the address policy names the rule, never what the network answered.
      error = e instanceof OutboundRefusedError ? `refused: ${e.message}` : noAnswer;
    }
    const answered = status !== null;
    const duration = answered ? Math.round(performance.now() - t0) : 0;
    const now = answered ? clock.now() : started;
    const ok = error === null;
    const attempt = d.attempt_count + 1;
    const next = ok || status === 410 ? null : nextAttemptAt(d.created_at, attempt, now, retryAfter);
    return {
      retryAt: next ?? undefined,
      finalize: async (q) => {
        let nextAt = next;
        if (ok) await endpointStore.markSuccess(q, orgId, ep.id, now);
        else if (await onFailureOfEndpoint(q, ep, now)) nextAt = null;
        const recorded = await deliveryStore.recordAttempt(q, orgId, {
          deliveryId: d.id,
          attempt,
          attempted_at: started,
          status_code: status,
          outcome: ok ? 'succeeded' : 'failed',
          error: error ?? (ok ? null : 'failed'),
          duration_ms: duration,
          status: ok ? 'succeeded' : nextAt ? 'pending' : 'failed',
          nextAttemptAt: nextAt,
        });
        if (!recorded) return;
        counted(ok ? 'succeeded' : nextAt ? 'retrying' : 'failed');
        if (!nextAt && next) {
          // Disabled by this failure: the job row (kept for the retry) has nothing left to do.
          await cancelJob(q, `delivery:${d.id}`);
        }
      },
    };
  }

  /** alert.raised / alert.resolved from the organisation alert stream → live endpoints. */
  async function fanout(job: Job<{ topic: string; org_id: string; alert: Record<string, unknown> }>): Promise<JobOutcome> {
    const { topic, org_id, alert } = job.payload;
    return {
      finalize: async (q) => {
        await queueEvent(q, { orgId: org_id, environment: 'live', type: topic, data: { alert }, envelopeOrgId: org_id });
      },
    };
  }

  return {
    queueEvent,
    deliver,
    fanout,
    /** A new delivery of a stored event to one endpoint (replay). */
    async replay(q: Queryable, orgId: string, endpointId: string, eventId: string) {
      return addDelivery(q, orgId, endpointId, eventId, clock.now(), true);
    },
  };
}

export type DeliveryEngine = ReturnType<typeof createDeliveryEngine>;

export { MAX_ATTEMPTS };
