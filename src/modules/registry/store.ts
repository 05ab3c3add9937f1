// SQL of the asset registry: the `assets` table (twin v1 and registry v2), with the newest stored
// record of each asset from telemetry_latest. Every function takes the organisation first.
import type { Queryable } from '../../infra/db/index.ts';
import { REPORTED_SOURCES } from './vocabulary.ts';

export interface AssetRow {
  org_id: string;
  asset_id: string;
  site_id: string;
  type: string;
  name: string;
  details: Record<string, unknown>;
  asset_class: string | null;
  parent_asset_id: string | null;
  origin: string;
  created_at: Date;
  updated_at: Date;
}

/** An asset with its newest stored record (null members when none). */
export interface AssetWithLatest extends AssetRow {
  last_ts: Date | null;
  last_received_at: Date | null;
  last_source: string | null;
  power_kw: number | null;
  soc_pct: number | null;
  voltage: number | null;
  current: number | null;
  temp_c: number | null;
  last_status: string | null;
  raw: Record<string, unknown> | null;
}

const COLS = 'a.org_id, a.asset_id, a.site_id, a.type, a.name, a.details, a.asset_class, a.parent_asset_id, a.origin, a.created_at, a.updated_at';

/** SQL expression naming the source of a stored record (see vocabulary.sourceOfRaw). */
export function reportedSourceSql(alias: string): string {
  const names = REPORTED_SOURCES.map((s) => `'${s}'`).join(', ');
  return `(case when ${alias}.raw->>'source' in (${names}) then ${alias}.raw->>'source' else 'telemetry' end)`;
}

const WITH_LATEST = `${COLS},
  l.ts as last_ts, l.received_at as last_received_at, ${reportedSourceSql('l')} as last_source,
  l.power_kw, l.soc_pct, l.voltage, l."current" as current, l.temp_c, l.status as last_status, l.raw`;

const UPDATABLE = ['name', 'type', 'details', 'asset_class', 'parent_asset_id', 'site_id'];

export interface AssetFilter {
  siteId?: string;
  classes?: string[];
  type?: string;
  parentAssetId?: string;
  assetIds?: string[];
}

export interface NewAsset {
  asset_id: string;
  site_id: string;
  type: string;
  name: string;
  details: Record<string, unknown>;
  asset_class: string | null;
  parent_asset_id: string | null;
  origin: 'twin' | 'registry' | 'import' | 'onboarding';
}

export function createRegistryStore() {
  return {
    /** Inserts; false when the asset_id is already taken in the organisation. */
    async insert(q: Queryable, orgId: string, a: NewAsset, now: Date): Promise<AssetRow | null> {
      const r = await q.query<AssetRow>(
        `insert into assets as a (org_id, asset_id, site_id, type, name, details, asset_class, parent_asset_id, origin, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
         on conflict (org_id, asset_id) do nothing
         returning ${COLS}`,
        [orgId, a.asset_id, a.site_id, a.type, a.name, JSON.stringify(a.details), a.asset_class, a.parent_asset_id, a.origin, now],
      );
      return r.rows[0] ?? null;
    },

    async get(q: Queryable, orgId: string, assetId: string, opts: { forUpdate?: boolean } = {}): Promise<AssetRow | null> {
      const r = await q.query<AssetRow>(
        `select ${COLS} from assets a where a.org_id = $1 and a.asset_id = $2${opts.forUpdate ? ' for update' : ''}`,
        [orgId, assetId],
      );
      return r.rows[0] ?? null;
    },

    async getWithLatest(q: Queryable, orgId: string, assetId: string): Promise<AssetWithLatest | null> {
      const r = await q.query<AssetWithLatest>(
        `select ${WITH_LATEST} from assets a
         left join telemetry_latest l on l.org_id = a.org_id and l.asset_id = a.asset_id
         where a.org_id = $1 and a.asset_id = $2`,
        [orgId, assetId],
      );
      return r.rows[0] ?? null;
    },

    /** Every asset of the organisation, oldest first (v1 listing). */
    async listAll(q: Queryable, orgId: string): Promise<AssetRow[]> {
      const r = await q.query<AssetRow>(`select ${COLS} from assets a where a.org_id = $1 order by a.created_at, a.asset_id`, [orgId]);
      return r.rows;
    },

    async list(q: Queryable, orgId: string, f: AssetFilter = {}): Promise<AssetWithLatest[]> {
      const where = ['a.org_id = $1'];
      const params: unknown[] = [orgId];
      const add = (sql: string, v: unknown) => {
        params.push(v);
        where.push(sql.replace('?', `$${params.length}`));
      };
      if (f.siteId !== undefined) add('a.site_id = ?', f.siteId);
      if (f.classes) add('a.asset_class = any(?::text[])', f.classes);
      if (f.type !== undefined) add('a.type = ?', f.type);
      if (f.parentAssetId !== undefined) add('a.parent_asset_id = ?', f.parentAssetId);
      if (f.assetIds) add('a.asset_id = any(?::text[])', f.assetIds);
      const r = await q.query<AssetWithLatest>(
        `select ${WITH_LATEST} from assets a
         left join telemetry_latest l on l.org_id = a.org_id and l.asset_id = a.asset_id
         where ${where.join(' and ')}
         order by a.site_id, a.asset_id`,
        params,
      );
      return r.rows;
    },

    /** Assets of one site, for tree checks (locked when inside a write). */
    async siteAssets(q: Queryable, orgId: string, siteId: string, opts: { forUpdate?: boolean } = {}): Promise<AssetRow[]> {
      const r = await q.query<AssetRow>(
        `select ${COLS} from assets a where a.org_id = $1 and a.site_id = $2 order by a.asset_id${opts.forUpdate ? ' for update' : ''}`,
        [orgId, siteId],
      );
      return r.rows;
    },

    async childIds(q: Queryable, orgId: string, assetId: string): Promise<string[]> {
      const r = await q.query<{ asset_id: string }>(
        'select asset_id from assets where org_id = $1 and parent_asset_id = $2 order by asset_id',
        [orgId, assetId],
      );
      return r.rows.map((x) => x.asset_id);
    },

    async update(
      q: Queryable,
      orgId: string,
      assetId: string,
      patch: Partial<Pick<AssetRow, 'name' | 'type' | 'details' | 'asset_class' | 'parent_asset_id' | 'site_id'>>,
      now: Date,
    ): Promise<AssetRow | null> {
      const sets: string[] = [];
      const params: unknown[] = [orgId, assetId];
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined || !UPDATABLE.includes(k)) continue;
        params.push(k === 'details' ? JSON.stringify(v) : v);
        sets.push(`${k} = $${params.length}`);
      }
      params.push(now);
      sets.push(`updated_at = $${params.length}`);
      const r = await q.query<AssetRow>(
        `update assets a set ${sets.join(', ')} where a.org_id = $1 and a.asset_id = $2 returning ${COLS}`,
        params,
      );
      return r.rows[0] ?? null;
    },

    /** Moves assets to another site (a subtree move). */
    async moveSite(q: Queryable, orgId: string, assetIds: string[], siteId: string, now: Date): Promise<void> {
      await q.query('update assets set site_id = $3, updated_at = $4 where org_id = $1 and asset_id = any($2::text[])', [
        orgId,
        assetIds,
        siteId,
        now,
      ]);
    },

    /** Unlinks the children of an asset (they become roots); returns their ids. */
    async detachChildren(q: Queryable, orgId: string, assetId: string, now: Date): Promise<string[]> {
      const r = await q.query<{ asset_id: string }>(
        `update assets set parent_asset_id = null, updated_at = $3
         where org_id = $1 and parent_asset_id = $2 returning asset_id`,
        [orgId, assetId, now],
      );
      return r.rows.map((x) => x.asset_id).sort();
    },

    /** Deletes the record and its source priorities (call inside the write's transaction). */
    async remove(q: Queryable, orgId: string, assetId: string): Promise<boolean> {
      await q.query('delete from source_priorities where org_id = $1 and asset_id = $2', [orgId, assetId]);
      const r = await q.query('delete from assets where org_id = $1 and asset_id = $2', [orgId, assetId]);
      return r.rowCount > 0;
    },

    /**
     * Sites of the organisation with counts: registered assets by class and freshness inputs, and
     * devices seen in telemetry with no record whose raw `site_ref` names the site.
     */
    async sites(q: Queryable, orgId: string): Promise<{ site_id: string; registered: AssetWithLatest[]; unregistered: number }[]> {
      const assets = await this.list(q, orgId);
      const un = await q.query<{ site_id: string; n: number }>(
        `select l.raw->>'site_ref' as site_id, count(*)::int as n
         from telemetry_latest l
         where l.org_id = $1 and l.raw->>'site_ref' is not null and l.raw->>'site_ref' <> ''
           and not exists (select 1 from assets a where a.org_id = l.org_id and a.asset_id = l.asset_id)
         group by 1`,
        [orgId],
      );
      const bySite = new Map<string, { site_id: string; registered: AssetWithLatest[]; unregistered: number }>();
      for (const a of assets) {
        const s = bySite.get(a.site_id) ?? { site_id: a.site_id, registered: [], unregistered: 0 };
        s.registered.push(a);
        bySite.set(a.site_id, s);
      }
      for (const u of un.rows) {
        const s = bySite.get(u.site_id) ?? { site_id: u.site_id, registered: [], unregistered: 0 };
        s.unregistered = u.n;
        bySite.set(u.site_id, s);
      }
      return [...bySite.values()].sort((a, b) => a.site_id.localeCompare(b.site_id));
    },

    /** Devices with a stored record and no registry entry (newest record each). */
    async unregisteredDevices(
      q: Queryable,
      orgId: string,
      f: { siteRef?: string; assetIds?: string[] },
    ): Promise<{ asset_id: string; site_ref: string | null; ts: Date; received_at: Date; raw: Record<string, unknown> }[]> {
      const params: unknown[] = [orgId];
      const where = ['l.org_id = $1', 'not exists (select 1 from assets a where a.org_id = l.org_id and a.asset_id = l.asset_id)'];
      if (f.siteRef !== undefined) {
        params.push(f.siteRef);
        where.push(`l.raw->>'site_ref' = $${params.length}`);
      }
      if (f.assetIds) {
        params.push(f.assetIds);
        where.push(`l.asset_id = any($${params.length}::text[])`);
      }
      const r = await q.query<{ asset_id: string; site_ref: string | null; ts: Date; received_at: Date; raw: Record<string, unknown> }>(
        `select l.asset_id, l.raw->>'site_ref' as site_ref, l.ts, l.received_at, l.raw
         from telemetry_latest l where ${where.join(' and ')} order by l.asset_id`,
        params,
      );
      return r.rows;
    },

    /** Devices with a stored record, no registry entry and no `site_ref`: not tied to any site. */
    async countUnplaced(q: Queryable, orgId: string): Promise<number> {
      const r = await q.query<{ n: number }>(
        `select count(*)::int as n from telemetry_latest l
         where l.org_id = $1 and coalesce(l.raw->>'site_ref', '') = ''
           and not exists (select 1 from assets a where a.org_id = l.org_id and a.asset_id = l.asset_id)`,
        [orgId],
      );
      return r.rows[0]?.n ?? 0;
    },

    /**
     * Gives an asset a new id (an onboarding placeholder taking the id of the device that reports
     * for it): its children and source priorities follow. False when the old id is absent.
     */
    async rename(q: Queryable, orgId: string, assetId: string, newId: string, details: Record<string, unknown>, now: Date): Promise<boolean> {
      const r = await q.query(
        `update assets set asset_id = $3, details = details || $4::jsonb, updated_at = $5 where org_id = $1 and asset_id = $2`,
        [orgId, assetId, newId, JSON.stringify(details), now],
      );
      if ((r.rowCount ?? 0) === 0) return false;
      await q.query('update assets set parent_asset_id = $3, updated_at = $4 where org_id = $1 and parent_asset_id = $2', [orgId, assetId, newId, now]);
      await q.query('update source_priorities set asset_id = $3 where org_id = $1 and asset_id = $2', [orgId, assetId, newId]);
      return true;
    },

    /** Which of these ids are registered in the organisation. */
    async existingIds(q: Queryable, orgId: string, assetIds: string[]): Promise<Set<string>> {
      const r = await q.query<{ asset_id: string }>('select asset_id from assets where org_id = $1 and asset_id = any($2::text[])', [
        orgId,
        assetIds,
      ]);
      return new Set(r.rows.map((x) => x.asset_id));
    },

    async siteExists(q: Queryable, orgId: string, siteId: string): Promise<boolean> {
      const r = await q.query<{ n: number }>(
        `select (select count(*) from assets where org_id = $1 and site_id = $2)::int
              + (select count(*) from telemetry_latest l where l.org_id = $1 and l.raw->>'site_ref' = $2
                   and not exists (select 1 from assets a where a.org_id = l.org_id and a.asset_id = l.asset_id))::int as n`,
        [orgId, siteId],
      );
      return (r.rows[0]?.n ?? 0) > 0;
    },
  };
}

export type RegistryStore = ReturnType<typeof createRegistryStore>;
