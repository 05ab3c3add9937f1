// Carbon intensity, cached: a figure belongs to its half hour, so an entry is fresh for at most
// CARBON_CACHE_TTL_SECONDS and never beyond the end of the half hour it was fetched in (the
// provider fills in `actual` and moves the forecast each half hour).
import type { FastifyBaseLogger } from 'fastify';
import { UpstreamError, type UpstreamCache, type Served } from '../../infra/upstream/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { errors } from '../../platform/errors.ts';
import { CARBON_PROVIDER, type CarbonProvider, type IntensityRow } from './carbon-provider.ts';
import { floorSlot, SLOT_MS } from '../../kit/uk-time.ts';

const RETAIN_MS = 6 * 3600_000;

export interface CarbonServiceOptions {
  provider: CarbonProvider;
  cache: UpstreamCache;
  clock: Clock;
  log: FastifyBaseLogger;
  ttlMs: number;
}

export type CarbonService = ReturnType<typeof createCarbonService>;

export function createCarbonService(o: CarbonServiceOptions) {
  async function guarded<T>(p: Promise<Served<T>>): Promise<Served<T>> {
    try {
      return await p;
    } catch (e) {
      if (!(e instanceof UpstreamError)) throw e;
      o.log.warn({ provider: e.provider, kind: e.kind, status: e.status }, 'carbon intensity call failed');
      throw errors.upstream(CARBON_PROVIDER);
    }
  }

  return {
    /** The current half hour, GB. */
    current(): Promise<Served<IntensityRow>> {
      return guarded(
        o.cache.serve('carbon:current', {
          provider: 'carbon',
          fetch: () => o.provider.current(),
          freshFor: (row, now) => Math.min(o.ttlMs, Math.max(0, row.to - now)),
          retainMs: RETAIN_MS,
        }),
      );
    },
    /**
     * Past and present half hours of [from, to), GB, fetched a UK-agnostic UTC day at a time (each
     * day cached on its own: a day wholly in the past keeps for the cache period, the current one
     * until its half hour ends), so a year is 365 calls once and then none.
     */
    async range(from: number, to: number): Promise<IntensityRow[]> {
      const DAY = 86_400_000;
      const out: IntensityRow[] = [];
      for (let d = Math.floor(from / DAY) * DAY; d < to; d += DAY) {
        const served = await guarded(
          o.cache.serve<IntensityRow[]>(`carbon:day:${d}`, {
            provider: 'carbon',
            fetch: () => o.provider.range(d, d + DAY),
            freshFor: (_rows, now) =>
              d + DAY <= now - SLOT_MS ? Math.max(o.ttlMs, 86_400_000) : Math.min(o.ttlMs, Math.max(0, floorSlot(now) + SLOT_MS - now)),
            retainMs: RETAIN_MS,
          }),
        );
        for (const r of served.value) if (r.from >= d && r.from < d + DAY && r.from >= floorSlot(from) && r.from < to) out.push(r);
      }
      return out;
    },
    /** Half hours from the one containing now, for `hours` hours (up to 48), GB. */
    async forward(hours: number): Promise<Served<IntensityRow[]>> {
      const anchor = floorSlot(o.clock.now().getTime());
      const served = await guarded(
        o.cache.serve<{ anchor: number; rows: IntensityRow[] }>('carbon:fw48h', {
          provider: 'carbon',
          fetch: async () => ({ anchor, rows: await o.provider.forward48h(anchor) }),
          freshFor: (v, now) => Math.min(o.ttlMs, Math.max(0, v.anchor + SLOT_MS - now)),
          retainMs: RETAIN_MS,
        }),
      );
      const end = anchor + hours * 3600_000;
      const rows = served.value.rows.filter((r) => r.to > anchor && r.from < end);
      return { ...served, value: rows };
    },
  };
}
