// EMS reporting through HTTP: the report with lineage down to the readings, interval exports on
// both clock-change days, out-of-hours consumption, PV underperformance, attribution, calibration.
//
// Site "rep" (all GMT, 1-3 November 2026, Sunday to Tuesday): a site meter whose import register
// advances 0.2 kWh a half hour and export 0.1; a PV inverter whose register advances 0.5 kWh a half
// hour. Consumption is the balance: 0.5 + 0.2 - 0.1 = 0.6 a half hour. Over 144 half hours:
//   import 28.800, export 14.400, generation 72.000, consumption 86.400, self-consumed 0.4 × 144 = 57.600
//   self-consumption 57.6 / 72 = 0.8; self-sufficiency 57.6 / 86.4 = 0.6667; peak demand 0.2 × 2 = 0.4 kW
//   import cost 28.8 × 24.50 p = 705.6 p → £7.06; export income 14.4 × 15 p = 216 p → £2.16
//   expected PV: 4 kWp × 950 × 2.9 % ÷ 30 = 3.67333 kWh → 3.673 a day, 11.019; ratio 72 / 11.019 = 6.5342
//   operating hours Mon-Fri 08:00-18:00: Sunday 48 × 0.6 = 28.8 out; Monday and Tuesday 20 half hours in
//   (12.0 kWh) and 28 out (16.8) each → out 62.400, in 24.000, share 62.4 / 86.4 = 0.7222;
//   out-of-hours import (48 + 28 + 28) × 0.2 = 20.800 × 24.50 p = 509.6 p → £5.10
//
// Site "clk": import register +0.1 kWh a half hour over both 2026 clock changes; on 29 March the
// readings stop at 10:00Z and resume at 13:00Z (3 hours > the 2-hour counter gap): six half hours
// without a rollup row. 29 March: 46 periods, 40 with 0.100 = 4.000; 25 October: 50 periods, 5.000.
//
// Site "pv" (June 2026, BST): an inverter only. Expected 4 × 950 × 13.9 % ÷ 30 = 17.60667 → 17.607 kWh
// a day (15.846 once calibrated at 0.9000). Days: 1-3 clear (0.9 × the clear-sky model), 4 cloudy
// (noisy), 5 outage (register flat), 6 no readings (data gap), 7 clear at 0.45 (soiling pattern),
// 8 morning at 0.1 and afternoon at 0.6 of clear sky (shading), 9 clear but capped at 0.5 kWh a half
// hour (clipping).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { clearSkyDay } from '../../src/modules/energy/reporting/solar.ts';
import { asset, call, counterSeries, HH, ingest, iso, json, refresh, tokenFor } from './helpers.ts';

let svc: TestService;
let admin: string;
let viewer: string;
let other: string;

const REP_SETTINGS = {
  agreed_capacity_kw: 1,
  pv_kwp: 4,
  pv_orientation: { azimuth_deg: 180, tilt_deg: 35 },
  expected_yield_kwh_per_kwp: 950,
  operating_hours: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '08:00', end: '18:00' }],
  tariff: { import_p_per_kwh: '24.50', export_p_per_kwh: '15' },
  battery_capacity_kwh: null,
  ppa_contracts: [],
};
const PV_SETTINGS = { ...REP_SETTINGS, operating_hours: [] };

/** Cumulative register readings, one a half hour, from per-half-hour advances in Wh. */
function register(device: string, key: string, from: number, advancesWh: number[], startWh = 1_000_000) {
  const out = [];
  let v = startWh;
  for (let i = 0; i <= advancesWh.length; i++) {
    out.push({ device_id: device, ts: iso(from + i * HH), [key]: v / 1000 });
    if (i < advancesWh.length) v += advancesWh[i];
  }
  return out;
}

const pvDay = (date: string, f: (wh: number, i: number, noon: number) => number) => {
  const cs = clearSkyDay(date, 4);
  const noon = cs.reduce((b, x, i) => (x.wh > cs[b].wh ? i : b), 0);
  return cs.map((x, i) => Math.round(f(x.wh, i, noon)));
};
const NOISE = [0.1, 0.5, 0.2, 0.4, 0.05];
/** 9 June: an inverter limited to 1 kW (0.5 kWh a half hour) on a clear day. */
const CLIP_WH = 500;
/** A clear day at k × the clear-sky model, the day's total exactly k × the model's (rounded to the Wh). */
const clearDay = (date: string, k: number) => {
  const a = pvDay(date, (wh) => k * wh);
  const target = Math.round(k * Math.round(clearSkyDay(date, 4).reduce((s, x) => s + x.wh, 0)));
  const big = a.indexOf(Math.max(...a));
  a[big] += target - a.reduce((s, x) => s + x, 0);
  return a;
};

before(async () => {
  // Exports read 16 rows at a time here, so every export below crosses batch boundaries.
  svc = await startTestService({ clock: new ManualClock('2026-12-05T12:00:00Z'), env: { ENERGY_EXPORT_BATCH_ROWS: '16' } });
  await svc.createOrg('org-rep');
  await svc.createOrg('org-y');
  admin = await tokenFor(svc, 'org-rep');
  viewer = await tokenFor(svc, 'org-rep', 'VIEWER');
  other = await tokenFor(svc, 'org-y');
  // rep
  await asset(svc, admin, { asset_id: 'r-meter', site_id: 'rep', asset_class: 'site_meter' });
  await asset(svc, admin, { asset_id: 'r-pv', site_id: 'rep', asset_class: 'inverter', parent_asset_id: 'r-meter' });
  const from = Date.parse('2026-11-01T00:00:00Z');
  const to = Date.parse('2026-11-04T00:00:00Z');
  const imp = counterSeries('r-meter', 'import_kwh', from, to, 0.2);
  const exp = counterSeries('r-meter', 'export_kwh', from, to, 0.1, 50);
  await ingest(
    svc,
    admin,
    imp.map((r, i) => ({ ...r, export_kwh: exp[i].export_kwh })),
  );
  await ingest(svc, admin, counterSeries('r-pv', 'generation_kwh', from, to, 0.5));
  // clk (and a site whose id a spreadsheet would run as a formula)
  await asset(svc, admin, { asset_id: 'c-meter', site_id: 'clk', asset_class: 'site_meter' });
  const spring = counterSeries('c-meter', 'import_kwh', Date.parse('2026-03-28T00:00:00Z'), Date.parse('2026-03-30T00:00:00Z'), 0.1).filter(
    (r) => r.ts <= '2026-03-29T10:00:00.000Z' || r.ts >= '2026-03-29T13:00:00.000Z',
  );
  const autumn = counterSeries('c-meter', 'import_kwh', Date.parse('2026-10-24T00:00:00Z'), Date.parse('2026-10-26T00:00:00Z'), 0.1, 500);
  await ingest(
    svc,
    admin,
    [...spring, ...autumn].map((r) => ({ ...r, export_kwh: 0 })),
  );
  await asset(svc, admin, { asset_id: 'f-meter', site_id: '=SUM(1,2)', asset_class: 'site_meter' });
  await ingest(
    svc,
    admin,
    counterSeries('f-meter', 'import_kwh', Date.parse('2026-10-24T23:00:00Z'), Date.parse('2026-10-26T00:00:00Z'), 0.1).map((r) => ({ ...r, export_kwh: 0 })),
  );
  // pv
  await asset(svc, admin, { asset_id: 'p-inv', site_id: 'pv', asset_class: 'inverter' });
  const adv = [
    ...clearDay('2026-06-01', 0.9),
    ...clearDay('2026-06-02', 0.9),
    ...clearDay('2026-06-03', 0.9),
    ...pvDay('2026-06-04', (wh, i) => 0.6 * NOISE[i % 5] * wh),
    ...pvDay('2026-06-05', () => 0),
  ];
  await ingest(svc, admin, register('p-inv', 'generation_kwh', Date.parse('2026-05-31T23:00:00Z'), adv));
  const later = [
    ...pvDay('2026-06-07', (wh) => 0.45 * wh),
    ...pvDay('2026-06-08', (wh, i, noon) => (i < noon ? 0.1 : 0.6) * wh),
    ...pvDay('2026-06-09', (wh) => Math.min(0.9 * wh, CLIP_WH)),
  ];
  await ingest(svc, admin, register('p-inv', 'generation_kwh', Date.parse('2026-06-06T23:00:00Z'), later, 2_000_000));
  await refresh(svc);
  for (const [site, s] of [
    ['rep', REP_SETTINGS],
    ['pv', PV_SETTINGS],
  ] as const) {
    const res = await call(svc, admin, 'PUT', `/api/hardware/ems/sites/${site}/settings`, s);
    assert.equal(res.statusCode, 200, res.body);
  }
});

after(() => svc?.stop());

const REP_WINDOW = 'site_id=rep&from=2026-11-01&to=2026-11-03';

test('report: every figure hand-worked, with basis, method and lineage; refused for another organisation and a bad date', async () => {
  const res = await call(svc, viewer, 'GET', `/api/hardware/ems/report?${REP_WINDOW}`);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['x-platform-data-basis'], 'calculated');
  assert.ok(res.headers['x-platform-method']);
  const r = json(res);
  assert.equal(r.from, '2026-11-01T00:00:00.000Z');
  assert.equal(r.to, '2026-11-04T00:00:00.000Z');
  assert.equal(r.half_hours, 144);
  const f = Object.fromEntries(r.figures.map((x: any) => [x.key, x]));
  const values = Object.fromEntries(r.figures.map((x: any) => [x.key, x.value]));
  assert.deepEqual(values, {
    import_kwh: '28.800',
    export_kwh: '14.400',
    generation_kwh: '72.000',
    consumption_kwh: '86.400',
    self_consumed_kwh: '57.600',
    self_consumption_ratio: 0.8,
    self_sufficiency_ratio: 0.6667,
    data_completeness: 1,
    peak_demand_kw: 0.4,
    capacity_utilisation: 0.4,
    import_cost_gbp: '7.06',
    export_income_gbp: '2.16',
    pv_expected_kwh: '11.019',
    pv_performance_ratio: 6.5342,
    out_of_hours_consumption_kwh: '62.400',
    out_of_hours_share: 0.7222,
  });
  // Import is counter-metered throughout; consumption is the balance (calculated).
  assert.equal(f.import_kwh.basis, 'measured');
  assert.equal(f.consumption_kwh.basis, 'calculated');
  assert.equal(f.import_cost_gbp.basis, 'calculated');
  assert.deepEqual(f.import_cost_gbp.inputs.settings, { 'tariff.import_p_per_kwh': '24.50' });
  assert.match(f.import_cost_gbp.method, /penny/);
  for (const x of r.figures) assert.equal(x.lineage_url, `/api/hardware/ems/lineage?site_id=rep&figure=${x.key}&from=2026-11-01&to=2026-11-03`);

  assertRefused(await call(svc, other, 'GET', `/api/hardware/ems/report?${REP_WINDOW}`), 404, 'Site not found');
  assertRefused(await call(svc, viewer, 'GET', '/api/hardware/ems/report?site_id=rep&from=2026-13-01'), 422, { fields: ['query.from'] });
  assertRefused(await call(svc, null, 'GET', `/api/hardware/ems/report?${REP_WINDOW}`), 401, 'Authorization header missing');
});

test('lineage: a figure to its days, a day to its half hours, a half hour to its readings', async () => {
  const days = json(await call(svc, viewer, 'GET', `/api/hardware/ems/lineage?${REP_WINDOW}&figure=import_cost_gbp`));
  assert.equal(days.level, 'day');
  assert.equal(days.figure.value, '7.06');
  assert.deepEqual(
    days.settings.map((s: any) => [s.name, s.value, s.source]),
    [['tariff.import_p_per_kwh', '24.50', 'ems_site_settings']],
  );
  assert.deepEqual(
    days.days.map((d: any) => [d.date, d.inputs.import_kwh, d.complete_half_hours]),
    [
      ['2026-11-01', '9.600', 48],
      ['2026-11-02', '9.600', 48],
      ['2026-11-03', '9.600', 48],
    ],
  );
  // The days sum to the figure's input.
  const ooh = json(await call(svc, viewer, 'GET', `/api/hardware/ems/lineage?${REP_WINDOW}&figure=out_of_hours_consumption_kwh`));
  assert.deepEqual(
    ooh.days.map((d: any) => d.inputs.out_of_hours_kwh),
    ['28.800', '16.800', '16.800'],
  );

  const day = json(await call(svc, viewer, 'GET', days.days[1].lineage_url));
  assert.equal(day.level, 'half_hour');
  assert.equal(day.half_hours.length, 48);
  assert.ok(day.half_hours.every((h: any) => h.inputs.import_kwh === '0.200' && h.present && !h.gap));
  const hours = json(await call(svc, viewer, 'GET', '/api/hardware/ems/lineage?site_id=rep&date=2026-11-02&figure=out_of_hours_share'));
  assert.deepEqual(
    hours.half_hours.filter((h: any) => h.inputs.in_hours).map((h: any) => h.settlement_period),
    Array.from({ length: 20 }, (_, i) => i + 17),
  );

  const hh = day.half_hours[16]; // 08:00Z on Monday 2 November
  assert.equal(hh.period_start, '2026-11-02T08:00:00.000Z');
  const rd = await call(svc, viewer, 'GET', hh.reading_url);
  assert.equal(rd.statusCode, 200, rd.body);
  assert.equal(rd.headers['x-platform-data-basis'], 'measured');
  const reading = json(rd);
  assert.equal(reading.settlement_period, 17);
  const meter = reading.assets.find((a: any) => a.asset_id === 'r-meter');
  assert.deepEqual(
    meter.flows.map((x: any) => [x.flow, x.kwh, x.basis, x.source]),
    [
      ['export', '0.100', 'measured', 'counter:export_kwh'],
      ['import', '0.200', 'measured', 'counter:import_kwh'],
    ],
  );
  // 08:00 and 08:30 bound the half hour; 07:30 is the neighbour before.
  assert.deepEqual(
    meter.readings.map((x: any) => [x.ts, x.position]),
    [
      ['2026-11-02T07:30:00.000Z', 'before'],
      ['2026-11-02T08:00:00.000Z', 'inside'],
      ['2026-11-02T08:30:00.000Z', 'after'],
    ],
  );
  const at8 = meter.readings[1].counters.import_kwh;
  assert.equal(Math.round((meter.readings[2].counters.import_kwh - at8) * 1000), 200);

  assertRefused(await call(svc, viewer, 'GET', `/api/hardware/ems/lineage?${REP_WINDOW}&figure=nonsense`), 422, { fields: ['query.figure'] });
  assertRefused(await call(svc, other, 'GET', `/api/hardware/ems/lineage?${REP_WINDOW}&figure=import_kwh`), 404, 'Site not found');
  assertRefused(await call(svc, viewer, 'GET', '/api/hardware/ems/lineage/reading?site_id=rep&period_start=2026-11-02T08:10:00Z'), 422, {
    fields: ['query.period_start'],
  });
  assertRefused(await call(svc, other, 'GET', `/api/hardware/ems/lineage/reading?site_id=rep&period_start=2026-11-02T08:00:00Z`), 404, 'Site not found');
});

const csvRows = (text: string) =>
  text
    .split('\r\n')
    .filter(Boolean)
    .map((l) => l.split(','));

test('interval CSV: 46 periods on the spring clock change, 50 on the autumn one, gaps as rows, formulas defused', async () => {
  const spring = await call(svc, viewer, 'GET', '/api/hardware/ems/exports/interval.csv?site_id=clk&date=2026-03-29');
  assert.equal(spring.statusCode, 200, spring.body);
  assert.match(String(spring.headers['content-type']), /^text\/csv/);
  assert.equal(spring.headers['x-platform-data-basis'], 'calculated');
  const [head, ...rows] = csvRows(spring.body);
  const col = (r: string[], c: string) => r[head.indexOf(c)];
  assert.equal(head[0], 'site_id');
  assert.equal(rows.length, 46);
  assert.deepEqual(
    rows.map((r) => Number(col(r, 'settlement_period'))),
    Array.from({ length: 46 }, (_, i) => i + 1),
  );
  assert.deepEqual([col(rows[1], 'period_start'), col(rows[1], 'period_start_local')], ['2026-03-29T00:30:00.000Z', '2026-03-29T00:30:00+00:00']);
  assert.deepEqual([col(rows[2], 'period_start'), col(rows[2], 'period_start_local')], ['2026-03-29T01:00:00.000Z', '2026-03-29T02:00:00+01:00']);
  assert.equal(col(rows[45], 'period_start'), '2026-03-29T22:30:00.000Z');
  const gaps = rows.filter((r) => col(r, 'gap') === 'true');
  assert.deepEqual(
    gaps.map((r) => col(r, 'period_start')),
    ['10:00', '10:30', '11:00', '11:30', '12:00', '12:30'].map((t) => `2026-03-29T${t}:00.000Z`),
  );
  assert.ok(gaps.every((r) => col(r, 'import_kwh') === '' && col(r, 'basis_import') === 'missing'));
  const wh = rows.reduce((s, r) => s + Math.round(Number(col(r, 'import_kwh') || 0) * 1000), 0);
  assert.equal(wh, 4000);

  const autumn = csvRows((await call(svc, viewer, 'GET', '/api/hardware/ems/exports/interval.csv?site_id=clk&date=2026-10-25')).body).slice(1);
  assert.equal(autumn.length, 50);
  assert.deepEqual(
    autumn.slice(2, 6).map((r) => [r[2], r[3], r[5]]),
    [
      ['3', '2026-10-25T00:00:00.000Z', '2026-10-25T01:00:00+01:00'],
      ['4', '2026-10-25T00:30:00.000Z', '2026-10-25T01:30:00+01:00'],
      ['5', '2026-10-25T01:00:00.000Z', '2026-10-25T01:00:00+00:00'],
      ['6', '2026-10-25T01:30:00.000Z', '2026-10-25T01:30:00+00:00'],
    ],
  );
  assert.deepEqual([autumn[49][2], autumn[49][3]], ['50', '2026-10-25T23:30:00.000Z']);
  assert.equal(
    autumn.reduce((s, r) => s + Math.round(Number(r[6]) * 1000), 0),
    5000,
  );

  // Every site, one row a half hour each; the formula-like site id is defused.
  const all = csvRows((await call(svc, viewer, 'GET', '/api/hardware/ems/exports/interval.csv?date=2026-10-25')).body).slice(1);
  const sites = [...new Set(all.map((r) => r[0]))];
  assert.deepEqual(sites, ['"\'=SUM(1', 'clk', 'pv', 'rep']);
  assert.equal(all.length, 4 * 50);

  assertRefused(await call(svc, other, 'GET', '/api/hardware/ems/exports/interval.csv?site_id=clk&date=2026-10-25'), 404, 'Site not found');
  assertRefused(await call(svc, viewer, 'GET', '/api/hardware/ems/exports/interval.csv?from=2025-01-01&to=2026-06-30'), 422, { fields: ['query.to'] });
});

test('interval JSON and energy summary: the same figures as the CSV and the report', async () => {
  const res = await call(svc, viewer, 'GET', '/api/hardware/ems/exports/interval?site_id=clk&date=2026-10-25');
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = json(res);
  assert.deepEqual([body.from, body.to, body.site_ids, body.half_hours_per_site], ['2026-10-24T23:00:00.000Z', '2026-10-26T00:00:00.000Z', ['clk'], 50]);
  assert.equal(body.rows.length, 50);
  assert.deepEqual(body.rows[4], {
    site_id: 'clk',
    settlement_date: '2026-10-25',
    settlement_period: 5,
    period_start: '2026-10-25T01:00:00.000Z',
    period_end: '2026-10-25T01:30:00.000Z',
    period_start_local: '2026-10-25T01:00:00+00:00',
    import_kwh: '0.100',
    export_kwh: '0.000',
    generation_kwh: '0.000',
    consumption_kwh: '0.100',
    charge_kwh: '0.000',
    discharge_kwh: '0.000',
    residual_kwh: '0.000',
    gap: false,
    coverage: 1,
    consumption_method: 'derived',
    basis_import: 'measured',
    basis_export: 'measured',
    basis_generation: 'absent',
    basis_consumption: 'calculated',
    basis_charge: 'absent',
    basis_discharge: 'absent',
  });
  const spring = json(await call(svc, viewer, 'GET', '/api/hardware/ems/exports/interval?site_id=clk&date=2026-03-29'));
  assert.equal(spring.rows.length, 46);
  assert.equal(spring.rows[10 * 2 + 1 - 2].gap, false); // 09:30Z (period 20 of a 46-period day: 10:30 BST)
  assert.equal(spring.rows.filter((r: any) => r.gap).length, 6);

  // Five days around rep's three (batches of 16 rows): every half hour once, in order, the data intact.
  const wide = json(await call(svc, viewer, 'GET', '/api/hardware/ems/exports/interval?site_id=rep&from=2026-10-31&to=2026-11-04'));
  assert.equal(wide.rows.length, 5 * 48);
  assert.ok(wide.rows.every((r: any, i: number) => r.period_start === iso(Date.parse('2026-10-31T00:00:00Z') + i * HH)));
  assert.deepEqual(
    [wide.rows.filter((r: any) => r.gap).length, wide.rows.reduce((s: number, r: any) => s + Math.round(Number(r.import_kwh ?? 0) * 1000), 0)],
    [96, 28_800],
  );

  const sum = await call(svc, viewer, 'GET', `/api/hardware/ems/exports/energy-summary?${REP_WINDOW}`);
  assert.equal(sum.statusCode, 200, sum.body);
  const s = json(sum);
  assert.equal(s.half_hours, 144);
  assert.deepEqual(s.sites, [
    {
      site_id: 'rep',
      import_kwh: '28.800',
      export_kwh: '14.400',
      generation_kwh: '72.000',
      consumption_kwh: '86.400',
      charge_kwh: '0.000',
      discharge_kwh: '0.000',
      residual_kwh: '0.000',
      self_consumed_kwh: '57.600',
      peak_demand_kw: 0.4,
      half_hours_with_data: 144,
      complete_half_hours: 144,
      measured_half_hours: 0,
      data_completeness: 1,
      basis: 'calculated',
    },
  ]);
  const every = json(await call(svc, viewer, 'GET', '/api/hardware/ems/exports/energy-summary?from=2026-11-01&to=2026-11-03'));
  assert.deepEqual(
    every.sites.map((x: any) => [x.site_id, x.import_kwh]),
    [
      ['=SUM(1,2)', '0.000'],
      ['clk', '0.000'],
      ['pv', '0.000'],
      ['rep', '28.800'],
    ],
  );

  assertRefused(await call(svc, other, 'GET', '/api/hardware/ems/exports/interval?site_id=clk'), 404, 'Site not found');
  assertRefused(await call(svc, viewer, 'GET', '/api/hardware/ems/exports/energy-summary?date=2026-02-30'), 422, { fields: ['query.date'] });
});

test('out of hours: hand-worked split and cost; refused without operating hours', async () => {
  const res = await call(svc, viewer, 'GET', `/api/hardware/ems/out-of-hours?${REP_WINDOW}`);
  assert.equal(res.statusCode, 200, res.body);
  const r = json(res);
  assert.deepEqual(
    [r.in_hours_kwh, r.out_of_hours_kwh, r.out_of_hours_share, r.out_of_hours_import_kwh, r.out_of_hours_import_cost_gbp],
    ['24.000', '62.400', 0.7222, '20.800', '5.10'],
  );
  assert.deepEqual(
    r.days.map((d: any) => [d.date, d.weekday, d.in_hours_kwh, d.out_of_hours_kwh, d.out_of_hours_import_cost_gbp]),
    [
      ['2026-11-01', 'sun', '0.000', '28.800', '2.35'], // 9.6 kWh × 24.50 p = 235.2 p
      ['2026-11-02', 'mon', '12.000', '16.800', '1.37'], // 5.6 × 24.50 = 137.2 p
      ['2026-11-03', 'tue', '12.000', '16.800', '1.37'],
    ],
  );
  assertRefused(
    await call(svc, viewer, 'GET', '/api/hardware/ems/out-of-hours?site_id=pv&date=2026-06-01'),
    409,
    'Operating hours missing: set operating_hours in the site settings',
  );
  assertRefused(await call(svc, other, 'GET', `/api/hardware/ems/out-of-hours?${REP_WINDOW}`), 404, 'Site not found');
});

const PV_WINDOW = 'site_id=pv&from=2026-06-01&to=2026-06-08';

test('underperformance before calibration: expected 17.607 kWh a day, the data gap and outage days lose all of it, priced', async () => {
  const res = await call(svc, viewer, 'GET', `/api/hardware/ems/underperformance?${PV_WINDOW}`);
  assert.equal(res.statusCode, 200, res.body);
  const r = json(res);
  assert.equal(r.calibration_factor, '1.0000');
  assert.ok(r.days.every((d: any) => d.expected_kwh === '17.607'));
  const d = Object.fromEntries(r.days.map((x: any) => [x.date, x]));
  assert.deepEqual([d['2026-06-05'].actual_kwh, d['2026-06-05'].shortfall_kwh], ['0.000', '17.607']);
  assert.deepEqual([d['2026-06-06'].actual_kwh, d['2026-06-06'].shortfall_kwh, d['2026-06-06'].complete], ['0.000', '17.607', false]);
  // No consumption is metered and nothing exported: all generation is self-consumed, valued at the
  // import rate: 17.607 × 24.50 p = 431.3715 p → £4.31.
  assert.equal(r.pricing.self_consumption_share, 1);
  assert.equal(d['2026-06-05'].value_gbp, '4.31');
  const lost = r.days.reduce((s: number, x: any) => s + Math.round(Number(x.shortfall_kwh) * 1000), 0);
  assert.equal(Math.round(Number(r.shortfall_kwh) * 1000), lost);
  assert.equal(r.days.find((x: any) => x.date === '2026-06-01').shortfall_kwh, '0.000');

  assertRefused(
    await call(svc, viewer, 'GET', '/api/hardware/ems/underperformance?site_id=clk&date=2026-06-01'),
    409,
    'PV settings missing: set pv_kwp and expected_yield_kwh_per_kwp first',
  );
  assertRefused(await call(svc, other, 'GET', `/api/hardware/ems/underperformance?${PV_WINDOW}`), 404, 'Site not found');
});

test('PV calibration: fitted to the three clear days (0.9000), history kept; then attribution by cause', async () => {
  const none = json(await call(svc, viewer, 'GET', '/api/hardware/ems/pv-calibration?site_id=pv'));
  assert.deepEqual([none.factor, none.calibrated, none.current, none.history], ['1.0000', false, null, []]);

  assertRefused(
    await call(svc, viewer, 'POST', '/api/hardware/ems/pv-calibration', { site_id: 'pv', from: '2026-06-01', to: '2026-06-08' }),
    403,
    'Insufficient permissions',
  );
  assertRefused(await call(svc, admin, 'POST', '/api/hardware/ems/pv-calibration', { site_id: 'pv', from: '2026-06-31' }), 422, { fields: ['body.from'] });
  // rep's generation is flat day and night: not clear-sky shaped.
  assertRefused(
    await call(svc, admin, 'POST', '/api/hardware/ems/pv-calibration', { site_id: 'rep', from: '2026-11-01', to: '2026-11-03' }),
    409,
    'No clear-sky measured days in the window to calibrate against',
  );
  assertRefused(await call(svc, other, 'POST', '/api/hardware/ems/pv-calibration', { site_id: 'pv' }), 404, 'Site not found');

  const res = await call(svc, admin, 'POST', '/api/hardware/ems/pv-calibration', { site_id: 'pv', from: '2026-06-01', to: '2026-06-08' });
  assert.equal(res.statusCode, 201, res.body);
  const c = json(res);
  assert.equal(c.factor, '0.9000');
  assert.equal(c.previous_factor, null);
  assert.deepEqual(
    c.days.map((x: any) => x.date),
    ['2026-06-01', '2026-06-02', '2026-06-03'],
  );
  assert.deepEqual(c.rejected, { incomplete: 1, no_generation: 1, not_clear_sky: 2, too_low: 1 });
  const again = json(await call(svc, admin, 'POST', '/api/hardware/ems/pv-calibration', { site_id: 'pv', from: '2026-06-02', to: '2026-06-03' }));
  assert.deepEqual([again.factor, again.previous_factor, again.days_used], ['0.9000', '0.9000', 2]);
  const got = json(await call(svc, viewer, 'GET', '/api/hardware/ems/pv-calibration?site_id=pv'));
  assert.deepEqual([got.factor, got.calibrated, got.current.calibration_id, got.history.length], ['0.9000', true, again.calibration_id, 2]);
  assert.equal(got.history[1].calibration_id, c.calibration_id);
  assertRefused(await call(svc, other, 'GET', '/api/hardware/ems/pv-calibration?site_id=pv'), 404, 'Site not found');

  // Calibrated: 17.60667 × 0.9 = 15.846 kWh a day.
  const up = json(await call(svc, viewer, 'GET', `/api/hardware/ems/underperformance?${PV_WINDOW}`));
  assert.equal(up.calibration_factor, '0.9000');
  assert.ok(up.days.every((d: any) => d.expected_kwh === '15.846'));

  const at = await call(svc, viewer, 'GET', `/api/hardware/ems/underperformance/attribution?${PV_WINDOW}`);
  assert.equal(at.statusCode, 200, at.body);
  const a = json(at);
  const day = Object.fromEntries(a.days.map((x: any) => [x.date, x]));
  assert.deepEqual([day['2026-06-05'].main_cause, day['2026-06-05'].causes.outage], ['outage', '15.846']);
  assert.deepEqual([day['2026-06-06'].main_cause, day['2026-06-06'].causes.data_gap], ['data_gap', '15.846']);
  assert.equal(day['2026-06-04'].main_cause, 'unexplained');
  assert.equal(day['2026-06-07'].main_cause, 'soiling');
  assert.equal(day['2026-06-08'].main_cause, 'shading');
  assert.equal(day['2026-06-01'].main_cause, null);
  // The soiling day's shortfall: 15.846 - what was sent.
  const sent7 = pvDay('2026-06-07', (wh) => 0.45 * wh).reduce((s, x) => s + x, 0);
  assert.equal(day['2026-06-07'].shortfall_kwh, ((15_846 - sent7) / 1000).toFixed(3));
  for (const x of a.days) {
    const parts = Object.values(x.causes).reduce((s: number, v: any) => s + Math.round(Number(v) * 1000), 0);
    assert.equal(parts, Math.round(Number(x.shortfall_kwh) * 1000), x.date);
  }
  const causes = Object.fromEntries(a.causes.map((x: any) => [x.cause, x]));
  assert.equal(causes.outage.kwh, '15.846');
  assert.equal(causes.outage.value_gbp, '3.88'); // 15.846 × 24.50 p = 388.227 p
  assert.equal(causes.data_gap.days, 1);

  // 9 June: the flat top at 0.500 kWh is clipping; what the calibrated clear sky would have given
  // above it in those half hours exceeds the shortfall, so the whole shortfall is clipping.
  const clip = json(await call(svc, viewer, 'GET', '/api/hardware/ems/underperformance/attribution?site_id=pv&date=2026-06-09'));
  const sent9 = pvDay('2026-06-09', (wh) => Math.min(0.9 * wh, CLIP_WH)).reduce((s, x) => s + x, 0);
  assert.equal(clip.days[0].shortfall_kwh, ((15_846 - sent9) / 1000).toFixed(3));
  assert.deepEqual([clip.days[0].main_cause, clip.days[0].causes.clipping], ['clipping', clip.days[0].shortfall_kwh]);

  assertRefused(await call(svc, viewer, 'GET', '/api/hardware/ems/underperformance/attribution?site_id=pv&from=2026-01-01&to=2026-06-30'), 422, {
    fields: ['query.to'],
  });
  assertRefused(
    await call(svc, viewer, 'GET', '/api/hardware/ems/underperformance/attribution?site_id=clk&date=2026-06-01'),
    409,
    'PV settings missing: set pv_kwp and expected_yield_kwh_per_kwp first',
  );
});
