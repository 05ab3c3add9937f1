// The two SLA clocks of a work order, computed from its status timeline and its policy snapshot
// (decision 0161). Response runs from creation until the first move to in_progress; resolution runs
// until completed (again after a reopen). Both pause while on_hold when the policy says so, and
// stop for good when the work order is cancelled. A clock is breached once its elapsed SLA time
// reaches the target (at due_at), at risk once it reaches at_risk_percent of it (at risk_at).
import { slaAdd, slaBetween } from './calendar.ts';
import type { ClockState, SlaPolicy, Status } from './vocabulary.ts';

export type ClockName = 'response' | 'resolution';
export const CLOCK_NAMES: readonly ClockName[] = ['response', 'resolution'];

export interface TimelineEntry {
  at: number;
  status: Status;
}

/** What is stored for one clock, as of the last status change (`asOf`). */
export interface ClockSnapshot {
  target_ms: number;
  risk_ms: number;
  /** SLA time accumulated up to asOf. */
  elapsed_ms: number;
  running: boolean;
  /** When the clock stopped for good (first in_progress / completed / cancelled); null otherwise. */
  stopped_at: number | null;
  /** The clock stopped because the work order was cancelled. */
  cancelled: boolean;
  /** Instant elapsed reaches the target: projected when running, the past crossing otherwise, else null. */
  due_at: number | null;
  /** Same for the at-risk threshold. */
  risk_at: number | null;
}

function runs(clock: ClockName, status: Status, responded: boolean, policy: SlaPolicy): boolean {
  if (status === 'on_hold') return !policy.pause_on_hold && (clock === 'resolution' || !responded);
  if (status === 'completed' || status === 'verified' || status === 'cancelled') return false;
  if (clock === 'response') return !responded && status !== 'in_progress';
  return true;
}

export function riskTarget(targetMs: number, pct: number): number {
  return Math.ceil((targetMs * pct) / 100);
}

export function computeClock(clock: ClockName, policy: SlaPolicy, timeline: readonly TimelineEntry[], asOf: number): ClockSnapshot {
  const target = (clock === 'response' ? policy.response_minutes : policy.resolution_minutes) * 60_000;
  const risk = riskTarget(target, policy.at_risk_percent);
  let acc = 0;
  let dueAt: number | null = null;
  let riskAt: number | null = null;
  let responded = false;
  let running = false;
  for (let i = 0; i < timeline.length; i++) {
    const { at, status } = timeline[i];
    if (status === 'in_progress') responded = true;
    running = runs(clock, status, responded, policy);
    const end = i + 1 < timeline.length ? timeline[i + 1].at : asOf;
    if (!running || end <= at) continue;
    const m = slaBetween(policy, at, end);
    if (riskAt === null && acc + m >= risk) riskAt = slaAdd(policy, at, risk - acc);
    if (dueAt === null && acc + m >= target) dueAt = slaAdd(policy, at, target - acc);
    acc += m;
  }
  const last = timeline[timeline.length - 1];
  let stoppedAt: number | null = null;
  let cancelled = false;
  if (clock === 'response') {
    const first = timeline.find((e) => e.status === 'in_progress');
    if (first) stoppedAt = first.at;
  } else if (last.status === 'completed' || last.status === 'verified') {
    stoppedAt = [...timeline].reverse().find((e) => e.status === 'completed')!.at;
  }
  if (stoppedAt === null && last.status === 'cancelled') {
    stoppedAt = last.at;
    cancelled = true;
  }
  if (running) {
    if (riskAt === null) riskAt = slaAdd(policy, asOf, risk - acc);
    if (dueAt === null) dueAt = slaAdd(policy, asOf, target - acc);
  }
  return { target_ms: target, risk_ms: risk, elapsed_ms: acc, running, stopped_at: stoppedAt, cancelled, due_at: dueAt, risk_at: riskAt };
}

/** Elapsed SLA time at `now` (later than the snapshot): the stored figure plus the running part. */
export function elapsedAt(c: ClockSnapshot, policy: SlaPolicy, asOf: number, now: number): number {
  return c.elapsed_ms + (c.running ? slaBetween(policy, asOf, Math.max(asOf, now)) : 0);
}

/** The clock's state at `now`. */
export function stateAt(c: ClockSnapshot, now: number): ClockState {
  if (c.due_at !== null && c.due_at <= now) return 'breached';
  if (c.stopped_at !== null) return c.cancelled ? 'cancelled' : 'met';
  if (c.risk_at !== null && c.risk_at <= now) return 'at_risk';
  return 'ok';
}
