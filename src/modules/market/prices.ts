// Agile prices by UK local day, cached per region and day. A day that is fully published (or over)
// does not change: it stays fresh for TARIFF_CACHE_TTL_SECONDS. A day still being published
// (tomorrow before about 16:00 UK time, or the last hour of today) is asked again after
// TARIFF_UNPUBLISHED_TTL_SECONDS. When the provider is down, expired days are served marked stale.
import type { FastifyBaseLogger } from 'fastify';
import { UpstreamError, type UpstreamCache } from '../../infra/upstream/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Metrics } from '../../platform/metrics.ts';
import { errors } from '../../platform/errors.ts';
import { TARIFF_PROVIDER, type RateRow, type TariffProvider } from './tariff-provider.ts';
import { fromNumber, meanOf } from '../../kit/decimal.ts';
import { addDays, datesCovering, slotsInDay, ukDate, ukMidnight, SLOT_MS } from '../../kit/uk-time.ts';

/** Days of prices kept to serve stale while the provider is down. */
const RETAIN_MS = 14 * 24 * 3600_000;

type DayValue = { rows: [number, number, number, number][] };

export interface PriceRange {
  rows: RateRow[];
  /** True when any day in the answer is past its freshness (provider unreachable). */
  stale: boolean;
  /** When the oldest data in the answer was fetched from the provider. */
  fetchedAt: number;
}

export interface PriceServiceOptions {
  provider: TariffProvider;
  cache: UpstreamCache;
  clock: Clock;
  metrics: Pick<Metrics, 'upstreamCalls'>;
  log: FastifyBaseLogger;
  completeTtlMs: number;
  pendingTtlMs: number;
}

export type PriceService = ReturnType<typeof createPriceService>;

export function createPriceService(o: PriceServiceOptions) {
  const inflight = new Map<string, Promise<RateRow[]>>();
  const key = (region: string, date: string) => `tariff:${o.provider.productCode}:${region}:${date}`;

  function fetchSpan(region: string, first: string, last: string): Promise<RateRow[]> {
    const k = `${region}:${first}:${last}`;
    let p = inflight.get(k);
    if (!p) {
      p = o.provider.fetchRates(region, ukMidnight(first), ukMidnight(addDays(last, 1))).finally(() => inflight.delete(k));
      inflight.set(k, p);
    }
    return p;
  }

  /** Every published half hour of `region` overlapping [from, to), ascending. */
  async function range(region: string, from: number, to: number): Promise<PriceRange> {
    const dates = datesCovering(from, to);
    const now = o.clock.now().getTime();
    const entries = await Promise.all(dates.map((d) => o.cache.read<DayValue>(key(region, d))));
    const byDate = new Map(dates.map((d, i) => [d, entries[i]]));
    const missing = dates.filter((d) => !(byDate.get(d) && now < byDate.get(d)!.freshUntil));
    let stale = false;
    if (missing.length === 0) o.metrics.upstreamCalls.inc({ provider: 'tariff', outcome: 'cache_hit' });
    else {
      const first = missing[0];
      const last = missing[missing.length - 1];
      try {
        const rows = await fetchSpan(region, first, last);
        const fetchedAt = o.clock.now().getTime();
        for (let d = first; d <= last; d = addDays(d, 1)) {
          const dayRows = rows.filter((r) => ukDate(r.from) === d);
          const over = ukMidnight(addDays(d, 1)) <= fetchedAt;
          const complete = dayRows.length >= slotsInDay(d) || over;
          const entry = {
            value: { rows: dayRows.map((r) => [r.from, r.to, r.exc, r.inc] as [number, number, number, number]) },
            fetchedAt,
            freshUntil: fetchedAt + (complete ? o.completeTtlMs : o.pendingTtlMs),
          };
          await o.cache.write(key(region, d), entry, RETAIN_MS);
          if (byDate.has(d)) byDate.set(d, entry);
        }
      } catch (e) {
        if (!(e instanceof UpstreamError)) throw e;
        o.log.warn({ provider: e.provider, kind: e.kind, status: e.status }, 'tariff provider call failed');
        if (missing.some((d) => !byDate.get(d))) throw errors.upstream(TARIFF_PROVIDER);
        stale = true;
        o.metrics.upstreamCalls.inc({ provider: 'tariff', outcome: 'stale_served' });
      }
    }
    const rows: RateRow[] = [];
    let fetchedAt = Infinity;
    for (const d of dates) {
      const e = byDate.get(d)!;
      fetchedAt = Math.min(fetchedAt, e.fetchedAt);
      for (const [f, t, exc, inc] of e.value.rows) if (t > from && f < to) rows.push({ from: f, to: t, exc, inc });
    }
    rows.sort((a, b) => a.from - b.from);
    return { rows, stale, fetchedAt: Number.isFinite(fetchedAt) ? fetchedAt : now };
  }

  return { range };
}

export interface CheapWindow {
  from: number;
  to: number;
  rows: RateRow[];
  meanInc: number;
  meanExc: number;
}

/**
 * The next cheap window: among runs of `slots` consecutive published half hours that start at or
 * after the start of the half hour containing `now`, the one with the lowest mean VAT-inclusive
 * price; ties go to the earliest. Null when fewer than `slots` consecutive half hours are published.
 */
export function nextCheapWindow(rows: RateRow[], now: number, slots: number): CheapWindow | null {
  const start = Math.floor(now / SLOT_MS) * SLOT_MS;
  const usable = rows.filter((r) => r.from >= start);
  let best: { i: number; sum: bigint } | null = null;
  for (let i = 0; i + slots <= usable.length; i++) {
    const run = usable.slice(i, i + slots);
    if (run.some((r, k) => k > 0 && run[k - 1].to !== r.from)) continue;
    const sum = run.reduce((s, r) => s + fromNumber(r.inc, 6), 0n);
    if (!best || sum < best.sum) best = { i, sum };
  }
  if (!best) return null;
  const run = usable.slice(best.i, best.i + slots);
  return {
    from: run[0].from,
    to: run[run.length - 1].to,
    rows: run,
    meanInc: meanOf(run.map((r) => r.inc)),
    meanExc: meanOf(run.map((r) => r.exc)),
  };
}
