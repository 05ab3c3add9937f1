// Awareness through HTTP with a fake Agile upstream (prices live) and a dead carbon upstream
// (carbon missing): layer statuses with why, the grid view, a shadow plan recorded and never sent,
// and a tariff schedule on Agile prices from the market adapter.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { startFakeTariff, type FakeTariff } from '../helpers/fake-market.ts';
import { asset, call, clockOf, HH, ingest, iso, json, refresh, tokenFor } from '../energy/helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

const A = '/api/optimiser/v2x/ai-brain/awareness';
const NOW = Date.parse('2026-11-23T12:00:00Z');
let svc: TestService;
let fake: FakeTariff;
let admin: string;
let viewer: string;
let other: string;

before(async () => {
  fake = await startFakeTariff();
  svc = await startTestService({
    clock: new ManualClock(iso(NOW)),
    // One sample a half hour: the energy ledger joins samples up to 30 minutes apart.
    env: {
      TARIFF_API_BASE_URL: fake.url,
      CARBON_API_BASE_URL: 'http://127.0.0.1:9',
      UPSTREAM_TIMEOUT_MS: '2000',
      UPSTREAM_RETRY_BASE_MS: '1',
      UPSTREAM_RETRIES: '0',
      ENERGY_POWER_GAP_SECONDS: '1800',
    },
  });
  await svc.createOrg('org-aw');
  await svc.createOrg('org-ax');
  admin = await tokenFor(svc, 'org-aw');
  viewer = await tokenFor(svc, 'org-aw', 'VIEWER');
  other = await tokenFor(svc, 'org-ax');
  await asset(svc, admin, { asset_id: 'aw-meter', site_id: 'aw', asset_class: 'site_meter' });
  await asset(svc, admin, { asset_id: 'aw-bat', site_id: 'aw', asset_class: 'battery', parent_asset_id: 'aw-meter' });
  const records = [];
  for (let t = NOW - 86_400_000 - HH; t < NOW; t += HH)
    records.push({ device_id: 'aw-meter', ts: iso(t + 600_000), power_kw: new Date(t).getUTCHours() >= 17 && new Date(t).getUTCHours() < 19 ? 9 : 4 });
  // The battery idles at 0 kW, so the ledger's consumption (derived from the balance) is known; it
  // last reported 80 minutes ago, so it is not fresh (device availability falls back) and the
  // ledger's last complete half hour is 10:00.
  for (let t = NOW - 86_400_000 - HH; t <= NOW - 3 * HH; t += HH) records.push({ device_id: 'aw-bat', ts: iso(t + 600_000), power_kw: 0 });
  await ingest(svc, admin, records);
  // Forecasting reads the energy ledger: the refresh folds the readings in.
  await refresh(svc);
  clockOf(svc).set(NOW);
  const cfg = await call(svc, admin, 'PUT', '/api/optimiser/import-limit/aw/config', {
    import_limit_kw: 7,
    assets: [{ device_id: 'aw-bat', kind: 'battery', max_power_kw: 3, capacity_kwh: 8, initial_soc_pct: 50 }],
  });
  assert.equal(cfg.statusCode, 200, cfg.body);
});
after(async () => {
  await svc?.stop();
  await fake?.close();
});

test('catalogue and settings', async () => {
  const c = await call(svc, viewer, 'GET', `${A}/catalogue`);
  assert.equal(c.statusCode, 200);
  assert.deepEqual(
    json(c).layers.map((l: any) => l.layer),
    ['prices', 'carbon', 'site_forecast', 'grid_constraints', 'flexibility_tenders', 'device_availability'],
  );
  const s = json(await call(svc, viewer, 'GET', `${A}/settings`));
  assert.equal(s.shadow_only, true);
  assert.equal(s.default_region, 'C');
  assertRefused(await call(svc, null, 'GET', `${A}/catalogue`), 401, /./);
  assertRefused(await call(svc, null, 'GET', `${A}/settings`), 401, /./);
});

test('layers: live, fallback and missing, each with why', async () => {
  const res = await call(svc, viewer, 'GET', `${A}/layers?site_id=aw`);
  assert.equal(res.statusCode, 200, res.body);
  const by = Object.fromEntries(json(res).layers.map((l: any) => [l.layer, l]));
  assert.equal(by.prices.status, 'live');
  assert.equal(by.carbon.status, 'missing');
  assert.match(by.carbon.why, /did not answer/);
  assert.equal(by.site_forecast.status, 'live');
  assert.equal(by.grid_constraints.status, 'live');
  assert.match(by.grid_constraints.why, /7 kW/);
  assert.equal(by.device_availability.status, 'fallback', 'the battery has not reported for 80 minutes');
  assert.equal(by.flexibility_tenders.status, 'missing');
  const none = json(await call(svc, viewer, 'GET', `${A}/layers`));
  assert.equal(none.layers.find((l: any) => l.layer === 'site_forecast').why, 'No site_id given');
  assertRefused(await call(svc, other, 'GET', `${A}/layers?site_id=aw`), 404, 'Site not found');
});

test('grid view: the limit against the forecast peak', async () => {
  const g = json(await call(svc, viewer, 'GET', `${A}/grid?site_id=aw`));
  assert.deepEqual([g.import_limit_kw, g.forecast_peak_import_kw, g.headroom_kw, g.half_hours_over], [7, 9, -2, 4]);
  assertRefused(await call(svc, viewer, 'GET', `${A}/grid`), 422, { fields: ['query.site_id'] });
  assertRefused(await call(svc, other, 'GET', `${A}/grid?site_id=aw`), 404, 'Site not found');
});

test('shadow plan: computed on live prices, recorded, never sent; latest reads it back', async () => {
  assertRefused(await call(svc, viewer, 'GET', `${A}/plan/latest`), 404, 'No plan yet');
  const res = await call(svc, admin, 'POST', `${A}/plan`, { site_id: 'aw', hours: 12 });
  assert.equal(res.statusCode, 200, res.body);
  const p = json(res);
  assert.deepEqual([p.shadow, p.sent], [true, false]);
  assert.equal(p.half_hour_plan.length, 24);
  assert.ok(Number(p.cost_gbp) <= Number(p.cost_do_nothing_gbp));
  // Import stays under 7 kW: the battery covers the 9 kW evening.
  assert.ok(p.half_hour_plan.every((h: any) => h.grid_import_kwh <= 3.5 + 1e-6));
  const latest = json(await call(svc, viewer, 'GET', `${A}/plan/latest`));
  assert.equal(latest.plan_id, p.plan_id);
  assert.deepEqual(latest.half_hour_plan, p.half_hour_plan);
  // Nothing was sent: no setpoint exists.
  const sp = json(await call(svc, viewer, 'GET', '/api/hardware/ems/control/setpoints'));
  assert.equal(sp.setpoints.length, 0);
  assertRefused(await call(svc, viewer, 'POST', `${A}/plan`, { site_id: 'aw' }), 403, /./);
  assertRefused(await call(svc, other, 'POST', `${A}/plan`, { site_id: 'aw' }), 404, 'Site not found');
  assertRefused(await call(svc, admin, 'POST', `${A}/plan`, { site_id: 'aw', hours: 0 }), 422, { fields: ['body.hours'] });
  assertRefused(await call(svc, other, 'GET', `${A}/plan/latest`), 404, 'No plan yet');
});

test('a tariff schedule on Agile prices from the market adapter', async () => {
  const res = await call(svc, admin, 'POST', '/api/optimiser/tariff-schedule/aw/run', {
    hours: 24,
    batteries: [{ device_id: 'aw-bat', capacity_kwh: 8, max_charge_kw: 3, initial_soc_pct: 50 }],
    prices: { source: 'agile', region: 'C' },
    include_site_forecast: true,
  });
  assert.equal(res.statusCode, 200, res.body);
  const r = json(res);
  assert.match(r.price_source, /^Agile/);
  assert.equal(r.half_hour_plan.length, 48);
  assert.ok(r.half_hour_plan.every((h: any) => h.import_p_per_kwh > 0));
  assert.ok(Number(r.saving_vs_do_nothing_gbp) >= 0);
  assert.ok(Number(r.saving_vs_simple_rule_gbp) >= -0.005);
});
