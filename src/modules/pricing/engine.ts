// The pricing engine: the non-energy charges of a batch of half hours at one MPAN, from the charge
// library in force each UK local day. Half hours are matched to time bands by UK local clock time.
// Rounding: each half hour's charge of each component (rate × kWh, exact) is rounded half away from
// zero to 1/10 000 of a penny; each day's fixed charges likewise; totals are exact sums of those
// rounded lines, so the lines always add up to the totals. Figures exclude VAT.
import { isoTime } from '../../platform/schema-kit.ts';
import { ukClock } from '../../kit/uk-time.ts';
import { bandAt, checkSchedule, type CompiledSchedule, type BandPeriod } from './bands.ts';
import { COMPONENTS, componentInfo, type ComponentInfo } from './components.ts';
import { pow10, roundDiv, formatScaled } from '../../kit/decimal.ts';
import { Q, P, q, plain } from './money.ts';

export const LINE_DP = 4; // pence

export const PRICE_METHOD =
  'Each half hour (UTC start, kWh as metered, no line-loss gross-up) takes the UK local date and wall-clock time of its start; the charge-library rates in force ' +
  "that local day for the MPAN (distributor, line-loss class, supply type) apply, DUoS unit rates by the band of the distributor's time-band schedule at that " +
  "clock time; each component's charge is rate × kWh, exact, rounded half away from zero to 0.0001p; fixed daily charges are charged pro rata to the half " +
  'hours of the local day present (46, 48 or 50 a day); totals are exact sums of the rounded lines; VAT is not included.';

export interface LibRate {
  rate_id: string;
  component: string;
  rate: string;
  distributor_id: string | null;
  line_loss_class: string | null;
  supply_type: string | null;
  band: string | null;
  valid_from: string;
  valid_to: string | null;
  source: string;
  origin: 'published' | 'organisation';
}

export interface LibSchedule {
  schedule_id: string;
  distributor_id: string;
  valid_from: string;
  valid_to: string | null;
  periods: BandPeriod[];
  source: string;
}

export interface SupplyPoint {
  mpan_core: string;
  distributor_id: string;
  line_loss_class: string;
  supply_type: string;
  agreed_capacity_kva: string | null;
}

export const inForce = (from: string, to: string | null, date: string) => from <= date && (to === null || date < to);

export function appliesTo(r: LibRate, m: SupplyPoint): boolean {
  return (
    (r.distributor_id === null || r.distributor_id === m.distributor_id) &&
    (r.line_loss_class === null || r.line_loss_class === m.line_loss_class) &&
    (r.supply_type === null || r.supply_type === m.supply_type)
  );
}

interface DayRates {
  schedule: { id: string; compiled: CompiledSchedule } | null;
  /** component -> band ('' when the component has no band) -> rate */
  kwh: Map<string, Map<string, { rate: LibRate; v: bigint }>>;
  day: Map<string, { rate: LibRate; v: bigint }>;
  vat: { rate: LibRate; v: bigint } | null;
}

/** The library for one supply point, looked up by local date (cached per date). */
export function libraryAt(m: SupplyPoint, rates: readonly LibRate[], schedules: readonly LibSchedule[]) {
  const mine = rates.filter((r) => appliesTo(r, m));
  const scheds = schedules.filter((s) => s.distributor_id === m.distributor_id).map((s) => ({ s, compiled: checkSchedule(s.periods).compiled }));
  const cache = new Map<string, DayRates>();
  return (date: string): DayRates => {
    const hit = cache.get(date);
    if (hit) return hit;
    const sc = scheds.find((x) => inForce(x.s.valid_from, x.s.valid_to, date) && x.compiled);
    const out: DayRates = { schedule: sc ? { id: sc.s.schedule_id, compiled: sc.compiled! } : null, kwh: new Map(), day: new Map(), vat: null };
    for (const r of mine) {
      if (!inForce(r.valid_from, r.valid_to, date)) continue;
      const info = componentInfo(r.component);
      if (!info) continue;
      const v = parseRate(r.rate);
      if (info.basis === 'kwh') {
        const byBand = out.kwh.get(r.component) ?? new Map();
        byBand.set(r.band ?? '', { rate: r, v });
        out.kwh.set(r.component, byBand);
      } else if (info.basis === 'vat') out.vat = { rate: r, v };
      else out.day.set(r.component, { rate: r, v });
    }
    cache.set(date, out);
    return out;
  };
}

/** A stored numeric (text, maybe with trailing zeros) at Q decimals. */
export function parseRate(s: string): bigint {
  return q(s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);
}

export interface HalfHourIn {
  t: number;
  kwh: bigint; // Q
}

interface Unpriced {
  component: string;
  band: string | null;
  reason: string;
  first: string;
  last: string;
  count: number;
  per: 'half_hour' | 'day';
}

export interface PriceResult {
  half_hours: {
    start: string;
    local_date: string;
    local_time: string;
    settlement_period: number;
    band: string | null;
    kwh: string;
    charges: Record<string, string>;
    total_p: string;
  }[];
  days: { date: string; half_hours: number; half_hours_in_day: number; charges: Record<string, string>; total_p: string }[];
  totals: {
    kwh: string;
    by_component: { component: string; unit: string; quantity: string; cost_p: string }[];
    by_band: { band: string; kwh: string; cost_p: string }[];
    total_p: string;
    total_gbp: string;
  };
  rates_used: (LibRate & { unit: string })[];
  schedules_used: string[];
  unpriced: { component: string; band: string | null; reason: string; first: string; last: string; count: number; per: 'half_hour' | 'day' }[];
  vat_rates: { rate_percent: string; rate_id: string; source: string }[];
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Prices a batch of half hours (distinct starts, on :00 or :30). */
export function priceHalfHours(
  m: SupplyPoint,
  at: ReturnType<typeof libraryAt>,
  halfHours: readonly HalfHourIn[],
  opts: { detail: boolean; slotsInDay: (date: string) => number },
): PriceResult {
  const unpriced = new Map<string, Unpriced>();
  const miss = (component: string, band: string | null, reason: string, when: string, per: 'half_hour' | 'day', k = `${component}|${band}|${reason}`) => {
    const u = unpriced.get(k);
    if (u) {
      u.count++;
      if (when < u.first) u.first = when;
      if (when > u.last) u.last = when;
    } else unpriced.set(k, { component, band, reason, first: when, last: when, count: 1, per });
  };
  const used = new Map<string, LibRate>();
  const schedulesUsed = new Set<string>();
  const compTotals = new Map<string, { qty: bigint; cost: bigint }>(); // qty at Q (kWh, days or kVA-days), cost at LINE_DP
  const bandTotals = new Map<string, { kwh: bigint; cost: bigint }>();
  const addComp = (c: string, qty: bigint, cost: bigint) => {
    const t = compTotals.get(c) ?? { qty: 0n, cost: 0n };
    t.qty += qty;
    t.cost += cost;
    compTotals.set(c, t);
  };
  const perDay = new Map<string, number>();
  const hhOut: PriceResult['half_hours'] = [];
  let totalKwh = 0n;
  let total = 0n;
  const kwhComps = COMPONENTS.filter((c) => c.basis === 'kwh');

  // What applies to a half hour depends only on its local date and band: planned once per pair.
  interface Plan {
    hits: { component: string; ci: number; banded: boolean; v: bigint; rate: LibRate }[];
    misses: { component: string; band: string | null; reason: string; key?: string }[];
  }
  const plans = new Map<DayRates, Map<string | null, Plan>>();
  const planOf = (lib: DayRates, band: string | null): Plan => {
    let byBand = plans.get(lib);
    if (!byBand) plans.set(lib, (byBand = new Map()));
    let plan = byBand.get(band);
    if (plan) return plan;
    plan = { hits: [], misses: [] };
    for (const info of kwhComps) {
      const byBand = lib.kwh.get(info.component);
      const ci = COMPONENTS.indexOf(info);
      if (info.needsBand) {
        if (!lib.schedule) {
          plan.misses.push({
            component: info.component,
            band: null,
            reason: byBand ? `no time-band schedule in force for distributor ${m.distributor_id}` : 'no rate in the library',
          });
          continue;
        }
        const hit = byBand?.get(band!);
        if (hit) plan.hits.push({ component: info.component, ci, banded: true, v: hit.v, rate: hit.rate });
        else plan.misses.push({ component: info.component, band, reason: 'no rate in the library' });
      } else {
        const hit = byBand?.get('');
        if (hit) plan.hits.push({ component: info.component, ci, banded: false, v: hit.v, rate: hit.rate });
        // CCL is not charged on domestic supplies: nothing is missing there.
        else if (!(info.component === 'ccl' && m.supply_type === 'domestic'))
          plan.misses.push({ component: info.component, band: null, reason: 'no rate in the library' });
      }
    }
    for (const hit of plan.hits) used.set(hit.rate.rate_id, hit.rate);
    for (const x of plan.misses) x.key = `${x.component}|${x.band}|${x.reason}`;
    byBand.set(band, plan);
    return plan;
  };
  const compQty = new Array<bigint>(COMPONENTS.length).fill(0n);
  const compCost = new Array<bigint>(COMPONENTS.length).fill(0n);
  const compSeen = new Array<boolean>(COMPONENTS.length).fill(false);
  const step = pow10(P - LINE_DP);
  const half = step / 2n;

  for (const h of halfHours) {
    const clock = ukClock(h.t);
    const lib = at(clock.date);
    perDay.set(clock.date, (perDay.get(clock.date) ?? 0) + 1);
    const band = lib.schedule ? bandAt(lib.schedule.compiled, clock.minute, clock.weekday) : null;
    if (lib.schedule) schedulesUsed.add(lib.schedule.id);
    const plan = planOf(lib, band);
    for (const x of plan.misses) miss(x.component, x.band, x.reason, clock.date, 'half_hour', x.key);
    const charges: Record<string, string> = {};
    let hhTotal = 0n;
    let bandCost = 0n;
    for (const x of plan.hits) {
      const p = x.v * h.kwh;
      const cost = p >= 0n ? (p + half) / step : -((-p + half) / step);
      hhTotal += cost;
      if (x.banded) bandCost += cost;
      compQty[x.ci] += h.kwh;
      compCost[x.ci] += cost;
      compSeen[x.ci] = true;
      if (opts.detail) charges[x.component] = formatScaled(cost, LINE_DP, LINE_DP);
    }
    if (band !== null) {
      const b = bandTotals.get(band) ?? { kwh: 0n, cost: 0n };
      b.kwh += h.kwh;
      b.cost += bandCost;
      bandTotals.set(band, b);
    }
    totalKwh += h.kwh;
    total += hhTotal;
    if (opts.detail) {
      const hh = Math.floor(clock.minute / 60);
      hhOut.push({
        start: isoTime(h.t),
        local_date: clock.date,
        local_time: `${pad(hh)}:${pad(clock.minute % 60)}`,
        settlement_period: clock.period,
        band,
        kwh: plain(h.kwh),
        charges,
        total_p: formatScaled(hhTotal, LINE_DP, LINE_DP),
      });
    }
  }
  COMPONENTS.forEach((c, i) => {
    if (compSeen[i]) compTotals.set(c.component, { qty: compQty[i], cost: compCost[i] });
  });

  // Fixed daily charges, pro rata to the half hours of each local day present.
  const daysOut: PriceResult['days'] = [];
  const dayComps = COMPONENTS.filter((c) => c.basis === 'day' || c.basis === 'kva_day');
  for (const [date, n] of [...perDay].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const lib = at(date);
    const of = opts.slotsInDay(date);
    const charges: Record<string, string> = {};
    let dayTotal = 0n;
    for (const info of dayComps) {
      const hit = lib.day.get(info.component);
      if (!hit) {
        miss(info.component, null, 'no rate in the library', date, 'day');
        continue;
      }
      let cost: bigint;
      let qty: bigint; // days (or kVA-days) at Q
      if (info.basis === 'kva_day') {
        if (m.agreed_capacity_kva === null) {
          miss(info.component, null, 'the MPAN has no agreed capacity (kVA)', date, 'day');
          continue;
        }
        const kva = parseRate(m.agreed_capacity_kva);
        // rate (Q) × kVA (Q) × n / of  -> P, rounded to LINE_DP
        cost = roundDiv(hit.v * kva * BigInt(n), BigInt(of) * pow10(P - LINE_DP));
        qty = roundDiv(kva * BigInt(n), BigInt(of));
      } else {
        cost = roundDiv(hit.v * BigInt(n), BigInt(of) * pow10(Q - LINE_DP));
        qty = roundDiv(pow10(Q) * BigInt(n), BigInt(of));
      }
      used.set(hit.rate.rate_id, hit.rate);
      charges[info.component] = formatScaled(cost, LINE_DP, LINE_DP);
      dayTotal += cost;
      addComp(info.component, qty, cost);
    }
    total += dayTotal;
    daysOut.push({ date, half_hours: n, half_hours_in_day: of, charges, total_p: formatScaled(dayTotal, LINE_DP, LINE_DP) });
  }

  const vat = new Map<string, LibRate>();
  for (const date of perDay.keys()) {
    const v = at(date).vat;
    if (v) vat.set(v.rate.rate_id, v.rate);
  }

  return {
    half_hours: hhOut,
    days: daysOut,
    totals: {
      kwh: plain(totalKwh),
      by_component: COMPONENTS.filter((c) => compTotals.has(c.component)).map((c) => ({
        component: c.component,
        unit: c.unit,
        quantity: plain(compTotals.get(c.component)!.qty),
        cost_p: formatScaled(compTotals.get(c.component)!.cost, LINE_DP, LINE_DP),
      })),
      by_band: [...bandTotals].map(([band, b]) => ({ band, kwh: plain(b.kwh), cost_p: formatScaled(b.cost, LINE_DP, LINE_DP) })),
      total_p: formatScaled(total, LINE_DP, LINE_DP),
      // pence at 4 places / 100 = pounds at 6 places, exactly
      total_gbp: formatScaled(total, LINE_DP + 2, LINE_DP + 2),
    },
    rates_used: [...used.values()].map((r) => ({ ...r, unit: (componentInfo(r.component) as ComponentInfo).unit })),
    schedules_used: [...schedulesUsed],
    unpriced: [...unpriced.values()],
    vat_rates: [...vat.values()].map((r) => ({ rate_percent: r.rate, rate_id: r.rate_id, source: r.source })),
  };
}
