// Forecast methods and accuracy metrics (pure: the tests and the optimiser call them too).
// A series is a map from UTC half-hour slot start (ms) to kWh; a missing slot has no value.
import { ukOffsetFast as ukClockOffset } from '../../kit/uk-time.ts';
export type Method = 'persistence' | 'seasonal' | 'blend';
export const METHODS: readonly Method[] = ['persistence', 'seasonal', 'blend'];

const DAY = 86_400_000;
const HOUR = 3_600_000;

export const METHOD_SENTENCES: Record<Method, string> = {
  persistence:
    "Measured persistence: each half hour takes the site's stored value at the same UK wall-clock time on the latest whole local day before the forecast origin (the last stored day carried forward).",
  seasonal:
    "Seasonal: each half hour takes the site's stored value at the same UK wall-clock time one local week earlier (same half hour last week), from before the forecast origin.",
  blend: 'Blend: a weighted mean of measured persistence and seasonal (weight seasonal_weight on seasonal); where one is missing the other is used alone.',
};

/**
 * The instant when the UK wall clock reads `localMs` (ms since 1970-01-01 00:00 as if local time were
 * UTC): null for a time skipped by the spring clock change; the first of the two for a time the autumn
 * change repeats (the BST one).
 */
export function ukWallClockInstant(localMs: number): number | null {
  // UK offsets are 0 or one hour: try the summer reading first (the earlier instant), then GMT.
  for (const off of [HOUR, 0]) {
    const t = localMs - off;
    if (t + ukClockOffset(t) === localMs) return t;
  }
  return null;
}

/**
 * The value carried forward to slot t from before `origin`, stepping back by whole UK local days
 * (`periodDays` = 1 for persistence, 7 for seasonal): the same wall-clock half hour on the latest
 * local day that many days back which ends before the origin (never the origin's own, unfinished
 * day). Across a clock change this is the same
 * local time, not the same UTC time. A wall-clock half hour the look-back day does not have (01:00 to
 * 01:59 on the 46-period spring day) is taken from one period further back; a wall-clock half hour the
 * look-back day has twice (01:00 to 01:59 on the 50-period autumn day) is taken from its first (BST)
 * occurrence; on the 50-period day itself both occurrences look back to the one half hour (decision 0194).
 */
function carried(series: Map<number, number>, t: number, origin: number, periodDays: number): number | null {
  const local = t + ukClockOffset(t);
  const day = Math.floor(local / DAY);
  const within = local - day * DAY;
  // Only whole local days count: the origin's own day is unfinished (a half hour of it not yet
  // reported must not blank the forecast), so the latest look-back day is the day before it.
  const originDay = Math.floor((origin + ukClockOffset(origin)) / DAY);
  for (let k = 1; k <= 60; k++) {
    const lookDay = day - k * periodDays;
    if (lookDay >= originDay) continue;
    const s = ukWallClockInstant(lookDay * DAY + within);
    if (s === null) continue;
    const v = series.get(s);
    return v === undefined ? null : v;
  }
  return null;
}

/** The forecast of slot t made at `origin` (t >= origin) by the method. */
export function forecastAt(series: Map<number, number>, t: number, origin: number, method: Method, seasonalWeight = 0.5): number | null {
  const p = method === 'seasonal' ? null : carried(series, t, origin, 1);
  const s = method === 'persistence' ? null : carried(series, t, origin, 7);
  if (method === 'persistence') return p;
  if (method === 'seasonal') return s;
  if (p === null) return s;
  if (s === null) return p;
  return seasonalWeight * s + (1 - seasonalWeight) * p;
}

export interface Metrics {
  /** Half hours where both forecast and actual exist. */
  n: number;
  mae_kwh: number | null;
  rmse_kwh: number | null;
  /** MAE divided by the mean absolute actual (null when that is zero). */
  nmae: number | null;
  /** Mean of forecast minus actual: positive means over-forecast. */
  bias_kwh: number | null;
}

/** Running sums behind the metrics, so a long backtest can be computed a chunk of days at a time. */
export interface MetricSums {
  n: number;
  abs: number;
  sq: number;
  err: number;
  act: number;
}
export const emptySums = (): MetricSums => ({ n: 0, abs: 0, sq: 0, err: 0, act: 0 });

/** Adds the pairs to the sums (in order: a chunked run adds in the same order as one pass). */
export function addPairs(acc: MetricSums, pairs: { forecast: number | null; actual: number | null }[]): MetricSums {
  for (const p of pairs) {
    if (p.forecast === null || p.actual === null) continue;
    const e = p.forecast - p.actual;
    acc.n++;
    acc.abs += Math.abs(e);
    acc.sq += e * e;
    acc.err += e;
    acc.act += Math.abs(p.actual);
  }
  return acc;
}

export function metricsOfSums({ n, abs, sq, err, act }: MetricSums): Metrics {
  if (n === 0) return { n, mae_kwh: null, rmse_kwh: null, nmae: null, bias_kwh: null };
  const r = (x: number) => Math.round(x * 10_000) / 10_000;
  return { n, mae_kwh: r(abs / n), rmse_kwh: r(Math.sqrt(sq / n)), nmae: act > 0 ? r(abs / act) : null, bias_kwh: r(err / n) };
}

export function metricsOf(pairs: { forecast: number | null; actual: number | null }[]): Metrics {
  return metricsOfSums(addPairs(emptySums(), pairs));
}
