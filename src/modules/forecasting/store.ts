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
