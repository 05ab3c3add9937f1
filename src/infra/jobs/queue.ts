// A small durable job queue in PostgreSQL (and PGlite): rows with run_at, attempts and a lease.
// Any number of instances poll the same table; a due row is claimed with FOR UPDATE SKIP LOCKED,
// so exactly one instance runs it, and held under a lease (locked_until) so that a crashed
// holder's work is taken over once the lease runs out. Time comes from the injected clock: the
// poller only decides *when to look*; what is due is decided by clock.now(), so tests move a
// ManualClock and call runDue().
//
// A handler does its slow part (an HTTP call) outside any transaction and returns what to record;
// the queue then records it and completes or reschedules the row in one short transaction, after
// checking the lease is still its own (a holder that lost its lease records nothing).
import { randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../db/index.ts';
import type { Clock } from '../../platform/clock.ts';

export interface Job<P = Record<string, unknown>> {
  id: number;
  kind: string;
  payload: P;
  /** Claims so far, this one included. */
  attempts: number;
  runAt: Date;
  orgId: string | null;
}

export interface JobOutcome {
  /** Run again at this time (the row stays); absent = the job is done and removed. */
  retryAt?: Date;
  /** Writes recorded in the same transaction that completes or reschedules the job. */
  finalize?: (q: Queryable) => Promise<void>;
}

export type JobHandler<P = Record<string, unknown>> = (job: Job<P>) => Promise<JobOutcome | void>;

export interface EnqueueInput {
  kind: string;
  payload?: unknown;
  runAt: Date;
  orgId?: string | null;
  /** At most one pending row per key; a second enqueue with the same key is ignored. */
  dedupeKey?: string;
  maxAttempts?: number;
}

interface JobRow {
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
  run_at: Date;
  org_id: string | null;
}

/** Adds a job in the caller's transaction. Returns its id, or null when the dedupe key is taken. */
export async function enqueue(q: Queryable, now: Date, input: EnqueueInput): Promise<number | null> {
  const r = await q.query<{ id: number }>(
    `insert into jobs (kind, payload, run_at, org_id, dedupe_key, max_attempts, created_at)
     values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (dedupe_key) where dedupe_key is not null do nothing
     returning id`,
    [input.kind, JSON.stringify(input.payload ?? {}), input.runAt, input.orgId ?? null, input.dedupeKey ?? null, input.maxAttempts ?? 25, now],
  );
  return r.rows[0]?.id ?? null;
}

/**
 * Publishes a durable domain event in the caller's transaction: one job per kind subscribed to
 * the topic (see JobQueue.subscribe). The payload reaches each subscriber with `topic` added.
 */
export async function publish(q: Queryable, now: Date, topic: string, payload: Record<string, unknown>, orgId?: string): Promise<number> {
  const r = await q.query(
    `insert into jobs (kind, payload, run_at, org_id, created_at)
     select s.kind, $2::jsonb, $3, $4, $3 from job_subscriptions s where s.topic = $1`,
    [topic, JSON.stringify({ ...payload, topic }), now, orgId ?? null],
  );
  return r.rowCount;
}

/** Removes the pending job with this dedupe key (in the caller's transaction). */
export async function cancelJob(q: Queryable, dedupeKey: string): Promise<boolean> {
  return (await q.query('delete from jobs where dedupe_key = $1', [dedupeKey])).rowCount > 0;
}

/** How long (ms) the oldest due, unclaimed job of these kinds has been waiting; 0 when none. */
export async function oldestDueAge(q: Queryable, kinds: string[], now: Date): Promise<number> {
  const r = await q.query<{ at: Date | null }>(
    `select min(run_at) as at from jobs
     where kind = any($1::text[]) and failed_at is null and run_at <= $2 and (locked_until is null or locked_until <= $2)`,
    [kinds, now],
  );
  const at = r.rows[0]?.at;
  return at ? Math.max(0, now.getTime() - new Date(at).getTime()) : 0;
}

export interface JobQueueOptions {
  /** Where rows are claimed. */
  db: Db;
  /**
   * Where a run is settled (its finalize writes, reschedule, failure): the background store, with
   * its own connections and statement timeout (decision 0018). Default: `db`.
   */
  workDb?: Db;
  clock: Clock;
  log?: { error(obj: unknown, msg?: string): void };
  /** How long a claim holds a row before another instance may take it over. */
  leaseMs?: number;
  batchSize?: number;
  concurrency?: number;
  pollMs?: number;
  /** Poll on a timer. Off when time is driven by a test (ManualClock): tests call runDue(). */
  autoPoll: boolean;
}

export interface JobQueue {
  register<P = Record<string, unknown>>(kind: string, handler: JobHandler<P>): void;
  /** A recurring job run by exactly one instance every `everyMs` (first run: at start). */
  schedule(kind: string, everyMs: number, run: () => Promise<void>): void;
  /** Makes `publish(topic)` queue a `kind` job; `kind` must be registered here. */
  subscribe(topic: string, kind: string): void;
  enqueue(q: Queryable, input: Omit<EnqueueInput, 'runAt'> & { runAt?: Date }): Promise<number | null>;
  start(): Promise<void>;
  /** Runs every job due now (by the clock), repeatedly, until none is left. Returns how many ran. */
  runDue(): Promise<number>;
  stop(): Promise<void>;
}

export class LeaseLostError extends Error {}

export function createJobQueue(opts: JobQueueOptions): JobQueue {
  const { db, clock } = opts;
  const work = opts.workDb ?? db;
  const leaseMs = opts.leaseMs ?? 60_000;
  const batchSize = opts.batchSize ?? 16;
  const concurrency = opts.concurrency ?? 8;
  const pollMs = opts.pollMs ?? 1000;
  const handlers = new Map<string, JobHandler<any>>();
  const schedules = new Map<string, number>();
  const subscriptions: [string, string][] = [];
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let chain: Promise<unknown> = Promise.resolve();

  async function claim(): Promise<{ rows: JobRow[]; token: string }> {
    const now = clock.now();
    const token = randomBytes(12).toString('hex');
    const rows = await db.tx(async (q) =>
      (
        await q.query<JobRow>(
          `with due as (
             select id from jobs
             where kind = any($1::text[]) and failed_at is null and run_at <= $2
               and (locked_until is null or locked_until <= $2)
             order by run_at, id
             limit $3
             for update skip locked
           )
           update jobs j set locked_until = $4, lock_token = $5, attempts = j.attempts + 1
           from due where j.id = due.id
           returning j.id, j.kind, j.payload, j.attempts, j.max_attempts, j.run_at, j.org_id`,
          [[...handlers.keys()], now, batchSize, new Date(now.getTime() + leaseMs), token],
        )
      ).rows,
    );
    return { rows, token };
  }

  async function settle(row: JobRow, token: string, outcome: JobOutcome | void) {
    const recurring = schedules.get(row.kind);
    const retryAt = recurring !== undefined ? new Date(clock.now().getTime() + recurring) : outcome?.retryAt;
    await work.tx(async (q) => {
      const r = retryAt
        ? await q.query(
            `update jobs set run_at = $3, locked_until = null, lock_token = null, last_error = null,
               attempts = case when $4 then 0 else attempts end
             where id = $1 and lock_token = $2`,
            [row.id, token, retryAt, recurring !== undefined],
          )
        : await q.query('delete from jobs where id = $1 and lock_token = $2', [row.id, token]);
      if (r.rowCount !== 1) throw new LeaseLostError(`job ${row.id}: lease lost before completion`);
      await outcome?.finalize?.(q);
    });
  }

  async function fail(row: JobRow, token: string, err: unknown) {
    const now = clock.now();
    const backoff = Math.min(5_000 * 2 ** Math.min(row.attempts, 10), 3_600_000);
    const message = err instanceof Error ? err.message : String(err);
    const dead = row.attempts >= row.max_attempts && !schedules.has(row.kind);
    await work
      .query(
        `update jobs set run_at = $3, locked_until = null, lock_token = null, last_error = $4, failed_at = $5
         where id = $1 and lock_token = $2`,
        [row.id, token, new Date(now.getTime() + backoff), message.slice(0, 1000), dead ? now : null],
      )
      .catch(() => {});
  }

  async function runOne(row: JobRow, token: string) {
    const handler = handlers.get(row.kind);
    if (!handler) return;
    try {
      const outcome = await handler({
        id: row.id,
        kind: row.kind,
        payload: row.payload,
        attempts: row.attempts,
        runAt: row.run_at,
        orgId: row.org_id,
      });
      await settle(row, token, outcome);
    } catch (err) {
      if (err instanceof LeaseLostError) return;
      opts.log?.error({ err, job: row.id, kind: row.kind }, 'job failed');
      await fail(row, token, err);
    }
  }

  async function drain(): Promise<number> {
    let total = 0;
    for (let round = 0; round < 100 && !stopped; round++) {
      const { rows, token } = await claim();
      if (rows.length === 0) break;
      let next = 0;
      const workers = Array.from({ length: Math.min(concurrency, rows.length) }, async () => {
        while (next < rows.length) await runOne(rows[next++], token);
      });
      await Promise.all(workers);
      total += rows.length;
    }
    return total;
  }

  /** One run at a time per instance: the poller and runDue() queue behind each other. */
  function serialised(): Promise<number> {
    const run = chain.then(drain, drain);
    chain = run.catch(() => 0);
    return run;
  }

  function poll() {
    if (stopped) return;
    serialised()
      .catch((err) => opts.log?.error({ err }, 'job poll failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(poll, pollMs).unref();
      });
  }

  return {
    register(kind, handler) {
      handlers.set(kind, handler as JobHandler<any>);
    },
    schedule(kind, everyMs, run) {
      schedules.set(kind, everyMs);
      handlers.set(kind, async () => {
        await run();
      });
    },
    subscribe(topic, kind) {
      subscriptions.push([topic, kind]);
    },
    enqueue(q, input) {
      return enqueue(q, clock.now(), { ...input, runAt: input.runAt ?? clock.now() });
    },
    async start() {
      const now = clock.now();
      for (const kind of schedules.keys()) {
        await enqueue(db, now, { kind, runAt: now, dedupeKey: `schedule:${kind}` });
      }
      for (const [topic, kind] of subscriptions) {
        await db.query('insert into job_subscriptions (topic, kind) values ($1, $2) on conflict do nothing', [topic, kind]);
      }
      if (opts.autoPoll) timer = setTimeout(poll, pollMs).unref();
    },
    runDue: serialised,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await chain.catch(() => {});
    },
  };
}

export interface QueueStats {
  kind: string;
  /** Due now and waiting to be claimed (not held under a live lease, not dead). */
  due: number;
  /** Milliseconds the oldest of those has been due (0 when none). */
  oldestDueMs: number;
  /** Gave up after their last attempt (kept for inspection). */
  dead: number;
}

/** Depth and age of the queue per kind, for metrics; kinds without rows are absent. */
export async function queueStats(q: Queryable, now: Date): Promise<QueueStats[]> {
  const r = await q.query<{ kind: string; due: number; oldest: Date | null; dead: number }>(
    `select kind,
            count(*) filter (where failed_at is null and run_at <= $1 and (locked_until is null or locked_until <= $1))::int as due,
            min(run_at) filter (where failed_at is null and run_at <= $1 and (locked_until is null or locked_until <= $1)) as oldest,
            count(*) filter (where failed_at is not null)::int as dead
     from jobs group by kind order by kind`,
    [now],
  );
  return r.rows.map((row) => ({
    kind: row.kind,
    due: row.due,
    oldestDueMs: row.oldest ? Math.max(0, now.getTime() - new Date(row.oldest).getTime()) : 0,
    dead: row.dead,
  }));
}
