// The demo organisation's market data (decision 0486). A demo organisation (realm `demo`) is the
// one a new user meets, often on a machine that cannot reach the providers, so its market reads
// never call them: they answer from a sample week shipped with the service (demo-sample.json, the
// providers' own answer bodies, read by the providers' own decoders), replayed onto the days asked
// for. Each half hour takes the sample's figures for the same weekday and the same time on the UK
// wall clock, so every UK day is whole: 48 half hours, 46 on the spring clock change (01:00-02:00
// does not occur) and 50 on the autumn one (01:00-02:00 occurs twice, with the same figures). The
// answers keep the live shapes; the routes label them `simulated` (register.ts, dataBasis.demo).
import { readFileSync } from 'node:fs';
import type { Served } from '../../infra/upstream/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { floorSlot, SLOT_MS, ukClock } from '../../kit/uk-time.ts';
import { decodePage, type RateRow } from './tariff-provider.ts';
import { decodeList, type IntensityRow } from './carbon-provider.ts';
import type { PriceRange, PriceService } from './prices.ts';
import type { CarbonService } from './carbon.ts';

const SAMPLE_FILE = new URL('./demo-sample.json', import.meta.url);
const HALF_HOURS_A_WEEK = 7 * 48;

/** A half hour's place in the sample: weekday (0 = Sunday) and minute of the UK wall clock. */
const slotKey = (t: number) => {
  const c = ukClock(t);
  return c.weekday * 1440 + c.minute;
};

interface Week {
  rates: Map<number, Pick<RateRow, 'exc' | 'inc'>>;
  intensity: Map<number, Pick<IntensityRow, 'forecast' | 'actual' | 'index'>>;
}

/** The sample's week by weekday and wall-clock half hour; refuses a sample that is not seven whole days. */
export function readSampleWeek(text: string): Week {
  const raw = JSON.parse(text) as { tariff?: unknown; carbon?: unknown };
  const rates = new Map<number, Pick<RateRow, 'exc' | 'inc'>>();
  for (const r of decodePage(raw.tariff).rows) if (r.to - r.from === SLOT_MS) rates.set(slotKey(r.from), { exc: r.exc, inc: r.inc });
  const intensity = new Map<number, Pick<IntensityRow, 'forecast' | 'actual' | 'index'>>();
  for (const r of decodeList(raw.carbon))
    if (r.to - r.from === SLOT_MS) intensity.set(slotKey(r.from), { forecast: r.forecast, actual: r.actual, index: r.index });
  // Seven whole days: every weekday's 48 wall-clock half hours (a clock-change day in the sample
  // would leave 01:00-02:00 out, and is refused).
  for (let day = 0; day < 7; day++) {
    for (let minute = 0; minute < 1440; minute += 30) {
      const k = day * 1440 + minute;
      if (!rates.has(k) || !intensity.has(k)) throw new Error(`the demo market sample lacks weekday ${day} ${minute / 60}h (${SAMPLE_FILE.pathname})`);
    }
  }
  if (rates.size !== HALF_HOURS_A_WEEK || intensity.size !== HALF_HOURS_A_WEEK) throw new Error('the demo market sample is not half-hourly');
  return { rates, intensity };
}

let shipped: Week | null = null;
/** The shipped sample, read on first use (a production organisation never needs it). */
function week(): Week {
  shipped ??= readSampleWeek(readFileSync(SAMPLE_FILE, 'utf8'));
  return shipped;
}

/** The half-hour starts from the one containing `from` up to `to` (exclusive). */
function starts(from: number, to: number): number[] {
  const out: number[] = [];
  for (let t = floorSlot(from); t < to; t += SLOT_MS) out.push(t);
  return out;
}

/**
 * Prices and carbon intensity replayed from the sample, with the live services' signatures. Every
 * half hour asked for is there (`complete`), nothing is stale, and `cached_at` is the time of the
 * answer (nothing was fetched). Carbon intensity has its sample `actual` for half hours that have
 * begun and null for later ones, as the provider's own answers do.
 */
export function createSampleMarket(clock: Clock): { prices: PriceService; carbon: CarbonService } {
  const now = () => clock.now().getTime();
  const rate = (t: number): RateRow => ({ from: t, to: t + SLOT_MS, ...week().rates.get(slotKey(t))! });
  const intensity = (t: number, at: number): IntensityRow => {
    const s = week().intensity.get(slotKey(t))!;
    return { from: t, to: t + SLOT_MS, forecast: s.forecast, actual: t <= at ? s.actual : null, index: s.index };
  };
  const served = <T>(value: T, at: number): Served<T> => ({ value, fetchedAt: at, stale: false, fromCache: false });
  return {
    prices: {
      range: async (_region: string, from: number, to: number): Promise<PriceRange> => ({ rows: starts(from, to).map(rate), stale: false, fetchedAt: now() }),
    },
    carbon: {
      current: async () => {
        const at = now();
        return served(intensity(floorSlot(at), at), at);
      },
      range: async (from: number, to: number) => {
        const at = now();
        return starts(from, to).map((t) => intensity(t, at));
      },
      forward: async (hours: number) => {
        const at = now();
        const anchor = floorSlot(at);
        return served(
          starts(anchor, anchor + hours * 3600_000).map((t) => intensity(t, at)),
          at,
        );
      },
    },
  };
}
