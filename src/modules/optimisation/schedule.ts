// Tariff-schedule and import-limit planning around the LP: the problem from the request, the site
// forecast and the warranty; the two baselines (do nothing, and the simple rule); the plan's view.
import { formatScaled, fromNumber, rescale } from '../../kit/decimal.ts';
import { settlementPeriod, SLOT_MS, ukDate } from '../../kit/uk-time.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import { DT_H, solve, type BatterySpec, type Problem, type Solution } from './lp.ts';

export const SCHEDULE_METHOD =
  "Linear programme solved by HiGHS (WebAssembly): minimise Σ import × import price − export × export price over the half hours, subject to the energy balance, power limits, state-of-charge bounds, round-trip efficiency (√rte on charge and on discharge) and the warranty's discharge energy per UK day.";
export const RULE_METHOD =
  'Simple rule: each battery charges at full power in its cheapest half hours and discharges at full power in its dearest, as many as fill its usable capacity, in time order within its state-of-charge bounds and warranty.';

/** The simple rule's charge (+) / discharge (−) kW per battery per slot. */
export function simpleRule(p: Problem): number[][] {
  const n = p.import_p.length;
  return p.batteries.map((b) => {
    const usable = b.max_soc_kwh - b.min_soc_kwh;
    const k = Math.min(Math.floor(n / 2), Math.ceil(usable / (Math.max(b.max_charge_kw, b.max_discharge_kw, 1e-9) * DT_H)));
    const order = [...Array(n).keys()].sort((a, c) => p.import_p[a] - p.import_p[c] || a - c);
    const cheap = new Set(order.slice(0, k));
    const dear = new Set(order.slice(n - k));
    const eta = Math.sqrt(b.round_trip_efficiency);
    let soc = b.initial_soc_kwh;
    const usedByDay = new Map<string, number>();
    return Array.from({ length: n }, (_, i) => {
      if (cheap.has(i) && !dear.has(i)) {
        const kw = Math.max(0, Math.min(b.max_charge_kw, (b.max_soc_kwh - soc) / (eta * DT_H)));
        soc += kw * eta * DT_H;
        return kw;
      }
      if (dear.has(i)) {
        const used = usedByDay.get(p.days[i]) ?? 0;
        const room = b.max_discharge_kwh_per_day === null ? Infinity : Math.max(0, b.max_discharge_kwh_per_day - used);
        const kw = Math.max(0, Math.min(b.max_discharge_kw, ((soc - b.min_soc_kwh) * eta) / DT_H, room / DT_H));
        soc -= (kw * DT_H) / eta;
        usedByDay.set(p.days[i], used + kw * DT_H);
        return -kw;
      }
      return 0;
    });
  });
}

// ---- Money (decision 0195) ------------------------------------------------------------------------
// The LP works in floats; every reported money figure is decimal: each half hour's net grid energy is
// rounded to the watt-hour, each price taken to a millionth of a penny, each half hour's cost line
// (energy × price, exact) rounded to £0.0001, and every total is the exact sum of its lines.

export const MONEY_METHOD =
  "Money is decimal: each half hour's net grid energy is rounded to the watt-hour (0.001 kWh, half away from zero) and priced exactly (import price where positive, export price where negative, prices to 0.000001 p/kWh); each half hour's cost is rounded to £0.0001 (half away from zero) and every total is the exact sum of those half-hour costs; each saving is the exact difference of two totals.";

/** £ scale of a cost line and a total: 4 decimals (a hundredth of a penny). */
const GBP_SCALE = 4;

/** kWh rounded to the watt-hour, half away from zero, as integer Wh. */
export function whOf(kwh: number): bigint {
  return fromNumber(kwh, 3);
}

/** Each half hour's cost in £ at 4 decimals (integers of £0.0001): Wh × µp is 1e-9 p = 1e-11 £. */
export function costLines(net: number[], import_p: number[], export_p: number[]): bigint[] {
  return net.map((x, i) => {
    const wh = whOf(x);
    const price = fromNumber(wh > 0n ? import_p[i] : export_p[i], 6);
    return rescale(wh * price, 11, GBP_SCALE);
  });
}

export const sumOf = (lines: bigint[]) => lines.reduce((a, b) => a + b, 0n);

/** £ at 4 decimals as text: trailing zeros beyond the pence dropped ("-1.80", "0.1234"). */
export function gbp(v: bigint): string {
  let s = formatScaled(v, GBP_SCALE);
  while (/\.\d{3,}$/.test(s) && s.endsWith('0')) s = s.slice(0, -1);
  return s === '-0.00' ? '0.00' : s;
}

const r3 = (x: number) => {
  const v = Math.round(x * 1000) / 1000;
  return Object.is(v, -0) ? 0 : v;
};

export interface PlanInput {
  start: number;
  n: number;
  import_p: number[];
  export_p: number[];
  base_kwh: number[];
  batteries: BatterySpec[];
  import_limit_kw?: number | null;
  evs?: Problem['evs'];
}

export async function plan(input: PlanInput) {
  const slots = Array.from({ length: input.n }, (_, i) => input.start + i * SLOT_MS);
  const problem: Problem = {
    days: slots.map((t) => ukDate(t)),
    import_p: input.import_p,
    export_p: input.export_p,
    base_kwh: input.base_kwh,
    batteries: input.batteries,
    evs: input.evs,
    import_limit_kw: input.import_limit_kw,
  };
  const sol = await solve(problem);
  const rule = simpleRule(problem);
  const netOpt = sol.import_kwh.map((x, i) => x - sol.export_kwh[i]);
  const evKwh = (i: number) => sol.ev_kw.reduce((s, e) => s + e[i] * DT_H, 0);
  const netRule = input.base_kwh.map((b, i) => b + rule.reduce((s, r) => s + r[i] * DT_H, 0) + evKwh(i));
  const netNone = input.base_kwh;
  const lines = {
    none: costLines(netNone, input.import_p, input.export_p),
    rule: costLines(netRule, input.import_p, input.export_p),
    opt: costLines(netOpt, input.import_p, input.export_p),
  };
  const cost = { none: sumOf(lines.none), rule: sumOf(lines.rule), opt: sumOf(lines.opt) };
  return { problem, sol, slots, netOpt, cost, lines };
}

export function halfHourView(slots: number[], input: PlanInput, sol: Solution, netOpt: number[], lines: { none: bigint[]; rule: bigint[]; opt: bigint[] }) {
  return slots.map((t, i) => {
    const sp = settlementPeriod(t);
    return {
      start: isoTime(t),
      end: isoTime(t + SLOT_MS),
      settlement_date: sp.date,
      settlement_period: sp.period,
      import_p_per_kwh: input.import_p[i],
      export_p_per_kwh: input.export_p[i],
      site_net_kwh: r3(input.base_kwh[i]),
      devices: [
        ...input.batteries.map((b, k) => ({
          device_id: b.device_id,
          kind: 'battery' as const,
          power_kw: r3(sol.charge_kw[k][i] - sol.discharge_kw[k][i]),
          soc_kwh: r3(sol.soc_kwh[k][i]),
        })),
        ...(input.evs ?? []).map((e, k) => ({ device_id: e.device_id, kind: 'ev_charger' as const, power_kw: r3(sol.ev_kw[k][i]), soc_kwh: null })),
      ],
      grid_import_kwh: Math.max(0, Number(whOf(netOpt[i]))) / 1000,
      grid_export_kwh: Math.max(0, -Number(whOf(netOpt[i]))) / 1000,
      cost_gbp: gbp(lines.opt[i]),
      cost_do_nothing_gbp: gbp(lines.none[i]),
      cost_simple_rule_gbp: gbp(lines.rule[i]),
    };
  });
}

export { r3 };
