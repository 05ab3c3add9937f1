// Registry v1 (/api/twin/): create, list, update, delete, through HTTP on a real store.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { auth, clockOf, ingest } from './seed.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let admin: string;
let operator: string;
let analyst: string;
let viewer: string;
let otherAdmin: string;
const LONG = '3650d'; // tokens outlive the clock moves of these tests
const A = 'twin-a';
const B = 'twin-b';

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

const post = (token: string, payload: unknown, url = '/api/twin/') => svc.request({ method: 'POST', url, headers: auth(token), payload: payload as object });
const list = async (token: string) => {
  const res = await svc.request({ method: 'GET', url: '/api/twin/', headers: auth(token) });
  assert.equal(res.statusCode, 200);
  return json<any[]>(res);
};

async function auditActions(orgId: string, targetId: string) {
  const r = await svc.deps.db.query<{ action: string; details: Record<string, unknown> }>(
    'select action, details from audit_log where org_id = $1 and target_id = $2 order by id',
    [orgId, targetId],
  );
  return r.rows;
}

test('POST /api/twin/ registers an asset with a generated id; 201 and the stored record', async () => {
  const res = await post(admin, { site_id: 'site-1', type: 'battery', name: 'Garage battery', details: { make: 'X', kwh: 13.5, tags: ['a'] } });
  assert.equal(res.statusCode, 201, res.body);
  const a = json(res);
  assert.match(a.asset_id, /^[0-9a-f-]{36}$/);
  assert.equal(a.site_id, 'site-1');
  assert.equal(a.type, 'battery');
  assert.equal(a.asset_class, 'battery');
  assert.equal(a.parent_asset_id, null);
  assert.deepEqual(a.details, { make: 'X', kwh: 13.5, tags: ['a'] });
  assert.equal(a.created_at, svc.clock.now().toISOString());
  assert.equal(a.updated_at, a.created_at);
  const all = await list(admin);
  assert.deepEqual(
    all.find((x) => x.asset_id === a.asset_id),
    a,
  );
  assert.deepEqual(
    (await auditActions(A, a.asset_id)).map((r) => r.action),
    ['twin.asset.create'],
  );
});

test("POST /api/twin/ takes the caller's own asset_id; an unknown type is unclassified; details default {}", async () => {
  const res = await post(operator, { asset_id: 'INV:0001', site_id: 'site-1', type: 'Flux capacitor', name: 'Odd one' });
  assert.equal(res.statusCode, 201, res.body);
  assert.equal(json(res).asset_id, 'INV:0001');
  assert.equal(json(res).asset_class, null);
  assert.deepEqual(json(res).details, {});
  // The path without the trailing slash answers too.
  const res2 = await post(admin, { asset_id: 'pv-1', site_id: 'site-1', type: 'Solar PV', name: 'Roof' }, '/api/twin');
  assert.equal(res2.statusCode, 201);
  assert.equal(json(res2).asset_class, 'inverter');
});

test('POST /api/twin/ with an asset_id already used in the organisation: 409; another organisation may use it', async () => {
  assert.equal((await post(admin, { asset_id: 'dup-1', site_id: 's', type: 'charger', name: 'One' })).statusCode, 201);
  const res = await post(admin, { asset_id: 'dup-1', site_id: 'other-site', type: 'charger', name: 'Two' });
  assert.equal(res.statusCode, 409);
  assert.deepEqual(json(res), { detail: 'Asset already registered' });
  const inB = await post(otherAdmin, { asset_id: 'dup-1', site_id: 's', type: 'charger', name: 'B owns this one' });
  assert.equal(inB.statusCode, 201);
  assert.equal((await list(admin)).find((x) => x.asset_id === 'dup-1').name, 'One');
});

test('POST /api/twin/ refusals: roles without configuration rights 403, no credential 401, bad bodies 422', async () => {
  for (const t of [analyst, viewer]) {
    const res = await post(t, { site_id: 's', type: 'battery', name: 'x' });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(json(res), { detail: 'Insufficient permissions' });
  }
  const anon = await svc.request({ method: 'POST', url: '/api/twin/', payload: { site_id: 's', type: 'battery', name: 'x' } });
  assertRefused(anon, 401, 'Authorization header missing');
  const cases: [unknown, string][] = [
    [{ type: 'battery', name: 'x' }, 'body.site_id'],
    [{ site_id: 's', name: 'x' }, 'body.type'],
    [{ site_id: 's', type: 'battery' }, 'body.name'],
    [{ site_id: 's', type: 'battery', name: 'x', details: [1, 2] }, 'body.details'],
    [{ site_id: 's', type: 'battery', name: 'x', details: 'text' }, 'body.details'],
    [{ site_id: 's', type: 'battery', name: 'x', asset_id: 'has/slash' }, 'body.asset_id'],
    [{ site_id: 's', type: 'battery', name: 'x', asset_id: '' }, 'body.asset_id'],
    [{ site_id: 'a/b', type: 'battery', name: 'x' }, 'body.site_id'],
    [{ site_id: 's', type: 'battery', name: '   ' }, 'body.name'],
    [{ site_id: 's', type: 'battery', name: 'x', colour: 'red' }, 'body.colour'],
  ];
  for (const [body, loc] of cases) {
    const res = await post(admin, body);
    assert.equal(res.statusCode, 422, JSON.stringify(body));
    assert.ok(
      json(res).detail.some((e: { loc: string[] }) => e.loc.join('.') === loc),
      `${loc}: ${res.body}`,
    );
  }
});

test("GET /api/twin/ lists every asset of the caller's organisation only; any role reads", async () => {
  const mine = await list(viewer);
  assert.ok(mine.length >= 4);
  const theirs = await list(otherAdmin);
  assert.deepEqual(
    theirs.map((x) => x.name),
    ['B owns this one'],
  );
  assert.ok(!mine.some((x) => x.name === 'B owns this one'));
  const anon = await svc.request({ method: 'GET', url: '/api/twin/' });
  assertRefused(anon, 401, 'Authorization header missing');
});

test('PUT /api/twin/{asset_id} changes name and/or details only; created_at kept, updated_at moves', async () => {
  const a = json(await post(admin, { asset_id: 'put-1', site_id: 's', type: 'heat pump', name: 'HP', details: { a: 1 } }));
  clockOf(svc).advance(60_000);
  let res = await svc.request({ method: 'PUT', url: '/api/twin/put-1', headers: auth(operator), payload: { name: 'Heat pump (loft)' } });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(json(res).name, 'Heat pump (loft)');
  assert.deepEqual(json(res).details, { a: 1 });
  assert.equal(json(res).created_at, a.created_at);
  assert.equal(json(res).updated_at, svc.clock.now().toISOString());
  res = await svc.request({ method: 'PUT', url: '/api/twin/put-1', headers: auth(operator), payload: { details: { b: { c: [1] } } } });
  assert.deepEqual(json(res).details, { b: { c: [1] } }, 'details is replaced, stored verbatim');
  assert.equal(json(res).name, 'Heat pump (loft)');
  assert.equal((await list(admin)).find((x) => x.asset_id === 'put-1').name, 'Heat pump (loft)');
  assert.deepEqual(
    (await auditActions(A, 'put-1')).map((r) => r.action),
    ['twin.asset.create', 'twin.asset.update', 'twin.asset.update'],
  );
});

test('PUT /api/twin/{asset_id} refusals: other fields and empty bodies 422, roles 403, unknown or other organisation 404', async () => {
  for (const [payload, field] of [
    [{ type: 'battery' }, 'body.type'],
    [{ site_id: 'x' }, 'body.site_id'],
    [{}, 'body'],
    [{ name: '' }, 'body.name'],
    [{ details: 5 }, 'body.details'],
  ] as const) {
    const res = await svc.request({ method: 'PUT', url: '/api/twin/put-1', headers: auth(admin), payload });
    assertRefused(res, 422, { fields: [field] }, JSON.stringify(payload));
  }
  const ro = await svc.request({ method: 'PUT', url: '/api/twin/put-1', headers: auth(viewer), payload: { name: 'n' } });
  assertRefused(ro, 403, 'Insufficient permissions');
  const missing = await svc.request({ method: 'PUT', url: '/api/twin/nope', headers: auth(admin), payload: { name: 'n' } });
  assert.deepEqual([missing.statusCode, json(missing)], [404, { detail: 'Not Found' }]);
  // B cannot change A's asset, and learns nothing about it.
  const cross = await svc.request({ method: 'PUT', url: '/api/twin/put-1', headers: auth(otherAdmin), payload: { name: 'stolen' } });
  assert.deepEqual([cross.statusCode, json(cross)], [404, { detail: 'Not Found' }]);
  assert.equal((await list(admin)).find((x) => x.asset_id === 'put-1').name, 'Heat pump (loft)');
});

test('DELETE /api/twin/{asset_id} removes the entry and keeps its telemetry', async () => {
  await post(admin, { asset_id: 'del-1', site_id: 's', type: 'battery', name: 'Going' });
  await ingest(svc, admin, [
    { asset_id: 'del-1', ts: '2026-01-01T00:00:00Z', soc_pct: 40 },
    { asset_id: 'del-1', ts: '2026-01-01T00:05:00Z', soc_pct: 41 },
  ]);
  // B cannot delete it.
  const cross = await svc.request({ method: 'DELETE', url: '/api/twin/del-1', headers: auth(otherAdmin) });
  assertRefused(cross, 404, 'Not Found');
  const ro = await svc.request({ method: 'DELETE', url: '/api/twin/del-1', headers: auth(analyst) });
  assertRefused(ro, 403, 'Insufficient permissions');
  const res = await svc.request({ method: 'DELETE', url: '/api/twin/del-1', headers: auth(operator) });
  assert.equal(res.statusCode, 204);
  assert.equal(res.body, '');
  assert.ok(!(await list(admin)).some((x) => x.asset_id === 'del-1'));
  const again = await svc.request({ method: 'DELETE', url: '/api/twin/del-1', headers: auth(operator) });
  assertRefused(again, 404, 'Not Found');
  // Live events still show the deleted asset's records.
  const ev = await svc.request({ method: 'GET', url: '/api/telemetry/live/events?asset_id=del-1', headers: auth(admin) });
  assert.equal(ev.statusCode, 200, ev.body);
  assert.deepEqual(
    json(ev).events.map((e: { asset_id: string }) => e.asset_id),
    ['del-1', 'del-1'],
  );
  const kept = await svc.deps.db.query<{ n: number }>("select count(*)::int as n from telemetry where org_id = $1 and asset_id = 'del-1'", [A]);
  assert.equal(kept.rows[0].n, 2);
  assert.deepEqual(
    (await auditActions(A, 'del-1')).map((r) => r.action),
    ['twin.asset.create', 'twin.asset.delete'],
  );
});

test('DELETE /api/twin/{asset_id} of a parent unlinks its children (they stay registered)', async () => {
  const meter = await svc.request({
    method: 'POST',
    url: '/api/twin/registry/assets',
    headers: auth(admin),
    payload: { asset_id: 'm-1', site_id: 'tree', asset_class: 'site_meter', name: 'Meter' },
  });
  assert.equal(meter.statusCode, 201, meter.body);
  const child = await svc.request({
    method: 'POST',
    url: '/api/twin/registry/assets',
    headers: auth(admin),
    payload: { asset_id: 'c-1', site_id: 'tree', asset_class: 'charger', name: 'Charger', parent_asset_id: 'm-1' },
  });
  assert.equal(child.statusCode, 201, child.body);
  assert.equal((await svc.request({ method: 'DELETE', url: '/api/twin/m-1', headers: auth(admin) })).statusCode, 204);
  const c = (await list(admin)).find((x) => x.asset_id === 'c-1');
  assert.equal(c.parent_asset_id, null);
  const audit = await auditActions(A, 'm-1');
  assert.deepEqual(audit.at(-1)?.details.detached_children, ['c-1']);
});
