// SQL of the optimisation module: runs, warranty limits and import-limit configuration.
import type { Queryable } from '../../infra/db/index.ts';

const TS = (c: string) => `to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export type RunKind = 'tariff_schedule' | 'import_limit' | 'awareness';
export interface RunRow {
  run_id: string;
  site_id: string;
  kind: RunKind;
  created_at: string;
  created_by: string | null;
  dispatched: boolean;
  summary: Record<string, unknown>;
  result?: Record<string, unknown>;
}
export interface WarrantyRow {
  device_id: string;
  max_cycles_per_day: number | null;
  max_throughput_kwh_per_day: number | null;
  warranty_end: string | null;
  updated_at: string;
  updated_by: string | null;
}
export interface ImportLimitRow {
  site_id: string;
  import_limit_kw: number;
  assets: unknown[];
  updated_at: string;
  updated_by: string | null;
}

const RUN_COLS = `run_id, site_id, kind, ${TS('created_at')} as created_at, created_by, dispatched, summary`;

export const optStore = {
  async insertRun(q: Queryable, orgId: string, r: RunRow & { result: unknown }, at: Date) {
    await q.query(
      `insert into optimisation_runs (org_id, run_id, site_id, kind, created_at, created_by, dispatched, summary, result) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [orgId, r.run_id, r.site_id, r.kind, at, r.created_by, r.dispatched, JSON.stringify(r.summary), JSON.stringify(r.result)],
    );
  },
  /** Newest first, keyset on (created_at, run_id). */
  async runs(q: Queryable, orgId: string, kind: RunKind, siteId: string | null, before: { t: string; id: string } | null, limit: number): Promise<RunRow[]> {
    const r = await q.query<RunRow>(
      `select ${RUN_COLS} from optimisation_runs where org_id = $1 and kind = $2 and ($3::text is null or site_id = $3)
         and ($4::timestamptz is null or (created_at, run_id) < ($4::timestamptz, $5::text))
       order by created_at desc, run_id desc limit $6`,
      [orgId, kind, siteId, before?.t ?? null, before?.id ?? null, limit],
    );
    return r.rows;
  },
  async run(q: Queryable, orgId: string, kind: RunKind, runId: string): Promise<RunRow | null> {
    const r = await q.query<RunRow>(`select ${RUN_COLS}, result from optimisation_runs where org_id = $1 and kind = $2 and run_id = $3`, [orgId, kind, runId]);
    return r.rows[0] ?? null;
  },
  async latestRun(q: Queryable, orgId: string, kind: RunKind): Promise<RunRow | null> {
    const r = await q.query<RunRow>(
      `select ${RUN_COLS}, result from optimisation_runs where org_id = $1 and kind = $2 order by created_at desc, run_id desc limit 1`,
      [orgId, kind],
    );
    return r.rows[0] ?? null;
  },
  async warranties(q: Queryable, orgId: string, siteId: string): Promise<WarrantyRow[]> {
    const r = await q.query<WarrantyRow>(
      `select device_id, max_cycles_per_day, max_throughput_kwh_per_day, to_char(warranty_end, 'YYYY-MM-DD') as warranty_end, ${TS('updated_at')} as updated_at, updated_by
         from optimisation_warranty where org_id = $1 and site_id = $2 order by device_id`,
      [orgId, siteId],
    );
    return r.rows;
  },
  async putWarranty(q: Queryable, orgId: string, siteId: string, w: Omit<WarrantyRow, 'updated_at'>, at: Date) {
    await q.query(
      `insert into optimisation_warranty (org_id, site_id, device_id, max_cycles_per_day, max_throughput_kwh_per_day, warranty_end, updated_at, updated_by)
       values ($1, $2, $3, $4, $5, $6, $7, $8)
       on conflict (org_id, site_id, device_id) do update set max_cycles_per_day = excluded.max_cycles_per_day,
         max_throughput_kwh_per_day = excluded.max_throughput_kwh_per_day, warranty_end = excluded.warranty_end,
         updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
      [orgId, siteId, w.device_id, w.max_cycles_per_day, w.max_throughput_kwh_per_day, w.warranty_end, at, w.updated_by],
    );
  },
  async importLimit(q: Queryable, orgId: string, siteId: string): Promise<ImportLimitRow | null> {
    const r = await q.query<ImportLimitRow>(
      `select site_id, import_limit_kw, assets, ${TS('updated_at')} as updated_at, updated_by from optimisation_import_limit where org_id = $1 and site_id = $2`,
      [orgId, siteId],
    );
    return r.rows[0] ?? null;
  },
  async putImportLimit(q: Queryable, orgId: string, siteId: string, limitKw: number, assets: unknown[], by: string | null, at: Date) {
    await q.query(
      `insert into optimisation_import_limit (org_id, site_id, import_limit_kw, assets, updated_at, updated_by) values ($1, $2, $3, $4, $5, $6)
       on conflict (org_id, site_id) do update set import_limit_kw = excluded.import_limit_kw, assets = excluded.assets, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
      [orgId, siteId, limitKw, JSON.stringify(assets), at, by],
    );
  },
};
