// Overrides: a person holds a site or one of its devices for up to 7 days; automatic writes (the
// export limitation loop, the optimiser) are refused while one is active.
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CursorCodec } from '../../platform/cursor.ts';
import { pageAfter } from '../../platform/cursor.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import type { RegistrySites } from '../registry/index.ts';
import { actorId } from './decisions.ts';
import { controlErrors } from './errors.ts';
import type { Sites } from './sites.ts';
import { demoStore, overrideStore, type OverrideRow } from './store.ts';

export function overrideView(o: OverrideRow, now: Date) {
  const status = o.revoked_at ? 'revoked' : new Date(o.expires_at) <= now ? 'expired' : 'active';
  return {
    override_id: o.override_id,
    site_id: o.site_id,
    device_id: o.device_id,
    reason: o.reason,
    authority: o.authority,
    status: status as 'active' | 'revoked' | 'expired',
    starts_at: isoTime(o.starts_at),
    expires_at: isoTime(o.expires_at),
    created_by: o.created_by,
    created_at: isoTime(o.created_at),
    revoked_at: isoTimeOrNull(o.revoked_at),
    revoked_by: o.revoked_by,
    revoke_reason: o.revoke_reason,
  };
}

export function createOverrides(deps: { db: Db; clock: Clock; cursors: CursorCodec; registry: RegistrySites; sites: Sites }) {
  const { db, clock, cursors, registry, sites } = deps;

  return {
    /** Active overrides on a site now: the whole site, or these devices. */
    async overridesOn(q: Queryable, orgId: string, siteId: string, now: Date) {
      const active = await overrideStore.active(q, orgId, now, siteId);
      return { site: active.some((o) => o.device_id === null), devices: active.flatMap((o) => (o.device_id ? [o.device_id] : [])) };
    },

    // ---- Overrides ----
    async overrides(ctx: RequestContext, query: { site_id?: string; status?: 'active' | 'revoked' | 'expired'; limit?: number; cursor?: string }) {
      const now = clock.now();
      const limit = query.limit ?? 50;
      const binding = { op: 'listOverrides', orgId: ctx.orgId, filters: { s: query.site_id ?? null, st: query.status ?? null } };
      const paged = pageAfter(cursors, binding, query.cursor, limit);
      const rows = await overrideStore.page(db, ctx.orgId, now, {
        siteId: query.site_id,
        status: query.status,
        limit,
        before: paged.after,
      });
      const page = paged.page(rows, (r) => ({ t: r.pos, id: r.override_id }));
      return { overrides: page.items.map((o) => overrideView(o, now)), next_cursor: page.next_cursor, has_more: page.has_more };
    },

    async createOverride(ctx: RequestContext, body: { site_id: string; device_id?: string | null; reason: string; authority: string; expires_at: string }) {
      const now = clock.now();
      const expires = new Date(body.expires_at);
      if (!(expires.getTime() > now.getTime())) throw controlErrors.field(['body', 'expires_at'], 'Must be in the future', body.expires_at);
      if (expires.getTime() - now.getTime() > 7 * 86_400_000) throw controlErrors.field(['body', 'expires_at'], 'At most 7 days ahead', body.expires_at);
      return db.tx(async (q) => {
        await sites.requireSite(q, ctx.orgId, body.site_id);
        if (body.device_id) {
          const site = await demoStore.deviceSite(q, ctx.orgId, body.device_id);
          const assets = site === null ? await registry.assets(q, ctx.orgId, { siteId: body.site_id }) : [];
          if (site !== body.site_id && !assets.some((a) => a.asset_id === body.device_id))
            throw controlErrors.field(['body', 'device_id'], `Not a device of site '${body.site_id}'`, body.device_id);
        }
        const row: OverrideRow = {
          override_id: randomUUID(),
          site_id: body.site_id,
          device_id: body.device_id ?? null,
          reason: body.reason,
          authority: body.authority,
          starts_at: now,
          expires_at: expires,
          created_by: actorId(ctx),
          created_at: now,
          revoked_at: null,
          revoked_by: null,
          revoke_reason: null,
        };
        await overrideStore.insert(q, ctx.orgId, row);
        return overrideView(row, now);
      });
    },

    async revokeOverride(ctx: RequestContext, id: string, reason: string) {
      const now = clock.now();
      return db.tx(async (q) => {
        const o = await overrideStore.get(q, ctx.orgId, id, { forUpdate: true });
        if (!o) throw controlErrors.overrideNotFound();
        const status = overrideView(o, now).status;
        if (status !== 'active') throw controlErrors.overrideNotActive(status);
        await overrideStore.revoke(q, ctx.orgId, id, actorId(ctx), reason, now);
        return overrideView((await overrideStore.get(q, ctx.orgId, id))!, now);
      });
    },
  };
}

export type Overrides = ReturnType<typeof createOverrides>;
