// The energy model and the ledger through HTTP on a real store: clock-change days worked by hand
// (46 and 50 settlement periods with their labels), counters measured and power calculated, gaps
// marked, counter resets, the balance to the watt-hour, period detail, rebuild and refusals.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { asset, call, counterSeries, HH, ingest, iso, json, MIN, powerSeries, refresh, tokenFor } from './helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let admin: string;
let viewer: string;
let other: string;

before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-11-02T12:00:00Z'), env: { ENERGY_MAX_QUEUED_REBUILDS: '1' } });
  await svc.createOrg('org-led');
  await svc.createOrg('org-other');
  admin = await tokenFor(svc, 'org-led');
  viewer = await tokenFor(svc, 'org-led', 'VIEWER');
  other = await tokenFor(svc, 'org-other');
  // Site "autumn": a site meter with an import counter (1 kWh a half hour) and a PV inverter at a
  // constant 2 kW, sampled every 5 minutes (1 kWh a half hour): consumption is the balance, 2 kWh.
  await asset(svc, admin, { asset_id: 'au-meter', site_id: 'autumn', asset_class: 'site_meter' });
  await asset(svc, admin, { asset_id: 'au-pv', site_id: 'autumn', asset_class: 'inverter', parent_asset_id: 'au-meter' });
  const from = Date.parse('2026-10-24T22:00:00Z');
  const to = Date.parse('2026-10-26T01:00:00Z');
  // The meter's export register stands still (export measured as zero).
  await ingest(
    svc,
    admin,
    counterSeries('au-meter', 'import_kwh', from, to, 1).map((r) => ({ ...r, export_kwh: 7 })),
  );
  await ingest(
    svc,
    admin,
    powerSeries('au-pv', from, to, 5, () => -2),
  );
  // Site "spring": the same on the spring clock-change day.
  await asset(svc, admin, { asset_id: 'sp-meter', site_id: 'spring', asset_class: 'site_meter' });
  await ingest(svc, admin, counterSeries('sp-meter', 'import_kwh', Date.parse('2026-03-28T22:00:00Z'), Date.parse('2026-03-30T01:00:00Z'), 0.5));
  await refresh(svc);
});

after(() => svc?.stop());

test('autumn clock change: 50 settlement periods, labelled from UK midnight (BST), counters measured and power calculated', async () => {
  const res = await call(svc, viewer, 'GET', '/api/telemetry/sites/autumn/ledger?date=2026-10-25');
  assert.equal(res.statusCode, 200, res.body);
  const body = json(res);
  assert.deepEqual(body.settlement_days, [{ date: '2026-10-25', periods: 50 }]);
  assert.equal(body.from, '2026-10-24T23:00:00.000Z');
  assert.equal(body.to, '2026-10-26T00:00:00.000Z');
  const hh = body.half_hours;
  assert.equal(hh.length, 50);
  // Hand-worked labels: SP1 00:00 BST = 23:00Z; SP3 01:00 BST = 00:00Z; SP5 01:00 GMT = 01:00Z; SP50 23:30 GMT.
  assert.deepEqual(
    hh.slice(0, 6).map((h: any) => [h.settlement_period, h.period_start]),
    [
      [1, '2026-10-24T23:00:00.000Z'],
      [2, '2026-10-24T23:30:00.000Z'],
      [3, '2026-10-25T00:00:00.000Z'],
      [4, '2026-10-25T00:30:00.000Z'],
      [5, '2026-10-25T01:00:00.000Z'],
      [6, '2026-10-25T01:30:00.000Z'],
    ],
  );
  assert.deepEqual([hh[49].settlement_period, hh[49].period_start, hh[49].period_end], [50, '2026-10-25T23:30:00.000Z', '2026-10-26T00:00:00.000Z']);
  for (const h of hh) {
    assert.equal(h.settlement_date, '2026-10-25');
    assert.equal(h.import_kwh, '1.000');
    assert.equal(h.generation_kwh, '1.000');
    assert.equal(h.consumption_kwh, '2.000');
    assert.equal(h.residual_kwh, '0.000');
    assert.equal(h.basis.import, 'measured');
    assert.equal(h.export_kwh, '0.000');
    assert.equal(h.basis.export, 'measured');
    assert.equal(h.basis.generation, 'calculated');
    assert.equal(h.basis.consumption, 'calculated');
    assert.equal(h.basis.charge, 'absent');
    assert.equal(h.consumption_method, 'derived');
    assert.equal(h.gap, false);
  }
  assert.equal(body.totals.import_kwh, '50.000');
  assert.equal(body.totals.generation_kwh, '50.000');
  assert.equal(body.totals.consumption_kwh, '100.000');
  assert.equal(body.totals.half_hours, 50);
  assert.equal(body.totals.gap_half_hours, 0);
  assert.equal(body.balance.inputs_kwh, '100.000');
  assert.equal(body.balance.outputs_kwh, '100.000');
  assert.equal(body.balance.balances, true);
  assert.equal(body.pending_refresh, false);
});

test('spring clock change: 46 settlement periods; SP3 starts 02:00 BST (01:00Z); the day before and after have 48', async () => {
  const res = await call(svc, viewer, 'GET', '/api/telemetry/sites/spring/ledger?from=2026-03-28&to=2026-03-30');
  assert.equal(res.statusCode, 200, res.body);
  const body = json(res);
  assert.deepEqual(body.settlement_days, [
    { date: '2026-03-28', periods: 48 },
    { date: '2026-03-29', periods: 46 },
    { date: '2026-03-30', periods: 48 },
  ]);
  const day = body.half_hours.filter((h: any) => h.settlement_date === '2026-03-29');
  assert.equal(day.length, 46);
  assert.deepEqual(
    day.slice(0, 3).map((h: any) => [h.settlement_period, h.period_start]),
    [
      [1, '2026-03-29T00:00:00.000Z'],
      [2, '2026-03-29T00:30:00.000Z'],
      [3, '2026-03-29T01:00:00.000Z'],
    ],
  );
  assert.deepEqual([day[45].settlement_period, day[45].period_start], [46, '2026-03-29T22:30:00.000Z']);
  assert.ok(day.every((h: any) => h.import_kwh === '0.500' && h.basis.import === 'measured'));
  // 30 March starts at 23:00Z on the 29th (BST); the data ends at 01:00Z on the 30th, so the rest is a gap.
  const next = body.half_hours.filter((h: any) => h.settlement_date === '2026-03-30');
  assert.equal(next[0].period_start, '2026-03-29T23:00:00.000Z');
  assert.equal(next[0].import_kwh, '0.500');
  assert.equal(next[5].gap, true);
  assert.equal(next[5].import_kwh, null);
  // Data from 22:00Z on the 28th to 01:00Z on the 30th: 4 half hours of the 28th, 46 of the 29th, 4 of the 30th.
  assert.equal(body.totals.half_hours_with_data, 4 + 46 + 4);
  assert.equal(body.totals.gap_half_hours, 44 + 44);
});

test('gaps are marked, not filled: a silent hour of the inverter leaves its half hours partial', async () => {
  await asset(svc, admin, { asset_id: 'g-meter', site_id: 'gappy', asset_class: 'site_meter' });
  await asset(svc, admin, { asset_id: 'g-pv', site_id: 'gappy', asset_class: 'inverter', parent_asset_id: 'g-meter' });
  const from = Date.parse('2026-10-28T09:00:00Z');
  const to = Date.parse('2026-10-28T13:00:00Z');
  await ingest(svc, admin, counterSeries('g-meter', 'import_kwh', from, to, 0.25));
  // 5-minute samples except between 10:30 and 11:30 (silence of 65 minutes > 15-minute gap limit).
  await ingest(
    svc,
    admin,
    powerSeries('g-pv', from, to, 5, () => -1).filter((r) => r.ts <= '2026-10-28T10:25:00.000Z' || r.ts >= '2026-10-28T11:30:00.000Z'),
  );
  await refresh(svc);
  const body = json(await call(svc, admin, 'GET', '/api/telemetry/sites/gappy/ledger?date=2026-10-28'));
  const at = (t: string) => body.half_hours.find((h: any) => h.period_start === t);
  // 09:30-10:00: whole, 1 kW for half an hour.
  assert.equal(at('2026-10-28T09:30:00.000Z').generation_kwh, '0.500');
  assert.equal(at('2026-10-28T09:30:00.000Z').gap, false);
  assert.equal(at('2026-10-28T09:30:00.000Z').coverage, 1);
  // 10:00-10:30: samples to 10:25, then silence: 25 minutes integrated (0.417 kWh), not filled.
  assert.equal(at('2026-10-28T10:00:00.000Z').generation_kwh, '0.417');
  assert.equal(at('2026-10-28T10:00:00.000Z').gap, true);
  // 10:30-11:00 has no inverter data at all: generation missing, the half hour a gap; the meter still counts.
  const s1030 = at('2026-10-28T10:30:00.000Z');
  assert.equal(s1030.gap, true);
  assert.equal(s1030.basis.generation, 'missing');
  assert.equal(s1030.import_kwh, '0.250');
  assert.equal(s1030.coverage, 0);
  // 11:30-12:00 whole again.
  assert.equal(at('2026-10-28T11:30:00.000Z').generation_kwh, '0.500');
  // The period in detail: the inverter covered 25 of its 30 minutes.
  const p = json(await call(svc, admin, 'GET', '/api/telemetry/ledger/period/gappy/2026-10-28T10:00:00Z'));
  const pv = p.contributions.find((c: any) => c.asset_id === 'g-pv');
  assert.equal(pv.kwh, '0.417');
  assert.equal(Math.round(pv.coverage * 1800), 1500);
  assert.equal(p.gap, true);
  assert.equal(p.settlement_period, 21);
  assert.equal(p.settlement_date, '2026-10-28');
});

test('a counter reset counts from zero and is reported on the period', async () => {
  await asset(svc, admin, { asset_id: 'r-meter', site_id: 'reset', asset_class: 'smart_meter' });
  const t0 = Date.parse('2026-10-29T10:00:00Z');
  await ingest(svc, admin, [
    { device_id: 'r-meter', ts: iso(t0), import_kwh: 500 },
    { device_id: 'r-meter', ts: iso(t0 + HH), import_kwh: 501.25 },
    { device_id: 'r-meter', ts: iso(t0 + 2 * HH), import_kwh: 0.75 },
    { device_id: 'r-meter', ts: iso(t0 + 3 * HH), import_kwh: 2 },
  ]);
  await refresh(svc);
  const body = json(await call(svc, admin, 'GET', '/api/telemetry/sites/reset/ledger?date=2026-10-29'));
  const at = (t: number) => body.half_hours.find((h: any) => h.period_start === iso(t));
  assert.equal(at(t0).import_kwh, '1.250');
  assert.equal(at(t0 + HH).import_kwh, '0.750');
  assert.equal(at(t0 + 2 * HH).import_kwh, '1.250');
  const p = json(await call(svc, admin, 'GET', `/api/telemetry/ledger/period/reset/${iso(t0 + HH)}`));
  assert.equal(p.contributions[0].counter_resets, 1);
  assert.equal(p.contributions[0].source, 'counter:import_kwh');
  assert.equal(p.contributions[0].basis, 'measured');
});

test('issue 35 finding 2: two readings of power_kw 1e12 (and a connector-sized 1e99) are refused per record; the refresh completes and the ledger reads', async () => {
  await asset(svc, admin, { asset_id: 'x-meter', site_id: 'absurd', asset_class: 'site_meter' });
  await asset(svc, admin, { asset_id: 'x-pv', site_id: 'absurd', asset_class: 'inverter', parent_asset_id: 'x-meter' });
  const t0 = Date.parse('2026-10-29T10:00:00Z');
  const res = await call(svc, admin, 'POST', '/api/telemetry/ingest', [
    { device_id: 'x-meter', ts: iso(t0), power_kw: 1e12 },
    { device_id: 'x-meter', ts: iso(t0 + MIN), power_kw: 1e12 },
    { device_id: 'x-meter', ts: iso(t0 + 2 * MIN), power_kw: 1e99 },
    ...powerSeries('x-pv', t0, t0 + HH, 5, () => -2),
  ]);
  assert.equal(res.statusCode, 207, res.body);
  assert.deepEqual(
    json(res)
      .results.slice(0, 3)
      .map((r: any) => [r.index, r.status, r.field, r.reason]),
    [
      [0, 'rejected', 'power_kw', 'beyond_bound'],
      [1, 'rejected', 'power_kw', 'beyond_bound'],
      [2, 'rejected', 'power_kw', 'beyond_bound'],
    ],
  );
  await refresh(svc);
  const body = json(await call(svc, admin, 'GET', '/api/telemetry/sites/absurd/ledger?date=2026-10-29'));
  const h = body.half_hours.find((x: any) => x.period_start === iso(t0));
  assert.equal(h.generation_kwh, '1.000');
  // The refresh left nothing pending behind (it did not fail and roll back).
  const again = await call(svc, admin, 'GET', '/api/telemetry/sites/absurd/ledger?date=2026-10-29');
  assert.equal(again.statusCode, 200);
});

test('an absurd counter jump (faster than the 1e8 kW bound) counts nothing, like a reset; the register counts on from its new level (decision 0281)', async () => {
  await asset(svc, admin, { asset_id: 'j-meter', site_id: 'jump', asset_class: 'smart_meter' });
  const t0 = Date.parse('2026-10-29T10:00:00Z');
  await ingest(svc, admin, [
    { device_id: 'j-meter', ts: iso(t0), import_kwh: 500 },
    { device_id: 'j-meter', ts: iso(t0 + HH), import_kwh: 501 },
    { device_id: 'j-meter', ts: iso(t0 + 2 * HH), import_kwh: 9e14 },
    { device_id: 'j-meter', ts: iso(t0 + 3 * HH), import_kwh: 9e14 + 2 },
    { device_id: 'j-meter', ts: iso(t0 + 4 * HH), import_kwh: 3 },
    { device_id: 'j-meter', ts: iso(t0 + 5 * HH), import_kwh: 1e15 }, // a reset to an implausible reading: nothing counted
  ]);
  await refresh(svc);
  const res = await call(svc, admin, 'GET', '/api/telemetry/sites/jump/ledger?date=2026-10-29');
  assert.equal(res.statusCode, 200, res.body);
  const body = json(res);
  const at = (t: number) => body.half_hours.find((h: any) => h.period_start === iso(t));
  assert.equal(at(t0).import_kwh, '1.000');
  assert.equal(at(t0 + HH).import_kwh, null);
  assert.equal(at(t0 + HH).gap, true);
  assert.equal(at(t0 + 2 * HH).import_kwh, '2.000');
  assert.equal(at(t0 + 3 * HH).import_kwh, '3.000');
  assert.equal(at(t0 + 4 * HH).import_kwh, null);
  assert.equal(body.totals.import_kwh, '6.000');
});

test('a ledger with metered loads, battery and export balances to the watt-hour and shows the residual', async () => {
  // Meter: import counter +0.400 and export counter +0.150 a half hour; PV counter +1.000;
  // battery charges at 0.6 kW (0.300 kWh); a heat pump's counter +0.800. Unmetered: 0.15.
  await asset(svc, admin, { asset_id: 'b-meter', site_id: 'bal', asset_class: 'site_meter' });
  await asset(svc, admin, { asset_id: 'b-pv', site_id: 'bal', asset_class: 'inverter', parent_asset_id: 'b-meter' });
  await asset(svc, admin, { asset_id: 'b-bat', site_id: 'bal', asset_class: 'battery', parent_asset_id: 'b-meter' });
  await asset(svc, admin, { asset_id: 'b-hp', site_id: 'bal', asset_class: 'heat_pump', parent_asset_id: 'b-meter' });
  const from = Date.parse('2026-10-30T00:00:00Z');
  const to = Date.parse('2026-10-31T00:00:00Z');
  const meter = counterSeries('b-meter', 'import_kwh', from, to, 0.4).map((r, i) => ({ ...r, export_kwh: 50 + i * 0.15 }));
  await ingest(svc, admin, meter);
  await ingest(svc, admin, counterSeries('b-pv', 'generation_kwh', from, to, 1));
  await ingest(
    svc,
    admin,
    powerSeries('b-bat', from, to, 10, () => 0.6),
  );
  await ingest(svc, admin, counterSeries('b-hp', 'consumption_kwh', from, to, 0.8));
  await refresh(svc);
  const body = json(await call(svc, admin, 'GET', '/api/telemetry/sites/bal/ledger?date=2026-10-30'));
  const h = body.half_hours[10];
  assert.deepEqual(
    [h.import_kwh, h.export_kwh, h.generation_kwh, h.charge_kwh, h.discharge_kwh, h.consumption_kwh, h.residual_kwh, h.consumption_method],
    ['0.400', '0.150', '1.000', '0.300', '0.000', '0.800', '0.150', 'metered'],
  );
  assert.equal(h.basis.discharge, 'calculated');
  assert.equal(body.totals.residual_kwh, '7.200');
  assert.equal(body.balance.inputs_kwh, '67.200'); // (1.000 + 0.400) × 48
  assert.equal(body.balance.outputs_kwh, '60.000'); // (0.800 + 0.150 + 0.300) × 48
  assert.equal(body.balance.balances, true);
});

test('readings sent before their assets were registered reach the ledger once the assets are registered, with no rebuild asked for (issue 36)', async () => {
  // A PV inverter at a constant 2 kW (1 kWh a half hour) and a meter importing 0.5 kWh a half hour,
  // sent for a whole day before anyone registered them: consumption is the balance, 1.5 kWh.
  const from = Date.parse('2026-10-28T00:00:00Z');
  const to = Date.parse('2026-10-29T00:00:00Z');
  await ingest(svc, admin, counterSeries('late-meter', 'import_kwh', from, to, 0.5));
  await ingest(
    svc,
    admin,
    powerSeries('late-pv', from, to, 5, () => -2),
  );
  await refresh(svc);
  assertRefused(await call(svc, viewer, 'GET', '/api/telemetry/sites/late/ledger?date=2026-10-28'), 404, 'Site not found');
  await asset(svc, admin, { asset_id: 'late-meter', site_id: 'late', asset_class: 'site_meter' });
  await asset(svc, admin, { asset_id: 'late-pv', site_id: 'late', asset_class: 'inverter', parent_asset_id: 'late-meter' });
  await refresh(svc);
  const body = json(await call(svc, viewer, 'GET', '/api/telemetry/sites/late/ledger?date=2026-10-28'));
  assert.equal(body.half_hours.length, 48);
  assert.deepEqual(
    [body.totals.generation_kwh, body.totals.import_kwh, body.totals.consumption_kwh, body.totals.complete_half_hours],
    ['48.000', '24.000', '72.000', 48],
  );
  assert.ok(
    body.half_hours.every((h: any) => h.generation_kwh === '1.000' && h.consumption_kwh === '1.500'),
    'every half hour counts both assets',
  );
  assert.equal(body.rebuild.status, 'completed', 'the registration rebuilt the site by itself');
  assert.equal(body.pending_refresh, false);
  // Moving the inverter to another site takes its generation out of this one, again by itself.
  const moved = await call(svc, admin, 'PATCH', '/api/twin/registry/assets/late-pv', { site_id: 'late-2', parent_asset_id: null });
  assert.equal(moved.statusCode, 200, moved.body);
  await refresh(svc);
  const after = json(await call(svc, viewer, 'GET', '/api/telemetry/sites/late/ledger?date=2026-10-28'));
  assert.deepEqual([after.totals.generation_kwh, after.totals.import_kwh], ['0.000', '24.000']);
  const other2 = json(await call(svc, viewer, 'GET', '/api/telemetry/sites/late-2/ledger?date=2026-10-28'));
  assert.equal(other2.totals.generation_kwh, '48.000');
});

test('rebuild: a job with progress, idempotent; a second request while it runs returns it', async () => {
  const first = await call(svc, admin, 'POST', '/api/telemetry/sites/autumn/ledger/rebuild', {});
  assert.equal(first.statusCode, 202, first.body);
  assert.equal(first.headers.location, '/api/telemetry/sites/autumn/ledger', 'the ledger shows the rebuild’s progress');
  const r = json(first);
  assert.equal(r.status, 'queued');
  assert.equal(r.from, '2026-10-23T23:00:00.000Z'); // the data starts 23:00 BST on the 24th
  assert.equal(r.days_total, 3);
  const again = await call(svc, admin, 'POST', '/api/telemetry/sites/autumn/ledger/rebuild', {});
  assert.equal(again.statusCode, 200);
  assert.equal(json(again).rebuild_id, r.rebuild_id);
  const before = json(await call(svc, admin, 'GET', '/api/telemetry/sites/autumn/ledger?date=2026-10-25'));
  await svc.runDue();
  const afterBody = json(await call(svc, admin, 'GET', '/api/telemetry/sites/autumn/ledger?date=2026-10-25'));
  assert.equal(afterBody.rebuild.status, 'completed');
  assert.equal(afterBody.rebuild.days_done, 3);
  assert.deepEqual(afterBody.rebuild.progress, { done: 3, total: 3, unit: 'days', percent: 100 });
  assert.deepEqual(afterBody.half_hours, before.half_hours);
  assert.deepEqual(afterBody.totals, before.totals);
});

test('a demo organisation’s ledger rests on simulated readings: the header and every flow basis say simulated (coverage words stay)', async () => {
  await svc.createOrg('demo-led');
  const demo = await tokenFor(svc, 'demo-led');
  await asset(svc, demo, { asset_id: 'd-meter', site_id: 'demo-site', asset_class: 'site_meter' });
  await asset(svc, demo, { asset_id: 'd-pv', site_id: 'demo-site', asset_class: 'inverter', parent_asset_id: 'd-meter' });
  const from = Date.parse('2026-10-27T23:00:00Z');
  const to = Date.parse('2026-10-29T01:00:00Z');
  await ingest(
    svc,
    demo,
    counterSeries('d-meter', 'import_kwh', from, to, 1).map((r) => ({ ...r, export_kwh: 7, simulated: true })),
  );
  await ingest(
    svc,
    demo,
    powerSeries('d-pv', from, to, 5, () => -2).map((r) => ({ ...r, simulated: true })),
  );
  await refresh(svc);
  const res = await call(svc, demo, 'GET', '/api/telemetry/sites/demo-site/ledger?date=2026-10-28');
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['x-platform-data-basis'], 'simulated');
  const hh = json(res).half_hours;
  assert.deepEqual(hh[10].basis, {
    import: 'simulated',
    export: 'simulated',
    generation: 'simulated',
    consumption: 'simulated',
    charge: 'absent',
    discharge: 'absent',
  });
  const p = json(await call(svc, demo, 'GET', '/api/telemetry/ledger/period/demo-site/2026-10-28T05:00:00Z'));
  assert.deepEqual([p.basis.import, [...new Set(p.contributions.map((c: any) => c.basis))]], ['simulated', ['simulated']]);
  // The interval export (JSON and CSV), the EMS report and the energy summary say the same.
  const ex = await call(svc, demo, 'GET', '/api/hardware/ems/exports/interval?site_id=demo-site&date=2026-10-28');
  assert.equal(ex.headers['x-platform-data-basis'], 'simulated');
  assert.deepEqual(
    ['import', 'generation', 'charge'].map((f) => json(ex).rows[10][`basis_${f}`]),
    ['simulated', 'simulated', 'absent'],
  );
  const csv = (await call(svc, demo, 'GET', '/api/hardware/ems/exports/interval.csv?site_id=demo-site&date=2026-10-28')).body.split('\r\n');
  assert.match(csv[11], /,simulated,simulated,simulated,simulated,absent,absent$/);
  const report = json(await call(svc, demo, 'GET', '/api/hardware/ems/report?site_id=demo-site&date=2026-10-28'));
  assert.equal(report.data_basis, 'simulated');
  assert.ok(
    report.figures.every((f: any) => f.basis === 'simulated'),
    JSON.stringify(report.figures.map((f: any) => f.basis)),
  );
  const summary = json(await call(svc, demo, 'GET', '/api/hardware/ems/exports/energy-summary?date=2026-10-28'));
  assert.deepEqual(
    summary.sites.map((x: any) => x.basis),
    ['simulated'],
  );
  // The same readings in a production organisation: measured counters, calculated power.
  const prod = json(await call(svc, viewer, 'GET', '/api/telemetry/sites/autumn/ledger?date=2026-10-25')).half_hours[10].basis;
  assert.deepEqual([prod.import, prod.generation], ['measured', 'calculated']);
});

test("ledger refusals: another organisation's site is 404, a bad date is 422, a viewer may not rebuild, no token is 401", async () => {
  const res = await call(svc, other, 'GET', '/api/telemetry/sites/autumn/ledger?date=2026-10-25');
  assert.equal(res.statusCode, 404);
  assert.equal(json(res).detail, 'Site not found');
  assertRefused(await call(svc, other, 'GET', '/api/telemetry/ledger/period/autumn/2026-10-25T00:00:00Z'), 404, 'Site not found');
  const bad = await call(svc, admin, 'GET', '/api/telemetry/sites/autumn/ledger?date=2026-13-01');
  assert.equal(bad.statusCode, 422);
  assert.deepEqual(json(bad).detail[0].loc, ['query', 'date']);
  const off = await call(svc, admin, 'GET', '/api/telemetry/ledger/period/autumn/2026-10-25T00:10:00Z');
  assertRefused(off, 422, { fields: ['path.period_start'] });
  const v = await call(svc, viewer, 'POST', '/api/telemetry/sites/autumn/ledger/rebuild', {});
  assert.equal(v.statusCode, 403);
  assert.equal(json(v).detail, 'Insufficient permissions');
  assertRefused(await call(svc, other, 'POST', '/api/telemetry/sites/autumn/ledger/rebuild', {}), 404, 'Site not found');
  assertRefused(await call(svc, null, 'GET', '/api/telemetry/sites/autumn/ledger'), 401, 'Authorization header missing');
});

test('queued rebuilds are capped per organisation: one for another site past ENERGY_MAX_QUEUED_REBUILDS is refused 429; another organisation still queues', async () => {
  // The rebuild above ran to completion: nothing of org-led is queued.
  assert.equal((await call(svc, admin, 'POST', '/api/telemetry/sites/autumn/ledger/rebuild', {})).statusCode, 202);
  // The same site again is the running rebuild (200), not a refusal.
  assert.equal((await call(svc, admin, 'POST', '/api/telemetry/sites/autumn/ledger/rebuild', {})).statusCode, 200);
  const refused = await call(svc, admin, 'POST', '/api/telemetry/sites/spring/ledger/rebuild', {});
  assertRefused(refused, 429, '1 ledger rebuilds are already queued or running for this organisation; at most 1 may be. Wait for one to finish.');
  assert.equal(refused.headers['retry-after'], '60');
  await asset(svc, other, { asset_id: 'ot-meter', site_id: 'elsewhere', asset_class: 'site_meter' });
  assert.equal((await call(svc, other, 'POST', '/api/telemetry/sites/elsewhere/ledger/rebuild', {})).statusCode, 202);
  // Once the organisation's rebuild completes, the next one is taken.
  await svc.runDue();
  assert.equal((await call(svc, admin, 'POST', '/api/telemetry/sites/spring/ledger/rebuild', {})).statusCode, 202);
});

test('meters that disagree: a half hour of negative (derived) consumption says meters_disagree, a consistent one does not; the window counts it, the period read says it (decision 0495, worked by hand)', async () => {
  // Site "discord": a site meter (import and export counters) and a PV inverter (generation
  // counter); no metered loads, so consumption = generation + import - export.
  // 00:00-00:30Z: import 1.0, export 0.25, generation 0.5 -> consumption 1.25 (consistent).
  // 00:30-01:00Z: import 0, export 0.5, generation 0 -> consumption -0.5 (the meters disagree).
  await asset(svc, admin, { asset_id: 'di-meter', site_id: 'discord', asset_class: 'site_meter' });
  await asset(svc, admin, { asset_id: 'di-pv', site_id: 'discord', asset_class: 'inverter', parent_asset_id: 'di-meter' });
  const t = ['2026-11-01T00:00:00Z', '2026-11-01T00:30:00Z', '2026-11-01T01:00:00Z'];
  await ingest(svc, admin, [
    ...t.map((ts, i) => ({ device_id: 'di-meter', ts, import_kwh: [20, 21, 21][i], export_kwh: [5, 5.25, 5.75][i] })),
    ...t.map((ts, i) => ({ device_id: 'di-pv', ts, generation_kwh: [40, 40.5, 40.5][i] })),
  ]);
  await refresh(svc);
  const res = await call(svc, viewer, 'GET', '/api/telemetry/sites/discord/ledger?date=2026-11-01');
  assert.equal(res.statusCode, 200, res.body);
  const ledger = json(res);
  assert.deepEqual(
    ledger.half_hours
      .slice(0, 3)
      .map((h: Record<string, unknown>) => [
        h.period_start,
        h.import_kwh,
        h.export_kwh,
        h.generation_kwh,
        h.consumption_kwh,
        h.consumption_method,
        h.meters_disagree,
      ]),
    [
      ['2026-11-01T00:00:00.000Z', '1.000', '0.250', '0.500', '1.250', 'derived', false],
      ['2026-11-01T00:30:00.000Z', '0.000', '0.500', '0.000', '-0.500', 'derived', true],
      // No data: null figures, a gap, and nothing that disagrees.
      ['2026-11-01T01:00:00.000Z', null, null, null, null, null, false],
    ],
  );
  assert.equal(ledger.half_hours.filter((h: { meters_disagree: boolean }) => h.meters_disagree).length, 1);
  assert.equal(ledger.totals.meters_disagree_half_hours, 1);
  assert.equal(ledger.totals.consumption_kwh, '0.750');
  const bad = json(await call(svc, viewer, 'GET', `/api/telemetry/ledger/period/discord/${encodeURIComponent('2026-11-01T00:30:00Z')}`));
  assert.deepEqual([bad.consumption_kwh, bad.meters_disagree], ['-0.500', true]);
  const good = json(await call(svc, viewer, 'GET', `/api/telemetry/ledger/period/discord/${encodeURIComponent('2026-11-01T00:00:00Z')}`));
  assert.deepEqual([good.consumption_kwh, good.meters_disagree], ['1.250', false]);
});
