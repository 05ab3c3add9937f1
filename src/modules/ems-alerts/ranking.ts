// The EMS alert queue's order: impact (£/day) highest first; equal impacts by raise time, oldest
// first, then by id, so the order never depends on how rows came out of the store.

export interface Rankable {
  id: string;
  impact_pence: bigint;
  raised_at: string;
}

export function compareRank(a: Rankable, b: Rankable): number {
  if (a.impact_pence !== b.impact_pence) return a.impact_pence > b.impact_pence ? -1 : 1;
  const ta = Date.parse(a.raised_at);
  const tb = Date.parse(b.raised_at);
  if (ta !== tb) return ta - tb;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export function rankAlerts<T extends Rankable>(items: readonly T[]): T[] {
  return [...items].sort(compareRank);
}

/** The queue's total in whole pence: an exact sum. */
export function totalPence(items: readonly Rankable[]): bigint {
  return items.reduce((s, a) => s + a.impact_pence, 0n);
}
