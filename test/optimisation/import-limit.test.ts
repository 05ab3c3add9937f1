// Import limit through HTTP: a demo-realm site with a day of load history (3 kW, 8 kW from 17:00 to
// 19:00), a battery and an EV charger. The plan keeps import under 6 kW where charging the EV at once
// and leaving the battery idle would not; dispatch acts through control's verified setpoint write in
// the demo realm and is refused with 403 `Demo realm only` in production.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { asset, call, clockOf, HH, ingest, iso, json, refresh, tokenFor } from '../energy/helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

const DEMO = 'demo-optimise-il';
const PROD = 'acme-optimise-il';
const NOW = Date.parse('2026-11-23T12:00:00Z');
const BASE = '/api/optimiser/import-limit';
let svc: TestService;
let admin: string;
let viewer: string;
let prod: string;

const CONFIG = {
  import_limit_kw: 6,
  assets: [
    { device_id: 'il-bat', kind: 'battery', max_power_kw: 5, capacity_kwh: 10, initial_soc_pct: 50, min_soc_pct: 10 },
    { device_id: 'il-ev', kind: 'ev_charger', max_power_kw: 7, energy_kwh: 7, ready_within_hours: 4 },
  ],
};

before(async () => {
  svc = await startTestService({ clock: new ManualClock(iso(NOW)) });
  await svc.createOrg(DEMO);
  await svc.createOrg(PROD);
  admin = await tokenFor(svc, DEMO);
  viewer = await tokenFor(svc, DEMO, 'VIEWER');
  prod = await tokenFor(svc, PROD);
  for (const t of [admin, prod]) {
    await asset(svc, t, { asset_id: 'il-load', site_id: 'depot', asset_class: 'appliance' });
    await asset(svc, t, { asset_id: 'il-bat', site_id: 'depot', asset_class: 'battery' });
    await asset(svc, t, { asset_id: 'il-ev', site_id: 'depot', asset_class: 'charger' });
  }
  // Samples every 15 minutes (the energy ledger joins samples up to 15 minutes apart), at the
  // start of each half hour and 15 minutes in: the ledger's 17:00 half hour is 8 kW × 0.5 h; the
  // battery and the charger idle at 0 kW, so the site's consumption (its metered loads) is known.
  const records = [];
  for (let t = NOW - 86_400_000; t <= NOW; t += HH / 2) {
    const h = new Date(t).getUTCHours();
    records.push({ device_id: 'il-load', ts: iso(t), power_kw: h >= 17 && h < 19 ? 8 : 3 });
    for (const device_id of ['il-bat', 'il-ev']) records.push({ device_id, ts: iso(t), power_kw: 0 });
  }
  await ingest(svc, admin, records);
  // Forecasting reads the energy ledger: the refresh folds the readings in.
  await refresh(svc);
  clockOf(svc).set(NOW);
  const sc = await call(svc, admin, 'POST', '/api/hardware/ems/control/demo/sites/depot/scenario', {
    load_kw: 3,
    pv_available_kw: 0,
    battery_capacity_kwh: 10,
  });
  assert.equal(sc.statusCode, 200, sc.body);
});
after(() => svc?.stop());

test('configuration: unconfigured, set, read back; refusals', async () => {
  const d = json(await call(svc, viewer, 'GET', `${BASE}/depot/config`));
  assert.deepEqual([d.configured, d.import_limit_kw, d.assets], [false, null, []]);
  assertRefused(await call(svc, viewer, 'GET', `${BASE}/depot/series`), 409, 'Import limit not configured for this site');
  assertRefused(await call(svc, admin, 'POST', `${BASE}/depot/run`, {}), 409, 'Import limit not configured for this site');
  const put = await call(svc, admin, 'PUT', `${BASE}/depot/config`, CONFIG);
  assert.equal(put.statusCode, 200, put.body);
  const again = json(await call(svc, viewer, 'GET', `${BASE}/depot/config`));
  assert.equal(again.configured, true);
  assert.deepEqual(again.assets, CONFIG.assets);
  assertRefused(await call(svc, viewer, 'PUT', `${BASE}/depot/config`, CONFIG), 403, /./);
  assertRefused(await call(svc, admin, 'PUT', `${BASE}/depot/config`, { ...CONFIG, assets: [{ ...CONFIG.assets[0], device_id: 'ghost' }] }), 422, {
    fields: ['body.assets.0.device_id'],
  });
  assertRefused(await call(svc, admin, 'PUT', `${BASE}/depot/config`, { ...CONFIG, assets: [{ ...CONFIG.assets[0], capacity_kwh: undefined }] }), 422, {
    fields: ['body.assets.0.capacity_kwh'],
  });
  assertRefused(await call(svc, admin, 'PUT', `${BASE}/depot/config`, { ...CONFIG, import_limit_kw: 0 }), 422, { fields: ['body.import_limit_kw'] });
  assertRefused(await call(svc, admin, 'GET', `${BASE}/elsewhere/config`), 404, 'Site not found');
});

test('series: the forecast import against the limit', async () => {
  const res = await call(svc, viewer, 'GET', `${BASE}/depot/series?hours=24`);
  assert.equal(res.statusCode, 200);
  // A demo organisation's forecast rests on its synthetic history: simulated, the forecast's method after the demo's.
  assert.equal(res.headers['x-platform-data-basis'], 'simulated');
  assert.match(String(res.headers['x-platform-method']), /^Demo organisation: simulated devices and synthetic readings\. ./);
  const s = json(res);
  assert.equal(s.half_hours.length, 48);
  assert.equal(s.half_hours_over, 4);
  assert.equal(s.half_hours[10].start, '2026-11-23T17:00:00.000Z');
  assert.deepEqual([s.half_hours[10].forecast_import_kw, s.half_hours[10].over_kw], [8, 2]);
  assert.deepEqual([s.half_hours[0].forecast_import_kw, s.half_hours[0].over_kw], [3, 0]);
  assertRefused(await call(svc, viewer, 'GET', `${BASE}/depot/series?hours=0`), 422, { fields: ['query.hours'] });
});

test('run: peaks avoided, advisory by default, dispatched in the demo realm through the verified write', async () => {
  const res = await call(svc, admin, 'POST', `${BASE}/depot/run`, { hours: 12 });
  assert.equal(res.statusCode, 200, res.body);
  const r = json(res);
  // Idle battery, EV at 7 kW at once: 10 kW in the first two half hours, 8 kW from 17:00 to 19:00.
  assert.deepEqual([r.peaks_before, r.peaks_after, r.peaks_avoided, r.max_import_before_kw], [6, 0, 6, 10]);
  assert.ok(r.max_import_after_kw <= 6 + 1e-9);
  assert.equal(r.dispatched, false);
  assert.equal(r.dispatch, null);
  for (const h of r.half_hour_plan) assert.ok(h.grid_import_kwh <= 3 + 1e-6, `${h.start}: ${h.grid_import_kwh}`);
  const ev = r.half_hour_plan.slice(0, 8).reduce((s: number, h: any) => s + h.devices[1].power_kw * 0.5, 0);
  assert.ok(Math.abs(ev - 7) < 1e-3, `EV gets its 7 kWh within 4 hours: ${ev}`);

  const d = await call(svc, admin, 'POST', `${BASE}/depot/run`, { hours: 12, dispatch: true });
  assert.equal(d.statusCode, 200, d.body);
  const dr = json(d);
  assert.equal(dr.dispatched, true);
  assert.deepEqual(
    dr.dispatch.map((x: any) => x.device_id),
    ['il-bat', 'il-ev'],
  );
  assert.ok(dr.dispatch.every((x: any) => typeof x.verdict === 'string' && x.setpoint_id));
  const sp = json(await call(svc, viewer, 'GET', '/api/hardware/ems/control/setpoints?site_id=depot'));
  assert.equal(sp.setpoints.filter((x: any) => x.source === 'optimiser').length, 2);
  const dec = json(await call(svc, viewer, 'GET', `/api/hardware/ems/decisions/${dr.decision_id}`));
  assert.equal(dec.kind, 'optimisation');
  // Replay re-solves the recorded problem: the same first half hour and peaks come out.
  const rep = json(await call(svc, admin, 'POST', `/api/hardware/ems/decisions/${dr.decision_id}/replay`));
  assert.deepEqual([rep.replayable, rep.same, rep.differences], [true, true, []]);
  assert.equal(rep.replayed.peaks_after, 0);

  const runs = json(await call(svc, viewer, 'GET', `${BASE}/depot/runs`));
  // Both runs were made at the same service time: their order between them is by run id.
  assert.deepEqual(
    runs.runs.map((x: any) => [x.run_id, x.dispatched]).sort(),
    [
      [r.run_id, false],
      [dr.run_id, true],
    ].sort(),
  );
});

test('dispatch is refused while an override holds the site, and nothing is recorded', async () => {
  const before = json(await call(svc, viewer, 'GET', `${BASE}/depot/runs`)).runs.length;
  const ov = await call(svc, admin, 'POST', '/api/hardware/ems/overrides', {
    site_id: 'depot',
    reason: 'engineer on site',
    authority: 'DNO',
    expires_at: iso(NOW + 3_600_000),
  });
  assert.equal(ov.statusCode, 201, ov.body);
  assertRefused(await call(svc, admin, 'POST', `${BASE}/depot/run`, { hours: 2, dispatch: true }), 409, 'Override active');
  assert.equal(json(await call(svc, viewer, 'GET', `${BASE}/depot/runs`)).runs.length, before);
  const advisory = await call(svc, admin, 'POST', `${BASE}/depot/run`, { hours: 2 });
  assert.equal(advisory.statusCode, 200, 'an advisory run sends nothing, so an override does not stop it');
  await call(svc, admin, 'POST', `/api/hardware/ems/overrides/${json(ov).override_id}/revoke`, { reason: 'done' });
});

test('run refusals: production dispatch, roles, bad input', async () => {
  await call(svc, prod, 'PUT', `${BASE}/depot/config`, CONFIG);
  const advisory = await call(svc, prod, 'POST', `${BASE}/depot/run`, { hours: 2 });
  assert.equal(advisory.statusCode, 200, 'advisory runs serve production organisations');
  assertRefused(await call(svc, prod, 'POST', `${BASE}/depot/run`, { hours: 2, dispatch: true }), 403, 'Demo realm only');
  assert.equal(json(await call(svc, prod, 'GET', `${BASE}/depot/runs`)).runs.length, 1, 'the refused dispatch recorded nothing');
  // dispatch=true as the query parameter the spec's wording suggests is the same request, not an
  // advisory run that silently sends nothing (decision 0192).
  assertRefused(await call(svc, prod, 'POST', `${BASE}/depot/run?dispatch=true`, { hours: 2 }), 403, 'Demo realm only');
  assert.equal(json(await call(svc, prod, 'GET', `${BASE}/depot/runs`)).runs.length, 1, 'the refused query dispatch recorded nothing');
  assertRefused(await call(svc, prod, 'POST', `${BASE}/depot/run?dispatch=maybe`, { hours: 2 }), 422, { fields: ['query.dispatch'] });
  assertRefused(await call(svc, viewer, 'POST', `${BASE}/depot/run`, {}), 403, /./);
  assertRefused(await call(svc, admin, 'POST', `${BASE}/depot/run`, { hours: 2, import_p_per_kwh: [1, 2] }), 422, { fields: ['body.import_p_per_kwh'] });
  assertRefused(await call(svc, admin, 'GET', `${BASE}/elsewhere/runs`), 404, 'Site not found');
});
