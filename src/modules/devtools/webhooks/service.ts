// Webhook endpoints: register (HTTPS, public addresses only), change, disable / re-enable, delete,
// rotate the signing secret, read the delivery log, send a test event, replay a stored event.
import type { Db } from '../../../infra/db/index.ts';
import { checkTarget as checkPublicTarget, OutboundRefusedError } from '../../../infra/outbound/http-client.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { RequestContext } from '../../../platform/operation.ts';
import { errors } from '../../../platform/errors.ts';
import type { CursorCodec } from '../../../platform/cursor.ts';
import { pageAfter } from '../../../platform/cursor.ts';
import type { Config } from '../../../core/config.ts';
import type { AuditLog } from '../../audit/index.ts';
import type { OrgDirectory } from '../../orgs/index.ts';
import type { AlertStream } from '../../alerts/index.ts';
import { EVENT_TYPES, iso, newId, sandboxOrgId, PAGE_LIMIT, type Environment, type EventType } from '../common.ts';
import { devtoolsErrors } from '../errors.ts';
import { endpointStore, type EndpointRow } from './store.ts';
import { newSigningSecret, type SecretBox } from './secrets.ts';
import { deliveryStore, type AttemptRow, type DeliveryRow } from '../deliveries/store.ts';
import { disabledAlertKey, type DeliveryEngine } from '../deliveries/engine.ts';
import type { SandboxData } from '../sandbox/generator.ts';

export const DEFAULT_SECRET_OVERLAP_SECONDS = 86_400;

export interface WebhookDeps {
  db: Db;
  clock: Clock;
  config: Config;
  /** Pending sandbox deliveries an organisation may have (devtools settings, decision 0089). */
  sandboxMaxPendingDeliveries: number;
  audit: AuditLog;
  alerts: AlertStream;
  cursors: CursorCodec;
  box: SecretBox;
  engine: DeliveryEngine;
  sandbox: SandboxData;
  /** The organisation's plan limits, locked in the registering transaction. */
  orgs: Pick<OrgDirectory, 'lockPlanLimits'>;
}

export function createWebhookService(deps: WebhookDeps) {
  const { db, clock, config, audit, alerts, cursors, box, engine, orgs } = deps;

  const view = (e: EndpointRow, now = clock.now()) => ({
    id: e.id,
    url: e.url,
    description: e.description,
    environment: e.environment,
    event_types: e.event_types,
    enabled: e.enabled,
    disabled_reason: e.disabled_reason,
    disabled_at: iso(e.disabled_at),
    failing_since: iso(e.failing_since),
    last_success_at: iso(e.last_success_at),
    last_failure_at: iso(e.last_failure_at),
    previous_secret_valid_until: e.previous_secret_until && e.previous_secret_until > now ? iso(e.previous_secret_until) : null,
    created_at: iso(e.created_at)!,
    updated_at: iso(e.updated_at)!,
  });

  /** HTTPS to a public address only (unless private outbound is allowed); the delivery re-checks at connect time. */
  async function checkTarget(raw: string): Promise<string> {
    try {
      return (await checkPublicTarget(raw, { allowPrivate: config.allowPrivateOutbound })).toString();
    } catch (e) {
      if (e instanceof OutboundRefusedError) throw devtoolsErrors.invalidField(['body', 'url'], `URL refused: ${e.message}`, raw);
      throw e;
    }
  }

  async function getOr404(orgId: string, id: string) {
    const e = await endpointStore.get(db, orgId, id);
    if (!e) throw errors.notFound();
    return e;
  }

  const deliveryView = (d: DeliveryRow, attempts: AttemptRow[]) => ({
    id: d.id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status,
    replay: d.replay,
    attempt_count: d.attempt_count,
    next_attempt_at: iso(d.next_attempt_at),
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    created_at: iso(d.created_at)!,
    completed_at: iso(d.completed_at),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      attempted_at: iso(a.attempted_at)!,
      status_code: a.status_code,
      outcome: a.outcome,
      error: a.error,
      duration_ms: a.duration_ms,
    })),
  });

  return {
    async list(ctx: RequestContext, env?: Environment) {
      const now = clock.now();
      return (await endpointStore.list(db, ctx.orgId, env)).map((e) => view(e, now));
    },

    async create(ctx: RequestContext, env: Environment, body: { url: string; description?: string; event_types?: string[] }) {
      const url = await checkTarget(body.url);
      const now = clock.now();
      const secret = newSigningSecret();
      const row = await db.tx(async (q) => {
        const limits = await orgs.lockPlanLimits(q, ctx.orgId);
        if (!limits) throw errors.notFound();
        const max = limits.webhook_endpoints;
        if (typeof max === 'number' && (await endpointStore.count(q, ctx.orgId)) >= max) {
          throw errors.planLimit('webhook_endpoints', max, `${config.publicDocsOrigin}/docs/plans`);
        }
        const e = await endpointStore.insert(q, ctx.orgId, {
          id: newId('we'),
          environment: env,
          url,
          description: body.description ?? '',
          event_types: [...new Set(body.event_types ?? EVENT_TYPES)],
          secret_enc: box.seal(secret),
          now,
        });
        await audit.record(q, ctx, { action: 'webhook.create', targetType: 'webhook_endpoint', targetId: e.id, details: { environment: env, url } });
        return e;
      });
      return { ...view(row, now), secret };
    },

    async update(ctx: RequestContext, id: string, body: { url?: string; description?: string; event_types?: string[]; enabled?: boolean }) {
      const url = body.url !== undefined ? await checkTarget(body.url) : undefined;
      const now = clock.now();
      const row = await db.tx(async (q) => {
        const before = await endpointStore.get(q, ctx.orgId, id, true);
        if (!before) throw errors.notFound();
        const set: Parameters<typeof endpointStore.update>[3] = { updated_at: now };
        if (url !== undefined) set.url = url;
        if (body.description !== undefined) set.description = body.description;
        if (body.event_types !== undefined) set.event_types = [...new Set(body.event_types)];
        if (body.enabled === false && before.enabled) Object.assign(set, { enabled: false, disabled_reason: 'manual', disabled_at: now });
        if (body.enabled === true && !before.enabled) {
          Object.assign(set, { enabled: true, disabled_reason: null, disabled_at: null, failing_since: null });
        }
        const e = (await endpointStore.update(q, ctx.orgId, id, set))!;
        if (body.enabled === true) await alerts.resolve(q, ctx.orgId, disabledAlertKey(id), 're_enabled');
        await audit.record(q, ctx, {
          action: 'webhook.update',
          targetType: 'webhook_endpoint',
          targetId: id,
          details: { changed: Object.keys(body).filter((k) => (body as Record<string, unknown>)[k] !== undefined) },
        });
        return e;
      });
      return view(row, now);
    },

    async remove(ctx: RequestContext, id: string) {
      await db.tx(async (q) => {
        if (!(await endpointStore.remove(q, ctx.orgId, id))) throw errors.notFound();
        await alerts.resolve(q, ctx.orgId, disabledAlertKey(id), 'deleted');
        await audit.record(q, ctx, { action: 'webhook.delete', targetType: 'webhook_endpoint', targetId: id });
      });
    },

    async rotateSecret(ctx: RequestContext, id: string, overlapSeconds: number) {
      const now = clock.now();
      const secret = newSigningSecret();
      const row = await db.tx(async (q) => {
        const before = await endpointStore.get(q, ctx.orgId, id, true);
        if (!before) throw errors.notFound();
        const e = (await endpointStore.update(q, ctx.orgId, id, {
          updated_at: now,
          secret_enc: box.seal(secret),
          previous_secret_enc: overlapSeconds > 0 ? before.secret_enc : null,
          previous_secret_until: overlapSeconds > 0 ? new Date(now.getTime() + overlapSeconds * 1000) : null,
        }))!;
        await audit.record(q, ctx, {
          action: 'webhook.rotate_secret',
          targetType: 'webhook_endpoint',
          targetId: id,
          details: { overlap_seconds: overlapSeconds },
        });
        return e;
      });
      return { ...view(row, now), secret };
    },

    async deliveries(ctx: RequestContext, id: string, limit = PAGE_LIMIT.default, cursor?: string) {
      await getOr404(ctx.orgId, id);
      const binding = { op: 'listWebhookDeliveries', orgId: ctx.orgId, filters: { endpoint_id: id } };
      const paged = pageAfter(cursors, binding, cursor, limit);
      const rows = await deliveryStore.page(db, ctx.orgId, id, paged.after ? { t: paged.after.t, seq: Number(paged.after.id) } : null, limit + 1);
      const page = paged.page(rows, (r) => ({ t: r.created_key, id: r.seq }));
      const attempts = await deliveryStore.attemptsOf(
        db,
        ctx.orgId,
        page.items.map((d) => d.id),
      );
      return {
        deliveries: page.items.map((d) =>
          deliveryView(
            d,
            attempts.filter((a) => a.delivery_id === d.id),
          ),
        ),
        next_cursor: page.next_cursor,
        has_more: page.has_more,
      };
    },

    /** Queues a signed test event to one endpoint; types other than webhook.test from the sandbox only. */
    async test(ctx: RequestContext, id: string, type: EventType) {
      const now = clock.now();
      return db.tx(async (q) => {
        const ep = await endpointStore.get(q, ctx.orgId, id);
        if (!ep) throw errors.notFound();
        if (type !== 'webhook.test' && ep.environment !== 'sandbox') throw devtoolsErrors.sandboxOnlyEventType(type);
        if (!ep.enabled) throw devtoolsErrors.endpointDisabled();
        const envelopeOrgId = ep.environment === 'sandbox' ? sandboxOrgId(config, ctx.orgId) : ctx.orgId;
        const data = deps.sandbox.sampleEventData(ctx.orgId, type, now, { endpointId: id });
        const queued = await engine.queueEvent(q, {
          orgId: ctx.orgId,
          environment: ep.environment,
          type,
          data,
          envelopeOrgId,
          endpointIds: [id],
          maxPending: ep.environment === 'sandbox' ? deps.sandboxMaxPendingDeliveries : undefined,
        });
        await audit.record(q, ctx, {
          action: 'webhook.test',
          targetType: 'webhook_endpoint',
          targetId: id,
          details: { event_type: type, event_id: queued.event_id },
        });
        return { event_id: queued.event_id, event_type: type, delivery_id: queued.deliveries[0].delivery_id, endpoint_id: id };
      });
    },

    /** Our addition: a stored event (kept 30 days) delivered again to an endpoint of its environment. */
    async replay(ctx: RequestContext, id: string, eventId: string) {
      return db.tx(async (q) => {
        const ep = await endpointStore.get(q, ctx.orgId, id);
        if (!ep) throw errors.notFound();
        const ev = await deliveryStore.getEvent(q, ctx.orgId, eventId);
        if (!ev || ev.environment !== ep.environment) throw devtoolsErrors.eventNotFound();
        if (!ep.enabled) throw devtoolsErrors.endpointDisabled();
        const d = await engine.replay(q, ctx.orgId, id, eventId);
        await audit.record(q, ctx, {
          action: 'webhook.replay',
          targetType: 'webhook_endpoint',
          targetId: id,
          details: { event_id: eventId, delivery_id: d.delivery_id },
        });
        return { event_id: eventId, event_type: ev.type, delivery_id: d.delivery_id, endpoint_id: id };
      });
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
