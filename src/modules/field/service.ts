// Field rules: SLA policies, work orders and their clocks, work opened from alerts and stale feeds,
// the dispatch list, the due list and the SLA report. Other modules are read only through their
// services (alerts, members, notifications, registry).
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { pageAfter, type CursorCodec } from '../../platform/cursor.ts';
import { errors, fieldError } from '../../platform/errors.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import type { AlertStream, AlertView } from '../alerts/index.ts';
import type { AuditLog } from '../audit/index.ts';
import type { Members } from '../identity/index.ts';
import type { NotificationService } from '../notifications/index.ts';
import { assetNames, freshnessOf, type RegistryReads, type RegistrySites } from '../registry/index.ts';
import { minutesOf as minutesOfPolicy } from './calendar.ts';
import { fieldErrors } from './errors.ts';
import { computeClock, elapsedAt, stateAt, type ClockName, type ClockSnapshot, type TimelineEntry } from './sla-clock.ts';
import { fieldStore, type Clocks, type EventRow, type WorkOrderRow } from './store.ts';
import {
  DEFAULT_POLICIES,
  PRIORITIES,
  allowedMoves,
  isOpen,
  type ClockState,
  type Kind,
  type Priority,
  type SlaPolicy,
  type SlaRisk,
  type Status,
} from './vocabulary.ts';

export interface FieldDeps {
  db: Db;
  clock: Clock;
  cursors: CursorCodec;
  alerts: AlertStream;
  audit: AuditLog;
  members: Members;
  notifications: NotificationService;
  registry: RegistryReads;
  sites: RegistrySites;
}

const actorId = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : null);
const newId = (prefix: string) => `${prefix}_${randomUUID()}`;
/** A feed is stale once its newest record is an hour old or more (registry freshness: stale, silent, never). */
const FRESH_BANDS = ['live', 'recent'];
const MAX_ATTACHMENTS = 200;
const MAX_NOTES = 1000;

export function computeClocks(policy: SlaPolicy, timeline: readonly TimelineEntry[], asOf: number): Clocks {
  return {
    computedAt: new Date(asOf),
    response: computeClock('response', policy, timeline, asOf),
    resolution: computeClock('resolution', policy, timeline, asOf),
  };
}

function timelineOf(row: WorkOrderRow): TimelineEntry[] {
  return row.timeline.map((e) => ({ at: Date.parse(e.at), status: e.status as Status }));
}

function snapshotOf(row: WorkOrderRow, c: ClockName): ClockSnapshot {
  const t = (v: Date | null) => (v === null ? null : new Date(v).getTime());
  const stoppedAt = t(row[`${c}_stopped_at`]);
  const minutes = c === 'response' ? row.sla_policy.response_minutes : row.sla_policy.resolution_minutes;
  return {
    target_ms: minutes * 60_000,
    risk_ms: Math.ceil((minutes * 60_000 * row.sla_policy.at_risk_percent) / 100),
    elapsed_ms: Number(row[`${c}_elapsed_ms`]),
    running: row[`${c}_running`],
    stopped_at: stoppedAt,
    cancelled: row[`${c}_cancelled`],
    due_at: t(row[`${c}_due_at`]),
    risk_at: t(row[`${c}_risk_at`]),
  };
}

function clockView(row: WorkOrderRow, c: ClockName, now: number) {
  const s = snapshotOf(row, c);
  const asOf = new Date(row.sla_computed_at).getTime();
  return {
    target_minutes: s.target_ms / 60_000,
    state: stateAt(s, now),
    elapsed_seconds: Math.floor(elapsedAt(s, row.sla_policy, asOf, now) / 1000),
    running: s.running,
    paused: !s.running && s.stopped_at === null,
    due_at: isoTimeOrNull(s.due_at),
    at_risk_at: isoTimeOrNull(s.risk_at),
    stopped_at: isoTimeOrNull(s.stopped_at),
  };
}

function riskOf(states: ClockState[]): SlaRisk {
  if (states.includes('breached')) return 'breached';
  if (states.includes('at_risk')) return 'at_risk';
  return 'ok';
}

export function workOrderView(row: WorkOrderRow, now: number) {
  const response = clockView(row, 'response', now);
  const resolution = clockView(row, 'resolution', now);
  const status = row.status as Status;
  return {
    id: row.id,
    site_id: row.site_id,
    asset_id: row.asset_id,
    priority: row.priority as Priority,
    kind: row.kind as Kind,
    description: row.description,
    status,
    allowed_transitions: allowedMoves(status),
    assignee_id: row.assignee_id,
    scheduled_for: isoTimeOrNull(row.scheduled_for),
    source: { type: row.source_type, id: row.source_id },
    sla: {
      risk: riskOf([response.state, resolution.state]),
      measure: row.sla_policy.measure,
      pause_on_hold: row.sla_policy.pause_on_hold,
      clocks_computed_at: isoTime(row.sla_computed_at),
      response,
      resolution,
    },
    created_by: row.created_by,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}
export type WorkOrderView = ReturnType<typeof workOrderView>;

function eventView(e: EventRow) {
  return { id: e.id, type: e.type, at: isoTime(e.at), actor_id: e.actor_id, data: e.data ?? {} };
}

export function createField(deps: FieldDeps) {
  const { db, clock, cursors, alerts, audit, members, notifications, registry, sites } = deps;

  async function policyFor(q: Queryable, orgId: string, priority: Priority): Promise<SlaPolicy> {
    const stored = (await fieldStore.policies(q, orgId)).find((p) => p.priority === priority);
    return stored ? { ...stored.policy, priority } : { ...DEFAULT_POLICIES[priority] };
  }

  async function load(q: Queryable, orgId: string, id: string): Promise<WorkOrderRow> {
    const row = await fieldStore.get(q, orgId, id, { forUpdate: true });
    if (!row) throw errors.notFound();
    return row;
  }

  async function create(
    q: Queryable,
    ctx: RequestContext,
    w: {
      siteId: string | null;
      assetId: string | null;
      priority: Priority;
      kind: Kind;
      description: string;
      sourceType: string;
      sourceId: string | null;
      origin: Record<string, unknown>;
    },
  ): Promise<WorkOrderRow | null> {
    const now = clock.now();
    const policy = await policyFor(q, ctx.orgId, w.priority);
    const timeline: TimelineEntry[] = [{ at: now.getTime(), status: 'new' }];
    const id = newId('wo');
    const row = await fieldStore.insert(q, ctx.orgId, {
      id,
      ...w,
      policy,
      timeline,
      clocks: computeClocks(policy, timeline, now.getTime()),
      createdBy: actorId(ctx),
      at: now,
    });
    if (!row) return null;
    await fieldStore.addEvent(q, ctx.orgId, {
      id: newId('woe'),
      workOrderId: id,
      type: 'created',
      at: now,
      actorId: actorId(ctx),
      data: {
        status: 'new',
        priority: w.priority,
        kind: w.kind,
        site_id: w.siteId,
        asset_id: w.assetId,
        source: { type: w.sourceType, id: w.sourceId },
        ...w.origin,
      },
    });
    return row;
  }

  async function detail(q: Queryable, orgId: string, row: WorkOrderRow) {
    const events = (await fieldStore.events(q, orgId, row.id)).map(eventView);
    return {
      ...workOrderView(row, clock.now().getTime()),
      sla_policy: row.sla_policy,
      history: events,
      notes: events.filter((e) => e.type === 'note').map((e) => ({ id: e.id, text: String(e.data.text), author_id: e.actor_id, at: e.at })),
      attachments: events.filter((e) => e.type === 'attachment').map((e) => ({ id: e.id, ...(e.data as object), added_by: e.actor_id, at: e.at })),
    };
  }

  /** Applies a new status and/or policy: the timeline grows, the clocks are recomputed from the whole of it. */
  async function move(
    q: Queryable,
    orgId: string,
    row: WorkOrderRow,
    set: { status?: Status; policy?: SlaPolicy; assigneeId?: string; scheduledFor?: Date | null; priority?: Priority },
  ) {
    const now = clock.now().getTime();
    const timeline = timelineOf(row);
    if (set.status && set.status !== row.status) timeline.push({ at: now, status: set.status });
    const policy = set.policy ?? row.sla_policy;
    return fieldStore.update(q, orgId, row.id, { ...set, timeline, clocks: computeClocks(policy, timeline, now) }, new Date(now));
  }

  return {
    // ---- SLA policies
    async listPolicies(ctx: RequestContext) {
      const stored = new Map((await fieldStore.policies(db, ctx.orgId)).map((p) => [p.priority, p]));
      return {
        policies: PRIORITIES.map((p) => {
          const s = stored.get(p);
          return { ...(s ? { ...s.policy, priority: p } : DEFAULT_POLICIES[p]), is_default: !s, updated_at: isoTimeOrNull(s?.updated_at) };
        }),
      };
    },

    async putPolicy(
      ctx: RequestContext,
      priority: Priority,
      body: Omit<SlaPolicy, 'priority' | 'business_day_start' | 'business_day_end' | 'pause_on_hold' | 'at_risk_percent'> & Partial<SlaPolicy>,
    ) {
      const d = DEFAULT_POLICIES[priority];
      const policy: SlaPolicy = {
        priority,
        response_minutes: body.response_minutes,
        resolution_minutes: body.resolution_minutes,
        measure: body.measure,
        business_day_start: body.business_day_start ?? d.business_day_start,
        business_day_end: body.business_day_end ?? d.business_day_end,
        pause_on_hold: body.pause_on_hold ?? d.pause_on_hold,
        at_risk_percent: body.at_risk_percent ?? d.at_risk_percent,
      };
      const problems = [];
      if (policy.response_minutes > policy.resolution_minutes)
        problems.push(fieldError(['body', 'response_minutes'], 'must not exceed resolution_minutes', policy.response_minutes));
      if (minutesOfPolicy(policy.business_day_start) < 120)
        problems.push(
          fieldError(['body', 'business_day_start'], 'must be 02:00 or later (UK clocks change between 01:00 and 02:00)', policy.business_day_start),
        );
      // At least an hour a day: the longest target (86 400 minutes) then fits in under six years of working days.
      if (minutesOfPolicy(policy.business_day_end) < minutesOfPolicy(policy.business_day_start) + 60)
        problems.push(fieldError(['body', 'business_day_end'], 'must be at least an hour after business_day_start', policy.business_day_end));
      if (problems.length) throw errors.validation(problems);
      const now = clock.now();
      await db.tx(async (q) => {
        await fieldStore.putPolicy(q, ctx.orgId, policy, now, actorId(ctx));
        await audit.record(q, ctx, { action: 'field.sla_policy.update', targetType: 'sla_policy', targetId: priority, details: { ...policy } });
      });
      return { ...policy, is_default: false, updated_at: isoTime(now) };
    },

    async resetPolicy(ctx: RequestContext, priority: Priority) {
      await db.tx(async (q) => {
        const removed = await fieldStore.deletePolicy(q, ctx.orgId, priority);
        if (removed) await audit.record(q, ctx, { action: 'field.sla_policy.reset', targetType: 'sla_policy', targetId: priority });
      });
      return { ...DEFAULT_POLICIES[priority], is_default: true, updated_at: null };
    },

    // ---- work orders
    async create(ctx: RequestContext, body: { site_id: string; asset_id?: string; priority: Priority; kind: Kind; description: string }) {
      return db.tx(async (q) => {
        if (!(await sites.siteExists(q, ctx.orgId, body.site_id))) throw fieldErrors.field(['site_id'], 'no such site in this organisation', body.site_id);
        if (body.asset_id) {
          const asset = await registry.asset(q, ctx.orgId, body.asset_id);
          if (!asset || asset.site_id !== body.site_id) throw fieldErrors.field(['asset_id'], `no such asset at site ${body.site_id}`, body.asset_id);
        }
        const row = await create(q, ctx, {
          siteId: body.site_id,
          assetId: body.asset_id ?? null,
          priority: body.priority,
          kind: body.kind,
          description: body.description,
          sourceType: 'manual',
          sourceId: null,
          origin: {},
        });
        return detail(q, ctx.orgId, row!);
      });
    },

    async get(ctx: RequestContext, id: string) {
      const row = await fieldStore.get(db, ctx.orgId, id);
      if (!row) throw errors.notFound();
      return detail(db, ctx.orgId, row);
    },

    async list(
      ctx: RequestContext,
      query: { status?: Status; priority?: Priority; site_id?: string; assignee_id?: string; sla_risk?: SlaRisk; limit?: number; cursor?: string },
    ) {
      const limit = query.limit ?? 50;
      const filters = { status: query.status, priority: query.priority, site_id: query.site_id, assignee_id: query.assignee_id, sla_risk: query.sla_risk };
      const binding = { op: 'listWorkOrders', orgId: ctx.orgId, filters };
      const paged = pageAfter(cursors, binding, query.cursor, limit);
      const now = clock.now();
      const rows = await fieldStore.page(db, ctx.orgId, {
        status: query.status,
        priority: query.priority,
        siteId: query.site_id,
        assigneeId: query.assignee_id && query.assignee_id !== 'none' ? query.assignee_id : undefined,
        unassigned: query.assignee_id === 'none',
        risk: query.sla_risk,
        before: paged.after,
        now,
        limit: limit + 1,
      });
      const page = paged.page(rows, (r) => ({ t: r.created_key!, id: r.id }));
      return { work_orders: page.items.map((r) => workOrderView(r, now.getTime())), next_cursor: page.next_cursor, has_more: page.has_more };
    },

    async due(ctx: RequestContext, query: { limit?: number }) {
      const now = clock.now();
      const rows = await fieldStore.due(db, ctx.orgId, now, query.limit ?? 50);
      return {
        as_of: isoTime(now),
        work_orders: rows.map((r) => {
          const next = new Date(r.next_due_at).getTime();
          const which: ClockName = r.response_running && r.response_due_at && new Date(r.response_due_at).getTime() === next ? 'response' : 'resolution';
          return {
            ...workOrderView(r, now.getTime()),
            next_due: { clock: which, due_at: isoTime(next), seconds_left: Math.floor((next - now.getTime()) / 1000) },
          };
        }),
      };
    },

    async assign(ctx: RequestContext, id: string, userId: string) {
      return db.tx(async (q) => {
        const row = await load(q, ctx.orgId, id);
        if (!isOpen(row.status as Status)) throw fieldErrors.closed(row.status, 'assigned');
        const member = await members.member(q, ctx.orgId, userId);
        if (!member) throw fieldErrors.field(['user_id'], 'not a member of this organisation', userId);
        const next: Status | undefined = row.status === 'new' ? 'assigned' : undefined;
        const updated = await move(q, ctx.orgId, row, { status: next, assigneeId: userId });
        const now = clock.now();
        await fieldStore.addEvent(q, ctx.orgId, {
          id: newId('woe'),
          workOrderId: id,
          type: 'assigned',
          at: now,
          actorId: actorId(ctx),
          data: { from_user: row.assignee_id, to_user: userId, ...(next && { from: row.status, to: next }) },
        });
        if (row.assignee_id !== userId) {
          await notifications.notify(q, {
            orgId: ctx.orgId,
            userId,
            kind: 'work_order_assigned',
            title: `Work order ${id} (${row.priority}) was assigned to you`,
            body: row.description.slice(0, 500),
            link: `/api/hardware/field/work-orders/${id}`,
            data: { work_order_id: id, priority: row.priority, site_id: row.site_id, asset_id: row.asset_id },
          });
        }
        return detail(q, ctx.orgId, updated);
      });
    },

    async transition(ctx: RequestContext, id: string, body: { to: Status; note?: string; scheduled_for?: string }) {
      return db.tx(async (q) => {
        const row = await load(q, ctx.orgId, id);
        const from = row.status as Status;
        const allowed = allowedMoves(from);
        if (!allowed.includes(body.to)) throw fieldErrors.transition(from, body.to, allowed);
        if (body.to === 'scheduled' && !body.scheduled_for) throw fieldErrors.field(['scheduled_for'], 'required when moving to scheduled', null);
        const updated = await move(q, ctx.orgId, row, { status: body.to, ...(body.to === 'scheduled' && { scheduledFor: new Date(body.scheduled_for!) }) });
        await fieldStore.addEvent(q, ctx.orgId, {
          id: newId('woe'),
          workOrderId: id,
          type: 'transition',
          at: clock.now(),
          actorId: actorId(ctx),
          data: { from, to: body.to, ...(body.note && { note: body.note }), ...(body.to === 'scheduled' && { scheduled_for: isoTime(body.scheduled_for!) }) },
        });
        return detail(q, ctx.orgId, updated);
      });
    },

    async changePriority(ctx: RequestContext, id: string, body: { priority: Priority; reason?: string }) {
      return db.tx(async (q) => {
        const row = await load(q, ctx.orgId, id);
        if (!isOpen(row.status as Status)) throw fieldErrors.closed(row.status, 'reprioritised');
        if (row.priority === body.priority) return detail(q, ctx.orgId, row);
        const policy = await policyFor(q, ctx.orgId, body.priority);
        const before = workOrderView(row, clock.now().getTime()).sla;
        const updated = await move(q, ctx.orgId, row, { priority: body.priority, policy });
        const after = workOrderView(updated, clock.now().getTime()).sla;
        await fieldStore.addEvent(q, ctx.orgId, {
          id: newId('woe'),
          workOrderId: id,
          type: 'priority_changed',
          at: clock.now(),
          actorId: actorId(ctx),
          data: {
            from: row.priority,
            to: body.priority,
            ...(body.reason && { reason: body.reason }),
            response_due_at: { from: before.response.due_at, to: after.response.due_at },
            resolution_due_at: { from: before.resolution.due_at, to: after.resolution.due_at },
          },
        });
        return detail(q, ctx.orgId, updated);
      });
    },

    async addNote(ctx: RequestContext, id: string, text: string) {
      return db.tx(async (q) => {
        const row = await load(q, ctx.orgId, id);
        const events = await fieldStore.events(q, ctx.orgId, row.id);
        if (events.filter((e) => e.type === 'note').length >= MAX_NOTES) throw fieldErrors.tooManyNotes(MAX_NOTES);
        const e = await fieldStore.addEvent(q, ctx.orgId, {
          id: newId('won'),
          workOrderId: id,
          type: 'note',
          at: clock.now(),
          actorId: actorId(ctx),
          data: { text },
        });
        await fieldStore.update(q, ctx.orgId, id, {}, clock.now());
        return { id: e.id, work_order_id: id, text, author_id: e.actor_id, at: isoTime(e.at) };
      });
    },

    async addAttachment(
      ctx: RequestContext,
      id: string,
      body: { name: string; content_type: string; size_bytes: number; sha256: string; external_ref: string },
    ) {
      return db.tx(async (q) => {
        const row = await load(q, ctx.orgId, id);
        const events = await fieldStore.events(q, ctx.orgId, row.id);
        if (events.filter((e) => e.type === 'attachment').length >= MAX_ATTACHMENTS) throw fieldErrors.tooManyAttachments(MAX_ATTACHMENTS);
        const data = {
          name: body.name,
          content_type: body.content_type,
          size_bytes: body.size_bytes,
          sha256: body.sha256.toLowerCase(),
          external_ref: body.external_ref,
        };
        const e = await fieldStore.addEvent(q, ctx.orgId, {
          id: newId('woa'),
          workOrderId: id,
          type: 'attachment',
          at: clock.now(),
          actorId: actorId(ctx),
          data,
        });
        await fieldStore.update(q, ctx.orgId, id, {}, clock.now());
        return { id: e.id, work_order_id: id, ...data, added_by: e.actor_id, at: isoTime(e.at) };
      });
    },

    // ---- from signals
    async fromAlert(ctx: RequestContext, alertId: string): Promise<{ created: boolean; work_order: unknown }> {
      return db.tx(async (q) => {
        const alert = await alerts.get(q, ctx.orgId, alertId);
        if (!alert) throw errors.notFound();
        const existing = await fieldStore.bySource(q, ctx.orgId, 'alert', alertId, false);
        if (existing) return { created: false, work_order: await detail(q, ctx.orgId, existing) };
        if (alert.status !== 'open') throw fieldErrors.alertResolved(alertId);
        const { siteId, assetId } = placeOfAlert(alert);
        const row = await create(q, ctx, {
          siteId,
          assetId,
          priority: PRIORITY_OF_SEVERITY[alert.severity],
          kind: 'corrective',
          description: alert.title,
          sourceType: 'alert',
          sourceId: alertId,
          origin: { alert: { id: alert.id, type: alert.type, severity: alert.severity, raised_at: alert.raised_at } },
        });
        const made = row ?? (await fieldStore.bySource(q, ctx.orgId, 'alert', alertId, false))!;
        return { created: row !== null, work_order: await detail(q, ctx.orgId, made) };
      });
    },

    async fromStaleFeed(ctx: RequestContext, deviceId: string): Promise<{ created: boolean; work_order: unknown }> {
      return db.tx(async (q) => {
        const now = clock.now();
        const [asset] = await registry.assets(q, ctx.orgId, { assetIds: [deviceId] });
        let siteId: string | null;
        let lastTs: Date | null;
        if (asset) {
          siteId = asset.site_id;
          lastTs = asset.last_ts;
        } else {
          const [dev] = await sites.reportingUnregistered(q, ctx.orgId, { assetIds: [deviceId] });
          if (!dev) throw errors.notFound();
          siteId = dev.site_ref;
          lastTs = new Date(dev.last_ts);
        }
        const band = freshnessOf(lastTs, now);
        if (FRESH_BANDS.includes(band)) throw fieldErrors.feedFresh(deviceId, lastTs!);
        const existing = await fieldStore.bySource(q, ctx.orgId, 'stale_feed', deviceId, true);
        if (existing) return { created: false, work_order: await detail(q, ctx.orgId, existing) };
        const since = lastTs ? `since ${isoTime(lastTs)}` : 'ever';
        const row = await create(q, ctx, {
          siteId,
          assetId: deviceId,
          priority: band === 'silent' ? 'high' : 'medium',
          kind: 'communications',
          description: `No telemetry from ${deviceId} ${since}: restore the data feed.`,
          sourceType: 'stale_feed',
          sourceId: deviceId,
          origin: { feed: { freshness: band, last_reported_at: isoTimeOrNull(lastTs) } },
        });
        const made = row ?? (await fieldStore.bySource(q, ctx.orgId, 'stale_feed', deviceId, true))!;
        return { created: row !== null, work_order: await detail(q, ctx.orgId, made) };
      });
    },

    async assets(ctx: RequestContext, query: { site_id?: string; stale_only?: boolean }) {
      const now = clock.now();
      const [rows, open] = await Promise.all([
        registry.assets(db, ctx.orgId, query.site_id ? { siteId: query.site_id } : {}),
        fieldStore.openByAsset(db, ctx.orgId),
      ]);
      const views = rows
        .map((a) => {
          const freshness = freshnessOf(a.last_ts, now);
          return {
            ...assetNames(a),
            last_reported_at: isoTimeOrNull(a.last_ts),
            freshness,
            feed_stale: !FRESH_BANDS.includes(freshness),
            open_work_orders: open.get(a.asset_id) ?? 0,
          };
        })
        .filter((v) => !query.stale_only || v.feed_stale)
        .sort((a, b) => a.site_id.localeCompare(b.site_id) || a.asset_id.localeCompare(b.asset_id));
      return { as_of: isoTime(now), assets: views };
    },

    async openAlerts(ctx: RequestContext, query: { without_work_order?: boolean }) {
      const open = await alerts.listOpen(db, ctx.orgId);
      const linked = await fieldStore.byAlerts(
        db,
        ctx.orgId,
        open.map((a) => a.id),
      );
      const views = open
        .map((a) => ({ ...a, ...placeView(a), work_order_id: linked.get(a.id) ?? null }))
        .filter((a) => !query.without_work_order || a.work_order_id === null);
      return { alerts: views };
    },

    async report(ctx: RequestContext, query: { from?: string; to?: string }) {
      const now = clock.now();
      const to = query.to ? new Date(query.to) : now;
      const from = query.from ? new Date(query.from) : new Date(to.getTime() - 30 * 86_400_000);
      if (from.getTime() >= to.getTime()) throw errors.validation([fieldError(['query', 'from'], 'must be earlier than to', query.from ?? isoTime(from))]);
      if (to.getTime() - from.getTime() > 366 * 86_400_000)
        throw errors.validation([fieldError(['query', 'to'], 'the period is at most 366 days', query.to ?? isoTime(to))]);
      const rows = (await fieldStore.createdBetween(db, ctx.orgId, from, to)).filter((r) => r.status !== 'cancelled');
      const t = now.getTime();
      const items = rows.map((r) => {
        const v = workOrderView(r, t);
        const states = [v.sla.response.state, v.sla.resolution.state];
        const outcome = states.includes('breached')
          ? 'breached'
          : v.sla.resolution.state === 'met'
            ? 'met'
            : states.includes('at_risk')
              ? 'at_risk'
              : 'on_track';
        const created = new Date(r.created_at).getTime();
        const minutes = (at: string | null) => (at === null ? null : (Date.parse(at) - created) / 60_000);
        return { r, outcome, response: minutes(v.sla.response.stopped_at), resolution: minutes(v.sla.resolution.stopped_at) };
      });
      const group = (key: (x: (typeof items)[number]) => string) => {
        const m = new Map<string, typeof items>();
        for (const x of items) m.set(key(x), [...(m.get(key(x)) ?? []), x]);
        return [...m.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, xs]) => ({ key: k, ...summary(xs) }));
      };
      return {
        period: { from: isoTime(from), to: isoTime(to) },
        as_of: isoTime(now),
        overall: summary(items),
        by_priority: group((x) => x.r.priority).sort((a, b) => PRIORITIES.indexOf(a.key as Priority) - PRIORITIES.indexOf(b.key as Priority)),
        by_site: group((x) => x.r.site_id ?? 'none'),
        by_assignee: group((x) => x.r.assignee_id ?? 'unassigned'),
      };
    },
  };
}

export type Field = ReturnType<typeof createField>;

const PRIORITY_OF_SEVERITY: Record<AlertView['severity'], Priority> = { critical: 'critical', warning: 'high', info: 'medium' };

function str(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : null;
}

function placeOfAlert(a: AlertView): { siteId: string | null; assetId: string | null } {
  const d = a.details ?? {};
  const subjectAsset = a.subject && ['asset', 'device'].includes(a.subject.type) ? a.subject.id : null;
  const subjectSite = a.subject?.type === 'site' ? a.subject.id : null;
  return { siteId: str(d.site_id) ?? subjectSite, assetId: str(d.asset_id) ?? subjectAsset };
}

function placeView(a: AlertView) {
  const p = placeOfAlert(a);
  return { site_id: p.siteId, asset_id: p.assetId };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return round1(s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2);
}

function summary(xs: { outcome: string; response: number | null; resolution: number | null }[]) {
  const n = xs.length;
  const count = (o: string) => xs.filter((x) => x.outcome === o).length;
  const pct = (k: number) => (n === 0 ? null : round1((k * 100) / n));
  const met = count('met');
  const breached = count('breached');
  const atRisk = count('at_risk');
  const onTrack = count('on_track');
  return {
    total: n,
    met,
    breached,
    at_risk: atRisk,
    on_track: onTrack,
    met_percent: pct(met),
    breached_percent: pct(breached),
    at_risk_percent: pct(atRisk),
    median_response_minutes: median(xs.flatMap((x) => (x.response === null ? [] : [x.response]))),
    median_resolution_minutes: median(xs.flatMap((x) => (x.resolution === null ? [] : [x.resolution]))),
  };
}
