// Benchmark of the tariff-schedule LP (HiGHS, WebAssembly): a 48-hour schedule for one battery and
// for a site with 10 batteries, solved repeatedly on random prices. Prints figures and the ratio to
// the targets (200 ms and 2 s); never pass/fail. `npm run bench:optimisation`.
import { plan } from '../src/modules/optimisation/schedule.ts';
import { loadSolver, type BatterySpec } from '../src/modules/optimisation/lp.ts';

const START = Date.parse('2026-11-23T00:00:00Z');
const N = 96;
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const battery = (k: number): BatterySpec => ({
  device_id: `b${k}`,
  capacity_kwh: 5 + rand() * 20,
  max_charge_kw: 2 + rand() * 5,
  max_discharge_kw: 2 + rand() * 5,
  round_trip_efficiency: 0.85 + rand() * 0.1,
  min_soc_kwh: 1,
  max_soc_kwh: 5,
  initial_soc_kwh: 3,
  max_discharge_kwh_per_day: rand() < 0.5 ? null : 10,
});

async function timed(devices: number, runs: number) {
  const ms: number[] = [];
  const solveMs: number[] = [];
  for (let r = 0; r < runs; r++) {
    const imp = Array.from({ length: N }, () => Math.round((rand() * 40 - 2) * 100) / 100);
    const exp = imp.map((p) => Math.min(p, 15));
    const base = Array.from({ length: N }, () => rand() * 3 - 1);
    const batteries = Array.from({ length: devices }, (_, k) => battery(k));
    const t0 = performance.now();
    const p = await plan({ start: START, n: N, import_p: imp, export_p: exp, base_kwh: base, batteries, import_limit_kw: devices > 1 ? 20 : null });
    ms.push(performance.now() - t0);
    solveMs.push(p.sol.solve_ms);
  }
  ms.sort((a, b) => a - b);
  const q = (f: number) => ms[Math.min(ms.length - 1, Math.floor(f * ms.length))];
  return { median: q(0.5), p95: q(0.95), max: ms[ms.length - 1], solveMedian: solveMs.sort((a, b) => a - b)[Math.floor(solveMs.length / 2)] };
}

const t0 = performance.now();
await loadSolver();
console.log(`solver load (WebAssembly instantiation, once a process): ${(performance.now() - t0).toFixed(1)} ms`);
for (const [devices, target, runs] of [
  [1, 200, 30],
  [10, 2000, 10],
] as const) {
  const r = await timed(devices, runs);
  console.log(
    `48 h (${N} half hours), ${devices} batter${devices === 1 ? 'y' : 'ies'}: median ${r.median.toFixed(1)} ms (HiGHS solve ${r.solveMedian.toFixed(1)} ms), p95 ${r.p95.toFixed(1)} ms, max ${r.max.toFixed(1)} ms over ${runs} runs; target ${target} ms, median/target ${(r.median / target).toFixed(3)}`,
  );
}
