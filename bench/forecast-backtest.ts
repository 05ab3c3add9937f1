// Benchmark of forecast backtests (decision 0196): a site with a year of half-hourly meter and PV
// samples on the embedded store, folded into the energy ledger that forecasting reads (decision 0326); a 28-day backtest answered in the request, and a 366-day one run
// as a background job a week of days a step. Prints the time of each and of the steps; never
// pass/fail. `npm run bench:forecast-backtest` (TEST_DATABASE_URL etc. for the real servers).
import { loadavg } from 'node:os';
import { startTestService } from '../test/helpers/service.ts';
import { ManualClock } from '../src/platform/clock.ts';
import { asset, call, HH, ingest, iso, json, refresh, tokenFor } from '../test/energy/helpers.ts';

const NOW = Date.parse('2026-11-23T00:00:00Z');
const START = Date.parse('2025-11-15T00:00:00Z');
const clock = new ManualClock(new Date(NOW).toISOString());
// One sample a half hour: the ledger joins samples up to 30 minutes apart.
const svc = await startTestService({ clock, env: { ENERGY_POWER_GAP_SECONDS: '1800' } });
try {
  await svc.createOrg('org-bench');
  const admin = await tokenFor(svc, 'org-bench');
  await asset(svc, admin, { asset_id: 'b-meter', site_id: 'bench', asset_class: 'site_meter' });
  await asset(svc, admin, { asset_id: 'b-pv', site_id: 'bench', asset_class: 'inverter', parent_asset_id: 'b-meter' });
  const records = [];
  for (let t = START; t < NOW; t += HH) {
    const h = new Date(t).getUTCHours();
    const gen = h >= 8 && h < 16 ? 2 + Math.sin(t / 1e7) : 0;
    records.push({ device_id: 'b-meter', ts: iso(t + 600_000), power_kw: 0.8 + ((t / HH) % 7) / 10 - gen });
    records.push({ device_id: 'b-pv', ts: iso(t + 600_000), power_kw: -gen });
  }
  let t0 = performance.now();
  await ingest(svc, admin, records);
  console.log(
    `ingested ${records.length} samples (${((NOW - START) / 86_400_000).toFixed(0)} days, 2 assets) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  t0 = performance.now();
  await refresh(svc);
  clock.set(NOW);
  console.log(`energy refresh (the ledger forecasting reads): ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const base = '/api/optimiser/forecasting/sites/bench/backtest';
  t0 = performance.now();
  const short = await call(svc, admin, 'POST', base, { from: '2026-10-26', to: '2026-11-23' });
  console.log(`28-day backtest in the request: ${short.statusCode}, ${(performance.now() - t0).toFixed(0)} ms`);

  // The platform's recurring jobs are due at start: run them first so the steps below are the backtest's.
  t0 = performance.now();
  await svc.runDue();
  console.log(`recurring jobs due at start: ${(performance.now() - t0).toFixed(0)} ms`);
  clock.advance(1);
  t0 = performance.now();
  const res = await call(svc, admin, 'POST', base, { from: '2025-11-22', to: '2026-11-23' });
  const accepted = performance.now() - t0;
  const location = String(res.headers.location);
  const steps: number[] = [];
  const wall = performance.now();
  // Each step queues the next 1 ms later: run what is due, move the clock, until nothing runs.
  for (;;) {
    const s0 = performance.now();
    const ran = await svc.runDue();
    if (ran === 0) break;
    steps.push(performance.now() - s0);
    clock.advance(1);
  }
  const total = performance.now() - wall;
  steps.sort((a, b) => a - b);
  const r = json(await call(svc, admin, 'GET', location));
  console.log(
    `366-day backtest as a job: 202 in ${accepted.toFixed(0)} ms; ${steps.length} steps of 7 days, median ${steps[Math.floor(steps.length / 2)].toFixed(0)} ms, max ${steps.at(-1)!.toFixed(0)} ms; whole job ${(total / 1000).toFixed(1)} s; ${r.status}, ${r.result?.half_hours} half hours`,
  );
  console.log(
    `load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}; store ${process.env.TEST_DATABASE_URL ? 'postgres' : 'embedded'}`,
  );
} finally {
  await svc.stop();
}
