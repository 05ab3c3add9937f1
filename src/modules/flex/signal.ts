// The VPP signal for an enrolled site: for each coming half hour, charge, discharge or hold, with
// the reason, from the site region's published prices and the GB carbon intensity forecast. It is
// calculated advice: no device command is sent.
import type { IntensityRow, RateRow } from '../market/index.ts';

export type Action = 'charge' | 'discharge' | 'hold';

export const SIGNAL_METHOD =
  'Each half hour’s VAT-inclusive price is ranked against the published horizon: charge at or below the lower ' +
  'quartile (not when grid carbon is high or very high) or at a zero or negative price, discharge at or above the ' +
  'upper quartile, otherwise hold.';

export interface SignalSlot {
  row: RateRow;
  carbon: IntensityRow | null;
  action: Action;
  reason: string;
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
}

export function deriveSignal(prices: RateRow[], carbon: IntensityRow[], now: number, slots: number) {
  const horizon = prices.filter((r) => r.to > now);
  const sorted = horizon.map((r) => r.inc).sort((a, b) => a - b);
  const cheap = sorted.length ? percentile(sorted, 0.25) : null;
  const dear = sorted.length ? percentile(sorted, 0.75) : null;
  const byStart = new Map(carbon.map((c) => [c.from, c]));
  const out: SignalSlot[] = horizon.slice(0, slots).map((row) => {
    const c = byStart.get(row.from) ?? null;
    const grid = c ? `grid carbon is ${c.index} (${c.actual ?? c.forecast} gCO2/kWh)` : 'grid carbon is not forecast for this half hour';
    const price = `price ${row.inc} p/kWh`;
    if (row.inc <= 0) return { row, carbon: c, action: 'charge' as const, reason: `${price} is zero or negative; ${grid}` };
    if (cheap === dear) return { row, carbon: c, action: 'hold' as const, reason: `${price}: no price spread across the published horizon` };
    if (row.inc <= cheap!) {
      if (c && (c.index === 'high' || c.index === 'very high')) {
        return { row, carbon: c, action: 'hold' as const, reason: `${price} is in the cheapest quarter (≤ ${cheap}) but ${grid}` };
      }
      return { row, carbon: c, action: 'charge' as const, reason: `${price} is in the cheapest quarter of the published horizon (≤ ${cheap}); ${grid}` };
    }
    if (row.inc >= dear!) {
      return { row, carbon: c, action: 'discharge' as const, reason: `${price} is in the dearest quarter of the published horizon (≥ ${dear}); ${grid}` };
    }
    return { row, carbon: c, action: 'hold' as const, reason: `${price} is between the cheapest and dearest quarters (${cheap} to ${dear}); ${grid}` };
  });
  return { cheap, dear, horizonSlots: horizon.length, slots: out };
}
