// Partner API reads for the key's own organisation: live data from the stores, or (sandbox key)
// the generated sandbox organisation through the same shapes. Lists are cursor-paged newest first,
// ties by row id; cursors are bound to the operation, the organisation read and the filters, and
// telemetry/latest's cursor also carries the window fixed by the first page.
import type { Db } from '../../../infra/db/index.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { RequestContext } from '../../../platform/operation.ts';
import { invalidCursor, pageAfter, toPage, type CursorCodec, type Position } from '../../../platform/cursor.ts';
import { errors } from '../../../platform/errors.ts';
import type { AlertStream } from '../../alerts/index.ts';
import { alertView } from '../../alerts/index.ts';
import { iso, PAGE_LIMIT } from '../common.ts';
import type { KeyService } from '../apikeys/service.ts';
import type { SandboxData } from '../sandbox/generator.ts';
import type { OrgDirectory } from '../../orgs/index.ts';
import { sourceOfRaw, type RegistryReads } from '../../registry/index.ts';
import { readingValuesOf, type ReadingValues, type TelemetryReads } from '../../telemetry/index.ts';
import { canonicalStatus } from './status-canonical.ts';

export const DEFAULT_HOURS = 24;

export interface PartnerDeps {
  db: Db;
  clock: Clock;
  cursors: CursorCodec;
  alerts: AlertStream;
  keys: KeyService;
  sandbox: SandboxData;
  orgs: Pick<OrgDirectory, 'nameOf'>;
  registry: Pick<RegistryReads, 'page' | 'records'>;
  telemetry: Pick<TelemetryReads, 'latest' | 'readingsPage'>;
}

type KeyActor = Extract<RequestContext['actor'], { kind: 'key' }>;

function keyOf(ctx: RequestContext): KeyActor {
  if (ctx.actor.kind !== 'key') throw errors.forbidden('API key required');
  return ctx.actor;
}

/** Position ids that also carry the window start: `<row id>|<window start ms>`. */
const packWindow = (id: string | number, windowStartMs: number) => `${id}|${windowStartMs}`;
function unpackWindow(pos: Position): { id: string; windowStartMs: number } {
  const [id, w, extra] = String(pos.id).split('|');
  const windowStartMs = Number(w);
  if (!id || extra !== undefined || !Number.isSafeInteger(windowStartMs)) throw invalidCursor();
  return { id, windowStartMs };
}

export function createPartnerService(deps: PartnerDeps) {
  const { db, clock, cursors, alerts, keys, sandbox, orgs, registry, telemetry } = deps;

  /** The organisation a request reads: the key's own, or its sandbox organisation. */
  const readOrg = (ctx: RequestContext) => (keyOf(ctx).environment === 'sandbox' ? sandbox.orgOf(ctx.orgId) : ctx.orgId);
  const binding = (op: string, ctx: RequestContext, filters: object = {}) => ({ op, orgId: readOrg(ctx), filters });

  function reading(r: ReadingValues & { id: string | number; asset_id: string; site_id: string | null; ts: string; asset_type: string | null }) {
    return {
      id: String(r.id),
      asset_id: r.asset_id,
      site_id: r.site_id,
      ts: r.ts,
      ...readingValuesOf(r),
      status_canonical: canonicalStatus(r.status, r.power_kw, r.asset_type),
    };
  }

  return {
    async me(ctx: RequestContext) {
      const key = keyOf(ctx);
      const row = await keys.get(ctx.orgId, key.keyId);
      const sandboxed = key.environment === 'sandbox';
      const name = sandboxed ? 'Sandbox organisation (simulated)' : ((await orgs.nameOf(ctx.orgId)) ?? ctx.orgId);
      return {
        organisation: { id: readOrg(ctx), name },
        key: { id: key.keyId, name: row?.name ?? '', scopes: key.scopes, environment: key.environment, expires_at: row?.expires_at ?? null },
        environment: key.environment,
      };
    },

    async alerts(ctx: RequestContext, q: { limit?: number; cursor?: string; since?: string }) {
      const limit = q.limit ?? PAGE_LIMIT.default;
      const since = q.since ? new Date(q.since) : undefined;
      const b = binding('listPartnerAlerts', ctx, { since: since?.toISOString() ?? null });
      const paged = pageAfter(cursors, b, q.cursor, limit);
      const before = paged.after && { t: paged.after.t, seq: Number(paged.after.id) };
      if (before && !Number.isSafeInteger(before.seq)) throw invalidCursor();
      if (keyOf(ctx).environment === 'sandbox') {
        const all = sandbox
          .alerts(ctx.orgId, clock.now())
          .filter((a) => !since || new Date(a.raised_at) >= since)
          .filter((a) => !before || a.raised_at < before.t || (a.raised_at === before.t && a.seq < before.seq));
        const page = paged.page(all.slice(0, limit + 1), (a) => ({ t: a.raised_at, id: a.seq }));
        return { alerts: page.items.map(({ seq: _s, ...a }) => a), next_cursor: page.next_cursor, has_more: page.has_more };
      }
      const page = paged.page(await alerts.page(db, ctx.orgId, { since, before, limit: limit + 1 }), (r) => ({ t: r.raised_key, id: r.seq }));
      return { alerts: page.items.map(alertView), next_cursor: page.next_cursor, has_more: page.has_more };
    },

    async devices(ctx: RequestContext, q: { limit?: number; cursor?: string }) {
      const limit = q.limit ?? PAGE_LIMIT.default;
      const b = binding('listPartnerDevices', ctx);
      const { after, page: pageOf } = pageAfter(cursors, b, q.cursor, limit);
      if (keyOf(ctx).environment === 'sandbox') {
        const all = sandbox
          .devices(ctx.orgId, clock.now())
          .sort((x, y) => (x.asset_id < y.asset_id ? 1 : -1))
          .filter((d) => !after || d.created_at < after.t || (d.created_at === after.t && d.asset_id < after.id));
        const page = pageOf(all.slice(0, limit + 1), (d) => ({ t: d.created_at, id: d.asset_id }));
        return {
          devices: page.items.map((d) => ({
            asset_id: d.asset_id,
            site_id: d.site_id,
            type: d.type,
            name: d.name,
            created_at: d.created_at,
            last_reported_at: d.last_reported_at,
            last_reported_source: d.last_reported_source,
            status_canonical: canonicalStatus(d.status, d.power_kw, d.type),
          })),
          next_cursor: page.next_cursor,
          has_more: page.has_more,
        };
      }
      const page = pageOf(await registry.page(db, ctx.orgId, after ?? null, limit + 1), (r) => ({ t: r.created_key, id: r.asset_id }));
      // The newest record of the page's devices: one read for the page.
      const latest = new Map((await telemetry.latest(db, ctx.orgId, { assetIds: page.items.map((r) => r.asset_id) })).map((l) => [l.asset_id, l]));
      return {
        devices: page.items.map((r) => {
          const l = latest.get(r.asset_id);
          return {
            asset_id: r.asset_id,
            site_id: r.site_id,
            type: r.type,
            name: r.name,
            created_at: iso(r.created_at)!,
            last_reported_at: l ? iso(l.ts) : null,
            last_reported_source: l ? sourceOfRaw(l.raw) : null,
            status_canonical: l ? canonicalStatus(l.status, l.power_kw, r.type) : 'unknown',
          };
        }),
        next_cursor: page.next_cursor,
        has_more: page.has_more,
      };
    },

    async telemetry(ctx: RequestContext, q: { limit?: number; cursor?: string; hours?: number }) {
      const limit = q.limit ?? PAGE_LIMIT.default;
      const hours = q.hours ?? DEFAULT_HOURS;
      const b = binding('listPartnerLatestTelemetry', ctx, { hours });
      const now = clock.now();
      const pos = q.cursor ? cursors.decode(q.cursor, b) : null;
      const win = pos ? unpackWindow(pos) : null;
      const windowStartMs = win ? win.windowStartMs : now.getTime() - hours * 3_600_000;
      if (keyOf(ctx).environment === 'sandbox') {
        const before = pos ? { slotMs: Date.parse(pos.t), index: Number(win!.id) } : undefined;
        if (before && (!Number.isSafeInteger(before.slotMs) || !Number.isInteger(before.index))) throw invalidCursor();
        const rows = sandbox.readings(ctx.orgId, { windowStartMs, now, before, limit: limit + 1 });
        const page = toPage(rows, limit, (r) => ({ t: r.ts, id: packWindow(r.index, windowStartMs) }), cursors, b);
        return {
          readings: page.items.map((r) => reading(r)),
          window_start: new Date(windowStartMs).toISOString(),
          next_cursor: page.next_cursor,
          has_more: page.has_more,
        };
      }
      const before = pos ? { t: pos.t, id: Number(win!.id) } : null;
      if (before && !Number.isSafeInteger(before.id)) throw invalidCursor();
      const rows = await telemetry.readingsPage(db, ctx.orgId, { from: new Date(windowStartMs), until: pos ? null : now }, before, limit + 1);
      const page = toPage(rows, limit, (r) => ({ t: r.ts_key, id: packWindow(r.id, windowStartMs) }), cursors, b);
      // Site and type of the page's assets (null for a device the registry does not know).
      const assets = new Map(
        (await registry.records(db, ctx.orgId, { assetIds: [...new Set(page.items.map((r) => r.asset_id))] })).map((a) => [a.asset_id, a]),
      );
      return {
        readings: page.items.map((r) =>
          reading({ ...r, ts: iso(r.ts)!, site_id: assets.get(r.asset_id)?.site_id ?? null, asset_type: assets.get(r.asset_id)?.type ?? null }),
        ),
        window_start: new Date(windowStartMs).toISOString(),
        next_cursor: page.next_cursor,
        has_more: page.has_more,
      };
    },

    scenario(ctx: RequestContext) {
      return sandbox.scenario(ctx.orgId, clock.now());
    },
  };
}

export type PartnerService = ReturnType<typeof createPartnerService>;
