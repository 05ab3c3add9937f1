// Plan studies' SQL: studies, input versions and runs. Every query filters on org_id.
import type { Queryable } from '../../infra/db/index.ts';

export interface StudyRow {
  study_id: string;
  study_type: string;
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}
export interface InputRow {
  kind: string;
  version: number;
  rows: Record<string, string>[];
  csv: string;
  row_count: number;
  created_at: string;
}
export interface RunRow {
  run_id: string;
  study_id: string;
  status: string;
  progress: number;
  input_versions: Record<string, number>;
  results: unknown;
  error: string | null;
  attempts: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

const POS = `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;
const S_COLS = 'study_id, study_type, name, description, created_at, updated_at';
const R_COLS = 'run_id, study_id, status, progress, input_versions, results, error, attempts, created_at, started_at, finished_at';

export const studyStore = {
  async insertStudy(q: Queryable, orgId: string, s: { study_id: string; study_type: string; name: string; description: string | null }, now: Date) {
    await q.query(`insert into studies (org_id, study_id, study_type, name, description, created_at, updated_at) values ($1,$2,$3,$4,$5,$6,$6)`, [
      orgId,
      s.study_id,
      s.study_type,
      s.name,
      s.description,
      now,
    ]);
  },
  async study(q: Queryable, orgId: string, id: string): Promise<StudyRow | undefined> {
    return (await q.query<StudyRow>(`select ${S_COLS} from studies where org_id=$1 and study_id=$2`, [orgId, id])).rows[0];
  },
  async studiesPage(q: Queryable, orgId: string, type: string | null, before: { t: string; id: string } | undefined, limit: number) {
    return (
      await q.query<StudyRow & { pos: string }>(
        `select ${S_COLS}, ${POS} as pos from studies where org_id=$1 and ($2::text is null or study_type=$2)
         and ($3::text is null or (${POS}, study_id) < ($3, $4)) order by created_at desc, study_id desc limit $5`,
        [orgId, type, before?.t ?? null, before?.id ?? null, limit + 1],
      )
    ).rows;
  },
  async updateStudy(q: Queryable, orgId: string, id: string, f: { name?: string; description?: string | null }, now: Date) {
    const r = await q.query<StudyRow>(
      `update studies set name=coalesce($3,name), description=case when $4::boolean then $5 else description end, updated_at=$6
       where org_id=$1 and study_id=$2 returning ${S_COLS}`,
      [orgId, id, f.name ?? null, f.description !== undefined, f.description ?? null, now],
    );
    return r.rows[0];
  },
  async deleteStudy(q: Queryable, orgId: string, id: string) {
    await q.query('delete from study_runs where org_id=$1 and study_id=$2', [orgId, id]);
    await q.query('delete from study_inputs where org_id=$1 and study_id=$2', [orgId, id]);
    return (await q.query('delete from studies where org_id=$1 and study_id=$2', [orgId, id])).rowCount ?? 0;
  },
  async currentInputs(q: Queryable, orgId: string, id: string): Promise<InputRow[]> {
    return (
      await q.query<InputRow>(
        `select kind, version, rows, csv, row_count, created_at from study_inputs where org_id=$1 and study_id=$2 and current order by kind`,
        [orgId, id],
      )
    ).rows;
  },
  async inputVersion(q: Queryable, orgId: string, id: string, kind: string, version: number): Promise<InputRow | undefined> {
    return (
      await q.query<InputRow>(
        `select kind, version, rows, csv, row_count, created_at from study_inputs where org_id=$1 and study_id=$2 and kind=$3 and version=$4`,
        [orgId, id, kind, version],
      )
    ).rows[0];
  },
  async putInput(q: Queryable, orgId: string, id: string, kind: string, rows: unknown[], csv: string, now: Date): Promise<number> {
    const v = await q.query<{ v: number }>(`select coalesce(max(version),0)::int as v from study_inputs where org_id=$1 and study_id=$2 and kind=$3`, [
      orgId,
      id,
      kind,
    ]);
    const version = v.rows[0]!.v + 1;
    await q.query('update study_inputs set current=false where org_id=$1 and study_id=$2 and kind=$3', [orgId, id, kind]);
    await q.query(
      `insert into study_inputs (org_id, study_id, kind, version, rows, csv, row_count, current, created_at) values ($1,$2,$3,$4,$5,$6,$7,true,$8)`,
      [orgId, id, kind, version, JSON.stringify(rows), csv, rows.length, now],
    );
    return version;
  },
  async deleteInput(q: Queryable, orgId: string, id: string, kind: string) {
    // Versions are kept (a past run names them); the input is no longer current.
    return (await q.query('update study_inputs set current=false where org_id=$1 and study_id=$2 and kind=$3 and current', [orgId, id, kind])).rowCount ?? 0;
  },
  async insertRun(q: Queryable, orgId: string, studyId: string, runId: string, versions: Record<string, number>, now: Date) {
    await q.query(`insert into study_runs (org_id, study_id, run_id, status, progress, input_versions, created_at) values ($1,$2,$3,'queued',0,$4,$5)`, [
      orgId,
      studyId,
      runId,
      JSON.stringify(versions),
      now,
    ]);
  },
  async run(q: Queryable, orgId: string, studyId: string, runId: string): Promise<RunRow | undefined> {
    return (await q.query<RunRow>(`select ${R_COLS} from study_runs where org_id=$1 and study_id=$2 and run_id=$3`, [orgId, studyId, runId])).rows[0];
  },
  async runsPage(q: Queryable, orgId: string, studyId: string, before: { t: string; id: string } | undefined, limit: number) {
    return (
      await q.query<RunRow & { pos: string }>(
        `select ${R_COLS}, ${POS} as pos from study_runs where org_id=$1 and study_id=$2
         and ($3::text is null or (${POS}, run_id) < ($3, $4)) order by created_at desc, run_id desc limit $5`,
        [orgId, studyId, before?.t ?? null, before?.id ?? null, limit + 1],
      )
    ).rows;
  },
  async startRun(q: Queryable, orgId: string, studyId: string, runId: string, now: Date) {
    await q.query(
      `update study_runs set status='running', progress=10, attempts=attempts+1, started_at=coalesce(started_at,$4) where org_id=$1 and study_id=$2 and run_id=$3`,
      [orgId, studyId, runId, now],
    );
  },
  async progress(q: Queryable, orgId: string, studyId: string, runId: string, progress: number) {
    await q.query(`update study_runs set progress=$4 where org_id=$1 and study_id=$2 and run_id=$3`, [orgId, studyId, runId, progress]);
  },
  async finishRun(
    q: Queryable,
    orgId: string,
    studyId: string,
    runId: string,
    f: { status: 'succeeded' | 'failed'; results: unknown; error: string | null },
    now: Date,
  ) {
    await q.query(
      `update study_runs set status=$4, progress=case when $4='succeeded' then 100 else progress end, results=$5, error=$6, finished_at=$7 where org_id=$1 and study_id=$2 and run_id=$3`,
      [orgId, studyId, runId, f.status, f.results === null ? null : JSON.stringify(f.results), f.error, now],
    );
  },
};
