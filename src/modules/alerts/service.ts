// The organisation alert stream: one store of alerts raised by the service, one open alert per
// condition (dedupe key). Raising and resolving happen in the caller's transaction and publish the
// durable domain events `alert.raised` / `alert.resolved` in it (webhooks subscribe to them).
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../infra/db/index.ts';
import { publish } from '../../infra/jobs/queue.ts';
import type { Clock } from '../../platform/clock.ts';
import { alertStore, type AlertRow, type Severity } from './store.ts';

export const ALERT_RAISED = 'alert.raised';
export const ALERT_RESOLVED = 'alert.resolved';
/**
 * A person acknowledged or assigned an open alert (published by the alert admin in its transaction,
 * payload `{org_id, transition: 'acknowledged'|'assigned', alert}`): the live stream relays it so
 * every open console shows the change (decision 0363). Not a webhook event type.
 */
export const ALERT_CHANGED = 'alert.changed';

export interface RaiseAlert {
  type: string;
  /** Which part of the service raised it, e.g. 'devtools.webhooks'. */
  source: string;
  severity: Severity;
  title: string;
  subject?: { type: string; id: string };
  details?: Record<string, unknown>;
  /** One open alert per (organisation, dedupe key). Defaults to `type:subject.id`. */
  dedupeKey?: string;
}

/** The public shape of an alert (partner API, webhook payloads). */
export interface AlertView {
  id: string;
  type: string;
  source: string;
  severity: Severity;
  status: 'open' | 'resolved';
  subject: { type: string; id: string } | null;
  title: string;
  details: Record<string, unknown>;
  raised_at: string;
  resolved_at: string | null;
  resolution: string | null;
}

export function alertView(r: AlertRow): AlertView {
  return {
    id: r.id,
    type: r.type,
    source: r.source,
    severity: r.severity,
    status: r.status,
    subject: r.subject_type && r.subject_id ? { type: r.subject_type, id: r.subject_id } : null,
    title: r.title,
    details: r.details ?? {},
    raised_at: new Date(r.raised_at).toISOString(),
    resolved_at: r.resolved_at ? new Date(r.resolved_at).toISOString() : null,
    resolution: r.resolution,
  };
}

export function dedupeKeyOf(a: Pick<RaiseAlert, 'type' | 'subject' | 'dedupeKey'>): string {
  return a.dedupeKey ?? (a.subject ? `${a.type}:${a.subject.id}` : a.type);
}

export function createAlertStream(deps: { clock: Clock }) {
  const { clock } = deps;
  return {
    /** Raises the alert unless the same condition is open. `raised` says whether this call raised it. */
    async raise(q: Queryable, orgId: string, a: RaiseAlert): Promise<{ alert: AlertView; raised: boolean }> {
      const key = dedupeKeyOf(a);
      const now = clock.now();
      const row = await alertStore.insertOpen(q, orgId, {
        id: randomUUID(),
        type: a.type,
        source: a.source,
        severity: a.severity,
        subjectType: a.subject?.type ?? null,
        subjectId: a.subject?.id ?? null,
        title: a.title,
        details: a.details ?? {},
        dedupeKey: key,
        raisedAt: now,
      });
      if (!row) {
        const open = await alertStore.openByKey(q, orgId, key);
        return { alert: alertView(open!), raised: false };
      }
      const alert = alertView(row);
      await publish(q, now, ALERT_RAISED, { org_id: orgId, alert: alert as unknown as Record<string, unknown> }, orgId);
      return { alert, raised: true };
    },

    /** Resolves the open alert with this dedupe key, if any. */
    async resolve(q: Queryable, orgId: string, dedupeKey: string, resolution: string): Promise<AlertView | null> {
      const now = clock.now();
      const row = await alertStore.resolve(q, orgId, dedupeKey, now, resolution);
      if (!row) return null;
      const alert = alertView(row);
      await publish(q, now, ALERT_RESOLVED, { org_id: orgId, alert: alert as unknown as Record<string, unknown> }, orgId);
      return alert;
    },

    /** One alert of the organisation by id (open or resolved); null when absent or another organisation's. */
    async get(q: Queryable, orgId: string, id: string): Promise<AlertView | null> {
      const row = await alertStore.byId(q, orgId, id);
      return row ? alertView(row) : null;
    },

    /** Resolves the open alert with this id (publishing alert.resolved); null when it is not open. */
    async resolveById(q: Queryable, orgId: string, id: string, resolution: string): Promise<AlertView | null> {
      const row = await alertStore.byId(q, orgId, id);
      if (!row || row.status !== 'open') return null;
      return this.resolve(q, orgId, row.dedupe_key, resolution);
    },

    /** Open alerts raised by one source, oldest first. */
    async listOpenBySource(q: Queryable, orgId: string, source: string): Promise<AlertView[]> {
      return (await alertStore.listOpenBySource(q, orgId, source)).map(alertView);
    },

    /** Every organisation's alerts for platform staff, newest first; rows carry org_id and cursor keys. */
    pageAll(q: Queryable, opts: Parameters<typeof alertStore.pageAll>[1]) {
      return alertStore.pageAll(q, opts);
    },

    /** Counts by status and severity: every open alert, and the resolved ones raised since `since`. */
    counts(q: Queryable, orgId: string, since: Date) {
      return alertStore.counts(q, orgId, since);
    },

    async listOpen(q: Queryable, orgId: string, type?: string): Promise<AlertView[]> {
      return (await alertStore.listOpen(q, orgId, type)).map(alertView);
    },

    /** A page of the stream, newest first (ties by sequence); the raw rows carry their cursor keys. */
    page(q: Queryable, orgId: string, opts: { since?: Date; before?: { t: string; seq: number }; limit: number }) {
      return alertStore.page(q, orgId, opts);
    },
  };
}

export type AlertStream = ReturnType<typeof createAlertStream>;
