// The PV yield model of EMS reporting (decision 0146): the expected yield of a UK day from the site
// settings (pv_kwp × expected_yield_kwh_per_kwp × the month's share of a UK year ÷ days in the month
// × the calibration factor) and its shape over the day from a clear-sky model (the sun's position
// at a central-England reference point, Haurwitz clear-sky irradiance). Pure functions: the tests
// and the docs' worked examples use them.
import { addDays, SLOT_MS, ukMidnight, slotsInDay } from '../../../kit/uk-time.ts';

/** Reference point for the sun's position (sites carry no coordinates): central England. */
export const REF_LAT_DEG = 52.5;
export const REF_LON_DEG = -1.5;
/** Performance ratio the clear-sky model assumes (DC/AC and temperature losses). */
export const CLEAR_SKY_PR = 0.85;
/**
 * Share of a UK south-facing array's annual yield falling in each month, per cent (January first),
 * rounded from the PVGIS monthly profile for central England; sums to 100.
 */
export const MONTH_SHARE_PCT = [2.5, 4.3, 8.1, 11.5, 13.8, 13.9, 13.7, 12.0, 9.3, 6.1, 2.9, 1.9] as const;

const RAD = Math.PI / 180;

/** Cosine of the solar zenith angle at instant t (NOAA's approximations), at the reference point. */
export function cosZenith(t: number, latDeg = REF_LAT_DEG, lonDeg = REF_LON_DEG): number {
  const d = new Date(t);
  const start = Date.UTC(d.getUTCFullYear(), 0, 1);
  const dayOfYear = Math.floor((t - start) / 86_400_000) + 1;
  const hours = d.getUTCHours() + d.getUTCMinutes() / 60 + d.getUTCSeconds() / 3600;
  const g = ((2 * Math.PI) / 365) * (dayOfYear - 1 + (hours - 12) / 24);
  const decl =
    0.006918 -
    0.399912 * Math.cos(g) +
    0.070257 * Math.sin(g) -
    0.006758 * Math.cos(2 * g) +
    0.000907 * Math.sin(2 * g) -
    0.002697 * Math.cos(3 * g) +
    0.00148 * Math.sin(3 * g);
  const eqTimeMin = 229.18 * (0.000075 + 0.001868 * Math.cos(g) - 0.032077 * Math.sin(g) - 0.014615 * Math.cos(2 * g) - 0.040849 * Math.sin(2 * g));
  const trueSolarMin = hours * 60 + eqTimeMin + 4 * lonDeg;
  const hourAngle = (trueSolarMin / 4 - 180) * RAD;
  const lat = latDeg * RAD;
  return Math.sin(lat) * Math.sin(decl) + Math.cos(lat) * Math.cos(decl) * Math.cos(hourAngle);
}

/** Clear-sky global horizontal irradiance, W/m² (Haurwitz 1945): 1098 cos z e^(-0.057 / cos z). */
export function clearSkyGhi(cosZ: number): number {
  return cosZ > 0.01 ? 1098 * cosZ * Math.exp(-0.057 / cosZ) : 0;
}

/** Clear-sky energy of one kWp in the half hour starting at `slot`, kWh (mean of six 5-minute samples). */
export function clearSkyKwhPerKwp(slot: number): number {
  let sum = 0;
  for (let i = 0; i < 6; i++) sum += clearSkyGhi(cosZenith(slot + (i + 0.5) * 300_000));
  return (sum / 6 / 1000) * 0.5 * CLEAR_SKY_PR;
}

/** The half hours of a UK day with their clear-sky energy for an array of `kwp`, in Wh (not rounded). */
export function clearSkyDay(date: string, kwp: number): { slot: number; wh: number }[] {
  const from = ukMidnight(date);
  const n = slotsInDay(date);
  const out = [];
  for (let i = 0; i < n; i++) {
    const slot = from + i * SLOT_MS;
    out.push({ slot, wh: clearSkyKwhPerKwp(slot) * kwp * 1000 });
  }
  return out;
}

/** Expected PV energy of a UK day, integer Wh: kWp × annual yield × month share ÷ days in month × factor. */
export function expectedDayWh(date: string, kwp: number, yieldKwhPerKwp: number, factor: number): number {
  const [y, m] = date.split('-').map(Number);
  const daysInMonth = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return Math.round((kwp * yieldKwhPerKwp * MONTH_SHARE_PCT[m - 1] * 1000 * factor) / 100 / daysInMonth);
}

/**
 * The expected energy of a day spread over its half hours in proportion to the clear-sky shape,
 * integer Wh summing exactly to the day's figure (the remainder of rounding goes to the largest).
 */
export function expectedHalfHours(date: string, dayWh: number): { slot: number; wh: number; clearShare: number }[] {
  const cs = clearSkyDay(date, 1);
  const total = cs.reduce((s, x) => s + x.wh, 0);
  const out = cs.map((x) => ({ slot: x.slot, wh: total > 0 ? Math.round((dayWh * x.wh) / total) : 0, clearShare: total > 0 ? x.wh / total : 0 }));
  const diff = dayWh - out.reduce((s, x) => s + x.wh, 0);
  if (diff !== 0 && out.length) {
    let big = 0;
    for (let i = 1; i < out.length; i++) if (out[i].wh > out[big].wh) big = i;
    out[big].wh += diff;
  }
  return out;
}

/** Pearson correlation of two series of equal length (null when either is constant). */
export function correlation(a: number[], b: number[]): number | null {
  const n = a.length;
  if (n < 3) return null;
  const ma = a.reduce((s, x) => s + x, 0) / n;
  const mb = b.reduce((s, x) => s + x, 0) / n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) ** 2;
    sbb += (b[i] - mb) ** 2;
  }
  if (saa === 0 || sbb === 0) return null;
  return sab / Math.sqrt(saa * sbb);
}

export const nextDay = (d: string) => addDays(d, 1);
