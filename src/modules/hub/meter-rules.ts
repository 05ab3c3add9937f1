// What the hub accepts from a charger's meter (decision 0275): each sample of a MeterValues,
// StopTransaction or TransactionEvent is judged on its own. Refused samples (unreadable or absurd
// values, instants before the service calendar or ahead of the clock, outside their transaction) are
// not stored; flagged samples (register going backwards, more energy than the charger's rated power
// can deliver in the time, at or before the latest accepted sample) are stored with their reason and
// never billed. Either way the transaction counts it under its reason (`meter_anomalies`), and the
// reading is left out of the charger's telemetry. Accepted samples of a transaction rise in time and
// never fall in energy, so the session's energy is the same figure wherever it is read: the last
// accepted register less the first (the transactions list) and the sum of the rises between
// accepted samples (the cost).

/**
 * The largest energy register accepted, Wh (1 TWh): a 350 kW charger running flat out for 30 years
 * reaches about 92 GWh. Below the hub's bigint columns and JavaScript's exact integers by far, and any
 * difference of two registers (kWh) fits the energy accounting's numeric(14,3) columns.
 */
export const REGISTER_LIMIT_WH = 1e12;
/** A charger instant further ahead of the service's clock than this is not accepted (as chargerTime). */
export const CLOCK_TOLERANCE_MS = 300_000;
/** The first instant a charger may report: the service calendar's first day (market's FIRST_SERVICE_DATE). */
export const EARLIEST_MS = Date.UTC(2000, 0, 1);
/** Energy between two accepted samples may reach rated power x elapsed time x this... */
export const RATED_TOLERANCE = 1.1;
/** ...over the elapsed time plus this (timestamps in whole seconds, meters that round). */
export const RATED_SLACK_MS = 30_000;

export const METER_ANOMALIES = [
  'timestamp_out_of_range',
  'ahead_of_clock',
  'outside_transaction',
  'register_out_of_range',
  'register_backwards',
  'beyond_rated_power',
  'out_of_order',
  'power_out_of_range',
] as const;
export type MeterAnomaly = (typeof METER_ANOMALIES)[number];

/** Refused: not stored at all. Flagged: stored with the reason, excluded from billing. */
export const REFUSED: ReadonlySet<MeterAnomaly> = new Set([
  'timestamp_out_of_range',
  'ahead_of_clock',
  'outside_transaction',
  'register_out_of_range',
  'power_out_of_range',
]);

/** An instant a charger reported: null when usable, else why not. */
export function timeProblem(tsMs: number, nowMs: number): MeterAnomaly | null {
  if (!Number.isFinite(tsMs) || tsMs < EARLIEST_MS) return 'timestamp_out_of_range';
  if (tsMs > nowMs + CLOCK_TOLERANCE_MS) return 'ahead_of_clock';
  return null;
}

/** An energy register reading, Wh: a whole number from 0 to REGISTER_LIMIT_WH. */
export const registerInRange = (wh: number) => Number.isInteger(wh) && wh >= 0 && wh <= REGISTER_LIMIT_WH;

/** Active import power, kW: from 0 to the charger's rated power with the tolerance. */
export const powerInRange = (kw: number, ratedKw: number) => Number.isFinite(kw) && kw >= 0 && kw <= ratedKw * RATED_TOLERANCE;

/** The most energy (Wh) a charger of this rating can plausibly deliver in `elapsedMs`. */
export const plausibleWh = (ratedKw: number, elapsedMs: number) => (ratedKw * RATED_TOLERANCE * (Math.max(0, elapsedMs) + RATED_SLACK_MS)) / 3600;

/** A transaction's meter as the judge sees it: its window and its latest accepted sample. */
export interface TxMeter {
  startMs: number;
  /** The stop instant when stopped (or being stopped by this message). */
  stopMs: number | null;
  ratedKw: number;
  /** Whether a register reading has been accepted (the start's, or a first sample). */
  known: boolean;
  lastMs: number;
  lastWh: number;
}

export type Verdict = { kind: 'accept' } | { kind: 'duplicate' } | { kind: 'flag'; reason: MeterAnomaly } | { kind: 'refuse'; reason: MeterAnomaly };

/**
 * Judges one register sample (its instant already usable by timeProblem) of a transaction, and moves
 * `m` on when it is accepted.
 */
export function judgeRegister(m: TxMeter, tsMs: number, wh: number): Verdict {
  if (!registerInRange(wh)) return { kind: 'refuse', reason: 'register_out_of_range' };
  if (tsMs < m.startMs || (m.stopMs !== null && tsMs > m.stopMs)) return { kind: 'refuse', reason: 'outside_transaction' };
  if (!m.known) {
    Object.assign(m, { known: true, lastMs: tsMs, lastWh: wh });
    return { kind: 'accept' };
  }
  if (tsMs === m.lastMs && wh === m.lastWh) return { kind: 'duplicate' };
  if (tsMs <= m.lastMs) return { kind: 'flag', reason: 'out_of_order' };
  if (wh < m.lastWh) return { kind: 'flag', reason: 'register_backwards' };
  if (wh - m.lastWh > plausibleWh(m.ratedKw, tsMs - m.lastMs)) return { kind: 'flag', reason: 'beyond_rated_power' };
  m.lastMs = tsMs;
  m.lastWh = wh;
  return { kind: 'accept' };
}

/** A transaction's anomaly counts as stored (hub_transactions.meter_anomalies): reason -> counts and when received. */
export type AnomalyCounts = Record<string, { samples: number; first_received_at: string; last_received_at: string }>;

export function countAnomaly(c: AnomalyCounts, reason: MeterAnomaly, at: Date): void {
  const iso = at.toISOString();
  const hit = c[reason];
  if (hit) {
    hit.samples += 1;
    hit.last_received_at = iso;
  } else c[reason] = { samples: 1, first_received_at: iso, last_received_at: iso };
}

/** The API view of the counts: one entry per reason, in METER_ANOMALIES order. */
export function anomalyView(c: AnomalyCounts | null | undefined) {
  const out: { reason: MeterAnomaly; samples: number; first_received_at: string; last_received_at: string }[] = [];
  for (const reason of METER_ANOMALIES) {
    const v = c?.[reason];
    if (v) out.push({ reason, samples: v.samples, first_received_at: v.first_received_at, last_received_at: v.last_received_at });
  }
  return out;
}
