// Alert admin over the organisation alert stream: the staff-only history list, and acknowledge,
// assign, resolve, comment and stats scoped to the caller's organisation. Each action is stamped
// who and when, kept in the alert's history and written to the audit log in the same transaction.
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { pageAfter, type CursorCodec } from '../../platform/cursor.ts';
import { errors } from '../../platform/errors.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import type { AuditLog } from '../audit/index.ts';
import { ALERT_CHANGED, alertView, type AlertStream, type AlertView } from '../alerts/index.ts';
import { publish } from '../../infra/jobs/queue.ts';
import type { Members } from '../identity/index.ts';
import type { NotificationService } from '../notifications/index.ts';
import { emsErrors } from './errors.ts';
import { emsStore, type AdminEventRow } from './store.ts';
import { adminView } from './views.ts';

const eventView = (e: AdminEventRow) => ({
  id: e.id,
  action: e.action,
  actor_id: e.actor_id,
  at: isoTime(e.at),
  note: e.note,
  details: e.details ?? {},
});

export function createAdmin(deps: {
  db: Db;
  clock: Clock;
  alerts: AlertStream;
  audit: AuditLog;
  cursors: CursorCodec;
  members: Members;
  notifications: NotificationService;
}) {
  const { db, clock, alerts, audit, cursors, members, notifications } = deps;
  const actorId = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : null);

  async function detail(q: Queryable, orgId: string, a: AlertView) {
    const [state] = await emsStore.adminStates(q, orgId, [a.id]);
    const history = await emsStore.events(q, orgId, [a.id]);
    return { ...adminView(a, state), history: history.map(eventView) };
  }

  /** Runs one action on an open (or, for comments, any) alert of the caller's organisation. */
  async function act(
    ctx: RequestContext,
    id: string,
    action: AdminEventRow['action'],
    opts: { openOnly: boolean; note: string | null; details?: Record<string, unknown> },
    apply: (q: Queryable, a: AlertView, at: Date) => Promise<void>,
  ) {
    return db.tx(async (q) => {
      const a = await alerts.get(q, ctx.orgId, id);
      if (!a) throw errors.notFound();
      if (opts.openOnly && a.status !== 'open') throw emsErrors.alertResolved();
      const at = clock.now();
      await apply(q, a, at);
      await emsStore.addEvent(q, ctx.orgId, {
        id: `aev_${randomUUID()}`,
        alert_id: id,
        action,
        actor_id: actorId(ctx),
        at,
        note: opts.note,
        details: opts.details ?? {},
      });
      await audit.record(q, ctx, {
        action: `alert.${action}`,
        targetType: 'alert',
        targetId: id,
        details: { ...(opts.details ?? {}), ...(opts.note ? { note: opts.note } : {}) },
      });
      const done = await detail(q, ctx.orgId, (await alerts.get(q, ctx.orgId, id))!);
      // Every open console follows acknowledgements and assignments (the live stream relays this).
      if (action === 'acknowledge' || action === 'assign')
        await publish(
          q,
          at,
          ALERT_CHANGED,
          { org_id: ctx.orgId, transition: action === 'acknowledge' ? 'acknowledged' : 'assigned', alert: { ...done, history: undefined } },
          ctx.orgId,
        );
      return done;
    });
  }

  return {
    /** Platform staff: every organisation's alerts, newest first. */
    async list(
      ctx: RequestContext,
      query: { limit?: number; cursor?: string; organisation_id?: string; status?: 'open' | 'resolved'; source?: string; since?: string },
    ) {
      const limit = query.limit ?? 50;
      const filters = {
        organisation_id: query.organisation_id ?? null,
        status: query.status ?? null,
        source: query.source ?? null,
        since: query.since ?? null,
      };
      const binding = { op: 'listAlertsHistory', orgId: '*', filters };
      const paged = pageAfter(cursors, binding, query.cursor, limit);
      const rows = await alerts.pageAll(db, {
        orgId: query.organisation_id,
        status: query.status,
        source: query.source,
        since: query.since ? new Date(query.since) : undefined,
        before: paged.after && { t: paged.after.t, seq: Number(paged.after.id) },
        limit: limit + 1,
      });
      const page = paged.page(rows, (r) => ({ t: r.raised_key, id: r.seq }));
      const states = new Map(
        (
          await emsStore.adminStates(
            db,
            null,
            page.items.map((r) => r.id),
          )
        ).map((s) => [s.alert_id, s]),
      );
      return {
        alerts: page.items.map((r) => ({ organisation_id: r.org_id, ...adminView(alertView(r), states.get(r.id)) })),
        next_cursor: page.next_cursor,
        has_more: page.has_more,
      };
    },

    async acknowledge(ctx: RequestContext, id: string, body: { note?: string }) {
      return act(ctx, id, 'acknowledge', { openOnly: true, note: body.note ?? null }, async (q, a, at) => {
        const [s] = await emsStore.adminStates(q, ctx.orgId, [a.id]);
        // The first acknowledgement stands; a repeat is recorded in the history only.
        if (!s?.acknowledged_at) await emsStore.setAdmin(q, ctx.orgId, a.id, { acknowledged_at: at, acknowledged_by: actorId(ctx) });
      });
    },

    async assign(ctx: RequestContext, id: string, body: { user_id: string; note?: string }) {
      const member = await members.member(db, ctx.orgId, body.user_id);
      if (!member) throw emsErrors.field(['user_id'], 'not a member of this organisation', body.user_id);
      return act(ctx, id, 'assign', { openOnly: true, note: body.note ?? null, details: { assigned_to: body.user_id } }, async (q, a, at) => {
        await emsStore.setAdmin(q, ctx.orgId, a.id, { assigned_to: body.user_id, assigned_by: actorId(ctx), assigned_at: at });
        await notifications.notify(q, {
          orgId: ctx.orgId,
          userId: body.user_id,
          kind: 'alert_assigned',
          title: `Alert assigned to you: ${a.title}`,
          body: body.note ?? '',
          // The organisation's alerts (the assignee may read them; the history list is platform staff only).
          link: '/api/hardware/ems/alerts',
          data: { alert_id: a.id, assigned_by: actorId(ctx) },
        });
      });
    },

    async resolve(ctx: RequestContext, id: string, body: { reason: string }) {
      return act(ctx, id, 'resolve', { openOnly: true, note: body.reason }, async (q, a, at) => {
        const who = actorId(ctx) ?? 'unknown';
        const done = await alerts.resolveById(q, ctx.orgId, a.id, `resolved by ${who}: ${body.reason}`);
        if (!done) throw emsErrors.alertResolved();
        await emsStore.setAdmin(q, ctx.orgId, a.id, { resolved_by: actorId(ctx), resolved_at: at, resolution_reason: body.reason });
      });
    },

    async comment(ctx: RequestContext, id: string, body: { text: string }) {
      return act(ctx, id, 'comment', { openOnly: false, note: body.text }, async () => {});
    },

    async stats(ctx: RequestContext, query: { days?: number }) {
      const days = query.days ?? 30;
      const now = clock.now();
      const since = new Date(now.getTime() - days * 86_400_000);
      const counts = await alerts.counts(db, ctx.orgId, since);
      // The alerts the figures are about: every open one, and those raised in the window.
      const recent = await alerts.page(db, ctx.orgId, { since, limit: 10_000 });
      const openOnes = await alerts.listOpen(db, ctx.orgId);
      const byId = new Map<string, { raised_at: Date; resolved_at: Date | null; status: string }>();
      for (const r of recent)
        byId.set(r.id, { raised_at: new Date(r.raised_at), resolved_at: r.resolved_at ? new Date(r.resolved_at) : null, status: r.status });
      for (const a of openOnes) byId.set(a.id, { raised_at: new Date(a.raised_at), resolved_at: null, status: 'open' });
      const states = new Map((await emsStore.adminStates(db, ctx.orgId, [...byId.keys()])).map((s) => [s.alert_id, s]));
      const times = [...byId.entries()].map(([id, a]) => ({
        ...a,
        acknowledged_at: states.get(id)?.acknowledged_at ?? null,
        assigned_to: states.get(id)?.assigned_to ?? null,
      }));
      const bySeverity = { info: 0, warning: 0, critical: 0 } as Record<string, number>;
      let open = 0;
      for (const c of counts)
        if (c.status === 'open') {
          open += c.n;
          bySeverity[c.severity] = (bySeverity[c.severity] ?? 0) + c.n;
        }
      const inWindow = times.filter((t) => new Date(t.raised_at) >= since);
      const mean = (xs: number[]) => (xs.length ? Math.round((xs.reduce((s, x) => s + x, 0) / xs.length) * 10) / 10 : null);
      const minutes = (a: Date, b: Date) => (new Date(b).getTime() - new Date(a).getTime()) / 60_000;
      return {
        window: { from: since.toISOString(), to: now.toISOString(), days },
        open: {
          total: open,
          by_severity: bySeverity,
          acknowledged: times.filter((t) => t.status === 'open' && t.acknowledged_at).length,
          unacknowledged: times.filter((t) => t.status === 'open' && !t.acknowledged_at).length,
          unassigned: times.filter((t) => t.status === 'open' && !t.assigned_to).length,
        },
        raised_in_window: inWindow.length,
        resolved_in_window: inWindow.filter((t) => t.status === 'resolved').length,
        mean_minutes_to_acknowledge: mean(inWindow.filter((t) => t.acknowledged_at).map((t) => minutes(t.raised_at, t.acknowledged_at!))),
        mean_minutes_to_resolve: mean(inWindow.filter((t) => t.resolved_at).map((t) => minutes(t.raised_at, t.resolved_at!))),
      };
    },
  };
}

export type Admin = ReturnType<typeof createAdmin>;
