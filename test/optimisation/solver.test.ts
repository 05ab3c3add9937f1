// The schedule LP against an exhaustive search, and limits never broken.
// 1. Optimality: on small problems the HiGHS plan's cost equals the best cost found by dynamic
//    programming over a discretised state-of-charge grid written here (round-trip efficiency 1 and
//    power steps on the grid, where the LP's optimum lies on the grid: the constraint matrix is an
//    interval matrix with integral data).
// 2. Property: over random prices, limits, warranty and starting state of charge, no plan breaks a
//    power, state-of-charge, warranty or import limit, and no plan costs more than doing nothing or
//    the simple rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plan, simpleRule } from '../../src/modules/optimisation/schedule.ts';
import { costOf, DT_H, type BatterySpec } from '../../src/modules/optimisation/lp.ts';

function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const START = Date.parse('2026-11-23T00:00:00Z');

/** Exhaustive DP: states are SoC in whole kWh, actions move it by whole kWh within the power limit. */
function dpBest(imp: number[], exp: number[], base: number[], cap: number, minSoc: number, soc0: number, stepMax: number) {
  const n = imp.length;
  let best = new Map<number, number>([[soc0, 0]]);
  for (let i = 0; i < n; i++) {
    const next = new Map<number, number>();
    for (const [s, c] of best) {
      for (let d = -stepMax; d <= stepMax; d++) {
        const s2 = s + d;
        if (s2 < minSoc || s2 > cap) continue;
        const net = base[i] + d;
        const cost = c + (net > 0 ? net * imp[i] : net * exp[i]);
        if (!(next.has(s2) && next.get(s2)! <= cost)) next.set(s2, cost);
      }
    }
    best = next;
  }
  return Math.min(...best.values());
}

test('the LP plan matches exhaustive search on small problems', async () => {
  const rand = rng(7);
  for (let k = 0; k < 12; k++) {
    const n = 4 + Math.floor(rand() * 5);
    const cap = 2 + Math.floor(rand() * 5);
    const stepMax = 1 + Math.floor(rand() * 2); // kWh a half hour: power 2 or 4 kW
    const soc0 = Math.floor(rand() * (cap + 1));
    const imp = Array.from({ length: n }, () => Math.round(rand() * 40 - 5));
    const exp = imp.map((p) => Math.min(p, Math.round(rand() * 15)));
    const base = Array.from({ length: n }, () => Math.round(rand() * 4 - 1));
    const b: BatterySpec = {
      device_id: 'b',
      capacity_kwh: cap,
      max_charge_kw: stepMax / DT_H,
      max_discharge_kw: stepMax / DT_H,
      round_trip_efficiency: 1,
      min_soc_kwh: 0,
      max_soc_kwh: cap,
      initial_soc_kwh: soc0,
      max_discharge_kwh_per_day: null,
    };
    const r = await plan({ start: START, n, import_p: imp, export_p: exp, base_kwh: base, batteries: [b] });
    const want = dpBest(imp, exp, base, cap, 0, soc0, stepMax);
    assert.ok(
      Math.abs(Number(r.cost.opt) / 100 - want) < 1e-3,
      `case ${k}: LP ${r.cost.opt} (£0.0001) vs DP ${want} p (prices ${imp}, base ${base}, cap ${cap}, soc0 ${soc0})`,
    );
  }
});

test('no plan breaks a limit, and none costs more than doing nothing or the simple rule', async () => {
  const rand = rng(1919);
  for (let k = 0; k < 30; k++) {
    const n = 4 + Math.floor(rand() * 93); // up to 96 half hours: two days, warranty per UK day
    const imp = Array.from({ length: n }, () => Math.round((rand() * 60 - 10) * 100) / 100);
    const exp = imp.map((p) => Math.min(p, Math.round(rand() * 2000) / 100));
    const base = Array.from({ length: n }, () => Math.round((rand() * 6 - 2) * 1000) / 1000);
    const batteries: BatterySpec[] = Array.from({ length: 1 + Math.floor(rand() * 2) }, (_, j) => {
      const cap = 2 + rand() * 18;
      const min = cap * rand() * 0.3;
      const max = cap * (0.7 + rand() * 0.3);
      return {
        device_id: `b${j}`,
        capacity_kwh: cap,
        max_charge_kw: 0.5 + rand() * 7,
        max_discharge_kw: 0.5 + rand() * 7,
        round_trip_efficiency: 0.7 + rand() * 0.3,
        min_soc_kwh: min,
        max_soc_kwh: max,
        initial_soc_kwh: min + rand() * (max - min),
        max_discharge_kwh_per_day: rand() < 0.5 ? null : rand() * cap,
      };
    });
    const limit = rand() < 0.5 ? null : 1 + rand() * 4;
    const r = await plan({ start: START, n, import_p: imp, export_p: exp, base_kwh: base, batteries, import_limit_kw: limit });
    const eps = 1e-6;
    batteries.forEach((b, j) => {
      const eta = Math.sqrt(b.round_trip_efficiency);
      let soc = b.initial_soc_kwh;
      const byDay = new Map<string, number>();
      for (let i = 0; i < n; i++) {
        const c = r.sol.charge_kw[j][i];
        const d = r.sol.discharge_kw[j][i];
        assert.ok(c >= -eps && c <= b.max_charge_kw + eps, `case ${k}: charge ${c} within ${b.max_charge_kw}`);
        assert.ok(d >= -eps && d <= b.max_discharge_kw + eps, `case ${k}: discharge ${d} within ${b.max_discharge_kw}`);
        soc += c * eta * DT_H - (d * DT_H) / eta;
        assert.ok(Math.abs(soc - r.sol.soc_kwh[j][i]) < 1e-5, `case ${k}: SoC follows the dynamics`);
        assert.ok(soc >= b.min_soc_kwh - 1e-5 && soc <= b.max_soc_kwh + 1e-5, `case ${k}: SoC ${soc} within bounds`);
        byDay.set(r.problem.days[i], (byDay.get(r.problem.days[i]) ?? 0) + d * DT_H);
      }
      if (b.max_discharge_kwh_per_day !== null)
        for (const v of byDay.values()) assert.ok(v <= b.max_discharge_kwh_per_day + 1e-5, `case ${k}: warranty ${v} ≤ ${b.max_discharge_kwh_per_day}`);
    });
    for (let i = 0; i < n; i++) {
      const net = base[i] + batteries.reduce((s, _, j) => s + (r.sol.charge_kw[j][i] - r.sol.discharge_kw[j][i]) * DT_H, 0);
      assert.ok(Math.abs(net - r.netOpt[i]) < 1e-5, 'the balance holds');
      if (limit !== null) assert.ok(r.netOpt[i] <= limit * DT_H + r.sol.excess_kwh[i] + 1e-5, `case ${k}: import within the limit or its recorded excess`);
    }
    if (limit === null) {
      // Costs are £ at 4 decimals from energies rounded to the Wh: allow that rounding on both sides
      // (half a Wh at each half hour's dearer price, and half of £0.0001 a line), in £0.0001 units.
      const slack = 100 * imp.reduce((s, p, i) => s + 2 * (0.0005 * Math.max(Math.abs(p), Math.abs(exp[i])) + 0.005), 0);
      assert.ok(Number(r.cost.opt) <= Number(r.cost.none) + slack, `case ${k}: no worse than doing nothing`);
      assert.ok(Number(r.cost.opt) <= Number(r.cost.rule) + slack, `case ${k}: no worse than the simple rule`);
      // Every total is the exact sum of its half-hour lines.
      for (const key of ['opt', 'none', 'rule'] as const)
        assert.equal(
          r.lines[key].reduce((a, b) => a + b, 0n),
          r.cost[key],
        );
    }
    // The simple rule keeps to the limits too.
    const rule = simpleRule(r.problem);
    batteries.forEach((b, j) => assert.ok(rule[j].every((kw) => kw <= b.max_charge_kw + eps && -kw <= b.max_discharge_kw + eps)));
  }
});

test('an import limit the battery can meet is met, every half hour', async () => {
  const base = [1, 1, 1, 4, 4, 1, 1, 1];
  const b: BatterySpec = {
    device_id: 'b',
    capacity_kwh: 10,
    max_charge_kw: 5,
    max_discharge_kw: 5,
    round_trip_efficiency: 0.9,
    min_soc_kwh: 1,
    max_soc_kwh: 10,
    initial_soc_kwh: 1,
    max_discharge_kwh_per_day: null,
  };
  const r = await plan({ start: START, n: 8, import_p: Array(8).fill(25), export_p: Array(8).fill(0), base_kwh: base, batteries: [b], import_limit_kw: 5 });
  assert.ok(
    r.netOpt.every((x) => x <= 2.5 + 1e-6),
    `plan ${r.netOpt}`,
  );
  assert.ok(r.sol.excess_kwh.every((x) => x < 1e-9));
  assert.equal(costOf(base, Array(8).fill(25), Array(8).fill(0)), 14 * 25);
});
