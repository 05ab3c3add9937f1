// What other modules may do with the registry (REGISTRY_SITES): read a site's assets and the devices
// reporting without a record, create a site's assets from a plan (onboarding), and let an
// onboarding placeholder take the id of the device that reports for it. Writes run in the caller's
// transaction; the caller records the audit entry (action twin.asset.create / twin.asset.update)
// in that same transaction.
import type { Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { AppError } from '../../platform/errors.ts';
import { registryErrors } from './errors.ts';
import { registryView } from './service.ts';
import type { RegistryStore } from './store.ts';
import { parentRefusal } from './topology.ts';
import { ASSET_ID_PATTERN, classOfType, isAssetClass, type AssetClass } from './vocabulary.ts';

const ASSET_ID_RE = new RegExp(ASSET_ID_PATTERN);

export interface PlannedAsset {
  asset_id: string;
  asset_class: AssetClass;
  type: string;
  name: string;
  details: Record<string, unknown>;
  /** An asset earlier in the same plan (or already at the site). */
  parent_asset_id: string | null;
}

export interface SiteAsset {
  asset_id: string;
  site_id: string;
  asset_class: AssetClass | null;
  type: string;
  name: string;
  parent_asset_id: string | null;
  details: Record<string, unknown>;
}

export interface ReportingDevice {
  asset_id: string;
  site_ref: string | null;
  last_ts: string;
  raw: Record<string, unknown>;
}

export function createRegistrySites(deps: { clock: Clock; store: RegistryStore }) {
  const { store } = deps;
  return {
    /** A site is known when an asset is registered at it or an unregistered device names it in site_ref. */
    siteExists: (q: Queryable, orgId: string, siteId: string) => store.siteExists(q, orgId, siteId),

    /** The site's registered assets with freshness (registry view), by asset id. */
    async siteAssets(q: Queryable, orgId: string, siteId: string) {
      const now = deps.clock.now();
      return (await store.list(q, orgId, { siteId })).map((a) => registryView(a, now)).sort((a, b) => a.asset_id.localeCompare(b.asset_id));
    },

    /** Devices with stored telemetry and no registry record, each with its newest record. */
    async reportingUnregistered(q: Queryable, orgId: string, f: { siteRef?: string; assetIds?: string[] } = {}): Promise<ReportingDevice[]> {
      return (await store.unregisteredDevices(q, orgId, f)).map((d) => ({
        asset_id: d.asset_id,
        site_ref: d.site_ref,
        last_ts: new Date(d.ts).toISOString(),
        raw: d.raw ?? {},
      }));
    },

    /**
     * Registered assets (every site, one site, or these ids), each with its class (the registry
     * class, else the class its free-form type names, else null), parent and details.
     */
    async assets(q: Queryable, orgId: string, f: { siteId?: string; siteIds?: readonly string[]; assetIds?: string[] } = {}): Promise<SiteAsset[]> {
      return (await store.rows(q, orgId, f)).map((a) => ({
        asset_id: a.asset_id,
        site_id: a.site_id,
        asset_class: (a.asset_class as AssetClass | null) ?? classOfType(a.type),
        type: a.type,
        name: a.name,
        parent_asset_id: a.parent_asset_id,
        details: a.details ?? {},
      }));
    },

    /** Which of these ids are registered in the organisation. */
    registeredIds: (q: Queryable, orgId: string, ids: string[]) => store.existingIds(q, orgId, ids),

    /**
     * Registers a site's assets in plan order (origin `onboarding`). A taken asset_id is 409
     * `Asset already registered`; a parent must come earlier in the plan and be an allowed parent.
     */
    async createAssets(q: Queryable, orgId: string, siteId: string, plan: readonly PlannedAsset[]) {
      const now = deps.clock.now();
      const classes = new Map<string, AssetClass>();
      const out = [];
      for (const a of plan) {
        if (!ASSET_ID_RE.test(a.asset_id)) throw registryErrors.field('asset_id', `Not a valid asset id: ${a.asset_id}`, a.asset_id);
        if (a.parent_asset_id) {
          const parentClass = classes.get(a.parent_asset_id);
          const refusal = parentRefusal(a.asset_class, parentClass ?? null);
          if (!parentClass || refusal) throw new AppError(500, 'Template plan names a parent it cannot use', { code: 'internal' });
        }
        const row = await store.insert(q, orgId, { ...a, site_id: siteId, origin: 'onboarding' }, now);
        if (!row) throw registryErrors.duplicateAsset();
        classes.set(a.asset_id, a.asset_class);
        out.push(row);
      }
      return out.map((r) => ({ asset_id: r.asset_id, asset_class: r.asset_class, type: r.type, name: r.name, parent_asset_id: r.parent_asset_id }));
    },

    /**
     * The onboarding placeholder `assetId` takes the id of the device reporting for it, so the
     * device's telemetry joins the asset. Refused (409) unless the asset was made by onboarding and
     * has no telemetry of its own, or when the device id is already registered.
     */
    async adoptDevice(q: Queryable, orgId: string, assetId: string, deviceId: string): Promise<void> {
      if (assetId === deviceId) return;
      const cur = await store.getWithLatest(q, orgId, assetId);
      if (!cur) throw new AppError(404, 'Not Found');
      if (cur.origin !== 'onboarding' || cur.last_ts) {
        throw new AppError(409, 'Asset is not an onboarding placeholder without telemetry', { code: 'asset_not_placeholder' });
      }
      if ((await store.existingIds(q, orgId, [deviceId])).size) throw registryErrors.duplicateAsset();
      await store.rename(q, orgId, assetId, deviceId, { onboarding_placeholder: assetId }, deps.clock.now());
    },
  };
}

export type RegistrySites = ReturnType<typeof createRegistrySites>;

export { classOfType, isAssetClass };
