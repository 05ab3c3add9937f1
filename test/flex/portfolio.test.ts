// Fleet portfolio: aggregate capacity from the asset registry (table assets, migration 0300),
// seeded through the registry's own operation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
const ORG = 'fleet-org';
const OTHER = 'fleet-other';

before(async () => {
  svc = await startTestService();
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
});
after(() => svc.stop());

async function asset(org: string, site_id: string, type: string, details?: Record<string, unknown>) {
  const token = await svc.token({ orgId: org, roles: ['OPERATOR'] });
  const r = await svc.request({
    method: 'POST',
    url: '/api/twin/',
    headers: { authorization: `Bearer ${token}` },
    payload: { site_id, type, name: `${type} at ${site_id}`, ...(details && { details }) },
  });
  assert.equal(r.statusCode, 201, r.body);
}

async function portfolio(org: string, role: 'VIEWER' | 'ORG_ADMIN' = 'VIEWER') {
  const token = await svc.token({ orgId: org, roles: [role] });
  return svc.request({ method: 'GET', url: '/api/vpp/vpp/portfolio', headers: { authorization: `Bearer ${token}` } });
}

test('portfolio: an empty fleet is zero, with the assumption and method stated', async () => {
  const res = await portfolio('fleet-empty-' + Date.now().toString(36)); // an organisation with no assets
  assert.equal(res.statusCode, 200, res.body);
  const body = json(res);
  assert.equal(body.asset_count, 0);
  assert.equal(body.total_capacity_mw, 0);
  assert.equal(body.available_capacity_mw, 0);
  assert.equal(body.availability_rate, 0.8);
  assert.equal(body.regions_segmented, false);
  assert.equal(body.data_basis.basis, 'calculated');
  assert.match(body.data_basis.method, /80%/);
});

test('portfolio: rated power from the documented details keys, meters and assets without a rating left out, 80% available', async () => {
  await asset(ORG, 'site-1', 'battery', { rated_power_kw: 5, energy_capacity_kwh: 13.5 });
  await asset(ORG, 'site-1', 'inverter', { capacity_kw: '3.68' });
  await asset(ORG, 'site-2', 'battery', { rated_power_mw: 1.5 });
  await asset(ORG, 'site-2', 'charger', { max_power_kw: 22 });
  await asset(ORG, 'site-2', 'smart-meter', { capacity_kw: 100 });
  await asset(ORG, 'site-3', 'heat-pump', { notes: 'no rating' });
  await asset(ORG, 'site-3', 'vehicle', { rated_power_kw: -7 });
  await asset(OTHER, 'site-x', 'battery', { rated_power_kw: 1000 });
  const res = await portfolio(ORG);
  assert.equal(res.statusCode, 200);
  const body = json(res);
  assert.equal(body.asset_count, 7);
  assert.equal(body.counted_assets, 4);
  assert.equal(body.uncounted_assets, 3);
  assert.equal(body.sites, 2);
  // 5 + 3.68 + 1500 + 22 kW = 1530.68 kW
  assert.equal(body.total_capacity_mw, 1.53068);
  assert.equal(body.available_capacity_mw, 1.224544);
  assert.equal(body.availability_rate, 0.8);
  assert.deepEqual(
    body.by_type.map((t: { type: string; assets: number; capacity_mw: number }) => [t.type, t.assets, t.capacity_mw]),
    [
      ['battery', 2, 1.505],
      ['charger', 1, 0.022],
      ['inverter', 1, 0.00368],
    ],
  );
  assert.deepEqual(body.regions, [{ region: 'unsegmented', total_capacity_mw: 1.53068, available_capacity_mw: 1.224544, assets: 4 }]);
  assert.deepEqual(body.capacity_keys, ['rated_power_kw', 'capacity_kw', 'max_power_kw', 'power_rating_kw', 'rated_power_mw', 'capacity_mw']);
  const other = json(await portfolio(OTHER, 'ORG_ADMIN'));
  assert.equal(other.total_capacity_mw, 1, 'each organisation sees its own fleet only');
});

test('portfolio: no credential is 401; the operation is documented as calculated', async () => {
  const r = await svc.request({ method: 'GET', url: '/api/vpp/vpp/portfolio' });
  assertRefused(r, 401, 'Authorization header missing');
  const doc = json(await svc.request({ method: 'GET', url: '/openapi.json' }));
  const op = doc.paths['/api/vpp/vpp/portfolio'].get;
  assert.equal(op['x-platform-status'], 'live');
  assert.equal(op['x-platform-data-basis'], 'calculated');
  assert.match(op['x-platform-method'], /80%/);
});
