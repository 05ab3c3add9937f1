// Costing a charging session under a price schedule, in exact decimal (market's helpers): energy at
// the schedule's p/kWh, or a time-of-day band's (UK local time), a per-minute fee over the whole
// session, a connection fee, and an overstay fee per minute after the energy stopped rising beyond
// a grace period. Every line ex VAT in pence; the totals in pounds to the penny with VAT shown.
import { parseScaled, formatScaled, pow10, roundDiv } from '../../kit/decimal.ts';
import { ukClock, ukOffsetFast } from '../../kit/uk-time.ts';

export const Q = 6; // rates and quantities at 10^-6
const MIN_MS = 60_000;
const DAY_MS = 24 * 3_600_000;

export interface Band {
  /** UK local wall-clock start, HH:MM (inclusive). */
  start: string;
  /** UK local wall-clock end, HH:MM or 24:00 (exclusive). */
  end: string;
  energy_p_per_kwh: string;
}

export interface Schedule {
  version: number;
  energy_p_per_kwh: string;
  time_p_per_minute: string;
  connection_fee_p: string;
  overstay_p_per_minute: string;
  overstay_grace_minutes: number;
  vat_percent: string;
  bands: Band[];
}

/** A sample of the energy register: instant (ms) and Wh. */
export interface Sample {
  t: number;
  wh: number;
}

export const COST_METHOD =
  'Energy between consecutive Energy.Active.Import.Register samples is spread evenly over the time between them and priced at the p/kWh in force at each ' +
  'moment (a time-of-day band of the schedule, by UK local wall clock, else the base p/kWh); the per-minute fee runs from start to stop; the connection fee ' +
  'is charged once; overstay minutes are those from the last rise of the register to the stop, less the grace period. Lines are ex VAT in pence (4 dp); ' +
  "the net is rounded to the penny, VAT is the schedule's rate on the rounded net (to the penny, half away from zero), total = net + VAT. " +
  'The schedule is the one in force when the session started.';

export const QUOTE_METHOD =
  'The stated energy is spread evenly over the stated duration from the stated start and priced as a metered session would be (' +
  'time-of-day bands by UK local wall clock, per-minute fee over the duration, connection fee, stated overstay minutes beyond the grace period), ' +
  'under the published schedule in force at the start.';

const q = (s: string): bigint => {
  const v = parseScaled(s, Q);
  if (v === null) throw new Error(`not a decimal: ${s}`);
  return v;
};

export const minuteOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Problems with a band list (overlaps, empty or reversed ranges), as [index, message]. */
export function bandProblems(bands: readonly Band[]): [number, string][] {
  const out: [number, string][] = [];
  const ranges = bands.map((b) => [minuteOf(b.start), minuteOf(b.end)] as const);
  ranges.forEach(([s, e], i) => {
    if (s >= 24 * 60 || e > 24 * 60) out.push([i, 'Times run from 00:00 to 24:00']);
    else if (e <= s) out.push([i, 'A band ends after it starts (split an overnight band in two: 22:00-24:00 and 00:00-06:00)']);
    else {
      for (let j = 0; j < i; j++) {
        const [s2, e2] = ranges[j];
        if (s < e2 && s2 < e) out.push([i, `Overlaps band ${j}`]);
      }
    }
  });
  return out;
}

/** The energy rate (Q) in force at instant t. */
function rateAt(s: Schedule, t: number): bigint {
  const m = ukClock(t).minute;
  for (const b of s.bands) if (m >= minuteOf(b.start) && m < minuteOf(b.end)) return q(b.energy_p_per_kwh);
  return q(s.energy_p_per_kwh);
}

/** The next instant after t at which the rate may change (a UK local minute boundary of a band, or a clock change). */
function nextBoundary(s: Schedule, t: number, until: number): number {
  const edges = new Set<number>([0]);
  for (const b of s.bands) {
    edges.add(minuteOf(b.start));
    edges.add(minuteOf(b.end) % (24 * 60));
  }
  const c = ukClock(t);
  const base = t - (t % MIN_MS); // UK offsets are whole hours: minute boundaries agree in UTC
  let best = until;
  for (const e of edges) {
    let d = e - c.minute;
    if (d <= 0) d += 24 * 60;
    const cand = base + d * MIN_MS;
    if (cand > t && cand < best) best = cand;
  }
  // UK clocks change on a UTC hour boundary: within one UTC hour the offset is constant, so the
  // wall-clock arithmetic above holds up to the next hour and is redone from there.
  const nextHour = t - (t % 3_600_000) + 3_600_000;
  return Math.min(best, nextHour, until);
}

/** Milliseconds at each energy rate in a 24-hour UK local day (no clock change in it). */
function dayAtRates(s: Schedule): Map<bigint, number> {
  const out = new Map<bigint, number>();
  let banded = 0;
  for (const b of s.bands) {
    const ms = (minuteOf(b.end) - minuteOf(b.start)) * MIN_MS;
    const r = q(b.energy_p_per_kwh);
    out.set(r, (out.get(r) ?? 0) + ms);
    banded += ms;
  }
  const base = q(s.energy_p_per_kwh);
  out.set(base, (out.get(base) ?? 0) + DAY_MS - banded);
  return out;
}

/**
 * Milliseconds at each energy rate over [from, to). The work is bounded by the band edges, not the
 * span (decision 0276): without bands one rate holds throughout; with bands the edges of the first
 * and last local day, and of each day the clocks change, are walked, and the whole local days
 * between (a UK offset holds for more than 150 days at a time, so 120 days at once never cross a
 * change unseen) are counted from one day's figures. A century costs a few thousand steps.
 */
export function timeAtRates(s: Schedule, from: number, to: number): Map<bigint, bigint> {
  const out = new Map<bigint, bigint>();
  const add = (r: bigint, ms: number) => {
    if (ms > 0) out.set(r, (out.get(r) ?? 0n) + BigInt(ms));
  };
  if (!(to > from)) return out;
  if (!s.bands.length) {
    add(q(s.energy_p_per_kwh), to - from);
    return out;
  }
  let day: Map<bigint, number> | undefined;
  let t = from;
  while (t < to) {
    if (to - t >= DAY_MS && t % MIN_MS === 0 && ukClock(t).minute === 0) {
      // Local midnight with whole days ahead: the days before the clocks next change are alike.
      const o = ukOffsetFast(t);
      const same = (k: number) => ukOffsetFast(t + k * DAY_MS - 1) === o;
      let n = Math.min(Math.floor((to - t) / DAY_MS), 120);
      if (!same(n)) {
        let lo = 0; // same(lo) holds (no days)
        let hi = n; // same(hi) fails
        while (hi - lo > 1) {
          const mid = Math.floor((lo + hi) / 2);
          if (same(mid)) lo = mid;
          else hi = mid;
        }
        n = lo;
      }
      if (n > 0) {
        day ??= dayAtRates(s);
        for (const [r, ms] of day) add(r, ms * n);
        t += n * DAY_MS;
        continue;
      }
    }
    const next = nextBoundary(s, t, to);
    add(rateAt(s, t), next - t);
    t = next;
  }
  return out;
}

interface Line {
  kind: 'energy' | 'time' | 'connection' | 'overstay';
  description: string;
  quantity: string;
  unit: string;
  rate_p: string;
  amount_p: string;
}

export interface Costing {
  schedule_version: number;
  energy_kwh: string;
  duration_minutes: string;
  overstay_minutes: string;
  lines: Line[];
  net_gbp: string;
  vat_percent: string;
  vat_gbp: string;
  total_gbp: string;
  currency: 'GBP';
}

/**
 * Costs a session: `samples` are register readings in time order (the first at the start, meter
 * start), `startMs`/`stopMs` its span, `lastRiseMs` when the energy last rose (null: never).
 */
export function costSession(s: Schedule, samples: readonly Sample[], startMs: number, stopMs: number, overstayMs: number): Costing {
  // Energy by rate (kWh at Q, keyed by the rate's text).
  const byRate = new Map<bigint, bigint>();
  let totalKwhQ = 0n;
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1];
    const b = samples[i];
    const wh = BigInt(Math.max(0, b.wh - a.wh));
    if (wh === 0n) continue;
    const span = b.t - a.t;
    if (span <= 0) {
      const r = rateAt(s, b.t);
      byRate.set(r, (byRate.get(r) ?? 0n) + wh * 1000n);
      totalKwhQ += wh * 1000n;
      continue;
    }
    // Spread evenly: each rate's share of the span, cumulated so the parts add up to the whole.
    let given = 0n;
    let upto = 0n;
    const parts = [...timeAtRates(s, a.t, b.t)].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
    for (const [r, ms] of parts) {
      upto += ms;
      const cum = roundDiv(wh * 1000n * upto, BigInt(span));
      byRate.set(r, (byRate.get(r) ?? 0n) + cum - given);
      given = cum;
    }
    totalKwhQ += wh * 1000n;
  }
  const lines: Line[] = [];
  let netP12 = 0n; // pence at 10^-12
  const rates = [...byRate.entries()].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  for (const [rate, kwh] of rates) {
    if (kwh === 0n) continue;
    const amount = kwh * rate;
    netP12 += amount;
    const band = s.bands.find((b) => q(b.energy_p_per_kwh) === rate);
    lines.push({
      kind: 'energy',
      description: band && rate !== q(s.energy_p_per_kwh) ? `Energy in the ${band.start}-${band.end} band` : 'Energy',
      quantity: formatScaled(kwh, Q, 3),
      unit: 'kWh',
      rate_p: formatScaled(rate, Q, 4),
      amount_p: formatScaled(amount, 2 * Q, 4),
    });
  }
  const minutesQ = roundDiv(BigInt(Math.max(0, stopMs - startMs)) * 1_000_000n, BigInt(MIN_MS));
  const perMin = q(s.time_p_per_minute);
  if (perMin !== 0n) {
    const amount = minutesQ * perMin;
    netP12 += amount;
    lines.push({
      kind: 'time',
      description: 'Time connected',
      quantity: formatScaled(minutesQ, Q, 2),
      unit: 'minutes',
      rate_p: formatScaled(perMin, Q, 4),
      amount_p: formatScaled(amount, 2 * Q, 4),
    });
  }
  const conn = q(s.connection_fee_p);
  if (conn !== 0n) {
    const amount = conn * 1_000_000n;
    netP12 += amount;
    lines.push({
      kind: 'connection',
      description: 'Connection fee',
      quantity: '1',
      unit: 'session',
      rate_p: formatScaled(conn, Q, 4),
      amount_p: formatScaled(amount, 2 * Q, 4),
    });
  }
  const overQ = roundDiv(BigInt(Math.max(0, overstayMs - s.overstay_grace_minutes * MIN_MS)) * 1_000_000n, BigInt(MIN_MS));
  const overRate = q(s.overstay_p_per_minute);
  if (overRate !== 0n && overQ > 0n) {
    const amount = overQ * overRate;
    netP12 += amount;
    lines.push({
      kind: 'overstay',
      description: `Overstay beyond ${s.overstay_grace_minutes} minutes' grace`,
      quantity: formatScaled(overQ, Q, 2),
      unit: 'minutes',
      rate_p: formatScaled(overRate, Q, 4),
      amount_p: formatScaled(amount, 2 * Q, 4),
    });
  }
  // Pence at 10^-12 -> pounds to the penny: pounds at 10^-2 = pence at 10^0.
  const netPence = roundDiv(netP12, pow10(12));
  const vatPence = roundDiv(netPence * q(s.vat_percent), 100n * 1_000_000n);
  return {
    schedule_version: s.version,
    energy_kwh: formatScaled(totalKwhQ, Q, 3),
    duration_minutes: formatScaled(minutesQ, Q, 2),
    overstay_minutes: formatScaled(overQ, Q, 2),
    lines,
    net_gbp: formatScaled(netPence, 2, 2),
    vat_percent: formatScaled(q(s.vat_percent), Q, 2),
    vat_gbp: formatScaled(vatPence, 2, 2),
    total_gbp: formatScaled(netPence + vatPence, 2, 2),
    currency: 'GBP',
  };
}

/** The price a driver sees in pence per kWh including VAT at instant t (PCPR 2023 reg 11). */
export function pencePerKwhIncVat(s: Schedule, t: number): string {
  const r = rateAt(s, t);
  return formatScaled(roundDiv(r * (100n * 1_000_000n + q(s.vat_percent)), 100n * 1_000_000n), Q, 2);
}
