// Partner API reads. Every function takes the organisation first and filters on it. `assets` is
// the registry's table (org_id, asset_id, site_id, type, name, created_at); telemetry and
// telemetry_latest are ingestion's.
import type { Queryable } from '../../../infra/db/index.ts';
import { reportedSourceSql } from '../../registry/index.ts';
import { trustedTsSql } from '../../telemetry/index.ts';
import { tsKey } from '../common.ts';

export interface DeviceRow {
  asset_id: string;
  site_id: string;
  type: string;
  name: string;
  created_at: Date;
  created_key: string;
  last_ts: Date | null;
  last_source: string | null;
  status: string | null;
  power_kw: number | null;
}

export interface ReadingRow {
  id: number;
  asset_id: string;
  ts: Date;
  ts_key: string;
  power_kw: number | null;
  soc_pct: number | null;
  voltage: number | null;
  current: number | null;
  temp_c: number | null;
  status: string;
  site_id: string | null;
  asset_type: string | null;
}

export const partnerStore = {
  async orgName(q: Queryable, orgId: string): Promise<string | null> {
    return (await q.query<{ name: string }>('select name from organisations where id = $1', [orgId])).rows[0]?.name ?? null;
  },

  /** Registered assets with their newest record, newest registration first (ties by asset id). */
  async devices(q: Queryable, orgId: string, before: { t: string; id: string } | null, limit: number): Promise<DeviceRow[]> {
    const r = await q.query<DeviceRow>(
      `select a.asset_id, a.site_id, a.type, a.name, a.created_at, ${tsKey('a.created_at')} as created_key,
              l.ts as last_ts, case when l.ts is null then null else ${reportedSourceSql('l')} end as last_source,
              l.status, l.power_kw
       from assets a
       left join telemetry_latest l on l.org_id = a.org_id and l.asset_id = a.asset_id
       where a.org_id = $1
         and ($2::timestamptz is null or (a.created_at, a.asset_id) < ($2::timestamptz, $3::text))
       order by a.created_at desc, a.asset_id desc
       limit $4`,
      [orgId, before?.t ?? null, before?.id ?? '', limit],
    );
    return r.rows;
  },

  /** Stored readings with ts in [from, until], newest first (ties by row id), after the keyset position. */
  async readings(
    q: Queryable,
    orgId: string,
    window: { from: Date; until: Date | null },
    before: { t: string; id: number } | null,
    limit: number,
  ): Promise<ReadingRow[]> {
    const r = await q.query<ReadingRow>(
      `select t.id, t.asset_id, t.ts, ${tsKey('t.ts')} as ts_key, t.power_kw, t.soc_pct, t.voltage, t."current" as current,
              t.temp_c, t.status, a.site_id, a.type as asset_type
       from telemetry t
       left join assets a on a.org_id = t.org_id and a.asset_id = t.asset_id
       where t.org_id = $1 and t.ts >= $2 and ${trustedTsSql('t')}
         and ($3::timestamptz is null or t.ts <= $3)
         and ($4::timestamptz is null or (t.ts, t.id) < ($4::timestamptz, $5::bigint))
       order by t.ts desc, t.id desc
       limit $6`,
      [orgId, window.from, window.until, before?.t ?? null, before?.id ?? 0, limit],
    );
    return r.rows;
  },
};
