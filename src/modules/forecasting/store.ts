// SQL of the forecasting module: the per-site configuration.
import type { Queryable } from '../../infra/db/index.ts';

export interface ConfigRow {
  site_id: string;
  method: 'persistence' | 'seasonal' | 'blend';
  horizon_hours: number;
  seasonal_weight: number;
  updated_at: string;
  updated_by: string | null;
}

const COLS = `site_id, method, horizon_hours, seasonal_weight, to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at, updated_by`;

export const forecastStore = {
  async get(q: Queryable, orgId: string, siteId: string): Promise<ConfigRow | null> {
    const r = await q.query<ConfigRow>(`select ${COLS} from forecast_site_config where org_id = $1 and site_id = $2`, [orgId, siteId]);
    return r.rows[0] ?? null;
  },
  async list(q: Queryable, orgId: string): Promise<ConfigRow[]> {
    const r = await q.query<ConfigRow>(`select ${COLS} from forecast_site_config where org_id = $1 order by site_id`, [orgId]);
    return r.rows;
  },
  async put(q: Queryable, orgId: string, c: Omit<ConfigRow, 'updated_at'>, at: Date): Promise<ConfigRow> {
    const r = await q.query<ConfigRow>(
      `insert into forecast_site_config (org_id, site_id, method, horizon_hours, seasonal_weight, updated_at, updated_by)
       values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (org_id, site_id) do update set method = excluded.method, horizon_hours = excluded.horizon_hours,
         seasonal_weight = excluded.seasonal_weight, updated_at = excluded.updated_at, updated_by = excluded.updated_by
       returning ${COLS}`,
      [orgId, c.site_id, c.method, c.horizon_hours, c.seasonal_weight, at, c.updated_by],
    );
    return r.rows[0]!;
  },
};

// ---- Backtest jobs (decision 0196) ----------------------------------------------------------------

export interface BacktestRow {
  backtest_id: string;
  site_id: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  from_date: string;
  to_date: string;
  methods: ('persistence' | 'seasonal' | 'blend')[];
  days_total: number;
  days_done: number;
  sums: unknown;
  result: unknown;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  error: string | null;
}

const ts = (c: string) => `to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as ${c}`;
const BT_COLS = `backtest_id, site_id, status, to_char(from_date, 'YYYY-MM-DD') as from_date, to_char(to_date, 'YYYY-MM-DD') as to_date, methods, days_total, days_done, sums, result, ${ts('created_at')}, ${ts('started_at')}, ${ts('completed_at')}, error`;

export const backtestStore = {
  async insert(
    q: Queryable,
    orgId: string,
    b: {
      backtest_id: string;
      site_id: string;
      from_date: string;
      to_date: string;
      methods: string[];
      days_total: number;
      sums: unknown;
      requested_by: string | null;
    },
    at: Date,
  ) {
    await q.query(
      `insert into forecast_backtests (org_id, backtest_id, site_id, status, from_date, to_date, methods, days_total, sums, requested_by, created_at)
       values ($1, $2, $3, 'queued', $4, $5, $6::jsonb, $7, $8::jsonb, $9, $10)`,
      [orgId, b.backtest_id, b.site_id, b.from_date, b.to_date, JSON.stringify(b.methods), b.days_total, JSON.stringify(b.sums), b.requested_by, at],
    );
  },
  async get(q: Queryable, orgId: string, id: string, forUpdate = false): Promise<BacktestRow | null> {
    const r = await q.query<BacktestRow>(`select ${BT_COLS} from forecast_backtests where org_id = $1 and backtest_id = $2${forUpdate ? ' for update' : ''}`, [
      orgId,
      id,
    ]);
    return r.rows[0] ?? null;
  },
  async advance(q: Queryable, orgId: string, id: string, daysDone: number, sums: unknown, at: Date) {
    await q.query(
      `update forecast_backtests set status = 'running', days_done = $3, sums = $4::jsonb, started_at = coalesce(started_at, $5) where org_id = $1 and backtest_id = $2`,
      [orgId, id, daysDone, JSON.stringify(sums), at],
    );
  },
  async finish(q: Queryable, orgId: string, id: string, status: 'completed' | 'failed', result: unknown, error: string | null, at: Date) {
    await q.query(
      `update forecast_backtests set status = $3, result = $4::jsonb, error = $5, completed_at = $6, started_at = coalesce(started_at, $6) where org_id = $1 and backtest_id = $2`,
      [orgId, id, status, result === null ? null : JSON.stringify(result), error, at],
    );
  },
};
