// Price arithmetic in decimal, never accumulated in binary floating point (NOTES.md, Time and money).

const SCALE = 1_000_000n;

/** A price in millionths of a penny, exact for the provider's figures (at most 6 decimals). */
export function toMicros(v: number): bigint {
  return BigInt(Math.round(v * 1e6));
}

/** Millionths back to a number, rounded half away from zero to `dp` decimals (dp <= 6). */
export function fromMicros(m: bigint, dp = 6): number {
  const step = 10n ** BigInt(6 - dp);
  const neg = m < 0n;
  let a = neg ? -m : m;
  a = ((a + step / 2n) / step) * step;
  const whole = a / SCALE;
  const frac = (a % SCALE).toString().padStart(6, '0').slice(0, dp);
  return Number(`${neg ? '-' : ''}${whole}${dp > 0 ? '.' + frac : ''}`);
}

/** Mean of prices, exact sum, rounded to `dp` decimals. */
export function meanOf(values: number[], dp = 4): number {
  if (values.length === 0) return 0;
  const sum = values.reduce((s, v) => s + toMicros(v), 0n);
  // Round the quotient half away from zero at micro precision, then to dp.
  const n = BigInt(values.length);
  const q = (sum * 2n + (sum < 0n ? -n : n)) / (2n * n);
  return fromMicros(q, dp);
}

/**
 * The VAT-inclusive price derived from the exclusive one without rounding the exclusive figure
 * first: exact decimal multiplication (16.46 × 1.05 = 17.283, 20.59 × 1.05 = 21.6195).
 */
export function withVat(exclusive: number, ratePercent = 5): number {
  const text = String(exclusive);
  if (/e/i.test(text)) return Number((exclusive * (100 + ratePercent)) / 100);
  const neg = text.startsWith('-');
  const [whole, frac = ''] = text.replace('-', '').split('.');
  const digits = BigInt(whole + frac) * BigInt(100 + ratePercent);
  const scale = frac.length + 2;
  const s = digits.toString().padStart(scale + 1, '0');
  const out = `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
  return Number(`${neg ? '-' : ''}${out}`);
}

// ---- Exact decimal text arithmetic ---------------------------------------------------------------
// Figures given as decimal text ("24.50", "0.125") held as integers of 10^-scale units, so sums and
// products are exact and rounding happens only where a rule says so.

const DECIMAL_TEXT = /^(-)?(\d+)(?:\.(\d+))?$/;

/** Decimal text as an integer count of 10^-scale units; null when not plain decimal text or finer than `scale`. */
export function parseScaled(text: string, scale: number): bigint | null {
  const m = DECIMAL_TEXT.exec(text);
  if (!m) return null;
  const frac = m[3] ?? '';
  if (frac.length > scale) return null;
  const v = BigInt(m[2] + frac.padEnd(scale, '0'));
  return m[1] ? -v : v;
}

const POW10 = Array.from({ length: 40 }, (_, i) => 10n ** BigInt(i));

/** An integer at `from` decimals rounded to `to` decimals (to <= from), half away from zero. */
export function rescale(v: bigint, from: number, to: number): bigint {
  if (to === from) return v;
  if (to > from) return v * POW10[to - from];
  const step = POW10[from - to];
  const half = step >> 1n;
  return v >= 0n ? (v + half) / step : -((-v + half) / step);
}

/** An integer at `scale` decimals as text with exactly `dp` decimals (rounded half away from zero when dp < scale). */
export function formatScaled(v: bigint, scale: number, dp = scale): string {
  const r = rescale(v, scale, dp);
  const neg = r < 0n;
  const s = (neg ? -r : r).toString().padStart(dp + 1, '0');
  const out = dp > 0 ? `${s.slice(0, s.length - dp)}.${s.slice(s.length - dp)}` : s;
  return neg && r !== 0n ? `-${out}` : out;
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
