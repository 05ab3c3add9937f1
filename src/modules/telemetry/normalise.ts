// The telemetry record rules of concepts.md section 2 (telemetry record) and endpoints.md 4.2:
// canonical mapping, rejection by name and reason, anomaly flags. Pure functions, no I/O.
import { ALL_METRICS } from './metrics.ts';

export const MEASUREMENTS = ['power_kw', 'soc_pct', 'voltage', 'current', 'temp_c'] as const;
export type Measurement = (typeof MEASUREMENTS)[number];

/** Why a record was rejected. Stable codes; `message` is for people. */
export type RejectReason =
  | 'not_an_object'
  | 'missing_asset_id'
  | 'invalid_asset_id'
  | 'missing_ts'
  | 'unparseable_ts'
  | 'epoch_ts_not_accepted'
  | 'not_a_number'
  | 'not_a_string'
  | 'unsupported_value'
  | 'ts_beyond_retention'
  | 'beyond_bound'
  // A device credential's records only (decision 0375): a device registered at another site, or one the credential does not list;
  // over MQTT a record of another device than its topic's (decision 0377).
  | 'device_on_another_site'
  | 'device_not_in_credential'
  | 'device_not_in_topic';

export interface RecordProblem {
  /** The key of the record the problem is in (null when the record itself is not an object). */
  field: string | null;
  reason: RejectReason;
  message: string;
}

/** Anomaly reasons: the spec's three plus two for timestamps (decision 0042). Extensible. */
export type AnomalyReason = 'soc_out_of_range' | 'power_out_of_range' | 'voltage_out_of_range' | 'ts_without_offset' | 'ts_in_future';

/** The measured members of a reading, as every stored, streamed and served form of it carries them. */
export interface ReadingValues {
  power_kw: number | null;
  soc_pct: number | null;
  voltage: number | null;
  current: number | null;
  temp_c: number | null;
  status: string;
}

/** A reading's measured values, copied out of a row that carries more (in the order records show them). */
export function readingValuesOf(r: ReadingValues): ReadingValues {
  return { power_kw: r.power_kw, soc_pct: r.soc_pct, voltage: r.voltage, current: r.current, temp_c: r.temp_c, status: r.status };
}

export interface CanonicalRow extends ReadingValues {
  asset_id: string;
  /** ISO 8601 with an explicit offset (Z added to a naive ts), fractional seconds as sent. */
  ts: string;
  tsMs: number;
  run_id: string | null;
  intent_id: string | null;
  anomalies: AnomalyReason[];
  /** The original object, exactly as sent. */
  raw: Record<string, unknown>;
  /** JSON text of raw, made once when first needed (insert, stream). */
  rawJson?: string;
}

export type Normalised = { ok: true; row: CanonicalRow } | { ok: false; problems: RecordProblem[] };

export const POWER_LIMIT_KW = 5000;
/** A ts further ahead of its receipt than this is flagged ts_in_future and never placed in time (0048). */
export const FUTURE_TOLERANCE_MS = 24 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
export const MAX_ASSET_ID_LENGTH = 256;
/** Deeper nesting than this in a record is refused (PostgreSQL's jsonb has a stack limit). */
export const MAX_DEPTH = 64;

const STRING_FIELDS = ['status', 'run_id', 'intent_id'] as const;

const problem = (field: string | null, reason: RejectReason, message: string): RecordProblem => ({ field, reason, message });

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ---------------------------------------------------------------------------------------------
// Timestamps: ISO 8601 / RFC 3339 date-time. An explicit offset is correct; no offset is read as
// UTC and flagged; anything else (other text, Unix epoch numbers) is refused.

const TS = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

export interface ParsedTs {
  /** The same instant as text PostgreSQL reads without a session time zone. */
  iso: string;
  ms: number;
  naive: boolean;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** Days in a month of the proleptic Gregorian calendar (what Date uses). */
function daysInMonth(year: number, month: number): number {
  if (month !== 2) return MONTH_DAYS[month - 1];
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
}

/** The two-digit number at i, or -1 when either character is not a digit. */
function two(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * The usual shape, `YYYY-MM-DDTHH:MM:SS[.fraction]` then `Z` or `±HH:MM`, read without the regular
 * expression: whose canonical text is the value itself. Undefined when the value has another shape
 * (parseTs then reads it with TS); the same answer as parseTs's general path otherwise.
 */
function parseCanonicalTs(value: string): ParsedTs | null | undefined {
  const n = value.length;
  if (
    n < 20 ||
    value.charCodeAt(4) !== 45 ||
    value.charCodeAt(7) !== 45 ||
    value.charCodeAt(10) !== 84 ||
    value.charCodeAt(13) !== 58 ||
    value.charCodeAt(16) !== 58
  )
    return undefined;
  const yHi = two(value, 0);
  const yLo = two(value, 2);
  const month = two(value, 5);
  const day = two(value, 8);
  const hour = two(value, 11);
  const minute = two(value, 14);
  const second = two(value, 17);
  if (yHi < 0 || yLo < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return undefined;
  let i = 19;
  // Milliseconds: the fraction's first three digits (what flooring the fraction times 1,000 gives, read
  // without making a string of it).
  let fracMs = 0;
  if (value.charCodeAt(i) === 46) {
    i++;
    while (i < n && i <= 29) {
      const c = value.charCodeAt(i);
      if (c < 48 || c > 57) break;
      if (i <= 22) fracMs += (c - 48) * (i === 20 ? 100 : i === 21 ? 10 : 1);
      i++;
    }
    if (i === 20 || i > 29) return undefined; // no digit, or more than nine
  }
  let offsetMin = 0;
  const tail = value.charCodeAt(i);
  if (tail === 90 && i + 1 === n) {
    // Z
  } else if ((tail === 43 || tail === 45) && i + 6 === n && value.charCodeAt(i + 3) === 58) {
    const oh = two(value, i + 1);
    const om = two(value, i + 4);
    if (oh < 0 || om < 0) return undefined;
    if (oh > 14 || om > 59) return null;
    offsetMin = (tail === 45 ? -1 : 1) * (oh * 60 + om);
  } else return undefined;
  const year = yHi * 100 + yLo;
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  if (day > 28 && day > daysInMonth(year, month)) return null;
  if (year < 100) return undefined; // Date.UTC would read it as 19xx: the general path
  const ms = Date.UTC(year, month - 1, day, hour, minute, second, fracMs) - offsetMin * 60_000;
  return { iso: value, ms, naive: false };
}

export function parseTs(value: string): ParsedTs | null {
  const fast = parseCanonicalTs(value);
  if (fast !== undefined) return fast;
  const m = TS.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, s = '00', frac = '', z, sign, oh, om = '00'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  if (day > 28 && day > daysInMonth(year, month)) return null; // 2026-02-30
  let offsetMin = 0;
  let offset = 'Z';
  if (sign) {
    const ohN = Number(oh);
    const omN = Number(om);
    if (ohN > 14 || omN > 59) return null;
    offsetMin = (sign === '-' ? -1 : 1) * (ohN * 60 + omN);
    offset = `${sign}${oh}:${om}`;
  }
  const fracMs = frac ? Math.floor(Number(`0${frac}`) * 1000) : 0;
  // Date.UTC reads years 0-99 as 1900-1999; those few take the Date object's path.
  let utc: number;
  if (year >= 100) utc = Date.UTC(year, month - 1, day, hour, minute, second, fracMs);
  else {
    const date = new Date(0);
    date.setUTCFullYear(year, month - 1, day);
    date.setUTCHours(hour, minute, second, fracMs);
    utc = date.getTime();
  }
  const ms = utc - offsetMin * 60_000;
  return {
    iso: `${y}-${mo}-${d}T${h}:${mi}:${s}${frac}${offset}`,
    ms,
    naive: !z && !sign,
  };
}

// ---------------------------------------------------------------------------------------------
// Values PostgreSQL cannot hold in jsonb/text (NUL, lone surrogates), numbers JSON.parse turned
// into Infinity, and pathological nesting are refused per record instead of failing the batch.

function unsupported(v: unknown, depth: number): string | null {
  switch (typeof v) {
    case 'string':
      if (v.includes('\u0000')) return 'contains a NUL character (\\u0000), which the store cannot hold';
      if (!(v as string & { isWellFormed(): boolean }).isWellFormed()) return 'contains an unpaired UTF-16 surrogate';
      return null;
    case 'number':
      return Number.isFinite(v) ? null : 'holds a number outside the double-precision range';
    case 'object': {
      if (v === null) return null;
      if (depth > MAX_DEPTH) return `is nested deeper than ${MAX_DEPTH} levels`;
      if (Array.isArray(v)) {
        for (const x of v) {
          const p = unsupported(x, depth + 1);
          if (p) return p;
        }
        return null;
      }
      for (const k in v) {
        const kp = unsupported(k, depth + 1);
        if (kp) return `has a key that ${kp}`;
        const p = unsupported((v as Record<string, unknown>)[k], depth + 1);
        if (p) return p;
      }
      return null;
    }
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------------------------

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/**
 * Applies the record rules. `now` decides ts_in_future; with `retentionDays` (> 0) a ts older than
 * the retention period is refused, since retention would delete it (decision 0048). Every problem
 * of the record is reported; the first one is the entry's `field`/`reason`.
 */
/** The asset a record names, as normaliseRecord picks it (asset_id, else device_id), when it is a string. */
export function namedAsset(rec: unknown): string | undefined {
  if (!isPlainObject(rec)) return undefined;
  const v = rec.asset_id === undefined || rec.asset_id === null ? rec.device_id : rec.asset_id;
  return typeof v === 'string' ? v : undefined;
}

export function normaliseRecord(rec: unknown, now: number, opts: { retentionDays?: number } = {}): Normalised {
  if (!isPlainObject(rec)) {
    return { ok: false, problems: [problem(null, 'not_an_object', `A record must be a JSON object, got ${describe(rec)}`)] };
  }
  const problems: RecordProblem[] = [];

  // asset_id, or device_id
  let assetKey = 'asset_id';
  let assetVal: unknown = rec.asset_id;
  if (assetVal === undefined || assetVal === null) {
    if (rec.device_id !== undefined && rec.device_id !== null) {
      assetKey = 'device_id';
      assetVal = rec.device_id;
    }
  }
  let asset_id = '';
  if (assetVal === undefined || assetVal === null || (typeof assetVal === 'string' && assetVal.trim() === '')) {
    problems.push(problem('asset_id', 'missing_asset_id', 'No asset_id or device_id: every record names its asset'));
  } else if (typeof assetVal !== 'string') {
    problems.push(problem(assetKey, 'invalid_asset_id', `${assetKey} must be a string, got ${describe(assetVal)}`));
  } else if (assetVal.length > MAX_ASSET_ID_LENGTH) {
    problems.push(problem(assetKey, 'invalid_asset_id', `${assetKey} is longer than ${MAX_ASSET_ID_LENGTH} characters`));
  } else {
    asset_id = assetVal;
  }

  // ts
  let ts: ParsedTs | null = null;
  const tsVal = rec.ts;
  if (tsVal === undefined || tsVal === null || tsVal === '') {
    problems.push(problem('ts', 'missing_ts', 'No ts: every record needs an ISO 8601 timestamp with an offset'));
  } else if (typeof tsVal === 'number') {
    problems.push(problem('ts', 'epoch_ts_not_accepted', 'Unix epoch numbers are not accepted: send ISO 8601 with an offset, e.g. 2026-01-01T00:00:00Z'));
  } else if (typeof tsVal !== 'string' || !(ts = parseTs(tsVal))) {
    problems.push(problem('ts', 'unparseable_ts', 'ts is not an ISO 8601 date-time: send e.g. 2026-01-01T00:00:00Z or 2026-01-01T01:00:00+01:00'));
  } else if (opts.retentionDays && ts.ms < now - opts.retentionDays * DAY_MS) {
    problems.push(
      problem(
        'ts',
        'ts_beyond_retention',
        `ts is older than the retention period (${opts.retentionDays} days): the record would be deleted, so it is not stored`,
      ),
    );
  }

  // measurements: a number, or absent/null (in MEASUREMENTS order, as problems are listed)
  const power_kw = measurement(rec, 'power_kw', problems);
  const soc_pct = measurement(rec, 'soc_pct', problems);
  const voltage = measurement(rec, 'voltage', problems);
  const current = measurement(rec, 'current', problems);
  const temp_c = measurement(rec, 'temp_c', problems);
  rawNumbers(rec, problems);

  // status and the correlation ids: a string, or absent/null
  const status = text(rec, 'status', problems);
  const run_id = text(rec, 'run_id', problems);
  const intent_id = text(rec, 'intent_id', problems);

  const bad = unsupported(rec, 1);
  if (bad) problems.push(problem(null, 'unsupported_value', `The record ${bad}`));

  if (problems.length > 0 || !ts) return { ok: false, problems };

  const anomalies: AnomalyReason[] = [];
  if (soc_pct !== null && (soc_pct < 0 || soc_pct > 100)) anomalies.push('soc_out_of_range');
  if (power_kw !== null && Math.abs(power_kw) > POWER_LIMIT_KW) anomalies.push('power_out_of_range');
  if (voltage !== null && voltage < 0) anomalies.push('voltage_out_of_range');
  if (ts.naive) anomalies.push('ts_without_offset');
  if (ts.ms > now + FUTURE_TOLERANCE_MS) anomalies.push('ts_in_future');

  return {
    ok: true,
    row: {
      asset_id,
      ts: ts.iso,
      tsMs: ts.ms,
      power_kw,
      soc_pct,
      voltage,
      current,
      temp_c,
      status: status ?? 'unknown',
      run_id,
      intent_id,
      anomalies,
      raw: rec,
    },
  };
}

/**
 * The largest magnitude each measurement may have (decision 0280, which supersedes 0269): beyond
 * it a record is refused (`beyond_bound`), at or below it the value is stored exactly and flagged
 * as before when physically implausible. Derived from what the store and its computations hold:
 *
 * - power_kw, 1e8 kW (100 GW, more than Great Britain's whole peak demand): integrated over a half
 *   hour it is at most 5e7 kWh, which fits `energy_asset_flows.kwh numeric(14,3)` (below 1e11)
 *   two thousand times over; the site half hours, days and months hold the sum over a billion
 *   such assets (migration 0830); an alert's pence a day at any tariff the policy allows fits a
 *   bigint. Counter advances are held to the same rate (ENERGY_RATE_BOUND_KW).
 * - soc_pct, voltage, current, temp_c, 1e7 in their units: they feed no energy or money column;
 *   the bound keeps their sums of squares and their products with every other bounded figure (a
 *   state of charge times a battery's capacity, volts times amperes) far inside a double, while
 *   being far beyond anything a sensor reads (1,100 kV is the highest transmission voltage).
 */
export const MEASUREMENT_BOUNDS: Readonly<Record<Measurement, number>> = {
  power_kw: 1e8,
  soc_pct: 1e7,
  voltage: 1e7,
  current: 1e7,
  temp_c: 1e7,
};
const UNITS: Readonly<Record<Measurement, string>> = { power_kw: 'kW', soc_pct: '%', voltage: 'V', current: 'A', temp_c: '°C' };

/**
 * Cumulative energy counters the energy model reads from the raw record (energy/flows.ts names
 * each flow's keys from these; OCPP and the home-automation connector write `energy_kwh`). A
 * number under one of these keys is a register in kWh: beyond ±COUNTER_BOUND_KWH the record is
 * refused (`beyond_bound`). 1e15 kWh is the bound power running for over a thousand years; a
 * difference of two bounded registers stays exact to a tenth of a kWh and far inside a double.
 */
export const ENERGY_COUNTER_KEYS = [
  'import_kwh',
  'energy_import_kwh',
  'import_energy_kwh',
  'export_kwh',
  'energy_export_kwh',
  'export_energy_kwh',
  'generation_kwh',
  'pv_energy_kwh',
  'energy_kwh',
  'charge_kwh',
  'charge_energy_kwh',
  'discharge_kwh',
  'discharge_energy_kwh',
  'consumption_kwh',
] as const;
export type EnergyCounterKey = (typeof ENERGY_COUNTER_KEYS)[number];
export const COUNTER_BOUND_KWH = 1e15;
/**
 * The fastest a counter may advance to be counted, kW (the power bound): the energy model treats
 * a larger advance between two readings like a reset (nothing counted for that interval), so no
 * half hour of an asset exceeds what the bound power delivers in it (decision 0281).
 */
export const ENERGY_RATE_BOUND_KW = MEASUREMENT_BOUNDS.power_kw;

/**
 * The smallest magnitude a non-zero measurement or counter may have: PostgreSQL refuses a float8
 * product or quotient that underflows to zero ("value out of range: underflow"), and the energy
 * integrals multiply and divide samples (a square of 1e-170 is such a product). From 1e-100 every
 * product the energy and aggregate queries form stays far above the smallest double. No sensor
 * reads a non-zero value that small; 0 is, of course, accepted.
 */
export const MAGNITUDE_FLOOR = 1e-100;

const boundText = (n: number) => n.toExponential().replace('e+', 'e');
const tooSmall = (v: number) => v !== 0 && v < MAGNITUDE_FLOOR && v > -MAGNITUDE_FLOOR;

/** A measurement: a finite number within its bound, or null when absent or null; anything else is a problem. */
function measurement(rec: Record<string, unknown>, k: Measurement, problems: RecordProblem[]): number | null {
  const v = rec[k];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    problems.push(problem(k, 'not_a_number', `${k} must be a number, got ${typeof v === 'number' ? 'a number out of range' : describe(v)}`));
    return null;
  }
  const bound = MEASUREMENT_BOUNDS[k];
  if (v > bound || v < -bound || tooSmall(v)) {
    problems.push(
      problem(
        k,
        'beyond_bound',
        `${k} must be 0 or of magnitude from 1e-100 to ${boundText(bound)} ${UNITS[k]} (what the store's energy and aggregate figures are sized for), got ${v}`,
      ),
    );
    return null;
  }
  return v;
}

/** The bound of a raw key the history reads, by the metric's unit: the canonical field's of the same quantity. */
const UNIT_BOUNDS: Readonly<Record<string, number>> = {
  kW: MEASUREMENT_BOUNDS.power_kw,
  '%': MEASUREMENT_BOUNDS.soc_pct,
  degC: MEASUREMENT_BOUNDS.temp_c,
  kWh: COUNTER_BOUND_KWH,
  GBP: 1e15,
};

/**
 * Raw keys whose numbers the service computes with, and their bounds (decision 0280): the energy
 * counters (ENERGY_COUNTER_KEYS, kWh registers) and the keys the history metrics read (summed into
 * the daily rollups of every organisation in one sealing pass, so one `soc: 1e308` stopped them
 * all). A `_w` key is in watts: its bound is the kW bound times 1,000.
 */
export const RAW_KEY_BOUNDS: ReadonlyMap<string, { bound: number; read: string }> = (() => {
  const m = new Map<string, { bound: number; read: string }>();
  for (const k of ENERGY_COUNTER_KEYS) m.set(k, { bound: COUNTER_BOUND_KWH, read: 'a cumulative kWh register' });
  for (const d of ALL_METRICS) {
    for (const src of d.sources) {
      if (!('raw' in src) || m.has(src.raw)) continue;
      const unitBound = UNIT_BOUNDS[d.unit];
      if (unitBound === undefined) throw new Error(`telemetry: no value bound for the unit ${d.unit} of metric ${d.metric} (decision 0280)`);
      const watts = src.raw.endsWith('_w');
      m.set(src.raw, { bound: unitBound * (watts ? 1000 : 1), read: `a history value in ${watts ? 'W' : d.unit}` });
    }
  }
  return m;
})();

/** The raw keys the service computes with: a number under one beyond its bound is a problem. */
function rawNumbers(rec: Record<string, unknown>, problems: RecordProblem[]): void {
  for (const k in rec) {
    const b = RAW_KEY_BOUNDS.get(k);
    if (!b) continue;
    const v = rec[k];
    if (typeof v === 'number' && (v > b.bound || v < -b.bound || tooSmall(v))) {
      problems.push(problem(k, 'beyond_bound', `${k} is read as ${b.read} and must be 0 or of magnitude from 1e-100 to ${boundText(b.bound)}, got ${v}`));
    }
  }
}

/** status, run_id, intent_id: a string, or null when absent or null; anything else is a problem. */
function text(rec: Record<string, unknown>, k: (typeof STRING_FIELDS)[number], problems: RecordProblem[]): string | null {
  const v = rec[k];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') {
    problems.push(problem(k, 'not_a_string', `${k} must be a string, got ${describe(v)}`));
    return null;
  }
  return v;
}
