// Forecast methods and accuracy metrics (pure: the tests and the optimiser call them too).
// A series is a map from UTC half-hour slot start (ms) to kWh; a missing slot has no value.
export type Method = 'persistence' | 'seasonal' | 'blend';
export const METHODS: readonly Method[] = ['persistence', 'seasonal', 'blend'];

const DAY = 86_400_000;
const WEEK = 7 * DAY;

export const METHOD_SENTENCES: Record<Method, string> = {
  persistence: "Measured persistence: each half hour takes the site's stored value at the same time on the latest whole day before the forecast origin (the last stored day carried forward).",
  seasonal: "Seasonal: each half hour takes the site's stored value at the same time on the latest whole week before the forecast origin (same half hour last week).",
  blend: 'Blend: a weighted mean of measured persistence and seasonal (weight seasonal_weight on seasonal); where one is missing the other is used alone.',
};

/** The value carried forward to slot t from before `origin`, stepping back by whole periods. */
function carried(series: Map<number, number>, t: number, origin: number, period: number): number | null {
  let s = t - period;
  while (s >= origin) s -= period;
  const v = series.get(s);
  return v === undefined ? null : v;
}

/** The forecast of slot t made at `origin` (t >= origin) by the method. */
export function forecastAt(series: Map<number, number>, t: number, origin: number, method: Method, seasonalWeight = 0.5): number | null {
  const p = method === 'seasonal' ? null : carried(series, t, origin, DAY);
  const s = method === 'persistence' ? null : carried(series, t, origin, WEEK);
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

export function metricsOf(pairs: { forecast: number | null; actual: number | null }[]): Metrics {
  let n = 0;
  let abs = 0;
  let sq = 0;
  let err = 0;
  let act = 0;
  for (const p of pairs) {
    if (p.forecast === null || p.actual === null) continue;
    const e = p.forecast - p.actual;
    n++;
    abs += Math.abs(e);
    sq += e * e;
    err += e;
    act += Math.abs(p.actual);
  }
  if (n === 0) return { n, mae_kwh: null, rmse_kwh: null, nmae: null, bias_kwh: null };
  const r = (x: number) => Math.round(x * 10_000) / 10_000;
  return { n, mae_kwh: r(abs / n), rmse_kwh: r(Math.sqrt(sq / n)), nmae: act > 0 ? r(abs / act) : null, bias_kwh: r(err / n) };
}
