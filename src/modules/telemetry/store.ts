// Telemetry SQL. Every organisation-scoped function takes orgId first and filters on it; partition
// maintenance and rollup sealing act on the table as a whole (they are not organisation data).
import { type Db, prepared, type Queryable } from '../../infra/db/index.ts';
import { isPlatformFailure } from '../../platform/job-units.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import {
  COUNTER_BOUND_KWH,
  ENERGY_RATE_BOUND_KW,
  MAGNITUDE_FLOOR,
  MEASUREMENT_BOUNDS,
  RAW_KEY_BOUNDS,
  type CanonicalRow,
  type ReadingValues,
} from './normalise.ts';
import { recordsJson, type LiveRecord } from './live-records.ts';
import { ALL_METRICS, BUCKET_ORIGIN, COUNTER_GAP_SECONDS, COUNTER_METRICS, isCounter, type MetricDef, type RangeDef, type Source } from './metrics.ts';

/** ISO 8601 UTC with Z, fractional seconds kept (trailing zeros dropped). */
const iso = (col: string) => `rtrim(rtrim(to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), '0'), '.') || 'Z'`;

function sourceSql(s: Source): string {
  if ('column' in s) {
    // greatest() ignores NULL, so a missing value must stay NULL explicitly (the next source is tried).
    if (s.sign === 'positive') return `case when ${s.column} is not null then greatest(${s.column}, 0) end`;
    if (s.sign === 'negative') return `case when ${s.column} is not null then greatest(-${s.column}, 0) end`;
    return s.column;
  }
  // Keys come from the static metric table, never from the request. A number beyond the key's bound
  // (stored before decision 0280) is left out as if absent: its sums in the rollups would overflow.
  const key = s.raw.replace(/'/g, "''");
  const value = `(raw->>'${key}')::float8`;
  return `case when jsonb_typeof(raw->'${key}') = 'number' then case when ${rawInBound(s.raw)} then ${s.raw.endsWith('_w') ? `${value} / 1000.0` : value} end end`;
}

/** SQL: the raw key's number is within its bound (decision 0280); only where it holds a number. */
function rawInBound(rawKey: string): string {
  const value = `(raw->>'${rawKey.replace(/'/g, "''")}')::float8`;
  const bound = RAW_KEY_BOUNDS.get(rawKey)!.bound;
  return `abs(${value}) <= ${bound} and (${value} = 0 or abs(${value}) >= ${MAGNITUDE_FLOOR})`;
}

/**
 * A register metric's reading of a row as an exact decimal (jsonb keeps a JSON number as numeric,
 * so 111.65 - 110.5 is 1.15, not 1.1500000000000057): the first source holding an in-bound number.
 */
export function counterValueSql(def: MetricDef): string {
  const parts = def.sources.map((s) => {
    if (!('raw' in s)) throw new Error(`telemetry: register metric ${def.metric} reads a column`);
    const key = s.raw.replace(/'/g, "''");
    return `case when jsonb_typeof(raw->'${key}') = 'number' then case when ${rawInBound(s.raw)} then (raw->>'${key}')::numeric end end`;
  });
  return parts.length === 1 ? parts[0] : `coalesce(${parts.join(', ')})`;
}

/**
 * SQL: the energy (kWh, numeric) between consecutive register readings (t0, v0) and (t1, v1), as
 * the energy model counts it (decision 0323): the advance; a lower reading is a reset and counts
 * from zero (never below); NULL (not counted) for the first reading (t0 null), readings at one
 * instant, readings further apart than the counter gap, and an advance faster than the power bound.
 */
function registerLinkSql(t0: string, v0: string, t1: string, v1: string): string {
  const adv = `(case when ${v1} >= ${v0} then ${v1} - ${v0} else greatest(${v1}, 0) end)`;
  return `(case when ${t0} is not null and ${t1} > ${t0} and ${t1} - ${t0} <= '${COUNTER_GAP_SECONDS} seconds'::interval
     and ${adv} <= ${ENERGY_RATE_BOUND_KW}::numeric * extract(epoch from ${t1} - ${t0}) / 3600 then ${adv} end)`;
}

/**
 * SQL: per `keys`, each register metric's first and last reading and the energy between its
 * readings (the rollup's cf<i>_ts, cf<i>, cl<i>_ts, cl<i>, ca<i>), from `rows` (a subquery with
 * the key columns, ts, id and c<i>: each register metric's reading as numeric).
 */
function registerRollupSql(rows: string, keys: string[]): string {
  const k = keys.join(', ');
  const cols = (i: number) => [`cf${i}_ts`, `cf${i}`, `cl${i}_ts`, `cl${i}`, `ca${i}`];
  const each = COUNTER_METRICS.map(({ id: i }) => {
    // Every branch of the union lists every metric's columns in one order: its own, null for the others.
    const own = [
      'min(ts)',
      '(array_agg(c order by ts, id))[1]',
      'max(ts)',
      '(array_agg(c order by ts desc, id desc))[1]',
      `sum(${registerLinkSql('pt', 'pv', 'ts', 'c')})`,
    ];
    const values = COUNTER_METRICS.flatMap((d) =>
      cols(d.id).map((c, j) => `${d.id === i ? own[j] : `null::${c.endsWith('_ts') ? 'timestamptz' : 'numeric'}`} as ${c}`),
    );
    return `select ${k}, ${values.join(', ')}
            from (select ${k}, ts, id, c${i} as c, lag(ts) over w as pt, lag(c${i}) over w as pv
                  from (${rows}) r${i} where c${i} is not null
                  window w as (partition by ${k} order by ts, id)) l${i}
            group by ${k}`;
  });
  const all = COUNTER_METRICS.flatMap((d) => cols(d.id).map((c) => `max(${c}) as ${c}`));
  return `select ${k}, ${all.join(', ')} from (${each.join('\n union all \n')}) u group by ${k}`;
}

/**
 * SQL condition: the record's ts can be placed in time, i.e. the record was not flagged
 * ts_in_future when it arrived (decision 0048). Such records are stored and listed in live events,
 * but no read that places records by ts (newest reading, history, rollups, partner readings,
 * device listings) uses them. `alias` is the telemetry row's alias, if any.
 */
export function trustedTsSql(alias?: string): string {
  return `not ('ts_in_future' = any(${alias ? `${alias}.` : ''}anomalies))`;
}

export function metricValueSql(def: MetricDef): string {
  const parts = def.sources.map(sourceSql);
  return parts.length === 1 ? parts[0] : `coalesce(${parts.join(', ')})`;
}

// ---------------------------------------------------------------------------------------------
// Daily rollups (decision 0046): slot i of telemetry_rollup_daily holds metric id i.

/** Advisory lock between ingestion (shared) and sealing a day (exclusive). */
const ROLLUP_LOCK = `hashtext('telemetry_rollup_seal')`;
const DAY = `'1 day'::interval`;
const DAY_MS = 86_400_000;
/** Sealing steps are whole hours of one day... */
export const SEAL_STEP_MS = 3_600_000;
/** ...as many as hold about this many samples (1,000 assets of 5-minute data: 4 hours). */
export const SEAL_STEP_ROWS = 50_000;
const ORIGIN = `'${BUCKET_ORIGIN}'::timestamptz`;
const ROLLUP_COLUMNS = ALL_METRICS.map(({ id }) => `n${id}, s${id}, mn${id}, mx${id}`).join(', ');
/** Each metric's value of a row (columns power_kw, soc_pct, temp_c, raw in scope). */
const METRIC_VALUES = ALL_METRICS.map((d) => `${metricValueSql(d)} as m${d.id}`).join(',\n             ');
const ROLLUP_AGGREGATES = ALL_METRICS.map(({ id }) => `count(m${id})::int, sum(m${id}), min(m${id}), max(m${id})`).join(',\n         ');
const ROLLUP_NAMED = ALL_METRICS.map(({ id }) => `count(m${id})::int as n${id}, sum(m${id}) as s${id}, min(m${id}) as mn${id}, max(m${id}) as mx${id}`).join(
  ',\n         ',
);
// Register metrics (decision 0323): each slot also keeps the day's first and last reading and the
// energy between its readings. Sealing steps go forward through a day, so a step's part follows
// what the row holds: the parts join with the energy from the row's last reading to the step's first.
const REGISTER_COLUMNS = COUNTER_METRICS.map(({ id: i }) => `cf${i}_ts, cf${i}, cl${i}_ts, cl${i}, ca${i}`).join(', ');
/** Each register metric's reading of a row, numeric (columns raw in scope). */
const REGISTER_VALUES = COUNTER_METRICS.map((d) => `${counterValueSql(d)} as c${d.id}`).join(',\n             ');
const REGISTER_C = COUNTER_METRICS.map(({ id }) => `c${id}`).join(', ');
const REGISTER_MERGE = COUNTER_METRICS.map(
  ({ id: i }) =>
    `cf${i}_ts = coalesce(r.cf${i}_ts, excluded.cf${i}_ts), cf${i} = case when r.cf${i}_ts is null then excluded.cf${i} else r.cf${i} end, ` +
    `cl${i}_ts = coalesce(excluded.cl${i}_ts, r.cl${i}_ts), cl${i} = case when excluded.cl${i}_ts is null then r.cl${i} else excluded.cl${i} end, ` +
    `ca${i} = case when r.cf${i}_ts is null then excluded.ca${i} when excluded.cf${i}_ts is null then r.ca${i} ` +
    `else (select case when count(x) > 0 then sum(x) end from (values (r.ca${i}), (excluded.ca${i}), ` +
    `(${registerLinkSql(`r.cl${i}_ts`, `r.cl${i}`, `excluded.cf${i}_ts`, `excluded.cf${i}`)})) as p(x)) end`,
).join(',\n    ');
// A late record can fall anywhere in a sealed day, so the register parts of each (asset, day) it
// touches are made again from that day's samples below the horizon ($4), after the rollup upsert
// (whose row lock orders concurrent batches, so the last one sees every committed record).
const LATE_REGISTERS = prepared(`
update telemetry_rollup_daily r set ${COUNTER_METRICS.map(({ id: i }) => [`cf${i}_ts`, `cf${i}`, `cl${i}_ts`, `cl${i}`, `ca${i}`].map((c) => `${c} = k.${c}`).join(', ')).join(', ')}
from (${registerRollupSql(
  `select t.org_id, d.day, t.asset_id, t.ts, t.id, ${REGISTER_VALUES}
   from unnest($2::text[], $3::timestamptz[]) as d(asset_id, day)
   join telemetry t on t.org_id = $1 and t.asset_id = d.asset_id and t.ts >= d.day and t.ts < least(d.day + ${DAY}, $4::timestamptz)
                    and ${trustedTsSql('t')}`,
  ['org_id', 'asset_id', 'day'],
)}) k
where r.org_id = $1 and r.asset_id = k.asset_id and r.day = k.day`);
/** The raw keys of the register metrics: a late record holding one remakes its day's register parts. */
const REGISTER_KEYS = [...new Set(COUNTER_METRICS.flatMap((d) => d.sources.flatMap((s) => ('raw' in s ? [s.raw] : []))))];

const ROLLUP_MERGE = ALL_METRICS.map(
  ({ id: i }) =>
    `n${i} = r.n${i} + excluded.n${i}, s${i} = coalesce(r.s${i}, 0) + coalesce(excluded.s${i}, 0), ` +
    `mn${i} = least(r.mn${i}, excluded.mn${i}), mx${i} = greatest(r.mx${i}, excluded.mx${i})`,
).join(',\n    ');

// A batch is written in two statements (decisions 0251, 0254), both in the caller's transaction
// after the shared rollup lock: one that inserts the rows in array order (ids ascend with the index),
// puts the newest row of each asset into telemetry_latest and reads the rollup horizon (after the
// lock, so a seal that committed before it is seen), then, only when some rows are for days already
// sealed, one that adds those rows to their daily rollups.
// The rows travel as one JSON array of live records ($3, recordsJson: decision 0254), decoded by
// jsonb_to_recordset into the columns' types (numbers as JavaScript prints them, each kept exactly
// as a jsonb numeric and read into float8 through its text; ts as the rules' ISO text, anomalies as
// an array, raw as the record's jsonb value); the newest-reading candidates the same way ($4). The
// text is parsed once, into jsonb (decision 0370): json_to_recordset checked it as json, parsed it
// again to walk it and parsed each record's raw JSON a third time into its jsonb column.
const RECORD_COLUMNS = `asset_id text, ts timestamptz, power_kw float8, soc_pct float8, voltage float8, "current" float8, temp_c float8,
                      status text, run_id text, intent_id text, anomalies text[], raw jsonb`;
const RECORDS = (param: string) => `rows from (jsonb_to_recordset(${param}::jsonb) as (${RECORD_COLUMNS}))
     with ordinality as u(asset_id, ts, power_kw, soc_pct, voltage, "current", temp_c, status, run_id, intent_id, anomalies, raw, ord)`;

// The newest row of each asset into telemetry_latest (0048), from the candidates the service picked
// (per asset, the rows whose ts is within a millisecond of the batch's newest; never a record
// flagged ts_in_future), in batch order: the newest ts wins, a tie goes to the later row (the
// higher id, as before). The stored row is replaced by a record with an equal or newer ts, or,
// while the stored row's ts is still ahead of this batch's arrival (a clock running fast), by a
// record measured after the stored one arrived.
const WRITE_BATCH_CTES = `
with ins as (
  insert into telemetry (org_id, asset_id, ts, received_at, power_kw, soc_pct, voltage, "current", temp_c,
                         status, run_id, intent_id, anomalies, raw)
  select $1, u.asset_id, u.ts, $2, u.power_kw, u.soc_pct, u.voltage, u."current", u.temp_c, u.status, u.run_id, u.intent_id,
         coalesce(u.anomalies, '{}'), u.raw
  from ${RECORDS('$3')}
  order by u.ord
), up as (
  insert into telemetry_latest as l (org_id, asset_id, ts, received_at, power_kw, soc_pct, voltage, "current", temp_c, status, raw)
  select distinct on (u.asset_id) $1, u.asset_id, u.ts, $2, u.power_kw, u.soc_pct, u.voltage, u."current", u.temp_c, u.status, u.raw
  from ${RECORDS('$4')}
  order by u.asset_id, u.ts desc, u.ord desc
  on conflict (org_id, asset_id) do update set
    ts = excluded.ts, received_at = excluded.received_at, power_kw = excluded.power_kw, soc_pct = excluded.soc_pct,
    voltage = excluded.voltage, "current" = excluded."current", temp_c = excluded.temp_c, status = excluded.status,
    raw = excluded.raw
  where excluded.ts >= l.ts or (l.ts > excluded.received_at and excluded.ts >= l.received_at)
)`;
const WRITE_BATCH_RESULT = `
select horizon from telemetry_rollup_state`;
const WRITE_BATCH = prepared(`${WRITE_BATCH_CTES}${WRITE_BATCH_RESULT}`);

/**
 * WRITE_BATCH with other modules' batch statements (service.ts, BatchStatement; decision 0476) as
 * more data-modifying CTEs of the same statement: `touched` from $5-$7 (per asset, the earliest and
 * latest placeable ts in epoch ms), then each statement. Built once per list of statements.
 */
const withStatements = new Map<string, string>();
function writeBatchWith(statements: readonly string[]): string {
  const key = statements.join('\u0000');
  let sql = withStatements.get(key);
  if (sql === undefined) {
    const ctes = statements.map((st, i) => `, batch_statement_${i} as (${st})`).join('');
    sql = `${WRITE_BATCH_CTES}, touched as (
  select a as asset_id, to_timestamp(f / 1000.0) as from_ts, to_timestamp(t / 1000.0) as to_ts
  from unnest($5::text[], $6::float8[], $7::float8[]) as u(a, f, t)
)${ctes}${WRITE_BATCH_RESULT}`;
    withStatements.set(key, prepared(sql));
  }
  return sql;
}

// Records for days already sealed into rollups are added to them (usually no batch has any): the
// candidate rows (ts at or before the horizon's millisecond, as one JSON text like the insert's), of
// which those with ts < horizon count. Each row's raw JSON comes out of the function scan once: when
// it was an element of a jsonb parameter ($9::jsonb -> ord), the planner copied that constant into
// every metric's expression and parsed it for each, about 120 ms a 500-row batch at bind.
const LATE_ROLLUP = prepared(`
insert into telemetry_rollup_daily as r (org_id, asset_id, day, ${ROLLUP_COLUMNS})
select $1, asset_id, day,
       ${ROLLUP_AGGREGATES}
from (select asset_id, date_bin(${DAY}, ts, ${ORIGIN}) as day,
           ${METRIC_VALUES}
      from (select u.asset_id, u.ts, u.power_kw, u.soc_pct, u.voltage, u."current", u.temp_c, u.raw
            from ${RECORDS('$2')}) rows
      where ts < $3::timestamptz) x
group by asset_id, day
order by asset_id, day
on conflict (org_id, asset_id, day) do update set
  ${ROLLUP_MERGE}`);

/**
 * Per asset, the rows that may be its newest placeable one: ts within a millisecond of the asset's
 * newest (tsMs is ts floored to the millisecond; the store rounds to the microsecond, so the exact
 * newest, ties included, is always among them), in batch order. Rows flagged ts_in_future are left
 * out (decision 0048).
 */
export function newestCandidates(rows: readonly CanonicalRow[]): CanonicalRow[] {
  const max = new Map<string, number>();
  for (const r of rows) {
    if (r.anomalies.includes('ts_in_future')) continue;
    const m = max.get(r.asset_id);
    if (m === undefined || r.tsMs > m) max.set(r.asset_id, r.tsMs);
  }
  return rows.filter((r) => {
    const m = max.get(r.asset_id);
    return m !== undefined && r.tsMs >= m - 1 && !r.anomalies.includes('ts_in_future');
  });
}

/** A stored record as the live-events read answers it: the live stream's record with its id and arrival. */
export interface LiveEvent extends LiveRecord {
  id: number;
  received_at: string;
}

export interface HistoryRows {
  series: { t: string; v: number }[];
  summary: { count: number; min: number | null; max: number | null; avg: number | null; latest: number | null };
}

/** One asset's half hour: mean power and the state-of-charge range of its samples (UTC slot start). */
export interface HalfHourRow {
  asset_id: string;
  slot: string;
  samples: number;
  mean_power_kw: number | null;
  min_soc_pct: number | null;
  max_soc_pct: number | null;
}

/**
 * Half-hourly means of the given assets' samples in [from, to) (slots aligned to UTC half hours,
 * which are UK half hours too), for modules that derive figures from telemetry (EMS alerts).
 * Records whose ts cannot be placed in time are left out, as in every read by ts.
 */
export async function halfHourly(q: Queryable, orgId: string, assetIds: string[], from: Date, to: Date): Promise<HalfHourRow[]> {
  if (assetIds.length === 0) return [];
  const r = await q.query<HalfHourRow>(
    `select asset_id, ${iso(`date_bin('30 minutes'::interval, ts, '${BUCKET_ORIGIN}'::timestamptz)`)} as slot,
            count(*)::int as samples, avg(power_kw)::float8 as mean_power_kw,
            min(soc_pct)::float8 as min_soc_pct, max(soc_pct)::float8 as max_soc_pct
     from telemetry
     where org_id = $1 and asset_id = any($2::text[]) and ts >= $3 and ts < $4 and ${trustedTsSql()}
     group by 1, 2
     order by 1, 2`,
    [orgId, assetIds, from, to],
  );
  return r.rows;
}

/** The newest stored record of an asset (telemetry_latest): what other modules read as "latest". */
export interface LatestReading extends ReadingValues {
  asset_id: string;
  ts: Date;
  received_at: Date;
  raw: Record<string, unknown>;
  /** raw `site_ref` as text (null when absent): the site a device names before it is registered. */
  site_ref: string | null;
}

/** One stored record as a page of readings shows it; ts_key is ts to the microsecond (keyset cursors). */
export interface StoredReading extends ReadingValues {
  id: number;
  asset_id: string;
  ts: Date;
  ts_key: string;
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

/** Per asset, source and measurement: the newest value (num for numbers, txt for status). */
export interface SourceValueRow {
  asset_id: string;
  source: string;
  measurement: string;
  num: number | null;
  txt: string | null;
  ts: Date;
}

// site_ref is raw's site_ref as text, a stored column (migration 0207) so that the registry's index
// on it leaves the row's updates in place (decision 0371).
const LATEST_COLS = `l.asset_id, l.ts, l.received_at, l.power_kw, l.soc_pct, l.voltage, l."current" as current, l.temp_c, l.status, l.raw, l.site_ref`;

/** SQL: a jsonb number of raw under the first of these keys that holds one. */
function rawNumber(alias: string, keys: string[]): string {
  const parts = keys.map((k) => `case when jsonb_typeof(${alias}.raw->'${k}') = 'number' then (${alias}.raw->>'${k}')::float8 end`);
  return `coalesce(${parts.join(', ')})`;
}

/**
 * Reads of stored telemetry for other modules (TELEMETRY_READS). Every function takes the
 * caller's Queryable (its transaction, when it has one) and the organisation, and filters on it.
 * Records whose ts cannot be placed in time (decision 0048) are left out of every read by ts.
 */
export const telemetryReads = {
  halfHourly,

  /**
   * Newest record of each asset that has one, by asset id: those of `assetIds` (when given) whose
   * raw `site_ref` is `siteRef` (when given). An empty `assetIds` reads nothing.
   */
  async latest(q: Queryable, orgId: string, f: { assetIds?: readonly string[]; siteRef?: string }): Promise<LatestReading[]> {
    if (f.assetIds && f.assetIds.length === 0) return [];
    const params: unknown[] = [orgId];
    const where = ['l.org_id = $1'];
    if (f.assetIds) {
      params.push(f.assetIds);
      where.push(`l.asset_id = any($${params.length}::text[])`);
    }
    if (f.siteRef !== undefined) {
      params.push(f.siteRef);
      where.push(`l.site_ref = $${params.length}`);
    }
    const r = await q.query<LatestReading>(`select ${LATEST_COLS} from telemetry_latest l where ${where.join(' and ')} order by l.asset_id`, params);
    return r.rows;
  },

  /**
   * How many assets have a newest record, by their raw `site_ref` ('' when absent or empty),
   * leaving out the assets of `except`.
   */
  async countBySiteRef(q: Queryable, orgId: string, except: readonly string[]): Promise<{ site_ref: string; n: number }[]> {
    const r = await q.query<{ site_ref: string; n: number }>(
      `select coalesce(l.site_ref, '') as site_ref, count(*)::int as n
       from telemetry_latest l
       where l.org_id = $1 and not (l.asset_id = any($2::text[]))
       group by 1 order by 1`,
      [orgId, except],
    );
    return r.rows;
  },

  /**
   * Assets whose newest record has ts in [notBefore, before), oldest first (ties by asset id),
   * after the keyset position `after`, at most `limit`.
   */
  async newestBetween(
    q: Queryable,
    orgId: string,
    w: { notBefore: Date; before: Date; after?: { ts: Date; assetId: string }; limit: number },
  ): Promise<{ asset_id: string; ts: Date }[]> {
    const r = await q.query<{ asset_id: string; ts: Date }>(
      `select l.asset_id, l.ts from telemetry_latest l
       where l.org_id = $1 and l.ts < $2 and l.ts >= $3
         and ($4::timestamptz is null or (l.ts, l.asset_id) > ($4::timestamptz, $5::text))
       order by l.ts, l.asset_id
       limit $6`,
      [orgId, w.before, w.notBefore, w.after?.ts ?? null, w.after?.assetId ?? '', w.limit],
    );
    return r.rows;
  },

  /** Stored records with ts in [from, until], newest first (ties by row id), after the keyset position. */
  async readingsPage(
    q: Queryable,
    orgId: string,
    window: { from: Date; until: Date | null },
    before: { t: string; id: number } | null,
    limit: number,
  ): Promise<StoredReading[]> {
    const r = await q.query<StoredReading>(
      `select t.id, t.asset_id, t.ts, to_char(t.ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as ts_key,
              t.power_kw, t.soc_pct, t.voltage, t."current" as current, t.temp_c, t.status
       from telemetry t
       where t.org_id = $1 and t.ts >= $2 and ${trustedTsSql('t')}
         and ($3::timestamptz is null or t.ts <= $3)
         and ($4::timestamptz is null or (t.ts, t.id) < ($4::timestamptz, $5::bigint))
       order by t.ts desc, t.id desc
       limit $6`,
      [orgId, window.from, window.until, before?.t ?? null, before?.id ?? 0, limit],
    );
    return r.rows.map((row) => ({ ...row, id: Number(row.id) }));
  },

  /** Newest record within the window that carries a position (raw lat/latitude and lon/lng/longitude). */
  async latestPositions(q: Queryable, orgId: string, assetIds: readonly string[], since: Date) {
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
  async latestIgnition(q: Queryable, orgId: string, assetIds: readonly string[], since: Date) {
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

  /**
   * Per asset, source and measurement: the newest non-null value since `since`. A record's source
   * is its raw `source` when that is one of `sources`, else 'telemetry'.
   */
  async latestBySource(q: Queryable, orgId: string, assetIds: readonly string[], since: Date, sources: readonly string[]): Promise<SourceValueRow[]> {
    const r = await q.query<SourceValueRow>(
      `select distinct on (t.asset_id, source, m.measurement)
         t.asset_id, case when t.raw->>'source' = any($4::text[]) then t.raw->>'source' else 'telemetry' end as source,
         m.measurement, m.num, m.txt, t.ts
       from telemetry t
       cross join lateral (values
         ('power_kw', t.power_kw, null::text), ('soc_pct', t.soc_pct, null), ('voltage', t.voltage, null),
         ('current', t."current", null), ('temp_c', t.temp_c, null), ('status', null::float8, t.status)
       ) as m(measurement, num, txt)
       where t.org_id = $1 and t.asset_id = any($2::text[]) and t.ts >= $3 and ${trustedTsSql('t')}
         and (m.num is not null or (m.txt is not null and m.txt <> 'unknown'))
       order by t.asset_id, source, m.measurement, t.ts desc, t.id desc`,
      [orgId, assetIds, since, sources],
    );
    return r.rows;
  },

  /** Per asset since `since`: records, duplicates, future and late timestamps, gaps over `gapSeconds`. */
  async integrity(q: Queryable, orgId: string, assetIds: readonly string[], since: Date, gapSeconds: number): Promise<IntegrityRow[]> {
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

  /** Per asset and anomaly reason: how many records since `since` carry it. */
  async anomalyCounts(q: Queryable, orgId: string, assetIds: readonly string[], since: Date) {
    const r = await q.query<{ asset_id: string; reason: string; n: number }>(
      `select t.asset_id, a.reason, count(*)::int as n
       from telemetry t cross join lateral unnest(t.anomalies) as a(reason)
       where t.org_id = $1 and t.asset_id = any($2::text[]) and t.ts >= $3
       group by 1, 2 order by 1, 2`,
      [orgId, assetIds, since],
    );
    return r.rows;
  },
};

export type TelemetryReads = typeof telemetryReads;

export function createTelemetryStore(db: Queryable) {
  /**
   * A register metric's history (decision 0323): each bucket is the energy the register advanced in
   * it. Consecutive readings are joined as the energy model joins them (registerLinkSql) and each
   * interval's energy is spread over it in proportion to time, from `from` on (the reading before
   * the window, within the gap, starts the first interval). A sealed day contributes the energy
   * between its own readings to its bucket, and its first and last readings join it to its
   * neighbours. Exact decimals to the end; the summary is over the buckets.
   */
  async function registerHistory(
    orgId: string,
    assetId: string,
    def: MetricDef,
    range: RangeDef,
    from: Date,
    to: Date,
    sealedFrom: Date,
    sealedTo: Date,
  ): Promise<HistoryRows> {
    const i = def.id;
    if (sealedTo > sealedFrom) {
      // A day sealed before its register parts were kept (migration 0206): the window from samples.
      const legacy = await db.query<{ n: number }>(
        `select count(*)::int as n from telemetry_rollup_daily
         where org_id = $1 and asset_id = $2 and day >= $3 and day < $4 and n${i} > 0 and cf${i}_ts is null`,
        [orgId, assetId, sealedFrom, sealedTo],
      );
      if (legacy.rows[0].n > 0) sealedTo = sealedFrom;
    }
    const rollups = sealedTo > sealedFrom;
    const value = counterValueSql(def);
    const samples = (lo: string, hi: string) =>
      `select ts as t0, v as v0, ts as t1, v as v1, 0::numeric as inner_kwh, null::timestamptz as day, id
       from (select ts, id, ${value} as v from telemetry
             where org_id = $1 and asset_id = $2 and ts >= ${lo} and ts ${hi} and ${trustedTsSql()}) s where v is not null`;
    const points = [
      `select * from (select * from (${samples(`$3::timestamptz - '${COUNTER_GAP_SECONDS} seconds'::interval`, '< $3')}) p order by t0 desc, id desc limit 1) before_window`,
      ...(rollups
        ? [
            samples('$3', '< $7'),
            `select cf${i}_ts, cf${i}, cl${i}_ts, cl${i}, ca${i}, day, 0::bigint from telemetry_rollup_daily
             where org_id = $1 and asset_id = $2 and day >= $7 and day < $8 and cf${i}_ts is not null`,
            samples('$8', '<= $4'),
          ]
        : [samples('$3', '<= $4')]),
    ];
    const params: unknown[] = [orgId, assetId, from, to, range.bucket, BUCKET_ORIGIN];
    if (rollups) params.push(sealedFrom, sealedTo);
    const r = await db.query<{ t: string | null; v: number | null; n: number; mn: number | null; mx: number | null; total: boolean }>(
      `with pts as (${points.join('\n union all\n')}),
       chain as (select t0, v0, day, inner_kwh, lag(t1) over w as pt, lag(v1) over w as pv from pts window w as (order by t0, id)),
       links as (select pt as a, t0 as b, ${registerLinkSql('pt', 'pv', 't0', 'v0')} as kwh from chain),
       pieces as (
         select bucket, kwh * extract(epoch from least(b, bucket + $5::interval) - greatest(a, $3::timestamptz, bucket)) / extract(epoch from b - a) as e
         from links cross join lateral generate_series(date_bin($5::interval, greatest(a, $3::timestamptz), $6::timestamptz),
                                                       date_bin($5::interval, b - '1 microsecond'::interval, $6::timestamptz), $5::interval) as bucket
         where kwh is not null and b > $3::timestamptz
         union all
         select date_bin($5::interval, day, $6::timestamptz), inner_kwh from chain where day is not null and inner_kwh is not null
       ),
       b as (select bucket, sum(e) as e from pieces group by bucket)
       select ${iso('bucket')} as t, e::float8 as v, 1 as n, null::float8 as mn, null::float8 as mx, false as total, bucket from b
       union all
       select null, (sum(e) / nullif(count(*), 0))::float8, count(*)::int, min(e)::float8, max(e)::float8, true, null from b
       order by total, bucket`,
      params,
    );
    const series = r.rows.filter((x) => !x.total).map((x) => ({ t: x.t!, v: x.v! }));
    const total = r.rows.find((x) => x.total);
    return {
      series,
      summary: {
        count: total?.n ?? 0,
        min: total?.mn ?? null,
        max: total?.mx ?? null,
        avg: total?.v ?? null,
        latest: series.length ? series[series.length - 1].v : null,
      },
    };
  }

  return {
    /** Inserts one batch. Must run in the caller's transaction (db.tx). Returns the rows written. */
    /** Writes a batch (see WRITE_BATCH); `json` is recordsJson(rows) when the caller has it already. */
    async insertBatch(
      orgId: string,
      receivedAt: Date,
      rows: CanonicalRow[],
      json: string = recordsJson(rows),
      batch?: { statements: readonly string[]; touched: readonly { asset_id: string; from: number; to: number }[] },
    ): Promise<number> {
      const n = rows.length;
      // Sealing a day waits for batches in flight and batches wait for it: see decision 0046.
      await db.query(`select pg_advisory_xact_lock_shared(${ROLLUP_LOCK})`);
      const params: unknown[] = [orgId, receivedAt, json, recordsJson(newestCandidates(rows))];
      // Two calls, so the query snapshot lists WRITE_BATCH itself.
      const h = batch?.statements.length
        ? await db.query<{ horizon: Date | string | null }>(writeBatchWith(batch.statements), [
            ...params,
            batch.touched.map((t) => t.asset_id),
            batch.touched.map((t) => t.from),
            batch.touched.map((t) => t.to),
          ])
        : await db.query<{ horizon: Date | string | null }>(WRITE_BATCH, params);
      const horizon = h.rows[0]?.horizon;
      if (horizon !== null && horizon !== undefined) {
        const hMs = new Date(horizon).getTime();
        const late = rows.filter((r) => r.tsMs <= hMs);
        if (late.length) {
          await db.query(LATE_ROLLUP, [orgId, late.length === n ? json : recordsJson(late), new Date(hMs)]);
          const days = new Map<string, { asset: string; day: Date }>();
          for (const r of late) {
            if (r.tsMs >= hMs || !REGISTER_KEYS.some((k) => typeof r.raw[k] === 'number')) continue;
            const day = Math.floor(r.tsMs / DAY_MS) * DAY_MS;
            days.set(`${r.asset_id}\u0000${day}`, { asset: r.asset_id, day: new Date(day) });
          }
          if (days.size) {
            const list = [...days.values()];
            await db.query(LATE_REGISTERS, [orgId, list.map((d) => d.asset), list.map((d) => d.day), new Date(hMs)]);
          }
        }
      }
      return n;
    },

    /** The most recent records received since `since`, newest first. */
    async liveEvents(orgId: string, opts: { since: Date; limit: number; assetId?: string }): Promise<LiveEvent[]> {
      const params: unknown[] = [orgId, opts.since, opts.limit];
      let assetFilter = '';
      if (opts.assetId !== undefined) {
        params.push(opts.assetId);
        assetFilter = 'and asset_id = $4';
      }
      const r = await db.query<LiveEvent>(
        `select id, asset_id, ${iso('ts')} as ts, ${iso('received_at')} as received_at, power_kw, soc_pct, voltage,
                "current", temp_c, status, run_id, intent_id, anomalies, raw
         from telemetry
         where org_id = $1 and received_at >= $2 ${assetFilter}
         order by received_at desc, id desc
         limit $3`,
        params,
      );
      return r.rows.map((row) => ({ ...row, id: Number(row.id) }));
    },

    /**
     * Bucketed means (date_bin) and the window's summary for one asset and metric, in one pass with
     * grouping sets (each bucket, and the whole window). For day-multiple buckets the full sealed
     * days inside the window come from telemetry_rollup_daily (one row per day) and only the rest
     * from the samples; every bucket is still the mean of its samples (sum / count). The latest
     * sample is a backward index scan that stops at the first sample carrying the metric.
     */
    async history(
      orgId: string,
      assetId: string,
      def: MetricDef,
      range: RangeDef,
      from: Date,
      to: Date,
      unsealed: readonly string[] = [],
    ): Promise<HistoryRows> {
      const samples = (lo: string, hi: string) =>
        `select ts, ${metricValueSql(def)} as v from telemetry
         where org_id = $1 and asset_id = $2 and ts >= ${lo} and ts ${hi} and ${trustedTsSql()}`;
      // [sealedFrom, sealedTo): whole sealed days inside the window, answered by the rollups.
      let sealedFrom = from;
      let sealedTo = from;
      if (range.dayBuckets) {
        const h = await db.query<{ horizon: Date | null }>('select horizon from telemetry_rollup_state');
        // Whole sealed days only: the rollup of a day still being sealed (horizon inside it) holds
        // part of it, so that day is read from the samples.
        const horizon = h.rows[0]?.horizon ? Math.floor(new Date(h.rows[0].horizon).getTime() / DAY_MS) * DAY_MS : -Infinity;
        const first = Math.ceil(from.getTime() / DAY_MS) * DAY_MS;
        // A day the organisation's rollup could not be sealed for (decision 0287) and what follows
        // are read from the samples.
        const held = unsealed.map((d) => Date.parse(`${d}T00:00:00Z`)).filter((t) => t >= Math.ceil(from.getTime() / DAY_MS) * DAY_MS);
        const last = Math.min(Math.floor(to.getTime() / DAY_MS) * DAY_MS, horizon, ...held);
        if (last > first) {
          sealedFrom = new Date(first);
          sealedTo = new Date(last);
        }
      }
      if (isCounter(def)) return registerHistory(orgId, assetId, def, range, from, to, sealedFrom, sealedTo);
      const i = def.id;
      const parts =
        sealedTo > sealedFrom
          ? `select date_bin($5::interval, day, $6::timestamptz) as t, n${i} as n, s${i} as s, mn${i} as mn, mx${i} as mx
             from telemetry_rollup_daily where org_id = $1 and asset_id = $2 and day >= $7 and day < $8 and n${i} > 0
             union all
             select date_bin($5::interval, ts, $6::timestamptz), 1, v, v, v from (${samples('$3', '< $7')}) a where v is not null
             union all
             select date_bin($5::interval, ts, $6::timestamptz), 1, v, v, v from (${samples('$8', '<= $4')}) b where v is not null`
          : `select date_bin($5::interval, ts, $6::timestamptz) as t, 1 as n, v as s, v as mn, v as mx
             from (${samples('$3', '<= $4')}) a where v is not null`;
      const params: unknown[] = [orgId, assetId, from, to, range.bucket, BUCKET_ORIGIN];
      if (sealedTo > sealedFrom) params.push(sealedFrom, sealedTo);
      const r = await db.query<{ t: string | null; n: number; a: number | null; mn: number | null; mx: number | null; total: boolean }>(
        `select ${iso('g.t')} as t, g.n, g.a, g.mn, g.mx, g.total
         from (
           select t, sum(n)::int as n, sum(s) / sum(n) as a, min(mn) as mn, max(mx) as mx, grouping(t) = 1 as total
           from (${parts}) p
           group by grouping sets ((t), ())
         ) g
         order by g.total, g.t`,
        params,
      );
      const latest = await db.query<{ v: number }>(`select v from (${samples('$3', '<= $4')}) s where v is not null order by ts desc limit 1`, [
        orgId,
        assetId,
        from,
        to,
      ]);
      const total = r.rows.find((x) => x.total);
      return {
        series: r.rows.filter((x) => !x.total).map((x) => ({ t: x.t!, v: x.a! })),
        summary: {
          count: total?.n ?? 0,
          min: total?.mn ?? null,
          max: total?.mx ?? null,
          avg: total?.a ?? null,
          latest: latest.rows[0]?.v ?? null,
        },
      };
    },
  };
}

/** One sealing step's insert over [$1, $2) into day $3, for the organisations `orgs` selects (with $4). */
const SEAL_STEP = (orgs: string) => `with x as materialized (
     select org_id, asset_id, ts, id,
            ${METRIC_VALUES},
            ${REGISTER_VALUES}
     from telemetry where ts >= $1 and ts < $2 and ${orgs} and ${trustedTsSql()})
   insert into telemetry_rollup_daily as r (org_id, asset_id, day, ${ROLLUP_COLUMNS}, ${REGISTER_COLUMNS})
   select a.org_id, a.asset_id, $3::timestamptz, ${ALL_METRICS.map(({ id: i }) => `a.n${i}, a.s${i}, a.mn${i}, a.mx${i}`).join(', ')},
          ${COUNTER_METRICS.map(({ id: i }) => `g.cf${i}_ts, g.cf${i}, g.cl${i}_ts, g.cl${i}, g.ca${i}`).join(', ')}
   from (select org_id, asset_id, ${ROLLUP_NAMED} from x group by org_id, asset_id) a
   left join (${registerRollupSql(`select org_id, asset_id, ts, id, ${REGISTER_C} from x`, ['org_id', 'asset_id'])}) g
     on g.org_id = a.org_id and g.asset_id = a.asset_id
   on conflict (org_id, asset_id, day) do update set
     ${ROLLUP_MERGE},
     ${REGISTER_MERGE}`;

/**
 * Partition maintenance and sealing of daily rollups: they act on the table as a whole (every
 * organisation), so they are not organisation-scoped. `db` must be a Db (sealing opens transactions).
 */
export function createPartitionStore(db: Db) {
  /** Where sealing starts on a store that has never sealed: the first day holding data. */
  async function firstDataDay(q: Queryable, fallback: number): Promise<number> {
    const parts = await q.query<{ name: string }>(
      `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
       where i.inhparent = to_regclass('telemetry') and c.relname ~ '^telemetry_[0-9]{6}$' order by 1`,
    );
    let first = fallback;
    for (const { name } of parts.rows) {
      const has = await q.query(`select 1 from "${name}" limit 1`);
      if (has.rows.length) {
        const m = name.slice('telemetry_'.length);
        first = Math.min(first, Date.UTC(Number(m.slice(0, 4)), Number(m.slice(4)) - 1, 1));
        break;
      }
    }
    const def = await q.query<{ ts: Date | null }>('select min(ts) as ts from telemetry_default');
    if (def.rows[0]?.ts) first = Math.min(first, new Date(def.rows[0].ts).getTime());
    return Math.floor(first / DAY_MS) * DAY_MS;
  }

  return {
    async ensurePartitions(from: Date, to: Date): Promise<number> {
      const r = await db.query<{ made: number }>('select telemetry_ensure_partitions($1, $2) as made', [from, to]);
      return Number(r.rows[0].made);
    },
    /** The end of what is sealed (ms), or null before the first seal. */
    async horizon(): Promise<number | null> {
      const r = await db.query<{ horizon: Date | null }>('select horizon from telemetry_rollup_state');
      return r.rows[0]?.horizon ? new Date(r.rows[0].horizon).getTime() : null;
    },
    /**
     * Seals one organisation's whole day (YYYY-MM-DD, already behind the horizon) anew: what a step
     * could not seal for it (decision 0285). Its rollup rows of the day are replaced, under the
     * rollup lock, so records ingestion folded in meanwhile are counted once.
     */
    async resealOrgDay(orgId: string, day: string): Promise<void> {
      const start = new Date(`${day}T00:00:00Z`);
      await db.tx(async (q) => {
        await q.query(`select pg_advisory_xact_lock(${ROLLUP_LOCK})`);
        await q.query('delete from telemetry_rollup_daily where org_id = $1 and day = $2', [orgId, start]);
        await q.query(SEAL_STEP('org_id = $4'), [start, new Date(start.getTime() + DAY_MS), start, orgId]);
      });
    },
    /** Drops whole monthly partitions ending at or before cutoff, and older rollups and default rows. */
    async dropPartitionsBefore(cutoff: Date): Promise<number> {
      const r = await db.query<{ dropped: number }>('select telemetry_drop_partitions_before($1) as dropped', [cutoff]);
      return Number(r.rows[0].dropped);
    },
    /**
     * Seals every day that ended at or before `upto` into telemetry_rollup_daily in bounded steps
     * (decision 0018): a step is one transaction over whole hours of one day, as many as hold about
     * SEAL_STEP_ROWS samples by a count of the day's rest (at least one hour), so no step outgrows
     * its statement timeout and ingestion waits at most one step. The horizon moves by the step:
     * a record below it, late for an hour already sealed, is added to its day's rollup by the
     * ingest statement, so every record is still counted once. Returns the hours sealed.
     */
    async sealDays(
      upto: Date,
      opts: {
        maxHours?: number;
        onStep?: (hours: number, ms: number) => void;
        /** Organisations left out of a day's steps (a unit of theirs failed on it: resealed whole by `resealOrgDay`), by day (YYYY-MM-DD). */
        held?: ReadonlyMap<string, ReadonlySet<string>>;
        /** An organisation whose rows of a step could not be sealed (the others were; decision 0285). Called after the step commits. */
        onOrgFailed?: (orgId: string, day: string, err: unknown) => Promise<void>;
      } = {},
    ): Promise<number> {
      const lastDayEnd = Math.floor(upto.getTime() / DAY_MS) * DAY_MS;
      const maxHours = opts.maxHours ?? 24_000;
      let sealed = 0;
      while (sealed < maxHours) {
        const started = performance.now();
        const state = await db.query<{ horizon: Date | null }>('select horizon from telemetry_rollup_state');
        const known = state.rows[0].horizon ? new Date(state.rows[0].horizon).getTime() : null;
        const dayEnd = known === null ? null : Math.floor(known / DAY_MS) * DAY_MS + DAY_MS;
        // How many hours fit the step: an estimate (outside the lock; rows may still arrive).
        let hours = 1;
        if (known !== null && dayEnd! <= lastDayEnd) {
          const left = Math.round((dayEnd! - known) / SEAL_STEP_MS);
          const c = await db.query<{ n: number }>('select count(*)::int as n from telemetry where ts >= $1 and ts < $2', [new Date(known), new Date(dayEnd!)]);
          hours = Math.max(1, Math.min(left, Math.floor((SEAL_STEP_ROWS * left) / Math.max(1, c.rows[0].n))));
        }
        hours = Math.min(hours, maxHours - sealed);
        const failed: { orgId: string; day: string; err: unknown }[] = [];
        const step = await db.tx(async (q) => {
          await q.query(`select pg_advisory_xact_lock(${ROLLUP_LOCK})`);
          const locked = await q.query<{ horizon: Date | null }>('select horizon from telemetry_rollup_state');
          let horizon = locked.rows[0].horizon ? new Date(locked.rows[0].horizon).getTime() : null;
          if (horizon === null) {
            horizon = await firstDataDay(q, upto.getTime());
            await q.query('update telemetry_rollup_state set horizon = $1', [new Date(horizon)]);
          }
          const day = Math.floor(horizon / DAY_MS) * DAY_MS;
          const from = Math.floor(horizon / SEAL_STEP_MS) * SEAL_STEP_MS;
          const end = Math.min(from + hours * SEAL_STEP_MS, day + DAY_MS);
          if (day + DAY_MS > lastDayEnd) return 0;
          const dayKey = isoTime(day).slice(0, 10);
          const held = [...(opts.held?.get(dayKey) ?? [])];
          const window = [new Date(horizon), new Date(end), new Date(day)];
          // Every organisation at once; if that fails (one organisation's rows cannot be summed),
          // each organisation on its own, so the one that fails holds back only its own day.
          await q.query('savepoint seal_all');
          try {
            await q.query(SEAL_STEP('org_id <> all($4::text[])'), [...window, held]);
            await q.query('release savepoint seal_all');
          } catch (allErr) {
            if (isPlatformFailure(allErr)) throw allErr;
            await q.query('rollback to savepoint seal_all');
            const orgs = await q.query<{ org_id: string }>(
              'select distinct org_id from telemetry where ts >= $1 and ts < $2 and org_id <> all($3::text[]) order by org_id',
              [window[0], window[1], held],
            );
            for (const { org_id } of orgs.rows) {
              await q.query('savepoint seal_org');
              try {
                await q.query(SEAL_STEP('org_id = $4'), [...window, org_id]);
                await q.query('release savepoint seal_org');
              } catch (err) {
                await q.query('rollback to savepoint seal_org');
                failed.push({ orgId: org_id, day: dayKey, err });
              }
            }
            // Not an organisation's data after all (every one sealed alone): the step's own failure.
            if (failed.length === 0) throw allErr;
          }
          await q.query('update telemetry_rollup_state set horizon = $1', [new Date(end)]);
          return Math.round((end - from) / SEAL_STEP_MS);
        });
        for (const f of failed) await opts.onOrgFailed?.(f.orgId, f.day, f.err);
        if (step === 0) break;
        sealed += step;
        opts.onStep?.(step, performance.now() - started);
      }
      return sealed;
    },
  };
}

export type TelemetryStore = ReturnType<typeof createTelemetryStore>;

// ---------------------------------------------------------------------------------------------
// Energy reads for the energy module (TELEMETRY_ENERGY): half-hour integrals of stored samples,
// the span of an asset's records, and readings by time. Half hours are UTC half hours, which are
// UK local half hours too (UK offsets are whole hours).

/** One asset over [from, to), both on half-hour boundaries: what a windowed energy read covers. */
export interface EnergyWindow {
  asset_id: string;
  from: Date;
  to: Date;
}

/** One asset's power integral over one half hour (`slot`, its start). */
export interface PowerHalfHour {
  /** The window's index in the call (windowed reads). */
  w: number;
  asset_id: string;
  slot: Date;
  /** Energy while power_kw was positive (import, charge, consumption), kWh. */
  pos_kwh: number;
  /** Energy while power_kw was negative (export, generation, discharge), kWh, as a magnitude. */
  neg_kwh: number;
  /** Seconds of the half hour covered by integrated segments (1800 = whole). */
  covered_s: number;
  /** Samples whose ts falls in the half hour. */
  samples: number;
}

/** One asset's cumulative counter advance over one half hour. */
export interface CounterHalfHour {
  /** The window's index in the call (windowed reads). */
  w: number;
  asset_id: string;
  key: string;
  slot: Date;
  kwh: number;
  covered_s: number;
  /** Counter resets (a reading lower than the one before) ending in this half hour. */
  resets: number;
}

const HALF_HOUR = `'30 minutes'::interval`;
const SLOT_ORIGIN = `'2000-01-01T00:00:00Z'::timestamptz`;

// A sample beyond the record rules' bounds (stored before decision 0280 set them: above the bound,
// or non-zero below 1e-100, whose products underflow) is left out of the energy figures as if
// absent, so no half hour of an asset exceeds what the bound power gives and no product fails.
const POWER_IN_BOUND = `(abs(power_kw) <= ${MEASUREMENT_BOUNDS.power_kw} and (power_kw = 0 or abs(power_kw) >= ${MAGNITUDE_FLOOR}))`;
const COUNTER_IN_BOUND = `(case when jsonb_typeof(raw->k.key) = 'number'
  then abs((raw->>k.key)::float8) <= ${COUNTER_BOUND_KWH} and ((raw->>k.key)::float8 = 0 or abs((raw->>k.key)::float8) >= ${MAGNITUDE_FLOOR}) else false end)`;

// Consecutive samples of an asset no further apart than the gap are one segment, power linear
// between them (trapezoidal rule); a segment is split at half-hour boundaries by interpolation and
// its positive and negative parts integrated apart (split exactly at the zero crossing). A longer
// silence is a gap: it is not integrated, and the half hours it spans show less coverage.
// Seconds are date_part('epoch', …) (float8), not extract (numeric since PostgreSQL 14, then cast):
// the same double for intervals of a day or less (microseconds / 1e6, rounded once either way), at
// a fraction of the CPU; the energy refresh reads each site's current half hour with these
// statements every ENERGY_REFRESH_INTERVAL_SECONDS (bench/energy-reads-ab.ts measures them).
// What counts as a power sample: the one filter of every place that reads power for energy (the
// segments, the per-half-hour sample count, the refresh's neighbours).
const POWER_SAMPLE = `power_kw is not null and ${POWER_IN_BOUND} and ${trustedTsSql()}`;
// Each window is one asset over [f, t) (slot-aligned); the rows carry the window's key `w`.
// Windows of their own (a refresh's many sites, each over its own span, decision 0512) are an array
// each, keyed by index (1-based); a common window (a rebuild's, a report's) is two parameters, keyed
// by asset id: the statement is then the one before decision 0512, whose range the planner sees as
// a constant (it prunes partitions and estimates the scans from it; the per-window form cost a third
// more on a week's range). With windows of their own `b` is materialized, so that each window's
// probes run once, not again for each partition the join's runtime pruning looks at.
const WINDOWS_EACH = `select i::int as w, aid, f, t from unnest($2::text[], $3::timestamptz[], $4::timestamptz[]) with ordinality as u(aid, f, t, i)`;
const WINDOWS_COMMON = `select aid as w, aid, $3::timestamptz as f, $4::timestamptz as t from (select distinct unnest($2::text[]) as aid) a`;
type WindowForm = { windows: string; b: string };
const EACH: WindowForm = { windows: WINDOWS_EACH, b: 'materialized ' };
const COMMON: WindowForm = { windows: WINDOWS_COMMON, b: '' };
const powerHalfHoursSql = ({ windows: WINDOWS, b: B }: WindowForm) => `
with b as ${B}(
  select u.w, u.aid, u.f, u.t,
         coalesce((select max(ts) from telemetry where org_id = $1 and asset_id = u.aid and ts < u.f and ts >= u.f - $5::interval
                   and ${POWER_SAMPLE}), u.f) as lo,
         coalesce((select min(ts) from telemetry where org_id = $1 and asset_id = u.aid and ts >= u.t and ts < u.t + $5::interval
                   and ${POWER_SAMPLE}), u.t) as hi
  from (${WINDOWS}) u
), s as (
  select b.w, b.f, b.t, ts as t0, power_kw as p0,
         lead(ts) over win as t1, lead(power_kw) over win as p1
  from b join telemetry on org_id = $1 and asset_id = b.aid and ts >= b.lo and ts <= b.hi
  where ${POWER_SAMPLE}
  window win as (partition by b.w order by ts, id)
), seg as (
  select * from s where t1 is not null and t1 > t0 and t1 - t0 <= $5::interval
), pieces as (
  select w, f, t, slot, greatest(t0, slot) as a, least(t1, slot + ${HALF_HOUR}) as b, t0, t1, p0, p1
  from seg cross join lateral generate_series(date_bin(${HALF_HOUR}, t0, ${SLOT_ORIGIN}),
                                              date_bin(${HALF_HOUR}, t1 - '1 microsecond'::interval, ${SLOT_ORIGIN}),
                                              ${HALF_HOUR}) as slot
), v as (
  select w, slot, date_part('epoch', b - a) as d,
         p0 + (p1 - p0) * date_part('epoch', a - t0) / date_part('epoch', t1 - t0) as pa,
         p0 + (p1 - p0) * date_part('epoch', b - t0) / date_part('epoch', t1 - t0) as pb
  from pieces where b > a and slot >= f and slot < t
  offset 0 -- each piece's pa and pb computed once, not again in every branch of integ's sums (an inlined v repeats them)
), integ as (
  select w, slot,
         sum(case when pa >= 0 and pb >= 0 then (pa + pb) / 2 * d
                  when pa <= 0 and pb <= 0 then 0
                  when pa > 0 then pa * pa / (pa - pb) * d / 2
                  else pb * pb / (pb - pa) * d / 2 end) / 3600.0 as pos_kwh,
         sum(case when pa <= 0 and pb <= 0 then -(pa + pb) / 2 * d
                  when pa >= 0 and pb >= 0 then 0
                  when pa > 0 then pb * pb / (pa - pb) * d / 2
                  else pa * pa / (pb - pa) * d / 2 end) / 3600.0 as neg_kwh,
         sum(d) as covered_s
  from v group by w, slot
), n as (
  select u.w, date_bin(${HALF_HOUR}, ts, ${SLOT_ORIGIN}) as slot, count(*)::int as samples
  from (${WINDOWS}) u join telemetry on org_id = $1 and asset_id = u.aid and ts >= u.f and ts < u.t
  where ${POWER_SAMPLE}
  group by 1, 2
)
select coalesce(i.w, n.w) as w, coalesce(i.slot, n.slot) as slot,
       coalesce(i.pos_kwh, 0)::float8 as pos_kwh, coalesce(i.neg_kwh, 0)::float8 as neg_kwh,
       coalesce(i.covered_s, 0)::float8 as covered_s, coalesce(n.samples, 0) as samples
from integ i full join n on n.w = i.w and n.slot = i.slot
order by 1, 2`;
const POWER_HALF_HOURS = { each: powerHalfHoursSql(EACH), common: powerHalfHoursSql(COMMON) };

// A counter's advance between consecutive readings no further apart than the counter gap is spread
// over that interval in proportion to time. A reading lower than the one before is a reset (the
// meter restarted from zero): the advance is the new reading itself, and the reset is counted.
// An advance faster than the bound rate ($7 kW: more than the bound power could deliver in the
// interval, e.g. a register jumping to 9e15 kWh) is implausible (decision 0281): it is treated like
// a reset that counts nothing, the interval is not covered, and the next advance is measured from
// the implausible reading. So no half hour of a counter exceeds the bound power's half hour.
// What counts as a counter reading of key k.key: likewise the one filter of every counter read.
const COUNTER_SAMPLE = `jsonb_typeof(raw->k.key) = 'number' and ${COUNTER_IN_BOUND} and ${trustedTsSql()}`;
const counterHalfHoursSql = ({ windows: WINDOWS, b: B }: WindowForm) => `
with b as ${B}(
  select u.w, u.aid, u.f, u.t, k.key,
         -- A key the asset did not report from f on (within the gap) has no segment in the window:
         -- its probe back would scan the whole gap for nothing.
         case when exists (select 1 from telemetry where org_id = $1 and asset_id = u.aid and ts >= u.f and ts < u.t + $5::interval
                           and ${COUNTER_SAMPLE})
              then coalesce((select max(ts) from telemetry where org_id = $1 and asset_id = u.aid and ts < u.f and ts >= u.f - $5::interval
                             and ${COUNTER_SAMPLE}), u.f)
              else u.f end as lo,
         coalesce((select min(ts) from telemetry where org_id = $1 and asset_id = u.aid and ts >= u.t and ts < u.t + $5::interval
                   and ${COUNTER_SAMPLE}), u.t) as hi
  from (${WINDOWS}) u cross join (select distinct unnest($6::text[]) as key) k
), cs as (
  select k.w, k.f, k.t, k.key, ts, id, (raw->>k.key)::float8 as v
  from b as k join telemetry on org_id = $1 and asset_id = k.aid and ts >= k.lo and ts <= k.hi
  where ${COUNTER_SAMPLE}
), cseg as (
  select w, f, t, key, ts as t1, v as v1, lag(ts) over win as t0, lag(v) over win as v0
  from cs window win as (partition by w, key order by ts, id)
), adv as (
  select w, f, t, key, t0, t1, case when v1 >= v0 then v1 - v0 else v1 end as advance, (v1 < v0) as reset
  from cseg where t0 is not null and t1 > t0 and t1 - t0 <= $5::interval
), cd as (
  select w, f, t, key, t0, t1, case when plausible then advance else 0 end as delta, reset or not plausible as reset, plausible
  from (select *, abs(advance) <= $7::float8 * date_part('epoch', t1 - t0) / 3600.0 as plausible from adv) x
), pieces as (
  select w, f, t, key, slot, greatest(t0, slot) as a, least(t1, slot + ${HALF_HOUR}) as b, t0, t1, delta, reset, plausible
  from cd cross join lateral generate_series(date_bin(${HALF_HOUR}, t0, ${SLOT_ORIGIN}),
                                             date_bin(${HALF_HOUR}, t1 - '1 microsecond'::interval, ${SLOT_ORIGIN}),
                                             ${HALF_HOUR}) as slot
)
select w, key, slot,
       sum(delta * date_part('epoch', b - a) / date_part('epoch', t1 - t0))::float8 as kwh,
       coalesce(sum(date_part('epoch', b - a)) filter (where plausible), 0)::float8 as covered_s,
       count(*) filter (where reset and b = t1)::int as resets
from pieces where b > a and slot >= f and slot < t
group by w, key, slot
order by 1, 2, 3`;
const COUNTER_HALF_HOURS = { each: counterHalfHoursSql(EACH), common: counterHalfHoursSql(COMMON) };

// For each pending span (an asset's new samples from f to t), the newest energy sample before f and
// the oldest after t that a segment could join to the span: per stream (power, each counter key)
// that has a sample in the span (a stream without one has no new sample, so its segments stand),
// within that stream's gap, the earliest before and the latest after. A new sample changes only
// the segments to its neighbours, so the half hours from the one before to the one after are all
// it can change (decision 0491). Whether a stream has a sample in the span is asked once per span
// and stream (the lateral rows' `where exists`), and both neighbours are read only when it does.
const SPAN_NEIGHBOURS = prepared(`
select a.i::int as i, least(p.before, c.before) as before, greatest(p.after, c.after) as after
from unnest($2::text[], $3::timestamptz[], $4::timestamptz[]) with ordinality as a(aid, f, t, i)
left join lateral (
  select (select max(ts) from telemetry where org_id = $1 and asset_id = a.aid and ts < a.f and ts >= a.f - $5::interval and ${POWER_SAMPLE}) as before,
         (select min(ts) from telemetry where org_id = $1 and asset_id = a.aid and ts > a.t and ts <= a.t + $5::interval and ${POWER_SAMPLE}) as after
  where exists (select 1 from telemetry where org_id = $1 and asset_id = a.aid and ts >= a.f and ts <= a.t and ${POWER_SAMPLE})
) p on true
cross join lateral (
  select min((select max(ts) from telemetry where org_id = $1 and asset_id = a.aid and ts < a.f and ts >= a.f - $6::interval and ${COUNTER_SAMPLE})) as before,
         max((select min(ts) from telemetry where org_id = $1 and asset_id = a.aid and ts > a.t and ts <= a.t + $6::interval and ${COUNTER_SAMPLE})) as after
  from unnest($7::text[]) as k(key)
  where exists (select 1 from telemetry where org_id = $1 and asset_id = a.aid and ts >= a.f and ts <= a.t and ${COUNTER_SAMPLE})
) c
order by a.i`);

export interface ReadingRow {
  id: number;
  asset_id: string;
  ts: string;
  received_at: string;
  power_kw: number | null;
  soc_pct: number | null;
  anomalies: string[];
  raw: Record<string, unknown>;
}

function windowParams(orgId: string, windows: readonly EnergyWindow[]): unknown[] {
  return [orgId, windows.map((x) => x.asset_id), windows.map((x) => x.from), windows.map((x) => x.to)];
}

/** A common window's rows (keyed by asset id) with `asset_id`, and `w` its first index in `assetIds`. */
function byAssetId<T extends { w: string; slot: Date | string }>(
  assetIds: readonly string[],
  rows: T[],
): (Omit<T, 'w'> & { w: number; asset_id: string; slot: Date })[] {
  const index = new Map<string, number>();
  assetIds.forEach((id, i) => index.has(id) || index.set(id, i));
  return rows.map((x) => ({ ...x, asset_id: x.w, w: index.get(x.w)!, slot: new Date(x.slot) }));
}

export function createEnergyReads(db: Queryable) {
  /** Power half hours of each window (an asset over its own [from, to)), in window then slot order. */
  async function powerHalfHoursIn(orgId: string, windows: readonly EnergyWindow[], gapSeconds: number): Promise<PowerHalfHour[]> {
    if (!windows.length) return [];
    const r = await db.query<Omit<PowerHalfHour, 'asset_id'>>(POWER_HALF_HOURS.each, [...windowParams(orgId, windows), `${gapSeconds} seconds`]);
    return r.rows.map((x) => ({ ...x, w: x.w - 1, asset_id: windows[x.w - 1]!.asset_id, slot: new Date(x.slot) }));
  }
  /** Counter half hours of the keys in each window, in window, key then slot order. */
  async function counterHalfHoursIn(orgId: string, windows: readonly EnergyWindow[], gapSeconds: number, keys: string[]): Promise<CounterHalfHour[]> {
    if (!windows.length || !keys.length) return [];
    const r = await db.query<Omit<CounterHalfHour, 'asset_id'>>(COUNTER_HALF_HOURS.each, [
      ...windowParams(orgId, windows),
      `${gapSeconds} seconds`,
      keys,
      ENERGY_RATE_BOUND_KW,
    ]);
    return r.rows.map((x) => ({ ...x, w: x.w - 1, asset_id: windows[x.w - 1]!.asset_id, slot: new Date(x.slot) }));
  }
  return {
    powerHalfHoursIn,
    counterHalfHoursIn,
    /** Power half hours of the assets over one common [from, to), in asset then slot order (`w`: the asset's index in `assetIds`). */
    async powerHalfHours(orgId: string, assetIds: string[], from: Date, to: Date, gapSeconds: number): Promise<PowerHalfHour[]> {
      if (!assetIds.length) return [];
      const r = await db.query<Omit<PowerHalfHour, 'asset_id' | 'w'> & { w: string }>(POWER_HALF_HOURS.common, [
        orgId,
        assetIds,
        from,
        to,
        `${gapSeconds} seconds`,
      ]);
      return byAssetId(assetIds, r.rows);
    },
    /** Counter half hours of the assets over one common [from, to), in asset, key then slot order. */
    async counterHalfHours(orgId: string, assetIds: string[], from: Date, to: Date, gapSeconds: number, keys: string[]): Promise<CounterHalfHour[]> {
      if (!assetIds.length || !keys.length) return [];
      const r = await db.query<Omit<CounterHalfHour, 'asset_id' | 'w'> & { w: string }>(COUNTER_HALF_HOURS.common, [
        orgId,
        assetIds,
        from,
        to,
        `${gapSeconds} seconds`,
        keys,
        ENERGY_RATE_BOUND_KW,
      ]);
      return byAssetId(assetIds, r.rows);
    },
    /**
     * The energy samples that bound what new samples can change: for each span, the newest sample
     * before `from` and the oldest after `to` that one of its segments reaches (null: none within
     * the gap). Answers in the spans' order.
     */
    async spanNeighbours(
      orgId: string,
      spans: { asset_id: string; from: Date; to: Date }[],
      gaps: { powerSeconds: number; counterSeconds: number },
      keys: string[],
    ): Promise<{ before: Date | null; after: Date | null }[]> {
      if (!spans.length) return [];
      const r = await db.query<{ i: number; before: Date | string | null; after: Date | string | null }>(SPAN_NEIGHBOURS, [
        orgId,
        spans.map((s) => s.asset_id),
        spans.map((s) => s.from),
        spans.map((s) => s.to),
        `${gaps.powerSeconds} seconds`,
        `${gaps.counterSeconds} seconds`,
        keys,
      ]);
      return r.rows.map((x) => ({ before: x.before === null ? null : new Date(x.before), after: x.after === null ? null : new Date(x.after) }));
    },
    /** Earliest and latest placeable ts of each asset that has records (index ends, no scan). */
    async extent(orgId: string, assetIds: string[]): Promise<{ asset_id: string; first: Date; last: Date }[]> {
      if (!assetIds.length) return [];
      const r = await db.query<{ asset_id: string; first: Date | null; last: Date | null }>(
        `select a.asset_id,
                (select min(ts) from telemetry t where t.org_id = $1 and t.asset_id = a.asset_id and ${trustedTsSql('t')}) as first,
                (select max(ts) from telemetry t where t.org_id = $1 and t.asset_id = a.asset_id and ${trustedTsSql('t')}) as last
         from unnest($2::text[]) as a(asset_id)`,
        [orgId, assetIds],
      );
      return r.rows.filter((x) => x.first && x.last).map((x) => ({ asset_id: x.asset_id, first: new Date(x.first!), last: new Date(x.last!) }));
    },
    /** Stored records of the assets with from <= ts < to, in ts order (at most `limit`). */
    async readings(orgId: string, assetIds: string[], from: Date, to: Date, limit: number): Promise<ReadingRow[]> {
      if (!assetIds.length) return [];
      const r = await db.query<ReadingRow>(
        `select id, asset_id, ${iso('ts')} as ts, ${iso('received_at')} as received_at, power_kw, soc_pct, anomalies, raw
         from telemetry where org_id = $1 and asset_id = any($2::text[]) and ts >= $3 and ts < $4 and ${trustedTsSql()}
         order by ts, id limit $5`,
        [orgId, assetIds, from, to, limit],
      );
      return r.rows.map((x) => ({ ...x, id: Number(x.id) }));
    },
    /** The newest record of each asset (telemetry_latest). */
    async latest(
      orgId: string,
      assetIds: string[],
    ): Promise<{ asset_id: string; ts: string; power_kw: number | null; soc_pct: number | null; raw: Record<string, unknown> }[]> {
      if (!assetIds.length) return [];
      const r = await db.query<{ asset_id: string; ts: string; power_kw: number | null; soc_pct: number | null; raw: Record<string, unknown> }>(
        `select asset_id, ${iso('ts')} as ts, power_kw, soc_pct, raw from telemetry_latest where org_id = $1 and asset_id = any($2::text[]) order by asset_id`,
        [orgId, assetIds],
      );
      return r.rows;
    },
  };
}

// ---- Export (the module declares them in its manifest: ModuleDefinition.exportable) --------------------------------
// (Imported here, in the export section, to keep this module's write path untouched.)
import { sqlExportable } from '../../platform/exportable.ts';

/** Stored records in (received_at, id) order, each written as JSON text by the database (decision 0206). */
export const telemetryExportable = sqlExportable({
  name: 'telemetry.readings',
  description:
    'Every stored telemetry record of the organisation: asset, timestamps, power, state of charge, voltage, current, temperature, status, anomalies and the raw record.',
  table: 'telemetry',
  columns: [
    'id:text',
    'asset_id',
    'ts:iso',
    'received_at:iso',
    'power_kw',
    'soc_pct',
    'voltage',
    'current',
    'temp_c',
    'status',
    'run_id',
    'intent_id',
    'anomalies',
    'raw',
  ],
  period: 'ts',
  key: ['received_at:timestamptz', 'id:bigint'],
});
