// Timestamps far from the service clock (decision 0048): a record dated more than 24 h after its
// arrival (ts_in_future, e.g. year 9999) is stored and listed in live events but never becomes a
// device's newest reading anywhere (listings, registry, freshness, offline watchdog, partner API,
// history); a newest row from a clock running fast yields to later readings; a record older than
// the retention period is refused per record; a store frozen before 0048 is repaired by 0204.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { migrate } from '../../src/infra/db/migrate.ts';
import { moduleMigrations } from '../../src/modules/index.ts';
import { auth, register } from '../registry/seed.ts';
import { issueKey, READ, registerEndpoint, runAt, startReceiver } from '../devtools/helpers.ts';
import { client } from './support.ts';

const MIGRATION = '0204_telemetry_latest_future_repair.sql';
const FAR = '9999-12-31T23:59:59.123Z';
const MIN = 60_000;
const DAY = 86_400_000;
const services: TestService[] = [];
let svc: TestService;
after(() => Promise.all(services.map((s) => s.stop())));

before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-10-15T12:00:00Z') });
  services.push(svc);
});

const now = () => svc.clock.now().getTime();
/** ISO text with milliseconds that every surface prints alike (no trailing zero to trim). */
const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000 + 123).toISOString();

/** An organisation with an admin token, its registered assets, and a request helper. */
async function org(id: string, assets: [string, string][]) {
  await svc.createOrg(id);
  const admin = await svc.token({ orgId: id, roles: ['ORG_ADMIN'], expiresIn: '3650d' });
  for (const [asset_id, asset_class] of assets) await register(svc, admin, { asset_id, asset_class, site_id: 'home', name: asset_id });
  const get = async (url: string) => {
    const res = await svc.request({ method: 'GET', url, headers: auth(admin) });
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return json(res);
  };
  return { api: client(svc, id), get };
}

const byId = (rows: { asset_id: string }[]) => Object.fromEntries(rows.map((r) => [r.asset_id, r])) as Record<string, any>;

test('a year-9999 record does not hold a device online after its real readings stop; the offline watchdog reports the real last reading', async () => {
  const { api, get } = await org('fut-offline', [['bat-1', 'battery']]);
  const rx = await startReceiver([200]);
  try {
    await registerEndpoint(svc, 'fut-offline', `${rx.url}/h`, { event_types: ['device.offline'] });
    const last = iso(now() - MIN);
    const res = await api.ingest([
      { asset_id: 'bat-1', ts: FAR, soc_pct: 99 },
      { asset_id: 'bat-1', ts: last, soc_pct: 51 },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(json(res).stored, 2, 'the far-future record is stored, not lost');
    assert.deepEqual(
      json(res).anomalies.map((a: { index: number; reasons: string[] }) => [a.index, a.reasons]),
      [[0, ['ts_in_future']]],
      'the sender learns of its clock',
    );
    let dev = byId((await get('/api/hardware/devices/health')).devices)['bat-1'];
    assert.equal(dev.connectivity, 'online');
    assert.equal(dev.last_reported_at, last);

    // The real readings stop; the clock moves past the watchdog's 30 minutes and the 1-hour
    // online band.
    const t = now() + 61 * MIN;
    await runAt(svc, t);
    await runAt(svc, t + MIN);
    dev = byId((await get('/api/hardware/devices/health')).devices)['bat-1'];
    assert.equal(dev.connectivity, 'offline');
    assert.equal(dev.freshness, 'stale');
    assert.equal(dev.last_reported_at, last);
    const events = rx.requests.map((r) => JSON.parse(r.body));
    assert.deepEqual(
      events.map((e) => [e.type, e.data.device.asset_id, e.data.device.last_reported_at]),
      [['device.offline', 'bat-1', last]],
    );
  } finally {
    await rx.close();
  }
});

test('a year-9999 record is not the newest reading in any listing, the registry, the partner API or history; live events list it, flagged', async () => {
  const { api, get } = await org('fut-list', [
    ['bat-2', 'battery'],
    ['van-2', 'vehicle'],
  ]);
  const real = iso(now() - MIN);
  const res = await api.ingest([
    { asset_id: 'bat-2', ts: real, soc_pct: 60, power_kw: 2, status: 'charging' },
    { asset_id: 'van-2', ts: real, soc_pct: 70, lat: 51.5, lon: -0.12, ignition: 'on' },
    { asset_id: 'bat-2', ts: FAR, soc_pct: 99, power_kw: -9, status: 'fault' },
    { asset_id: 'van-2', ts: FAR, soc_pct: 5, lat: 10, lon: 10, ignition: 'off' },
  ]);
  assert.equal(res.statusCode, 200, res.body);

  const battery = byId((await get('/api/hardware/battery')).devices)['bat-2'];
  assert.equal(battery.last_reported_at, real);
  assert.equal(battery.freshness, 'live');
  assert.deepEqual([battery.readings.soc_pct, battery.readings.status, battery.readings.mode], [60, 'charging', 'charging']);

  const health = byId((await get('/api/hardware/devices/health')).devices);
  assert.deepEqual([health['bat-2'].last_reported_at, health['van-2'].last_reported_at], [real, real]);

  const vehicle = byId((await get('/api/hardware/vehicles')).devices)['van-2'];
  assert.deepEqual([vehicle.last_reported_at, vehicle.readings.soc_pct], [real, 70]);
  const vt = byId((await get('/api/hardware/vehicles/telemetry/all')).devices)['van-2'];
  assert.equal(vt.telemetry.ts, real);
  const tm = byId((await get('/api/hardware/fleet/telematics/vehicles')).vehicles)['van-2'];
  assert.deepEqual(tm.position, { lat: 51.5, lon: -0.12, measured_at: real });
  assert.deepEqual(tm.ignition, { on: true, measured_at: real });

  const resolved = (await get('/api/hardware/source-priority/resolve?asset_id=bat-2')).assets[0];
  const soc = resolved.measurements.find((m: { measurement: string }) => m.measurement === 'soc_pct');
  assert.deepEqual([soc.value, soc.ts], [60, real]);

  const asset = await get('/api/twin/registry/assets/bat-2');
  assert.equal(asset.last_reported_at, real);
  assert.deepEqual([asset.latest.ts, asset.latest.soc_pct, asset.latest.status], [real, 60, 'charging']);
  const listed = byId((await get('/api/twin/registry/assets')).assets);
  assert.deepEqual([listed['bat-2'].last_reported_at, listed['van-2'].last_reported_at], [real, real]);

  const key = await issueKey(svc, 'fut-list', { scopes: READ });
  const partner = async (url: string) => {
    const r = await svc.request({ method: 'GET', url: `/api/devtools/partner/v1${url}`, headers: key.auth });
    assert.equal(r.statusCode, 200, r.body);
    return json(r);
  };
  assert.equal(byId((await partner('/devices')).devices)['bat-2'].last_reported_at, real);
  const readings = (await partner('/telemetry/latest?hours=168')).readings;
  assert.deepEqual(
    readings.map((r: { ts: string }) => r.ts),
    [real, real],
  );

  const history = await get('/api/telemetry/assets/battery/bat-2/history?range=live');
  assert.deepEqual([history.summary.count, history.summary.latest], [1, 60]);

  // Live events answer "was my batch stored?": the record is there, in arrival order, flagged.
  const events = await api.live('?asset_id=bat-2');
  assert.deepEqual(
    events.map((e) => [e.ts, e.anomalies]),
    [
      [FAR, ['ts_in_future']],
      [real, []],
    ],
  );
});

test('a record flagged ts_in_future stays out of readings once the clock reaches its ts', async () => {
  const { api, get } = await org('fut-ahead', [['bat-3', 'battery']]);
  const real = iso(now() - MIN);
  const ahead = iso(now() + 2 * DAY);
  const res = await api.ingest([
    { asset_id: 'bat-3', ts: real, soc_pct: 40 },
    { asset_id: 'bat-3', ts: ahead, soc_pct: 99 },
  ]);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(
    json(res).anomalies.map((a: { reasons: string[] }) => a.reasons),
    [['ts_in_future']],
  );
  (svc.clock as ManualClock).advance(3 * DAY);

  const asset = await get('/api/twin/registry/assets/bat-3');
  assert.deepEqual([asset.last_reported_at, asset.latest.soc_pct, asset.freshness], [real, 40, 'silent']);
  const history = await get('/api/telemetry/assets/battery/bat-3/history?range=weekly');
  assert.deepEqual([history.summary.count, history.summary.latest, history.summary.max], [1, 40, 40]);
  const key = await issueKey(svc, 'fut-ahead', { scopes: READ });
  const r = await svc.request({ method: 'GET', url: '/api/devtools/partner/v1/telemetry/latest?hours=168', headers: key.auth });
  assert.equal(r.statusCode, 200, r.body);
  assert.deepEqual(
    json(r).readings.map((x: { ts: string }) => x.ts),
    [real],
  );
});

test('a newest row from a clock running fast (within 24 h) yields to the next reading, but not to a backfilled one', async () => {
  const { api, get } = await org('fut-fast', [['bat-4', 'battery']]);
  const fast = iso(now() + 20 * 60 * MIN);
  let res = await api.ingest({ asset_id: 'bat-4', ts: fast, soc_pct: 70 });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(json(res).anomalies, [], 'within the tolerance: not flagged');
  assert.equal((await get('/api/twin/registry/assets/bat-4')).latest.soc_pct, 70);

  (svc.clock as ManualClock).advance(MIN);
  res = await api.ingest({ asset_id: 'bat-4', ts: iso(now() - DAY), soc_pct: 10 });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal((await get('/api/twin/registry/assets/bat-4')).latest.soc_pct, 70, 'a backfilled record measured before the row arrived');

  (svc.clock as ManualClock).advance(MIN);
  const next = iso(now());
  res = await api.ingest({ asset_id: 'bat-4', ts: next, soc_pct: 71 });
  assert.equal(res.statusCode, 200, res.body);
  const asset = await get('/api/twin/registry/assets/bat-4');
  assert.deepEqual([asset.last_reported_at, asset.latest.soc_pct], [next, 71]);
});

test('far past: a record older than TELEMETRY_RETENTION_DAYS is refused per record; without retention any age is stored', async () => {
  const kept = await startTestService({ clock: new ManualClock('2026-10-15T12:00:00Z'), env: { TELEMETRY_RETENTION_DAYS: '60' } });
  services.push(kept);
  await kept.createOrg('fut-past');
  const api = client(kept, 'fut-past');
  const t = kept.clock.now().getTime();
  const res = await api.ingest([
    { asset_id: 'bat-5', ts: iso(t - 61 * DAY), soc_pct: 1 },
    { asset_id: 'bat-5', ts: iso(t - 59 * DAY), soc_pct: 2 },
    { asset_id: 'bat-5', ts: iso(t - MIN), soc_pct: 3 },
  ]);
  assert.equal(res.statusCode, 207, res.body);
  const body = json(res);
  assert.deepEqual([body.count, body.stored, body.rejected], [3, 2, 1]);
  assert.deepEqual(
    { index: body.results[0].index, status: body.results[0].status, field: body.results[0].field, reason: body.results[0].reason },
    { index: 0, status: 'rejected', field: 'ts', reason: 'ts_beyond_retention' },
  );
  assert.match(body.results[0].message, /retention period \(60 days\)/);
  assert.deepEqual(
    body.results.slice(1).map((r: { status: string }) => r.status),
    ['stored', 'stored'],
  );
  assert.deepEqual(
    (await api.live('?asset_id=bat-5')).map((e) => e.raw.soc_pct),
    [3, 2],
  );

  // Retention 0 (keep): a two-year-old record is stored and does not displace the newest reading.
  const { api: keep, get } = await org('fut-old', [['bat-6', 'battery']]);
  const recent = iso(now() - MIN);
  assert.equal((await keep.ingest({ asset_id: 'bat-6', ts: recent, soc_pct: 50 })).statusCode, 200);
  const old = await keep.ingest({ asset_id: 'bat-6', ts: iso(now() - 730 * DAY), soc_pct: 5 });
  assert.equal(old.statusCode, 200, old.body);
  assert.deepEqual([json(old).stored, json(old).anomalies], [1, []]);
  assert.equal((await keep.live('?asset_id=bat-6')).length, 2);
  const asset = await get('/api/twin/registry/assets/bat-6');
  assert.deepEqual([asset.last_reported_at, asset.latest.soc_pct], [recent, 50]);
});

test('migration 0204 repairs newest rows frozen by a far-future record before 0048; a later reading also replaces one', async () => {
  const { api, get } = await org('fut-upgrade', [
    ['bat-7', 'battery'],
    ['bat-8', 'battery'],
    ['bat-9', 'battery'],
  ]);
  const real = iso(now() - MIN);
  const res = await api.ingest([
    { asset_id: 'bat-7', ts: real, soc_pct: 30 },
    { asset_id: 'bat-7', ts: FAR, soc_pct: 99 },
    { asset_id: 'bat-8', ts: FAR, soc_pct: 98 },
    { asset_id: 'bat-9', ts: real, soc_pct: 20 },
    { asset_id: 'bat-9', ts: FAR, soc_pct: 97 },
  ]);
  assert.equal(res.statusCode, 200, res.body);
  // The state a store had before 0048: each asset's far-future record is its newest row.
  await svc.deps.db.query(
    `insert into telemetry_latest as l (org_id, asset_id, ts, received_at, power_kw, soc_pct, voltage, "current", temp_c, status, raw)
     select org_id, asset_id, ts, received_at, power_kw, soc_pct, voltage, "current", temp_c, status, raw
     from telemetry where org_id = $1 and ts = $2
     on conflict (org_id, asset_id) do update set ts = excluded.ts, soc_pct = excluded.soc_pct, raw = excluded.raw`,
    ['fut-upgrade', FAR],
  );
  assert.equal((await get('/api/twin/registry/assets/bat-7')).last_reported_at, FAR, 'frozen, as before 0048');

  // A reading after the frozen row arrived replaces it at once.
  (svc.clock as ManualClock).advance(MIN);
  const next = iso(now());
  assert.equal((await api.ingest({ asset_id: 'bat-9', ts: next, soc_pct: 21 })).statusCode, 200);
  assert.equal((await get('/api/twin/registry/assets/bat-9')).last_reported_at, next);

  // The migration runs as on an upgraded store: the runner applies it once more.
  await svc.deps.db.query('delete from schema_migrations where name = $1', [MIGRATION]);
  assert.deepEqual(await migrate(svc.deps.db, moduleMigrations), [MIGRATION]);
  const seven = await get('/api/twin/registry/assets/bat-7');
  assert.deepEqual([seven.last_reported_at, seven.latest.soc_pct], [real, 30]);
  const eight = await get('/api/twin/registry/assets/bat-8');
  assert.deepEqual([eight.last_reported_at, eight.latest, eight.freshness], [null, null, 'never']);
  const kept = await svc.deps.db.query<{ n: number }>(`select count(*)::int as n from telemetry where org_id = $1`, ['fut-upgrade']);
  assert.equal(kept.rows[0].n, 6, 'no stored record is touched');
});
