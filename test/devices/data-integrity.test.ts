// Data integrity (/api/hardware/data-integrity/...): per-asset integrity and commissioning runs,
// through HTTP on a real store with telemetry sent to ingestion.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ago, auth, clockOf, ingest, register } from '../registry/seed.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let admin: string;
let operator: string;
let analyst: string;
let viewer: string;
let otherAdmin: string;
const LONG = '3650d';
const A = 'di-a';
const B = 'di-b';

before(async () => {
  svc = await startTestService();
  await svc.createOrg(A);
  await svc.createOrg(B);
  admin = await svc.token({ orgId: A, roles: ['ORG_ADMIN'], expiresIn: LONG });
  operator = await svc.token({ orgId: A, roles: ['OPERATOR'], expiresIn: LONG });
  analyst = await svc.token({ orgId: A, roles: ['ANALYST'], expiresIn: LONG });
  viewer = await svc.token({ orgId: A, roles: ['VIEWER'], expiresIn: LONG });
  otherAdmin = await svc.token({ orgId: B, roles: ['ORG_ADMIN'], expiresIn: LONG });
  await register(svc, admin, { asset_id: 'meter', site_id: 'plant', asset_class: 'site_meter', name: 'Meter' });
  await register(svc, admin, { asset_id: 'bat', site_id: 'plant', asset_class: 'battery', name: 'Battery', parent_asset_id: 'meter' });
  await register(svc, admin, { asset_id: 'pv', site_id: 'plant', asset_class: 'inverter', name: 'PV', parent_asset_id: 'meter' });
  await register(svc, admin, { asset_id: 'quiet', site_id: 'annex', asset_class: 'appliance', name: 'Quiet', parent_asset_id: undefined });
  await register(svc, otherAdmin, { asset_id: 'b-meter', site_id: 'plant', asset_class: 'site_meter', name: 'B meter' });
  // meter: clean, every 5 minutes. bat: a 30-minute gap, a repeated ts, an out-of-range soc, a future ts.
  await ingest(svc, admin, [
    ...[20, 15, 10, 5, 0].map((m) => ({ asset_id: 'meter', ts: ago(svc, m), power_kw: 1.2 })),
    { asset_id: 'bat', ts: ago(svc, 60), soc_pct: 50 },
    { asset_id: 'bat', ts: ago(svc, 55), soc_pct: 120 },
    { asset_id: 'bat', ts: ago(svc, 25), soc_pct: 52 },
    { asset_id: 'pv', ts: ago(svc, 2), power_kw: -3 },
  ]);
  await ingest(svc, admin, [
    { asset_id: 'bat', ts: ago(svc, 25), soc_pct: 52 },
    { asset_id: 'bat', ts: ago(svc, -10), soc_pct: 53 },
    // A late record: two hours old when received.
    { asset_id: 'pv', ts: ago(svc, 120), power_kw: -2 },
  ]);
});
after(() => svc.stop());

const get = (token: string, url: string) => svc.request({ method: 'GET', url, headers: auth(token) });
const run = (token: string, payload: unknown) =>
  svc.request({ method: 'POST', url: '/api/hardware/data-integrity/commissioning/run', headers: auth(token), payload: payload as object });
const by = (rows: { asset_id: string }[]) => Object.fromEntries(rows.map((r) => [r.asset_id, r])) as Record<string, any>;
const locs = (res: Parameters<typeof json>[0]) => json(res).detail.map((e: { loc: unknown[] }) => e.loc.join('.'));

test('GET data-integrity/assets: records, gaps, duplicate, future and late timestamps, anomalies by reason', async () => {
  const res = await get(viewer, '/api/hardware/data-integrity/assets');
  assert.equal(res.statusCode, 200, res.body);
  const body = json(res);
  assert.equal(body.gap_threshold_seconds, 900);
  assert.equal(body.window.hours, 24);
  assert.equal(body.window.to, svc.clock.now().toISOString());
  const rows = by(body.assets);
  assert.deepEqual(Object.keys(rows).sort(), ['bat', 'meter', 'pv', 'quiet']);
  assert.deepEqual(
    [rows.meter.integrity, rows.meter.records, rows.meter.gaps, rows.meter.anomalies],
    ['ok', 5, { count: 0, longest_seconds: 0 }, { total: 0, by_reason: [] }],
  );
  assert.equal(rows.meter.last_reported_at, ago(svc, 0));
  assert.equal(rows.meter.silent_seconds, 0);
  const bat = rows.bat;
  assert.equal(bat.integrity, 'degraded');
  assert.equal(bat.records, 5);
  assert.deepEqual(bat.gaps, { count: 2, longest_seconds: 2100 }, '30 then 35 minutes');
  assert.equal(bat.duplicate_timestamps, 1);
  assert.equal(bat.future_timestamps, 1);
  assert.equal(bat.anomalies.total >= 1, true);
  assert.ok(bat.anomalies.by_reason.some((r: { reason: string; count: number }) => r.reason === 'soc_out_of_range' && r.count === 1));
  assert.equal(rows.pv.late_records, 1);
  assert.equal(rows.pv.gaps.count, 1, '2 hours between the late record and the next');
  assert.deepEqual([rows.quiet.integrity, rows.quiet.records, rows.quiet.last_reported_at, rows.quiet.silent_seconds], ['no_data', 0, null, null]);
});

test("GET data-integrity/assets filters by site and asset, takes the window and gap threshold, answers only the caller's organisation", async () => {
  const plant = json(await get(viewer, '/api/hardware/data-integrity/assets?site_id=plant&gap_minutes=60'));
  const rows = by(plant.assets);
  assert.deepEqual(Object.keys(rows).sort(), ['bat', 'meter', 'pv']);
  assert.equal(rows.bat.gaps.count, 0);
  assert.equal(plant.gap_threshold_seconds, 3600);
  const one = json(await get(viewer, '/api/hardware/data-integrity/assets?asset_id=bat&hours=1'));
  assert.deepEqual(
    one.assets.map((a: { asset_id: string }) => a.asset_id),
    ['bat'],
  );
  assert.equal(one.assets[0].records, 5);
  const theirs = json(await get(otherAdmin, '/api/hardware/data-integrity/assets'));
  assert.deepEqual(
    theirs.assets.map((a: { asset_id: string }) => a.asset_id),
    ['b-meter'],
  );
  assert.deepEqual(json(await get(otherAdmin, '/api/hardware/data-integrity/assets?asset_id=bat')).assets, []);
});

test('GET data-integrity/assets refusals: bad window and threshold 422, no credential 401', async () => {
  for (const q of ['hours=0', 'hours=721', 'gap_minutes=0', 'gap_minutes=abc']) {
    const res = await get(viewer, `/api/hardware/data-integrity/assets?${q}`);
    assert.equal(res.statusCode, 422, q);
    assert.equal(locs(res).length, 1, q);
  }
  assertRefused(await svc.request({ method: 'GET', url: '/api/hardware/data-integrity/assets' }), 401, 'Authorization header missing');
});

test('POST commissioning/run passes a healthy site; later fails silence and warns on an inverter sign, a fault status and an unregistered device; stores the run', async () => {
  let res = await run(operator, { site_id: 'plant' });
  assert.equal(res.statusCode, 201, res.body);
  let r = json(res);
  assert.equal(r.site_id, 'plant');
  assert.equal(r.created_at, svc.clock.now().toISOString());
  assert.deepEqual(r.parameters, { max_silence_minutes: 15 });
  // The battery's newest record is the future one (soc 53); every asset reported within 15 minutes.
  assert.equal(r.outcome, 'pass', JSON.stringify(r.checks));
  assert.deepEqual(r.summary, { assets: 3, pass: r.checks.length, warn: 0, fail: 0 });

  // Time passes, the inverter reports a positive power, a device reports with site_ref but no record.
  clockOf(svc).advance(30 * 60_000);
  await ingest(svc, admin, [
    { asset_id: 'pv', ts: ago(svc, 1), power_kw: 2.5 },
    { asset_id: 'bat', ts: ago(svc, 1), soc_pct: 60, status: 'FAULT 12' },
    { asset_id: 'stray', ts: ago(svc, 1), power_kw: 1, site_ref: 'plant' },
  ]);
  res = await run(admin, { site_id: 'plant', max_silence_minutes: 5 });
  r = json(res);
  assert.equal(r.outcome, 'fail');
  const find = (check: string, id: string | null) => r.checks.find((c: { check: string; asset_id: string | null }) => c.check === check && c.asset_id === id);
  assert.equal(find('reporting', 'meter').result, 'fail');
  assert.equal(find('reporting', 'pv').result, 'pass');
  assert.equal(find('plausibility', 'pv').result, 'warn');
  assert.match(find('plausibility', 'pv').message, /positive at an inverter/);
  assert.equal(find('plausibility', 'bat').result, 'warn');
  assert.equal(find('unregistered_devices', null).result, 'warn');
  assert.match(find('unregistered_devices', null).message, /stray/);
  assert.equal(find('topology', null).result, 'pass');

  // The latest run is served back as stored.
  const latest = await get(viewer, '/api/hardware/data-integrity/commissioning?site_id=plant');
  assert.equal(latest.statusCode, 200);
  assert.deepEqual(json(latest), r);
  const audit = await svc.deps.db.query<{ n: number }>("select count(*)::int as n from audit_log where org_id = $1 and action = 'commissioning.run'", [A]);
  assert.equal(audit.rows[0].n, 2);
});

test('POST commissioning/run reports topology findings and an asset that never reported', async () => {
  const res = await run(admin, { site_id: 'annex' });
  const r = json(res);
  assert.equal(r.outcome, 'fail');
  const checks = r.checks.map((c: { check: string; asset_id: string | null; result: string }) => `${c.check}:${c.asset_id}:${c.result}`);
  assert.ok(checks.includes('reporting:quiet:fail'), checks.join());
  assert.ok(checks.includes('topology:quiet:fail'), 'orphan');
  assert.ok(checks.includes('topology:null:warn'), 'missing meter');
});

test('commissioning refusals: roles 403, bad body 422, unknown or other-organisation site 404, no run yet 404, no site_id 422', async () => {
  for (const t of [analyst, viewer]) {
    const res = await run(t, { site_id: 'plant' });
    assert.deepEqual([res.statusCode, json(res).detail], [403, 'Insufficient permissions']);
  }
  for (const [payload, loc] of [
    [{}, 'body.site_id'],
    [{ site_id: 'plant', max_silence_minutes: 0 }, 'body.max_silence_minutes'],
    [{ site_id: 'plant', extra: 1 }, 'body.extra'],
  ] as const) {
    const res = await run(admin, payload);
    assert.deepEqual([res.statusCode, locs(res)], [422, [loc]], JSON.stringify(payload));
  }
  const unknown = await run(admin, { site_id: 'atlantis' });
  assert.deepEqual([unknown.statusCode, json(unknown)], [404, { detail: 'Not Found' }]);
  // B has its own site called plant; it runs on B's assets only and never sees A's runs.
  const bRun = json(await run(otherAdmin, { site_id: 'plant' }));
  assert.equal(bRun.summary.assets, 1);
  const bLatest = json(await get(otherAdmin, '/api/hardware/data-integrity/commissioning?site_id=plant'));
  assert.equal(bLatest.run_id, bRun.run_id);
  const crossSite = await get(otherAdmin, '/api/hardware/data-integrity/commissioning?site_id=annex');
  assert.deepEqual([crossSite.statusCode, json(crossSite)], [404, { detail: 'Not Found' }]);
  const crossRun = await run(otherAdmin, { site_id: 'annex' });
  assertRefused(crossRun, 404, 'Not Found');
  await register(svc, admin, { asset_id: 'new', site_id: 'fresh', asset_class: 'site_meter', name: 'New' });
  assertRefused(await get(viewer, '/api/hardware/data-integrity/commissioning?site_id=fresh'), 404, 'Not Found');
  const noSite = await get(viewer, '/api/hardware/data-integrity/commissioning');
  assert.deepEqual([noSite.statusCode, locs(noSite)], [422, ['query.site_id']]);
  assertRefused(await svc.request({ method: 'GET', url: '/api/hardware/data-integrity/commissioning?site_id=plant' }), 401, 'Authorization header missing');
});
