// Which flows an asset feeds, by its registry class, and from which raw counter keys or which sign
// of power_kw (concepts.md section 2: positive = import or charge; negative = export, generation or
// discharge). Decision 0140 records the choices.
import type { SiteAsset } from '../registry/index.ts';
import type { EnergyCounterKey } from '../telemetry/index.ts';

export const FLOWS = ['import', 'export', 'generation', 'consumption', 'charge', 'discharge'] as const;
export type Flow = (typeof FLOWS)[number];

export type Role = 'grid' | 'pv' | 'battery' | 'load';

export interface FlowSource {
  flow: Flow;
  /** Which part of power_kw feeds the flow: its positive part or the magnitude of its negative part. */
  sign: 'pos' | 'neg';
  /**
   * Cumulative kWh counters in the raw record, tried in order (the first an asset reports wins):
   * keys the record rules bound (ENERGY_COUNTER_KEYS, decision 0280).
   */
  counters: EnergyCounterKey[];
}

export const ROLE_FLOWS: Record<Role, FlowSource[]> = {
  grid: [
    { flow: 'import', sign: 'pos', counters: ['import_kwh', 'energy_import_kwh', 'import_energy_kwh'] },
    { flow: 'export', sign: 'neg', counters: ['export_kwh', 'energy_export_kwh', 'export_energy_kwh'] },
  ],
  pv: [{ flow: 'generation', sign: 'neg', counters: ['generation_kwh', 'pv_energy_kwh', 'energy_kwh'] }],
  battery: [
    { flow: 'charge', sign: 'pos', counters: ['charge_kwh', 'charge_energy_kwh'] },
    { flow: 'discharge', sign: 'neg', counters: ['discharge_kwh', 'discharge_energy_kwh'] },
  ],
  load: [{ flow: 'consumption', sign: 'pos', counters: ['consumption_kwh', 'energy_kwh'] }],
};

export const ALL_COUNTER_KEYS = [...new Set(Object.values(ROLE_FLOWS).flatMap((fs) => fs.flatMap((f) => f.counters)))];

const METERS = new Set(['site_meter', 'smart_meter']);
const LOADS = new Set(['charger', 'heat_pump', 'appliance', 'sub_meter']);

/**
 * The asset's role at its site, or null when it feeds no flow. A grid meter under another meter
 * (a smart meter under the site meter) and a load under another load or a sub-meter would count
 * the same energy twice, so only the topmost of each counts; vehicles are measured at the charger.
 */
export function roleOf(asset: SiteAsset, byId: Map<string, SiteAsset>): Role | null {
  const parent = asset.parent_asset_id ? byId.get(asset.parent_asset_id) : undefined;
  const cls = asset.asset_class;
  if (cls && METERS.has(cls)) return parent && parent.asset_class && METERS.has(parent.asset_class) ? null : 'grid';
  if (cls === 'inverter') return 'pv';
  if (cls === 'battery') return 'battery';
  if (cls && LOADS.has(cls)) {
    for (let p = parent, hops = 0; p && hops < 16; p = p.parent_asset_id ? byId.get(p.parent_asset_id) : undefined, hops++) {
      if (p.asset_class && LOADS.has(p.asset_class)) return null;
    }
    return 'load';
  }
  return null;
}

export const POWER_METHOD =
  'Power integrated over time: power_kw linear between consecutive samples no further apart than the gap limit (trapezoidal rule), split at half-hour boundaries and at zero crossings; longer silences are gaps and are not filled.';
export const COUNTER_METHOD =
  "Cumulative counters: the advance of the device's kWh register between consecutive readings, spread over the interval in proportion to time; a lower reading is a reset and counts from zero; an advance faster than 1e8 kW (the power bound) is implausible and counts nothing, like a reset.";
export const DERIVED_CONSUMPTION_METHOD =
  'Consumption found from the balance: generation + import + battery discharge - export - battery charge (the site has no metered loads).';
