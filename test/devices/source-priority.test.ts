// Source priority (/api/hardware/source-priority, /resolve) through HTTP on a real store.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ago, auth, ingest, register } from '../registry/seed.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let admin: string;
let operator: string;
let analyst: string;
let viewer: string;
let otherAdmin: string;
const A = 'sp-a';
const B = 'sp-b';
const ts: Record<string, string> = {};

before(async () => {
  svc = await startTestService();
  await svc.createOrg(A);
  await svc.createOrg(B);
  admin = await svc.token({ orgId: A, roles: ['ORG_ADMIN'] });
  operator = await svc.token({ orgId: A, roles: ['OPERATOR'] });
  analyst = await svc.token({ orgId: A, roles: ['ANALYST'] });
  viewer = await svc.token({ orgId: A, roles: ['VIEWER'] });
  otherAdmin = await svc.token({ orgId: B, roles: ['ORG_ADMIN'] });
  await register(svc, admin, { asset_id: 'meter', site_id: 'home', asset_class: 'site_meter', name: 'Meter' });
  await register(svc, admin, { asset_id: 'ev', site_id: 'home', asset_class: 'vehicle', name: 'Car' });
  await register(svc, admin, { asset_id: 'bat', site_id: 'home', asset_class: 'battery', name: 'Battery', parent_asset_id: 'meter' });
  await register(svc, admin, { asset_id: 'old', site_id: 'home', asset_class: 'appliance', name: 'Old', parent_asset_id: 'meter' });
  await register(svc, otherAdmin, { asset_id: 'b-ev', site_id: 'home', asset_class: 'vehicle', name: 'B car' });
  ts.evTele = ago(svc, 10);
  ts.evApi = ago(svc, 20);
  ts.bat = ago(svc, 5);
  await ingest(svc, admin, [
    { asset_id: 'ev', ts: ts.evTele, soc_pct: 61, power_kw: 7, status: 'charging' },
    { asset_id: 'ev', ts: ts.evApi, soc_pct: 58, temp_c: 21, source: 'provider_api' },
    { asset_id: 'bat', ts: ts.bat, soc_pct: 40, power_kw: -2 },
    { asset_id: 'old', ts: ago(svc, 60 * 48), power_kw: 1 },
  ]);
});
after(() => svc.stop());

const put = (token: string, payload: unknown) =>
  svc.request({ method: 'PUT', url: '/api/hardware/source-priority', headers: auth(token), payload: payload as object });
const get = (token: string, url: string) => svc.request({ method: 'GET', url, headers: auth(token) });
const locs = (res: Parameters<typeof json>[0]) => json(res).detail.map((e: { loc: unknown[] }) => e.loc.join('.'));

test('GET source-priority: the four sources, the measurements, the default order; nothing configured yet', async () => {
  const res = await get(viewer, '/api/hardware/source-priority');
  assert.equal(res.statusCode, 200);
  assert.deepEqual(json(res), {
    sources: ['ocpp_heartbeat', 'provider_reading', 'telemetry', 'provider_api'],
    measurements: ['power_kw', 'soc_pct', 'voltage', 'current', 'temp_c', 'status'],
    default_order: ['telemetry', 'ocpp_heartbeat', 'provider_reading', 'provider_api'],
    priorities: [],
  });
  assertRefused(await svc.request({ method: 'GET', url: '/api/hardware/source-priority' }), 401, 'Authorization header missing');
});

test("PUT source-priority sets an asset's orders; a second PUT replaces them; an empty list resets; audited", async () => {
  let res = await put(operator, {
    asset_id: 'ev',
    priorities: [
      { measurement: 'soc_pct', sources: ['provider_api', 'telemetry'] },
      { measurement: 'power_kw', sources: ['ocpp_heartbeat'] },
    ],
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(
    json(res).priorities.map((p: { measurement: string; sources: string[] }) => [p.measurement, p.sources]),
    [
      ['power_kw', ['ocpp_heartbeat']],
      ['soc_pct', ['provider_api', 'telemetry']],
    ],
  );
  assert.equal(json(res).priorities[0].updated_at, svc.clock.now().toISOString());
  res = await get(viewer, '/api/hardware/source-priority?asset_id=ev');
  assert.equal(json(res).priorities.length, 2);

  res = await put(admin, { asset_id: 'bat', priorities: [{ measurement: 'status', sources: ['telemetry'] }] });
  res = await put(admin, { asset_id: 'bat', priorities: [] });
  assert.deepEqual(json(res).priorities, []);
  const all = json(await get(viewer, '/api/hardware/source-priority')).priorities;
  assert.deepEqual([...new Set(all.map((p: { asset_id: string }) => p.asset_id))], ['ev']);
  const audit = await svc.deps.db.query<{ n: number }>("select count(*)::int as n from audit_log where org_id = $1 and action = 'source_priority.update'", [A]);
  assert.equal(audit.rows[0].n, 3);
});

test('PUT source-priority refusals: unknown or repeated sources and measurements 422, unknown or other-organisation asset 422, roles 403', async () => {
  const cases: [unknown, string][] = [
    [{ asset_id: 'ev', priorities: [{ measurement: 'soc_pct', sources: ['carrier_pigeon'] }] }, 'body.priorities.0.sources.0'],
    [{ asset_id: 'ev', priorities: [{ measurement: 'soc_pct', sources: [] }] }, 'body.priorities.0.sources'],
    [{ asset_id: 'ev', priorities: [{ measurement: 'soc_pct', sources: ['telemetry', 'telemetry'] }] }, 'body.priorities.0.sources'],
    [{ asset_id: 'ev', priorities: [{ measurement: 'mood', sources: ['telemetry'] }] }, 'body.priorities.0.measurement'],
    [
      {
        asset_id: 'ev',
        priorities: [
          { measurement: 'soc_pct', sources: ['telemetry'] },
          { measurement: 'soc_pct', sources: ['provider_api'] },
        ],
      },
      'body.priorities.1.measurement',
    ],
    [{ asset_id: 'ev' }, 'body.priorities'],
    [{ asset_id: 'ghost', priorities: [] }, 'body.asset_id'],
  ];
  for (const [body, loc] of cases) {
    const res = await put(admin, body);
    assert.equal(res.statusCode, 422, JSON.stringify(body));
    assert.deepEqual(locs(res), [loc], JSON.stringify(body));
  }
  // B cannot configure A's asset: it does not exist for B.
  const cross = await put(otherAdmin, { asset_id: 'ev', priorities: [] });
  assert.deepEqual([cross.statusCode, locs(cross)], [422, ['body.asset_id']]);
  assert.equal(json(await get(viewer, '/api/hardware/source-priority?asset_id=ev')).priorities.length, 2, 'unchanged');
  assert.deepEqual(json(await get(otherAdmin, '/api/hardware/source-priority')).priorities, []);
  for (const t of [analyst, viewer]) {
    const res = await put(t, { asset_id: 'ev', priorities: [] });
    assert.deepEqual([res.statusCode, json(res).detail], [403, 'Insufficient permissions']);
  }
});

test('GET resolve applies the configured order per measurement, the default elsewhere; a source left out is not used', async () => {
  const res = await get(viewer, '/api/hardware/source-priority/resolve?asset_id=ev');
  assert.equal(res.statusCode, 200, res.body);
  const [ev] = json(res).assets;
  assert.deepEqual(ev.sources_seen, ['telemetry', 'provider_api']);
  assert.equal(ev.only_telemetry, false);
  assert.equal(ev.note, null);
  const m = Object.fromEntries(ev.measurements.map((x: { measurement: string }) => [x.measurement, x]));
  // soc_pct: configured provider_api first, though telemetry is newer.
  assert.deepEqual([m.soc_pct.value, m.soc_pct.source, m.soc_pct.ts, m.soc_pct.configured], [58, 'provider_api', ts.evApi, true]);
  assert.equal(m.soc_pct.candidates.length, 2);
  // power_kw: only ocpp_heartbeat is allowed and none exists.
  assert.deepEqual([m.power_kw.value, m.power_kw.source, m.power_kw.candidates.length], [null, null, 1]);
  // temp_c: default order; only provider_api has it.
  assert.deepEqual([m.temp_c.value, m.temp_c.source, m.temp_c.configured], [21, 'provider_api', false]);
  // status: default order picks telemetry.
  assert.deepEqual([m.status.value, m.status.source], ['charging', 'telemetry']);
  assert.deepEqual([m.voltage.value, m.voltage.candidates], [null, []]);
});

test('GET resolve says so where only telemetry exists, and when nothing is in the window', async () => {
  const res = await get(viewer, '/api/hardware/source-priority/resolve?site_id=home');
  const by = Object.fromEntries(json(res).assets.map((a: { asset_id: string }) => [a.asset_id, a]));
  assert.deepEqual(Object.keys(by).sort(), ['bat', 'ev', 'meter', 'old']);
  assert.equal(by.bat.only_telemetry, true);
  assert.match(by.bat.note, /Only telemetry is stored for this asset/);
  const soc = by.bat.measurements.find((x: { measurement: string }) => x.measurement === 'soc_pct');
  assert.deepEqual([soc.value, soc.source, soc.ts], [40, 'telemetry', ts.bat]);
  assert.equal(by.old.note, 'No record in the last 24 hours.');
  assert.deepEqual(by.old.sources_seen, []);
  const wide = json(await get(viewer, '/api/hardware/source-priority/resolve?asset_id=old&window_hours=72'));
  assert.equal(wide.assets[0].only_telemetry, true);
  assert.equal(wide.window.hours, 72);
});

test('GET resolve refusals: unknown or other-organisation asset 404, bad window 422, no credential 401; B sees only its own', async () => {
  assertRefused(await get(viewer, '/api/hardware/source-priority/resolve?asset_id=ghost'), 404, 'Not Found');
  const cross = await get(otherAdmin, '/api/hardware/source-priority/resolve?asset_id=ev');
  assert.deepEqual([cross.statusCode, json(cross)], [404, { detail: 'Not Found' }]);
  const theirs = json(await get(otherAdmin, '/api/hardware/source-priority/resolve'));
  assert.deepEqual(
    theirs.assets.map((a: { asset_id: string }) => a.asset_id),
    ['b-ev'],
  );
  for (const q of ['window_hours=0', 'window_hours=721', 'window_hours=x']) {
    const res = await get(viewer, `/api/hardware/source-priority/resolve?${q}`);
    assert.deepEqual([res.statusCode, locs(res)], [422, ['query.window_hours']], q);
  }
  assertRefused(await svc.request({ method: 'GET', url: '/api/hardware/source-priority/resolve' }), 401, 'Authorization header missing');
});

test('deleting an asset deletes its source priority; registering the id again starts from the default order', async () => {
  await register(svc, admin, { asset_id: 'tmp', site_id: 'home', asset_class: 'appliance', name: 'Tmp', parent_asset_id: 'meter' });
  assert.equal((await put(admin, { asset_id: 'tmp', priorities: [{ measurement: 'power_kw', sources: ['provider_api'] }] })).statusCode, 200);
  assert.equal((await svc.request({ method: 'DELETE', url: '/api/twin/registry/assets/tmp', headers: auth(admin) })).statusCode, 204);
  await register(svc, admin, { asset_id: 'tmp', site_id: 'home', asset_class: 'appliance', name: 'Tmp again', parent_asset_id: 'meter' });
  assert.deepEqual(json(await get(viewer, '/api/hardware/source-priority?asset_id=tmp')).priorities, []);
});
