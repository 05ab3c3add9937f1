// Fair claiming (decision 0088). A lane's due rows are taken round-robin between organisations:
// each organisation's due rows are ranked oldest first, and a row's place in the claim is its
// rank plus the organisation's jobs already running (on any instance: rows under a live lease),
// so an organisation with nothing running comes first and one that is busy waits its turn. An
// organisation never has more than `perOrg` jobs of the lane running across all instances.
//
// The count of running rows is only exact if two instances cannot claim for the same
// organisation at once: a capped claim takes a transaction-scoped advisory lock per schema and
// lane first. Claims are short (one statement), so instances queue behind each other for
// milliseconds, never behind a running job. Rows without an organisation count as one
// organisation of their own.
import type { Queryable } from '../db/index.ts';

export interface ClaimedRow {
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
  run_at: Date;
  org_id: string | null;
}

export interface ClaimInput {
  lane: string;
  kinds: string[];
  now: Date;
  limit: number;
  /** Most rows of one organisation running at once across instances; null = no cap. */
  perOrg: number | null;
  leaseUntil: Date;
  token: string;
}

const NO_CAP = 2_147_483_647;

const RUNNING = `
  running as (
    select coalesce(org_id, '') as o, count(*)::int as n from jobs
    where kind = any($1::text[]) and failed_at is null and locked_until > $2
    group by 1
  )`;

/** Due and not under a live lease; `a` is a table alias with its dot. */
const due = (a = '') => `${a}kind = any($1::text[]) and ${a}failed_at is null and ${a}run_at <= $2 and (${a}locked_until is null or ${a}locked_until <= $2)`;

/** Claims up to `limit` due rows of the lane's kinds, fairly, under a lease. Runs in the caller's transaction. */
export async function claimFair(q: Queryable, c: ClaimInput): Promise<ClaimedRow[]> {
  if (c.perOrg !== null) {
    await q.query(`select pg_advisory_xact_lock(hashtext(current_schema() || '.jobs.claim.' || $1::text))`, [c.lane]);
  }
  const r = await q.query<ClaimedRow>(
    `with ${RUNNING},
     ranked as (
       select id, run_at, coalesce(org_id, '') as o,
              row_number() over (partition by coalesce(org_id, '') order by run_at, id) as rk
       from jobs where ${due()}
     ),
     pick as (
       select d.id from ranked d left join running r on r.o = d.o
       where d.rk + coalesce(r.n, 0) <= $6
       order by d.rk + coalesce(r.n, 0), d.run_at, d.id
       limit $3
     ),
     locked as (
       select j.id from jobs j where j.id in (select id from pick) and ${due('j.')}
       for update of j skip locked
     )
     update jobs j set locked_until = $4, lock_token = $5, attempts = j.attempts + 1
     from locked where j.id = locked.id
     returning j.id, j.kind, j.payload, j.attempts, j.max_attempts, j.run_at, j.org_id`,
    [c.kinds, c.now, c.limit, c.leaseUntil, c.token, c.perOrg ?? NO_CAP],
  );
  return r.rows;
}

/**
 * How long (ms) the oldest due row of these kinds has been waiting for a worker, counting only
 * organisations below their cap: a backlog an organisation's own cap holds back (its receivers
 * are slow) is not the workers falling behind. 0 when none waits.
 */
export async function waitingAge(q: Queryable, kinds: string[], now: Date, perOrg: number | null): Promise<number> {
  const r = await q.query<{ at: Date | null }>(
    `with ${RUNNING}
     select min(j.run_at) as at from jobs j left join running r on r.o = coalesce(j.org_id, '')
     where ${due('j.')} and coalesce(r.n, 0) < $3`,
    [kinds, now, perOrg ?? NO_CAP],
  );
  const at = r.rows[0]?.at;
  return at ? Math.max(0, now.getTime() - new Date(at).getTime()) : 0;
}
