// Study types, input kinds, their CSV templates and samples, and CSV validation by line and column.
import { csvRecord, csvRecords } from '../../kit/csv.ts';

export const KINDS = ['half_hourly_load', 'vehicles_shifts', 'tariff', 'site_constraints'] as const;
export type Kind = (typeof KINDS)[number];

export const CONSTRAINT_KEYS: Record<string, string> = {
  connection_kw: 'Site import capacity in kW',
  charger_kw: 'Power of one charger in kW',
  charger_count: 'Number of chargers',
  solar_kwp: 'Solar array size in kWp',
  solar_kwh_per_kwp: 'Annual solar yield per kWp (default 950)',
  battery_kwh: 'Usable battery capacity in kWh',
  heat_demand_kwh_per_year: 'Annual heat demand in kWh',
  gas_p_per_kwh: 'Gas price in pence per kWh',
  boiler_efficiency: 'Boiler efficiency as a fraction, e.g. 0.85',
  heat_pump_scop: 'Heat pump seasonal coefficient of performance, e.g. 3',
};

export interface KindSpec {
  columns: { name: string; description: string; check: (v: string) => string | null }[];
  description: string;
}

const nonNegativeDecimal = (v: string) => (/^(0|[1-9][0-9]{0,8})(\.[0-9]{1,4})?$/.test(v) ? null : 'must be a non-negative decimal number');
const hhmm = (v: string) => (/^([01][0-9]|2[0-3]):[0-5][0-9]$/.test(v) ? null : 'must be a time HH:MM');
const period = (v: string) => (/^[1-9][0-9]?$/.test(v) && Number(v) <= 50 ? null : 'must be a half-hour period 1 to 50');
const name = (v: string) => (v.length >= 1 && v.length <= 64 ? null : 'must be 1 to 64 characters');

export const KIND_SPECS: Record<Kind, KindSpec> = {
  half_hourly_load: {
    description: 'Half-hourly site import: one row per half hour (period 1 is 00:00-00:30 UK local time; 46 or 50 on clock-change days).',
    columns: [
      {
        name: 'date',
        description: 'Day, YYYY-MM-DD',
        check: (v) => (/^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)) ? null : 'must be a date YYYY-MM-DD'),
      },
      { name: 'period', description: 'Half-hour period 1 to 50', check: period },
      { name: 'kwh', description: 'Energy imported in the half hour, kWh', check: nonNegativeDecimal },
    ],
  },
  vehicles_shifts: {
    description: 'One row per vehicle: battery, energy used per shift and the shift times.',
    columns: [
      { name: 'vehicle_id', description: 'Fleet number or registration', check: name },
      { name: 'battery_kwh', description: 'Usable battery capacity of the electric replacement, kWh', check: nonNegativeDecimal },
      { name: 'kwh_per_shift', description: 'Energy used in one shift, kWh', check: nonNegativeDecimal },
      { name: 'depart', description: 'Departure time HH:MM', check: hhmm },
      { name: 'return', description: 'Return time HH:MM', check: hhmm },
    ],
  },
  tariff: {
    description: 'Unit rates by half-hour period: each row covers periods from_period to to_period inclusive; rows must cover 1 to 48.',
    columns: [
      { name: 'from_period', description: 'First period of the band', check: period },
      { name: 'to_period', description: 'Last period of the band', check: period },
      { name: 'p_per_kwh', description: 'Unit rate in pence per kWh', check: nonNegativeDecimal },
    ],
  },
  site_constraints: {
    description:
      'One row per setting: ' +
      Object.entries(CONSTRAINT_KEYS)
        .map(([k, d]) => `${k} (${d})`)
        .join(', ') +
      '.',
    columns: [
      { name: 'name', description: 'Setting name', check: (v) => (v in CONSTRAINT_KEYS ? null : `must be one of ${Object.keys(CONSTRAINT_KEYS).join(', ')}`) },
      { name: 'value', description: 'Setting value', check: nonNegativeDecimal },
    ],
  },
};

export const STUDY_TYPES = {
  depot_electrification: {
    title: 'Depot electrification',
    description: 'Energy, charging cost and connection headroom if the fleet in vehicles_shifts were electric, charged in the cheapest tariff band.',
    kinds: ['vehicles_shifts', 'tariff', 'site_constraints'] as Kind[],
    display_label: 'Projection',
  },
  solar_battery: {
    title: 'Solar and battery for a site',
    description:
      'Annual saving from a solar array (self-consumed up to the site load) and a battery shifting energy from the dearest to the cheapest band once a day.',
    kinds: ['half_hourly_load', 'tariff', 'site_constraints'] as Kind[],
    display_label: 'Projection',
  },
  heat_pump_retrofit: {
    title: 'Heat pump retrofit',
    description: "Annual heating cost with a gas boiler against a heat pump priced at the site's load-weighted electricity rate.",
    kinds: ['half_hourly_load', 'tariff', 'site_constraints'] as Kind[],
    display_label: 'Projection',
  },
  depot_savings_audit: {
    title: 'Depot savings audit',
    description: 'What the charging in half_hourly_load cost at the tariff, and what it would have cost had all of it been in the cheapest band.',
    kinds: ['half_hourly_load', 'tariff'] as Kind[],
    display_label: 'Calculated from your charging data',
  },
} as const;
export type StudyType = keyof typeof STUDY_TYPES;
export const STUDY_TYPE_NAMES = Object.keys(STUDY_TYPES) as StudyType[];

export function template(kind: Kind): string {
  return csvRecord(KIND_SPECS[kind].columns.map((c) => c.name));
}

/** Samples: small, realistic and hand-workable (docs/studies.md works them through). */
export function sample(type: StudyType, kind: Kind): string {
  const lines: string[][] = [];
  switch (kind) {
    case 'half_hourly_load':
      // One day: 10 kWh per half hour overnight (periods 1-14), 20 kWh in the day (15-48).
      for (let p = 1; p <= 48; p++) lines.push(['2026-11-02', String(p), p <= 14 ? '10' : '20']);
      break;
    case 'vehicles_shifts':
      lines.push(['VAN01', '75', '60', '07:00', '17:00'], ['VAN02', '75', '45', '07:30', '16:30'], ['VAN03', '100', '80', '06:00', '18:00']);
      break;
    case 'tariff':
      // Night 1-14 at 10p, day 15-32 at 25p, peak 33-38 at 35p, evening 39-48 at 25p.
      lines.push(['1', '14', '10'], ['15', '32', '25'], ['33', '38', '35'], ['39', '48', '25']);
      break;
    case 'site_constraints':
      if (type === 'depot_electrification') lines.push(['connection_kw', '100'], ['charger_kw', '22'], ['charger_count', '3']);
      else if (type === 'solar_battery') lines.push(['solar_kwp', '50'], ['solar_kwh_per_kwp', '950'], ['battery_kwh', '100']);
      else lines.push(['heat_demand_kwh_per_year', '40000'], ['gas_p_per_kwh', '6'], ['boiler_efficiency', '0.8'], ['heat_pump_scop', '3']);
      break;
  }
  return template(kind) + lines.map((l) => csvRecord(l)).join('');
}

export interface CsvError {
  line: number;
  column: string | null;
  message: string;
}

const MAX_ROWS = 20_000;
/** Errors named in a refusal. */
const MAX_ERRORS = 100;

/** Parses and checks a CSV input; errors name the line (1 is the header) and the column. */
export async function validateCsv(kind: Kind, text: string): Promise<{ rows: Record<string, string>[]; errors: CsvError[] }> {
  const spec = KIND_SPECS[kind];
  const errors: CsvError[] = [];
  let records: string[][];
  let lines: number[];
  try {
    // The header, at most MAX_ROWS rows and one more to tell; no more bad-width rows than are named.
    ({ records, lines } = await csvRecords(text, { maxRecords: MAX_ROWS + 2, maxWrongWidth: MAX_ERRORS }));
  } catch (e) {
    const err = e as { lines?: number; message?: string };
    return { rows: [], errors: [{ line: err.lines ?? 1, column: null, message: `not valid CSV: ${String(err.message ?? e).slice(0, 200)}` }] };
  }
  if (records.length === 0) return { rows: [], errors: [{ line: 1, column: null, message: 'empty: a header row is needed' }] };
  const header = records[0]!.map((h) => h.toLowerCase());
  const want = spec.columns.map((c) => c.name);
  if (header.join(',') !== want.join(',')) return { rows: [], errors: [{ line: 1, column: null, message: `header must be ${want.join(',')}` }] };
  const rows: Record<string, string>[] = [];
  if (records.length - 1 > MAX_ROWS) return { rows: [], errors: [{ line: lines[MAX_ROWS + 1]!, column: null, message: `at most ${MAX_ROWS} rows` }] };
  records.slice(1).forEach((rec, i) => {
    const line = lines[i + 1]!;
    if (rec.length !== want.length) {
      errors.push({ line, column: null, message: `expected ${want.length} columns, found ${rec.length}` });
      return;
    }
    const row: Record<string, string> = {};
    spec.columns.forEach((c, j) => {
      const msg = c.check(rec[j]!);
      if (msg) errors.push({ line, column: c.name, message: msg });
      row[c.name] = rec[j]!;
    });
    rows.push(row);
  });
  if (rows.length === 0 && errors.length === 0) errors.push({ line: 2, column: null, message: 'no data rows' });
  if (errors.length === 0 && kind === 'tariff') {
    const covered = new Array<number>(49).fill(0);
    rows.forEach((r, i) => {
      const a = Number(r.from_period),
        b = Number(r.to_period);
      if (a > b || b > 48) errors.push({ line: i + 2, column: 'to_period', message: 'must be at least from_period and at most 48' });
      else for (let p = a; p <= b; p++) covered[p]!++;
    });
    if (errors.length === 0) {
      const bad = covered.findIndex((c, p) => p >= 1 && c !== 1);
      if (bad > 0)
        errors.push({
          line: rows.length + 1,
          column: null,
          message: `periods 1 to 48 must each be covered once (period ${bad} is covered ${covered[bad]} times)`,
        });
    }
  }
  return { rows, errors: errors.slice(0, MAX_ERRORS) };
}
