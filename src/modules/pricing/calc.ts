// Calculated designs: smart bands (time bands proposed from a price series or a load profile) and
// cost-plus (wholesale + charges + margin -> a tariff version, with every input listed).
import { isoTime } from '../../platform/schema-kit.ts';
import { fieldError, type FieldError } from '../../platform/errors.ts';
import { parseScaled, pow10, rescale, roundDiv, formatScaled } from '../../kit/decimal.ts';
import { ukClock, parseInstant, SLOT_MS, ukMidnight, addDays } from '../../kit/uk-time.ts';
import { checkSchedule, clockOf, type BandPeriod } from './bands.ts';
import { pricingErrors } from './errors.ts';
import { libraryAt, priceHalfHours, parseRate, type HalfHourIn } from './engine.ts';
import type { Library } from './library.ts';
import { mpanView, parseHalfHours, validDate } from './library.ts';
import { Q, P, q, plain } from './money.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { slotsInDay } from '../../kit/uk-time.ts';

// ---- Smart bands -------------------------------------------------------------------------------

export const SMART_BANDS_METHOD =
  'The series is averaged by UK local wall-clock half hour (48 slots; the repeated autumn hour counts in its clock slots, the skipped spring hour has no values ' +
  'that day); the 48 slot means are split into the requested number of bands by Jenks natural breaks (exact dynamic programme minimising the within-band sum ' +
  'of squared deviations); consecutive slots of a band form a period, and the periods cover every day exactly once. Bands are named by level, low to high.';

const BAND_NAMES: Record<number, string[]> = { 2: ['low', 'high'], 3: ['low', 'mid', 'high'], 4: ['low', 'mid_low', 'mid_high', 'high'] };

/** Jenks natural breaks: for sorted values, the class index of each value (0..k-1), minimising within-class variance. */
export function naturalBreaks(sorted: number[], k: number): number[] {
  const n = sorted.length;
  const pre = [0];
  const pre2 = [0];
  for (const v of sorted) {
    pre.push(pre[pre.length - 1] + v);
    pre2.push(pre2[pre2.length - 1] + v * v);
  }
  const ssd = (i: number, j: number) => {
    // values i..j-1
    const s = pre[j] - pre[i];
    return pre2[j] - pre2[i] - (s * s) / (j - i);
  };
  // cost[c][j]: best cost of the first j values in c+1 classes; cut[c][j]: start of the last class.
  const cost = Array.from({ length: k }, () => new Array<number>(n + 1).fill(Infinity));
  const cut = Array.from({ length: k }, () => new Array<number>(n + 1).fill(0));
  for (let j = 1; j <= n; j++) cost[0][j] = ssd(0, j);
  for (let c = 1; c < k; c++)
    for (let j = c + 1; j <= n; j++)
      for (let i = c; i < j; i++) {
        const v = cost[c - 1][i] + ssd(i, j);
        if (v < cost[c][j] - 1e-12) {
          cost[c][j] = v;
          cut[c][j] = i;
        }
      }
  const cls = new Array<number>(n).fill(0);
  let j = n;
  for (let c = k - 1; c >= 0; c--) {
    const i = c === 0 ? 0 : cut[c][j];
    for (let x = i; x < j; x++) cls[x] = c;
    j = i;
  }
  return cls;
}

export function smartBands(body: { series: { start: string; value: string | number }[]; kind: 'price' | 'load'; band_count: number }) {
  const errs: FieldError[] = [];
  const sums = new Array<bigint>(48).fill(0n);
  const counts = new Array<number>(48).fill(0);
  const seen = new Set<number>();
  const days = new Set<string>();
  body.series.forEach((p, i) => {
    if (errs.length >= 20) return;
    const t = parseInstant(p.start);
    if (t === null || t % SLOT_MS !== 0 || !/[Tt]/.test(p.start))
      return void errs.push(
        fieldError(['body', 'series', i, 'start'], 'start must be an ISO 8601 date-time with an offset, at the start of a half hour', p.start),
      );
    if (seen.has(t)) return void errs.push(fieldError(['body', 'series', i, 'start'], `half hour ${isoTime(t)} is given twice`, p.start));
    seen.add(t);
    const v = parseScaled(typeof p.value === 'number' ? String(p.value) : p.value, Q);
    if (v === null) return void errs.push(fieldError(['body', 'series', i, 'value'], 'value must be a decimal with at most 6 decimal places', p.value));
    const c = ukClock(t);
    days.add(c.date);
    const slot = Math.floor(c.minute / 30);
    sums[slot] += v;
    counts[slot]++;
  });
  if (!errs.length) {
    const empty = counts.flatMap((n, s) => (n === 0 ? [s] : []));
    if (empty.length)
      errs.push(
        fieldError(
          ['body', 'series'],
          `the series has no value at UK local ${empty
            .slice(0, 6)
            .map((s) => `${clockOf(s)}-${clockOf(s + 1)}`)
            .join(', ')}${empty.length > 6 ? ', ...' : ''}: every half hour of the day needs at least one`,
          null,
        ),
      );
  }
  if (errs.length) throw pricingErrors.fields(errs);
  const means = sums.map((s, i) => roundDiv(s, BigInt(counts[i]))); // Q
  const k = body.band_count;
  const order = means.map((m, slot) => ({ m, slot })).sort((a, b) => (a.m < b.m ? -1 : a.m > b.m ? 1 : a.slot - b.slot));
  const cls = naturalBreaks(
    order.map((o) => Number(plain(o.m))),
    k,
  );
  const bandOf = new Array<number>(48);
  order.forEach((o, i) => (bandOf[o.slot] = cls[i]));
  const used = [...new Set(cls)].length;
  const names = BAND_NAMES[used] ?? BAND_NAMES[k];
  // Renumber when fewer distinct levels than asked (flat series).
  const levels = [...new Set(cls)].sort((a, b) => a - b);
  const nameOf = (c: number) => names[levels.indexOf(c)];
  // Periods: runs of one band, merged across midnight.
  const runs: { band: string; from: number; to: number }[] = [];
  for (let s = 0; s < 48; s++) {
    const b = nameOf(bandOf[s]);
    const last = runs[runs.length - 1];
    if (last && last.band === b && last.to === s) last.to = s + 1;
    else runs.push({ band: b, from: s, to: s + 1 });
  }
  if (runs.length > 1 && runs[0].band === runs[runs.length - 1].band) {
    const tail = runs.pop()!;
    runs[0].from = tail.from;
  }
  const periods: BandPeriod[] = runs.map((r) => ({ band: r.band, days: 'all', from: clockOf(r.from), to: clockOf(r.to) }));
  const check = checkSchedule(periods);
  if (check.problems.length) throw new Error(`smart bands made an invalid schedule: ${check.problems.map((p) => p.msg).join('; ')}`);
  const bands = levels.map((c) => {
    const slots = bandOf.flatMap((b, s) => (b === c ? [s] : []));
    const sum = slots.reduce((a, s) => a + means[s], 0n);
    return {
      band: nameOf(c),
      half_hours: slots.length,
      hours: plain(BigInt(slots.length) * 5n * pow10(Q - 1)),
      mean: formatScaled(roundDiv(sum, BigInt(slots.length)), Q, 4),
      min: formatScaled(
        slots.reduce((a, s) => (means[s] < a ? means[s] : a), means[slots[0]]),
        Q,
        4,
      ),
      max: formatScaled(
        slots.reduce((a, s) => (means[s] > a ? means[s] : a), means[slots[0]]),
        Q,
        4,
      ),
    };
  });
  return {
    kind: body.kind,
    band_count: used,
    requested_band_count: k,
    days: days.size,
    half_hours: seen.size,
    bands,
    periods,
    slot_means: means.map((m, s) => ({ from: clockOf(s), to: clockOf(s + 1), mean: formatScaled(m, Q, 4), values: counts[s], band: nameOf(bandOf[s]) })),
    data_basis: { basis: 'calculated' as const, method: SMART_BANDS_METHOD },
  };
}

// ---- Cost-plus ---------------------------------------------------------------------------------

export const COST_PLUS_METHOD =
  'Wholesale cost is the consumption priced at the stated wholesale rate (or each half hour at its own wholesale price); non-energy charges are the charge ' +
  'library in force at the MPAN each UK local day, priced by the pricing engine on the same consumption, with fixed daily charges for every whole day of the ' +
  'period; unit rate = (wholesale cost + per-kWh charges) / kWh + unit margin; standing charge = fixed daily charges / days + standing margin; both rounded half ' +
  'away from zero to 0.0001p; VAT as in force in the library for the supply type, inclusive figures derived from the exact exclusive ones.';

export interface CostPlusBody {
  mpan_core: string;
  from: string;
  to: string;
  consumption: { start: string; kwh: string | number }[];
  wholesale: { type: 'flat'; rate_p_per_kwh: string } | { type: 'half_hourly'; prices: { start: string; rate_p_per_kwh: string | number }[] };
  margin: { unit_p_per_kwh: string; standing_p_per_day: string };
}

export async function costPlus(library: Library, ctx: RequestContext, body: CostPlusBody) {
  const errs: FieldError[] = [];
  if (!validDate(body.from)) errs.push(fieldError(['body', 'from'], 'from must be a date, YYYY-MM-DD', body.from));
  if (!validDate(body.to)) errs.push(fieldError(['body', 'to'], 'to must be a date, YYYY-MM-DD (the day after the last)', body.to));
  else if (validDate(body.from) && body.to <= body.from) errs.push(fieldError(['body', 'to'], 'to must be after from (it is the day after the last)', body.to));
  else if (validDate(body.from) && Date.parse(body.to) - Date.parse(body.from) > 367 * 86_400_000)
    errs.push(fieldError(['body', 'to'], 'cost-plus covers at most 367 days', body.to));
  const mu = parseScaled(body.margin.unit_p_per_kwh, Q);
  const ms = parseScaled(body.margin.standing_p_per_day, Q);
  if (mu === null)
    errs.push(fieldError(['body', 'margin', 'unit_p_per_kwh'], 'unit_p_per_kwh must be a decimal with at most 6 decimal places', body.margin.unit_p_per_kwh));
  if (ms === null)
    errs.push(
      fieldError(
        ['body', 'margin', 'standing_p_per_day'],
        'standing_p_per_day must be a decimal with at most 6 decimal places',
        body.margin.standing_p_per_day,
      ),
    );
  let flat: bigint | null = null;
  if (body.wholesale.type === 'flat') {
    flat = parseScaled(body.wholesale.rate_p_per_kwh, Q);
    if (flat === null)
      errs.push(
        fieldError(['body', 'wholesale', 'rate_p_per_kwh'], 'rate_p_per_kwh must be a decimal with at most 6 decimal places', body.wholesale.rate_p_per_kwh),
      );
  }
  if (errs.length) throw pricingErrors.fields(errs);
  const consumption = parseHalfHours(body.consumption, ['body', 'consumption']);
  const outside = consumption.findIndex((h) => {
    const d = ukClock(h.t).date;
    return d < body.from || d >= body.to;
  });
  if (outside >= 0)
    throw pricingErrors.fields([
      fieldError(
        ['body', 'consumption'],
        `half hour ${isoTime(consumption[outside].t)} is outside the period ${body.from} to ${body.to}`,
        isoTime(consumption[outside].t),
      ),
    ]);
  const totalKwh = consumption.reduce((s, h) => s + h.kwh, 0n);
  if (totalKwh === 0n)
    throw pricingErrors.field(['consumption'], 'the consumption totals 0 kWh: a unit rate needs some consumption to spread costs over', null);

  // Wholesale cost.
  let wholesaleCost = 0n; // P
  if (flat !== null) wholesaleCost = flat * totalKwh;
  else if (body.wholesale.type === 'half_hourly') {
    const prices = new Map<number, bigint>();
    for (const [i, p] of body.wholesale.prices.entries()) {
      const t = parseInstant(p.start);
      const v = parseScaled(typeof p.rate_p_per_kwh === 'number' ? String(p.rate_p_per_kwh) : p.rate_p_per_kwh, Q);
      if (t === null || t % SLOT_MS !== 0 || v === null)
        throw pricingErrors.field(['wholesale', 'prices', i], 'each price is {start: ISO 8601 half-hour start with an offset, rate_p_per_kwh: decimal}', p);
      prices.set(t, v);
    }
    const missing = consumption.filter((h) => !prices.has(h.t));
    if (missing.length)
      throw pricingErrors.field(
        ['wholesale', 'prices'],
        `No wholesale price for ${missing.length} half hour${missing.length === 1 ? '' : 's'}: ${missing
          .slice(0, 5)
          .map((h) => isoTime(h.t))
          .join(', ')}${missing.length > 5 ? ', ...' : ''}`,
        null,
      );
    for (const h of consumption) wholesaleCost += prices.get(h.t)! * h.kwh;
  }

  // Charges: every half hour of the period (zero where no consumption was given), so fixed daily charges are whole days.
  const m = await library.supplyPoint(ctx, body.mpan_core);
  const { rates, schedules } = await library.libraryFor(ctx, m);
  const byT = new Map(consumption.map((h) => [h.t, h.kwh]));
  const all: HalfHourIn[] = [];
  for (let t = ukMidnight(body.from), end = ukMidnight(body.to); t < end; t += SLOT_MS) all.push({ t, kwh: byT.get(t) ?? 0n });
  const priced = priceHalfHours(m, libraryAt(m, rates, schedules), all, { detail: false, slotsInDay });
  let days = 0;
  for (let d = body.from; d < body.to; d = addDays(d, 1)) days++;
  const perKwh = priced.totals.by_component.filter((c) => ['p/kWh'].includes(c.unit));
  const daily = priced.totals.by_component.filter((c) => c.unit === 'p/day' || c.unit === 'p/kVA/day');
  const chargesKwhCost = perKwh.reduce((s, c) => s + q(c.cost_p), 0n); // Q
  const dailyCost = daily.reduce((s, c) => s + q(c.cost_p), 0n); // Q
  // unit = (wholesale (P) + charges (Q -> P)) / kWh (Q) -> Q, + margin; rounded to 4 dp
  const variable = wholesaleCost + chargesKwhCost * pow10(P - Q);
  const unitRate = rescale(roundDiv(variable, totalKwh) + mu!, Q, 4);
  const standing = rescale(roundDiv(dailyCost, BigInt(days)) + ms!, Q, 4);
  const vatRate = priced.vat_rates.length === 1 ? priced.vat_rates[0] : null;
  const inc = (v: bigint) => (vatRate ? plain(v * (100n * pow10(Q) + parseRate(vatRate.rate_percent)), 4 + Q + 2) : null);
  const rateInputs = (component: string) =>
    priced.rates_used
      .filter((r) => r.component === component)
      .map((r) => ({
        rate_id: r.rate_id,
        rate: r.rate,
        unit: r.unit,
        band: r.band,
        valid_from: r.valid_from,
        valid_to: r.valid_to,
        source: r.source,
        origin: r.origin,
      }));
  return {
    mpan: mpanView(m),
    period: { from: body.from, to: body.to, days },
    inputs: {
      consumption: { kwh: plain(totalKwh), half_hours: consumption.length },
      wholesale:
        flat !== null
          ? { type: 'flat' as const, rate_p_per_kwh: plain(flat), cost_p: formatScaled(wholesaleCost, P, 4) }
          : {
              type: 'half_hourly' as const,
              prices: consumption.length,
              average_p_per_kwh: formatScaled(roundDiv(wholesaleCost, totalKwh), Q, 4),
              cost_p: formatScaled(wholesaleCost, P, 4),
            },
      charges: [...perKwh, ...daily].map((c) => ({
        component: c.component,
        unit: c.unit,
        quantity: c.quantity,
        cost_p: c.cost_p,
        rates: rateInputs(c.component),
      })),
      time_bands: priced.schedules_used,
      margin: { unit_p_per_kwh: plain(mu!), standing_p_per_day: plain(ms!) },
      vat: vatRate,
    },
    unpriced: priced.unpriced,
    workings: [
      `variable cost = wholesale ${formatScaled(wholesaleCost, P, 4)}p + per-kWh charges ${plain(chargesKwhCost)}p = ${formatScaled(variable, P, 4)}p over ${plain(totalKwh)} kWh`,
      `unit rate = ${formatScaled(roundDiv(variable, totalKwh), Q, 6)}p/kWh + margin ${plain(mu!)}p = ${formatScaled(unitRate, 4, 4)}p/kWh (rounded to 0.0001p)`,
      `standing charge = fixed charges ${plain(dailyCost)}p over ${days} days = ${formatScaled(roundDiv(dailyCost, BigInt(days)), Q, 6)}p/day + margin ${plain(ms!)}p = ${formatScaled(standing, 4, 4)}p/day (rounded to 0.0001p)`,
    ],
    proposal: {
      unit_rate_p_per_kwh: formatScaled(unitRate, 4, 4),
      standing_charge_p_per_day: formatScaled(standing, 4, 4),
      vat_rate_percent: vatRate ? vatRate.rate_percent : null,
      unit_rate_p_per_kwh_inc_vat: inc(unitRate),
      standing_charge_p_per_day_inc_vat: inc(standing),
      version: vatRate
        ? {
            effective_from: body.from,
            effective_to: null,
            vat_rate_percent: vatRate.rate_percent,
            standing_charge_p_per_day: formatScaled(standing, 4, 4),
            unit_rates: { type: 'flat' as const, rate_p_per_kwh: formatScaled(unitRate, 4, 4) },
          }
        : null,
    },
    data_basis: { basis: 'calculated' as const, method: COST_PLUS_METHOD },
  };
}
