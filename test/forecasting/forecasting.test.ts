// Forecasting through HTTP on a reproducible synthetic site: two weeks and a day of half-hourly power from a
// site meter and a PV inverter with a daily pattern, a weekend pattern and seeded noise. One sample a
// half hour (at :10 / :40). Forecasting reads the energy ledger (decision 0326), which integrates
// power by the trapezoidal rule between samples up to ENERGY_POWER_GAP_SECONDS apart (30 minutes
// here), cut at half-hour boundaries and zero crossings (docs/energy-accounting.md): the test works
// out each half hour's kWh itself from the samples it sent, the same way (independent of the service).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { asset, call, HH, ingest, iso, json, refresh, tokenFor } from '../energy/helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

const DAY = 86_400_000;
const START = Date.parse('2026-11-08T00:00:00Z'); // a Sunday; GMT all month
const NOW = Date.parse('2026-11-23T00:00:00Z'); // a Monday
const clock = new ManualClock(new Date(NOW).toISOString());
const BASE = '/api/optimiser/forecasting/sites';

// Seeded generator (mulberry32): the same site on every run.
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(19);
const loadKw = new Map<number, number>();
const genKw = new Map<number, number>();
// One half hour either side of the stored history, so that every half hour from START to NOW is
// covered whole by the segments between samples (the first and last segments reach outside it).
for (let t = START - HH; t <= NOW; t += HH) {
  const d = new Date(t);
  const h = d.getUTCHours() + d.getUTCMinutes() / 60;
  const weekend = d.getUTCDay() === 0 || d.getUTCDay() === 6;
  let l = 0.6 + ((h >= 7 && h < 9) || (h >= 17 && h < 21) ? 1.2 : 0) + (weekend && h >= 8 && h < 20 ? 0.8 : 0);
  l += (rand() - 0.5) * 0.2;
  const g = h >= 8 && h < 16 ? 3 * Math.sin((Math.PI * (h - 8)) / 8) * (0.95 + rand() * 0.1) : 0;
  loadKw.set(t, Math.round(l * 1e6) / 1e6);
  genKw.set(t, Math.round(g * 1e6) / 1e6);
}
const SAMPLE_AT = 10 * 60_000; // each half hour's sample, 10 minutes in
const GAP_S = 1800; // ENERGY_POWER_GAP_SECONDS for this service
const meterKw = (t: number) => Math.round((loadKw.get(t)! - genKw.get(t)!) * 1e6) / 1e6;

/**
 * Independent integration of one device's samples over [from, from + 30 min) as the energy docs
 * define it: the power linear between consecutive samples no more than the gap apart, each piece
 * cut at the half-hour boundaries and at a zero crossing; the positive and negative parts in kWh.
 */
function integrate(samples: [number, number][], from: number): { pos: number; neg: number } {
  const to = from + HH;
  let pos = 0;
  let neg = 0;
  for (let i = 1; i < samples.length; i++) {
    const [t0, p0] = samples[i - 1]!;
    const [t1, p1] = samples[i]!;
    if (t1 - t0 > GAP_S * 1000) continue;
    const a = Math.max(t0, from);
    const b = Math.min(t1, to);
    if (a >= b) continue;
    const at = (t: number) => p0 + ((p1 - p0) * (t - t0)) / (t1 - t0);
    const [pa, pb] = [at(a), at(b)];
    const d = (b - a) / 3_600_000;
    if (pa >= 0 && pb >= 0) pos += ((pa + pb) / 2) * d;
    else if (pa <= 0 && pb <= 0) neg -= ((pa + pb) / 2) * d;
    else {
      const up = pa > 0 ? pa : pb;
      const down = pa > 0 ? pb : pa;
      pos += ((up * up) / (up - down)) * (d / 2);
      neg += ((down * down) / (up - down)) * (d / 2);
    }
  }
  return { pos, neg };
}
/** kWh to the watt-hour, as the ledger keeps each asset's flow. */
const wh = (kwh: number) => Math.round(kwh * 1000);
const samplesOf = (kw: (t: number) => number, from: number, to: number): [number, number][] => {
  const out: [number, number][] = [];
  for (let t = from; t <= to; t += HH) out.push([t + SAMPLE_AT, kw(t)]);
  return out;
};
// The ledger of the synthetic site, worked by hand: generation = the inverter's negative part; the
// site meters no load, so consumption is derived: generation + import − export (each to the Wh).
const ledgerLoad = new Map<number, number>();
const ledgerGen = new Map<number, number>();
{
  const meter = samplesOf(meterKw, START - HH, NOW);
  const pv = samplesOf((t) => -genKw.get(t)!, START - HH, NOW);
  for (let t = START; t < NOW; t += HH) {
    const i = (t - (START - HH)) / HH; // the sample 10 minutes into t; its neighbours either side
    const m = integrate(meter.slice(i - 1, i + 2), t);
    const g = wh(integrate(pv.slice(i - 1, i + 2), t).neg);
    ledgerGen.set(t, g / 1000);
    ledgerLoad.set(t, (g + wh(m.pos) - wh(m.neg)) / 1000);
  }
}
const actualLoad = (t: number) => ledgerLoad.get(t)!;
const actualGen = (t: number) => ledgerGen.get(t)!;

/** Independent metrics: plain loops over the generator. */
function expectedMetrics(from: number, to: number, back: number, of: (t: number) => number) {
  const e: number[] = [];
  const a: number[] = [];
  for (let t = from; t < to; t += HH) {
    e.push(of(t - back) - of(t));
    a.push(of(t));
  }
  const n = e.length;
  return {
    n,
    mae: e.reduce((s, x) => s + Math.abs(x), 0) / n,
    rmse: Math.sqrt(e.reduce((s, x) => s + x * x, 0) / n),
    nmae: e.reduce((s, x) => s + Math.abs(x), 0) / a.reduce((s, x) => s + Math.abs(x), 0),
    bias: e.reduce((s, x) => s + x, 0) / n,
  };
}
const close = (got: number, want: number, msg: string) => assert.ok(Math.abs(got - want) < 2e-4, `${msg}: ${got} vs ${want}`);
/** Half-hour figures are given to the watt-hour. */
const closeWh = (got: number, want: number, msg: string) => assert.ok(Math.abs(got - want) <= 0.0005 + 1e-9, `${msg}: ${got} vs ${want}`);

let svc: TestService;
let admin: string;
let viewer: string;
let other: string;

before(async () => {
  svc = await startTestService({ clock, env: { FORECAST_MAX_QUEUED_BACKTESTS: '2', ENERGY_POWER_GAP_SECONDS: String(GAP_S) } });
  await svc.createOrg('org-fc');
  await svc.createOrg('org-fx');
  admin = await tokenFor(svc, 'org-fc');
  viewer = await tokenFor(svc, 'org-fc', 'VIEWER');
  other = await tokenFor(svc, 'org-fx');
  await asset(svc, admin, { asset_id: 'fc-meter', site_id: 'synth', asset_class: 'site_meter' });
  await asset(svc, admin, { asset_id: 'fc-pv', site_id: 'synth', asset_class: 'inverter', parent_asset_id: 'fc-meter' });
  await asset(svc, admin, { asset_id: 'fc-empty', site_id: 'quiet', asset_class: 'site_meter' });
  const records = [];
  for (let t = START - HH; t <= NOW; t += HH) {
    records.push({ device_id: 'fc-meter', ts: iso(t + SAMPLE_AT), power_kw: meterKw(t) });
    records.push({ device_id: 'fc-pv', ts: iso(t + SAMPLE_AT), power_kw: -genKw.get(t)! });
  }
  await ingest(svc, admin, records);
  // A second site across both 2026 clock changes: a site meter whose power in each UTC half hour is a
  // value of its own (kWh = slot number ÷ 1000), so the test can see which half hour was looked back to.
  await asset(svc, admin, { asset_id: 'dst-meter', site_id: 'dst', asset_class: 'site_meter' });
  const dst = [];
  for (const [a, b] of [
    ['2026-03-18', '2026-04-04'],
    ['2026-10-16', '2026-10-28'],
  ]) {
    for (let t = Date.parse(`${a}T00:00:00Z`); t < Date.parse(`${b}T00:00:00Z`); t += HH)
      dst.push({ device_id: 'dst-meter', ts: iso(t + SAMPLE_AT), power_kw: dstKw(t) });
  }
  await ingest(svc, admin, dst);
  // A site that meters a load under its grid meter: 3 kW at the meter, 1 kW of it the metered
  // appliance, for the day before NOW, a sample every 15 minutes.
  await asset(svc, admin, { asset_id: 'mix-meter', site_id: 'mix', asset_class: 'site_meter' });
  await asset(svc, admin, { asset_id: 'mix-load', site_id: 'mix', asset_class: 'appliance', parent_asset_id: 'mix-meter' });
  const mix = [];
  for (let t = NOW - DAY; t <= NOW; t += HH / 2)
    mix.push({ device_id: 'mix-meter', ts: iso(t), power_kw: 3 }, { device_id: 'mix-load', ts: iso(t), power_kw: 1 });
  await ingest(svc, admin, mix);
  // The energy refresh folds what was sent into the ledger, which forecasting reads.
  await refresh(svc);
  clock.set(NOW);
});
/** The dst site's power sent in the UTC half hour starting at t: a ramp, unique per half hour. */
const dstKw = (t: number) => (((t / HH) % 100_000) / 1000) * 2;
/**
 * The dst site's ledger kWh in the half hour starting at t: the ramp is linear through the samples,
 * so its trapezoid over the half hour is the power 15 minutes in × 0.5 h = (slot number + 1/6) Wh,
 * worked out here by the same integration as the synthetic site's (to the watt-hour).
 */
const dstKwh = (t: number) =>
  wh(
    integrate(
      [
        [t - HH + SAMPLE_AT, dstKw(t - HH)],
        [t + SAMPLE_AT, dstKw(t)],
        [t + HH + SAMPLE_AT, dstKw(t + HH)],
      ],
      t,
    ).pos,
  ) / 1000;
after(() => svc?.stop());

test('list of sites and the default configuration; PUT replaces it; refusals', async () => {
  const list = json(await call(svc, viewer, 'GET', BASE));
  assert.deepEqual(
    list.sites.map((s: any) => [s.site_id, s.method, s.configured, s.forecasts_load, s.forecasts_generation]),
    [
      ['dst', 'persistence', false, true, false],
      ['mix', 'persistence', false, true, false],
      ['quiet', 'persistence', false, true, false],
      ['synth', 'persistence', false, true, true],
    ],
  );
  assert.equal(json(await call(svc, other, 'GET', BASE)).sites.length, 0);

  const def = await call(svc, viewer, 'GET', `${BASE}/synth/config`);
  assert.equal(def.statusCode, 200);
  assert.equal(def.headers['x-platform-data-basis'], 'configured');
  assert.deepEqual(json(def), {
    site_id: 'synth',
    method: 'persistence',
    horizon_hours: 48,
    seasonal_weight: 0.5,
    is_default: true,
    updated_at: null,
    updated_by: null,
  });

  assertRefused(await call(svc, viewer, 'PUT', `${BASE}/synth/config`, { method: 'seasonal' }), 403, /./);
  assertRefused(await call(svc, admin, 'PUT', `${BASE}/synth/config`, { method: 'weekly' }), 422, { fields: ['body.method'] });
  assertRefused(await call(svc, admin, 'PUT', `${BASE}/synth/config`, { method: 'blend', horizon_hours: 49 }), 422, { fields: ['body.horizon_hours'] });
  assertRefused(await call(svc, other, 'PUT', `${BASE}/synth/config`, { method: 'seasonal' }), 404, 'Site not found');
  assertRefused(await call(svc, other, 'GET', `${BASE}/synth/config`), 404, 'Site not found');
  assertRefused(await call(svc, null, 'GET', `${BASE}/synth/config`), 401, /./);

  const put = json(await call(svc, admin, 'PUT', `${BASE}/quiet/config`, { method: 'blend', horizon_hours: 24, seasonal_weight: 0.75 }));
  assert.equal(put.is_default, false);
  const again = json(await call(svc, viewer, 'GET', `${BASE}/quiet/config`));
  assert.deepEqual([again.method, again.horizon_hours, again.seasonal_weight, again.is_default, again.updated_at], ['blend', 24, 0.75, false, iso(NOW)]);
  assert.equal(json(await call(svc, viewer, 'GET', BASE)).sites.find((s: any) => s.site_id === 'quiet').configured, true);
});

test('48-hour forecast: measured persistence by default, seasonal on request, in UK half hours', async () => {
  const res = await call(svc, viewer, 'GET', `${BASE}/synth/forecast`);
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['x-platform-data-basis'], 'forecast');
  assert.match(String(res.headers['x-platform-method']), /carried forward/);
  const f = json(res);
  assert.equal(f.method, 'persistence');
  assert.equal(f.origin, iso(NOW));
  assert.equal(f.half_hours.length, 96);
  assert.equal(f.last_stored_half_hour, iso(NOW - HH));
  for (const [i, h] of f.half_hours.entries()) {
    const t = NOW + i * HH;
    const src = t - (i < 48 ? 1 : 2) * DAY; // the last stored day carried forward
    assert.equal(h.start, iso(t));
    assert.equal(h.settlement_period, (i % 48) + 1);
    closeWh(h.load_kwh, actualLoad(src), `load ${i}`);
    closeWh(h.generation_kwh, actualGen(src), `gen ${i}`);
  }
  const s = json(await call(svc, viewer, 'GET', `${BASE}/synth/forecast?method=seasonal&hours=2`));
  assert.equal(s.half_hours.length, 4);
  for (const [i, h] of s.half_hours.entries()) closeWh(h.load_kwh, actualLoad(NOW + i * HH - 7 * DAY), `seasonal ${i}`);

  // A site with no history: nulls, not zeros; the blend and 24-hour horizon it is configured with.
  const q = json(await call(svc, viewer, 'GET', `${BASE}/quiet/forecast`));
  assert.equal(q.method, 'blend');
  assert.equal(q.half_hours.length, 48);
  assert.equal(q.last_stored_half_hour, null);
  assert.ok(q.half_hours.every((h: any) => h.load_kwh === null && h.generation_kwh === null));

  assertRefused(await call(svc, other, 'GET', `${BASE}/synth/forecast`), 404, 'Site not found');
  assertRefused(await call(svc, viewer, 'GET', `${BASE}/synth/forecast?hours=49`), 422, { fields: ['query.hours'] });
});

test('mid-morning with nothing reported since midnight: every half hour still comes from the last whole day (issue 36)', async () => {
  // The gateway has been silent since midnight; at 10:00 the origin's own day is unfinished, so
  // persistence takes Sunday (the last whole day) for every half hour of the 48 hours: the rest of
  // Monday, Tuesday and Wednesday's first ten hours; no half hour is null.
  clock.set(NOW + 10 * 3_600_000);
  try {
    const f = json(await call(svc, viewer, 'GET', `${BASE}/synth/forecast`));
    assert.equal(f.origin, iso(NOW + 10 * 3_600_000));
    assert.equal(f.half_hours.length, 96);
    assert.equal(f.half_hours.filter((h: any) => h.load_kwh === null).length, 0, 'no half hour is null');
    for (const [i, h] of f.half_hours.entries()) {
      const t = NOW + 10 * 3_600_000 + i * HH;
      const daysAhead = Math.floor((t - NOW) / DAY); // 0 Monday, 1 Tuesday, 2 Wednesday
      const src = t - (daysAhead + 1) * DAY; // the same wall-clock half hour on Sunday
      closeWh(h.load_kwh, actualLoad(src), `load ${i}`);
      closeWh(h.generation_kwh, actualGen(src), `gen ${i}`);
    }
  } finally {
    clock.set(NOW);
  }
});

test('forecast against actual is the day-ahead forecast beside the measured figure', async () => {
  const from = NOW - DAY;
  const res = await call(svc, viewer, 'GET', `${BASE}/synth/forecast-vs-actual?method=seasonal&from=${iso(from)}&to=${iso(NOW)}`);
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['x-platform-data-basis'], 'calculated');
  const b = json(res);
  assert.equal(b.half_hours.length, 48);
  for (const [i, h] of b.half_hours.entries()) {
    const t = from + i * HH;
    closeWh(h.load_actual_kwh, actualLoad(t), 'actual');
    closeWh(h.load_forecast_kwh, actualLoad(t - 7 * DAY), 'forecast');
    closeWh(h.generation_forecast_kwh, actualGen(t - 7 * DAY), 'gen forecast');
  }
  assertRefused(await call(svc, viewer, 'GET', `${BASE}/synth/forecast-vs-actual?from=${iso(NOW)}&to=${iso(from)}`), 422, { fields: ['query.to'] });
  assertRefused(await call(svc, viewer, 'GET', `${BASE}/synth/forecast-vs-actual?from=2026-01-01T00:00:00Z&to=${iso(NOW)}`), 422, { fields: ['query.to'] });
  assertRefused(await call(svc, other, 'GET', `${BASE}/synth/forecast-vs-actual`), 404, 'Site not found');
});

test("the actual is the ledger's figure; a half hour the ledger marks a gap has none (never zero, never the part it holds)", async () => {
  // 23:30 on 7 November: only the first sample's segment reaches into it (from 23:50), so the ledger
  // holds the 10 minutes it covers and marks the half hour a gap; from midnight it is whole.
  const before = json(await call(svc, viewer, 'GET', '/api/telemetry/sites/synth/ledger?date=2026-11-07')).half_hours.at(-1);
  assert.equal(before.period_start, iso(START - HH));
  assert.equal(before.gap, true);
  assert.ok(Number(before.consumption_kwh) > 0, 'the ledger holds the covered part');
  const first = json(await call(svc, viewer, 'GET', '/api/telemetry/sites/synth/ledger?date=2026-11-08')).half_hours[0];
  assert.equal(first.gap, false);
  assert.equal(first.consumption_method, 'derived');
  assert.deepEqual([first.consumption_kwh, first.generation_kwh], [actualLoad(START).toFixed(3), actualGen(START).toFixed(3)]);
  const fva = json(await call(svc, viewer, 'GET', `${BASE}/synth/forecast-vs-actual?from=${iso(START - HH)}&to=${iso(START + HH)}`));
  assert.deepEqual(
    fva.half_hours.map((h: any) => [h.start, h.load_actual_kwh, h.generation_actual_kwh]),
    [
      [iso(START - HH), null, null],
      [iso(START), Number(first.consumption_kwh), Number(first.generation_kwh)],
    ],
  );
});

test("where the site meters its loads, the load is the whole site's: the ledger's metered consumption plus its residual (decision 0326)", async () => {
  // The ledger: import 1.500 kWh a half hour, consumption 0.500 (the appliance), residual 1.000
  // (the unmetered rest). The site used 1.500 kWh a half hour: that is the load the optimiser plans
  // against (the grid balance of decision 0190), read from the ledger's figures.
  const day = json(await call(svc, viewer, 'GET', '/api/telemetry/sites/mix/ledger?date=2026-11-22'));
  assert.deepEqual(
    day.half_hours.map((h: any) => [h.import_kwh, h.consumption_kwh, h.residual_kwh, h.consumption_method, h.gap]),
    Array(48).fill(['1.500', '0.500', '1.000', 'metered', false]),
  );
  const f = json(await call(svc, viewer, 'GET', `${BASE}/mix/forecast?hours=24`));
  assert.deepEqual(
    f.half_hours.map((h: any) => [h.load_kwh, h.generation_kwh]),
    Array(48).fill([1.5, null]),
  );
});

test('metrics match an independent computation, and seasonal beats persistence on this site', async () => {
  const from = NOW - 7 * DAY;
  const got: Record<string, any> = {};
  for (const [method, back] of [
    ['persistence', DAY],
    ['seasonal', 7 * DAY],
  ] as const) {
    const res = await call(svc, viewer, 'GET', `${BASE}/synth/metrics?method=${method}&from=${iso(from)}&to=${iso(NOW)}`);
    assert.equal(res.statusCode, 200);
    const m = json(res);
    got[method] = m;
    for (const [k, of] of [
      ['load', actualLoad],
      ['generation', actualGen],
    ] as const) {
      const want = expectedMetrics(from, NOW, back, of);
      assert.equal(m[k].n, want.n);
      close(m[k].mae_kwh, want.mae, `${method} ${k} mae`);
      close(m[k].rmse_kwh, want.rmse, `${method} ${k} rmse`);
      close(m[k].nmae, want.nmae, `${method} ${k} nmae`);
      close(m[k].bias_kwh, want.bias, `${method} ${k} bias`);
    }
  }
  assert.ok(got.seasonal.load.mae_kwh < got.persistence.load.mae_kwh, 'seasonal beats persistence on load');
  assert.ok(got.seasonal.load.rmse_kwh < got.persistence.load.rmse_kwh);
  assertRefused(await call(svc, other, 'GET', `${BASE}/synth/metrics`), 404, 'Site not found');
  assertRefused(await call(svc, viewer, 'GET', `${BASE}/synth/metrics?from=yesterday`), 422, { fields: ['query.from'] });
});

test('backtest compares the methods with rolling origins; clock-change days have 46/50 half hours', async () => {
  const res = await call(svc, viewer, 'POST', `${BASE}/synth/backtest`, { from: '2026-11-15', to: '2026-11-23' });
  assert.equal(res.statusCode, 200);
  const b = json(res);
  assert.equal(b.origins, 8);
  assert.equal(b.half_hours, 8 * 48);
  assert.deepEqual(
    b.results.map((r: any) => r.method),
    ['persistence', 'seasonal', 'blend'],
  );
  const want = expectedMetrics(Date.parse('2026-11-15T00:00:00Z'), NOW, 7 * DAY, actualLoad);
  close(b.results[1].load.mae_kwh, want.mae, 'backtest seasonal mae');
  assert.equal(b.best_for_load, b.results.slice().sort((x: any, y: any) => x.load.mae_kwh - y.load.mae_kwh)[0].method);
  assert.notEqual(b.best_for_load, 'persistence');

  const autumn = json(await call(svc, viewer, 'POST', `${BASE}/synth/backtest`, { from: '2026-10-25', to: '2026-10-26', methods: ['persistence'] }));
  assert.equal(autumn.half_hours, 50);
  assert.equal(autumn.results[0].load.n, 0);
  assert.equal(autumn.results[0].load.mae_kwh, null);
  const spring = json(await call(svc, viewer, 'POST', `${BASE}/synth/backtest`, { from: '2026-03-29', to: '2026-03-30', methods: ['seasonal'] }));
  assert.equal(spring.half_hours, 46);

  assertRefused(await call(svc, viewer, 'POST', `${BASE}/synth/backtest`, { from: '2026-01-01', to: '2027-01-03' }), 422, { fields: ['body.to'] });
  assertRefused(await call(svc, viewer, 'POST', `${BASE}/synth/backtest`, { from: '2026-11-20', to: '2026-11-10' }), 422, { fields: ['body.to'] });
  // Days the calendar lacks, and years outside the service calendar: the field, not a rolled-over day or a 500.
  assertRefused(await call(svc, viewer, 'POST', `${BASE}/synth/backtest`, { from: '2026-02-30', to: '2026-03-05' }), 422, { fields: ['body.from'] });
  assertRefused(await call(svc, viewer, 'POST', `${BASE}/synth/backtest`, { from: '0000-01-01', to: '0000-01-03' }), 422, { fields: ['body.from'] });
  assertRefused(await call(svc, viewer, 'POST', `${BASE}/synth/backtest`, { from: '2026-11-01', to: '2026-11-08', methods: ['magic'] }), 422, {
    fields: ['body.methods.0'],
  });
  assertRefused(await call(svc, other, 'POST', `${BASE}/synth/backtest`, { from: '2026-11-15', to: '2026-11-16' }), 404, 'Site not found');
});

test('look-back is in UK local time: same wall-clock half hour a day / a week earlier across the clock changes', async () => {
  const P = Date.parse;
  const fva = async (method: string, from: string, to: string) => {
    const res = await call(svc, viewer, 'GET', `${BASE}/dst/forecast-vs-actual?method=${method}&from=${from}&to=${to}`);
    assert.equal(res.statusCode, 200, res.body);
    return new Map(json(res).half_hours.map((h: any) => [h.start, h.load_forecast_kwh]));
  };
  // Hand-worked: each forecast half hour (UTC start, UK wall clock) → the stored half hour it takes.
  const cases: [string, string, string, string][] = [
    // 29 March 2026, 46 periods: clocks go forward at 01:00 GMT; 01:00-01:59 local does not exist.
    ['persistence', '2026-03-29T00:00:00Z', '2026-03-28T00:00:00Z', '00:00 GMT on the 29th ← 00:00 GMT on the 28th'],
    ['persistence', '2026-03-29T01:00:00Z', '2026-03-28T02:00:00Z', '02:00 BST on the 29th ← 02:00 GMT on the 28th (not 01:00 UTC)'],
    ['persistence', '2026-03-29T22:30:00Z', '2026-03-28T23:30:00Z', '23:30 BST on the 29th ← 23:30 GMT on the 28th'],
    // 30 March looks back to the 46-period day: 01:00-01:59 is missing there, so from the 28th.
    ['persistence', '2026-03-29T23:00:00Z', '2026-03-29T00:00:00Z', '00:00 BST on the 30th ← 00:00 GMT on the 29th'],
    ['persistence', '2026-03-30T00:00:00Z', '2026-03-28T01:00:00Z', '01:00 BST on the 30th ← 01:00 GMT on the 28th (the 29th has no 01:00)'],
    ['persistence', '2026-03-30T00:30:00Z', '2026-03-28T01:30:00Z', '01:30 BST on the 30th ← 01:30 GMT on the 28th'],
    ['persistence', '2026-03-30T01:00:00Z', '2026-03-29T01:00:00Z', '02:00 BST on the 30th ← 02:00 BST on the 29th'],
    // Seasonal a week across the change: 10:00 BST on 2 April ← 10:00 GMT on 26 March.
    ['seasonal', '2026-04-02T09:00:00Z', '2026-03-26T10:00:00Z', '10:00 BST ← 10:00 GMT a week earlier'],
    // 25 October 2026, 50 periods: clocks go back at 01:00 UTC; 01:00-01:59 local happens twice.
    ['persistence', '2026-10-24T23:00:00Z', '2026-10-23T23:00:00Z', '00:00 BST on the 25th ← 00:00 BST on the 24th'],
    ['persistence', '2026-10-25T00:00:00Z', '2026-10-24T00:00:00Z', 'first 01:00 (BST) on the 25th ← 01:00 BST on the 24th'],
    ['persistence', '2026-10-25T01:00:00Z', '2026-10-24T00:00:00Z', 'second 01:00 (GMT) on the 25th ← the same 01:00 BST on the 24th'],
    ['persistence', '2026-10-25T01:30:00Z', '2026-10-24T00:30:00Z', 'second 01:30 ← 01:30 BST on the 24th'],
    ['persistence', '2026-10-25T02:00:00Z', '2026-10-24T01:00:00Z', '02:00 GMT on the 25th ← 02:00 BST on the 24th'],
    // 26 October looks back to the 50-period day: its repeated hour is read at its first (BST) occurrence.
    ['persistence', '2026-10-26T00:00:00Z', '2026-10-24T23:00:00Z', '00:00 GMT on the 26th ← 00:00 BST on the 25th'],
    ['persistence', '2026-10-26T01:00:00Z', '2026-10-25T00:00:00Z', '01:00 on the 26th ← the first 01:00 on the 25th'],
    ['persistence', '2026-10-26T02:00:00Z', '2026-10-25T02:00:00Z', '02:00 on the 26th ← 02:00 GMT on the 25th'],
    ['seasonal', '2026-10-27T09:00:00Z', '2026-10-20T08:00:00Z', '09:00 GMT ← 09:00 BST a week earlier'],
  ];
  const windows = new Map<string, Map<unknown, unknown>>();
  for (const [method, from, to] of [
    ['persistence', '2026-03-29T00:00:00Z', '2026-03-30T02:00:00Z'],
    ['seasonal', '2026-04-02T00:00:00Z', '2026-04-02T12:00:00Z'],
    ['persistence', '2026-10-24T23:00:00Z', '2026-10-26T03:00:00Z'],
    ['seasonal', '2026-10-27T00:00:00Z', '2026-10-27T12:00:00Z'],
  ])
    windows.set(`${method}${from}`, await fva(method, from, to));
  for (const [method, slot, src, why] of cases) {
    const w = [...windows.entries()].find(([k, m]) => k.startsWith(method) && m.has(iso(P(slot))));
    assert.ok(w, `no window holds ${slot}`);
    assert.equal(w[1].get(iso(P(slot))), dstKwh(P(src)), why);
  }
  // The 46- and 50-period days are forecast whole: every half hour has a value.
  assert.equal([...windows.get('persistence2026-10-24T23:00:00Z')!.values()].filter((v) => v === null).length, 0);
  assert.equal([...windows.get('persistence2026-03-29T00:00:00Z')!.values()].filter((v) => v === null).length, 0);
});

test('a backtest longer than 28 days runs as a job: 202 with Location, progress a week at a time, then the result', async () => {
  // 2026-10-27 to 2026-11-30: 34 UK days (one over the autumn change is not in it; GMT throughout).
  const res = await call(svc, viewer, 'POST', `${BASE}/synth/backtest`, { from: '2026-10-27', to: '2026-11-30' });
  assert.equal(res.statusCode, 202, res.body);
  const job = json(res);
  assert.equal(res.headers.location, `${BASE}/synth/backtest/${job.backtest_id}`);
  assert.equal(job.status, 'queued');
  assert.deepEqual(job.progress, { done: 0, total: 34, unit: 'days', percent: 0 });
  assert.deepEqual(job.methods, ['persistence', 'seasonal', 'blend']);
  assert.equal(job.result, null);
  const read = async () => {
    const r = await call(svc, viewer, 'GET', String(res.headers.location));
    assert.equal(r.statusCode, 200, r.body);
    return json(r);
  };
  // The first step is due at once: one week of days.
  await svc.runDue();
  const one = await read();
  assert.equal(one.status, 'running');
  assert.deepEqual(one.progress, { done: 7, total: 34, unit: 'days', percent: 20 });
  assert.equal(one.result, null);
  assert.equal(one.started_at, iso(NOW).replace('.000Z', 'Z'));
  // Each next step is queued 1 ms after the last: move the service clock, never sleep.
  const seen = [7];
  for (let i = 0; i < 10 && seen.at(-1)! < 34; i++) {
    clock.advance(1);
    await svc.runDue();
    seen.push((await read()).progress.done);
  }
  assert.deepEqual(seen, [7, 14, 21, 28, 34]);
  const done = await read();
  assert.equal(done.status, 'completed');
  assert.equal(done.progress.percent, 100);
  assert.ok(done.completed_at);
  const r = done.result;
  assert.equal(r.origins, 34);
  assert.equal(r.half_hours, 34 * 48);
  // Stored history runs 8 to 23 November, so the figures are those of the same backtest over those
  // days answered in the request, and seasonal load matches the independent computation.
  const short = json(await call(svc, viewer, 'POST', `${BASE}/synth/backtest`, { from: '2026-11-08', to: '2026-11-23' }));
  assert.deepEqual(r.results, short.results);
  assert.equal(r.best_for_load, short.best_for_load);
  const want = expectedMetrics(Date.parse('2026-11-15T00:00:00Z'), NOW, 7 * DAY, actualLoad);
  assert.equal(r.results[1].load.n, want.n);
  close(r.results[1].load.mae_kwh, want.mae, 'job seasonal mae');

  // Refusals: another organisation, an unknown job, a site that does not hold the job, too long.
  assertRefused(await call(svc, other, 'GET', String(res.headers.location)), 404, 'Site not found');
  assertRefused(await call(svc, viewer, 'GET', `${BASE}/synth/backtest/00000000-0000-4000-8000-000000000000`), 404, 'Backtest not found');
  assertRefused(await call(svc, viewer, 'GET', `${BASE}/quiet/backtest/${job.backtest_id}`), 404, 'Backtest not found');
  assertRefused(await call(svc, viewer, 'GET', `${BASE}/synth/backtest/not-a-uuid`), 422, { fields: ['path.backtest_id'] });
  assertRefused(await call(svc, other, 'POST', `${BASE}/synth/backtest`, { from: '2026-01-01', to: '2026-12-01' }), 404, 'Site not found');
  assertRefused(await call(svc, viewer, 'POST', `${BASE}/synth/backtest`, { from: '2026-01-01', to: '2027-01-03' }), 422, { fields: ['body.to'] });
});

test('queued backtests are capped per organisation: the one past FORECAST_MAX_QUEUED_BACKTESTS is refused 429 and queues nothing; another organisation still queues', async () => {
  // Nothing of the earlier tests is still queued (the job above ran to completion).
  const long = { from: '2025-12-01', to: '2026-11-30' }; // 364 UK days: a job of 52 steps
  for (let i = 0; i < 2; i++) assert.equal((await call(svc, viewer, 'POST', `${BASE}/synth/backtest`, long)).statusCode, 202);
  const refused = await call(svc, viewer, 'POST', `${BASE}/synth/backtest`, long);
  assertRefused(refused, 429, '2 backtests are already queued or running for this organisation; at most 2 may be. Wait for one to finish.');
  assert.equal(refused.headers['retry-after'], '60');
  // A backtest answered in the request queues nothing and is not refused.
  assert.equal((await call(svc, viewer, 'POST', `${BASE}/synth/backtest`, { from: '2026-11-15', to: '2026-11-16' })).statusCode, 200);
  // Another organisation's queue is its own.
  await asset(svc, other, { asset_id: 'fx-meter', site_id: 'fx-site', asset_class: 'site_meter' });
  assert.equal((await call(svc, other, 'POST', `${BASE}/fx-site/backtest`, long)).statusCode, 202);
});
