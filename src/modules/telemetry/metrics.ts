// The history metric table of endpoints.md 4.2 (asset type / metric pairs, unit, source fields
// tried in order). The first metric of each asset type is its default (decision 0044).

/** How a value is read from a stored row. */
export type Source =
  /** A canonical column. `sign` applies the power sign convention (decision 0044). */
  | { column: 'power_kw' | 'soc_pct' | 'temp_c'; sign?: 'positive' | 'negative' }
  /**
   * A key of the raw record, used when it holds a JSON number; `_w` keys are divided by 1000.
   * `counter`: the key is a cumulative kWh register (or a session's running total, which restarts
   * at each session): a bucket shows the register's advance over it, not its mean (decision 0323).
   */
  | { raw: string; counter?: true };

export interface MetricDef {
  /** Stable slot in telemetry_rollup_daily (columns n<id>, s<id>, mn<id>, mx<id>). Never reuse. */
  id: number;
  metric: string;
  unit: string;
  sources: Source[];
}

const raw = (...keys: string[]): Source[] => keys.map((k) => ({ raw: k }));
/** Cumulative registers (decision 0323): a bucket's value is the energy the register advanced in it. */
const register = (...keys: string[]): Source[] => keys.map((k) => ({ raw: k, counter: true as const }));

export const ASSET_METRICS: Record<string, MetricDef[]> = {
  solar: [
    {
      id: 0,
      metric: 'generation',
      unit: 'kW',
      sources: [{ column: 'power_kw', sign: 'negative' }, ...raw('solar_generation_kw', 'generation_kw', 'production_kw', 'production_w')],
    },
  ],
  battery: [
    { id: 1, metric: 'soc', unit: '%', sources: [{ column: 'soc_pct' }, ...raw('battery_soc', 'soc')] },
    { id: 2, metric: 'charge', unit: 'kW', sources: [...raw('charge_kw', 'charging_kw', 'battery_charge_kw'), { column: 'power_kw', sign: 'positive' }] },
    {
      id: 3,
      metric: 'discharge',
      unit: 'kW',
      sources: [...raw('discharge_kw', 'discharging_kw', 'battery_discharge_kw'), { column: 'power_kw', sign: 'negative' }],
    },
  ],
  ev: [
    { id: 4, metric: 'soc', unit: '%', sources: [{ column: 'soc_pct' }, ...raw('vehicle_soc', 'battery_level', 'usable_soc_pct')] },
    { id: 5, metric: 'sessions', unit: 'kWh', sources: register('session_kwh', 'charge_energy_added_kwh', 'energy_kwh') },
  ],
  'heat-pump': [
    { id: 6, metric: 'kwh', unit: 'kWh', sources: register('energy_kwh', 'heat_kwh', 'consumption_kwh') },
    { id: 7, metric: 'flow-temp', unit: 'degC', sources: [...raw('flow_temp_c', 'flow_temperature_c'), { column: 'temp_c' }] },
    { id: 8, metric: 'return-temp', unit: 'degC', sources: raw('return_temp_c', 'return_temperature_c') },
  ],
  'smart-meter': [
    { id: 9, metric: 'import', unit: 'kW', sources: [...raw('import_kw', 'grid_import_kw'), { column: 'power_kw', sign: 'positive' }] },
    { id: 10, metric: 'export', unit: 'kW', sources: [...raw('export_kw', 'grid_export_kw'), { column: 'power_kw', sign: 'negative' }] },
  ],
  'cost-savings': [{ id: 11, metric: 'savings', unit: 'GBP', sources: raw('savings_gbp', 'cost_savings_gbp', 'estimated_savings') }],
};

export const ASSET_TYPES = Object.keys(ASSET_METRICS);

/** A metric whose sources are cumulative registers: its buckets are energy, not means (decision 0323). */
export function isCounter(def: MetricDef): boolean {
  return def.sources.some((s) => 'raw' in s && s.counter);
}
for (const d of Object.values(ASSET_METRICS).flat()) {
  // Per record the first source that holds a number is read: one chain of readings needs one kind.
  if (isCounter(d) && !d.sources.every((s) => 'raw' in s && s.counter)) throw new Error(`telemetry: metric ${d.metric} mixes registers and other sources`);
}

/**
 * Register readings further apart than this are not joined: the advance across the silence is not
 * placed in any bucket (the energy model's default counter gap, ENERGY_COUNTER_GAP_SECONDS).
 */
export const COUNTER_GAP_SECONDS = 7200;

/** Every metric definition once, by rollup slot. */
export const ALL_METRICS: MetricDef[] = Object.values(ASSET_METRICS)
  .flat()
  .sort((a, b) => a.id - b.id);

export function defaultMetric(assetType: string): string {
  return ASSET_METRICS[assetType][0].metric;
}

export function findMetric(assetType: string, metric: string): MetricDef | undefined {
  return ASSET_METRICS[assetType]?.find((m) => m.metric === metric);
}

export interface RangeDef {
  range: string;
  /** Buckets are whole days: sealed daily rollups can answer the full days of the window. */
  dayBuckets: boolean;
  /** Window length ending now. */
  spanMs: number;
  /** Bucket width, as a PostgreSQL interval and in ms. */
  bucket: string;
  bucketMs: number;
}

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

export const RANGES: Record<string, RangeDef> = {
  live: { range: 'live', dayBuckets: false, spanMs: HOUR, bucket: '5 minutes', bucketMs: 5 * MIN },
  hourly: { range: 'hourly', dayBuckets: false, spanMs: DAY, bucket: '1 hour', bucketMs: HOUR },
  daily: { range: 'daily', dayBuckets: true, spanMs: 30 * DAY, bucket: '1 day', bucketMs: DAY },
  weekly: { range: 'weekly', dayBuckets: true, spanMs: 12 * 7 * DAY, bucket: '7 days', bucketMs: 7 * DAY },
  historical: { range: 'historical', dayBuckets: true, spanMs: 365 * DAY, bucket: '30 days', bucketMs: 30 * DAY },
};

/** Buckets are aligned to this instant: UTC midnight, a Monday (weekly buckets start on Mondays). */
export const BUCKET_ORIGIN = '2000-01-03T00:00:00Z';

/** The register metrics: their rollup slots also keep the day's first and last reading (migration 0206). */
export const COUNTER_METRICS: MetricDef[] = ALL_METRICS.filter(isCounter);
