// How much long work an organisation has in the queue: the rows of the given kinds not yet done
// and not given up (queued, waiting to retry, or running under a lease). A job that runs in steps
// queues its next step as a step completes, so one piece of work is one row, but for the moment a
// handler has queued the next step and not yet completed its own: `itemKey` names the payload
// member identifying the piece of work, so both rows count once.
import type { Queryable } from '../db/index.ts';

export async function pendingWork(q: Queryable, orgId: string, kinds: readonly string[], itemKey?: string): Promise<number> {
  const r = await q.query<{ n: number }>(
    `select count(distinct coalesce(payload ->> $3::text, id::text))::int as n
       from jobs where org_id = $1 and kind = any($2::text[]) and failed_at is null`,
    [orgId, [...kinds], itemKey ?? null],
  );
  return r.rows[0]?.n ?? 0;
}

/** Serialises the callers that check and then queue work of these kinds for one organisation (until their transaction ends). */
export async function lockPendingWork(q: Queryable, orgId: string, kinds: readonly string[]): Promise<void> {
  await q.query('select pg_advisory_xact_lock(hashtext($1))', [`jobs.pending:${orgId}:${[...kinds].sort().join(',')}`]);
}
