// Plan studies' rules: the catalogue, studies, versioned inputs, runs on the platform job queue.
import { ensureJobRoom } from '../../platform/job-caps.ts';
import { randomUUID } from 'node:crypto';
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CursorCodec } from '../../platform/cursor.ts';
import { pageAfter } from '../../platform/cursor.ts';
import type { Job, JobQueue } from '../../platform/jobs.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import { jobProgress } from '../../kit/progress.ts';
import { KIND_SPECS, STUDY_TYPES, sample, template, validateCsv, type Kind, type StudyType } from './catalogue.ts';
import { studyErrors } from './errors.ts';
import { ModelError, runModel, type StudyResults } from './model.ts';
import { proposalPack, reportHtml, type ReportMeta } from './report.ts';
import { studyStore as store, type RunRow, type StudyRow } from './store.ts';

export const RUN_KIND = 'studies.run';

const studyView = (s: StudyRow, inputs: { kind: string; version: number; row_count: number; created_at: string }[]) => ({
  study_id: s.study_id,
  study_type: s.study_type,
  name: s.name,
  description: s.description,
  required_inputs: [...STUDY_TYPES[s.study_type as StudyType].kinds],
  inputs: inputs.map((i) => ({ kind: i.kind, version: i.version, row_count: i.row_count, updated_at: isoTime(i.created_at) })),
  created_at: isoTime(s.created_at),
  updated_at: isoTime(s.updated_at),
});

const runView = (r: RunRow) => ({
  run_id: r.run_id,
  study_id: r.study_id,
  status: r.status,
  progress: jobProgress(r.progress, 100, 'percent'),
  input_versions: r.input_versions,
  attempts: r.attempts,
  error: r.error,
  results: (r.results as StudyResults | null) ?? null,
  created_at: isoTime(r.created_at),
  started_at: isoTimeOrNull(r.started_at),
  finished_at: isoTimeOrNull(r.finished_at),
});

export function createStudies(deps: { db: Db; backgroundDb: Db; clock: Clock; jobs: Pick<JobQueue, 'enqueue'>; cursors: CursorCodec; maxQueuedRuns?: number }) {
  const { db, clock, cursors } = deps;

  async function requireStudy(orgId: string, id: string) {
    const s = await store.study(db, orgId, id);
    if (!s) throw studyErrors.studyNotFound();
    return s;
  }
  function requireKind(s: StudyRow, kind: Kind) {
    if (!(STUDY_TYPES[s.study_type as StudyType].kinds as string[]).includes(kind)) throw studyErrors.kindNotUsed(kind, s.study_type);
  }
  async function view(orgId: string, s: StudyRow) {
    return studyView(s, await store.currentInputs(db, orgId, s.study_id));
  }
  async function succeededRun(orgId: string, studyId: string, runId: string) {
    const s = await requireStudy(orgId, studyId);
    const r = await store.run(db, orgId, studyId, runId);
    if (!r) throw studyErrors.runNotFound();
    if (r.status !== 'succeeded') throw studyErrors.runNotFinished(r.status);
    const meta: ReportMeta = { study_id: s.study_id, name: s.name, run_id: r.run_id, finished_at: isoTime(r.finished_at!), input_versions: r.input_versions };
    return { meta, results: r.results as StudyResults };
  }

  return {
    types() {
      return {
        study_types: Object.entries(STUDY_TYPES).map(([k, t]) => ({
          study_type: k,
          title: t.title,
          description: t.description,
          display_label: t.display_label,
          inputs: t.kinds.map((kind) => ({
            kind,
            description: KIND_SPECS[kind].description,
            columns: KIND_SPECS[kind].columns.map((c) => ({ name: c.name, description: c.description })),
          })),
        })),
      };
    },
    template(type: StudyType, kind: Kind, sampleToo: boolean) {
      if (!(STUDY_TYPES[type].kinds as string[]).includes(kind)) throw studyErrors.kindNotUsed(kind, type);
      return sampleToo ? sample(type, kind) : template(kind);
    },

    async createSample(ctx: RequestContext, type: StudyType) {
      const id = randomUUID();
      const now = clock.now();
      const inputs: { kind: Kind; csv: string; rows: Record<string, string>[] }[] = [];
      for (const kind of STUDY_TYPES[type].kinds) {
        const csv = sample(type, kind);
        inputs.push({ kind, csv, rows: (await validateCsv(kind, csv)).rows });
      }
      await db.tx(async (q) => {
        await store.insertStudy(
          q,
          ctx.orgId,
          {
            study_id: id,
            study_type: type,
            name: `Sample: ${STUDY_TYPES[type].title}`,
            description: 'Filled with the sample inputs (docs/studies.md works them through).',
          },
          now,
        );
        for (const { kind, csv, rows } of inputs) await store.putInput(q, ctx.orgId, id, kind, rows, csv, now);
      });
      return view(ctx.orgId, (await store.study(db, ctx.orgId, id))!);
    },
    async list(ctx: RequestContext, query: { study_type?: string; limit?: number; cursor?: string }) {
      const limit = query.limit ?? 50;
      const binding = { op: 'listStudies', orgId: ctx.orgId, filters: { t: query.study_type ?? null } };
      const paged = pageAfter(cursors, binding, query.cursor, limit);
      const page = paged.page(await store.studiesPage(db, ctx.orgId, query.study_type ?? null, paged.after, limit), (r) => ({ t: r.pos, id: r.study_id }));
      const studies = [];
      for (const s of page.items) studies.push(await view(ctx.orgId, s));
      return { studies, next_cursor: page.next_cursor, has_more: page.has_more };
    },
    async create(ctx: RequestContext, body: { study_type: StudyType; name: string; description?: string | null }) {
      const id = randomUUID();
      await store.insertStudy(
        db,
        ctx.orgId,
        { study_id: id, study_type: body.study_type, name: body.name, description: body.description ?? null },
        clock.now(),
      );
      return view(ctx.orgId, (await store.study(db, ctx.orgId, id))!);
    },
    async get(ctx: RequestContext, id: string) {
      return view(ctx.orgId, await requireStudy(ctx.orgId, id));
    },
    async update(ctx: RequestContext, id: string, body: { name?: string; description?: string | null }) {
      const s = await store.updateStudy(db, ctx.orgId, id, body, clock.now());
      if (!s) throw studyErrors.studyNotFound();
      return view(ctx.orgId, s);
    },
    async remove(ctx: RequestContext, id: string) {
      const n = await db.tx((q) => store.deleteStudy(q, ctx.orgId, id));
      if (!n) throw studyErrors.studyNotFound();
    },

    async getInput(ctx: RequestContext, id: string, kind: Kind) {
      const s = await requireStudy(ctx.orgId, id);
      requireKind(s, kind);
      const i = (await store.currentInputs(db, ctx.orgId, id)).find((x) => x.kind === kind);
      if (!i) throw studyErrors.inputNotFound(kind);
      return { kind, version: i.version, row_count: i.row_count, rows: i.rows, csv: i.csv, updated_at: isoTime(i.created_at) };
    },
    async putInput(ctx: RequestContext, id: string, kind: Kind, csv: string) {
      const s = await requireStudy(ctx.orgId, id);
      requireKind(s, kind);
      const { rows, errors } = await validateCsv(kind, csv);
      if (errors.length) throw studyErrors.csv(errors);
      const now = clock.now();
      const version = await db.tx(async (q) => {
        const v = await store.putInput(q, ctx.orgId, id, kind, rows, csv, now);
        await store.updateStudy(q, ctx.orgId, id, {}, now);
        return v;
      });
      return { kind, version, row_count: rows.length, rows, csv, updated_at: isoTime(now) };
    },
    async deleteInput(ctx: RequestContext, id: string, kind: Kind) {
      const s = await requireStudy(ctx.orgId, id);
      requireKind(s, kind);
      if (!(await store.deleteInput(db, ctx.orgId, id, kind))) throw studyErrors.inputNotFound(kind);
    },

    async startRun(ctx: RequestContext, id: string) {
      const s = await requireStudy(ctx.orgId, id);
      const current = await store.currentInputs(db, ctx.orgId, id);
      const kinds = STUDY_TYPES[s.study_type as StudyType].kinds;
      const missing = kinds.filter((k) => !current.some((c) => c.kind === k));
      if (missing.length) throw studyErrors.missingInputs(missing);
      const versions = Object.fromEntries(kinds.map((k) => [k, current.find((c) => c.kind === k)!.version]));
      const runId = randomUUID();
      const now = clock.now();
      await db.tx(async (q) => {
        await ensureJobRoom(q, ctx.orgId, { kinds: [RUN_KIND], limit: deps.maxQueuedRuns ?? 5, what: 'study runs', itemKey: 'run_id' });
        await store.insertRun(q, ctx.orgId, id, runId, versions, now);
        await deps.jobs.enqueue(q, {
          kind: RUN_KIND,
          orgId: ctx.orgId,
          runAt: now,
          payload: { study_id: id, run_id: runId },
          dedupeKey: `${RUN_KIND}:${runId}`,
        });
      });
      return runView((await store.run(db, ctx.orgId, id, runId))!);
    },
    async listRuns(ctx: RequestContext, id: string, query: { limit?: number; cursor?: string }) {
      await requireStudy(ctx.orgId, id);
      const limit = query.limit ?? 50;
      const binding = { op: 'listStudyRuns', orgId: ctx.orgId, filters: { s: id } };
      const paged = pageAfter(cursors, binding, query.cursor, limit);
      const page = paged.page(await store.runsPage(db, ctx.orgId, id, paged.after, limit), (r) => ({ t: r.pos, id: r.run_id }));
      return { runs: page.items.map(runView), next_cursor: page.next_cursor, has_more: page.has_more };
    },
    async getRun(ctx: RequestContext, id: string, runId: string) {
      await requireStudy(ctx.orgId, id);
      const r = await store.run(db, ctx.orgId, id, runId);
      if (!r) throw studyErrors.runNotFound();
      return runView(r);
    },
    async report(ctx: RequestContext, id: string, runId: string) {
      const { meta, results } = await succeededRun(ctx.orgId, id, runId);
      return reportHtml(meta, results);
    },
    async pack(ctx: RequestContext, id: string, runId: string) {
      const { meta, results } = await succeededRun(ctx.orgId, id, runId);
      return Buffer.from(proposalPack(meta, results));
    },

    /** The job: reads the recorded input versions (never the current ones), models, stores the results. */
    async runJob(job: Job<{ study_id: string; run_id: string }>): Promise<void> {
      const orgId = job.orgId!;
      const bg = deps.backgroundDb;
      const { study_id, run_id } = job.payload;
      const run = await store.run(bg, orgId, study_id, run_id);
      const s = await store.study(bg, orgId, study_id);
      if (!run || !s || run.status === 'succeeded' || run.status === 'failed') return;
      try {
        await execute(orgId, study_id, run_id, run.input_versions, s.study_type as StudyType);
      } catch (e) {
        // The queue retries what was not the inputs' fault, a few times; then the run says it
        // failed (never the store's text) instead of staying 'running' for ever (decision 0285).
        if (job.attempts < 5) throw e;
        await store.finishRun(
          bg,
          orgId,
          study_id,
          run_id,
          { status: 'failed', results: null, error: 'The study could not be run; request a new run' },
          clock.now(),
        );
      }
    },
  };

  /** One run: the recorded input versions, the model, the results (or the inputs' own failure). */
  async function execute(orgId: string, study_id: string, run_id: string, versions: Partial<Record<Kind, number>>, studyType: StudyType): Promise<void> {
    const bg = deps.backgroundDb;
    await store.startRun(bg, orgId, study_id, run_id, clock.now());
    const inputs: Partial<Record<Kind, Record<string, string>[]>> = {};
    const kinds = Object.keys(versions) as Kind[];
    let done = 0;
    for (const kind of kinds) {
      const i = await store.inputVersion(bg, orgId, study_id, kind, versions[kind]!);
      if (!i) {
        await store.finishRun(
          bg,
          orgId,
          study_id,
          run_id,
          { status: 'failed', results: null, error: `input ${kind} version ${versions[kind]} is gone` },
          clock.now(),
        );
        return;
      }
      inputs[kind] = i.rows;
      done++;
      await store.progress(bg, orgId, study_id, run_id, 10 + Math.round((done / kinds.length) * 60));
    }
    let results: StudyResults;
    try {
      results = runModel(studyType, inputs);
    } catch (e) {
      if (!(e instanceof ModelError)) throw e; // the queue retries what was not the inputs' fault
      await store.finishRun(bg, orgId, study_id, run_id, { status: 'failed', results: null, error: e.message }, clock.now());
      return;
    }
    await store.finishRun(bg, orgId, study_id, run_id, { status: 'succeeded', results, error: null }, clock.now());
  }
}
export type Studies = ReturnType<typeof createStudies>;
