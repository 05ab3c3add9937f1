// Site energy, EMS settings and the monthly PPA statement through HTTP, on a month worked by hand
// (November 2026, all GMT: 30 days of 48 settlement periods).
//
// Site "home": a site meter whose import register advances 0.2 kWh a half hour (2.0 in the half hour
// from 17:00Z on 20 November) and export register 0.1; a PV inverter whose generation register
// advances 0.5 kWh a half hour from 1 November 00:00Z until it goes silent at 30 November 12:00Z.
// Consumption is the balance (no metered loads).
//   generation 29 × 24 + 12 = 708.000 kWh; export 1440 × 0.1 = 144.000; import 1440 × 0.2 + 1.8 = 289.800
//   self-consumed = max(gen - export, 0) a half hour = 1416 × 0.4 = 566.400 (0 while the PV is silent)
//   consumption = gen + import - export = 1416 × 0.6 + 24 × 0.1 + 1.8 = 853.800
//   self-consumption 566.4 / 708 = 0.8; self-sufficiency 566.4 / 853.8 = 0.66339… → 0.6634
// PPA "pv-1": generation at 11.2345 p/kWh: a whole day 24 kWh × 11.2345 = 269.628 p → £2.70 a line;
//   30 November 12 kWh → 134.814 p → £1.35 (calculated: half the day missing); total 29 × 2.70 + 1.35 = £79.65.
// PPA "exp-1": export from 16 November at 5.5 p/kWh: 4.8 kWh × 5.5 = 26.4 p → £0.26 a line; 15 lines £3.90.
import { test, before, after } from 'node:test';
import { wholeMonths } from '../../src/modules/energy/store.ts';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { asset, call, counterSeries, HH, ingest, iso, json, powerSeries, refresh, tokenFor } from './helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let admin: string;
let viewer: string;
let other: string;
const SETTINGS = {
  agreed_capacity_kw: 1,
  pv_kwp: 4,
  pv_orientation: { azimuth_deg: 180, tilt_deg: 35 },
  expected_yield_kwh_per_kwp: 950,
  operating_hours: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '08:00', end: '18:00' }],
  tariff: { import_p_per_kwh: '24.50', export_p_per_kwh: '15' },
  battery_capacity_kwh: null,
  ppa_contracts: [
    { contract_id: 'pv-1', counterparty: 'Offtaker Ltd', flow: 'generation', price_p_per_kwh: '11.2345', start_date: '2026-01-01', end_date: null },
    { contract_id: 'exp-1', counterparty: 'Grid Buyer plc', flow: 'export', price_p_per_kwh: '5.5', start_date: '2026-11-16', end_date: '2026-12-31' },
  ],
};

before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-12-05T12:00:00Z') });
  await svc.createOrg('org-site');
  await svc.createOrg('org-x');
  admin = await tokenFor(svc, 'org-site');
  viewer = await tokenFor(svc, 'org-site', 'VIEWER');
  other = await tokenFor(svc, 'org-x');
  await asset(svc, admin, { asset_id: 'h-meter', site_id: 'home', asset_class: 'site_meter' });
  await asset(svc, admin, { asset_id: 'h-pv', site_id: 'home', asset_class: 'inverter', parent_asset_id: 'h-meter' });
  const peak = Date.parse('2026-11-20T17:00:00Z');
  const meter = [];
  let imp = 1000;
  let exp = 50;
  for (let t = Date.parse('2026-10-31T23:00:00Z'); t <= Date.parse('2026-12-01T00:00:00Z'); t += HH) {
    meter.push({ device_id: 'h-meter', ts: iso(t), import_kwh: Math.round(imp * 1000) / 1000, export_kwh: Math.round(exp * 1000) / 1000 });
    imp += t === peak ? 2 : 0.2;
    exp += 0.1;
  }
  await ingest(svc, admin, meter);
  await ingest(svc, admin, counterSeries('h-pv', 'generation_kwh', Date.parse('2026-11-01T00:00:00Z'), Date.parse('2026-11-30T12:00:00Z'), 0.5));
  // Site "spare": a meter only (no generation: unranked on self-consumption).
  await asset(svc, admin, { asset_id: 's-meter', site_id: 'spare', asset_class: 'site_meter' });
  await ingest(
    svc,
    admin,
    counterSeries('s-meter', 'import_kwh', Date.parse('2026-11-01T00:00:00Z'), Date.parse('2026-11-02T00:00:00Z'), 1).map((r) => ({ ...r, export_kwh: 0 })),
  );
  // Site "bat": a 10 kWh battery charging at 2 kW 02:00-03:00Z and discharging 1.6 kW 18:00-19:00Z on 10 November.
  await asset(svc, admin, { asset_id: 'b-1', site_id: 'bat', asset_class: 'battery', details: { capacity_kwh: 10 } });
  await ingest(
    svc,
    admin,
    [
      ...powerSeries('b-1', Date.parse('2026-11-10T01:00:00Z'), Date.parse('2026-11-10T02:00:00Z'), 10, () => 0),
      ...powerSeries('b-1', Date.parse('2026-11-10T02:00:00Z'), Date.parse('2026-11-10T03:00:00Z'), 10, () => 2).map((r) => ({
        ...r,
        ts: r.ts === '2026-11-10T02:00:00.000Z' ? '2026-11-10T02:00:00.001Z' : r.ts,
      })),
    ].filter((r, i, a) => a.findIndex((x) => x.ts === r.ts) === i),
  );
  await ingest(
    svc,
    admin,
    powerSeries('b-1', Date.parse('2026-11-10T18:00:00Z'), Date.parse('2026-11-10T19:00:00Z'), 10, () => -1.6).map((r, i, a) =>
      i === a.length - 1 ? { ...r, soc_pct: 61 } : r,
    ),
  );
  await refresh(svc);
});

after(() => svc?.stop());

test('EMS settings: PUT replaces, GET reads back; refused for a viewer, another organisation, a bad contract', async () => {
  const empty = json(await call(svc, viewer, 'GET', '/api/hardware/ems/sites/home/settings'));
  assert.equal(empty.configured, false);
  assert.equal(empty.settings.agreed_capacity_kw, null);
  assert.deepEqual(empty.settings.ppa_contracts, []);
  const put = await call(svc, admin, 'PUT', '/api/hardware/ems/sites/home/settings', SETTINGS);
  assert.equal(put.statusCode, 200, put.body);
  const got = json(await call(svc, viewer, 'GET', '/api/hardware/ems/sites/home/settings'));
  assert.equal(got.configured, true);
  assert.deepEqual(got.settings, SETTINGS);
  assert.equal(got.updated_at, '2026-12-05T12:00:31.000Z'); // the clock moved 31 s for the refresh
  const sites = json(await call(svc, viewer, 'GET', '/api/hardware/ems/sites'));
  assert.deepEqual(
    sites.sites.map((s: any) => [s.site_id, s.configured, s.assets]),
    [
      ['bat', false, 1],
      ['home', true, 2],
      ['spare', false, 1],
    ],
  );

  assertRefused(await call(svc, viewer, 'PUT', '/api/hardware/ems/sites/home/settings', SETTINGS), 403, 'Insufficient permissions');
  assertRefused(await call(svc, other, 'PUT', '/api/hardware/ems/sites/home/settings', SETTINGS), 404, 'Site not found');
  assertRefused(await call(svc, other, 'GET', '/api/hardware/ems/sites/home/settings'), 404, 'Site not found');
  const dup = await call(svc, admin, 'PUT', '/api/hardware/ems/sites/home/settings', {
    ...SETTINGS,
    ppa_contracts: [SETTINGS.ppa_contracts[0], SETTINGS.ppa_contracts[0]],
  });
  assert.equal(dup.statusCode, 422);
  assert.deepEqual(json(dup).detail[0].loc, ['body', 'ppa_contracts', 1, 'contract_id']);
  const money = await call(svc, admin, 'PUT', '/api/hardware/ems/sites/home/settings', {
    ...SETTINGS,
    tariff: { import_p_per_kwh: 24.5, export_p_per_kwh: null },
  });
  assertRefused(money, 422, { fields: ['body.tariff'] });
});

test('PPA statement for November: a line a UK day, rounded to the penny per line, basis per line, totals the sum of lines', async () => {
  const c = json(await call(svc, viewer, 'GET', '/api/telemetry/sites/home/ppa/contracts'));
  assert.deepEqual(
    c.contracts.map((x: any) => x.contract_id),
    ['pv-1', 'exp-1'],
  );
  const res = await call(svc, viewer, 'GET', '/api/telemetry/sites/home/ppa/statement?month=2026-11');
  assert.equal(res.statusCode, 200, res.body);
  const s = json(res);
  assert.equal(s.from, '2026-11-01T00:00:00.000Z');
  assert.equal(s.to, '2026-12-01T00:00:00.000Z');
  const [pv, ex] = s.statements;
  assert.equal(pv.lines.length, 30);
  assert.deepEqual(pv.lines[0], {
    date: '2026-11-01',
    settlement_periods: 48,
    half_hours_with_data: 48,
    gap_half_hours: 0,
    energy_kwh: '24.000',
    price_p_per_kwh: '11.2345',
    amount_gbp: '2.70',
    data_basis: 'measured',
  });
  assert.deepEqual(pv.lines[29], {
    date: '2026-11-30',
    settlement_periods: 48,
    half_hours_with_data: 48,
    gap_half_hours: 24,
    energy_kwh: '12.000',
    price_p_per_kwh: '11.2345',
    amount_gbp: '1.35',
    data_basis: 'calculated',
  });
  assert.equal(pv.total_energy_kwh, '708.000');
  assert.equal(pv.total_amount_gbp, '79.65');
  assert.equal(pv.data_basis, 'calculated');
  assert.equal(ex.lines.length, 15);
  assert.equal(ex.lines[0].date, '2026-11-16');
  assert.equal(ex.lines[0].energy_kwh, '4.800');
  assert.equal(ex.lines[0].amount_gbp, '0.26');
  assert.equal(ex.total_amount_gbp, '3.90');
  const one = json(await call(svc, viewer, 'GET', '/api/telemetry/sites/home/ppa/statement?month=2026-11&contract_id=exp-1'));
  assert.equal(one.statements.length, 1);
  const missing = await call(svc, viewer, 'GET', '/api/telemetry/sites/home/ppa/statement?month=2026-11&contract_id=nope');
  assert.equal(missing.statusCode, 404);
  assert.equal(json(missing).detail, 'PPA contract not found');
  assertRefused(await call(svc, viewer, 'GET', '/api/telemetry/sites/home/ppa/statement?month=2026-13'), 422, { fields: ['query.month'] });
  // Beyond the service calendar (the month after 9999-12 has no ISO date; year 0000 none at all).
  for (const month of ['9999-12', '0000-01', '1999-12']) {
    assertRefused(await call(svc, viewer, 'GET', `/api/telemetry/sites/home/ppa/statement?month=${month}`), 422, { fields: ['query.month'] }, month);
  }
  assertRefused(await call(svc, other, 'GET', '/api/telemetry/sites/home/ppa/statement?month=2026-11'), 404, 'Site not found');
  assertRefused(await call(svc, other, 'GET', '/api/telemetry/sites/home/ppa/contracts'), 404, 'Site not found');
});

test('self-consumption and self-sufficiency over November, worked by hand', async () => {
  const res = await call(svc, viewer, 'GET', '/api/telemetry/sites/home/self-consumption?from=2026-11-01&to=2026-11-30');
  assert.equal(res.statusCode, 200, res.body);
  const b = json(res);
  assert.deepEqual(
    [b.generation_kwh, b.export_kwh, b.import_kwh, b.self_consumed_kwh, b.consumption_kwh, b.self_consumption_ratio, b.self_sufficiency_ratio],
    ['708.000', '144.000', '289.800', '566.400', '853.800', 0.8, 0.6634],
  );
  assert.equal(b.days.length, 30);
  assert.deepEqual([b.days[0].date, b.days[0].self_consumed_kwh, b.days[0].self_consumption_ratio], ['2026-11-01', '19.200', 0.8]);
  assert.equal(b.half_hours, 1440);
  assert.equal(b.complete_half_hours, 1440 - 24);
  assertRefused(await call(svc, other, 'GET', '/api/telemetry/sites/home/self-consumption'), 404, 'Site not found');
  assertRefused(await call(svc, viewer, 'GET', '/api/telemetry/sites/home/self-consumption?from=2026-11-10&to=2026-11-01'), 422, { fields: ['query.to'] });
});

test("sites list and the portfolio league with the measure's definition; a site without generation is unranked", async () => {
  const sites = json(await call(svc, viewer, 'GET', '/api/telemetry/sites?days=40'));
  const home = sites.sites.find((s: any) => s.site_id === 'home');
  assert.deepEqual(home.roles, { grid: 1, pv: 1, battery: 0, load: 0 });
  assert.equal(home.generation_kwh, '708.000');
  const league = json(await call(svc, viewer, 'GET', '/api/telemetry/portfolio/league?measure=self_consumption&from=2026-11-01&to=2026-11-30'));
  assert.equal(league.measure, 'self_consumption');
  assert.match(league.definition, /generation used on site/);
  assert.deepEqual(
    league.league.map((r: any) => [r.rank, r.site_id, r.value]),
    [[1, 'home', 0.8]],
  );
  assert.deepEqual(league.unranked, ['bat', 'spare']);
  const imp = json(await call(svc, viewer, 'GET', '/api/telemetry/portfolio/league?measure=import_kwh&from=2026-11-01&to=2026-11-30'));
  assert.deepEqual(
    imp.league.map((r: any) => [r.site_id, r.value]),
    [
      ['bat', 0],
      ['spare', 48],
      ['home', 289.8],
    ],
  ); // lower import ranks higher
  // Windows that take November whole from the monthly rollup and the days at their edges from the
  // daily one (decision 0156): the same sums as adding up the days. Home imported 0.4 kWh on 31 October.
  const novOn = json(await call(svc, viewer, 'GET', '/api/telemetry/portfolio/league?measure=import_kwh&from=2026-11-01&to=2026-12-10'));
  assert.deepEqual(
    novOn.league.map((r: any) => [r.site_id, r.value]),
    [
      ['bat', 0],
      ['spare', 48],
      ['home', 289.8],
    ],
  );
  const wide = json(await call(svc, viewer, 'GET', '/api/telemetry/portfolio/league?measure=import_kwh&from=2026-10-20&to=2026-12-10'));
  assert.deepEqual(
    wide.league.map((r: any) => [r.site_id, r.value]),
    [
      ['bat', 0],
      ['spare', 48],
      ['home', 290.2],
    ],
  );
  assertRefused(await call(svc, viewer, 'GET', '/api/telemetry/portfolio/league?measure=carbon'), 422, { fields: ['query.measure'] });
  const mine = json(await call(svc, other, 'GET', '/api/telemetry/portfolio/league?from=2026-11-01&to=2026-11-30'));
  assert.deepEqual(mine.league, []);
});

test('capacity: the 4 kW half hour against an agreed 1 kW; the peak-shaving what-if for a 1 kWh / 2 kW battery', async () => {
  const cap = json(await call(svc, viewer, 'GET', '/api/telemetry/sites/home/capacity?from=2026-11-01&to=2026-11-30'));
  assert.equal(cap.agreed_capacity_kw, 1);
  assert.equal(cap.peak_import_kw, 4);
  assert.equal(cap.peak_at, '2026-11-20T17:00:00.000Z');
  assert.equal(cap.utilisation, 4);
  assert.equal(cap.half_hours_over_capacity, 1);
  assert.deepEqual([cap.peaks[0].settlement_period, cap.peaks[0].import_kwh, cap.peaks[0].basis], [35, '2.000', 'measured']);
  const res = await call(svc, viewer, 'GET', '/api/telemetry/sites/home/capacity/peaks?date=2026-11-20&battery_kwh=1&battery_kw=2');
  assert.equal(res.statusCode, 200, res.body);
  const p = json(res);
  assert.equal(p.target_kw, 1);
  assert.equal(p.target_source, 'agreed_capacity');
  assert.deepEqual(p.peaks, [
    {
      period_start: '2026-11-20T17:00:00.000Z',
      settlement_date: '2026-11-20',
      settlement_period: 35,
      demand_kw: 4,
      shaved_demand_kw: 2,
      shaved_kw: 2,
      battery_kwh_after: 0,
    },
  ]);
  assert.equal(p.half_hours_fully_shaved, 0);
  assert.equal(p.peak_before_kw, 4);
  assert.equal(p.peak_after_kw, 2);
  assertRefused(await call(svc, viewer, 'GET', '/api/telemetry/sites/home/capacity/peaks?date=2026-11-20'), 422, {
    fields: ['query.battery_kw', 'query.battery_kwh'],
  });
  assertRefused(await call(svc, viewer, 'GET', '/api/telemetry/sites/spare/capacity/peaks?date=2026-11-01&battery_kwh=1&battery_kw=1'), 422, {
    fields: ['query.target_kw'],
  });
  assertRefused(await call(svc, other, 'GET', '/api/telemetry/sites/home/capacity'), 404, 'Site not found');
});

test('battery state: latest SoC, throughput, equivalent cycles and observed round-trip efficiency', async () => {
  const res = await call(svc, viewer, 'GET', '/api/telemetry/sites/bat/battery/state?date=2026-11-10');
  assert.equal(res.statusCode, 200, res.body);
  const b = json(res);
  assert.deepEqual(b.batteries, [{ asset_id: 'b-1', soc_pct: 61, soc_at: '2026-11-10T19:00:00.000Z', power_kw: -1.6, capacity_kwh: 10 }]);
  // 2 kW for an hour = 2.000 kWh charged (the ramp from 0 at 02:00 to 2 kW at 02:00:00.001 is negligible);
  // 1.6 kW for an hour = 1.600 discharged.
  assert.equal(b.charge_kwh, '2.000');
  assert.equal(b.discharge_kwh, '1.600');
  assert.equal(b.throughput_kwh, '3.600');
  assert.equal(b.equivalent_full_cycles, 0.18);
  assert.equal(b.round_trip_efficiency_observed, 0.8);
  assert.equal(b.capacity_source, 'asset_details');
  assertRefused(await call(svc, other, 'GET', '/api/telemetry/sites/bat/battery/state'), 404, 'Site not found');
});

test('whole months inside a window of UK days (the monthly rollup covers them, the daily one the edges)', () => {
  assert.deepEqual(wholeMonths('2026-01-01', '2027-01-01'), { firstMonth: '2026-01-01', endMonth: '2027-01-01' });
  assert.deepEqual(wholeMonths('2026-10-20', '2026-12-10'), { firstMonth: '2026-11-01', endMonth: '2026-12-01' });
  assert.deepEqual(wholeMonths('2026-11-03', '2026-12-01'), { firstMonth: '2026-12-01', endMonth: '2026-12-01' });
  assert.deepEqual(wholeMonths('2026-11-03', '2026-11-20'), { firstMonth: '2026-12-01', endMonth: '2026-12-01' });
  assert.deepEqual(wholeMonths('2026-12-15', '2027-02-01'), { firstMonth: '2027-01-01', endMonth: '2027-02-01' });
});

test('dates beyond the service calendar are a 422 naming the field, never a 500 (self-consumption, capacity, peaks, battery state)', async () => {
  const msg = 'Input should be a date from 2000-01-01 to 2099-12-31';
  const cases: [string, string][] = [
    ['/api/telemetry/sites/home/self-consumption?from=2026-11-01&to=9999-12-31', 'to'],
    ['/api/telemetry/sites/home/capacity?from=2026-11-01&to=9999-12-31', 'to'],
    ['/api/telemetry/sites/home/capacity/peaks?date=9999-12-31&battery_kwh=1&battery_kw=2', 'date'],
    ['/api/telemetry/sites/bat/battery/state?date=9999-12-31', 'date'],
    ['/api/telemetry/sites/home/self-consumption?from=0001-01-01&to=0001-01-02', 'from'],
  ];
  for (const [url, field] of cases) {
    const res = await call(svc, viewer, 'GET', url);
    assert.equal(res.statusCode, 422, `${url}: ${res.body}`);
    assert.deepEqual(json(res).detail, [{ type: 'value_error', loc: ['query', field], msg, input: url.match(new RegExp(`${field}=([^&]+)`))![1] }], url);
  }
});

// Decision 0492. Site "store": PV, a battery and a site meter, two half hours of 10 November (GMT),
// worked by hand from the registers:
//   00:00-00:30 generation 3, export 0.25, import 0.25, battery charge 2.5 → consumption 3 + 0.25 - 0.25 - 2.5 = 0.5
//   00:30-01:00 generation 0, import 0, export 0, battery discharge 1 → consumption 1
//   01:00-01:30 the meters disagree: export 0.5 with no generation → consumption -0.5
//   consumption 0.5 + 1 - 0.5 = 1.0; its positive half hours 0.5 + 1 = 1.5
//   generation used on site = max(gen - export, 0): 2.75 + 0 + 0 = 2.75 (the battery's charge counts, so it exceeds consumption)
//   self-supplied = max(consumption - import, 0): 0.25 + 1 + 0 = 1.25; self-sufficiency 1.25 / 1.5 = 0.8333 (never above 1;
//   self-consumed / consumption gave 2.75, self-supplied / consumption 1.25)
//   self-consumption 2.75 / 3 = 0.9167
test('self-sufficiency with a battery charging from PV and meters that disagree: consumption not met by import over positive consumption, never above 100 % (worked by hand)', async () => {
  await asset(svc, admin, { asset_id: 'st-meter', site_id: 'store', asset_class: 'site_meter' });
  await asset(svc, admin, { asset_id: 'st-pv', site_id: 'store', asset_class: 'inverter', parent_asset_id: 'st-meter' });
  await asset(svc, admin, { asset_id: 'st-bat', site_id: 'store', asset_class: 'battery', parent_asset_id: 'st-meter' });
  const t = ['2026-11-10T00:00:00Z', '2026-11-10T00:30:00Z', '2026-11-10T01:00:00Z', '2026-11-10T01:30:00Z'];
  await ingest(svc, admin, [
    ...t.map((ts, i) => ({ device_id: 'st-meter', ts, import_kwh: [100, 100.25, 100.25, 100.25][i], export_kwh: [50, 50.25, 50.25, 50.75][i] })),
    ...t.map((ts, i) => ({ device_id: 'st-pv', ts, generation_kwh: [10, 13, 13, 13][i] })),
    ...t.map((ts, i) => ({ device_id: 'st-bat', ts, charge_kwh: [5, 7.5, 7.5, 7.5][i], discharge_kwh: [2, 2, 3, 3][i] })),
  ]);
  await refresh(svc);
  const ledger = json(await call(svc, viewer, 'GET', '/api/telemetry/sites/store/ledger?date=2026-11-10'));
  assert.deepEqual(
    ledger.half_hours
      .slice(0, 3)
      .map((h: Record<string, string>) => [h.generation_kwh, h.export_kwh, h.import_kwh, h.charge_kwh, h.discharge_kwh, h.consumption_kwh]),
    [
      ['3.000', '0.250', '0.250', '2.500', '0.000', '0.500'],
      ['0.000', '0.000', '0.000', '0.000', '1.000', '1.000'],
      ['0.000', '0.500', '0.000', '0.000', '0.000', '-0.500'],
    ],
  );
  const res = await call(svc, viewer, 'GET', '/api/telemetry/sites/store/self-consumption?from=2026-11-10&to=2026-11-10');
  assert.equal(res.statusCode, 200, res.body);
  const b = json(res);
  assert.deepEqual(
    [b.generation_kwh, b.export_kwh, b.import_kwh, b.self_consumed_kwh, b.consumption_kwh, b.self_consumption_ratio, b.self_sufficiency_ratio],
    ['3.000', '0.750', '0.250', '2.750', '1.000', 0.9167, 0.8333],
  );
  assert.equal(b.days[0].self_sufficiency_ratio, 0.8333);
  // The EMS report's figure is the same, with the same inputs named in its lineage.
  const report = json(await call(svc, viewer, 'GET', '/api/hardware/ems/report?site_id=store&date=2026-11-10'));
  const fig = report.figures.find((f: { key: string }) => f.key === 'self_sufficiency_ratio');
  assert.equal(fig.value, 0.8333);
  // The portfolio league ranks by the same measure.
  const league = json(await call(svc, viewer, 'GET', '/api/telemetry/portfolio/league?from=2026-11-10&to=2026-11-10&measure=self_sufficiency'));
  assert.match(league.definition, /max\(consumption - import, 0\)/);
  assert.deepEqual(
    league.league.filter((r: { site_id: string }) => r.site_id === 'store').map((r: { site_id: string; value: number }) => [r.site_id, r.value]),
    [['store', 0.8333]],
  );
});
