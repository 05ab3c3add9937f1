// Sites and charge point registration (the password is shown once).
import { randomUUID } from 'node:crypto';
import { pageAfter } from '../../../platform/cursor.ts';
import type { RequestContext } from '../../../platform/operation.ts';
import { hubStore as store, type SecurityProfile, type SiteFields } from '../store.ts';
import { hashPassword, OCPP_PATH, SUBPROTOCOLS } from '../ocpp.ts';
import { hubErrors } from '../errors.ts';
import { type HubDeps, chargePointViews, newPassword, siteFields, siteOr404, siteView } from './shared.ts';

export function createSiteService(deps: HubDeps) {
  const { db, clock, cursors } = deps;
  return {
    async listSites(ctx: RequestContext, query: { limit?: number; cursor?: string }) {
      const limit = query.limit ?? 50;
      const binding = { op: 'listHubSites', orgId: ctx.orgId };
      const paged = pageAfter(cursors, binding, query.cursor, limit);
      const page = paged.page(await store.sitesPage(db, ctx.orgId, paged.after, limit), (r) => ({ t: r.pos, id: r.site_id }));
      return { sites: page.items.map(siteView), next_cursor: page.next_cursor, has_more: page.has_more };
    },

    async createSite(ctx: RequestContext, body: Partial<SiteFields> & { name: string; site_id?: string }) {
      const siteId = body.site_id ?? `site-${randomUUID().slice(0, 8)}`;
      return db.tx(async (q) => {
        const row = await store.insertSite(q, ctx.orgId, siteId, siteFields(body), clock.now());
        if (!row) throw hubErrors.siteExists();
        await deps.audit.record(q, ctx, { action: 'hub.site.create', targetType: 'hub_site', targetId: siteId, details: {} });
        return siteView(row);
      });
    },

    async getSite(ctx: RequestContext, siteId: string) {
      const s = await siteOr404(db, ctx.orgId, siteId);
      const cps = await store.chargePointsOfSite(db, ctx.orgId, siteId);
      return { ...siteView(s), charge_points: await chargePointViews(db, ctx.orgId, cps) };
    },

    async putSite(ctx: RequestContext, siteId: string, body: Partial<SiteFields> & { name: string }) {
      return db.tx(async (q) => {
        const row = await store.updateSite(q, ctx.orgId, siteId, siteFields(body), clock.now());
        if (!row) throw hubErrors.siteNotFound();
        await deps.audit.record(q, ctx, { action: 'hub.site.update', targetType: 'hub_site', targetId: siteId, details: {} });
        return siteView(row);
      });
    },

    async registerChargePoint(
      ctx: RequestContext,
      siteId: string,
      body: { charge_point_id: string; max_power_kw: number; connectors?: number; contactless?: boolean | null; security_profile?: SecurityProfile },
    ) {
      const password = newPassword();
      const profile = body.security_profile ?? 1;
      const created = await db.tx(async (q) => {
        if (!(await store.site(q, ctx.orgId, siteId, true))) throw hubErrors.siteNotFound();
        if (await store.chargePoint(q, ctx.orgId, body.charge_point_id)) throw hubErrors.chargePointExists();
        if (profile === 3 && (await store.chargerCas(q, ctx.orgId)).length === 0) throw hubErrors.noChargerCa();
        await deps.registry.createAssets(q, ctx.orgId, siteId, [
          {
            asset_id: body.charge_point_id,
            asset_class: 'charger',
            type: 'charger',
            name: `Charge point ${body.charge_point_id}`,
            details: { max_power_kw: body.max_power_kw, connectors: body.connectors ?? 1, hub_site_id: siteId, protocol: 'ocpp' },
            parent_asset_id: null,
          },
        ]);
        const row = await store.insertChargePoint(
          q,
          ctx.orgId,
          {
            charge_point_id: body.charge_point_id,
            site_id: siteId,
            asset_id: body.charge_point_id,
            password_hash: hashPassword(password),
            max_power_kw: body.max_power_kw,
            connectors: body.connectors ?? 1,
            contactless: body.contactless ?? null,
            security_profile: profile,
          },
          clock.now(),
        );
        if (!row) throw hubErrors.chargePointExists();
        await deps.audit.record(q, ctx, {
          action: 'hub.charge_point.register',
          targetType: 'hub_charge_point',
          targetId: body.charge_point_id,
          details: { site_id: siteId, security_profile: profile },
        });
        return row;
      });
      const base = deps.publicUrl();
      const endpoint = `${base.replace(/\/$/, '')}${OCPP_PATH}/${encodeURIComponent(ctx.orgId)}`;
      return {
        charge_point_id: created.charge_point_id,
        site_id: siteId,
        asset_id: created.asset_id,
        ocpp_endpoint: endpoint,
        ocpp_url: `${endpoint}/${encodeURIComponent(created.charge_point_id)}`,
        subprotocols: [...SUBPROTOCOLS],
        security_profile: created.security_profile,
        password,
      };
    },
  };
}
