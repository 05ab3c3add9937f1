// What each device listing shows as readings, taken from the newest stored record: the canonical
// columns, then the sender's own keys in raw (the same keys the history reads try, endpoints.md).
import type { AssetClass, AssetWithLatest } from '../registry/index.ts';

export type Listing = 'chargers' | 'solar' | 'battery' | 'heatpump' | 'smartmeter' | 'vehicles' | 'appliances';

export const LISTING_CLASSES: Record<Listing, AssetClass[]> = {
  chargers: ['charger'],
  solar: ['inverter'],
  battery: ['battery'],
  heatpump: ['heat_pump'],
  smartmeter: ['smart_meter', 'site_meter', 'sub_meter'],
  vehicles: ['vehicle'],
  appliances: ['appliance'],
};

type Raw = Record<string, unknown>;

function rawNum(raw: Raw | null, keys: string[]): number | null {
  if (!raw) return null;
  for (const k of keys) {
    const v = raw[k];
    if (typeof v === 'number' && Number.isFinite(v)) return k.endsWith('_w') ? v / 1000 : v;
  }
  return null;
}

function rawStr(raw: Raw | null, keys: string[]): string | null {
  if (!raw) return null;
  for (const k of keys) if (typeof raw[k] === 'string') return raw[k] as string;
  return null;
}

function rawBool(raw: Raw | null, keys: string[]): boolean | null {
  if (!raw) return null;
  for (const k of keys) {
    const v = raw[k];
    if (typeof v === 'boolean') return v;
    if (typeof v === 'string' && ['true', 'on', 'false', 'off'].includes(v.toLowerCase())) return ['true', 'on'].includes(v.toLowerCase());
  }
  return null;
}

const round = (v: number | null) => (v === null ? null : Math.round(v * 1e6) / 1e6);

/** Canonical readings every listing shows; all null when nothing is stored. */
export function baseReadings(a: AssetWithLatest) {
  const known = a.last_ts !== null;
  return {
    power_kw: known ? a.power_kw : null,
    soc_pct: known ? a.soc_pct : null,
    voltage: known ? a.voltage : null,
    current: known ? a.current : null,
    temp_c: known ? a.temp_c : null,
    status: known ? a.last_status : null,
  };
}

/** Readings of one listing: the canonical ones plus the listing's own (null when not sent). */
export function readingsFor(listing: Listing, a: AssetWithLatest): Record<string, number | string | boolean | null> {
  const base = baseReadings(a);
  const raw = a.last_ts ? a.raw : null;
  const p = base.power_kw;
  switch (listing) {
    case 'chargers':
      return {
        ...base,
        session_kwh: rawNum(raw, ['session_kwh', 'charge_energy_added_kwh', 'energy_kwh']),
        connector_status: rawStr(raw, ['connector_status', 'ocpp_status']),
      };
    case 'solar': {
      const explicit = rawNum(raw, ['solar_generation_kw', 'generation_kw', 'production_kw', 'production_w']);
      return { ...base, generation_kw: round(explicit ?? (p === null ? null : Math.max(0, -p))) };
    }
    case 'battery': {
      const soc = base.soc_pct ?? rawNum(raw, ['battery_soc', 'soc']);
      const mode = p === null ? null : Math.abs(p) < 0.05 ? 'idle' : p > 0 ? 'charging' : 'discharging';
      return { ...base, soc_pct: soc, mode };
    }
    case 'heatpump':
      return {
        ...base,
        flow_temp_c: rawNum(raw, ['flow_temp_c', 'flow_temperature_c']) ?? base.temp_c,
        return_temp_c: rawNum(raw, ['return_temp_c', 'return_temperature_c']),
        energy_kwh: rawNum(raw, ['energy_kwh', 'heat_kwh', 'consumption_kwh']),
      };
    case 'smartmeter':
      return {
        ...base,
        import_kw: round(rawNum(raw, ['import_kw', 'grid_import_kw']) ?? (p === null ? null : Math.max(0, p))),
        export_kw: round(rawNum(raw, ['export_kw', 'grid_export_kw']) ?? (p === null ? null : Math.max(0, -p))),
      };
    case 'vehicles':
      return {
        ...base,
        soc_pct: base.soc_pct ?? rawNum(raw, ['vehicle_soc', 'battery_level', 'usable_soc_pct']),
        range_km: rawNum(raw, ['range_km']),
        plugged_in: rawBool(raw, ['plugged_in']),
      };
    case 'appliances':
      return { ...base, on: rawBool(raw, ['on', 'state', 'power_state']), energy_kwh: rawNum(raw, ['energy_kwh', 'consumption_kwh']) };
  }
}

/** Listing-specific reading names and their meaning (for schemas and documentation). */
export const LISTING_READINGS: Record<Listing, Record<string, { type: 'number' | 'string' | 'boolean'; description: string }>> = {
  chargers: {
    session_kwh: { type: 'number', description: 'raw session_kwh, charge_energy_added_kwh or energy_kwh' },
    connector_status: { type: 'string', description: 'raw connector_status or ocpp_status' },
  },
  solar: {
    generation_kw: {
      type: 'number',
      description:
        'raw solar_generation_kw, generation_kw, production_kw or production_w/1000; else -power_kw (generation is negative at the inverter), 0 when power_kw is positive',
    },
  },
  battery: { mode: { type: 'string', description: 'charging (power_kw > 0.05), discharging (< -0.05) or idle' } },
  heatpump: {
    flow_temp_c: { type: 'number', description: 'raw flow_temp_c or flow_temperature_c, else temp_c' },
    return_temp_c: { type: 'number', description: 'raw return_temp_c or return_temperature_c' },
    energy_kwh: { type: 'number', description: 'raw energy_kwh, heat_kwh or consumption_kwh' },
  },
  smartmeter: {
    import_kw: { type: 'number', description: 'raw import_kw or grid_import_kw, else positive power_kw' },
    export_kw: { type: 'number', description: 'raw export_kw or grid_export_kw, else minus negative power_kw' },
  },
  vehicles: {
    range_km: { type: 'number', description: 'raw range_km' },
    plugged_in: { type: 'boolean', description: 'raw plugged_in' },
  },
  appliances: {
    on: { type: 'boolean', description: 'raw on, state or power_state (true/on, false/off)' },
    energy_kwh: { type: 'number', description: 'raw energy_kwh or consumption_kwh' },
  },
};

/** Position and ignition value parsing for the telematics listing. */
export function ignitionOf(value: string): boolean {
  return value === 'true' || value === 'on';
}
