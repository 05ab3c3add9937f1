// SQL of the asset registry: the `assets` table (twin v1 and registry v2). The newest stored record
// of each asset comes from the telemetry module (TELEMETRY_READS), asked for the asset ids of the
// answer (one more query, never one a row). Every function takes the organisation first.
import { sqlExportable, type ExportableCollection } from '../../platform/exportable.ts';
import type { Queryable } from '../../infra/db/index.ts';
import type { LatestReading, TelemetryReads } from '../telemetry/index.ts';
import { sourceOfRaw } from './vocabulary.ts';

export interface AssetRow extends Omit<NewAsset, 'origin'> {
  org_id: string;
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

const NO_RECORD = {
  last_ts: null,
  last_received_at: null,
  last_source: null,
  power_kw: null,
  soc_pct: null,
  voltage: null,
  current: null,
  temp_c: null,
  last_status: null,
  raw: null,
} as const;

/** An asset with its newest stored record (or none). */
function withLatest(a: AssetRow, l: LatestReading | undefined): AssetWithLatest {
  if (!l) return { ...a, ...NO_RECORD };
  return {
    ...a,
    last_ts: l.ts,
    last_received_at: l.received_at,
    last_source: sourceOfRaw(l.raw),
    power_kw: l.power_kw,
    soc_pct: l.soc_pct,
    voltage: l.voltage,
    current: l.current,
    temp_c: l.temp_c,
    last_status: l.status,
    raw: l.raw,
  };
}

const UPDATABLE = ['name', 'type', 'details', 'asset_class', 'parent_asset_id', 'site_id'];

export interface AssetFilter {
  siteId?: string;
  siteIds?: readonly string[];
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

/** A device with a stored record and no registry entry (its newest record). */
export interface UnregisteredDevice {
  asset_id: string;
  site_ref: string | null;
  ts: Date;
  received_at: Date;
  raw: Record<string, unknown>;
}

export function createRegistryStore(telemetry: Pick<TelemetryReads, 'latest' | 'countBySiteRef'>) {
  /** The assets with their newest records, in the order given. */
  async function attachLatest(q: Queryable, orgId: string, rows: AssetRow[]): Promise<AssetWithLatest[]> {
    if (rows.length === 0) return [];
    const latest = new Map((await telemetry.latest(q, orgId, { assetIds: rows.map((a) => a.asset_id) })).map((l) => [l.asset_id, l]));
    return rows.map((a) => withLatest(a, latest.get(a.asset_id)));
  }

  /** Newest records (by asset id) of devices that have no registry entry. */
  async function unregistered(q: Queryable, orgId: string, latest: LatestReading[]): Promise<LatestReading[]> {
    if (latest.length === 0) return [];
    const registered = await ids(
      q,
      orgId,
      latest.map((l) => l.asset_id),
    );
    return latest.filter((l) => !registered.has(l.asset_id));
  }

  async function ids(q: Queryable, orgId: string, assetIds: string[]): Promise<Set<string>> {
    const r = await q.query<{ asset_id: string }>('select asset_id from assets where org_id = $1 and asset_id = any($2::text[])', [orgId, assetIds]);
    return new Set(r.rows.map((x) => x.asset_id));
  }

  async function allIds(q: Queryable, orgId: string): Promise<string[]> {
    return (await q.query<{ asset_id: string }>('select asset_id from assets where org_id = $1', [orgId])).rows.map((x) => x.asset_id);
  }

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
      const r = await q.query<AssetRow>(`select ${COLS} from assets a where a.org_id = $1 and a.asset_id = $2${opts.forUpdate ? ' for update' : ''}`, [
        orgId,
        assetId,
      ]);
      return r.rows[0] ?? null;
    },

    async getWithLatest(q: Queryable, orgId: string, assetId: string): Promise<AssetWithLatest | null> {
      const a = await this.get(q, orgId, assetId);
      return a ? (await attachLatest(q, orgId, [a]))[0] : null;
    },

    /** Every asset of the organisation, oldest first (v1 listing). */
    async listAll(q: Queryable, orgId: string): Promise<AssetRow[]> {
      const r = await q.query<AssetRow>(`select ${COLS} from assets a where a.org_id = $1 order by a.created_at, a.asset_id`, [orgId]);
      return r.rows;
    },

    async list(q: Queryable, orgId: string, f: AssetFilter = {}): Promise<AssetWithLatest[]> {
      return attachLatest(q, orgId, await this.rows(q, orgId, f));
    },

    /** Registered assets matching the filter (no readings), by site and asset id. */
    async rows(q: Queryable, orgId: string, f: AssetFilter = {}): Promise<AssetRow[]> {
      const where = ['a.org_id = $1'];
      const params: unknown[] = [orgId];
      const add = (sql: string, v: unknown) => {
        params.push(v);
        where.push(sql.replace('?', `$${params.length}`));
      };
      if (f.siteId !== undefined) add('a.site_id = ?', f.siteId);
      if (f.siteIds) add('a.site_id = any(?::text[])', f.siteIds);
      if (f.classes) add('a.asset_class = any(?::text[])', f.classes);
      if (f.type !== undefined) add('a.type = ?', f.type);
      if (f.parentAssetId !== undefined) add('a.parent_asset_id = ?', f.parentAssetId);
      if (f.assetIds) add('a.asset_id = any(?::text[])', f.assetIds);
      const r = await q.query<AssetRow>(`select ${COLS} from assets a where ${where.join(' and ')} order by a.site_id, a.asset_id`, params);
      return r.rows;
    },

    /** Registered assets (no readings): of these ids when given, by asset id. */
    async records(q: Queryable, orgId: string, f: { assetIds?: readonly string[] } = {}): Promise<AssetRow[]> {
      if (f.assetIds && f.assetIds.length === 0) return [];
      const r = await q.query<AssetRow>(
        `select ${COLS} from assets a where a.org_id = $1 and ($2::text[] is null or a.asset_id = any($2::text[])) order by a.asset_id`,
        [orgId, f.assetIds ?? null],
      );
      return r.rows;
    },

    /**
     * A page of registered assets, newest registration first (ties by asset id, descending), after
     * the keyset position `before` (created_at to the microsecond, asset id). created_key is
     * created_at to the microsecond, for the next position.
     */
    async page(q: Queryable, orgId: string, before: { t: string; id: string } | null, limit: number): Promise<(AssetRow & { created_key: string })[]> {
      const r = await q.query<AssetRow & { created_key: string }>(
        `select ${COLS}, to_char(a.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key
         from assets a
         where a.org_id = $1 and ($2::timestamptz is null or (a.created_at, a.asset_id) < ($2::timestamptz, $3::text))
         order by a.created_at desc, a.asset_id desc
         limit $4`,
        [orgId, before?.t ?? null, before?.id ?? '', limit],
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
      const r = await q.query<{ asset_id: string }>('select asset_id from assets where org_id = $1 and parent_asset_id = $2 order by asset_id', [
        orgId,
        assetId,
      ]);
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
      const r = await q.query<AssetRow>(`update assets a set ${sets.join(', ')} where a.org_id = $1 and a.asset_id = $2 returning ${COLS}`, params);
      return r.rows[0] ?? null;
    },

    /** Moves assets to another site (a subtree move). */
    async moveSite(q: Queryable, orgId: string, assetIds: string[], siteId: string, now: Date): Promise<void> {
      await q.query('update assets set site_id = $3, updated_at = $4 where org_id = $1 and asset_id = any($2::text[])', [orgId, assetIds, siteId, now]);
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
      const counts = await telemetry.countBySiteRef(
        q,
        orgId,
        assets.map((a) => a.asset_id),
      );
      const un = { rows: counts.filter((c) => c.site_ref !== '').map((c) => ({ site_id: c.site_ref, n: c.n })) };
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

    /** Devices with a stored record and no registry entry (newest record each), by asset id. */
    async unregisteredDevices(q: Queryable, orgId: string, f: { siteRef?: string; assetIds?: string[] }): Promise<UnregisteredDevice[]> {
      const latest = await unregistered(q, orgId, await telemetry.latest(q, orgId, f));
      return latest.map((l) => ({
        asset_id: l.asset_id,
        site_ref: l.site_ref,
        ts: l.ts,
        received_at: l.received_at,
        raw: l.raw,
      }));
    },

    /** Devices with a stored record, no registry entry and no `site_ref`: not tied to any site. */
    async countUnplaced(q: Queryable, orgId: string): Promise<number> {
      const counts = await telemetry.countBySiteRef(q, orgId, await allIds(q, orgId));
      return counts.find((c) => c.site_ref === '')?.n ?? 0;
    },

    /**
     * Gives an asset a new id (an onboarding placeholder taking the id of the device that reports
     * for it): its children and source priorities follow. False when the old id is absent.
     */
    async rename(q: Queryable, orgId: string, assetId: string, newId: string, details: Record<string, unknown>, now: Date): Promise<boolean> {
      const r = await q.query(`update assets set asset_id = $3, details = details || $4::jsonb, updated_at = $5 where org_id = $1 and asset_id = $2`, [
        orgId,
        assetId,
        newId,
        JSON.stringify(details),
        now,
      ]);
      if ((r.rowCount ?? 0) === 0) return false;
      await q.query('update assets set parent_asset_id = $3, updated_at = $4 where org_id = $1 and parent_asset_id = $2', [orgId, assetId, newId, now]);
      await q.query('update source_priorities set asset_id = $3 where org_id = $1 and asset_id = $2', [orgId, assetId, newId]);
      return true;
    },

    /** Which of these ids are registered in the organisation. */
    async existingIds(q: Queryable, orgId: string, assetIds: string[]): Promise<Set<string>> {
      return ids(q, orgId, assetIds);
    },

    /** A site exists while an asset is registered there or an unregistered device names it (site_ref). */
    async siteExists(q: Queryable, orgId: string, siteId: string): Promise<boolean> {
      const r = await q.query('select 1 from assets where org_id = $1 and site_id = $2 limit 1', [orgId, siteId]);
      if (r.rows.length > 0) return true;
      return (await unregistered(q, orgId, await telemetry.latest(q, orgId, { siteRef: siteId }))).length > 0;
    },
  };
}

export type RegistryStore = ReturnType<typeof createRegistryStore>;

export interface PriorityRow {
  asset_id: string;
  measurement: string;
  sources: string[];
  updated_at: Date;
}

export interface RunRow {
  run_id: string;
  site_id: string;
  outcome: string;
  parameters: Record<string, unknown>;
  summary: Record<string, number>;
  checks: unknown[];
  created_by: string | null;
  created_at: Date;
}

/** Source priorities of registered assets (the registry deletes and renames them with the asset). */
export const priorityStore = {
  /** Configured priorities of registered assets, by asset and measurement. */
  async list(q: Queryable, orgId: string, assetId?: string): Promise<PriorityRow[]> {
    const r = await q.query<PriorityRow>(
      `select p.asset_id, p.measurement, p.sources, p.updated_at
       from source_priorities p
       join assets a on a.org_id = p.org_id and a.asset_id = p.asset_id
       where p.org_id = $1 and ($2::text is null or p.asset_id = $2)
       order by p.asset_id, p.measurement`,
      [orgId, assetId ?? null],
    );
    return r.rows;
  },

  /** Replaces an asset's priorities (call inside the write's transaction). */
  async replace(q: Queryable, orgId: string, assetId: string, entries: { measurement: string; sources: string[] }[], now: Date): Promise<void> {
    await q.query('delete from source_priorities where org_id = $1 and asset_id = $2', [orgId, assetId]);
    for (const e of entries) {
      await q.query('insert into source_priorities (org_id, asset_id, measurement, sources, updated_at) values ($1, $2, $3, $4, $5)', [
        orgId,
        assetId,
        e.measurement,
        e.sources,
        now,
      ]);
    }
  },
};

/** Commissioning runs of a site. */
export const commissioningStore = {
  async insert(q: Queryable, orgId: string, run: RunRow): Promise<void> {
    await q.query(
      `insert into commissioning_runs (org_id, run_id, site_id, outcome, parameters, summary, checks, created_by, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        orgId,
        run.run_id,
        run.site_id,
        run.outcome,
        JSON.stringify(run.parameters),
        JSON.stringify(run.summary),
        JSON.stringify(run.checks),
        run.created_by,
        run.created_at,
      ],
    );
  },

  async latest(q: Queryable, orgId: string, siteId: string): Promise<RunRow | null> {
    const r = await q.query<RunRow>(
      `select run_id, site_id, outcome, parameters, summary, checks, created_by, created_at
       from commissioning_runs where org_id = $1 and site_id = $2
       order by created_at desc, seq desc limit 1`,
      [orgId, siteId],
    );
    return r.rows[0] ?? null;
  },
};

// ---- Export (the module declares them in its manifest: ModuleDefinition.exportable) ----------
/** Assets and the sites they make up, for the organisation's export (decision 0206): rows as JSON text from the database. */
export const registryExportables: ExportableCollection[] = [
  sqlExportable({
    name: 'registry.sites',
    description: "The organisation's sites as the registry knows them (from its assets): asset count, when the first asset was recorded and the last change.",
    table: 'registry_sites',
    from: `(select org_id, site_id, count(*)::int as asset_count, min(created_at) as first_recorded_at, max(updated_at) as updated_at
            from assets group by org_id, site_id) as registry_sites`,
    columns: ['site_id', 'asset_count', 'first_recorded_at:iso', 'updated_at:iso'],
    period: 'first_recorded_at',
    key: ['site_id:text'],
  }),
  sqlExportable({
    name: 'registry.assets',
    description: 'Every asset record: site, type, class, name, details, parent in the single-line tree, origin, when made and last changed.',
    table: 'assets',
    columns: ['asset_id', 'site_id', 'type', 'name', 'details', 'asset_class', 'parent_asset_id', 'origin', 'created_at:iso', 'updated_at:iso'],
    period: 'created_at',
    key: ['asset_id:text'],
  }),
];
