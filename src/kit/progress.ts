// A long job's progress, the one way every job reports it (decision 0451): how many units are done
// of how many, what a unit is, and the whole per cent, rounded down (a job shows 100 only when every
// unit is done). Export runs, ledger rebuilds, backtests, study runs and buffer replays answer it.
//
// The kit imports nothing from the modules or the platform.

export interface JobProgress {
  /** Units done so far. */
  done: number;
  /** Units in the job; null while not known yet. */
  total: number | null;
  /** What is counted: `rows`, `days`, `steps`, `records`. */
  unit: string;
  /** floor(done × 100 / total), 0 to 100; 100 for an empty job; null while the total is not known. */
  percent: number | null;
}

/** The progress of `done` of `total` units (total null when not known yet). */
export function jobProgress(done: number, total: number | null, unit: string): JobProgress {
  const d = Math.max(0, Math.trunc(done));
  if (total === null) return { done: d, total: null, unit, percent: null };
  const t = Math.max(0, Math.trunc(total));
  const percent = t === 0 ? 100 : Math.min(100, Math.floor((Math.min(d, t) * 100) / t));
  return { done: d, total: t, unit, percent };
}
