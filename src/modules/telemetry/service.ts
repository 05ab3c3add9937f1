// Telemetry rules: ingestion (validate, deduplicate, store in one transaction, stream after
// commit), the live window and history reads. Services decide; routes answer; store.ts queries.
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Bus } from '../../infra/bus/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { errors, fieldError } from '../../platform/errors.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import { canonicalJson } from '../../kit/canonical-json.ts';
import { isPlainObject, namedAsset, normaliseRecord, type CanonicalRow, type RecordProblem } from './normalise.ts';
import { createTelemetryStore, type LiveEvent } from './store.ts';
import { liveRecord, rawJsonBound, recordsJson } from './live-records.ts';
import { JsonText } from '../../infra/bus/index.ts';
import { ASSET_METRICS, RANGES, defaultMetric, findMetric } from './metrics.ts';
import { telemetryErrors } from './errors.ts';
import type { AnomalyEntry, IngestCounts, ResultEntry } from './outcome.ts';

export type { AnomalyEntry, IngestCounts, ResultEntry } from './outcome.ts';

/** One record judged by the ingestion rules: accepted (with its canonical row) or rejected. */
export type JudgedRecord =
  | { index: number; ok: true; row: CanonicalRow; asset_id: string; ts: string; anomalies: string[] }
  | { index: number; ok: false; field: string | null; reason: string; message: string; errors: RecordProblem[] };

/** One ingestion body judged, before it is stored. */
interface JudgedBatch {
  base: { count: number; accepted: number; rejected: number; duplicates: number; anomalies: AnomalyEntry[] };
  rows: CanonicalRow[];
  results: ResultEntry[];
  /** Some records were rejected or duplicated: the answer lists every record's result (207). */
  partial: boolean;
}

export interface IngestOutcome extends IngestCounts {
  /** 200 when every record was stored, 207 when some were rejected or duplicated. */
  httpStatus: 200 | 207;
}

/** Largest bus message we build, in bytes of record JSON (NATS refuses messages over 1 MB). */
const STREAM_CHUNK_BYTES = 256 * 1024;

/**
 * The live stream across a bus failover (decision 0488): a batch's publish refused while the bus
 * moves (a NATS node lost, its stream's leader elected again, the client moving to another server)
 * is tried again until LIVE_RETRY_MS after ingestion. The ingestion answer waits for it at most
 * LIVE_ANSWER_WAIT_MS, the publish timeout it always waited (not at all while the bus is
 * disconnected), and counts in `streamed` what the bus had accepted by then; the tries go on after it.
 */
export const LIVE_ANSWER_WAIT_MS = 2000;
export const LIVE_RETRY_MS = 30_000;

export const LIVE_WINDOW_HOURS = 24;

export interface TelemetryServiceDeps {
  db: Db;
  /** History reads, which tolerate a little lag: the read replica when there is one (decision 0250). */
  readDb?: Queryable;
  bus: Bus;
  clock: Clock;
  /** Counts stored records (telemetry_ingest_total). */
  onStored: (n: number) => void;
  /** Counts each record refused by the record rules, by its first problem's reason. */
  onRejected?: (reason: string) => void;
  log: FastifyBaseLogger;
  /** TELEMETRY_RETENTION_DAYS: records older than this are refused (0 or absent: none). */
  retentionDays?: number;
  /** The organisation's days whose rollup could not be sealed (decision 0285): history reads them from the samples. */
  unsealedDays?: (orgId: string) => Promise<string[]>;
}

/** What a batch touched, per asset: the earliest and latest placeable ts (epoch ms). */
export interface TouchedRange {
  asset_id: string;
  from: number;
  to: number;
}

/**
 * A statement another module runs as part of every batch's own statement (decision 0476): the body
 * of a data-modifying CTE (an INSERT) over `touched (asset_id text, from_ts timestamptz, to_ts
 * timestamptz)`, one row an asset the batch touched (its earliest and latest placeable ts), and `$1`,
 * the organisation. A derived store kept by another module (the energy rollup) records its pending
 * work in the batch's transaction, so a stored record is never missed by it, and in the batch's own
 * round trip to the store, so it costs no statement of its own.
 */
export type BatchStatement = string;

/** Per asset, the span of the rows' placeable timestamps (rows flagged ts_in_future are left out). */
export function touchedRanges(rows: readonly CanonicalRow[]): TouchedRange[] {
  const by = new Map<string, TouchedRange>();
  for (const r of rows) {
    if (r.anomalies.includes('ts_in_future')) continue;
    // tsMs is Date.parse(ts) (ts is the rules' ISO text; both floor to the millisecond).
    const t = r.tsMs;
    const cur = by.get(r.asset_id);
    if (!cur) by.set(r.asset_id, { asset_id: r.asset_id, from: t, to: t });
    else {
      if (t < cur.from) cur.from = t;
      if (t > cur.to) cur.to = t;
    }
  }
  return [...by.values()];
}

export function createTelemetryService(deps: TelemetryServiceDeps) {
  const { db, bus, clock, log } = deps;
  const reads = createTelemetryStore(db);
  const lagTolerant = createTelemetryStore(deps.readDb ?? db);
  const batchStatements: BatchStatement[] = [];

  /** Writes a batch, with the other modules' batch statements, in the caller's transaction. */
  async function writeBatch(q: Queryable, orgId: string, receivedAt: Date, rows: CanonicalRow[], json?: string): Promise<void> {
    await createTelemetryStore(q).insertBatch(
      orgId,
      receivedAt,
      rows,
      json,
      batchStatements.length ? { statements: batchStatements, touched: touchedRanges(rows) } : undefined,
    );
  }

  /**
   * Publishes after commit (or instead of it when the store is down). Returns records published.
   * `json` is recordsJson(rows) when the caller has it: when the chunking below would keep the batch
   * in one message, that message is `json` wrapped, the same text JSON.stringify would make of it.
   */
  async function stream(orgId: string, receivedAt: Date, rows: CanonicalRow[], stored: boolean, json?: string): Promise<number> {
    return (await streamRanges(orgId, receivedAt, rows, stored, json)).reduce((n, [a, b]) => n + b - a, 0);
  }

  /** `stream`, telling which rows were published: [start, end) ranges of `rows`. */
  async function streamRanges(orgId: string, receivedAt: Date, rows: CanonicalRow[], stored: boolean, json?: string): Promise<[number, number][]> {
    if (rows.length === 0) return [];
    if (json !== undefined && rawJsonBound(rows, json) + 256 * rows.length <= STREAM_CHUNK_BYTES) {
      const head = `{"org_id":${JSON.stringify(orgId)},"received_at":${JSON.stringify(receivedAt.toISOString())},"stored":${stored},"records":`;
      return (await publishLive(orgId, new JsonText(head, json, '}'), rows.length)) ? [[0, rows.length]] : [];
    }
    const chunks: CanonicalRow[][] = [];
    let current: CanonicalRow[] = [];
    let bytes = 0;
    for (const row of rows) {
      const size = rawJson(row).length + 256;
      if (current.length > 0 && bytes + size > STREAM_CHUNK_BYTES) {
        chunks.push(current);
        current = [];
        bytes = 0;
      }
      current.push(row);
      bytes += size;
    }
    chunks.push(current);
    const received_at = receivedAt.toISOString();
    const accepted = await Promise.all(
      chunks.map((chunk) => publishLive(orgId, { org_id: orgId, received_at, stored, records: chunk.map(liveRecord) }, chunk.length)),
    );
    const streamed: [number, number][] = [];
    let at = 0;
    accepted.forEach((ok, i) => {
      if (ok) streamed.push([at, at + chunks[i].length]);
      at += chunks[i].length;
    });
    return streamed;
  }

  /** One live-stream message, tried again across a bus failover: true when accepted within the answer's wait. */
  async function publishLive(orgId: string, payload: unknown, records: number): Promise<boolean> {
    try {
      const p = await bus.publishRetrying(`telemetry.${orgId}`, payload, { waitMs: LIVE_ANSWER_WAIT_MS, retryForMs: LIVE_RETRY_MS });
      if (!p.accepted) {
        log.warn({ orgId, records }, 'telemetry: live stream publish not accepted yet; tried again in the background');
        void p.settled.then((ok) => {
          if (ok) log.info({ orgId, records }, 'telemetry: live stream publish accepted after the answer');
          else log.warn({ orgId, records, retryForMs: LIVE_RETRY_MS }, 'telemetry: live stream publish given up; the records are not streamed');
        });
      }
      return p.accepted;
    } catch (e) {
      log.warn({ err: e, orgId }, 'telemetry: live stream publish failed');
      return false;
    }
  }

  /**
   * One ingestion body judged by the rules (HTTP's and device MQTT's): its records' results,
   * anomalies and accepted rows. Throws what HTTP answers for the whole body: an empty list (422),
   * a record of another organisation (403), every record rejected (422).
   */
  async function judgeBatch(ctx: RequestContext, body: unknown, nowMs: number): Promise<JudgedBatch> {
    const orgId = ctx.orgId;
    const records: unknown[] = Array.isArray(body) ? body : [body];
    if (records.length === 0) {
      throw errors.validation([fieldError(['body'], 'List should have at least 1 item', [], 'too_short')]);
    }
    // A record naming another organisation refuses the whole batch before anything is looked at.
    for (let i = 0; i < records.length; i++) {
      const r = records[i];
      if (isPlainObject(r) && r.tenant_id !== undefined && r.tenant_id !== null && r.tenant_id !== orgId) {
        throw telemetryErrors.crossTenantRecord(i, 'tenant_id');
      }
    }

    // A device credential writes only its own site's devices (decision 0375): the others are rejected one by one.
    const refused = ctx.actor.kind === 'device' ? await ctx.actor.refusals([...new Set(records.flatMap((r) => namedAsset(r) ?? []))]) : undefined;

    const results: ResultEntry[] = new Array(records.length);
    const anomalies: AnomalyEntry[] = [];
    const rows: CanonicalRow[] = [];
    // Exact copies share asset_id and ts text; only those candidates are compared in full. The
    // first record of each key is kept as its index alone: most batches have no shared key.
    const firstOfKey = new Map<string, number>();
    let sharedKeys: Map<string, { index: number; canonical?: string }[]> | undefined;
    let rejected = 0;
    let duplicates = 0;
    for (let i = 0; i < records.length; i++) {
      const n = normaliseRecord(records[i], nowMs, { retentionDays: deps.retentionDays });
      const refusal = n.ok ? refused?.get(n.row.asset_id) : undefined;
      if (refusal) {
        rejected++;
        deps.onRejected?.(refusal.reason);
        const rec = records[i];
        const field = isPlainObject(rec) && rec.asset_id !== undefined && rec.asset_id !== null ? 'asset_id' : 'device_id';
        const errors = [{ field, reason: refusal.reason, message: refusal.message }];
        results[i] = { index: i, status: 'rejected', field, reason: refusal.reason, message: refusal.message, errors };
        continue;
      }
      if (!n.ok) {
        rejected++;
        const first = n.problems[0];
        deps.onRejected?.(first.reason);
        results[i] = { index: i, status: 'rejected', field: first.field, reason: first.reason, message: first.message, errors: n.problems };
        continue;
      }
      const key = `${n.row.asset_id}\u0000${String(n.row.raw.ts)}`;
      const first = firstOfKey.get(key);
      if (first === undefined) firstOfKey.set(key, i);
      else {
        sharedKeys ??= new Map();
        let candidates = sharedKeys.get(key);
        if (!candidates) sharedKeys.set(key, (candidates = [{ index: first }]));
        const canonical = canonicalJson(n.row.raw);
        const copyOf = candidates.find((c) => (c.canonical ??= canonicalJson(records[c.index])) === canonical);
        if (copyOf) {
          duplicates++;
          results[i] = { index: i, status: 'duplicate', duplicate_of: copyOf.index };
          continue;
        }
        candidates.push({ index: i, canonical });
      }
      rows.push(n.row);
      // A plain stored entry is made only when the answer lists results (below).
      if (n.row.anomalies.length) results[i] = { index: i, status: 'stored', anomalies: n.row.anomalies };
      if (n.row.anomalies.length) anomalies.push({ index: i, asset_id: n.row.asset_id, reasons: n.row.anomalies, record: n.row.raw });
    }

    const base = { count: records.length, accepted: rows.length, rejected, duplicates, anomalies };
    if (rows.length === 0) {
      throw telemetryErrors.allRecordsRejected({ ...base, stored: 0, streamed: 0, anomalies: [], results });
    }
    return { base, rows, results, partial: rejected > 0 || duplicates > 0 };
  }

  /** A judged body's answer once its rows are stored. */
  function outcomeOf(p: JudgedBatch, streamed: number): IngestOutcome {
    if (p.partial) fillStored(p.results);
    return {
      ...p.base,
      stored: p.rows.length,
      streamed,
      ...(p.partial && { results: p.results }),
      httpStatus: p.partial ? 207 : 200,
    };
  }

  async function ingestMany(parts: readonly { ctx: RequestContext; body: unknown }[]): Promise<PromiseSettledResult<IngestOutcome>[]> {
    if (parts.length === 0) return [];
    const orgId = parts[0].ctx.orgId;
    if (parts.some((p) => p.ctx.orgId !== orgId)) throw new Error('ingestMany: one organisation per call');
    const now = clock.now();
    const judged = await Promise.allSettled(parts.map((p) => judgeBatch(p.ctx, p.body, now.getTime())));
    const rows: CanonicalRow[] = [];
    /** Each judged body's rows: [start, end) in `rows`. */
    const spans = judged.map((j) => {
      const start = rows.length;
      if (j.status === 'fulfilled') for (const r of j.value.rows) rows.push(r);
      return [start, rows.length] as const;
    });
    if (rows.length === 0) return judged as PromiseSettledResult<never>[];
    const json = recordsJson(rows);
    let writeError: unknown;
    try {
      await db.tx((q) => writeBatch(q, orgId, now, rows, json));
    } catch (e) {
      writeError = e;
    }
    const stored = writeError === undefined;
    if (!stored && parts.length > 1) {
      // What the store refused may be one body's: each body alone, so it fails alone and the
      // others are stored (nothing of this attempt was streamed yet).
      log.warn({ err: writeError, orgId, bodies: parts.length }, 'telemetry: a batch of several bodies not persisted; each is written alone');
      const alone: PromiseSettledResult<IngestOutcome>[] = [];
      for (const p of parts) alone.push((await ingestMany([p]))[0]);
      return alone;
    }
    if (!stored) log.error({ err: writeError, orgId, records: rows.length, bodies: parts.length }, 'telemetry: batch not persisted');
    else deps.onStored(rows.length);
    const streamedRanges = await streamRanges(orgId, now, rows, stored, json);
    const streamedIn = (from: number, to: number) => streamedRanges.reduce((n, [a, b]) => n + Math.max(0, Math.min(b, to) - Math.max(a, from)), 0);
    return judged.map((j, i): PromiseSettledResult<IngestOutcome> => {
      if (j.status === 'rejected') return j;
      const streamed = streamedIn(spans[i][0], spans[i][1]);
      if (!stored) return { status: 'rejected', reason: telemetryErrors.writerError({ ...j.value.base, stored: 0, streamed }) };
      return { status: 'fulfilled', value: outcomeOf(j.value, streamed) };
    });
  }

  return {
    /** Registers a statement run as part of every batch's own statement (see BatchStatement). */
    onBatchStatement(statement: BatchStatement): void {
      batchStatements.push(statement);
    },

    /**
     * The record rules without storing anything (for modules that write telemetry through
     * TELEMETRY_WRITER): each record accepted with its canonical row and anomalies, or rejected by
     * field and reason. A record naming another organisation refuses the whole batch (403).
     */
    judge(orgId: string, records: readonly unknown[]): JudgedRecord[] {
      for (let i = 0; i < records.length; i++) {
        const r = records[i];
        if (isPlainObject(r) && r.tenant_id !== undefined && r.tenant_id !== null && r.tenant_id !== orgId) {
          throw telemetryErrors.crossTenantRecord(i, 'tenant_id');
        }
      }
      const nowMs = clock.now().getTime();
      return records.map((rec, index) => {
        const n = normaliseRecord(rec, nowMs, { retentionDays: deps.retentionDays });
        if (!n.ok) {
          const first = n.problems[0];
          deps.onRejected?.(first.reason);
          return { index, ok: false as const, field: first.field, reason: first.reason, message: first.message, errors: n.problems };
        }
        return { index, ok: true as const, row: n.row, asset_id: n.row.asset_id, ts: n.row.ts, anomalies: [...n.row.anomalies] };
      });
    },

    /** Writes accepted rows in the caller's transaction (one statement, array order). */
    async writeInTx(q: Queryable, orgId: string, receivedAt: Date, rows: readonly CanonicalRow[]): Promise<void> {
      if (rows.length) await writeBatch(q, orgId, receivedAt, [...rows]);
    },

    /** After the caller's transaction committed: counts the rows and streams them. Returns records streamed. */
    async committed(orgId: string, receivedAt: Date, rows: readonly CanonicalRow[]): Promise<number> {
      if (!rows.length) return 0;
      deps.onStored(rows.length);
      return stream(orgId, receivedAt, [...rows], true);
    },

    async ingest(ctx: RequestContext, body: unknown): Promise<IngestOutcome> {
      const now = clock.now();
      const p = await judgeBatch(ctx, body, now.getTime());
      const json = recordsJson(p.rows);
      let writeError: unknown;
      try {
        await db.tx((q) => writeBatch(q, ctx.orgId, now, p.rows, json));
      } catch (e) {
        writeError = e;
      }
      if (writeError !== undefined) {
        // Not stored. The live stream still gets the records (readiness: "accepted and streamed but
        // not stored"), and the sender is told to retry (decision 0043).
        log.error({ err: writeError, orgId: ctx.orgId, records: p.rows.length }, 'telemetry: batch not persisted');
        const streamed = await stream(ctx.orgId, now, p.rows, false, json);
        throw telemetryErrors.writerError({ ...p.base, stored: 0, streamed });
      }
      deps.onStored(p.rows.length);
      return outcomeOf(p, await stream(ctx.orgId, now, p.rows, true, json));
    },

    /**
     * Several ingestion bodies of one organisation (device MQTT messages that arrived together,
     * decision 0480) in one transaction: each body is judged exactly as `ingest` judges it (its own
     * records, indices, duplicates within it, device refusals by its own actor, its own 403/422),
     * the accepted rows of all of them are written in one statement and one commit, and each body
     * gets the outcome `ingest` would have given it, or its error. When the store refuses the
     * write of several, each body is written alone, so one the store refuses fails alone
     * (writer_error) and the others are stored. The caller runs it in the organisation's scope.
     */
    ingestMany,

    async liveEvents(ctx: RequestContext, opts: { limit: number; assetId?: string }): Promise<LiveEvent[]> {
      const since = new Date(clock.now().getTime() - LIVE_WINDOW_HOURS * 3600_000);
      try {
        return await reads.liveEvents(ctx.orgId, { since, limit: opts.limit, assetId: opts.assetId });
      } catch (e) {
        log.error({ err: e }, 'telemetry: live events read failed');
        throw telemetryErrors.storeUnavailable();
      }
    },

    async history(ctx: RequestContext, input: { assetType: string; assetId: string; range: string; metric?: string }) {
      const metricName = input.metric ?? defaultMetric(input.assetType);
      const def = findMetric(input.assetType, metricName);
      if (!def) {
        const allowed = ASSET_METRICS[input.assetType].map((m) => JSON.stringify(m.metric)).join(', ');
        throw errors.validation([fieldError(['query', 'metric'], `Input should be ${allowed}`, input.metric ?? null, 'enum')]);
      }
      const range = RANGES[input.range];
      const to = clock.now();
      const from = new Date(to.getTime() - range.spanMs);
      const head = {
        asset_id: input.assetId,
        asset_type: input.assetType,
        metric: def.metric,
        range: range.range,
        unit: def.unit,
        bucket: range.bucket,
        from: isoTime(from),
        to: isoTime(to),
      };
      try {
        const unsealed = range.dayBuckets && deps.unsealedDays ? await deps.unsealedDays(ctx.orgId) : [];
        const r = await lagTolerant.history(ctx.orgId, input.assetId, def, range, from, to, unsealed);
        return { ...head, series: r.series, summary: r.summary, source: 'timeseries' as const };
      } catch (e) {
        log.error({ err: e }, 'telemetry: history read failed');
        return {
          ...head,
          series: [],
          summary: { count: 0, min: null, max: null, avg: null, latest: null },
          source: 'timeseries_unavailable' as const,
        };
      }
    },
  };
}

/** The entries of records stored without anomalies, left out while judging. */
function fillStored(results: ResultEntry[]): void {
  for (let i = 0; i < results.length; i++) results[i] ??= { index: i, status: 'stored' };
}

const rawJson = (row: CanonicalRow) => (row.rawJson ??= JSON.stringify(row.raw));

export type TelemetryService = ReturnType<typeof createTelemetryService>;
