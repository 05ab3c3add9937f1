// Background work for every module: one durable job queue per instance (src/infra/jobs), owned by
// the platform. A module declares its job handlers, recurring jobs and event subscriptions in the
// instance its factory returns (`background`); the platform registers them, starts the queue after
// the server listens and stops it first on shutdown. The queue's depth, age and dead jobs are
// metrics, per kind, and so is how long each run took.
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Queryable } from '../infra/db/index.ts';
import {
  createJobQueue,
  queueStats,
  type EnqueueInput,
  type JobHandler,
  type JobOutcome,
  type JobQueue,
  type Lane,
  type QueueStats,
} from '../infra/jobs/queue.ts';
import type { Config } from '../core/config.ts';
import { ManualClock, type Clock } from './clock.ts';
import type { Metrics } from './metrics.ts';

export type { JobQueue, JobHandler, Job, JobOutcome, Lane } from '../infra/jobs/queue.ts';
export { publish, cancelJob, LeaseLostError } from '../infra/jobs/queue.ts';

/** What a module runs in the background, declared in its instance. */
export interface ModuleBackground {
  /**
   * Job kinds this module handles (`lane` 'org' by default: fair between organisations, decision 0088).
   * A handler of any payload fits `JobHandler<never>`; the queue hands it the payload its kind was queued with.
   */
  jobs?: readonly { kind: string; handler: JobHandler<never>; lane?: Lane }[];
  /** Recurring jobs on the platform lane, run by exactly one instance every `everyMs` (first run at start). */
  schedules?: readonly { kind: string; everyMs: number; run: () => Promise<void> }[];
  /** Domain events (`publish(topic)`) that queue a job of `kind` (a kind this module or another handles). */
  subscriptions?: readonly { topic: string; kind: string }[];
}

export function createPlatformJobs(deps: {
  db: Db;
  backgroundDb: Db;
  clock: Clock;
  log?: FastifyBaseLogger;
  config: Pick<Config, 'jobs'>;
  metrics: Metrics;
}): JobQueue {
  const runs = deps.metrics.histogram({
    name: 'job_run_duration_seconds',
    help: "How long each job run took on this instance (its handler and settling, in real seconds), by kind and outcome ('done' or 'failed')",
    labelNames: ['kind', 'outcome'],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  });
  // Under a ManualClock time is the test's: it calls runDue() instead of a timer polling.
  return createJobQueue({
    db: deps.db,
    workDb: deps.backgroundDb,
    clock: deps.clock,
    log: deps.log,
    autoPoll: !(deps.clock instanceof ManualClock),
    onRun: (kind, seconds, outcome) => runs.observe({ kind, outcome }, seconds),
    ...deps.config.jobs,
  });
}

/**
 * What one step of a long job answers when work remains (an export's files, a backtest's weeks):
 * the next step, queued as this one completes (in the transaction that settles it), 1 ms later so
 * other organisations' work interleaves.
 */
export function nextStep(jobs: Pick<JobQueue, 'enqueue'>, clock: Clock, next: Omit<EnqueueInput, 'runAt'>): JobOutcome {
  return {
    finalize: async (q) => {
      await jobs.enqueue(q, { ...next, runAt: new Date(clock.now().getTime() + 1) });
    },
  };
}

/** Registers each module's declared background work with the queue; returns every kind known. */
export function registerBackground(queue: JobQueue, modules: readonly { name: string; background?: ModuleBackground }[]): string[] {
  const kinds: string[] = [];
  for (const m of modules) {
    for (const j of m.background?.jobs ?? []) {
      queue.register(j.kind, j.handler, { lane: j.lane });
      kinds.push(j.kind);
    }
    for (const s of m.background?.schedules ?? []) {
      queue.schedule(s.kind, s.everyMs, s.run);
      kinds.push(s.kind);
    }
  }
  for (const m of modules) for (const s of m.background?.subscriptions ?? []) queue.subscribe(s.topic, s.kind);
  return kinds;
}

/** The queue's depth, oldest wait and dead jobs per kind, read from the store at each scrape. */
export function jobQueueMetrics(metrics: Metrics, deps: { db: Queryable; clock: Clock; kinds: () => readonly string[] }) {
  // One read per scrape: the gauges are collected together, so they share the pending query.
  let pending: Promise<QueueStats[]> | undefined;
  const read = () => (pending ??= queueStats(deps.db, deps.clock.now()).finally(() => setImmediate(() => (pending = undefined))));
  const perKind = (name: string, help: string, value: (s: QueueStats) => number) =>
    metrics.gauge({
      name,
      help,
      labelNames: ['kind'],
      async collect(gauge) {
        const stats = await read();
        gauge.reset();
        for (const kind of deps.kinds()) gauge.set({ kind }, 0);
        for (const s of stats) gauge.set({ kind: s.kind }, value(s));
      },
    });
  perKind('job_queue_depth', 'Jobs due now and waiting to be claimed, by kind', (s) => s.due);
  perKind('job_queue_oldest_age_seconds', 'How long the oldest job waiting to be claimed has been due, by kind', (s) => s.oldestDueMs / 1000);
  perKind('job_queue_dead', 'Jobs that gave up after their last attempt, by kind', (s) => s.dead);
}
