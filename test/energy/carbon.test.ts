// Carbon and Scope 2 through HTTP, with figures worked by hand: one site importing 12.345 kWh in one
// half hour on 1 June of each DESNZ year (2022 to 2025), a REGO-backed supply for 2025, and a day of
// grid intensity from a loopback carbon intensity API.
//   location-based: 12.345 × 0.19338 = 2.38727… → 2.387 kg (2022); × 0.20707 = 2.55628… → 2.556 (2023);
//   × 0.20705 = 2.55603… → 2.556 (2024); × 0.17700 = 2.185065 → 2.185 (2025).
//   T&D (Scope 3): × 0.01769 = 0.21838… → 0.218 (2022); × 0.01792 = 0.22122… → 0.221 (2023); none published 2024, 2025.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { startFakeCarbon, type FakeCarbon } from '../helpers/fake-market.ts';
import { asset, call, ingest, json, refresh, tokenFor } from './helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let fake: FakeCarbon;
let admin: string;
let viewer: string;
let other: string;
const clock = new ManualClock('2026-12-05T12:00:00Z');

before(async () => {
  fake = await startFakeCarbon(() => clock.now().getTime());
  svc = await startTestService({
    clock,
    env: { CARBON_API_BASE_URL: fake.url, TARIFF_API_BASE_URL: 'http://127.0.0.1:9', UPSTREAM_TIMEOUT_MS: '500', UPSTREAM_RETRY_BASE_MS: '1' },
  });
  await svc.createOrg('org-c');
  await svc.createOrg('org-d');
  admin = await tokenFor(svc, 'org-c');
  viewer = await tokenFor(svc, 'org-c', 'VIEWER');
  other = await tokenFor(svc, 'org-d');
  await asset(svc, admin, { asset_id: 'c-meter', site_id: 'office', asset_class: 'site_meter' });
  const recs = [];
  let v = 1000;
  for (const y of [2022, 2023, 2024, 2025]) {
    recs.push({ device_id: 'c-meter', ts: `${y}-06-01T10:00:00Z`, import_kwh: v, export_kwh: 0 });
    v = Math.round((v + 12.345) * 1000) / 1000;
    recs.push({ device_id: 'c-meter', ts: `${y}-06-01T10:30:00Z`, import_kwh: v, export_kwh: 0 });
  }
  // 20 November 2026: 2 kWh in the half hour from 17:00Z and 1 kWh in the next.
  recs.push({ device_id: 'c-meter', ts: '2026-11-20T17:00:00Z', import_kwh: 2000, export_kwh: 0 });
  recs.push({ device_id: 'c-meter', ts: '2026-11-20T17:30:00Z', import_kwh: 2002, export_kwh: 0 });
  recs.push({ device_id: 'c-meter', ts: '2026-11-20T18:00:00Z', import_kwh: 2003, export_kwh: 0 });
  await ingest(svc, admin, recs);
  await refresh(svc);
});

after(async () => {
  await svc?.stop();
  await fake?.close();
});

test('factor versions as published, with their sources, and the changes between them', async () => {
  const v = json(await call(svc, viewer, 'GET', '/api/hardware/ems/scope2/factors/versions'));
  assert.deepEqual(
    v.versions.map((x: any) => [x.year, x.generation_kg_per_kwh, x.td_kg_per_kwh, x.confidence]),
    [
      [2022, '0.19338', '0.01769', 'third-party quotation'],
      [2023, '0.20707', '0.01792', 'third-party quotation'],
      [2024, '0.20705', null, 'unconfirmed'],
      [2025, '0.17700', null, 'unconfirmed'],
    ],
  );
  assert.match(v.versions[1].source, /conversion factors 2023/);
  const c = json(await call(svc, viewer, 'GET', '/api/hardware/ems/scope2/factors/changes'));
  assert.deepEqual(
    c.changes.map((x: any) => [x.from_year, x.to_year, x.generation_change, x.generation_change_pct]),
    [
      [2022, 2023, '0.01369', 7.08],
      [2023, 2024, '-0.00002', -0.01],
      [2024, 2025, '-0.03005', -14.51],
    ],
  );
});

test('Scope 2 location-based for each DESNZ year, to the gram; T&D apart where published', async () => {
  const expected: Record<number, [string, string | null]> = {
    2022: ['2.387', '0.218'],
    2023: ['2.556', '0.221'],
    2024: ['2.556', null],
    2025: ['2.185', null],
  };
  for (const [year, [kg, td]] of Object.entries(expected)) {
    const res = await call(svc, viewer, 'GET', `/api/hardware/ems/scope2?year=${year}`);
    assert.equal(res.statusCode, 200, res.body);
    const b = json(res);
    assert.equal(b.import_kwh, '12.345');
    assert.equal(b.location_based_kg, kg, `location ${year}`);
    assert.equal(b.td_losses_scope3_kg, td, `T&D ${year}`);
    assert.equal(b.market_based_kg, kg, 'no instrument: the location factor stands in');
    assert.equal(b.market_based_uncovered_import_kwh, '12.345');
    assert.equal(b.factor.year, Number(year));
    assert.equal(b.factor.note, null);
  }
  const early = await call(svc, viewer, 'GET', '/api/hardware/ems/scope2?year=2019');
  assertRefused(early, 422, { fields: ['query.year'] });
  const later = json(await call(svc, viewer, 'GET', '/api/hardware/ems/scope2?year=2026'));
  assert.equal(later.factor.year, 2025);
  assert.match(later.factor.note, /2025 set is used/);
});

test('market-based with a REGO-backed supply: POST the factor, GET lists it, 2025 is covered at 0 kg/kWh', async () => {
  const bad = await call(svc, admin, 'POST', '/api/hardware/ems/scope2/market-factors', {
    instrument: 'rego',
    name: 'x',
    kg_per_kwh: '0.1234567',
    valid_from: '2025-01-01',
  });
  assertRefused(bad, 422, { fields: ['body.kg_per_kwh'] });
  // Days the calendar lacks are field errors, not a 500 from the store's date columns.
  assertRefused(
    await call(svc, admin, 'POST', '/api/hardware/ems/scope2/market-factors', { instrument: 'rego', name: 'x', kg_per_kwh: '0', valid_from: '2025-02-30' }),
    422,
    { fields: ['body.valid_from'] },
  );
  assertRefused(
    await call(svc, admin, 'POST', '/api/hardware/ems/scope2/market-factors', {
      instrument: 'rego',
      name: 'x',
      kg_per_kwh: '0',
      valid_from: '2025-01-01',
      valid_to: '2025-13-01',
    }),
    422,
    { fields: ['body.valid_to'] },
  );
  assertRefused(
    await call(svc, admin, 'POST', '/api/hardware/ems/scope2/market-factors', { instrument: 'rego', name: 'x', kg_per_kwh: '0', valid_from: '0000-01-01' }),
    422,
    { fields: ['body.valid_from'] },
  );
  assertRefused(await call(svc, viewer, 'GET', '/api/hardware/usage/carbon?from=0001-01-01&to=0001-02-01'), 422, { fields: ['query.from'] });
  const v = await call(svc, viewer, 'POST', '/api/hardware/ems/scope2/market-factors', {
    instrument: 'rego',
    name: 'x',
    kg_per_kwh: '0',
    valid_from: '2025-01-01',
  });
  assertRefused(v, 403, 'Insufficient permissions');
  const res = await call(svc, admin, 'POST', '/api/hardware/ems/scope2/market-factors', {
    instrument: 'rego',
    name: 'Green supply 2025',
    kg_per_kwh: '0',
    valid_from: '2025-01-01',
    valid_to: '2025-12-31',
    evidence: 'REGO R12345',
  });
  assert.equal(res.statusCode, 201, res.body);
  const list = json(await call(svc, viewer, 'GET', '/api/hardware/ems/scope2/market-factors'));
  assert.equal(list.factors.length, 1);
  assert.equal(list.factors[0].name, 'Green supply 2025');
  assert.deepEqual(json(await call(svc, other, 'GET', '/api/hardware/ems/scope2/market-factors')).factors, []);
  const b = json(await call(svc, viewer, 'GET', '/api/hardware/ems/scope2?year=2025'));
  assert.equal(b.location_based_kg, '2.185');
  assert.equal(b.market_based_kg, '0.000');
  assert.equal(b.market_based_uncovered_import_kwh, '0.000');
  assert.deepEqual(
    b.market_instruments_used.map((x: any) => x.name),
    ['Green supply 2025'],
  );
  const site = await call(svc, admin, 'POST', '/api/hardware/ems/scope2/market-factors', {
    site_id: 'elsewhere',
    instrument: 'ppa',
    name: 'x',
    kg_per_kwh: '0',
    valid_from: '2025-01-01',
  });
  assertRefused(site, 404, 'Site not found');
});

test('avoided emissions and usage/carbon by month; another organisation sees none of it', async () => {
  const a = json(await call(svc, viewer, 'GET', '/api/hardware/ems/scope2/avoided?year=2025'));
  assert.equal(a.generation_kwh, '0.000');
  assert.equal(a.avoided_kg, '0.000');
  assert.match(a.method, /never|Not a Scope 2 reduction/);
  const u = json(await call(svc, viewer, 'GET', '/api/hardware/usage/carbon?period=month&from=2024-05-01&to=2025-06-30'));
  assert.deepEqual(
    u.buckets.map((b: any) => [b.label, b.import_kwh, b.location_based_kg, b.factor_years]),
    [
      ['2024-06-01', '12.345', '2.556', [2024]],
      ['2025-06-01', '12.345', '2.185', [2025]],
    ],
  );
  assert.equal(u.buckets[0].period_start, '2024-05-31T23:00:00.000Z');
  const w = json(await call(svc, viewer, 'GET', '/api/hardware/usage/carbon?period=week&from=2025-06-01&to=2025-06-07'));
  assert.deepEqual(
    w.buckets.map((b: any) => b.label),
    ['2025-05-26'],
  ); // 1 June 2025 is a Sunday; its week starts Monday 26 May
  assertRefused(await call(svc, viewer, 'GET', '/api/hardware/usage/carbon?period=year'), 422, { fields: ['query.period'] });
  const o = json(await call(svc, other, 'GET', '/api/hardware/usage/carbon?period=month&from=2024-05-01&to=2025-06-30'));
  assert.deepEqual(o.buckets, []);
  assertRefused(await call(svc, other, 'GET', '/api/hardware/ems/scope2?year=2025&site_id=office'), 404, 'Site not found');
});

test("half-hourly grid intensity for a UK day from the carbon provider, and a site's import weighted by it", async () => {
  const res = await call(svc, viewer, 'GET', '/api/hardware/ems/scope2/intensity?date=2026-11-20&site_id=office');
  assert.equal(res.statusCode, 200, res.body);
  const b = json(res);
  assert.equal(b.half_hours.length, 48);
  const h = b.half_hours[34];
  // The fake's forecast is 60 + 4 × (half hour of the UTC day); past half hours have actual = forecast - 3.
  assert.deepEqual(
    [h.period_start, h.settlement_period, h.forecast_g_per_kwh, h.actual_g_per_kwh, h.data_basis, h.import_kwh],
    ['2026-11-20T17:00:00.000Z', 35, 196, 193, 'measured', '2.000'],
  );
  // (2 × 193 + 1 × 197) / 3 = 194.33 g/kWh; 0.386 + 0.197 = 0.583 kg.
  assert.deepEqual(b.site, { site_id: 'office', import_kwh: '3.000', weighted_g_per_kwh: 194.3, import_kg: '0.583' });
  fake.mode = 'down';
  const down = await call(svc, viewer, 'GET', '/api/hardware/ems/scope2/intensity?date=2026-11-21');
  fake.mode = 'ok';
  assert.equal(down.statusCode, 502);
  assert.equal(json(down).detail, 'Carbon Intensity API error');
});
