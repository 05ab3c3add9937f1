// Registry v2 (/api/twin/registry/...): vocabulary, register, list, one asset, edit/move/re-link,
// delete, sites, topology, import, through HTTP on a real store.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ago, auth, clockOf, ingest, register } from './seed.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let admin: string;
let operator: string;
let analyst: string;
let viewer: string;
let otherAdmin: string;
const LONG = '3650d'; // tokens outlive the clock moves of these tests
const A = 'reg-a';
const B = 'reg-b';

before(async () => {
  svc = await startTestService();
  await svc.createOrg(A);
  await svc.createOrg(B);
  admin = await svc.token({ orgId: A, roles: ['ORG_ADMIN'], expiresIn: LONG });
  operator = await svc.token({ orgId: A, roles: ['OPERATOR'], expiresIn: LONG });
  analyst = await svc.token({ orgId: A, roles: ['ANALYST'], expiresIn: LONG });
  viewer = await svc.token({ orgId: A, roles: ['VIEWER'], expiresIn: LONG });
  otherAdmin = await svc.token({ orgId: B, roles: ['ORG_ADMIN'], expiresIn: LONG });
});
after(() => svc.stop());

const get = (token: string, url: string) => svc.request({ method: 'GET', url, headers: auth(token) });
const patch = (token: string, id: string, payload: object) =>
  svc.request({ method: 'PATCH', url: `/api/twin/registry/assets/${id}`, headers: auth(token), payload });
const postAsset = (token: string, payload: object) => svc.request({ method: 'POST', url: '/api/twin/registry/assets', headers: auth(token), payload });
const locs = (res: Parameters<typeof json>[0]) => json(res).detail.map((e: { loc: unknown[] }) => e.loc.join('.'));
const msgs = (res: Parameters<typeof json>[0]) =>
  json(res)
    .detail.map((e: { msg: string }) => e.msg)
    .join(' | ');

test('GET vocabulary: classes with allowed parents, freshness bands, sources, finding codes; any role; 401 without a token', async () => {
  const res = await get(viewer, '/api/twin/registry/vocabulary');
  assert.equal(res.statusCode, 200);
  const v = json(res);
  const cls = Object.fromEntries(v.asset_classes.map((c: { asset_class: string }) => [c.asset_class, c]));
  assert.deepEqual(Object.keys(cls).sort(), ['appliance', 'battery', 'charger', 'heat_pump', 'inverter', 'site_meter', 'smart_meter', 'sub_meter', 'vehicle']);
  assert.deepEqual(cls.battery.allowed_parents, ['inverter', 'site_meter', 'smart_meter', 'sub_meter']);
  assert.equal(cls.site_meter.root_allowed, true);
  assert.equal(cls.charger.root_allowed, false);
  assert.deepEqual(
    v.freshness_bands.map((b: { band: string }) => b.band),
    ['live', 'recent', 'stale', 'silent', 'never'],
  );
  assert.deepEqual(
    v.freshness_bands.map((b: { max_age_seconds: number | null }) => b.max_age_seconds),
    [300, 3600, 86400, null, null],
  );
  assert.deepEqual(
    v.sources.map((s: { source: string }) => s.source),
    ['ocpp_heartbeat', 'provider_reading', 'telemetry', 'provider_api'],
  );
  assert.ok(v.topology_findings.some((f: { code: string }) => f.code === 'cycle'));
  assertRefused(await svc.request({ method: 'GET', url: '/api/twin/registry/vocabulary' }), 401, 'Authorization header missing');
  const bad = await svc.request({ method: 'GET', url: '/api/twin/registry/vocabulary', headers: { authorization: 'Bearer nope' } });
  assert.deepEqual([bad.statusCode, json(bad).detail], [401, 'Invalid or expired token']);
});

test('POST register: class, parent at the same site, generated or own id; 201 with freshness never', async () => {
  const meter = await register(svc, operator, { asset_id: 'meter-1', site_id: 'home', asset_class: 'site_meter', name: 'Grid meter' });
  assert.equal(meter.type, 'site_meter', 'type defaults to the class');
  assert.equal(meter.freshness, 'never');
  assert.equal(meter.connectivity, 'never_reported');
  assert.equal(meter.last_reported_at, null);
  assert.equal(meter.last_reported_source, null);
  assert.equal(meter.origin, 'registry');
  const inv = await register(svc, admin, {
    asset_id: 'inv-1',
    site_id: 'home',
    asset_class: 'inverter',
    type: 'SolarEdge SE5000',
    name: 'Inverter',
    parent_asset_id: 'meter-1',
  });
  assert.equal(inv.parent_asset_id, 'meter-1');
  assert.equal(inv.type, 'SolarEdge SE5000');
  const bat = await register(svc, admin, { site_id: 'home', asset_class: 'battery', name: 'DC battery', parent_asset_id: 'inv-1', details: { kwh: 9.7 } });
  assert.match(bat.asset_id, /^[0-9a-f-]{36}$/);
  assert.deepEqual(bat.details, { kwh: 9.7 });
  // The twin listing shows v2 records too (one table).
  const twin = json(await get(admin, '/api/twin/'));
  assert.ok(twin.some((a: { asset_id: string }) => a.asset_id === bat.asset_id));
});

test('POST register refusals: 409 duplicate, 422 for class, parent rules and body, 403 for roles', async () => {
  const dup = await postAsset(admin, { asset_id: 'meter-1', site_id: 'elsewhere', asset_class: 'site_meter', name: 'x' });
  assert.deepEqual([dup.statusCode, json(dup)], [409, { detail: 'Asset already registered' }]);

  const noClass = await postAsset(admin, { site_id: 'home', name: 'x' });
  assertRefused(noClass, 422, { fields: ['body.asset_class'] });
  assert.ok(locs(noClass).includes('body.asset_class'));
  const badClass = await postAsset(admin, { site_id: 'home', name: 'x', asset_class: 'toaster' });
  assert.deepEqual([badClass.statusCode, locs(badClass)], [422, ['body.asset_class']]);

  const missingParent = await postAsset(admin, { site_id: 'home', name: 'x', asset_class: 'charger', parent_asset_id: 'ghost' });
  assert.deepEqual([missingParent.statusCode, locs(missingParent), msgs(missingParent)], [422, ['body.parent_asset_id'], 'Parent asset not found']);
  const otherSite = await postAsset(admin, { site_id: 'cabin', name: 'x', asset_class: 'charger', parent_asset_id: 'meter-1' });
  assertRefused(otherSite, 422, { fields: ['body.parent_asset_id'] });
  assert.match(msgs(otherSite), /another site \(home\)/);
  const disallowed = await postAsset(admin, { site_id: 'home', name: 'x', asset_class: 'charger', parent_asset_id: 'inv-1' });
  assertRefused(disallowed, 422, { fields: ['body.parent_asset_id'] });
  assert.match(msgs(disallowed), /A charger may sit only under site_meter, smart_meter, sub_meter; inverter is not allowed/);
  const meterUnder = await postAsset(admin, { site_id: 'home', name: 'x', asset_class: 'site_meter', parent_asset_id: 'meter-1' });
  assert.match(msgs(meterUnder), /top of the tree/);

  // Another organisation's asset cannot be used as a parent: it does not exist for B.
  const cross = await postAsset(otherAdmin, { site_id: 'home', name: 'x', asset_class: 'charger', parent_asset_id: 'meter-1' });
  assert.deepEqual([cross.statusCode, msgs(cross)], [422, 'Parent asset not found']);

  for (const t of [analyst, viewer]) {
    const res = await postAsset(t, { site_id: 'home', name: 'x', asset_class: 'charger' });
    assert.deepEqual([res.statusCode, json(res).detail], [403, 'Insufficient permissions']);
  }
  const extra = await postAsset(admin, { site_id: 'home', name: 'x', asset_class: 'charger', colour: 'red' });
  assertRefused(extra, 422, { fields: ['body.colour'] });
});

test('GET one asset: freshness follows the age of the newest record (ts), posture says why; the request time is never last_reported_at', async () => {
  await register(svc, admin, { asset_id: 'ch-1', site_id: 'home', asset_class: 'charger', name: 'Drive charger', parent_asset_id: 'meter-1' });
  let one = json(await get(viewer, '/api/twin/registry/assets/ch-1'));
  assert.equal(one.freshness, 'never');
  assert.equal(one.latest, null);
  assert.deepEqual(one.posture, { state: 'unknown', reasons: [{ code: 'never_reported', message: 'No record has been stored for this asset.' }] });

  const ts = ago(svc, 2);
  await ingest(svc, admin, [{ asset_id: 'ch-1', ts, power_kw: 7.2, status: 'charging' }]);
  one = json(await get(viewer, '/api/twin/registry/assets/ch-1'));
  assert.equal(one.freshness, 'live');
  assert.equal(one.connectivity, 'online');
  assert.equal(one.last_reported_at, ts);
  assert.equal(one.last_reported_source, 'telemetry');
  assert.equal(one.latest.power_kw, 7.2);
  assert.equal(one.latest.status, 'charging');
  assert.deepEqual(one.posture, { state: 'ok', reasons: [] });

  const bands: [number, string][] = [
    [10, 'recent'],
    [120, 'stale'],
    [60 * 24, 'silent'],
  ];
  for (const [minutes, band] of bands) {
    clockOf(svc).advance(minutes * 60_000);
    one = json(await get(viewer, '/api/twin/registry/assets/ch-1'));
    assert.equal(one.freshness, band, `after ${minutes} more minutes`);
    assert.equal(one.last_reported_at, ts, 'the record time, not the request time');
  }
  assert.equal(one.connectivity, 'offline');
  assert.equal(one.posture.state, 'attention');
  assert.equal(one.posture.reasons[0].code, 'silent');

  const meter = json(await get(admin, '/api/twin/registry/assets/meter-1'));
  assert.deepEqual(meter.children, ['ch-1', 'inv-1']);
});

test('GET one asset refusals: unknown 404, another organisation 404, no credential 401', async () => {
  const none = await get(admin, '/api/twin/registry/assets/ghost');
  assert.deepEqual([none.statusCode, json(none)], [404, { detail: 'Not Found' }]);
  const cross = await get(otherAdmin, '/api/twin/registry/assets/meter-1');
  assert.deepEqual([cross.statusCode, json(cross)], [404, { detail: 'Not Found' }]);
  assertRefused(await svc.request({ method: 'GET', url: '/api/twin/registry/assets/meter-1' }), 401, 'Authorization header missing');
});

test('GET assets with filters: site, class, type, freshness, parent, unclassified; another organisation sees none of them', async () => {
  await svc.request({
    method: 'POST',
    url: '/api/twin/',
    headers: auth(admin),
    payload: { asset_id: 'odd-1', site_id: 'home', type: 'Flux capacitor', name: 'Odd' },
  });
  const ids = async (qs: string, token = viewer) => {
    const res = await get(token, `/api/twin/registry/assets${qs}`);
    assert.equal(res.statusCode, 200, res.body);
    const body = json(res);
    assert.equal(body.count, body.assets.length);
    return body.assets.map((a: { asset_id: string }) => a.asset_id).sort();
  };
  assert.ok((await ids('?site_id=home')).includes('meter-1'));
  assert.deepEqual(await ids('?asset_class=inverter'), ['inv-1']);
  assert.deepEqual(await ids('?asset_class=unclassified'), ['odd-1']);
  assert.deepEqual(await ids('?type=SolarEdge%20SE5000'), ['inv-1']);
  assert.deepEqual(await ids('?freshness=silent'), ['ch-1']);
  assert.deepEqual(await ids('?parent_asset_id=meter-1'), ['ch-1', 'inv-1']);
  assert.deepEqual(await ids('?site_id=home&asset_class=charger&freshness=silent'), ['ch-1']);
  assert.deepEqual(await ids('?site_id=nowhere'), []);
  assert.deepEqual(await ids('', otherAdmin), []);
  const bad = await get(viewer, '/api/twin/registry/assets?asset_class=toaster&freshness=old');
  assertRefused(bad, 422, { fields: ['query.asset_class', 'query.freshness'] });
  assert.deepEqual(locs(bad).sort(), ['query.asset_class', 'query.freshness']);
});

test('PATCH edits name, type, details and class; re-links to an allowed parent; null unlinks', async () => {
  await register(svc, admin, { asset_id: 'sub-1', site_id: 'home', asset_class: 'sub_meter', name: 'Garage circuit', parent_asset_id: 'meter-1' });
  clockOf(svc).advance(1000);
  let res = await patch(operator, 'ch-1', { name: 'Garage charger', details: { ocpp_id: 'CP1' }, type: 'Zappi' });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(json(res).name, 'Garage charger');
  assert.equal(json(res).type, 'Zappi');
  assert.deepEqual(json(res).details, { ocpp_id: 'CP1' });
  assert.equal(json(res).updated_at, svc.clock.now().toISOString());
  res = await patch(operator, 'ch-1', { parent_asset_id: 'sub-1' });
  assert.equal(json(res).parent_asset_id, 'sub-1');
  assert.deepEqual(json(await get(admin, '/api/twin/registry/assets/sub-1')).children, ['ch-1']);
  res = await patch(operator, 'odd-1', { asset_class: 'appliance', parent_asset_id: 'sub-1' });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(json(res).asset_class, 'appliance');
  res = await patch(operator, 'odd-1', { parent_asset_id: null });
  assert.equal(json(res).parent_asset_id, null);
  assert.ok(json(res).posture.reasons.some((r: { code: string }) => r.code === 'orphan'));
  const audit = await svc.deps.db.query<{ details: { parent_from: string; parent_to: string } }>(
    "select details from audit_log where org_id = $1 and target_id = 'ch-1' and action = 'twin.asset.update' order by id",
    [A],
  );
  assert.deepEqual([audit.rows.at(-1)?.details.parent_from, audit.rows.at(-1)?.details.parent_to], ['meter-1', 'sub-1']);
});

test('PATCH refuses a disallowed parent, a cycle, itself as parent and a class its children or parent cannot accept (422)', async () => {
  await register(svc, admin, { asset_id: 'sub-2', site_id: 'home', asset_class: 'sub_meter', name: 'Sub of sub', parent_asset_id: 'sub-1' });
  const cyc = await patch(admin, 'sub-1', { parent_asset_id: 'sub-2' });
  assert.deepEqual([cyc.statusCode, locs(cyc)], [422, ['body.parent_asset_id']]);
  assert.match(msgs(cyc), /cycle/);
  const self = await patch(admin, 'sub-1', { parent_asset_id: 'sub-1' });
  assertRefused(self, 422, { fields: ['body.parent_asset_id'] });
  assert.match(msgs(self), /own parent/);
  const wrong = await patch(admin, 'ch-1', { parent_asset_id: 'inv-1' });
  assertRefused(wrong, 422, { fields: ['body.parent_asset_id'] });
  assert.match(msgs(wrong), /charger may sit only under/);
  const missing = await patch(admin, 'ch-1', { parent_asset_id: 'ghost' });
  assert.match(msgs(missing), /Parent asset not found/);
  // sub-1 has a charger below it: it cannot become a battery.
  const childBreaks = await patch(admin, 'sub-1', { asset_class: 'battery' });
  assert.deepEqual([childBreaks.statusCode, locs(childBreaks)], [422, ['body.asset_class']]);
  // ch-1 sits under a sub-meter: it cannot become a vehicle (vehicles sit under chargers).
  const parentBreaks = await patch(admin, 'ch-1', { asset_class: 'vehicle' });
  assert.deepEqual([parentBreaks.statusCode, locs(parentBreaks)], [422, ['body.asset_class']]);
  assert.equal(json(await get(admin, '/api/twin/registry/assets/sub-1')).parent_asset_id, 'meter-1', 'nothing changed');
});

test('PATCH refusals: empty or unknown members 422, roles 403, unknown and other-organisation assets 404', async () => {
  for (const [payload, field] of [
    [{}, 'body'],
    [{ asset_id: 'x' }, 'body.asset_id'],
    [{ asset_class: 'toaster' }, 'body.asset_class'],
    [{ name: '' }, 'body.name'],
    [{ site_id: 'a/b' }, 'body.site_id'],
  ] as const) {
    assertRefused(await patch(admin, 'ch-1', payload), 422, { fields: [field] }, JSON.stringify(payload));
  }
  for (const t of [analyst, viewer]) assertRefused(await patch(t, 'ch-1', { name: 'n' }), 403, 'Insufficient permissions');
  assertRefused(await patch(admin, 'ghost', { name: 'n' }), 404, 'Not Found');
  const cross = await patch(otherAdmin, 'ch-1', { name: 'stolen' });
  assert.deepEqual([cross.statusCode, json(cross)], [404, { detail: 'Not Found' }]);
  assert.equal(json(await get(admin, '/api/twin/registry/assets/ch-1')).name, 'Garage charger');
});

test('PATCH site_id moves the asset with everything below it; its parent is cleared unless one is named at the new site', async () => {
  await register(svc, admin, { asset_id: 'barn-meter', site_id: 'barn', asset_class: 'site_meter', name: 'Barn meter' });
  // sub-1 carries sub-2 and ch-1.
  let res = await patch(operator, 'sub-1', { site_id: 'barn' });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(json(res).site_id, 'barn');
  assert.equal(json(res).parent_asset_id, null);
  for (const id of ['sub-2', 'ch-1']) {
    const a = json(await get(admin, `/api/twin/registry/assets/${id}`));
    assert.equal(a.site_id, 'barn', id);
  }
  assert.equal(json(await get(admin, '/api/twin/registry/assets/ch-1')).parent_asset_id, 'sub-1', 'links below are kept');
  // Move back and hang under the home meter in one call.
  res = await patch(operator, 'sub-1', { site_id: 'home', parent_asset_id: 'meter-1' });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(json(res).parent_asset_id, 'meter-1');
  assert.equal(json(await get(admin, '/api/twin/registry/assets/sub-2')).site_id, 'home');
  // A parent left at the old site is refused.
  const bad = await patch(operator, 'sub-2', { site_id: 'barn', parent_asset_id: 'sub-1' });
  assertRefused(bad, 422, { fields: ['body.parent_asset_id'] });
  assert.match(msgs(bad), /another site/);
});

test('DELETE a registry asset: 409 while it has children, 204 when childless; telemetry kept', async () => {
  const res = await svc.request({ method: 'DELETE', url: '/api/twin/registry/assets/sub-1', headers: auth(admin) });
  assert.deepEqual([res.statusCode, json(res)], [409, { detail: 'Asset has child assets; move, re-link or delete them first' }]);
  for (const t of [analyst, viewer]) {
    assertRefused(await svc.request({ method: 'DELETE', url: '/api/twin/registry/assets/sub-2', headers: auth(t) }), 403, 'Insufficient permissions');
  }
  const cross = await svc.request({ method: 'DELETE', url: '/api/twin/registry/assets/sub-2', headers: auth(otherAdmin) });
  assertRefused(cross, 404, 'Not Found');
  const ok = await svc.request({ method: 'DELETE', url: '/api/twin/registry/assets/sub-2', headers: auth(operator) });
  assert.equal(ok.statusCode, 204);
  assertRefused(await get(admin, '/api/twin/registry/assets/sub-2'), 404, 'Not Found');
  assertRefused(await svc.request({ method: 'DELETE', url: '/api/twin/registry/assets/sub-2', headers: auth(operator) }), 404, 'Not Found');
});

test("GET sites: counts by class and freshness, unregistered devices by site_ref; only the caller's sites", async () => {
  await ingest(svc, admin, [{ asset_id: 'stray-1', ts: ago(svc, 1), power_kw: 1, site_ref: 'home' }]);
  const res = await get(viewer, '/api/twin/registry/sites');
  assert.equal(res.statusCode, 200);
  const home = json(res).sites.find((s: { site_id: string }) => s.site_id === 'home');
  assert.equal(home.asset_count, 6);
  assert.equal(home.by_class.site_meter, 1);
  assert.equal(home.by_class.charger, 1);
  assert.equal(home.by_class.appliance, 1);
  assert.equal(home.by_class.unclassified, 0);
  assert.equal(home.freshness.silent, 1);
  assert.equal(home.freshness.never, 5);
  assert.equal(home.unregistered_devices, 1);
  assert.ok(home.topology_errors >= 1, 'the unlinked appliance is an orphan');
  assert.ok(json(res).sites.some((s: { site_id: string }) => s.site_id === 'barn'));
  const theirs = json(await get(otherAdmin, '/api/twin/registry/sites'));
  assert.deepEqual(theirs.sites, []);
  assertRefused(await svc.request({ method: 'GET', url: '/api/twin/registry/sites' }), 401, 'Authorization header missing');
});

test('GET topology: depth-first single-line tree with findings (orphan, missing meter, unclassified)', async () => {
  const res = await get(viewer, '/api/twin/registry/sites/home/topology');
  assert.equal(res.statusCode, 200, res.body);
  const t = json(res);
  assert.equal(t.site_id, 'home');
  const lines = t.lines.map((l: { asset_id: string; depth: number }) => `${l.depth}:${l.asset_id}`);
  const batId = t.lines.find((l: { asset_class: string }) => l.asset_class === 'battery').asset_id;
  assert.deepEqual(lines, ['0:meter-1', '1:sub-1', '2:ch-1', '1:inv-1', `2:${batId}`, '0:odd-1']);
  assert.equal(t.valid, false);
  assert.deepEqual(
    t.findings.map((f: { code: string; asset_id: string }) => `${f.code}:${f.asset_id}`),
    ['orphan:odd-1'],
  );
  assert.deepEqual(t.lines.find((l: { asset_id: string }) => l.asset_id === 'odd-1').findings, ['orphan']);

  await svc.request({
    method: 'POST',
    url: '/api/twin/',
    headers: auth(admin),
    payload: { asset_id: 'lonely', site_id: 'shed', type: 'gizmo', name: 'Gizmo' },
  });
  const shed = json(await get(viewer, '/api/twin/registry/sites/shed/topology'));
  assert.deepEqual(
    shed.findings.map((f: { code: string; severity: string }) => `${f.code}/${f.severity}`),
    ['missing_meter/warning', 'unclassified/warning'],
  );
  assert.equal(shed.valid, true, 'warnings only');
});

test('GET topology reports a disallowed parent and a cycle left by data written outside these rules', async () => {
  // The API refuses both; rows written by other means (older data, a concurrent writer) are still reported.
  await register(svc, admin, { asset_id: 'x-meter', site_id: 'lab', asset_class: 'site_meter', name: 'M' });
  await register(svc, admin, { asset_id: 'x-sub-a', site_id: 'lab', asset_class: 'sub_meter', name: 'A', parent_asset_id: 'x-meter' });
  await register(svc, admin, { asset_id: 'x-sub-b', site_id: 'lab', asset_class: 'sub_meter', name: 'B', parent_asset_id: 'x-sub-a' });
  await register(svc, admin, { asset_id: 'x-bat', site_id: 'lab', asset_class: 'battery', name: 'Bat', parent_asset_id: 'x-meter' });
  await register(svc, admin, { asset_id: 'x-hp', site_id: 'lab', asset_class: 'heat_pump', name: 'HP', parent_asset_id: 'x-meter' });
  await svc.deps.db.query("update assets set parent_asset_id = 'x-sub-b' where org_id = $1 and asset_id = 'x-sub-a'", [A]);
  await svc.deps.db.query("update assets set parent_asset_id = 'x-bat' where org_id = $1 and asset_id = 'x-hp'", [A]);
  const t = json(await get(viewer, '/api/twin/registry/sites/lab/topology'));
  assert.equal(t.valid, false);
  const f = t.findings.map((x: { code: string; asset_id: string }) => `${x.code}:${x.asset_id}`).sort();
  assert.deepEqual(f, ['cycle:x-sub-a', 'cycle:x-sub-b', 'disallowed_parent:x-hp']);
  assert.equal(t.lines.length, 5, 'every asset appears once, cycles last');
  assert.deepEqual(
    t.lines.slice(-2).map((l: { asset_id: string }) => l.asset_id),
    ['x-sub-a', 'x-sub-b'],
  );
});

test("GET topology refusals: unknown site 404, another organisation's site 404", async () => {
  assert.deepEqual([(await get(admin, '/api/twin/registry/sites/nowhere/topology')).statusCode], [404]);
  const cross = await get(otherAdmin, '/api/twin/registry/sites/home/topology');
  assert.deepEqual([cross.statusCode, json(cross)], [404, { detail: 'Not Found' }]);
});

test('POST import-devices registers every reporting device whose site_ref names the site, with class from its raw type', async () => {
  await ingest(svc, admin, [
    { asset_id: 'imp-bat', ts: ago(svc, 3), soc_pct: 50, site_ref: 'farm', type: 'Battery', name: 'Farm battery' },
    { asset_id: 'imp-ev', ts: ago(svc, 3), soc_pct: 70, site_ref: 'farm', asset_class: 'vehicle' },
    { asset_id: 'imp-x', ts: ago(svc, 3), power_kw: 1, site_ref: 'farm' },
    { asset_id: 'imp-else', ts: ago(svc, 3), power_kw: 1, site_ref: 'elsewhere' },
    { asset_id: 'imp-noref', ts: ago(svc, 3), power_kw: 1 },
  ]);
  for (const t of [analyst, viewer]) {
    assertRefused(
      await svc.request({ method: 'POST', url: '/api/twin/registry/sites/farm/import-devices', headers: auth(t) }),
      403,
      'Insufficient permissions',
    );
  }
  const res = await svc.request({ method: 'POST', url: '/api/twin/registry/sites/farm/import-devices', headers: auth(operator) });
  assert.equal(res.statusCode, 200, res.body);
  const body = json(res);
  assert.equal(body.imported_count, 3);
  const by = Object.fromEntries(body.imported.map((a: { asset_id: string }) => [a.asset_id, a]));
  assert.deepEqual([by['imp-bat'].asset_class, by['imp-bat'].type, by['imp-bat'].name, by['imp-bat'].site_id], ['battery', 'Battery', 'Farm battery', 'farm']);
  assert.deepEqual([by['imp-ev'].asset_class, by['imp-ev'].name], ['vehicle', 'imp-ev']);
  assert.deepEqual([by['imp-x'].asset_class, by['imp-x'].type], [null, 'unknown']);
  assert.deepEqual(body.skipped, []);
  assert.ok(body.unplaced_devices >= 1);
  const one = json(await get(admin, '/api/twin/registry/assets/imp-bat'));
  assert.equal(one.origin, 'import');
  assert.equal(one.freshness, 'live');
  // Nothing left to import: a second call imports nothing.
  const again = json(await svc.request({ method: 'POST', url: '/api/twin/registry/sites/farm/import-devices', headers: auth(operator) }));
  assert.equal(again.imported_count, 0);
});

test('POST import-devices with asset_ids places devices without site_ref and reports what it skipped', async () => {
  const res = await svc.request({
    method: 'POST',
    url: '/api/twin/registry/sites/farm/import-devices',
    headers: auth(admin),
    payload: { asset_ids: ['imp-noref', 'imp-else', 'imp-bat', 'never-sent'] },
  });
  assert.equal(res.statusCode, 200, res.body);
  const body = json(res);
  assert.deepEqual(
    body.imported.map((a: { asset_id: string }) => a.asset_id),
    ['imp-noref'],
  );
  assert.deepEqual(body.skipped, [
    { asset_id: 'imp-bat', reason: 'already_registered' },
    { asset_id: 'imp-else', reason: 'other_site' },
    { asset_id: 'never-sent', reason: 'no_telemetry' },
  ]);
  const bad = await svc.request({ method: 'POST', url: '/api/twin/registry/sites/farm/import-devices', headers: auth(admin), payload: { asset_ids: [] } });
  assertRefused(bad, 422, { fields: ['body.asset_ids'] });
});

test("POST import-devices refusals: an unknown site 404; another organisation neither sees nor imports A's devices", async () => {
  const unknown = await svc.request({ method: 'POST', url: '/api/twin/registry/sites/atlantis/import-devices', headers: auth(admin) });
  assertRefused(unknown, 404, 'Not Found');
  const cross = await svc.request({ method: 'POST', url: '/api/twin/registry/sites/elsewhere/import-devices', headers: auth(otherAdmin) });
  assert.deepEqual([cross.statusCode, json(cross)], [404, { detail: 'Not Found' }]);
  const named = await svc.request({
    method: 'POST',
    url: '/api/twin/registry/sites/b-site/import-devices',
    headers: auth(otherAdmin),
    payload: { asset_ids: ['imp-else'] },
  });
  assert.equal(named.statusCode, 200);
  assert.deepEqual(json(named).skipped, [{ asset_id: 'imp-else', reason: 'no_telemetry' }]);
  assert.equal(json(await get(admin, '/api/twin/registry/sites')).sites.find((s: { site_id: string }) => s.site_id === 'elsewhere').unregistered_devices, 1);
});
