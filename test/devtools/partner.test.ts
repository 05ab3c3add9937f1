// Partner API: me, alerts, devices, telemetry/latest, sandbox scenario; scopes, own organisation
// only, cursor pagination properties, the error envelope, the sandbox organisation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ALERT_STREAM } from '../../src/modules/alerts/index.ts';
import { bearer, clockOf, issueKey, READ } from './helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
const ORG = 'partner-org';
const OTHER = 'partner-other';
const P = '/api/devtools/partner/v1';
let live: { id: string; auth: { authorization: string } };
let otherKey: { auth: { authorization: string } };
let sandbox: { auth: { authorization: string } };

const get = (url: string, auth: { authorization: string }, extra: Record<string, string> = {}) =>
  svc.request({ method: 'GET', url, headers: { ...auth, ...extra } });

async function pageAll(url: string, auth: { authorization: string }, member: string, limit: number, between?: () => Promise<void>) {
  const rows: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await get(`${url}${url.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, auth);
    assert.equal(res.statusCode, 200, res.body);
    const body = json(res);
    assert.equal(body.next_cursor === null, !body.has_more);
    rows.push(...body[member]);
    cursor = body.next_cursor;
    if (++pages === 1 && between) await between();
  } while (cursor);
  return rows;
}

before(async () => {
  svc = await startTestService();
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  live = await issueKey(svc, ORG, { scopes: READ });
  otherKey = await issueKey(svc, OTHER, { scopes: READ });
  sandbox = await issueKey(svc, ORG, { scopes: READ, environment: 'sandbox' });
});
after(() => svc.stop());

test('me: organisation, key and environment; X-Request-Id and RateLimit headers', async () => {
  const res = await get(`${P}/me`, live.auth);
  assert.equal(res.statusCode, 200);
  assert.deepEqual(json(res).organisation, { id: ORG, name: `Org ${ORG}` });
  assert.equal(json(res).key.id, live.id);
  assert.deepEqual(json(res).key.scopes, READ);
  assert.equal(json(res).environment, 'live');
  assert.ok(res.headers['x-request-id']);
  assert.equal(res.headers['ratelimit-limit'], '600');
  assert.equal(res.headers['ratelimit-policy'], '600;w=60');
  const echoed = await get(`${P}/me`, live.auth, { 'x-request-id': 'req-abc.123' });
  assert.equal(echoed.headers['x-request-id'], 'req-abc.123');
  assertRefused(await get(`${P}/me`, { authorization: 'Bearer plat_live_0000000000000000_' + 'A'.repeat(43) }), 401, {
    code: 'invalid_api_key',
    detail: 'Invalid or expired API key',
  });
});

test('a missing scope: 403 with required_scope in the envelope and in problem+json', async () => {
  const devicesOnly = await issueKey(svc, ORG, { scopes: ['devices:read'] });
  const res = await get(`${P}/alerts`, devicesOnly.auth);
  assert.equal(res.statusCode, 403);
  const body = json(res);
  assert.equal(body.required_scope, 'alerts:read');
  assert.equal(body.code, 'insufficient_scope');
  assert.equal(body.error.code, 'insufficient_scope');
  assert.equal(body.error.request_id, res.headers['x-request-id']);
  assert.equal(body.status, 403);
  assert.equal(body.instance, `${P}/alerts`);
  const problem = await get(`${P}/telemetry/latest`, devicesOnly.auth, { accept: 'application/problem+json' });
  assert.equal(problem.statusCode, 403);
  assert.match(String(problem.headers['content-type']), /^application\/problem\+json/);
  assert.equal(json(problem).required_scope, 'telemetry:read');
  assert.equal(typeof json(problem).detail, 'string');
  // The scenario takes any read scope; a write-only key has none.
  assert.equal((await get(`${P}/sandbox/scenario`, devicesOnly.auth)).statusCode, 200);
  const writeOnly = await issueKey(svc, ORG, { scopes: ['telemetry:write'] });
  const scen = await get(`${P}/sandbox/scenario`, writeOnly.auth);
  assert.equal(scen.statusCode, 403);
  assert.equal(json(scen).required_scope, 'alerts:read | devices:read | telemetry:read');
  assert.equal((await get(`${P}/me`, writeOnly.auth)).statusCode, 200, 'me takes any key');
});

test('alerts: own organisation only, newest first, since filters, cursor pages each row once while rows are added', async () => {
  const stream = svc.deps.services.get(ALERT_STREAM);
  const t0 = svc.clock.now().getTime();
  const raise = (org: string, i: number) =>
    svc.deps.db.tx((q) => stream.raise(q, org, { type: 'test_alert', source: 'test', severity: 'info', title: `#${i}`, dedupeKey: `k${i}` }));
  for (let i = 0; i < 12; i++) {
    // Several alerts share a timestamp: ties are broken by row id.
    if (i % 3 === 0) clockOf(svc).advance(1000);
    await raise(ORG, i);
  }
  await raise(OTHER, 99);
  let extra = 100;
  const rows = await pageAll(`${P}/alerts`, live.auth, 'alerts', 5, async () => {
    for (let j = 0; j < 3; j++) await raise(ORG, extra++);
  });
  const titles = rows.map((a) => a.title);
  assert.equal(new Set(titles).size, titles.length, 'no row twice');
  for (let i = 0; i < 12; i++) assert.ok(titles.includes(`#${i}`), `#${i} present`);
  assert.ok(!titles.includes('#99'), 'no other organisation');
  const times = rows.map((a) => Date.parse(a.raised_at));
  assert.ok(
    times.every((t, i) => i === 0 || t <= times[i - 1]),
    'newest first',
  );
  // since filters on raised_at.
  const since = new Date(t0 + 2000).toISOString();
  const filtered = json(await get(`${P}/alerts?since=${encodeURIComponent(since)}&limit=200`, live.auth)).alerts;
  assert.ok(filtered.length > 0 && filtered.every((a: { raised_at: string }) => a.raised_at >= since));
  // The other organisation's key sees only its own.
  const others = json(await get(`${P}/alerts`, otherKey.auth)).alerts;
  assert.deepEqual(
    others.map((a: { title: string }) => a.title),
    ['#99'],
  );
});

test('alerts: a since the schema admits but no store holds (leap second 23:59:60, year 0000) is 422 on query.since, not 500', async () => {
  // Audit 2026-11-27: both answered 500 (Invalid Date reached toISOString; PostgreSQL has no year 0).
  for (const since of ['2026-12-31T23:59:60Z', '0000-01-01T00:00:00Z', '0001-01-01T00:30:00+01:00']) {
    const res = await get(`${P}/alerts?since=${encodeURIComponent(since)}`, live.auth);
    assertRefused(res, 422, { code: 'validation_error', fields: ['query.since'] }, since);
    assert.equal(json(res).error.request_id, res.headers['x-request-id']);
  }
  // The first instant of year 1 is still a filter like any other.
  assert.equal((await get(`${P}/alerts?since=${encodeURIComponent('0001-01-01T00:00:00Z')}`, live.auth)).statusCode, 200);
});

test('cursors: unreadable, forged, other-operation, changed-filter and other-organisation cursors are 400 invalid_cursor', async () => {
  const first = json(await get(`${P}/alerts?limit=2`, live.auth));
  assert.ok(first.next_cursor);
  const c = first.next_cursor as string;
  const flipped = c.slice(0, 3) + (c[3] === 'A' ? 'B' : 'A') + c.slice(4);
  const cases: [string, { authorization: string }][] = [
    [`${P}/alerts?cursor=not-a-cursor`, live.auth],
    [`${P}/alerts?cursor=${encodeURIComponent(flipped)}`, live.auth],
    [`${P}/alerts?cursor=${encodeURIComponent(c)}&since=2020-01-01T00:00:00Z`, live.auth],
    [`${P}/devices?cursor=${encodeURIComponent(c)}`, live.auth],
    [`${P}/telemetry/latest?cursor=${encodeURIComponent(c)}`, live.auth],
    [`${P}/alerts?cursor=${encodeURIComponent(c)}`, otherKey.auth],
    [`${P}/alerts?cursor=${encodeURIComponent(c)}`, sandbox.auth],
  ];
  for (const [url, auth] of cases) {
    const res = await get(url, auth);
    assert.equal(res.statusCode, 400, url);
    assert.equal(json(res).detail, 'invalid_cursor');
    assert.equal(json(res).code, 'invalid_cursor');
  }
  assert.equal((await get(`${P}/alerts?cursor=${encodeURIComponent(c)}`, live.auth)).statusCode, 200);
  for (const [q, field] of [
    ['limit=0', 'query.limit'],
    ['limit=201', 'query.limit'],
    ['since=yesterday', 'query.since'],
    ['hours=0', 'query.hours'],
  ]) {
    assertRefused(await get(`${P}/alerts?${q}`, live.auth), 422, { code: 'validation_error', fields: [field] }, q);
  }
});

test('devices: registered assets with last-reported fields, paged newest first; other organisation not visible', async () => {
  const admin = await bearer(svc, ORG);
  for (let i = 0; i < 5; i++) {
    if (i % 2 === 0) clockOf(svc).advance(1000);
    const res = await svc.request({
      method: 'POST',
      url: '/api/twin/',
      headers: admin,
      payload: { asset_id: `dev-${i}`, site_id: 'site-1', type: i === 0 ? 'battery' : 'meter', name: `Device ${i}` },
    });
    assert.equal(res.statusCode, 201, res.body);
  }
  await svc.request({
    method: 'POST',
    url: '/api/twin/',
    headers: await bearer(svc, OTHER),
    payload: { asset_id: 'foreign', site_id: 's', type: 'meter', name: 'x' },
  });
  const ts = new Date(svc.clock.now().getTime() - 60_000).toISOString();
  const ing = await svc.request({
    method: 'POST',
    url: '/api/telemetry/ingest',
    headers: admin,
    payload: [{ asset_id: 'dev-0', ts, power_kw: -2, status: 'Discharging' }],
  });
  assert.ok([200, 207].includes(ing.statusCode), ing.body);
  const rows = await pageAll(`${P}/devices`, live.auth, 'devices', 2);
  assert.deepEqual(
    rows.map((d) => d.asset_id),
    ['dev-4', 'dev-3', 'dev-2', 'dev-1', 'dev-0'],
  );
  const d0 = rows.find((d) => d.asset_id === 'dev-0');
  assert.equal(d0.last_reported_at, ts);
  assert.equal(d0.last_reported_source, 'telemetry');
  assert.equal(d0.status_canonical, 'discharging');
  const d1 = rows.find((d) => d.asset_id === 'dev-1');
  assert.equal(d1.last_reported_at, null);
  assert.equal(d1.last_reported_source, null);
  assert.ok(!json(await get(`${P}/devices`, otherKey.auth)).devices.some((d: { asset_id: string }) => d.asset_id.startsWith('dev-')));
  const alertsOnly = await issueKey(svc, ORG, { scopes: ['alerts:read'] });
  assertRefused(await get(`${P}/devices`, alertsOnly.auth), 403, { code: 'insufficient_scope', detail: 'Missing scope: devices:read' });
});

test('telemetry/latest: readings in the window with status (deprecated) and status_canonical; window fixed by the first page', async () => {
  const admin = await bearer(svc, ORG);
  const now = svc.clock.now().getTime();
  const records = [
    { asset_id: 'dev-0', ts: new Date(now - 30 * 60_000).toISOString(), power_kw: 3, status: 'CHARGING' },
    { asset_id: 'dev-1', ts: new Date(now - 20 * 60_000).toISOString(), power_kw: -1.2, status: 'unknown' },
    { asset_id: 'dev-1', ts: new Date(now - 10 * 60_000).toISOString(), power_kw: 0.8 },
    { asset_id: 'dev-2', ts: new Date(now - 10 * 60_000).toISOString(), power_kw: 0, status: 'Fault 42' },
    { asset_id: 'dev-3', ts: new Date(now - 10 * 60_000).toISOString(), status: 'OFFLINE' },
    { asset_id: 'dev-4', ts: new Date(now - 5 * 3_600_000).toISOString(), power_kw: 1, status: 'ok' },
  ];
  const ing = await svc.request({ method: 'POST', url: '/api/telemetry/ingest', headers: admin, payload: records });
  assert.ok([200, 207].includes(ing.statusCode), ing.body);
  const one = json(await get(`${P}/telemetry/latest?hours=1&limit=200`, live.auth));
  const byTs = one.readings.filter((r: { asset_id: string }) => r.asset_id !== 'dev-0' || true);
  assert.ok(
    one.readings.every((r: { ts: string }) => Date.parse(r.ts) >= now - 3_600_000),
    'only the last hour',
  );
  assert.ok(!one.readings.some((r: { asset_id: string }) => r.asset_id === 'dev-4'));
  const canon = Object.fromEntries(byTs.map((r: { ts: string; asset_id: string; status_canonical: string }) => [`${r.asset_id}@${r.ts}`, r.status_canonical]));
  assert.equal(canon[`dev-0@${records[0].ts}`], 'charging');
  assert.equal(canon[`dev-1@${records[1].ts}`], 'exporting', 'unknown status: power sign (negative = export)');
  assert.equal(canon[`dev-1@${records[2].ts}`], 'importing');
  assert.equal(canon[`dev-3@${records[4].ts}`], 'offline');
  const statuses = one.readings.map((r: { status: string }) => r.status);
  assert.ok(statuses.includes('CHARGING'), 'status is the stored value');
  // The window is fixed by the first page: moving the clock while paging shifts nothing.
  const p1 = json(await get(`${P}/telemetry/latest?hours=1&limit=2`, live.auth));
  clockOf(svc).advance(25 * 60_000);
  let cursor = p1.next_cursor;
  const rest: any[] = [];
  while (cursor) {
    const p = json(await get(`${P}/telemetry/latest?hours=1&limit=2&cursor=${encodeURIComponent(cursor)}`, live.auth));
    assert.equal(p.window_start, p1.window_start);
    rest.push(...p.readings);
    cursor = p.next_cursor;
  }
  assert.equal(p1.readings.length + rest.length, one.readings.length, 'the oldest reading (30 min old at the first page) is still served');
  assertRefused(
    await get(`${P}/telemetry/latest?hours=2&cursor=${encodeURIComponent(p1.next_cursor)}`, live.auth),
    400,
    { code: 'invalid_cursor', detail: 'invalid_cursor' },
    'changed filter',
  );
  assertRefused(await get(`${P}/telemetry/latest?hours=200`, live.auth), 422, { code: 'validation_error', fields: ['query.hours'] });
  // OpenAPI marks the stored status as deprecated in the schema (the operation is not deprecated).
  const doc = json(await svc.request({ method: 'GET', url: '/openapi.json' }));
  const op = doc.paths[`${P}/telemetry/latest`].get;
  assert.equal(op.deprecated, undefined);
  // The reading is a named component (a generated client gets one TelemetryReading type).
  const ref = op.responses['200'].content['application/json'].schema.properties.readings.items.$ref;
  assert.equal(ref, '#/components/schemas/TelemetryReading');
  const reading = doc.components.schemas.TelemetryReading;
  assert.equal(reading.properties.status.deprecated, true);
  assert.deepEqual(reading.properties.status_canonical.anyOf.map((x: { const: string }) => x.const).sort(), [
    'charging',
    'discharging',
    'exporting',
    'fault',
    'idle',
    'importing',
    'offline',
    'online',
    'producing',
    'unknown',
  ]);
});

test('sandbox: a demo-sandbox organisation derived from the caller; two sites, six assets, five-minute telemetry, two alerts; deterministic', async () => {
  const scen = json(await get(`${P}/sandbox/scenario`, sandbox.auth));
  assert.match(scen.organisation_id, /^demo-sandbox-[0-9a-f]{16}$/);
  assert.equal(scen.sites.length, 2);
  assert.equal(scen.assets.length, 6);
  assert.equal(scen.telemetry_interval_seconds, 300);
  assert.equal(scen.alerts.length, 2);
  const otherSandbox = await issueKey(svc, OTHER, { environment: 'sandbox' });
  const otherScen = json(await get(`${P}/sandbox/scenario`, otherSandbox.auth));
  assert.notEqual(otherScen.organisation_id, scen.organisation_id);
  const a = json(await get(`${P}/telemetry/latest?hours=1&limit=200`, sandbox.auth));
  const b = json(await get(`${P}/telemetry/latest?hours=1&limit=200`, sandbox.auth));
  assert.deepEqual(a, b, 'same organisation and time: same data');
  assert.equal(a.readings.length, 12 * 6, 'one hour of five-minute readings for six assets');
  assert.ok(a.readings.every((r: { status_canonical: string }) => r.status_canonical));
  const c = json(await get(`${P}/telemetry/latest?hours=1&limit=200`, otherSandbox.auth));
  assert.notDeepEqual(
    c.readings.map((r: { power_kw: number }) => r.power_kw),
    a.readings.map((r: { power_kw: number }) => r.power_kw),
  );
  const paged = await pageAll(`${P}/telemetry/latest?hours=1`, sandbox.auth, 'readings', 7);
  assert.deepEqual(
    paged.map((r) => r.id),
    a.readings.map((r: { id: string }) => r.id),
  );
  const alerts = json(await get(`${P}/alerts`, sandbox.auth)).alerts;
  assert.equal(alerts.length, 2);
  const devices = json(await get(`${P}/devices`, sandbox.auth)).devices;
  assert.equal(devices.length, 6);
  assert.ok(devices.every((d: { last_reported_at: string }) => Date.parse(d.last_reported_at) % 300_000 === 0));
  // Never the caller's own data.
  assert.ok(!devices.some((d: { asset_id: string }) => d.asset_id.startsWith('dev-')));
  const me = json(await get(`${P}/me`, sandbox.auth));
  assert.equal(me.organisation.id, scen.organisation_id);
});

test('sandbox answers say simulated (concepts.md section 1), the same operations with a live key what they declare', async () => {
  for (const path of ['/alerts', '/devices', '/telemetry/latest', '/sandbox/scenario']) {
    const res = await get(`${P}${path}`, sandbox.auth);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['x-platform-data-basis'], 'simulated', path);
    assert.match(String(res.headers['x-platform-method']), /generated on the fly/i, path);
  }
  const basis = async (path: string) => (await get(`${P}${path}`, live.auth)).headers['x-platform-data-basis'];
  assert.deepEqual([await basis('/alerts'), await basis('/devices'), await basis('/telemetry/latest')], ['stored', 'stored', 'measured']);
  // The key and its settings are configuration, whichever environment.
  assert.equal((await get(`${P}/me`, sandbox.auth)).headers['x-platform-data-basis'], 'configured');
});
