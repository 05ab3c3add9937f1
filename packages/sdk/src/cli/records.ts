// Reading a CSV or JSON Lines file as telemetry records: column mapping, numbers from CSV text,
// empty cells left out. Records are numbered from 0 in file order (the checkpoint counts them).
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import type { TelemetryRecord } from '../ingest.ts';

/** Fields whose CSV text stays text; any other cell that reads as a number is sent as one. */
const TEXT_FIELDS = new Set(['asset_id', 'device_id', 'ts', 'status', 'tenant_id', 'run_id', 'intent_id']);
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** `asset_id=device,ts=time`: field name in the record = column (or JSON key) in the file. */
export function parseMapping(spec: string | undefined): Map<string, string> {
  const map = new Map<string, string>();
  if (!spec) return map;
  for (const part of spec.split(',')) {
    const [target, source] = part.split('=').map((s) => s?.trim());
    if (!target || !source) throw new Error(`--map: "${part}" is not target=source`);
    map.set(source, target);
  }
  return map;
}

function mapped(row: Record<string, unknown>, map: Map<string, string>, fromCsv: boolean): TelemetryRecord {
  const out: TelemetryRecord = {};
  for (const [k, v] of Object.entries(row)) {
    const key = map.get(k) ?? k;
    if (fromCsv) {
      if (v === '' || v === undefined) continue;
      out[key] = !TEXT_FIELDS.has(key) && typeof v === 'string' && NUMBER.test(v) ? Number(v) : v;
    } else out[key] = v;
  }
  return out;
}

export type Format = 'csv' | 'jsonl';

export function formatOf(path: string, given?: string): Format {
  if (given === 'csv' || given === 'jsonl') return given;
  if (given) throw new Error(`--format must be csv or jsonl, not ${given}`);
  return /\.(jsonl|ndjson)$/i.test(path) ? 'jsonl' : 'csv';
}

/** The file's records with the bytes read so far (for a progress bar by size). */
export async function* readRecords(path: string, format: Format, map: Map<string, string>, onBytes?: (bytes: number) => void): AsyncGenerator<TelemetryRecord> {
  const stream = createReadStream(path);
  let bytes = 0;
  stream.on('data', (chunk) => {
    bytes += chunk.length;
    onBytes?.(bytes);
  });
  if (format === 'csv') {
    const parser = stream.pipe(parse({ columns: true, bom: true, skip_empty_lines: true, trim: true }));
    for await (const row of parser) yield mapped(row as Record<string, string>, map, true);
    return;
  }
  let line = 0;
  for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
    line++;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new Error(`${path}:${line}: not JSON`);
    }
    // A line that is not an object is sent as is: the service rejects it (not_an_object) and the summary counts it.
    yield value && typeof value === 'object' && !Array.isArray(value) ? mapped(value as Record<string, unknown>, map, false) : (value as TelemetryRecord);
  }
}
