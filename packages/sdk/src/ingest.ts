// Ingestion helpers: split any number of records into batches of a chosen size, send them one
// after another, and report every record's outcome with its index in the whole input.
import { ApiError, type RecordResult } from './errors.ts';
import type { Transport } from './transport.ts';

/** A telemetry record (docs/telemetry.md): asset_id or device_id, ts, measurements, anything else. */
export type TelemetryRecord = Record<string, unknown>;

export interface IngestOptions {
  /** Records per request (default 500; the service's sweet spot is 100 to 1,000). */
  batchSize?: number;
  /** Stops between batches when aborted (the batch in flight finishes). */
  signal?: AbortSignal;
}

/** One batch's answer; indexes in `results` are positions in the whole input. */
export interface BatchOutcome {
  /** Position of the batch's first record in the whole input. */
  offset: number;
  size: number;
  stored: number;
  rejected: number;
  duplicates: number;
  /** One entry per record of the batch, in order. */
  results: RecordResult[];
  requestId: string | undefined;
}

export interface IngestReport {
  count: number;
  stored: number;
  rejected: number;
  duplicates: number;
  batches: number;
  /** Rejected records by reason, e.g. {missing_ts: 3}. */
  rejectionsByReason: Record<string, number>;
  /** Every record's outcome, in input order. */
  results: RecordResult[];
}

async function* inBatches<T>(records: Iterable<T> | AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for await (const r of records) {
    batch.push(r);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

function outcome(offset: number, batch: unknown[], body: any, requestId: string | undefined): BatchOutcome {
  // 200 has no results (every record stored); 207 and 422 list every record.
  const results: RecordResult[] = Array.isArray(body.results)
    ? (body.results as RecordResult[]).map((r) => ({
        ...r,
        index: r.index + offset,
        ...(r.duplicate_of !== undefined && { duplicate_of: r.duplicate_of + offset }),
      }))
    : batch.map((_, i) => ({ index: offset + i, status: 'stored' as const }));
  return { offset, size: batch.length, stored: body.stored ?? 0, rejected: body.rejected ?? 0, duplicates: body.duplicates ?? 0, results, requestId };
}

/** Sends the records in batches, yielding each batch's outcome. Refusals other than "every record rejected" throw ApiError. */
export async function* ingestBatches(
  transport: Transport,
  records: Iterable<TelemetryRecord> | AsyncIterable<TelemetryRecord>,
  opts: IngestOptions = {},
): AsyncGenerator<BatchOutcome> {
  const size = opts.batchSize ?? 500;
  if (!Number.isInteger(size) || size < 1) throw new RangeError('batchSize must be a positive integer');
  let offset = 0;
  for await (const batch of inBatches(records, size)) {
    if (opts.signal?.aborted) return;
    const req = new Request(`${transport.baseUrl}/api/telemetry/ingest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(batch),
    });
    let result: BatchOutcome;
    try {
      // A 429 is refused before the batch is looked at, so it is safe to send again; a 503 is not
      // retried here (the records may have reached the live stream): the error says so.
      const res = await transport.send(req, { retryRateLimitedWrites: true });
      result = outcome(offset, batch, await res.json(), res.headers.get('x-request-id') ?? undefined);
    } catch (e) {
      if (e instanceof ApiError && e.status === 422 && e.detail === 'all_records_rejected') {
        result = outcome(offset, batch, e.body, e.requestId);
      } else throw e;
    }
    offset += batch.length;
    yield result;
  }
}

/** Sends every record and gathers the outcomes. */
export async function ingestAll(
  transport: Transport,
  records: Iterable<TelemetryRecord> | AsyncIterable<TelemetryRecord>,
  opts: IngestOptions = {},
): Promise<IngestReport> {
  const report: IngestReport = { count: 0, stored: 0, rejected: 0, duplicates: 0, batches: 0, rejectionsByReason: {}, results: [] };
  for await (const b of ingestBatches(transport, records, opts)) {
    report.batches++;
    report.count += b.size;
    report.stored += b.stored;
    report.rejected += b.rejected;
    report.duplicates += b.duplicates;
    for (const r of b.results) {
      report.results.push(r);
      if (r.status === 'rejected') report.rejectionsByReason[r.reason ?? 'unknown'] = (report.rejectionsByReason[r.reason ?? 'unknown'] ?? 0) + 1;
    }
  }
  return report;
}
