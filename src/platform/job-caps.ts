// Per-organisation caps on queued long work (issue 35, decision 0291). Every operation that queues
// background work of some size (forecast backtests, data exports, study runs, energy-ledger
// rebuilds) calls `ensureJobRoom` in the transaction that queues it, before the enqueue: the
// organisation's pending work of those kinds (queued, retrying or running) is counted under a
// transaction-scoped lock, so two requests cannot both take the last place, and past the cap the
// request is refused 429 with Retry-After and queues nothing. The caps are each module's settings.
// Another organisation's queue is never counted: one tenant filling its own cap leaves everyone
// else's room as it was.
import type { Queryable } from '../infra/db/index.ts';
import { lockPendingWork, pendingWork } from '../infra/jobs/pending.ts';
import { AppError } from './errors.ts';

export interface JobCap {
  /** The job kinds that make up this work (e.g. one kind whose steps each queue the next). */
  kinds: readonly string[];
  /** Pending pieces of work one organisation may have. */
  limit: number;
  /** The work in the refusal's words, plural: `backtests`, `exports`. */
  what: string;
  /** The payload member naming one piece of work (a step job's id), so its steps count once. */
  itemKey?: string;
}

/** Seconds a refused caller is told to wait: long work takes minutes, not seconds. */
export const JOB_CAP_RETRY_AFTER_SECONDS = 60;

export const jobCapErrors = {
  full: (cap: JobCap, pending: number) =>
    new AppError(429, `${pending} ${cap.what} are already queued or running for this organisation; at most ${cap.limit} may be. Wait for one to finish.`, {
      code: 'job_backlog_full',
      headers: { 'Retry-After': String(JOB_CAP_RETRY_AFTER_SECONDS) },
    }),
};

/** Throws 429 `job_backlog_full` when the organisation already has `cap.limit` pieces of this work pending. */
export async function ensureJobRoom(q: Queryable, orgId: string, cap: JobCap): Promise<void> {
  await lockPendingWork(q, orgId, cap.kinds);
  const pending = await pendingWork(q, orgId, cap.kinds, cap.itemKey);
  if (pending >= cap.limit) throw jobCapErrors.full(cap, pending);
}
