// A small durable job queue in PostgreSQL (and PGlite): rows with run_at, attempts and a lease.
// Any number of instances poll the same table; a due row is claimed with FOR UPDATE SKIP LOCKED,
// so exactly one instance runs it, and held under a lease (locked_until) so that a crashed
// holder's work is taken over once the lease runs out. Time comes from the injected clock: the
// poller only decides *when to look*; what is due is decided by clock.now(), so tests move a
// ManualClock and call runDue().
//
// Work runs in two lanes, each with its own worker slots in every instance (decision 0088):
// `org` (work done for one organisation: claimed round-robin between organisations, at most
// `orgConcurrency` of one organisation running at once across instances) and `platform` (the
// service's own recurring work: schedules always run here, so organisations' work can never
// starve them). A slot is refilled as soon as its job ends; a slow job holds its own slot only.
//
// A handler does its slow part (an HTTP call) outside any transaction and returns what to record;
// the queue then records it and completes or reschedules the row in one short transaction, after
// checking the lease is still its own (a holder that lost its lease records nothing).
import { randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../db/index.ts';
import type { Clock } from '../../core/clock.ts';
import { continueTrace, currentTraceparent } from '../../core/trace.ts';
import { claimFair, waitingAge, type ClaimedRow } from './claim.ts';

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

export type Lane = 'org' | 'platform';

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

/**
 * The member of a job's stored payload that carries the trace of the request that queued it
 * (decision 0386): added only while tracing is on, taken off before the handler sees the payload.
 */
const TRACE_MEMBER = '_traceparent';

function withTrace(payload: unknown): unknown {
  const traceparent = currentTraceparent();
  if (!traceparent || typeof payload !== 'object' || payload === null || Array.isArray(payload)) return payload;
  return { ...payload, [TRACE_MEMBER]: traceparent };
}

function withoutTrace(payload: unknown): { payload: unknown; traceparent?: string } {
  if (typeof payload !== 'object' || payload === null || !(TRACE_MEMBER in payload)) return { payload };
  const { [TRACE_MEMBER]: traceparent, ...rest } = payload as Record<string, unknown>;
  return { payload: rest, traceparent: typeof traceparent === 'string' ? traceparent : undefined };
}

/** Adds a job in the caller's transaction. Returns its id, or null when the dedupe key is taken. */
export async function enqueue(q: Queryable, now: Date, input: EnqueueInput): Promise<number | null> {
  const r = await q.query<{ id: number }>(
    `insert into jobs (kind, payload, run_at, org_id, dedupe_key, max_attempts, created_at)
     values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (dedupe_key) where dedupe_key is not null do nothing
     returning id`,
    [input.kind, JSON.stringify(withTrace(input.payload ?? {})), input.runAt, input.orgId ?? null, input.dedupeKey ?? null, input.maxAttempts ?? 25, now],
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
    [topic, JSON.stringify(withTrace({ ...payload, topic })), now, orgId ?? null],
  );
  return r.rowCount;
}

/** Removes the pending job with this dedupe key (in the caller's transaction). */
export async function cancelJob(q: Queryable, dedupeKey: string): Promise<boolean> {
  return (await q.query('delete from jobs where dedupe_key = $1', [dedupeKey])).rowCount > 0;
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
  /** Worker slots of the org lane in this instance. */
  concurrency?: number;
  /** Jobs of one organisation running at once in the org lane, across every instance. */
  orgConcurrency?: number;
  /** Worker slots of the platform lane in this instance. */
  platformConcurrency?: number;
  pollMs?: number;
  /** Poll on a timer. Off when time is driven by a test (ManualClock): tests call runDue(). */
  autoPoll: boolean;
  /**
   * Told of each run that this instance settled: its kind, how long the handler and the settling
   * took in real seconds (not the service clock's: the work's own time), and whether it was done or
   * failed. A run whose lease was lost is not told.
   */
  onRun?: (kind: string, seconds: number, outcome: 'done' | 'failed') => void;
}

export interface JobQueue {
  /** A job kind and its handler; `lane` defaults to 'org'. */
  register<P = Record<string, unknown>>(kind: string, handler: JobHandler<P>, opts?: { lane?: Lane }): void;
  /** A recurring job (platform lane) run by exactly one instance every `everyMs` (first run: at start). */
  schedule(kind: string, everyMs: number, run: () => Promise<void>): void;
  /** Makes `publish(topic)` queue a `kind` job; `kind` must be registered here. */
  subscribe(topic: string, kind: string): void;
  enqueue(q: Queryable, input: Omit<EnqueueInput, 'runAt'> & { runAt?: Date }): Promise<number | null>;
  start(): Promise<void>;
  /** Runs every job due now (by the clock), repeatedly, until none is left. Returns how many ran. */
  runDue(): Promise<number>;
  /** How long (ms) the oldest due job of these kinds has waited for a worker (its organisation below its cap). */
  waitingAge(kinds: string[]): Promise<number>;
  stop(): Promise<void>;
}

export class LeaseLostError extends Error {}

/**
 * A recurring job keeps its cadence: the next run is on the schedule's own grid (the slot it was
 * due at plus whole periods), the first slot after now. A late run does not shift the grid, and
 * runs missed while the service was down are not made up one after another.
 */
function nextSlot(dueAt: Date, everyMs: number, now: Date): Date {
  const periods = Math.max(1, Math.floor((now.getTime() - dueAt.getTime()) / everyMs) + 1);
  return new Date(dueAt.getTime() + periods * everyMs);
}

/** A safety bound on one runDue(): a handler that keeps rescheduling itself into the past cannot spin forever. */
const MAX_RUNS_PER_DRAIN = 100_000;

export function createJobQueue(opts: JobQueueOptions): JobQueue {
  const { db, clock } = opts;
  const work = opts.workDb ?? db;
  const leaseMs = opts.leaseMs ?? 60_000;
  const pollMs = opts.pollMs ?? 1000;
  const orgCap = opts.orgConcurrency ?? 4;
  const handlers = new Map<string, { run: JobHandler<unknown>; lane: Lane }>();
  const schedules = new Map<string, number>();
  const subscriptions: [string, string][] = [];
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  async function settle(row: ClaimedRow, token: string, outcome: JobOutcome | void) {
    const recurring = schedules.get(row.kind);
    const retryAt = recurring !== undefined ? nextSlot(row.run_at, recurring, clock.now()) : outcome?.retryAt;
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

  async function fail(row: ClaimedRow, token: string, err: unknown) {
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

  async function runOne(row: ClaimedRow, token: string) {
    const handler = handlers.get(row.kind);
    if (!handler) return;
    const started = performance.now();
    const ran = (outcome: 'done' | 'failed') => opts.onRun?.(row.kind, (performance.now() - started) / 1000, outcome);
    try {
      const { payload, traceparent } = withoutTrace(row.payload);
      // The run continues the trace of the request that queued it (a root span for scheduled work).
      const outcome = await continueTrace(traceparent, `job ${row.kind}`, { 'eps.job.kind': row.kind, 'eps.job.attempt': row.attempts }, () =>
        handler.run({
          id: row.id,
          kind: row.kind,
          payload: payload as ClaimedRow['payload'],
          attempts: row.attempts,
          runAt: row.run_at,
          orgId: row.org_id,
        }),
      );
      await settle(row, token, outcome);
      ran('done');
    } catch (err) {
      if (err instanceof LeaseLostError) return;
      opts.log?.error({ err, job: row.id, kind: row.kind }, 'job failed');
      await fail(row, token, err);
      ran('failed');
    }
  }

  function createLane(name: Lane, slots: number, perOrg: number | null) {
    const running = new Set<Promise<void>>();
    let filling: Promise<number> = Promise.resolve(0);
    const kinds = () => [...handlers].filter(([, h]) => h.lane === name).map(([k]) => k);

    async function claimInto(): Promise<number> {
      const free = slots - running.size;
      const laneKinds = kinds();
      if (stopped || free <= 0 || laneKinds.length === 0) return 0;
      const now = clock.now();
      const token = randomBytes(12).toString('hex');
      const rows = await db.tx((q) =>
        claimFair(q, { lane: name, kinds: laneKinds, now, limit: free, perOrg, leaseUntil: new Date(now.getTime() + leaseMs), token }),
      );
      for (const row of rows) {
        const p: Promise<void> = runOne(row, token).finally(() => {
          running.delete(p);
          // Under a timer the freed slot is refilled at once; under a test's clock runDue() refills.
          if (opts.autoPoll && !stopped) fill().catch((err) => opts.log?.error({ err }, 'job claim failed'));
        });
        running.add(p);
      }
      return rows.length;
    }

    /** Claims into the free slots; one claim at a time per lane in this instance, so slots are never over-filled. */
    function fill(): Promise<number> {
      const run = filling.then(claimInto, claimInto);
      filling = run.catch(() => 0);
      return run;
    }

    async function drain(): Promise<number> {
      let total = 0;
      while (!stopped && total < MAX_RUNS_PER_DRAIN) {
        const started = await fill();
        total += started;
        if (running.size === 0 && started === 0) break;
        if (running.size > 0) await Promise.race(running);
      }
      return total;
    }

    async function idle() {
      do {
        await filling;
        await Promise.allSettled([...running]);
      } while (running.size > 0);
    }

    return { fill, drain, idle };
  }

  const lanes = [createLane('org', opts.concurrency ?? 8, orgCap), createLane('platform', opts.platformConcurrency ?? 2, null)];
  const sum = (ns: number[]) => ns.reduce((a, b) => a + b, 0);

  function poll() {
    if (stopped) return;
    Promise.all(lanes.map((l) => l.fill()))
      .catch((err) => opts.log?.error({ err }, 'job poll failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(poll, pollMs).unref();
      });
  }

  return {
    register(kind, handler, o) {
      // The payload is the JSON its kind was queued with: its shape is the kind's contract, not checked here.
      handlers.set(kind, { run: handler as JobHandler<unknown>, lane: o?.lane ?? 'org' });
    },
    schedule(kind, everyMs, run) {
      schedules.set(kind, everyMs);
      handlers.set(kind, { run: async () => void (await run()), lane: 'platform' });
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
    runDue: async () => sum(await Promise.all(lanes.map((l) => l.drain()))),
    waitingAge: (kinds) => waitingAge(db, kinds, clock.now(), orgCap),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await Promise.all(lanes.map((l) => l.idle()));
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
