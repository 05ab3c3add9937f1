// Registry rules: twin v1 (create, list, update, delete) and registry v2 (register, edit, move,
// re-link, delete childless, sites, topology, import). Every write is one transaction with its audit.
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { AuditLog } from '../audit/index.ts';
import { errors } from '../../platform/errors.ts';
import { publish } from '../../platform/jobs.ts';
import { ASSETS_CHANGED } from './events.ts';
import { registryErrors } from './errors.ts';
import type { AssetFilter, AssetRow, AssetWithLatest, NewAsset, RegistryStore } from './store.ts';
import {
  ASSET_ID_PATTERN,
  ASSET_CLASSES,
  FRESHNESS_BANDS,
  classOfType,
  connectivityOf,
  freshnessOf,
  isAssetClass,
  type AssetClass,
  type Freshness,
} from './vocabulary.ts';
import { findingsOf, linesOf, parentRefusal, type Finding } from './topology.ts';

const ASSET_ID_RE = new RegExp(ASSET_ID_PATTERN);

export interface RegistryDeps {
  db: Db;
  clock: Clock;
  audit: AuditLog;
  store: RegistryStore;
}

export const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);

/** The newest stored record of an asset as answered to clients; null when it never reported. */
export function latestReading(a: AssetWithLatest) {
  return a.last_ts
    ? {
        ts: iso(a.last_ts)!,
        received_at: iso(a.last_received_at)!,
        source: a.last_source!,
        power_kw: a.power_kw,
        soc_pct: a.soc_pct,
        voltage: a.voltage,
        current: a.current,
        temp_c: a.temp_c,
        status: a.last_status!,
      }
    : null;
}

export function twinView(a: AssetRow) {
  return {
    asset_id: a.asset_id,
    site_id: a.site_id,
    type: a.type,
    name: a.name,
    details: a.details ?? {},
    asset_class: a.asset_class,
    parent_asset_id: a.parent_asset_id,
    created_at: iso(a.created_at)!,
    updated_at: iso(a.updated_at)!,
  };
}

/** Which asset it is, as lists of assets name it: id, site, name, type and class. */
export function assetNames(a: Pick<AssetRow, 'asset_id' | 'site_id' | 'name' | 'type' | 'asset_class'>) {
  return { asset_id: a.asset_id, site_id: a.site_id, name: a.name, type: a.type, asset_class: a.asset_class };
}

/** How an asset reports: its freshness band and connectivity at `now`, and its newest stored record's time and source. */
export function reportingView(a: AssetWithLatest, now: Date) {
  const freshness = freshnessOf(a.last_ts, now);
  return {
    freshness,
    connectivity: connectivityOf(freshness),
    last_reported_at: iso(a.last_ts),
    last_reported_source: a.last_ts ? a.last_source : null,
  };
}

export function registryView(a: AssetWithLatest, now: Date) {
  return { ...twinView(a), origin: a.origin, ...reportingView(a, now) };
}

export interface RegisterInput {
  asset_id?: string;
  site_id: string;
  asset_class: AssetClass;
  type?: string;
  name: string;
  details?: Record<string, unknown>;
  parent_asset_id?: string | null;
}

export interface PatchInput {
  name?: string;
  type?: string;
  details?: Record<string, unknown>;
  asset_class?: AssetClass;
  site_id?: string;
  parent_asset_id?: string | null;
}

export interface ImportInput {
  asset_ids?: string[];
}

const FAULT = /fault|error|alarm|trip/i;

export function createRegistryService({ db, clock, audit, store }: RegistryDeps) {
  async function insertOrConflict(q: Queryable, ctx: RequestContext, a: NewAsset, now: Date) {
    const row = await store.insert(q, ctx.orgId, a, now);
    if (!row) throw registryErrors.duplicateAsset();
    return row;
  }

  /** Descendants of an asset among the site's assets (cycle-safe). */
  function descendants(siteAssets: AssetRow[], rootId: string): string[] {
    const out: string[] = [];
    const seen = new Set([rootId]);
    const stack = [rootId];
    while (stack.length) {
      const id = stack.pop()!;
      for (const a of siteAssets) {
        if (a.parent_asset_id === id && !seen.has(a.asset_id)) {
          seen.add(a.asset_id);
          out.push(a.asset_id);
          stack.push(a.asset_id);
        }
      }
    }
    return out;
  }

  /** Checks a parent for an asset of class `cls` at `siteId`; returns nothing or throws 422. */
  async function checkParent(q: Queryable, ctx: RequestContext, assetId: string, parentId: string, cls: AssetClass | null, siteId: string) {
    if (parentId === assetId) throw registryErrors.field('parent_asset_id', 'An asset cannot be its own parent', parentId);
    const parent = await store.get(q, ctx.orgId, parentId, { forUpdate: true });
    if (!parent) throw registryErrors.field('parent_asset_id', 'Parent asset not found', parentId);
    if (parent.site_id !== siteId) {
      throw registryErrors.field('parent_asset_id', `Parent asset is at another site (${parent.site_id}); parent and child share a site`, parentId);
    }
    const refusal = parentRefusal(cls, parent.asset_class);
    if (refusal) throw registryErrors.field('parent_asset_id', refusal, parentId);
    return parent;
  }

  /**
   * Tells other modules, in the write's own transaction, that assets of these sites changed in a
   * way that alters how their readings are counted (added, removed, moved, re-parented, re-classed):
   * the energy model rebuilds those sites from the stored readings (issue 36).
   */
  const assetsChanged = (q: Queryable, orgId: string, siteIds: (string | null | undefined)[], assetIds: string[]) =>
    publish(
      q,
      clock.now(),
      ASSETS_CHANGED,
      { site_ids: [...new Set(siteIds.filter((x): x is string => !!x))].sort(), asset_ids: [...new Set(assetIds)].sort() },
      orgId,
    );

  const api = {
    // ---- Twin v1 ---------------------------------------------------------------------------

    async createTwin(ctx: RequestContext, body: { asset_id?: string; site_id: string; type: string; name: string; details?: Record<string, unknown> }) {
      const now = clock.now();
      return db.tx(async (q) => {
        const row = await insertOrConflict(
          q,
          ctx,
          {
            asset_id: body.asset_id ?? randomUUID(),
            site_id: body.site_id,
            type: body.type,
            name: body.name,
            details: body.details ?? {},
            asset_class: classOfType(body.type),
            parent_asset_id: null,
            origin: 'twin',
          },
          now,
        );
        await audit.record(q, ctx, {
          action: 'twin.asset.create',
          targetType: 'asset',
          targetId: row.asset_id,
          details: { site_id: row.site_id, type: row.type, asset_class: row.asset_class, via: 'twin' },
        });
        await assetsChanged(q, ctx.orgId, [row.site_id], [row.asset_id]);
        return twinView(row);
      });
    },

    async listTwin(ctx: RequestContext) {
      return (await store.listAll(db, ctx.orgId)).map(twinView);
    },

    async updateTwin(ctx: RequestContext, assetId: string, body: { name?: string; details?: Record<string, unknown> }) {
      const now = clock.now();
      return db.tx(async (q) => {
        const row = await store.update(q, ctx.orgId, assetId, { name: body.name, details: body.details }, now);
        if (!row) throw errors.notFound();
        await audit.record(q, ctx, {
          action: 'twin.asset.update',
          targetType: 'asset',
          targetId: assetId,
          details: { fields: Object.keys(body).sort(), via: 'twin' },
        });
        return twinView(row);
      });
    },

    /** Removes the entry; its children become roots; telemetry is untouched. */
    async deleteTwin(ctx: RequestContext, assetId: string) {
      const now = clock.now();
      await db.tx(async (q) => {
        const row = await store.get(q, ctx.orgId, assetId, { forUpdate: true });
        if (!row) throw errors.notFound();
        const detached = await store.detachChildren(q, ctx.orgId, assetId, now);
        await store.remove(q, ctx.orgId, assetId);
        await audit.record(q, ctx, {
          action: 'twin.asset.delete',
          targetType: 'asset',
          targetId: assetId,
          details: { site_id: row.site_id, detached_children: detached, via: 'twin' },
        });
        await assetsChanged(q, ctx.orgId, [row.site_id], [assetId]);
      });
    },

    // ---- Registry v2 -------------------------------------------------------------------------

    async register(ctx: RequestContext, body: RegisterInput) {
      const now = clock.now();
      const assetId = body.asset_id ?? randomUUID();
      await db.tx(async (q) => {
        if (body.parent_asset_id) await checkParent(q, ctx, assetId, body.parent_asset_id, body.asset_class, body.site_id);
        const row = await insertOrConflict(
          q,
          ctx,
          {
            asset_id: assetId,
            site_id: body.site_id,
            type: body.type ?? body.asset_class,
            name: body.name,
            details: body.details ?? {},
            asset_class: body.asset_class,
            parent_asset_id: body.parent_asset_id ?? null,
            origin: 'registry',
          },
          now,
        );
        await audit.record(q, ctx, {
          action: 'twin.asset.create',
          targetType: 'asset',
          targetId: row.asset_id,
          details: { site_id: row.site_id, type: row.type, asset_class: row.asset_class, parent_asset_id: row.parent_asset_id, via: 'registry' },
        });
        await assetsChanged(q, ctx.orgId, [row.site_id], [row.asset_id]);
      });
      const full = await store.getWithLatest(db, ctx.orgId, assetId);
      return registryView(full!, clock.now());
    },

    async listAssets(ctx: RequestContext, f: { site_id?: string; asset_class?: string; type?: string; freshness?: Freshness; parent_asset_id?: string }) {
      const filter: AssetFilter = { siteId: f.site_id, type: f.type, parentAssetId: f.parent_asset_id };
      if (f.asset_class && f.asset_class !== 'unclassified') filter.classes = [f.asset_class];
      let rows = await store.list(db, ctx.orgId, filter);
      if (f.asset_class === 'unclassified') rows = rows.filter((r) => !isAssetClass(r.asset_class));
      const now = clock.now();
      const views = rows.map((r) => registryView(r, now));
      return f.freshness ? views.filter((v) => v.freshness === f.freshness) : views;
    },

    async getAsset(ctx: RequestContext, assetId: string) {
      const a = await store.getWithLatest(db, ctx.orgId, assetId);
      if (!a) throw errors.notFound();
      const now = clock.now();
      const view = registryView(a, now);
      const site = await store.siteAssets(db, ctx.orgId, a.site_id);
      const findings = findingsOf(site).filter((f) => f.asset_id === assetId);
      const reasons: { code: string; message: string }[] = [];
      if (view.freshness === 'never') reasons.push({ code: 'never_reported', message: 'No record has been stored for this asset.' });
      if (view.freshness === 'stale' || view.freshness === 'silent') {
        reasons.push({ code: view.freshness, message: `The newest record is from ${view.last_reported_at}.` });
      }
      if (a.last_status && FAULT.test(a.last_status)) {
        reasons.push({ code: 'status_fault', message: `The newest record's status is '${a.last_status}'.` });
      }
      for (const f of findings) reasons.push({ code: f.code, message: f.message });
      const state = reasons.length === 0 ? 'ok' : reasons.length === 1 && reasons[0].code === 'never_reported' ? 'unknown' : 'attention';
      return {
        ...view,
        children: site
          .filter((s) => s.parent_asset_id === assetId)
          .map((s) => s.asset_id)
          .sort(),
        latest: latestReading(a),
        posture: { state: state as 'ok' | 'attention' | 'unknown', reasons },
      };
    },

    async patchAsset(ctx: RequestContext, assetId: string, body: PatchInput) {
      const now = clock.now();
      await db.tx(async (q) => {
        const cur = await store.get(q, ctx.orgId, assetId, { forUpdate: true });
        if (!cur) throw errors.notFound();
        const targetSite = body.site_id ?? cur.site_id;
        const moving = targetSite !== cur.site_id;
        // Lock both sites' assets so concurrent re-links cannot build a cycle between them.
        const oldSite = await store.siteAssets(q, ctx.orgId, cur.site_id, { forUpdate: true });
        if (moving) await store.siteAssets(q, ctx.orgId, targetSite, { forUpdate: true });
        const cls = body.asset_class ?? (isAssetClass(cur.asset_class) ? cur.asset_class : null);
        const parentGiven = body.parent_asset_id !== undefined;
        const parentId = parentGiven ? (body.parent_asset_id ?? null) : moving ? null : cur.parent_asset_id;
        const subtree = descendants(oldSite, assetId);

        if (parentGiven && parentId) {
          if (subtree.includes(parentId)) {
            throw registryErrors.field('parent_asset_id', 'The parent lies below this asset; linking would create a cycle', parentId);
          }
          await checkParent(q, ctx, assetId, parentId, cls, targetSite);
        } else if (parentId && body.asset_class) {
          // Class changed under an existing parent: the parent must still be allowed.
          const parent = oldSite.find((s) => s.asset_id === parentId);
          const refusal = parent ? parentRefusal(cls, parent.asset_class) : null;
          if (refusal) throw registryErrors.field('asset_class', `${refusal} (current parent ${parentId})`, body.asset_class);
        }
        if (body.asset_class) {
          for (const child of oldSite.filter((s) => s.parent_asset_id === assetId)) {
            const childCls = isAssetClass(child.asset_class) ? child.asset_class : null;
            const refusal = parentRefusal(childCls, body.asset_class);
            if (refusal) throw registryErrors.field('asset_class', `Child ${child.asset_id}: ${refusal}`, body.asset_class);
          }
        }

        await store.update(
          q,
          ctx.orgId,
          assetId,
          {
            name: body.name,
            type: body.type,
            details: body.details,
            asset_class: body.asset_class,
            site_id: moving ? targetSite : undefined,
            parent_asset_id: parentId !== cur.parent_asset_id ? parentId : undefined,
          },
          now,
        );
        if (moving && subtree.length) await store.moveSite(q, ctx.orgId, subtree, targetSite, now);
        const details: Record<string, unknown> = { fields: Object.keys(body).sort(), via: 'registry' };
        if (moving) Object.assign(details, { moved_from: cur.site_id, moved_to: targetSite, moved_with: subtree.sort() });
        if (parentId !== cur.parent_asset_id) Object.assign(details, { parent_from: cur.parent_asset_id, parent_to: parentId });
        await audit.record(q, ctx, { action: 'twin.asset.update', targetType: 'asset', targetId: assetId, details });
        await assetsChanged(q, ctx.orgId, [cur.site_id, targetSite], [assetId, ...(moving ? subtree : [])]);
      });
      return api.getAsset(ctx, assetId);
    },

    async deleteAsset(ctx: RequestContext, assetId: string) {
      await db.tx(async (q) => {
        const row = await store.get(q, ctx.orgId, assetId, { forUpdate: true });
        if (!row) throw errors.notFound();
        if ((await store.childIds(q, ctx.orgId, assetId)).length) throw registryErrors.hasChildren();
        await store.remove(q, ctx.orgId, assetId);
        await audit.record(q, ctx, {
          action: 'twin.asset.delete',
          targetType: 'asset',
          targetId: assetId,
          details: { site_id: row.site_id, via: 'registry' },
        });
        await assetsChanged(q, ctx.orgId, [row.site_id], [assetId]);
      });
    },

    async sites(ctx: RequestContext) {
      const now = clock.now();
      const sites = await store.sites(db, ctx.orgId);
      return sites.map((s) => {
        const by_class: Record<string, number> = Object.fromEntries([...ASSET_CLASSES, 'unclassified'].map((c) => [c, 0]));
        const freshness: Record<string, number> = Object.fromEntries(FRESHNESS_BANDS.map((b) => [b, 0]));
        let last: Date | null = null;
        for (const a of s.registered) {
          by_class[isAssetClass(a.asset_class) ? a.asset_class : 'unclassified']++;
          freshness[freshnessOf(a.last_ts, now)]++;
          if (a.last_ts && (!last || a.last_ts > last)) last = a.last_ts;
        }
        const findings = findingsOf(s.registered);
        return {
          site_id: s.site_id,
          asset_count: s.registered.length,
          unregistered_devices: s.unregistered,
          by_class,
          freshness,
          last_reported_at: iso(last),
          topology_errors: findings.filter((f) => f.severity === 'error').length,
          topology_warnings: findings.filter((f) => f.severity === 'warning').length,
        };
      });
    },

    async topology(ctx: RequestContext, siteId: string) {
      const assets = await store.list(db, ctx.orgId, { siteId });
      if (!assets.length && !(await store.siteExists(db, ctx.orgId, siteId))) throw errors.notFound();
      return topologyOf(siteId, assets, clock.now());
    },

    async importDevices(ctx: RequestContext, siteId: string, body: ImportInput) {
      const now = clock.now();
      return db.tx(async (q) => {
        const wanted = body.asset_ids ? [...new Set(body.asset_ids)] : undefined;
        const devices = await store.unregisteredDevices(q, ctx.orgId, wanted ? { assetIds: wanted } : { siteRef: siteId });
        if (!wanted && !devices.length && !(await store.siteExists(q, ctx.orgId, siteId))) throw errors.notFound();
        const skipped: { asset_id: string; reason: string }[] = [];
        if (wanted) {
          const found = new Set(devices.map((d) => d.asset_id));
          const registered = await store.existingIds(
            q,
            ctx.orgId,
            wanted.filter((id) => !found.has(id)),
          );
          for (const id of wanted) {
            if (found.has(id)) continue;
            skipped.push({ asset_id: id, reason: registered.has(id) ? 'already_registered' : 'no_telemetry' });
          }
        }
        const imported: AssetRow[] = [];
        for (const d of devices) {
          if (d.site_ref && d.site_ref !== siteId) {
            skipped.push({ asset_id: d.asset_id, reason: 'other_site' });
            continue;
          }
          if (!ASSET_ID_RE.test(d.asset_id)) {
            skipped.push({ asset_id: d.asset_id, reason: 'invalid_asset_id' });
            continue;
          }
          const raw = d.raw ?? {};
          const str = (k: string) => (typeof raw[k] === 'string' && (raw[k] as string).trim() ? (raw[k] as string).trim() : undefined);
          const declaredType = str('asset_type') ?? str('type') ?? str('device_type');
          const cls = isAssetClass(raw.asset_class) ? raw.asset_class : classOfType(declaredType);
          const row = await store.insert(
            q,
            ctx.orgId,
            {
              asset_id: d.asset_id,
              site_id: siteId,
              type: (declaredType ?? cls ?? 'unknown').slice(0, 64),
              name: (str('name') ?? d.asset_id).slice(0, 200),
              details: {},
              asset_class: cls,
              parent_asset_id: null,
              origin: 'import',
            },
            now,
          );
          if (!row) {
            skipped.push({ asset_id: d.asset_id, reason: 'already_registered' });
            continue;
          }
          imported.push(row);
        }
        if (imported.length) {
          await audit.record(q, ctx, {
            action: 'twin.asset.import',
            targetType: 'site',
            targetId: siteId,
            details: { asset_ids: imported.map((r) => r.asset_id), skipped: skipped.length },
          });
          await assetsChanged(
            q,
            ctx.orgId,
            [siteId],
            imported.map((r) => r.asset_id),
          );
        }
        const unplaced = await store.countUnplaced(q, ctx.orgId);
        return {
          site_id: siteId,
          imported: imported.map(twinView),
          imported_count: imported.length,
          skipped: skipped.sort((a, b) => a.asset_id.localeCompare(b.asset_id)),
          unplaced_devices: unplaced,
        };
      });
    },
  };
  return api;
}

export function topologyOf(siteId: string, assets: AssetWithLatest[], now: Date) {
  const findings: Finding[] = findingsOf(assets);
  const byAsset = new Map<string, string[]>();
  for (const f of findings) if (f.asset_id) byAsset.set(f.asset_id, [...(byAsset.get(f.asset_id) ?? []), f.code]);
  const lines = linesOf(assets).map((l) => ({
    asset_id: l.asset.asset_id,
    parent_asset_id: l.asset.parent_asset_id,
    depth: l.depth,
    children: l.children,
    name: l.asset.name,
    type: l.asset.type,
    asset_class: l.asset.asset_class,
    freshness: freshnessOf(l.asset.last_ts, now),
    findings: byAsset.get(l.asset.asset_id) ?? [],
  }));
  return {
    site_id: siteId,
    asset_count: assets.length,
    valid: !findings.some((f) => f.severity === 'error'),
    lines,
    findings,
  };
}

export type RegistryService = ReturnType<typeof createRegistryService>;
