// Aggregate fleet capacity from the asset registry. Capacity is the asset's rated power, read from
// its `details`: the first of CAPACITY_KEYS_KW (kW) or CAPACITY_KEYS_MW (MW) holding a positive
// number (or numeric text). Meters are not counted: they measure, they do not flex. Available
// capacity applies one fixed availability assumption; it is not a measurement and not for
// settlement or financial claims. Regions are not segmented.

/** A registered asset as the portfolio reads it (the registry's REGISTRY_READS.records). */
export interface FleetAsset {
  asset_id: string;
  site_id: string;
  type: string;
  details: Record<string, unknown> | null;
}

export const CAPACITY_KEYS_KW = ['rated_power_kw', 'capacity_kw', 'max_power_kw', 'power_rating_kw'] as const;
export const CAPACITY_KEYS_MW = ['rated_power_mw', 'capacity_mw'] as const;
/** Share of rated power assumed available in any half hour. */
export const AVAILABILITY_ASSUMPTION = 0.8;
export const PORTFOLIO_METHOD =
  'Sum of each registered asset’s rated power from its details (rated_power_kw, capacity_kw, max_power_kw, ' +
  'power_rating_kw, or rated_power_mw, capacity_mw), meters excluded, with 80% of it assumed available.';

function positive(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : NaN;
  return Number.isFinite(n) && n > 0 ? n : null;
}

/** Rated power in watts (integer), or null when the asset states none or is a meter. */
export function ratedWatts(a: FleetAsset): number | null {
  if (/meter/i.test(a.type)) return null;
  const d = a.details ?? {};
  for (const k of CAPACITY_KEYS_KW) {
    const v = positive(d[k]);
    if (v !== null) return Math.round(v * 1000);
  }
  for (const k of CAPACITY_KEYS_MW) {
    const v = positive(d[k]);
    if (v !== null) return Math.round(v * 1_000_000);
  }
  return null;
}

const mw = (watts: number) => Math.round(watts) / 1_000_000;

export function portfolioOf(assets: FleetAsset[]) {
  let total = 0;
  let counted = 0;
  const sites = new Set<string>();
  const byType = new Map<string, { assets: number; watts: number }>();
  for (const a of assets) {
    const w = ratedWatts(a);
    if (w === null) continue;
    counted++;
    total += w;
    sites.add(a.site_id);
    const t = byType.get(a.type) ?? { assets: 0, watts: 0 };
    t.assets++;
    t.watts += w;
    byType.set(a.type, t);
  }
  const available = Math.round(total * AVAILABILITY_ASSUMPTION);
  return {
    asset_count: assets.length,
    counted_assets: counted,
    uncounted_assets: assets.length - counted,
    sites: sites.size,
    total_capacity_mw: mw(total),
    available_capacity_mw: mw(available),
    availability_rate: AVAILABILITY_ASSUMPTION,
    by_type: [...byType.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([type, t]) => ({ type, assets: t.assets, capacity_mw: mw(t.watts), available_capacity_mw: mw(Math.round(t.watts * AVAILABILITY_ASSUMPTION)) })),
    regions: [{ region: 'unsegmented', total_capacity_mw: mw(total), available_capacity_mw: mw(available), assets: counted }],
    regions_segmented: false,
  };
}
