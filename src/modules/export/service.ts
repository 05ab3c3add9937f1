// Organisation data export (decisions 0203-0206): a manifest of the collections the owning modules
// offer, jobs on the platform queue that copy them chunk by chunk (keyset reads, each chunk written
// in the same transaction as the job's position, so a job taken over by another instance after a
// crash neither repeats nor skips a row), downloads streamed a chunk at a time with back-pressure,
// and expiry. Every read of a job runs in the organisation's row-level security scope.
import { ensureJobRoom } from '../../platform/job-caps.ts';
import { randomUUID } from 'node:crypto';
import type { AppDeps } from '../../platform/module.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { errors, fieldError } from '../../platform/errors.ts';
import { declareErrors } from '../../platform/error-docs.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import { runInOrgScope } from '../../infra/db/scope.ts';
import { nextStep, type Job, type JobOutcome } from '../../platform/jobs.ts';
import { csvRecord } from '../../kit/csv.ts';
import { jobProgress } from '../../kit/progress.ts';
import type { ExportableCollection, ExportPeriod } from './collections.ts';
import type { ExportConfig } from './config.ts';
import * as store from './store.ts';
import { type ByteSink, DownloadStream } from './download-stream.ts';
import { CsvFromJsonLines } from './csv-lines.ts';

export const WRITE_KIND = 'export.write';
const BASE = '/api/organisations/export';
const STEP_WALL_MS = 15_000;

const actorId = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : ctx.actor.kind === 'key' ? ctx.actor.keyId : null);

export const { errors: exportErrors, docs: EXPORT_ERROR_DOCS } = declareErrors({
  notReady: {
    status: 409,
    detail: (status: string) => `Export is ${status}: files are available once it is completed`,
    code: 'export_not_ready',
    doc: 'The export job has not completed yet.',
  },
  expired: {
    status: 410,
    detail: 'Export expired: its files were deleted',
    code: 'export_expired',
    doc: 'The export’s files passed their expiry and were deleted.',
  },
});

function jobView(j: store.JobRow) {
  const expected = Number(j.rows_expected);
  const written = Number(j.rows_written);
  return {
    job_id: j.job_id,
    status: j.status,
    collections: j.collections,
    from: j.period_from ? isoTime(j.period_from) : null,
    to: j.period_to ? isoTime(j.period_to) : null,
    format: j.format,
    progress: jobProgress(written, expected, 'rows'),
    collections_done: Math.min(j.position.c, j.collections.length),
    created_at: isoTime(j.created_at),
    started_at: j.started_at ? isoTime(j.started_at) : null,
    completed_at: j.completed_at ? isoTime(j.completed_at) : null,
    expires_at: j.expires_at ? isoTime(j.expires_at) : null,
    error: j.error,
    download_path: `${BASE}/jobs/${j.job_id}/download`,
    collection_paths: Object.fromEntries(j.collections.map((c) => [c, `${BASE}/jobs/${j.job_id}/collections/${c}`])),
  };
}

export function createExportService(
  deps: Pick<AppDeps, 'db' | 'backgroundDb' | 'clock' | 'jobs'> & { settings: ExportConfig; collections: readonly ExportableCollection[] },
) {
  const { db, backgroundDb, clock, jobs, settings } = deps;
  const byName = new Map(deps.collections.map((c) => [c.name, c]));

  function instant(loc: string[], v: string | undefined): Date | null {
    if (v === undefined) return null;
    const t = Date.parse(v);
    if (!Number.isFinite(t)) throw errors.validation([fieldError(loc, 'Not a valid instant', v)]);
    return new Date(t);
  }

  async function owned(ctx: RequestContext, jobId: string) {
    const j = await store.jobById(db, ctx.orgId, jobId);
    if (!j) throw errors.notFound();
    return j;
  }

  async function completed(ctx: RequestContext, jobId: string) {
    const j = await owned(ctx, jobId);
    if (j.status === 'expired') throw exportErrors.expired();
    if (j.status !== 'completed') throw exportErrors.notReady(j.status);
    return j;
  }

  /**
   * A download's steps (DownloadStream): each runs one query of a few parts in (seq, part) order and
   * hands each part's bytes to `part` as they arrive; the response's back-pressure runs the next.
   */
  function partSteps(orgId: string, jobId: string, opts: { collection?: string; wrapped?: boolean }, part: (body: Buffer, sink: ByteSink) => void) {
    const limit = 8;
    let at = { seq: -1, part: 0 };
    return async (sink: ByteSink) => {
      const r = await runInOrgScope(orgId, () => store.nextParts(db, orgId, jobId, at, { ...opts, limit }, (body) => part(body, sink)));
      at = { seq: r.seq, part: r.part };
      return r.count === limit;
    };
  }

  /** One step: up to stepChunks chunks, each with the job's new position in one transaction. */
  async function writeStep(orgId: string, jobId: string): Promise<'done' | 'more'> {
    const started = Date.now(); // wall time: a step ends well within its lease whatever the clock says
    for (let n = 0; n < settings.stepChunks && Date.now() - started < STEP_WALL_MS; n++) {
      const outcome = await backgroundDb.tx(async (q) => {
        const j = await store.jobById(q, orgId, jobId, true);
        if (!j || (j.status !== 'queued' && j.status !== 'running')) return 'done' as const;
        const now = clock.now();
        const period: ExportPeriod = { from: j.period_from, to: j.period_to };
        let pos = j.position;
        for (;;) {
          if (pos.c >= j.collections.length) {
            if (pos !== j.position) await store.advance(q, orgId, jobId, pos, 0, 0, now);
            await store.finish(q, orgId, jobId, 'completed', now, new Date(now.getTime() + settings.ttlHours * 3_600_000), null);
            return 'done' as const;
          }
          const coll = byName.get(j.collections[pos.c]);
          let page: { rows: number; last: string | null; bytes: number };
          if (!coll) page = { rows: 0, last: null, bytes: 0 };
          else if (coll.writeLines) {
            // The chunk goes from the owning module's query into export_chunks in one statement.
            page = await coll.writeLines(q, orgId, period, pos.after, settings.chunkRows, store.chunkSink(orgId, jobId, pos.seq, coll.name));
          } else {
            const lines = await coll.lines(q, orgId, period, pos.after, settings.chunkRows);
            if (lines.rows) await store.insertChunk(q, orgId, jobId, pos.seq, coll.name, lines.rows, lines.body);
            page = { rows: lines.rows, last: lines.last, bytes: Buffer.byteLength(lines.body) };
          }
          if (!page.rows) {
            pos = { c: pos.c + 1, after: null, seq: pos.seq };
            continue;
          }
          await store.advance(q, orgId, jobId, { c: pos.c, after: page.last, seq: pos.seq + 1 }, page.rows, Number(page.bytes), now);
          return 'chunk' as const;
        }
      });
      if (outcome === 'done') return 'done';
    }
    return 'more';
  }

  return {
    collections: deps.collections,

    async manifest(ctx: RequestContext) {
      const all = { from: null, to: null };
      const list = [];
      for (const c of deps.collections) {
        list.push({
          name: c.name,
          description: c.description,
          columns: [...c.columns],
          period_column: c.periodColumn,
          row_count: await c.count(db, ctx.orgId, all),
        });
      }
      return { collections: list, formats: ['jsonl', 'csv'] as ('jsonl' | 'csv')[], expires_after_hours: settings.ttlHours };
    },

    async create(ctx: RequestContext, body: { collections?: string[]; from?: string; to?: string; format?: 'jsonl' | 'csv' }) {
      const names = body.collections ?? deps.collections.map((c) => c.name);
      const unknown = names.find((n) => !byName.has(n));
      if (unknown !== undefined)
        throw errors.validation([fieldError(['body', 'collections'], `Unknown collection ${unknown}; the manifest lists them`, unknown)]);
      if (new Set(names).size !== names.length) throw errors.validation([fieldError(['body', 'collections'], 'A collection is named twice', names)]);
      const from = instant(['body', 'from'], body.from);
      const to = instant(['body', 'to'], body.to);
      if (from && to && to <= from) throw errors.validation([fieldError(['body', 'to'], 'to must be after from', body.to)]);
      let expected = 0;
      for (const n of names) expected += await byName.get(n)!.count(db, ctx.orgId, { from, to });
      const jobId = randomUUID();
      const now = clock.now();
      return db.tx(async (q) => {
        await ensureJobRoom(q, ctx.orgId, { kinds: [WRITE_KIND], limit: settings.maxQueued, what: 'exports', itemKey: 'job_id' });
        await store.insertJob(q, ctx.orgId, {
          job_id: jobId,
          collections: names,
          from,
          to,
          format: body.format ?? 'jsonl',
          rows_expected: expected,
          requested_by: actorId(ctx),
          now,
        });
        await jobs.enqueue(q, { kind: WRITE_KIND, orgId: ctx.orgId, payload: { job_id: jobId, step: 0 }, dedupeKey: `${WRITE_KIND}:${jobId}:0` });
        return jobView((await store.jobById(q, ctx.orgId, jobId))!);
      });
    },

    job: async (ctx: RequestContext, jobId: string) => jobView(await owned(ctx, jobId)),

    /** The whole export as JSON Lines: one line a row, `{"collection": …, "row": {…}}`. */
    async download(ctx: RequestContext, jobId: string) {
      const j = await completed(ctx, jobId);
      // Each row wrapped by the database as it reads the part (store.nextParts).
      return new DownloadStream(partSteps(ctx.orgId, j.job_id, { wrapped: true }, (body, sink) => sink.write(body)));
    },

    /** One collection as JSON Lines (the rows themselves) or CSV (RFC 4180, header row, formula-safe). */
    async collection(ctx: RequestContext, jobId: string, name: string, format?: 'jsonl' | 'csv') {
      const j = await completed(ctx, jobId);
      if (!j.collections.includes(name)) throw errors.notFound();
      const coll = byName.get(name)!;
      const fmt = format ?? j.format;
      // CSV written from the lines' bytes row by row (decision 0490).
      const csv = new CsvFromJsonLines(coll.columns);
      const step = partSteps(
        ctx.orgId,
        j.job_id,
        { collection: name },
        fmt === 'jsonl' ? (body, sink) => sink.write(body) : (body, sink) => csv.part(body, sink),
      );
      let header = fmt === 'csv';
      const stream = new DownloadStream(async (sink) => {
        if (header) {
          header = false;
          sink.text(csvRecord([...coll.columns]));
        }
        return step(sink);
      });
      return { format: fmt, jobId: j.job_id, stream };
    },

    /** The queue's handler: one step, then the next step queued in the same store (resumable anywhere). */
    async run(job: Job<{ job_id: string; step: number }>): Promise<JobOutcome | void> {
      const orgId = job.orgId!;
      const { job_id: jobId, step } = job.payload;
      let r: 'done' | 'more';
      try {
        r = await runInOrgScope(orgId, () => writeStep(orgId, jobId));
      } catch (e) {
        if (job.attempts < 5) throw e;
        const now = clock.now();
        await runInOrgScope(orgId, () =>
          store.finish(
            backgroundDb,
            orgId,
            jobId,
            'failed',
            now,
            new Date(now.getTime() + settings.ttlHours * 3_600_000),
            'The export could not be written; request a new one',
          ),
        );
        return;
      }
      if (r === 'more')
        return nextStep(jobs, clock, { kind: WRITE_KIND, orgId, payload: { job_id: jobId, step: step + 1 }, dedupeKey: `${WRITE_KIND}:${jobId}:${step + 1}` });
    },

    /** Deletes the files of every export past its expiry. */
    expire: () => store.expire(backgroundDb, clock.now()),
  };
}

export type ExportService = ReturnType<typeof createExportService>;
