// Gateway link: heartbeats record last contact (firmware, buffer depth); the state is online, late
// or silent from the site's thresholds. In the demo realm the watchdog (platform job queue) and
// check raise an asset_silence alert in the organisation alert stream when a gateway goes silent
// and resolve it when it is heard again; production organisations get the state recorded only
// (concepts.md section 1, demo realm rule 6).
import type { JobUnits } from '../../platform/job-units.ts';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { errors } from '../../platform/errors.ts';
import { isoTimeOrNull, isoTime } from '../../platform/schema-kit.ts';
import type { AlertStream, AlertView } from '../alerts/index.ts';
import type { OrgDirectory } from '../orgs/index.ts';
import type { RegistrySites } from '../registry/index.ts';
import { gatewayStore, type GatewayRow } from './store.ts';
import { connectErrors } from './errors.ts';

export const DEFAULT_LATE_AFTER_S = 120;
export const DEFAULT_SILENT_AFTER_S = 600;
export const WATCHDOG_EVERY_MS = 60_000;
export const SILENCE_ALERT = 'asset_silence';
export const SILENCE_SOURCE = 'connect.gateway';
export const silenceKey = (siteId: string) => `${SILENCE_ALERT}:gateway:${siteId}`;

export const STATE_METHOD =
  'online while the newest heartbeat is at most late_after_s old, late until silent_after_s, silent after that or when none was ever received ' +
  '(a rehearsal drop holds the link silent until restore); ages on the service clock.';

export type LinkState = 'online' | 'late' | 'silent';

export function evaluate(
  row: Pick<GatewayRow, 'last_heartbeat_at' | 'late_after_s' | 'silent_after_s' | 'dropped_at'> | null,
  now: Date,
): { state: LinkState; reason: string; age: number | null } {
  const late = row?.late_after_s ?? DEFAULT_LATE_AFTER_S;
  const silent = row?.silent_after_s ?? DEFAULT_SILENT_AFTER_S;
  const last = row?.last_heartbeat_at ? new Date(row.last_heartbeat_at) : null;
  const age = last ? Math.max(0, Math.floor((now.getTime() - last.getTime()) / 1000)) : null;
  if (row?.dropped_at) {
    return { state: 'silent', age, reason: `Rehearsal: the link was dropped at ${isoTime(row.dropped_at)}; it stays silent until rehearse/restore.` };
  }
  if (age === null) return { state: 'silent', age, reason: "No heartbeat has been received from this site's gateway." };
  if (age <= late) return { state: 'online', age, reason: `Last heartbeat ${age} s ago, within late_after_s (${late} s).` };
  if (age <= silent) return { state: 'late', age, reason: `Last heartbeat ${age} s ago: past late_after_s (${late} s), within silent_after_s (${silent} s).` };
  return { state: 'silent', age, reason: `Last heartbeat ${age} s ago: past silent_after_s (${silent} s).` };
}

export interface HeartbeatBody {
  gateway_id?: string;
  firmware?: string;
  buffer_depth?: number;
  sent_at?: string;
  thresholds?: { late_after_s?: number; silent_after_s?: number };
}

/** The schedule that evaluates every gateway (a unit per gateway: organisation and site). */
export const WATCHDOG_KIND = 'connect.gateway-watchdog';

export function createGatewayLink(deps: {
  db: Db;
  work: Db;
  clock: Clock;
  alerts: AlertStream;
  orgs: OrgDirectory;
  registry: RegistrySites;
  units: Pick<JobUnits, 'each'>;
}) {
  const { db, clock, alerts, orgs, registry } = deps;

  async function openAlert(q: Queryable, orgId: string, siteId: string): Promise<AlertView | null> {
    return (await alerts.listOpen(q, orgId, SILENCE_ALERT)).find((a) => a.source === SILENCE_SOURCE && a.subject?.id === siteId) ?? null;
  }

  /** Evaluates the locked row now, records the state and (demo realm) raises or resolves the alert. */
  async function apply(q: Queryable, orgId: string, row: GatewayRow, now: Date, demo: boolean) {
    const e = evaluate(row, now);
    await gatewayStore.setState(q, orgId, row.site_id, e.state, e.state !== row.state, now);
    if (!demo) return;
    if (e.state === 'silent') {
      await alerts.raise(q, orgId, {
        type: SILENCE_ALERT,
        source: SILENCE_SOURCE,
        severity: 'warning',
        title: `Gateway at site ${row.site_id} is silent`,
        subject: { type: 'site', id: row.site_id },
        dedupeKey: silenceKey(row.site_id),
        details: {
          site_id: row.site_id,
          reason: e.reason,
          last_heartbeat_at: isoTimeOrNull(row.last_heartbeat_at),
          silent_after_s: row.silent_after_s,
          rehearsal: row.dropped_at !== null,
        },
      });
    } else if (e.state === 'online') {
      await alerts.resolve(q, orgId, silenceKey(row.site_id), `Gateway heard again at ${isoTimeOrNull(row.last_heartbeat_at)}`);
    }
  }

  async function requireSite(q: Queryable, orgId: string, siteId: string) {
    if (!(await registry.siteExists(q, orgId, siteId)) && !(await gatewayStore.get(q, orgId, siteId))) throw errors.notFound();
  }

  async function view(q: Queryable, orgId: string, siteId: string, now: Date) {
    const row = await gatewayStore.get(q, orgId, siteId);
    const realm = await orgs.realmOf(orgId);
    const e = evaluate(row, now);
    const alert = realm === 'demo' ? await openAlert(q, orgId, siteId) : null;
    return {
      site_id: siteId,
      state: e.state,
      reason: e.reason,
      seconds_since_heartbeat: e.age,
      last_heartbeat_at: isoTimeOrNull(row?.last_heartbeat_at),
      heartbeat_count: Number(row?.heartbeat_count ?? 0),
      gateway_id: row?.gateway_id ?? null,
      firmware: row?.firmware ?? null,
      buffer_depth: row?.buffer_depth ?? null,
      thresholds: { late_after_s: row?.late_after_s ?? DEFAULT_LATE_AFTER_S, silent_after_s: row?.silent_after_s ?? DEFAULT_SILENT_AFTER_S },
      recorded_state: row ? { state: row.state, since: isoTime(row.state_since), checked_at: isoTime(row.checked_at) } : null,
      watchdog:
        realm === 'demo'
          ? {
              active: true,
              every_seconds: WATCHDOG_EVERY_MS / 1000,
              description: 'Demo realm: the watchdog raises an asset_silence alert when the link is silent and resolves it when heard again.',
            }
          : {
              active: false,
              every_seconds: null,
              description: 'Production organisation: state is recorded on heartbeat and check; no watchdog runs and no alert is raised.',
            },
      rehearsal: { dropped: !!row?.dropped_at, dropped_at: isoTimeOrNull(row?.dropped_at) },
      alert: alert ? { id: alert.id, status: alert.status, raised_at: alert.raised_at, title: alert.title } : null,
    };
  }

  const defaults = { late: DEFAULT_LATE_AFTER_S, silent: DEFAULT_SILENT_AFTER_S };

  return {
    async heartbeat(ctx: RequestContext, siteId: string, body: HeartbeatBody) {
      const now = clock.now();
      const demo = (await orgs.realmOf(ctx.orgId)) === 'demo';
      await db.tx(async (q) => {
        await requireSite(q, ctx.orgId, siteId);
        const cur = await gatewayStore.ensure(q, ctx.orgId, siteId, defaults, now);
        const late = body.thresholds?.late_after_s ?? cur.late_after_s;
        const silent = body.thresholds?.silent_after_s ?? cur.silent_after_s;
        if (silent <= late) {
          throw connectErrors.field(['thresholds', 'silent_after_s'], `silent_after_s must be greater than late_after_s (${late})`, silent);
        }
        await gatewayStore.heartbeat(
          q,
          ctx.orgId,
          siteId,
          { at: now, firmware: body.firmware, buffer_depth: body.buffer_depth, gateway_id: body.gateway_id, late, silent },
          now,
        );
        await apply(q, ctx.orgId, (await gatewayStore.get(q, ctx.orgId, siteId, { forUpdate: true }))!, now, demo);
      });
      return view(db, ctx.orgId, siteId, now);
    },

    async status(ctx: RequestContext, siteId: string) {
      await requireSite(db, ctx.orgId, siteId);
      return view(db, ctx.orgId, siteId, clock.now());
    },

    async check(ctx: RequestContext, siteId: string) {
      const now = clock.now();
      const demo = (await orgs.realmOf(ctx.orgId)) === 'demo';
      await db.tx(async (q) => {
        await requireSite(q, ctx.orgId, siteId);
        const row = await gatewayStore.ensure(q, ctx.orgId, siteId, defaults, now);
        await apply(q, ctx.orgId, row, now, demo);
      });
      return view(db, ctx.orgId, siteId, now);
    },

    /** Demo rehearsal: the link goes silent now (the alert is raised at once) until restore. */
    async drop(ctx: RequestContext, siteId: string) {
      const now = clock.now();
      await db.tx(async (q) => {
        await requireSite(q, ctx.orgId, siteId);
        const row = await gatewayStore.ensure(q, ctx.orgId, siteId, defaults, now);
        if (!row.dropped_at) await gatewayStore.setDropped(q, ctx.orgId, siteId, now, now);
        await apply(q, ctx.orgId, (await gatewayStore.get(q, ctx.orgId, siteId, { forUpdate: true }))!, now, true);
      });
      return view(db, ctx.orgId, siteId, now);
    },

    /** Demo rehearsal: the link comes back with a heartbeat now (the alert resolves). */
    async restore(ctx: RequestContext, siteId: string) {
      const now = clock.now();
      await db.tx(async (q) => {
        await requireSite(q, ctx.orgId, siteId);
        await gatewayStore.ensure(q, ctx.orgId, siteId, defaults, now);
        await gatewayStore.setDropped(q, ctx.orgId, siteId, null, now);
        await gatewayStore.heartbeat(q, ctx.orgId, siteId, { at: now }, now);
        await apply(q, ctx.orgId, (await gatewayStore.get(q, ctx.orgId, siteId, { forUpdate: true }))!, now, true);
      });
      return view(db, ctx.orgId, siteId, now);
    },

    /** The watchdog: every gateway of a demo-realm organisation, evaluated and alerted; each gateway its own unit (decision 0285). */
    async watchdog(): Promise<{ checked: number }> {
      const now = clock.now();
      const realms = new Map<string, boolean>();
      let checked = 0;
      await deps.units.each(
        WATCHDOG_KIND,
        await gatewayStore.all(deps.work),
        (g) => ({ orgId: g.org_id, key: g.site_id }),
        async (g) => {
          if (!realms.has(g.org_id)) realms.set(g.org_id, (await orgs.realmOf(g.org_id)) === 'demo');
          if (!realms.get(g.org_id)) return;
          await deps.work.tx(async (q) => {
            const row = await gatewayStore.get(q, g.org_id, g.site_id, { forUpdate: true });
            if (row) await apply(q, g.org_id, row, now, true);
          });
          checked++;
        },
      );
      return { checked };
    },
  };
}

export type GatewayLink = ReturnType<typeof createGatewayLink>;
