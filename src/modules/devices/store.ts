// SQL of the device listings, source priority, data integrity and commissioning runs. Reads the
// registry (`assets`) and the stored telemetry; every function takes the organisation first.
import type { Queryable } from '../../infra/db/index.ts';
import { reportedSourceSql } from '../registry/index.ts';
import { trustedTsSql } from '../telemetry/index.ts';

export interface PriorityRow {
  asset_id: string;
  measurement: string;
  sources: string[];
  updated_at: Date;
}

export interface SourceValueRow {
  asset_id: string;
  source: string;
  measurement: string;
  num: number | null;
  txt: string | null;
  ts: Date;
}

export interface IntegrityRow {
  asset_id: string;
  records: number;
  duplicate_timestamps: number;
  future_timestamps: number;
  late_records: number;
  gaps: number;
  longest_gap_seconds: number;
  first_ts: Date | null;
  last_ts: Date | null;
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

/** SQL: a jsonb number of raw under the first of these keys that holds one. */
function rawNumber(alias: string, keys: string[]): string {
  const parts = keys.map((k) => `case when jsonb_typeof(${alias}.raw->'${k}') = 'number' then (${alias}.raw->>'${k}')::float8 end`);
  return `coalesce(${parts.join(', ')})`;
}

export function createDevicesStore() {
  return {
    /** Newest record within the window that carries a position (raw lat/latitude and lon/lng/longitude). */
    async latestPositions(q: Queryable, orgId: string, assetIds: string[], since: Date) {
      const lat = rawNumber('t', ['lat', 'latitude']);
      const lon = rawNumber('t', ['lon', 'lng', 'longitude']);
      const r = await q.query<{ asset_id: string; ts: Date; lat: number; lon: number }>(
        `select a.asset_id, p.ts, p.lat, p.lon
         from unnest($2::text[]) as a(asset_id)
         cross join lateral (
           select t.ts, ${lat} as lat, ${lon} as lon
           from telemetry t
           where t.org_id = $1 and t.asset_id = a.asset_id and t.ts >= $3 and ${trustedTsSql('t')}
             and ${lat} between -90 and 90 and ${lon} between -180 and 180
           order by t.ts desc, t.id desc limit 1
         ) p`,
        [orgId, assetIds, since],
      );
      return r.rows;
    },

    /** Newest record within the window that states the ignition (raw ignition or ignition_on). */
    async latestIgnition(q: Queryable, orgId: string, assetIds: string[], since: Date) {
      const r = await q.query<{ asset_id: string; ts: Date; value: string }>(
        `select a.asset_id, p.ts, p.value
         from unnest($2::text[]) as a(asset_id)
         cross join lateral (
           select t.ts, lower(coalesce(t.raw->>'ignition', t.raw->>'ignition_on')) as value
           from telemetry t
           where t.org_id = $1 and t.asset_id = a.asset_id and t.ts >= $3 and ${trustedTsSql('t')}
             and lower(coalesce(t.raw->>'ignition', t.raw->>'ignition_on')) in ('true', 'false', 'on', 'off')
           order by t.ts desc, t.id desc limit 1
         ) p`,
        [orgId, assetIds, since],
      );
      return r.rows;
    },

    // ---- Source priority ------------------------------------------------------------------

    /** Configured priorities of registered assets (deleting an asset deletes its rows too). */
    async priorities(q: Queryable, orgId: string, assetId?: string): Promise<PriorityRow[]> {
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

    async replacePriorities(q: Queryable, orgId: string, assetId: string, entries: { measurement: string; sources: string[] }[], now: Date) {
      await q.query('delete from source_priorities where org_id = $1 and asset_id = $2', [orgId, assetId]);
      for (const e of entries) {
        await q.query(
          'insert into source_priorities (org_id, asset_id, measurement, sources, updated_at) values ($1, $2, $3, $4, $5)',
          [orgId, assetId, e.measurement, e.sources, now],
        );
      }
    },

    /** Per asset, source and measurement: the newest non-null value since `since`. */
    async latestBySource(q: Queryable, orgId: string, assetIds: string[], since: Date): Promise<SourceValueRow[]> {
      const r = await q.query<SourceValueRow>(
        `select distinct on (t.asset_id, source, m.measurement)
           t.asset_id, ${reportedSourceSql('t')} as source, m.measurement, m.num, m.txt, t.ts
         from telemetry t
         cross join lateral (values
           ('power_kw', t.power_kw, null::text), ('soc_pct', t.soc_pct, null), ('voltage', t.voltage, null),
           ('current', t."current", null), ('temp_c', t.temp_c, null), ('status', null::float8, t.status)
         ) as m(measurement, num, txt)
         where t.org_id = $1 and t.asset_id = any($2::text[]) and t.ts >= $3 and ${trustedTsSql('t')}
           and (m.num is not null or (m.txt is not null and m.txt <> 'unknown'))
         order by t.asset_id, source, m.measurement, t.ts desc, t.id desc`,
        [orgId, assetIds, since],
      );
      return r.rows;
    },

    // ---- Data integrity ---------------------------------------------------------------------

    async integrity(q: Queryable, orgId: string, assetIds: string[], since: Date, gapSeconds: number): Promise<IntegrityRow[]> {
      const r = await q.query<IntegrityRow>(
        `with t as (
           select asset_id, ts, received_at,
             extract(epoch from ts - lag(ts) over (partition by asset_id order by ts, id))::float8 as step
           from telemetry where org_id = $1 and asset_id = any($2::text[]) and ts >= $3
         )
         select asset_id,
           count(*)::int as records,
           count(*) filter (where step = 0)::int as duplicate_timestamps,
           count(*) filter (where ts > received_at + interval '5 minutes')::int as future_timestamps,
           count(*) filter (where received_at > ts + interval '1 hour')::int as late_records,
           count(*) filter (where step > $4)::int as gaps,
           coalesce(max(step) filter (where step > $4), 0)::float8 as longest_gap_seconds,
           min(ts) as first_ts, max(ts) as last_ts
         from t group by asset_id`,
        [orgId, assetIds, since, gapSeconds],
      );
      return r.rows;
    },

    async anomalyCounts(q: Queryable, orgId: string, assetIds: string[], since: Date) {
      const r = await q.query<{ asset_id: string; reason: string; n: number }>(
        `select t.asset_id, a.reason, count(*)::int as n
         from telemetry t cross join lateral unnest(t.anomalies) as a(reason)
         where t.org_id = $1 and t.asset_id = any($2::text[]) and t.ts >= $3
         group by 1, 2 order by 1, 2`,
        [orgId, assetIds, since],
      );
      return r.rows;
    },

    // ---- Commissioning ------------------------------------------------------------------------

    async insertRun(q: Queryable, orgId: string, run: RunRow): Promise<void> {
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

    async latestRun(q: Queryable, orgId: string, siteId: string): Promise<RunRow | null> {
      const r = await q.query<RunRow>(
        `select run_id, site_id, outcome, parameters, summary, checks, created_by, created_at
         from commissioning_runs where org_id = $1 and site_id = $2
         order by created_at desc, seq desc limit 1`,
        [orgId, siteId],
      );
      return r.rows[0] ?? null;
    },

    async runCount(q: Queryable, orgId: string, siteId: string): Promise<number> {
      const r = await q.query<{ n: number }>('select count(*)::int as n from commissioning_runs where org_id = $1 and site_id = $2', [
        orgId,
        siteId,
      ]);
      return r.rows[0]?.n ?? 0;
    },
  };
}

export type DevicesStore = ReturnType<typeof createDevicesStore>;
