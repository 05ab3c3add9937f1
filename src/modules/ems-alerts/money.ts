// Money for EMS alerts: impacts are whole pence (bigint) from exact decimal arithmetic; prices are
// decimal strings; nothing is summed in binary floating point (NOTES.md, Time and money).

const MICRO = 1_000_000n;

/** A decimal string (at most 6 decimals) as millionths. */
export function parseMicros(s: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d{1,6}))?$/.exec(s);
  if (!m) throw new Error(`not a decimal: ${s}`);
  const v = BigInt(m[2]) * MICRO + BigInt((m[3] ?? '').padEnd(6, '0'));
  return m[1] ? -v : v;
}

/** A measured energy (kWh, from the store as a float) fixed to millionths of a kWh once, before any arithmetic. */
export function kwhMicros(kwh: number): bigint {
  return BigInt(Math.round(kwh * 1e6));
}

/** Integer division rounded half away from zero. */
export function divRound(n: bigint, d: bigint): bigint {
  const neg = n < 0n !== d < 0n;
  const a = n < 0n ? -n : n;
  const b = d < 0n ? -d : d;
  const q = (a * 2n + b) / (2n * b);
  return neg ? -q : q;
}

/**
 * Pence per day: energy (millionths of a kWh) over a window of `windowHours`, scaled to 24 hours,
 * × a price in pence per kWh (decimal string); rounded once, to the penny.
 */
export function pencePerDay(energyMicroKwh: bigint, windowHours: number, priceP: string): bigint {
  const product = energyMicroKwh * parseMicros(priceP) * 24n; // pence × 10^12 × windowHours
  return divRound(product, MICRO * MICRO * BigInt(windowHours));
}

/** Whole pence as pounds with two decimals: 1234n → "12.34". */
export function poundsOf(pence: bigint): string {
  const neg = pence < 0n;
  const a = neg ? -pence : pence;
  return `${neg ? '-' : ''}${a / 100n}.${(a % 100n).toString().padStart(2, '0')}`;
}

/** Pounds with at most two decimals ("12.3", "12.34", "12") as whole pence. */
export function penceOf(pounds: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(pounds);
  if (!m) throw new Error(`not an amount in pounds: ${pounds}`);
  return BigInt(m[1]) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'));
}

/** A kWh figure for evidence: three decimals from the exact millionths. */
export function kwhFigure(micro: bigint): number {
  return Number(divRound(micro, 1000n)) / 1000;
}
