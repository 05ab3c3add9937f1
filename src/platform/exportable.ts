// A module's table offered to the organisation's data export (decision 0206), built from a
// declaration its store makes: the table, each member's SQL expression, the keyset order and the
// period column. The rows become JSON Lines text in the database (row_to_json over the members, a
// chunk as one string_agg), so a chunk crosses the wire as one text value and no row is ever a
// JavaScript object. Every query filters on `org_id = $1` and runs in the caller's organisation
// scope (row-level security), so only that organisation's rows can be read. Mechanism only: the
// owning module's store names its table and columns; the export module never does.
import type { Queryable } from '../infra/db/index.ts';

export interface ExportPeriod {
  from: Date | null;
  to: Date | null;
}

/** One chunk of a collection: JSON Lines (each line ends with \n), its row count and the key of its last row. */
export interface ExportLines {
  body: string;
  rows: number;
  last: string | null;
}

export interface ExportableCollection {
  /** `<module>.<collection>`, unique. */
  name: string;
  description: string;
  /** The members of each row, in CSV column order. */
  columns: readonly string[];
  /** The time the period filters on. */
  periodColumn: string;
  count(q: Queryable, orgId: string, period: ExportPeriod): Promise<number>;
  /**
   * The next rows after `after` (the key of the last row written; null from the start) in a stable
   * key order, at most `limit`, as JSON Lines text; `last` is the key of the last row returned.
   */
  lines(q: Queryable, orgId: string, period: ExportPeriod, after: string | null, limit: number): Promise<ExportLines>;
  /**
   * The same chunk handed to `sink` inside the database: the sink wraps the chunk's query (one row:
   * body, rows, last) into a statement of the caller's that stores it, so the text never crosses to
   * the service. Answers the row count, the last key and the body's size in bytes.
   */
  writeLines?(
    q: Queryable,
    orgId: string,
    period: ExportPeriod,
    after: string | null,
    limit: number,
    sink: ExportSink,
  ): Promise<{ rows: number; last: string | null; bytes: number }>;
}

/**
 * Wraps a chunk's query (`partsSql`, a SELECT of the chunk's parts in order: part from 0, body,
 * rows, and last, the chunk's last key, on every part; its parameters are the first `paramCount`)
 * into one statement that stores the parts and selects rows, last and bytes of the whole chunk.
 */
export type ExportSink = (partsSql: string, paramCount: number) => { sql: string; params: unknown[] };

/** Rows a part of a chunk holds: small enough that a part's text stays out of V8's large-object space. */
export const EXPORT_PART_ROWS = 200;

export interface SqlExportableSpec {
  name: string;
  description: string;
  /** The owning module's table (its rows carry `org_id`), or the alias of `from`. */
  table: string;
  /** A derived relation (a subquery with the alias `table`) when the rows are not a table's own. */
  from?: string;
  /**
   * The members, each a column of `table` written as `name` (as stored), `name:iso` (an instant),
   * `name:day` (a date) or `name:text` (bigint ids, decimals: the exact text).
   */
  columns: readonly string[];
  /** The column the export's period filters on (stored as it is, shown as its member). */
  period: string;
  /** A unique order of the organisation's rows: columns of `table` with their SQL types (`id:bigint`), to read a key back. */
  key: readonly string[];
}

/** An instant as JavaScript writes it: UTC, milliseconds, `Z`. */
export const iso = (expr: string) => `to_char((${expr}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** A calendar date as `YYYY-MM-DD`. */
export const day = (expr: string) => `to_char(${expr}, 'YYYY-MM-DD')`;
/** A decimal (money, energy) as its exact text, never a float. */
export const decimalText = (expr: string) => `(${expr})::text`;

const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;

export function sqlExportable(spec: SqlExportableSpec): ExportableCollection {
  const t = spec.table;
  const from = spec.from ?? t;
  const column = (n: string) => `${t}.${ident(n)}`;
  const members = columnsOf(t, spec.columns)
    .map(([n, e]) => `${e} as ${ident(n)}`)
    .join(', ');
  const keyColumns = spec.key.map((k) => {
    const [n, type] = k.split(':');
    return [column(n), type] as const;
  });
  const periodColumn = column(spec.period);
  const keys = keyColumns.map(([e], i) => `${e} as k${i}`).join(', ');
  const order = keyColumns.map(([e]) => e).join(', ');
  const kOrder = keyColumns.map((_, i) => `k${i}`).join(', ');
  const kDesc = keyColumns.map((_, i) => `k${i} desc`).join(', ');
  const kText = keyColumns.map((_, i) => `k${i}::text`).join(', ');
  const periodWhere = (p: ExportPeriod, params: unknown[]) => {
    let w = '';
    if (p.from) {
      params.push(p.from);
      w += ` and ${periodColumn} >= $${params.length}`;
    }
    if (p.to) {
      params.push(p.to);
      w += ` and ${periodColumn} < $${params.length}`;
    }
    return w;
  };
  /** One chunk: a SELECT of one row (body, rows, last). */
  const chunkQuery = (orgId: string, p: ExportPeriod, after: string | null, limit: number, parts = false) => {
    const params: unknown[] = [orgId];
    let w = periodWhere(p, params);
    if (after !== null) {
      const k = JSON.parse(after) as string[];
      const at = params.length;
      params.push(...k);
      w += ` and (${order}) > (${keyColumns.map(([, type], i) => `$${at + i + 1}::${type}`).join(', ')})`;
    }
    params.push(limit);
    if (parts) {
      return {
        sql: `with page as (
           select row_to_json(m)::text as line, ${keys}, row_number() over (order by ${order}) - 1 as n
           from ${from} cross join lateral (select ${members}) m
           where ${t}.org_id = $1${w} order by ${order} limit $${params.length}
         )
         select (n / ${EXPORT_PART_ROWS})::int as part, string_agg(line, E'\\n' order by n) || E'\\n' as body, count(*)::int as rows,
                (select json_build_array(${kText})::text from (select ${kOrder} from page order by n desc limit 1) l) as last
         from page group by n / ${EXPORT_PART_ROWS} order by 1`,
        params,
      };
    }
    const sql = `with page as (
           select row_to_json(m)::text as line, ${keys}
           from ${from} cross join lateral (select ${members}) m
           where ${t}.org_id = $1${w} order by ${order} limit $${params.length}
         )
         select coalesce(string_agg(line, E'\\n' order by ${kOrder}) || E'\\n', '') as body, count(*)::int as rows,
                (select json_build_array(${kText})::text from (select ${kOrder} from page order by ${kDesc} limit 1) l) as last
         from page`;
    return { sql, params };
  };
  return {
    name: spec.name,
    description: spec.description,
    columns: spec.columns.map((c) => c.split(':')[0]),
    periodColumn: spec.period,
    async count(q, orgId, p) {
      const params: unknown[] = [orgId];
      const r = await q.query<{ n: number }>(`select count(*)::int as n from ${from} where ${t}.org_id = $1${periodWhere(p, params)}`, params);
      return r.rows[0].n;
    },
    async lines(q, orgId, p, after, limit) {
      const { sql, params } = chunkQuery(orgId, p, after, limit);
      const r = await q.query<ExportLines>(sql, params);
      return r.rows[0];
    },
    async writeLines(q, orgId, p, after, limit, sink) {
      const page = chunkQuery(orgId, p, after, limit, true);
      const w = sink(page.sql, page.params.length);
      const r = await q.query<{ rows: number; last: string | null; bytes: number }>(w.sql, [...page.params, ...w.params]);
      return r.rows[0];
    },
  };
}

/** Members from column names of one table (SqlExportableSpec.columns). */
function columnsOf(table: string, names: readonly string[]): [string, string][] {
  return names.map((spec) => {
    const [n, kind] = spec.split(':');
    const col = `${table}.${ident(n)}`;
    return [n, kind === 'iso' ? iso(col) : kind === 'day' ? day(col) : kind === 'text' ? decimalText(col) : col];
  });
}
