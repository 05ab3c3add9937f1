// Exact decimal money and energy, the one way (decision 0340; NOTES.md, Time and money).
//
// A figure is an integer count of 10^-scale units (a bigint): decimal text such as "24.50" at
// scale 2 is 2450n. Sums and products of such integers are exact; a product's scale is the sum of
// its factors' scales. Rounding happens only where a rule says so, and there is ONE rounding rule:
// half away from zero (2.5 → 3, -2.5 → -3), to the named number of decimals. Figures leave the
// service as decimal text (a JSON string with a fixed number of decimals, e.g. "12.34" pounds,
// "1.250" kWh), never as a binary floating-point number summed along the way.
//
// The kit imports nothing from the modules or the platform.

const DECIMAL_TEXT = /^(-)?(\d+)(?:\.(\d+))?$/;
const POW10 = Array.from({ length: 40 }, (_, i) => 10n ** BigInt(i));

/** 10^n as a bigint (n ≥ 0). */
export function pow10(n: number): bigint {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`not a decimal scale: ${n}`);
  return n < POW10.length ? POW10[n]! : 10n ** BigInt(n);
}

/** Decimal text as an integer count of 10^-scale units; null when not plain decimal text or finer than `scale`. */
export function parseScaled(text: string, scale: number): bigint | null {
  const m = DECIMAL_TEXT.exec(text);
  if (!m) return null;
  const frac = m[3] ?? '';
  if (frac.length > scale) return null;
  const v = BigInt(m[2] + frac.padEnd(scale, '0'));
  return m[1] ? -v : v;
}

/** Decimal text at `scale` (as parseScaled); throws a RangeError on text a schema should have refused. */
export function decimal(text: string, scale: number): bigint {
  const v = parseScaled(text, scale);
  if (v === null) throw new RangeError(`not a decimal with at most ${scale} places: ${text}`);
  return v;
}

/** Decimal text of any precision rounded (half away from zero) to `scale` decimals; null when not decimal text. */
export function parseRounded(text: string, scale: number): bigint | null {
  const m = DECIMAL_TEXT.exec(text);
  if (!m) return null;
  const frac = m[3] ?? '';
  const v = BigInt(m[2] + frac);
  return rescale(m[1] ? -v : v, frac.length, scale);
}

/** An integer at `from` decimals rounded to `to` decimals (exact when to ≥ from), half away from zero. */
export function rescale(v: bigint, from: number, to: number): bigint {
  if (to === from) return v;
  if (to > from) return v * pow10(to - from);
  const step = pow10(from - to);
  const half = step >> 1n;
  return v >= 0n ? (v + half) / step : -((-v + half) / step);
}

/** Integer division `num / den` rounded half away from zero (exact: no floating point). */
export function roundDiv(num: bigint, den: bigint): bigint {
  if (den === 0n) throw new RangeError('division by zero');
  const neg = num < 0n !== den < 0n;
  const a = num < 0n ? -num : num;
  const d = den < 0n ? -den : den;
  const r = (a * 2n + d) / (2n * d);
  return neg ? -r : r;
}

/** An integer at `scale` decimals as text with exactly `dp` decimals (rounded half away from zero when dp < scale); never "-0.00". */
export function formatScaled(v: bigint, scale: number, dp = scale): string {
  const r = rescale(v, scale, dp);
  const neg = r < 0n;
  const s = (neg ? -r : r).toString().padStart(dp + 1, '0');
  const out = dp > 0 ? `${s.slice(0, s.length - dp)}.${s.slice(s.length - dp)}` : s;
  return neg && r !== 0n ? `-${out}` : out;
}

/** An integer at `scale` decimals as the shortest exact text ("0.5", "12", "-0.125"). */
export function formatPlain(v: bigint, scale: number): string {
  const s = formatScaled(v, scale, scale);
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

/**
 * A binary number (a measurement, a provider's price) fixed once to an integer at `scale`
 * decimals, half away from zero, before any arithmetic. Exact for figures with at most `scale` decimals.
 */
export function fromNumber(x: number, scale: number): bigint {
  const v = Math.round(Math.abs(x) * 10 ** scale);
  return BigInt(x < 0 ? -v : v);
}

/** An integer at `scale` decimals as a JSON number rounded to `dp` decimals (for figures the contract types as numbers). */
export function toNumber(v: bigint, scale: number, dp = scale): number {
  return Number(formatScaled(v, scale, dp));
}

/** The mean of binary figures (prices), summed exactly at 6 decimals, rounded to `dp` decimals; 0 for none. */
export function meanOf(values: number[], dp = 4): number {
  if (values.length === 0) return 0;
  const sum = values.reduce((s, v) => s + fromNumber(v, 6), 0n);
  return toNumber(roundDiv(sum, BigInt(values.length)), 6, dp);
}

/**
 * The VAT-inclusive price from the exclusive one without rounding the exclusive figure first:
 * exact decimal multiplication (16.46 × 1.05 = 17.283, 20.59 × 1.05 = 21.6195).
 */
export function withVat(exclusive: number, ratePercent = 5): number {
  const text = String(exclusive);
  if (/e/i.test(text)) return Number((exclusive * (100 + ratePercent)) / 100);
  const places = text.split('.')[1]?.length ?? 0;
  return toNumber(decimal(text, places) * BigInt(100 + ratePercent), places + 2);
}

// ---- Money: pence and pounds -----------------------------------------------------------------

/** Whole pence as pounds with two decimals: 1234n → "12.34", -5n → "-0.05". */
export function poundsText(pence: bigint): string {
  return formatScaled(pence, 2);
}

/** Pounds with at most two decimals ("12.3", "12.34", "-12") as whole pence; throws on anything else. */
export function penceOf(pounds: string): bigint {
  return decimal(pounds, 2);
}

/** Pence for an energy at a price: Wh × pence per kWh (at most 4 decimals), rounded to the penny once. */
export function costPence(wh: number | bigint, pencePerKwh: string): bigint {
  // Wh (1e-3 kWh) × price (1e-4 p) = 1e-7 p
  return roundDiv(BigInt(wh) * decimal(pencePerKwh, 4), pow10(7));
}

// ---- Energy: kWh as text with three decimals (the watt-hour), summed as integer Wh --------------

/** Decimal kWh text (any precision) or a number to integer Wh, rounded half away from zero; null and undefined are 0. */
export function toWh(kwh: string | number | null | undefined): number {
  if (kwh === null || kwh === undefined) return 0;
  if (typeof kwh === 'number') return Number(fromNumber(kwh, 3));
  const v = parseRounded(kwh.trim(), 3);
  if (v === null) throw new RangeError(`not a decimal: ${kwh}`);
  return Number(v);
}

/** Integer Wh (a number is rounded to the Wh first) as kWh text with three decimals: 1250 → "1.250". */
export function kwhText(wh: number | bigint): string {
  return formatScaled(typeof wh === 'bigint' ? wh : fromNumber(wh, 0), 3);
}

/** A ratio (not money) to four places, or null when the denominator is zero. */
export function ratio(n: number, d: number): number | null {
  if (d === 0) return null;
  return Math.round((n / d) * 10_000) / 10_000;
}
