// A stored row as the live stream carries it, and a batch of them as JSON text made once
// (decision 0254): the same text is the insert statement's one parameter (decoded in SQL by
// jsonb_to_recordset, decision 0370) and, wrapped, the message published after commit. One JSON.stringify per batch
// instead of a text literal per column and value plus each record's raw JSON on its own.
import { readingValuesOf, type CanonicalRow, type ReadingValues } from './normalise.ts';

export interface LiveRecord extends ReadingValues {
  asset_id: string;
  ts: string;
  run_id: string | null;
  intent_id: string | null;
  anomalies: string[];
  raw: Record<string, unknown>;
}

export function liveRecord(r: CanonicalRow): LiveRecord {
  return {
    asset_id: r.asset_id,
    ts: r.ts,
    ...readingValuesOf(r),
    run_id: r.run_id,
    intent_id: r.intent_id,
    anomalies: r.anomalies,
    raw: r.raw,
  };
}

/** The rows as a JSON array of live records, in order. */
export function recordsJson(rows: readonly CanonicalRow[]): string {
  const out = new Array<LiveRecord>(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = liveRecord(rows[i]);
  return JSON.stringify(out);
}

/** Characters of a live record's JSON outside its values: keys, quotes around them, colons, commas, braces. */
const KEYS_CHARS = (() => {
  const keys: (keyof LiveRecord)[] = [
    'asset_id',
    'ts',
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
  ];
  return keys.reduce((n, k) => n + k.length + 3, 0) + (keys.length - 1) + 2;
})();

/**
 * An upper bound of the summed length of the rows' raw JSON, from `json` (recordsJson(rows)): its
 * length less what each record's other members take at the least (a string value its characters
 * and two quotes, a number one character, null four, anomalies two).
 */
export function rawJsonBound(rows: readonly CanonicalRow[], json: string): number {
  let others = 2 + Math.max(rows.length - 1, 0);
  for (const r of rows) {
    others +=
      KEYS_CHARS +
      r.asset_id.length +
      2 +
      r.ts.length +
      2 +
      5 +
      r.status.length +
      2 +
      (r.run_id === null ? 4 : r.run_id.length + 2) +
      (r.intent_id === null ? 4 : r.intent_id.length + 2) +
      2;
  }
  return json.length - others;
}
