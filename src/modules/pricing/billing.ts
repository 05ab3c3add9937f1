// A retail bill: standing charge per UK local day, unit charges per band (flat, time of use) or
// per half hour (dynamic tariffs such as Agile), from the tariff version in force each local day,
// then VAT. Rounding: each line is quantity × rate exactly, rounded half away from zero to the
// penny; VAT is the rate times the sum of the rounded lines it applies to, rounded to the penny;
// the total is the lines plus VAT. So the lines always add up to the totals exactly.
import { isoTime } from '../../platform/schema-kit.ts';
import { fieldError, type FieldError } from '../../platform/errors.ts';
import { ukClock, slotsInDay, addDays, SLOT_MS, ukMidnight } from '../../kit/uk-time.ts';
import { bandAt, checkSchedule } from './bands.ts';
import { pow10, rescale, roundDiv, formatScaled } from '../../kit/decimal.ts';
import { Q, P, q, plain } from './money.ts';
import type { HalfHourIn } from './engine.ts';
import type { CompiledVersion, VersionTerms } from './terms.ts';

export const BILL_ROUNDING =
  'Each line is quantity × rate (VAT exclusive), exact, rounded half away from zero to the penny; VAT is each rate times the sum of the rounded lines it applies ' +
  'to, rounded half away from zero to the penny; the total is the lines plus VAT. Inclusive rates are derived from the exact exclusive ones, never from rounded figures.';

export const BILL_METHOD =
  'Each half hour of consumption (UTC start) belongs to the UK local day of its start; the tariff version in force that day applies (each version is in force from ' +
  "its effective_from until its effective_to or the next version's effective_from); the standing charge is charged once per local day of the period; flat and " +
  'time-of-use unit rates apply to the kWh of each band by UK local clock time; dynamic tariffs price each half hour at its own supplied price. ' +
  BILL_ROUNDING;

export interface StoredVersion {
  version: number;
  effective_from: string;
  effective_to: string | null;
  terms: VersionTerms;
}

/** Versions in effective order with the day each stops being in force. */
export function compileVersions(rows: readonly StoredVersion[]): CompiledVersion[] {
  const sorted = [...rows].sort((a, b) => (a.effective_from < b.effective_from ? -1 : a.effective_from > b.effective_from ? 1 : a.version - b.version));
  return sorted.map((v, i) => {
    const next = sorted[i + 1]?.effective_from ?? null;
    const own = v.effective_to;
    const until = own === null ? next : next === null ? own : own < next ? own : next;
    const ur = v.terms.unit_rates;
    return {
      version: v.version,
      effective_from: v.effective_from,
      effective_to: v.effective_to,
      until,
      terms: v.terms,
      schedule: ur.type === 'time_of_use' ? checkSchedule(ur.periods).compiled : null,
    };
  });
}

export interface BillLine {
  kind: 'standing_charge' | 'unit';
  version: number;
  description: string;
  from: string;
  to: string;
  band: string | null;
  quantity: string;
  unit: 'day' | 'kWh';
  rate_p: string | null;
  rate_p_inc_vat: string | null;
  average_rate_p: string | null;
  amount_gbp: string;
}

export interface Bill {
  tariff_id: string;
  name: string;
  period: { from: string; to: string; days: number };
  versions_used: { version: number; from: string; to: string; days: number; vat_rate_percent: string }[];
  lines: BillLine[];
  totals: { kwh: string; net_gbp: string; vat: { rate_percent: string; net_gbp: string; vat_gbp: string }[]; vat_gbp: string; total_gbp: string };
  coverage: { half_hours_expected: number; half_hours_present: number; half_hours_missing: number; first_missing: string[] };
  rounding: string;
}

/** Consumption or prices that cannot be billed, each an error naming the half hour or day. */
export class BillProblems extends Error {
  readonly fields: FieldError[];
  constructor(fields: FieldError[]) {
    super('bill problems');
    this.fields = fields;
  }
}

const PENCE_TO_GBP = 2;
/** An amount in pence at `scale` decimals, as pounds rounded to the penny (scale 2). */
const poundsRounded = (pence: bigint, scale: number) => rescale(pence, scale + PENCE_TO_GBP, 2);
/** Inclusive rate from the exact exclusive one: rate × (100 + vat) / 100, exact. */
const incVat = (rate: bigint, vat: bigint) => plain(rate * (100n * pow10(Q) + vat), Q + Q + 2);

export function billTariff(input: {
  tariff: { tariff_id: string; name: string };
  versions: CompiledVersion[];
  consumption: readonly HalfHourIn[];
  prices: ReadonlyMap<number, bigint> | null;
  from: string;
  to: string;
}): Bill {
  const { versions, consumption, prices, from, to } = input;
  const problems: FieldError[] = [];
  // Days of the period and the version in force on each.
  const days: string[] = [];
  for (let d = from; d < to; d = addDays(d, 1)) days.push(d);
  const versionOf = new Map<string, CompiledVersion>();
  const uncovered: string[] = [];
  for (const d of days) {
    const v = versions.find((x) => x.effective_from <= d && (x.until === null || d < x.until));
    if (v) versionOf.set(d, v);
    else uncovered.push(d);
  }
  if (uncovered.length) problems.push(fieldError(['body', 'from'], `No tariff version of ${input.tariff.tariff_id} in force on ${spans(uncovered)}`, from));

  // Per version: days, kWh per band, dynamic cost.
  interface Acc {
    days: string[];
    kwh: Map<string, bigint>;
    dynCost: bigint;
    dynKwh: bigint;
  }
  const acc = new Map<number, Acc>();
  const accOf = (v: CompiledVersion) => {
    let a = acc.get(v.version);
    if (!a) acc.set(v.version, (a = { days: [], kwh: new Map(), dynCost: 0n, dynKwh: 0n }));
    return a;
  };
  for (const d of days) {
    const v = versionOf.get(d);
    if (v) accOf(v).days.push(d);
  }
  let totalKwh = 0n;
  const missingPrices: number[] = [];
  consumption.forEach((h, i) => {
    const clock = ukClock(h.t);
    if (clock.date < from || clock.date >= to) {
      if (problems.length < 20)
        problems.push(
          fieldError(
            ['body', 'consumption', i, 'start'],
            `half hour ${isoTime(h.t)} is on ${clock.date}, outside the bill period ${from} to ${to}`,
            isoTime(h.t),
          ),
        );
      return;
    }
    const v = versionOf.get(clock.date);
    if (!v) return;
    const a = accOf(v);
    totalKwh += h.kwh;
    const ur = v.terms.unit_rates;
    if (ur.type === 'dynamic') {
      const p = prices?.get(h.t);
      if (p === undefined) {
        missingPrices.push(h.t);
        return;
      }
      a.dynCost += p * h.kwh;
      a.dynKwh += h.kwh;
    } else {
      const band = ur.type === 'flat' ? '' : bandAt(v.schedule!, clock.minute, clock.weekday);
      a.kwh.set(band, (a.kwh.get(band) ?? 0n) + h.kwh);
    }
  });
  if (missingPrices.length)
    problems.push(
      fieldError(
        ['body', 'prices'],
        `No price for ${missingPrices.length} half hour${missingPrices.length === 1 ? '' : 's'} of a dynamic tariff: ${missingPrices
          .slice(0, 5)
          .map((t) => isoTime(t))
          .join(', ')}${missingPrices.length > 5 ? ', ...' : ''}`,
        null,
        'missing',
      ),
    );
  if (problems.length) throw new BillProblems(problems);

  const lines: BillLine[] = [];
  const vatNet = new Map<string, bigint>(); // rate text -> net pence at 2 dp of pounds
  const used: Bill['versions_used'] = [];
  for (const v of versions) {
    const a = acc.get(v.version);
    if (!a || a.days.length === 0) continue;
    const t = v.terms;
    const vat = q(t.vat_rate_percent);
    const first = a.days[0];
    const last = addDays(a.days[a.days.length - 1], 1);
    used.push({ version: v.version, from: first, to: last, days: a.days.length, vat_rate_percent: t.vat_rate_percent });
    const push = (l: Omit<BillLine, 'version' | 'from' | 'to'>, amount: bigint) => {
      lines.push({ version: v.version, from: first, to: last, ...l });
      vatNet.set(t.vat_rate_percent, (vatNet.get(t.vat_rate_percent) ?? 0n) + amount);
    };
    const sc = q(t.standing_charge_p_per_day);
    const scAmount = poundsRounded(sc * BigInt(a.days.length), Q);
    push(
      {
        kind: 'standing_charge',
        description: `Standing charge, ${a.days.length} day${a.days.length === 1 ? '' : 's'} at ${plain(sc)}p a day`,
        band: null,
        quantity: String(a.days.length),
        unit: 'day',
        rate_p: plain(sc),
        rate_p_inc_vat: incVat(sc, vat),
        average_rate_p: null,
        amount_gbp: formatScaled(scAmount, 2, 2),
      },
      scAmount,
    );
    const ur = t.unit_rates;
    if (ur.type === 'dynamic') {
      const amount = poundsRounded(a.dynCost, P);
      const avg = a.dynKwh === 0n ? null : formatScaled(roundDiv(a.dynCost, a.dynKwh), Q, 4);
      push(
        {
          kind: 'unit',
          description: `Energy at half-hourly prices, ${plain(a.dynKwh)} kWh`,
          band: null,
          quantity: plain(a.dynKwh),
          unit: 'kWh',
          rate_p: null,
          rate_p_inc_vat: null,
          average_rate_p: avg,
          amount_gbp: formatScaled(amount, 2, 2),
        },
        amount,
      );
    } else {
      const bands = ur.type === 'flat' ? [''] : [...new Set(ur.periods.map((p) => p.band))];
      for (const b of bands) {
        const kwh = a.kwh.get(b) ?? 0n;
        const rate = q(ur.type === 'flat' ? ur.rate_p_per_kwh : ur.rates[b]);
        const amount = poundsRounded(rate * kwh, P);
        push(
          {
            kind: 'unit',
            description: `Energy${b ? ` (${b})` : ''}, ${plain(kwh)} kWh at ${plain(rate)}p`,
            band: b || null,
            quantity: plain(kwh),
            unit: 'kWh',
            rate_p: plain(rate),
            rate_p_inc_vat: incVat(rate, vat),
            average_rate_p: null,
            amount_gbp: formatScaled(amount, 2, 2),
          },
          amount,
        );
      }
    }
  }
  let net = 0n;
  for (const l of lines) net += q(l.amount_gbp) / pow10(Q - 2);
  const vatLines = [...vatNet].map(([rate, n]) => {
    // n: pounds at 2 dp; rate: percent at Q; n × rate / 100 at 2 + Q + 2 decimals.
    const v = rescale(n * q(rate), 2 + Q + 2, 2);
    return { rate_percent: rate, net_gbp: formatScaled(n, 2, 2), vat: v };
  });
  const vatTotal = vatLines.reduce((s, x) => s + x.vat, 0n);
  const expected = days.reduce((s, d) => s + slotsInDay(d), 0);
  const present = new Set(consumption.map((h) => h.t));
  const firstMissing: string[] = [];
  if (present.size < expected) {
    for (let t = ukMidnight(from), end = ukMidnight(to); t < end && firstMissing.length < 5; t += SLOT_MS) if (!present.has(t)) firstMissing.push(isoTime(t));
  }
  return {
    tariff_id: input.tariff.tariff_id,
    name: input.tariff.name,
    period: { from, to, days: days.length },
    versions_used: used,
    lines,
    totals: {
      kwh: plain(totalKwh),
      net_gbp: formatScaled(net, 2, 2),
      vat: vatLines.map((x) => ({ rate_percent: x.rate_percent, net_gbp: x.net_gbp, vat_gbp: formatScaled(x.vat, 2, 2) })),
      vat_gbp: formatScaled(vatTotal, 2, 2),
      total_gbp: formatScaled(net + vatTotal, 2, 2),
    },
    coverage: {
      half_hours_expected: expected,
      half_hours_present: consumption.length,
      half_hours_missing: expected - consumption.length,
      first_missing: firstMissing,
    },
    rounding: BILL_ROUNDING,
  };
}

/** Dates as compact runs: "2026-01-01 to 2026-01-03, 2026-02-10". */
function spans(dates: string[]): string {
  const out: string[] = [];
  for (let i = 0; i < dates.length; ) {
    let j = i;
    while (j + 1 < dates.length && addDays(dates[j], 1) === dates[j + 1]) j++;
    out.push(i === j ? dates[i] : `${dates[i]} to ${dates[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}

/**
 * The import unit rate of a tariff at each half hour (UTC starts), VAT inclusive, exact: the version
 * in force on the UK local date of the start, its flat rate or the rate of the time band at the UK
 * wall-clock time. A dynamic tariff has no rates of its own (its prices come from the market), so it
 * is a problem, as is a half hour no version covers.
 */
export function unitRatesAt(versions: readonly CompiledVersion[], starts: readonly number[]): { rates: string[]; versions: number[] } | { problem: string } {
  const rates: string[] = [];
  const used = new Set<number>();
  // The version in force is looked up once per UK day (half hours come in order), and each
  // VAT-inclusive rate is worked out once per version and band.
  let day = '';
  let v: CompiledVersion | undefined;
  const incl = new Map<string, string>();
  for (const t of starts) {
    const clock = ukClock(t);
    if (clock.date !== day) {
      day = clock.date;
      v = versions.find((x) => x.effective_from <= day && (x.until === null || day < x.until));
    }
    if (!v) return { problem: `no version of the tariff is in force on ${clock.date} (UK)` };
    const ur = v.terms.unit_rates;
    let rate: string;
    if (ur.type === 'flat') rate = ur.rate_p_per_kwh;
    else if (ur.type === 'time_of_use' && v.schedule) rate = ur.rates[bandAt(v.schedule, clock.minute, clock.weekday)];
    else return { problem: `version ${v.version} is a dynamic tariff: its unit rates are the market's half-hourly prices (use the agile source)` };
    used.add(v.version);
    const key = `${v.version}|${rate}`;
    let r = incl.get(key);
    if (r === undefined) incl.set(key, (r = incVat(q(rate), q(v.terms.vat_rate_percent))));
    rates.push(r);
  }
  return { rates, versions: [...used].sort((a, b) => a - b) };
}
