// SQL of the export module: its jobs and the chunks they write. Every query filters on org_id,
// except the expiry sweep (the platform's own work across organisations).
import type { Db, Queryable } from '../../infra/db/index.ts';

export interface Position {
  /** Index of the collection being written. */
  c: number;
  /** Key of the last row written in it (null: none yet). */
  after: string | null;
  /** Number of the next chunk. */
  seq: number;
}

export interface JobRow {
  job_id: string;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'expired';
  collections: string[];
  period_from: Date | null;
  period_to: Date | null;
  format: 'jsonl' | 'csv';
  rows_expected: string;
  rows_written: string;
  position: Position;
  bytes_written: string;
  requested_by: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  expires_at: Date | null;
  error: string | null;
}

const COLS = `job_id, status, collections, period_from, period_to, format, rows_expected::text as rows_expected, rows_written::text as rows_written,
  position, bytes_written::text as bytes_written, requested_by, created_at, started_at, completed_at, expires_at, error`;

export async function insertJob(
  q: Queryable,
  orgId: string,
  j: {
    job_id: string;
    collections: string[];
    from: Date | null;
    to: Date | null;
    format: string;
    rows_expected: number;
    requested_by: string | null;
    now: Date;
  },
) {
  await q.query(
    `insert into export_jobs (org_id, job_id, status, collections, period_from, period_to, format, rows_expected, position, requested_by, created_at)
     values ($1, $2, 'queued', $3::jsonb, $4, $5, $6, $7, $8::jsonb, $9, $10)`,
    [
      orgId,
      j.job_id,
      JSON.stringify(j.collections),
      j.from,
      j.to,
      j.format,
      j.rows_expected,
      JSON.stringify({ c: 0, after: null, seq: 0 }),
      j.requested_by,
      j.now,
    ],
  );
}

export async function jobById(q: Queryable, orgId: string, jobId: string, lock = false): Promise<JobRow | null> {
  const r = await q.query<JobRow>(`select ${COLS} from export_jobs where org_id = $1 and job_id = $2${lock ? ' for update' : ''}`, [orgId, jobId]);
  return r.rows[0] ?? null;
}

export async function insertChunk(q: Queryable, orgId: string, jobId: string, seq: number, collection: string, rows: number, body: string) {
  await q.query(`insert into export_chunks (org_id, job_id, seq, part, collection, rows, body) values ($1, $2, $3, 0, $4, $5, $6)`, [
    orgId,
    jobId,
    seq,
    collection,
    rows,
    body,
  ]);
}

/**
 * The sink a collection hands its chunk query to: one statement that stores the chunk's parts and
 * answers its row count, last key and size, so the text stays in the database.
 */
export function chunkSink(orgId: string, jobId: string, seq: number, collection: string) {
  return (partsSql: string, n: number) => ({
    sql: `with parts as (${partsSql}),
          stored as (
            insert into export_chunks (org_id, job_id, seq, part, collection, rows, body)
            select $${n + 1}, $${n + 2}, $${n + 3}, part, $${n + 4}, rows, body from parts
          )
          select coalesce(sum(rows), 0)::int as rows, min(last) as last, coalesce(sum(octet_length(body)), 0)::bigint::float8 as bytes from parts`,
    params: [orgId, jobId, seq, collection],
  });
}

export async function advance(q: Queryable, orgId: string, jobId: string, position: Position, rows: number, bytes: number, now: Date) {
  await q.query(
    `update export_jobs set position = $3::jsonb, rows_written = rows_written + $4, bytes_written = bytes_written + $5, status = 'running',
       started_at = coalesce(started_at, $6) where org_id = $1 and job_id = $2`,
    [orgId, jobId, JSON.stringify(position), rows, bytes, now],
  );
}

export async function finish(q: Queryable, orgId: string, jobId: string, status: 'completed' | 'failed', now: Date, expiresAt: Date, error: string | null) {
  await q.query(
    `update export_jobs set status = $3, completed_at = $4, expires_at = $5, error = $6, started_at = coalesce(started_at, $4) where org_id = $1 and job_id = $2`,
    [orgId, jobId, status, now, expiresAt, error],
  );
}

/** A part's JSON Lines as the whole export writes them: each row wrapped as `{"collection": …, "row": …}`. */
const WRAPPED_BODY = `'{"collection":' || to_json(collection)::text || ',"row":' ||
  replace(left(body, -1), E'\\n', E'}\\n{"collection":' || to_json(collection)::text || ',"row":') || E'}\\n'`;

/**
 * The next parts after (seq, part) (of one collection when named), a few at a time: each part a
 * few hundred rows, so memory stays flat. `wrapped`: lines as the whole export writes them, wrapped
 * by the database as it reads them (decision 0257). Read as bytes (Db.queryBytes): each part's body
 * is handed to `onPart` as it arrives, UTF-8 bytes valid only during the call (decision 0490), so a
 * download's text never enters the V8 heap and no part is gathered. Answers the position of the
 * last part read and how many were read.
 */
export async function nextParts(
  db: Db,
  orgId: string,
  jobId: string,
  after: { seq: number; part: number },
  opts: { collection?: string; wrapped?: boolean; limit: number },
  onPart: (body: Buffer) => void,
): Promise<{ seq: number; part: number; count: number }> {
  const params: unknown[] = [orgId, jobId, after.seq, after.part, opts.limit];
  if (opts.collection) params.push(opts.collection);
  const last = { seq: after.seq, part: after.part, count: 0 };
  const empty = Buffer.alloc(0);
  last.count = await db.queryBytes(
    // Output names unlike the columns: ORDER BY seq, part must sort the integers, not their text.
    `select seq::text as s, part::text as p, ${opts.wrapped ? WRAPPED_BODY : 'body'} as body from export_chunks
     where org_id = $1 and job_id = $2 and (seq, part) > ($3, $4) ${opts.collection ? 'and collection = $6' : ''}
     order by seq, part limit $5`,
    params,
    ([seq, part, body]) => {
      last.seq = Number(seq!.toString('latin1'));
      last.part = Number(part!.toString('latin1'));
      onPart(body ?? empty);
    },
  );
  return last;
}

/** Expiry sweep: deletes the chunks of every export past its expiry and marks it expired. */
export async function expire(q: Queryable, now: Date): Promise<number> {
  const r = await q.query<{ org_id: string; job_id: string }>(
    `update export_jobs set status = 'expired' where status in ('completed', 'failed') and expires_at <= $1 returning org_id, job_id`,
    [now],
  );
  for (const j of r.rows) await q.query(`delete from export_chunks where org_id = $1 and job_id = $2`, [j.org_id, j.job_id]);
  return r.rows.length;
}
