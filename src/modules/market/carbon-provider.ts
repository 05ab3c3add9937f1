// The national carbon intensity API (upstreams.md section 3). All times UTC, written without
// seconds (2025-05-13T20:00Z); gCO2/kWh; `actual` is null until estimated; `index` is one of five
// lower-case bands. GET /intensity (current half hour), GET /intensity/{from}/fw48h.
import { BadResponseError, jsonBody, type UpstreamClient } from '../../infra/upstream/index.ts';
import { parseInstant } from '../../kit/uk-time.ts';

export const CARBON_PROVIDER = 'Carbon Intensity';
export const INDEX_BANDS = ['very low', 'low', 'moderate', 'high', 'very high'] as const;
export type IndexBand = (typeof INDEX_BANDS)[number];

export interface IntensityRow {
  from: number;
  to: number;
  forecast: number;
  actual: number | null;
  index: IndexBand;
}

// Lower bounds of low, moderate, high, very high by year (methodology 2021, Table 2). Used only
// when the provider leaves `index` out; the provider's own band is preferred.
const BANDS: Record<number, [number, number, number, number]> = {
  2017: [100, 200, 300, 400],
  2018: [80, 180, 280, 380],
  2019: [60, 160, 260, 360],
  2020: [55, 150, 230, 350],
  2021: [50, 140, 220, 330],
  2022: [45, 130, 210, 310],
  2023: [40, 120, 200, 290],
  2024: [35, 110, 190, 270],
  2025: [30, 100, 180, 250],
  2026: [25, 90, 170, 230],
  2027: [20, 80, 160, 210],
  2028: [15, 70, 150, 190],
  2029: [10, 60, 140, 170],
  2030: [5, 50, 130, 150],
};

export function bandOf(value: number, at: number): IndexBand {
  const year = Math.min(2030, Math.max(2017, new Date(at).getUTCFullYear()));
  const [low, moderate, high, veryHigh] = BANDS[year];
  if (value >= veryHigh) return 'very high';
  if (value >= high) return 'high';
  if (value >= moderate) return 'moderate';
  if (value >= low) return 'low';
  return 'very low';
}

function decodeRow(r: unknown): IntensityRow {
  if (!r || typeof r !== 'object') throw new BadResponseError('a period is not an object');
  const row = r as { from?: unknown; to?: unknown; intensity?: Record<string, unknown> };
  const from = typeof row.from === 'string' ? parseInstant(row.from) : null;
  const to = typeof row.to === 'string' ? parseInstant(row.to) : null;
  if (from === null || to === null || to <= from) throw new BadResponseError('period times unreadable');
  const i = row.intensity;
  if (!i || typeof i !== 'object') throw new BadResponseError('no intensity');
  if (typeof i.forecast !== 'number' || !Number.isFinite(i.forecast)) throw new BadResponseError('forecast is not a number');
  const actual = i.actual === undefined || i.actual === null ? null : i.actual;
  if (actual !== null && (typeof actual !== 'number' || !Number.isFinite(actual))) throw new BadResponseError('actual is not a number');
  let index: IndexBand;
  if (i.index === undefined || i.index === null) index = bandOf((actual as number | null) ?? i.forecast, from);
  else if (typeof i.index === 'string' && (INDEX_BANDS as readonly string[]).includes(i.index)) index = i.index as IndexBand;
  else throw new BadResponseError('index is not a known band');
  return { from, to, forecast: i.forecast, actual: actual as number | null, index };
}

/** The provider's `data` list of half hours, ascending (also the demo sample's form, sample.ts). */
export function decodeList(raw: unknown): IntensityRow[] {
  const data = (raw as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw new BadResponseError('no data list');
  return data.map(decodeRow).sort((a, b) => a.from - b.from);
}

/** The API's datetime form: minutes, no seconds, Z. */
export function carbonTime(t: number): string {
  return new Date(t).toISOString().slice(0, 16) + 'Z';
}

export interface CarbonProvider {
  current(): Promise<IntensityRow>;
  /** The 48 hours forward of `from` (the half hour containing it, or the one before: both handled). */
  forward48h(from: number): Promise<IntensityRow[]>;
  /** The half hours from `from` to `to` (at most 14 days, the API's limit). */
  range(from: number, to: number): Promise<IntensityRow[]>;
}

export function createCarbonProvider(client: UpstreamClient): CarbonProvider {
  return {
    current: () =>
      client.call({
        url: '/intensity',
        decode: (res) => {
          const rows = decodeList(jsonBody(res));
          if (rows.length === 0) throw new BadResponseError('empty data list');
          return rows[rows.length - 1];
        },
      }),
    forward48h: (from) => client.call({ url: `/intensity/${carbonTime(from)}/fw48h`, decode: (res) => decodeList(jsonBody(res)) }),
    range: (from, to) => client.call({ url: `/intensity/${carbonTime(from)}/${carbonTime(to)}`, decode: (res) => decodeList(jsonBody(res)) }),
  };
}
