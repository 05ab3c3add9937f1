// Energy and money in exact integers: kWh figures travel as decimal text with three places (the
// watt-hour) and are summed as integer Wh; money is summed as integer pence (or a finer unit),
// never as binary floating point accumulated over rows (NOTES.md, time and money).

/** Decimal kWh text (or number) to integer Wh. */
export function toWh(kwh: string | number | null | undefined): number {
  if (kwh === null || kwh === undefined) return 0;
  if (typeof kwh === 'number') return Math.round(kwh * 1000);
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(kwh.trim());
  if (!m) throw new Error(`not a decimal: ${kwh}`);
  const frac = (m[3] ?? '').padEnd(3, '0');
  // More than three places (sums over numeric(14,3) never have them): round half away from zero.
  const whole = Number(m[2] || '0') * 1000 + Number(frac.slice(0, 3));
  const extra = frac.length > 3 && Number(frac[3]) >= 5 ? 1 : 0;
  return (m[1] === '-' ? -1 : 1) * (whole + extra);
}

/** Integer Wh to decimal kWh text with three places. */
export function kwhText(wh: number): string {
  const neg = wh < 0;
  const a = Math.abs(Math.round(wh));
  // From 1e21 a number's own text is exponential (not a decimal a store reads): go through BigInt.
  if (a >= 1e21) {
    const b = BigInt(a);
    return `${neg ? '-' : ''}${b / 1000n}.${String(b % 1000n).padStart(3, '0')}`;
  }
  return `${neg ? '-' : ''}${Math.floor(a / 1000)}.${String(a % 1000).padStart(3, '0')}`;
}

/** A decimal text scaled to an integer of `places` decimal places (exact; refuses more places). */
export function scaled(text: string, places: number): bigint {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!m) throw new Error(`not a decimal: ${text}`);
  const frac = m[3] ?? '';
  if (frac.length > places) throw new Error(`more than ${places} places: ${text}`);
  const v = BigInt(m[2] + frac.padEnd(places, '0'));
  return m[1] === '-' ? -v : v;
}

/** An integer of `places` decimal places to decimal text. */
export function unscaled(v: bigint, places: number): string {
  const neg = v < 0n;
  const s = (neg ? -v : v).toString().padStart(places + 1, '0');
  return `${neg ? '-' : ''}${s.slice(0, s.length - places)}${places ? '.' + s.slice(s.length - places) : ''}`;
}

/** Divides and rounds half away from zero (bigint). */
export function divRound(n: bigint, d: bigint): bigint {
  const neg = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const q = (an * 2n + ad) / (2n * ad);
  return neg ? -q : q;
}

/**
 * Pounds for an energy at a price: Wh × pence per kWh (up to 4 places), rounded to the penny
 * (half away from zero) once, for the line. Returns integer pence.
 */
export function linePence(wh: number, pricePPerKwh: string): bigint {
  // Wh (1e-3 kWh) × price (1e-4 p) = 1e-7 p
  return divRound(BigInt(wh) * scaled(pricePPerKwh, 4), 10_000_000n);
}

export const poundsText = (pence: bigint) => unscaled(pence, 2);

/** A ratio to four places, or null when the denominator is zero. */
export function ratio(n: number, d: number): number | null {
  if (d === 0) return null;
  return Math.round((n / d) * 10_000) / 10_000;
}
