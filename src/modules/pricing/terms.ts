// A retail tariff version's terms and their check. Every rate is stated; none is defaulted: a
// missing rate is an error naming it (concepts.md section 2).
import { fieldError, type FieldError } from '../../platform/errors.ts';
import { parseScaled, pow10 } from '../../kit/decimal.ts';
import { checkSchedule, type BandPeriod, type CompiledSchedule } from './bands.ts';
import { Q } from './money.ts';
import { validDate } from './library.ts';

export type UnitRates =
  | { type: 'flat'; rate_p_per_kwh: string }
  | { type: 'time_of_use'; rates: Record<string, string>; periods: BandPeriod[] }
  | { type: 'dynamic'; description?: string };

export interface VersionTerms {
  effective_from: string;
  effective_to: string | null;
  vat_rate_percent: string;
  standing_charge_p_per_day: string;
  unit_rates: UnitRates;
}

const isDate = (s: unknown): s is string => typeof s === 'string' && validDate(s);
const STATED = 'every rate must be stated; none is defaulted';

type Loc = (string | number)[];

function decimalField(v: unknown, loc: Loc, what: string, errs: FieldError[], opts: { min?: bigint; max?: bigint } = {}): string | null {
  if (v === undefined || v === null) {
    errs.push(fieldError(loc, `${what} missing: ${STATED}`, v ?? null, 'missing'));
    return null;
  }
  const text = typeof v === 'number' && Number.isFinite(v) ? String(v) : v;
  const n = typeof text === 'string' ? parseScaled(text, Q) : null;
  if (n === null) {
    errs.push(fieldError(loc, `${what} must be decimal text with at most 6 decimal places`, v));
    return null;
  }
  if (opts.min !== undefined && n < opts.min) errs.push(fieldError(loc, `${what} must not be below ${opts.min / pow10(Q)}`, v));
  if (opts.max !== undefined && n > opts.max) errs.push(fieldError(loc, `${what} must not be above ${opts.max / pow10(Q)}`, v));
  return text as string;
}

const unit = pow10(Q);
const VERSION_KEYS = ['effective_from', 'effective_to', 'vat_rate_percent', 'standing_charge_p_per_day', 'unit_rates'];

/** The field errors of a version's terms (empty when valid), and the terms when valid. */
export function checkVersion(v: unknown, loc: Loc): { errors: FieldError[]; terms: VersionTerms | null } {
  const errs: FieldError[] = [];
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return { errors: [fieldError(loc, "version must be an object with the version's terms", v ?? null)], terms: null };
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!VERSION_KEYS.includes(k)) errs.push(fieldError([...loc, k], `unknown member ${k}`, o[k]));
  if (o.effective_from === undefined)
    errs.push(fieldError([...loc, 'effective_from'], 'effective_from missing: the first UK local day the version is in force, YYYY-MM-DD', null, 'missing'));
  else if (!isDate(o.effective_from)) errs.push(fieldError([...loc, 'effective_from'], 'effective_from must be a date, YYYY-MM-DD', o.effective_from));
  const to = o.effective_to ?? null;
  if (to !== null && !isDate(to))
    errs.push(fieldError([...loc, 'effective_to'], 'effective_to must be a date, YYYY-MM-DD (the first day no longer in force), or null', to));
  else if (to !== null && isDate(o.effective_from) && to <= o.effective_from)
    errs.push(fieldError([...loc, 'effective_to'], 'effective_to must be after effective_from (it is the first day no longer in force)', to));
  const vat = decimalField(o.vat_rate_percent, [...loc, 'vat_rate_percent'], 'vat_rate_percent', errs, { min: 0n, max: 100n * unit });
  const standing = decimalField(o.standing_charge_p_per_day, [...loc, 'standing_charge_p_per_day'], 'standing_charge_p_per_day', errs, { min: 0n });
  let unitRates: UnitRates | null = null;
  const ur = o.unit_rates;
  const uloc = [...loc, 'unit_rates'];
  if (ur === undefined || ur === null) errs.push(fieldError(uloc, `unit_rates missing: ${STATED}`, null, 'missing'));
  else if (typeof ur !== 'object' || Array.isArray(ur))
    errs.push(fieldError(uloc, 'unit_rates must be an object with a type: flat, time_of_use or dynamic', ur));
  else {
    const u = ur as Record<string, unknown>;
    const allowed = (keys: string[]) => {
      for (const k of Object.keys(u))
        if (!keys.includes(k)) errs.push(fieldError([...uloc, k], `unknown member ${k} for unit_rates of type ${String(u.type)}`, u[k]));
    };
    if (u.type === 'flat') {
      allowed(['type', 'rate_p_per_kwh']);
      const r = decimalField(u.rate_p_per_kwh, [...uloc, 'rate_p_per_kwh'], 'unit rate rate_p_per_kwh', errs);
      if (r !== null) unitRates = { type: 'flat', rate_p_per_kwh: r };
    } else if (u.type === 'time_of_use') {
      allowed(['type', 'rates', 'periods']);
      const periods = u.periods;
      const rates = (u.rates ?? null) as Record<string, unknown> | null;
      let ok = true;
      if (!Array.isArray(periods) || periods.length === 0) {
        errs.push(fieldError([...uloc, 'periods'], 'periods missing: a time-of-use tariff states when each band applies', periods ?? null, 'missing'));
        ok = false;
      } else {
        periods.forEach((p, i) => {
          const pp = p as Record<string, unknown>;
          if (
            typeof pp !== 'object' ||
            pp === null ||
            typeof pp.band !== 'string' ||
            !/^[a-z][a-z0-9_]{0,31}$/.test(pp.band) ||
            !['all', 'weekdays', 'weekends'].includes(pp.days as string) ||
            typeof pp.from !== 'string' ||
            typeof pp.to !== 'string'
          ) {
            errs.push(
              fieldError([...uloc, 'periods', i], 'a period is {band (lower-case name), days (all, weekdays or weekends), from (HH:MM), to (HH:MM)}', p),
            );
            ok = false;
          }
        });
        if (ok)
          for (const pr of checkSchedule(periods as BandPeriod[]).problems) {
            errs.push(
              fieldError(
                pr.index === null ? [...uloc, 'periods'] : [...uloc, 'periods', pr.index, ...(pr.field ? [pr.field] : [])],
                pr.msg,
                pr.index === null ? null : periods[pr.index],
              ),
            );
            ok = false;
          }
      }
      if (rates === null || typeof rates !== 'object' || Array.isArray(rates)) {
        errs.push(fieldError([...uloc, 'rates'], `rates missing: a rate for each band (p/kWh); ${STATED}`, rates, 'missing'));
        ok = false;
      } else if (Array.isArray(periods)) {
        const bands = [...new Set((periods as { band?: unknown }[]).map((p) => p?.band).filter((b): b is string => typeof b === 'string'))];
        const out: Record<string, string> = {};
        for (const b of bands) {
          if (rates[b] === undefined) {
            errs.push(fieldError([...uloc, 'rates', b], `rate missing for band ${b}: ${STATED}`, null, 'missing'));
            ok = false;
          } else {
            const r = decimalField(rates[b], [...uloc, 'rates', b], `rate for band ${b}`, errs);
            if (r === null) ok = false;
            else out[b] = r;
          }
        }
        for (const b of Object.keys(rates))
          if (!bands.includes(b)) {
            errs.push(fieldError([...uloc, 'rates', b], `band ${b} has a rate but no period`, rates[b]));
            ok = false;
          }
        if (ok) unitRates = { type: 'time_of_use', rates: out, periods: periods as BandPeriod[] };
      }
    } else if (u.type === 'dynamic') {
      allowed(['type', 'description']);
      if (u.description !== undefined && (typeof u.description !== 'string' || u.description.length > 500))
        errs.push(fieldError([...uloc, 'description'], 'description must be text of at most 500 characters', u.description));
      else unitRates = { type: 'dynamic', ...(u.description ? { description: u.description as string } : {}) };
    } else
      errs.push(
        fieldError(
          [...uloc, 'type'],
          'unit_rates.type must be flat, time_of_use or dynamic (half-hourly prices, such as Agile, supplied with each bill)',
          u.type ?? null,
        ),
      );
  }
  if (errs.length || vat === null || standing === null || unitRates === null) return { errors: errs, terms: null };
  return {
    errors: [],
    terms: {
      effective_from: o.effective_from as string,
      effective_to: to as string | null,
      vat_rate_percent: vat,
      standing_charge_p_per_day: standing,
      unit_rates: unitRates,
    },
  };
}

/** A stored version's terms compiled for billing. */
export interface CompiledVersion {
  version: number;
  effective_from: string;
  effective_to: string | null;
  /** The first day no longer in force: the earlier of its own end and the next version's start. */
  until: string | null;
  terms: VersionTerms;
  schedule: CompiledSchedule | null;
}
