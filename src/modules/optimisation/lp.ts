// The scheduling linear programme, written in CPLEX LP format and solved by HiGHS (the `highs`
// package: HiGHS compiled to WebAssembly). One model serves the tariff schedule (minimise energy
// cost) and the import limit (additionally keep import under a limit, with a penalised slack where
// that cannot be done). Decision 0191 records the formulation.
import highsModule from 'highs';
import type { Highs } from 'highs';

// The package is CommonJS: its module.exports is the loader (the typings describe it as `default`).
const highsLoader = ((highsModule as unknown as { default?: unknown }).default ?? highsModule) as unknown as () => Promise<Highs>;

export const DT_H = 0.5;

export interface BatterySpec {
  device_id: string;
  capacity_kwh: number;
  max_charge_kw: number;
  max_discharge_kw: number;
  /** Round-trip efficiency, split evenly: charge and discharge each √rte. */
  round_trip_efficiency: number;
  min_soc_kwh: number;
  max_soc_kwh: number;
  initial_soc_kwh: number;
  /** Discharge energy allowed per UK day (warranty throughput or cycles × capacity), kWh; null = none. */
  max_discharge_kwh_per_day: number | null;
}

export interface EvSpec {
  device_id: string;
  max_charge_kw: number;
  /** Energy to deliver by the end of slot `deadline_slot` (exclusive index), kWh. */
  energy_kwh: number;
  deadline_slot: number;
}

export interface Problem {
  /** UK day key of each slot (warranty limits are per UK day). */
  days: string[];
  import_p: number[];
  export_p: number[];
  /** Site net import before flexible assets, kWh a slot (load − generation); may be negative. */
  base_kwh: number[];
  batteries: BatterySpec[];
  evs?: EvSpec[];
  /** Import limit in kW; slack above it costs `penalty_p` pence a kWh. */
  import_limit_kw?: number | null;
}

export interface Solution {
  status: string;
  objective_p: number;
  charge_kw: number[][];
  discharge_kw: number[][];
  soc_kwh: number[][];
  ev_kw: number[][];
  import_kwh: number[];
  export_kwh: number[];
  excess_kwh: number[];
  solve_ms: number;
}

/** Penalty on import above the limit, p/kWh: far above any energy price, so it is used only where unavoidable. */
export const PENALTY_P = 100_000;
/** A tiny cost on throughput so that, among equal-cost plans, the one that cycles least is chosen. */
const WEAR_P = 1e-4;

let loading: Promise<Highs> | null = null;
let loaded: Highs | null = null;
const highs = () => (loading ??= highsLoader().then((h) => (loaded = h)));
/** Loads the solver (once); the decision-log replay needs it loaded to solve synchronously. */
export const loadSolver = () => highs();

const num = (x: number) => {
  if (!Number.isFinite(x)) throw new Error(`non-finite coefficient ${x}`);
  const s = Math.abs(x) < 1e-12 ? '0' : String(Math.round(x * 1e9) / 1e9);
  return s.includes('e') ? x.toFixed(12) : s;
};
const term = (coef: number, v: string) => (coef < 0 ? ` - ${num(-coef)} ${v}` : ` + ${num(coef)} ${v}`);

export function buildLp(p: Problem): string {
  const n = p.import_p.length;
  const obj: string[] = [];
  const st: string[] = [];
  const bounds: string[] = [];
  const evs = p.evs ?? [];
  for (let i = 0; i < n; i++) {
    obj.push(term(p.import_p[i], `imp_${i}`), term(-p.export_p[i], `exp_${i}`));
    let bal = ` imp_${i} - exp_${i}`;
    p.batteries.forEach((b, k) => {
      bal += term(-DT_H, `c_${k}_${i}`) + term(DT_H, `d_${k}_${i}`);
      obj.push(term(WEAR_P, `c_${k}_${i}`), term(WEAR_P, `d_${k}_${i}`));
      const eta = Math.sqrt(b.round_trip_efficiency);
      // s_i = s_{i-1} + η c dt − d dt / η
      const prev = i === 0 ? '' : ` - s_${k}_${i - 1}`;
      st.push(
        ` soc_${k}_${i}: s_${k}_${i}${prev}${term(-eta * DT_H, `c_${k}_${i}`)}${term(DT_H / eta, `d_${k}_${i}`)} = ${num(i === 0 ? b.initial_soc_kwh : 0)}`,
      );
      bounds.push(
        ` 0 <= c_${k}_${i} <= ${num(b.max_charge_kw)}`,
        ` 0 <= d_${k}_${i} <= ${num(b.max_discharge_kw)}`,
        ` ${num(b.min_soc_kwh)} <= s_${k}_${i} <= ${num(b.max_soc_kwh)}`,
      );
    });
    evs.forEach((e, k) => {
      bal += term(-DT_H, `e_${k}_${i}`);
      bounds.push(` 0 <= e_${k}_${i} <= ${num(i < e.deadline_slot ? e.max_charge_kw : 0)}`);
    });
    st.push(` bal_${i}:${bal} = ${num(p.base_kwh[i])}`);
    if (p.import_limit_kw !== undefined && p.import_limit_kw !== null) {
      obj.push(term(PENALTY_P, `x_${i}`));
      st.push(` lim_${i}: imp_${i} - x_${i} <= ${num(p.import_limit_kw * DT_H)}`);
    }
  }
  // Warranty: discharge energy per UK day.
  p.batteries.forEach((b, k) => {
    if (b.max_discharge_kwh_per_day === null) return;
    const byDay = new Map<string, number[]>();
    p.days.forEach((d, i) => byDay.set(d, [...(byDay.get(d) ?? []), i]));
    let j = 0;
    for (const idx of byDay.values()) st.push(` war_${k}_${j++}:${idx.map((i) => term(DT_H, `d_${k}_${i}`)).join('')} <= ${num(b.max_discharge_kwh_per_day)}`);
  });
  evs.forEach((e, k) => {
    const idx = [...Array(Math.min(e.deadline_slot, n)).keys()];
    if (idx.length) st.push(` ev_${k}:${idx.map((i) => term(DT_H, `e_${k}_${i}`)).join('')} = ${num(e.energy_kwh)}`);
  });
  return `Minimize\n obj:${obj.join('') || ' 0 imp_0'}\nSubject To\n${st.join('\n')}\nBounds\n${bounds.join('\n')}\nEnd\n`;
}

export class Infeasible extends Error {}

export async function solve(p: Problem): Promise<Solution> {
  try {
    return solveWith(await highs(), p);
  } catch (e) {
    if (e instanceof Infeasible) throw e;
    // A WebAssembly instance that failed once is not reused.
    loading = null;
    loaded = null;
    return solveWith(await highs(), p);
  }
}

/** Solves with the loaded solver, synchronously (null when it has not been loaded yet). */
export function solveLoaded(p: Problem): Solution | null {
  return loaded ? solveWith(loaded, p) : null;
}

function solveWith(h: Highs, p: Problem): Solution {
  const n = p.import_p.length;
  const lp = buildLp(p);
  const t0 = performance.now();
  const r = h.solve(lp, {});
  const solve_ms = performance.now() - t0;
  if (r.Status !== 'Optimal') throw new Infeasible(String(r.Status));
  const col = (name: string) => {
    const c = (r.Columns as Record<string, { Primal: number }>)[name];
    return c ? c.Primal : 0;
  };
  const per = <T>(list: T[], name: string) => list.map((_, k) => Array.from({ length: n }, (_, i) => col(`${name}_${k}_${i}`)));
  return {
    status: r.Status,
    objective_p: r.ObjectiveValue,
    charge_kw: per(p.batteries, 'c'),
    discharge_kw: per(p.batteries, 'd'),
    soc_kwh: per(p.batteries, 's'),
    ev_kw: per(p.evs ?? [], 'e'),
    import_kwh: Array.from({ length: n }, (_, i) => col(`imp_${i}`)),
    export_kwh: Array.from({ length: n }, (_, i) => col(`exp_${i}`)),
    excess_kwh: Array.from({ length: n }, (_, i) => col(`x_${i}`)),
    solve_ms,
  };
}

/** Energy cost in pence of a net import series (import at the import price, export at the export price). */
export function costOf(net: number[], import_p: number[], export_p: number[]): number {
  return net.reduce((s, x, i) => s + (x > 0 ? x * import_p[i] : x * export_p[i]), 0);
}
