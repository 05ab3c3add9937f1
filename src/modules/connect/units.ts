// Home-automation units: which canonical measurement an entity feeds and how its value converts.
// Canonical units are the telemetry record's (concepts.md section 2): power_kw in kW, signed
// (positive = import or charge, negative = export, generation or discharge); soc_pct in percent
// 0 to 100; temp_c in degrees C; voltage in V; current in A; cumulative energy_kwh (kept in raw
// under that key, as the spec asks for energy).

export const MEASUREMENTS = ['power_kw', 'energy_kwh', 'soc_pct', 'temp_c', 'voltage', 'current'] as const;
export type Measurement = (typeof MEASUREMENTS)[number];

/** Sign of a power entity as the home-automation system reports it. */
export const SIGNS = ['positive_is_import', 'positive_is_export'] as const;
export type Sign = (typeof SIGNS)[number];

/** Accepted units per measurement, each with its conversion to the canonical unit. */
const CONVERT: Record<Measurement, Record<string, (v: number) => number>> = {
  power_kw: { W: (v) => v / 1000, kW: (v) => v, MW: (v) => v * 1000 },
  energy_kwh: { Wh: (v) => v / 1000, kWh: (v) => v, MWh: (v) => v * 1000 },
  soc_pct: { '%': (v) => v },
  temp_c: { '°C': (v) => v, '°F': (v) => ((v - 32) * 5) / 9, K: (v) => v - 273.15 },
  voltage: { V: (v) => v, mV: (v) => v / 1000, kV: (v) => v * 1000 },
  current: { A: (v) => v, mA: (v) => v / 1000 },
};

/** Spellings seen in the wild for the same unit. */
const ALIASES: Record<string, string> = {
  w: 'W',
  kw: 'kW',
  mw: 'MW',
  wh: 'Wh',
  kwh: 'kWh',
  mwh: 'MWh',
  '%': '%',
  c: '°C',
  '°c': '°C',
  '℃': '°C',
  degc: '°C',
  f: '°F',
  '°f': '°F',
  '℉': '°F',
  k: 'K',
  v: 'V',
  mv: 'mV',
  kv: 'kV',
  a: 'A',
  ma: 'mA',
};

/** The canonical spelling of a unit, or null when unknown. Case matters only between mW and MW. */
export function canonicalUnit(unit: string): string | null {
  const u = unit.trim();
  if (u === 'mW' || u === 'MW') return u === 'MW' ? 'MW' : null;
  if (u === 'mV' || u === 'mA' || u === 'MWh') return u;
  return ALIASES[u.toLowerCase()] ?? null;
}

export const UNITS_BY_MEASUREMENT: Record<Measurement, string[]> = Object.fromEntries(MEASUREMENTS.map((m) => [m, Object.keys(CONVERT[m])])) as Record<
  Measurement,
  string[]
>;

/** The measurement a unit feeds (device class breaks no tie: each unit belongs to one). */
export function measurementOfUnit(unit: string, deviceClass?: string | null): Measurement | null {
  const u = canonicalUnit(unit);
  if (!u) return null;
  if (u === '%') return deviceClass === 'battery' || deviceClass === undefined || deviceClass === null ? 'soc_pct' : null;
  for (const m of MEASUREMENTS) if (u in CONVERT[m]) return m;
  return null;
}

export type Converted = { ok: true; value: number } | { ok: false; reason: 'unsupported_unit' | 'not_a_number' | 'unavailable'; message: string };

/** A state as home-automation systems send it: a number, a numeric string, or 'unavailable'/'unknown'. */
export function parseState(state: unknown): number | 'unavailable' | null {
  if (typeof state === 'number') return Number.isFinite(state) ? state : null;
  if (typeof state !== 'string') return null;
  const s = state.trim();
  if (s === 'unavailable' || s === 'unknown' || s === '') return 'unavailable';
  return /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(s) ? Number(s) : null;
}

/**
 * Converts a state to the measurement's canonical unit, and for power applies the sign: a
 * `positive_is_export` entity (solar production, battery discharge in most home-automation
 * dashboards) is negated so that export, generation and discharge are negative.
 */
export function normalise(state: unknown, unit: string, measurement: Measurement, sign: Sign = 'positive_is_import'): Converted {
  const v = parseState(state);
  if (v === 'unavailable') return { ok: false, reason: 'unavailable', message: 'The entity reported no value (unavailable or unknown)' };
  if (v === null) return { ok: false, reason: 'not_a_number', message: 'The state is not a number' };
  const u = canonicalUnit(unit);
  const f = u ? CONVERT[measurement][u] : undefined;
  if (!f) {
    return {
      ok: false,
      reason: 'unsupported_unit',
      message: `Unit '${unit}' is not accepted for ${measurement} (accepted: ${UNITS_BY_MEASUREMENT[measurement].join(', ')})`,
    };
  }
  let value = f(v);
  if (measurement === 'power_kw' && sign === 'positive_is_export') value = -value;
  // Values carry no more precision than the source had: round off binary noise from the conversion.
  return { ok: true, value: Number(value.toPrecision(12)) + 0 };
}
