// Device listings (/api/hardware/...): readings, last_reported_at/_source, last_seen_at, health,
// vehicle telemetry and telematics, through HTTP on a real store with telemetry sent to ingestion.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ago, auth, clockOf, ingest, register } from '../registry/seed.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let admin: string;
let viewer: string;
let otherAdmin: string;
const LONG = '3650d';
const A = 'dev-a';
const B = 'dev-b';
let registeredAt: string;
const ts: Record<string, string> = {};

before(async () => {
  svc = await startTestService();
  await svc.createOrg(A);
  await svc.createOrg(B);
  admin = await svc.token({ orgId: A, roles: ['ORG_ADMIN'], expiresIn: LONG });
  viewer = await svc.token({ orgId: A, roles: ['VIEWER'], expiresIn: LONG });
  otherAdmin = await svc.token({ orgId: B, roles: ['ORG_ADMIN'], expiresIn: LONG });

  registeredAt = svc.clock.now().toISOString();
  const reg = (asset_id: string, asset_class: string, site_id = 'home', parent_asset_id?: string) =>
    register(svc, admin, { asset_id, asset_class, site_id, name: `${asset_class} ${asset_id}`, ...(parent_asset_id && { parent_asset_id }) });
  await reg('meter', 'smart_meter');
  await reg('cp-1', 'charger', 'home', 'meter');
  await reg('cp-quiet', 'charger', 'home', 'meter');
  await reg('pv', 'inverter', 'home', 'meter');
  await reg('bat', 'battery', 'home', 'pv');
  await reg('hp', 'heat_pump', 'home', 'meter');
  await reg('van-1', 'vehicle', 'depot');
  await reg('van-2', 'vehicle', 'depot');
  await reg('van-quiet', 'vehicle', 'depot');
  await reg('dish', 'appliance', 'home', 'meter');
  // B has its own charger with the same id space.
  await register(svc, otherAdmin, { asset_id: 'cp-b', asset_class: 'charger', site_id: 'home', name: 'B charger' });

  // Time passes between registration and the first telemetry.
  clockOf(svc).advance(30 * 60_000);
  ts.cp = ago(svc, 1);
  ts.meter = ago(svc, 2);
  ts.pv = ago(svc, 3);
  ts.bat = ago(svc, 4);
  ts.hp = ago(svc, 90);
  ts.van1pos = ago(svc, 20);
  ts.van1 = ago(svc, 5);
  ts.dish = ago(svc, 60 * 30);
  await ingest(svc, admin, [
    { asset_id: 'cp-1', ts: ts.cp, power_kw: 7.4, status: 'Charging', source: 'ocpp_heartbeat', session_kwh: 12.5, connector_status: 'Occupied' },
    { asset_id: 'meter', ts: ts.meter, power_kw: -2.5, voltage: 241.2, source: 'provider_reading' },
    { asset_id: 'pv', ts: ts.pv, power_kw: -3.2, status: 'producing' },
    { asset_id: 'bat', ts: ts.bat, power_kw: -1.5, soc_pct: 64 },
    { asset_id: 'hp', ts: ts.hp, power_kw: 2.1, temp_c: 45, return_temp_c: 38, energy_kwh: 3.3 },
    { asset_id: 'van-1', ts: ts.van1pos, lat: 51.5072, lon: -0.1276, ignition: true, soc_pct: 80 },
    { asset_id: 'van-1', ts: ts.van1, soc_pct: 78, source: 'provider_api', range_km: 210, plugged_in: false, ignition: 'off' },
    { asset_id: 'van-2', ts: ago(svc, 6), latitude: 95, longitude: 10, soc_pct: 50 },
    { asset_id: 'dish', ts: ts.dish, power_kw: 1.1, on: true },
  ]);
  // Requests come later than every record.
  clockOf(svc).advance(60_000);
});
after(() => svc.stop());

const get = async (token: string, url: string) => {
  const res = await svc.request({ method: 'GET', url, headers: auth(token) });
  return { status: res.statusCode, body: res.statusCode === 200 ? json(res) : json(res) };
};
const byId = (rows: { asset_id: string }[]) => Object.fromEntries(rows.map((r) => [r.asset_id, r])) as Record<string, any>;

test('GET /api/hardware/chargers: readings, last_reported_at is the record time with Z, source from the record, last_seen_at the connect time', async () => {
  const { status, body } = await get(viewer, '/api/hardware/chargers');
  assert.equal(status, 200);
  assert.equal(body.count, 2);
  const rows = byId(body.devices);
  const cp = rows['cp-1'];
  assert.equal(cp.last_reported_at, ts.cp);
  assert.match(cp.last_reported_at, /Z$/);
  assert.notEqual(cp.last_reported_at, svc.clock.now().toISOString());
  assert.equal(cp.last_reported_source, 'ocpp_heartbeat');
  assert.equal(cp.last_seen_at, registeredAt, 'connect time, not moved by telemetry');
  assert.deepEqual(cp.readings, {
    power_kw: 7.4,
    soc_pct: null,
    voltage: null,
    current: null,
    temp_c: null,
    status: 'Charging',
    session_kwh: 12.5,
    connector_status: 'Occupied',
  });
  assert.equal(cp.connectivity, 'online');
  assert.equal(cp.freshness, 'live');
});

test('a device that never reported: last_reported_at and last_reported_source null, readings all null, last_seen_at set', async () => {
  const rows = byId((await get(viewer, '/api/hardware/chargers')).body.devices);
  const q = rows['cp-quiet'];
  assert.equal(q.last_reported_at, null);
  assert.equal(q.last_reported_source, null);
  assert.equal(q.last_seen_at, registeredAt);
  assert.equal(q.connectivity, 'never_reported');
  assert.ok(
    Object.values(q.readings).every((v) => v === null),
    JSON.stringify(q.readings),
  );
  const vans = byId((await get(viewer, '/api/hardware/vehicles')).body.devices);
  assert.equal(vans['van-quiet'].last_reported_at, null);
  assert.equal(vans['van-quiet'].last_reported_source, null);
});

test('GET /api/hardware/solar, /battery, /heatpump, /smartmeter, /appliances: class readings from the newest record', async () => {
  const solar = byId((await get(viewer, '/api/hardware/solar')).body.devices);
  assert.deepEqual(Object.keys(solar), ['pv']);
  assert.equal(solar.pv.readings.generation_kw, 3.2);
  assert.equal(solar.pv.readings.status, 'producing');
  assert.equal(solar.pv.last_reported_at, ts.pv);

  const bat = byId((await get(viewer, '/api/hardware/battery')).body.devices).bat;
  assert.equal(bat.readings.soc_pct, 64);
  assert.equal(bat.readings.mode, 'discharging');
  assert.equal(bat.parent_asset_id, 'pv');

  const hp = byId((await get(viewer, '/api/hardware/heatpump')).body.devices).hp;
  assert.deepEqual([hp.readings.flow_temp_c, hp.readings.return_temp_c, hp.readings.energy_kwh], [45, 38, 3.3]);
  assert.equal(hp.freshness, 'stale');

  const meter = byId((await get(viewer, '/api/hardware/smartmeter')).body.devices).meter;
  assert.deepEqual([meter.readings.import_kw, meter.readings.export_kw, meter.readings.voltage], [0, 2.5, 241.2]);
  assert.equal(meter.last_reported_source, 'provider_reading');

  const dish = byId((await get(viewer, '/api/hardware/appliances')).body.devices).dish;
  assert.equal(dish.readings.on, true);
  assert.equal(dish.freshness, 'silent');
  assert.equal(dish.last_reported_at, ts.dish);
});

test('GET /api/hardware/vehicles and /vehicles/telemetry/all: readings and the newest record in full', async () => {
  const vans = byId((await get(viewer, '/api/hardware/vehicles')).body.devices);
  assert.deepEqual(Object.keys(vans).sort(), ['van-1', 'van-2', 'van-quiet']);
  assert.equal(vans['van-1'].readings.soc_pct, 78);
  assert.equal(vans['van-1'].readings.range_km, 210);
  assert.equal(vans['van-1'].readings.plugged_in, false);
  assert.equal(vans['van-1'].last_reported_source, 'provider_api');
  const all = byId((await get(viewer, '/api/hardware/vehicles/telemetry/all')).body.devices);
  assert.equal(all['van-1'].telemetry.ts, ts.van1);
  assert.equal(all['van-1'].telemetry.raw.range_km, 210);
  assert.equal(all['van-1'].telemetry.source, 'provider_api');
  assert.equal(all['van-quiet'].telemetry, null);
  assert.equal(all['van-quiet'].last_reported_at, null);
});

test('GET /api/hardware/fleet/telematics/vehicles: newest measured position and ignition, each with its own time', async () => {
  const { status, body } = await get(viewer, '/api/hardware/fleet/telematics/vehicles');
  assert.equal(status, 200);
  const v = byId(body.vehicles);
  assert.deepEqual(v['van-1'].position, { lat: 51.5072, lon: -0.1276, measured_at: ts.van1pos });
  assert.deepEqual(v['van-1'].ignition, { on: false, measured_at: ts.van1 });
  assert.equal(v['van-1'].last_reported_at, ts.van1);
  assert.equal(v['van-2'].position, null, 'latitude 95 is out of range');
  assert.equal(v['van-2'].ignition, null);
  assert.equal(v['van-quiet'].position, null);
  assert.equal(v['van-quiet'].last_reported_at, null);
  assert.equal(v['van-quiet'].last_seen_at, registeredAt);
});

test('GET /api/hardware/devices/health: every registered device with connectivity; summary; filters', async () => {
  const { status, body } = await get(viewer, '/api/hardware/devices/health');
  assert.equal(status, 200);
  assert.equal(body.count, 10);
  const rows = byId(body.devices);
  assert.equal(rows['cp-1'].status, 'Charging');
  assert.equal(rows['cp-1'].age_seconds, 120);
  assert.equal(rows['van-quiet'].age_seconds, null);
  assert.equal(rows['van-quiet'].status, null);
  assert.deepEqual(body.summary, { online: 6, offline: 2, never_reported: 2 });
  const offline = (await get(viewer, '/api/hardware/devices/health?connectivity=offline')).body;
  assert.deepEqual(offline.devices.map((d: { asset_id: string }) => d.asset_id).sort(), ['dish', 'hp']);
  const depot = (await get(viewer, '/api/hardware/devices/health?site_id=depot')).body;
  assert.deepEqual(depot.summary, { online: 2, offline: 0, never_reported: 1 });
});

test("listings answer only the caller's organisation, filter by site, and refuse bad input and missing credentials", async () => {
  const paths = [
    'chargers',
    'solar',
    'battery',
    'heatpump',
    'smartmeter',
    'vehicles',
    'vehicles/telemetry/all',
    'appliances',
    'devices/health',
    'fleet/telematics/vehicles',
  ];
  for (const p of paths) {
    const url = `/api/hardware/${p}`;
    const theirs = await get(otherAdmin, url);
    assert.equal(theirs.status, 200, url);
    const rows = theirs.body.devices ?? theirs.body.vehicles;
    assert.ok(
      rows.every((r: { asset_id: string }) => r.asset_id === 'cp-b'),
      `${url}: ${JSON.stringify(rows)}`,
    );
    assertRefused(await svc.request({ method: 'GET', url }), 401, 'Authorization header missing', url);
    assertRefused(await get(viewer, `${url}?site_id=`), 422, { fields: ['query.site_id'] }, url);
    assert.equal((await get(viewer, `${url}?site_id=nowhere`)).body.count, 0, url);
  }
  const bad = await get(viewer, '/api/hardware/devices/health?connectivity=sleepy');
  assert.equal(bad.status, 422);
  assert.deepEqual(
    bad.body.detail.map((e: { loc: string[] }) => e.loc.join('.')),
    ['query.connectivity'],
  );
});

test('last_reported_at stays the record time as the clock moves; last_seen_at does not move when telemetry arrives', async () => {
  const before = byId((await get(viewer, '/api/hardware/chargers')).body.devices)['cp-1'];
  clockOf(svc).advance(2 * 3600_000);
  const later = byId((await get(viewer, '/api/hardware/chargers')).body.devices)['cp-1'];
  assert.equal(later.last_reported_at, before.last_reported_at);
  assert.equal(later.freshness, 'stale');
  assert.equal(later.connectivity, 'offline');
  const newTs = ago(svc, 0.5);
  await ingest(svc, admin, [{ asset_id: 'cp-quiet', ts: newTs, power_kw: 0, status: 'Available' }]);
  const quiet = byId((await get(viewer, '/api/hardware/chargers')).body.devices)['cp-quiet'];
  assert.equal(quiet.last_reported_at, newTs);
  assert.equal(quiet.last_reported_source, 'telemetry');
  assert.equal(quiet.last_seen_at, registeredAt);
});
