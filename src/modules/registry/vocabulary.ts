// The registry vocabulary: asset classes with their allowed parents, how a free-form type maps to
// a class, freshness bands, and the four last-reported sources (docs/registry.md).
import { wordsOf } from '../../kit/vocabulary.ts';

/** asset_id: unique within the organisation, safe in a path segment. */
export const ASSET_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,127}$';

export const ASSET_CLASSES = ['site_meter', 'smart_meter', 'sub_meter', 'inverter', 'battery', 'charger', 'vehicle', 'heat_pump', 'appliance'] as const;
export type AssetClass = (typeof ASSET_CLASSES)[number];

export function isAssetClass(v: unknown): v is AssetClass {
  return typeof v === 'string' && (ASSET_CLASSES as readonly string[]).includes(v);
}

export interface ClassRule {
  label: string;
  description: string;
  /** Classes this class may sit under in the single-line tree. */
  allowedParents: AssetClass[];
  /** May stand at the top of the tree with no parent. */
  rootAllowed: boolean;
  /** Counts as the site's meter for the `missing_meter` check. */
  meter: boolean;
}

const UNDER_METER: AssetClass[] = ['site_meter', 'smart_meter', 'sub_meter'];

export const CLASS_RULES: Record<AssetClass, ClassRule> = {
  site_meter: {
    label: 'Site meter',
    description: 'Meter at the grid connection point (revenue meter or CT clamp); the top of the tree.',
    allowedParents: [],
    rootAllowed: true,
    meter: true,
  },
  smart_meter: {
    label: 'Smart meter',
    description: "The supplier's smart meter at the grid connection; a root, or under a site meter.",
    allowedParents: ['site_meter'],
    rootAllowed: true,
    meter: true,
  },
  sub_meter: {
    label: 'Sub-meter',
    description: 'Meter on a circuit below the connection point.',
    allowedParents: UNDER_METER,
    rootAllowed: false,
    meter: false,
  },
  inverter: {
    label: 'Inverter',
    description: 'Solar PV or hybrid inverter; generation is negative power_kw at the inverter.',
    allowedParents: UNDER_METER,
    rootAllowed: false,
    meter: false,
  },
  battery: {
    label: 'Battery',
    description: 'Stationary battery; DC-coupled under an inverter or AC-coupled under a meter.',
    allowedParents: ['inverter', ...UNDER_METER],
    rootAllowed: false,
    meter: false,
  },
  charger: {
    label: 'EV charger',
    description: 'Electric vehicle charge point.',
    allowedParents: UNDER_METER,
    rootAllowed: false,
    meter: false,
  },
  vehicle: {
    label: 'Vehicle',
    description: 'Electric vehicle; under the charger it is plugged into, or a root while it roams.',
    allowedParents: ['charger'],
    rootAllowed: true,
    meter: false,
  },
  heat_pump: {
    label: 'Heat pump',
    description: 'Air- or ground-source heat pump.',
    allowedParents: UNDER_METER,
    rootAllowed: false,
    meter: false,
  },
  appliance: {
    label: 'Appliance',
    description: 'Any other controllable or metered load.',
    allowedParents: UNDER_METER,
    rootAllowed: false,
    meter: false,
  },
};

/** Free-form types (v1 `type`, or a device's own type in telemetry) that name a class. */
const TYPE_ALIASES: Record<string, AssetClass> = {};
const aliasList: Record<AssetClass, string[]> = {
  site_meter: ['site_meter', 'grid_meter', 'main_meter', 'meter', 'ct_meter', 'ct_clamp'],
  smart_meter: ['smart_meter', 'smartmeter', 'supply_meter'],
  sub_meter: ['sub_meter', 'submeter', 'circuit_meter'],
  inverter: ['inverter', 'solar', 'pv', 'solar_inverter', 'pv_inverter', 'hybrid_inverter', 'solar_pv'],
  battery: ['battery', 'bess', 'storage', 'home_battery', 'battery_storage'],
  charger: ['charger', 'ev_charger', 'evse', 'chargepoint', 'charge_point', 'wallbox'],
  vehicle: ['vehicle', 'ev', 'car', 'van', 'electric_vehicle'],
  heat_pump: ['heat_pump', 'heatpump', 'ashp', 'gshp'],
  appliance: ['appliance', 'load', 'plug', 'smart_plug'],
};
for (const [cls, names] of Object.entries(aliasList)) for (const n of names) TYPE_ALIASES[n] = cls as AssetClass;

export function normaliseType(type: string): string {
  return type
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** The class a free-form type names, or null (unclassified). */
export function classOfType(type: string | null | undefined): AssetClass | null {
  if (typeof type !== 'string') return null;
  return TYPE_ALIASES[normaliseType(type)] ?? null;
}

export function typeAliases(cls: AssetClass): string[] {
  return aliasList[cls];
}

// ---- Freshness -------------------------------------------------------------------------------

export const FRESHNESS_BANDS = ['live', 'recent', 'stale', 'silent', 'never'] as const;
export type Freshness = (typeof FRESHNESS_BANDS)[number];

export interface BandRule {
  band: Freshness;
  /** Upper bound (exclusive) of the age of the last record; null = no upper bound. */
  maxAgeSeconds: number | null;
  description: string;
}

export const BAND_RULES: BandRule[] = [
  { band: 'live', maxAgeSeconds: 5 * 60, description: 'Last record less than 5 minutes old.' },
  { band: 'recent', maxAgeSeconds: 60 * 60, description: 'Last record less than 1 hour old.' },
  { band: 'stale', maxAgeSeconds: 24 * 60 * 60, description: 'Last record less than 24 hours old.' },
  { band: 'silent', maxAgeSeconds: null, description: 'Last record 24 hours old or more.' },
  { band: 'never', maxAgeSeconds: null, description: 'No record stored for this asset.' },
];

export const FRESHNESS_METHOD =
  'Freshness is the age of the newest stored record (its ts, the measurement time) at the time of the request, placed in fixed bands: live under 5 minutes, recent under 1 hour, stale under 24 hours, silent beyond, never without a record.';

/** Band of a last-record time; a ts ahead of `now` counts as age 0. */
export function freshnessOf(lastTs: Date | null | undefined, now: Date): Freshness {
  if (!lastTs) return 'never';
  const age = Math.max(0, (now.getTime() - lastTs.getTime()) / 1000);
  for (const r of BAND_RULES) if (r.maxAgeSeconds !== null && age < r.maxAgeSeconds) return r.band;
  return 'silent';
}

export type Connectivity = 'online' | 'offline' | 'never_reported';

export function connectivityOf(band: Freshness): Connectivity {
  if (band === 'never') return 'never_reported';
  return band === 'live' || band === 'recent' ? 'online' : 'offline';
}

// ---- Sources -------------------------------------------------------------------------------

export const SOURCE_DESCRIPTIONS = {
  ocpp_heartbeat: "A charger's OCPP heartbeat or status notification relayed as a record.",
  provider_reading: 'A meter reading fetched from a supplier or data provider.',
  telemetry: 'A record pushed to POST /api/telemetry/ingest by the site or its gateway (the default).',
  provider_api: "A value read from a manufacturer's cloud API (vehicle, inverter, battery, heat pump).",
};
export type ReportedSource = keyof typeof SOURCE_DESCRIPTIONS;
export const REPORTED_SOURCES = wordsOf(SOURCE_DESCRIPTIONS);

/** The source of one stored record: raw `source` when it names one of the four, else telemetry. */
export function sourceOfRaw(raw: unknown): ReportedSource {
  const s = raw && typeof raw === 'object' ? (raw as Record<string, unknown>).source : undefined;
  return typeof s === 'string' && (REPORTED_SOURCES as readonly string[]).includes(s) ? (s as ReportedSource) : 'telemetry';
}

/** Measurements that source priority resolves, one value each. */
export const MEASUREMENTS = ['power_kw', 'soc_pct', 'voltage', 'current', 'temp_c', 'status'] as const;
export type Measurement = (typeof MEASUREMENTS)[number];

/** Order used for an asset and measurement with no configured priority. */
export const DEFAULT_SOURCE_ORDER: ReportedSource[] = ['telemetry', 'ocpp_heartbeat', 'provider_reading', 'provider_api'];
