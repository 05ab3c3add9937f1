// Export limitation through HTTP: per-site configuration, the 30 s loop on the job queue holding a
// demo site under its limit through a scripted day of PV and load (the service clock moved), runs
// on demand, events, overrides (the loop respects them; revoke records who and why; expiry ends
// them by itself), the sites under control; and every decision recorded replays the same.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { call, clockOf, ok, replayAll, tokenFor } from './helpers.ts';
import { CONTROL_SETPOINTS } from '../../src/modules/control/index.ts';

let svc: TestService;
const DEMO = 'demo-control-el';
const OTHER = 'demo-control-el-other';
const PROD = 'acme-control-el';
const SITE = 'farm-1';
let admin: string;
let operator: string;
let viewer: string;
let other: string;
let prod: string;

before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-06-21T04:00:00.000Z') });
  await svc.createOrg(DEMO);
  await svc.createOrg(OTHER);
  await svc.createOrg(PROD);
  admin = await tokenFor(svc, DEMO, 'ORG_ADMIN', 'user-ada');
  operator = await tokenFor(svc, DEMO, 'OPERATOR', 'user-otto');
  viewer = await tokenFor(svc, DEMO, 'VIEWER');
  other = await tokenFor(svc, OTHER);
  prod = await tokenFor(svc, PROD);
});
after(() => svc.stop());

const cfgUrl = (site = SITE) => `/api/hardware/ems/control/sites/${site}/config`;
const balance = async () => ok(svc, viewer, 'GET', `/api/hardware/ems/control/sites/${SITE}/balance`);
const scenario = (load_kw: number, pv_available_kw: number, extra: object = {}) =>
  ok(svc, admin, 'POST', `/api/hardware/ems/control/demo/sites/${SITE}/scenario`, { load_kw, pv_available_kw, ...extra });
const run = () => call(svc, operator, 'POST', `/api/hardware/ems/export-limit/${SITE}/run`);

test('configuration: defaults, set, kept members, refusals', async () => {
  assertRefused(await call(svc, viewer, 'GET', cfgUrl()), 404, 'Site not found');
  await scenario(0.5, 0, { pv_rated_kw: 8, battery_soc_pct: 20 });
  const d = await ok(svc, viewer, 'GET', cfgUrl());
  assert.equal(d.configured, false);
  assert.deepEqual(d.export_limitation, { enabled: false, limit_kw: null, margin_kw: 0.2 });
  assert.equal(d.loop.active, false);
  assert.match(d.loop.description, /not G100 certified/);

  assertRefused(await call(svc, admin, 'PUT', cfgUrl(), { export_limitation: { enabled: true } }), 422, { fields: ['body.export_limitation.limit_kw'] });
  assertRefused(
    await call(svc, admin, 'PUT', cfgUrl(), {
      connection: { import_limit_kw: 20, export_limit_kw: 2, category: 'G99' },
      export_limitation: { enabled: true, limit_kw: 3 },
    }),
    422,
    { fields: ['body.export_limitation.limit_kw'] },
  );
  assertRefused(await call(svc, admin, 'PUT', cfgUrl(), { settle_seconds: 0 }), 422, { fields: ['body.settle_seconds'] });
  assertRefused(await call(svc, viewer, 'PUT', cfgUrl(), { settle_seconds: 5 }), 403, /./);
  assertRefused(await call(svc, other, 'PUT', cfgUrl(), { settle_seconds: 5 }), 404, 'Site not found');

  const put = await ok(svc, admin, 'PUT', cfgUrl(), {
    connection: { import_limit_kw: 20, export_limit_kw: 3.68, category: 'G99', reference: 'NG-123' },
    export_limitation: { enabled: true, limit_kw: 3 },
  });
  assert.equal(put.configured, true);
  assert.deepEqual(put.export_limitation, { enabled: true, limit_kw: 3, margin_kw: 0.2 });
  assert.deepEqual(put.connection, { import_limit_kw: 20, export_limit_kw: 3.68, category: 'G99', phases: 1, reference: 'NG-123' });
  assert.equal(put.loop.active, true);
  assert.equal(put.updated_by, 'user-ada');
  // A member left out keeps its value.
  const again = await ok(svc, operator, 'PUT', cfgUrl(), { settle_seconds: 4 });
  assert.equal(again.export_limitation.limit_kw, 3);
  assert.equal(again.settle_seconds, 4);
  assert.deepEqual((await ok(svc, viewer, 'GET', cfgUrl())).connection, put.connection);

  // A production organisation: recorded, no loop.
  const ingest = await call(svc, prod, 'POST', '/api/telemetry/ingest', {
    device_id: 'plant-meter',
    site_ref: 'plant-1',
    ts: '2026-06-21T03:59:00Z',
    power_kw: 1,
  });
  assert.equal(ingest.statusCode, 200, ingest.body);
  const p = await ok(svc, prod, 'PUT', cfgUrl('plant-1'), { export_limitation: { enabled: true, limit_kw: 10 } });
  assert.equal(p.loop.active, false);
  assert.match(p.loop.description, /production organisation/);
});

test('the 30 s loop holds a demo site under its limit through a scripted day', async () => {
  // Hourly from 05:00 to 20:00 UTC: PV available and site load.
  const day: [number, number][] = [
    [0.2, 0.6],
    [1.5, 0.8],
    [3, 0.7],
    [4.5, 0.6],
    [6, 0.9],
    [7, 1.2],
    [7.8, 0.5],
    [8, 0.4],
    [7.6, 1.5],
    [6.8, 0.7],
    [5.5, 0.6],
    [4, 2.2],
    [2.5, 1.8],
    [1.2, 2.5],
    [0.4, 1.9],
    [0, 1.2],
  ];
  const before = (await ok(svc, viewer, 'GET', `/api/hardware/ems/export-limit/${SITE}/events?limit=200`)).events.length;
  let ticks = 0;
  let maxUncontrolled = 0;
  for (const [i, [pv, load]] of day.entries()) {
    clockOf(svc).set(new Date(Date.parse('2026-06-21T05:00:00.000Z') + i * 3_600_000));
    await scenario(load, pv);
    maxUncontrolled = Math.max(maxUncontrolled, pv - load);
    clockOf(svc).advance(30_000);
    await svc.runDue();
    ticks++;
    const b = await balance();
    assert.ok(b.export_kw <= 3 + 0.05, `${b.at}: export ${b.export_kw} kW above the 3 kW limit (pv ${pv}, load ${load})`);
  }
  assert.ok(maxUncontrolled > 7, 'the day would export well above the limit uncontrolled');
  const events = (await ok(svc, viewer, 'GET', `/api/hardware/ems/export-limit/${SITE}/events?limit=200`)).events;
  const scheduled = events.filter((e: any) => e.trigger === 'schedule');
  assert.equal(events.length - before, ticks, 'one iteration per tick');
  assert.equal(new Set(scheduled.map((e: any) => e.tick_at)).size, scheduled.length);
  const outcomes = new Set(events.map((e: any) => e.outcome));
  assert.ok(outcomes.has('held'), [...outcomes].join());
  assert.ok(!outcomes.has('over_limit'), [...outcomes].join());
  const commands = events.flatMap((e: any) => e.commands);
  assert.ok(
    commands.some((c: any) => c.device_id === 'farm-1.battery' && c.value_kw > 0),
    'the battery charged',
  );
  assert.ok(
    commands.some((c: any) => c.device_id === 'farm-1.pv' && c.value_kw < 8),
    'PV was curtailed',
  );
  assert.ok(commands.every((c: any) => c.verdict === 'verified'));
  // Each event's decision says the same.
  const d = await ok(svc, viewer, 'GET', `/api/hardware/ems/decisions/${events[0].decision_id}`);
  assert.equal(d.kind, 'export_limit');
  assert.equal(d.outcome.outcome, events[0].outcome);
  // The evening: curtailment and extra charge given back over the ticks.
  const last = await balance();
  assert.equal(last.devices.find((x: any) => x.kind === 'battery').setpoint_kw, 0, JSON.stringify(last.devices));
  assert.equal(last.devices.find((x: any) => x.kind === 'pv').setpoint_kw, 8);
  // Each iteration stored the boundary meter's reading as telemetry: capacity measures from it.
  const cap = await ok(svc, viewer, 'GET', `/api/hardware/ems/grid/sites/${SITE}/capacity`);
  assert.deepEqual(cap.meters, ['farm-1.meter']);
  assert.equal(cap.half_hours.filter((h: any) => h.half_hours_measured > 0).length, ticks);
  assert.equal(cap.import_limit_kw, 20);
  assert.equal(cap.peak_import_kw, Math.max(...events.filter((e: any) => e.trigger === 'schedule').map((e: any) => e.boundary_after_kw)));
});

test('the loop’s meter readings are simulated wherever they are read back: stored record, history, recent records, capacity, energy', async () => {
  const recent = await call(svc, viewer, 'GET', '/api/telemetry/live/events?asset_id=farm-1.meter&limit=500');
  assert.equal(recent.statusCode, 200, recent.body);
  const events = json(recent).events;
  assert.ok(events.length > 0);
  assert.ok(
    events.every((e: any) => e.raw.simulated === true && e.raw.source === 'demo-device-model' && e.status !== 'measured'),
    JSON.stringify(events[0]),
  );
  const reads = [
    '/api/telemetry/live/events?asset_id=farm-1.meter',
    '/api/telemetry/assets/smart-meter/farm-1.meter/history?range=hourly',
    `/api/hardware/ems/grid/sites/${SITE}/capacity`,
    '/api/telemetry/sites',
  ];
  for (const url of reads) {
    const res = await call(svc, viewer, 'GET', url);
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    assert.equal(res.headers['x-platform-data-basis'], 'simulated', url);
    assert.match(String(res.headers['x-platform-method']), /^Demo organisation: simulated devices and synthetic readings/, url);
  }
  // A production organisation's readings keep the basis each operation declares.
  const p = await call(svc, prod, 'GET', '/api/telemetry/live/events?asset_id=plant-meter');
  assert.equal(p.headers['x-platform-data-basis'], 'stored');
  assert.equal(
    (await call(svc, prod, 'GET', '/api/telemetry/assets/smart-meter/plant-meter/history?range=hourly')).headers['x-platform-data-basis'],
    'calculated',
  );
});

test('run on demand: one iteration now; refusals', async () => {
  await scenario(0.5, 7.5, { battery_soc_pct: 40 });
  await ok(svc, admin, 'POST', '/api/hardware/ems/control/setpoints', { site_id: SITE, device_id: 'farm-1.battery', value_kw: 0 });
  await ok(svc, admin, 'POST', '/api/hardware/ems/control/setpoints', { site_id: SITE, device_id: 'farm-1.pv', value_kw: 8 });
  // Battery ignores commands: the loop's second round curtails PV instead.
  await ok(svc, admin, 'POST', '/api/hardware/ems/control/demo/devices/farm-1.battery/behaviour', { behaviour: 'ignores' });
  const res = await run();
  assert.equal(res.statusCode, 200, res.body);
  const e = json(res);
  assert.equal(e.trigger, 'manual');
  assert.equal(e.tick_at, null);
  assert.ok(e.export_before_kw > 3);
  assert.ok(e.export_after_kw <= 3.05, JSON.stringify(e));
  assert.equal(e.outcome, 'held');
  assert.deepEqual(
    e.commands.map((c: any) => [c.device_id, c.verdict]),
    [
      ['farm-1.battery', 'readback_mismatch'],
      ['farm-1.pv', 'verified'],
    ],
  );
  await ok(svc, admin, 'POST', '/api/hardware/ems/control/demo/devices/farm-1.battery/behaviour', { behaviour: 'normal' });

  assertRefused(await call(svc, viewer, 'POST', `/api/hardware/ems/export-limit/${SITE}/run`), 403, /./);
  assertRefused(await call(svc, other, 'POST', `/api/hardware/ems/export-limit/${SITE}/run`), 404, 'No device model for this site; set a scenario first');
  await ok(svc, admin, 'POST', '/api/hardware/ems/control/demo/sites/bare-1/scenario', { load_kw: 1, pv_available_kw: 1 });
  assertRefused(await call(svc, admin, 'POST', '/api/hardware/ems/export-limit/bare-1/run'), 409, 'Export limitation not configured for this site');
  assertRefused(await call(svc, admin, 'POST', '/api/hardware/ems/export-limit/bad%20site%20/run'), 422, { fields: ['path.site_id'] });
});

test('events: paged, per site; refusals', async () => {
  const p1 = await ok(svc, viewer, 'GET', `/api/hardware/ems/export-limit/${SITE}/events?limit=2`);
  assert.equal(p1.events.length, 2);
  assert.equal(p1.has_more, true);
  assert.match(p1.loop.description, /cloud hosted, not type tested and not G100 certified/);
  const p2 = await ok(svc, viewer, 'GET', `/api/hardware/ems/export-limit/${SITE}/events?limit=2&cursor=${encodeURIComponent(p1.next_cursor)}`);
  assert.ok(Date.parse(p2.events[0].at) <= Date.parse(p1.events[1].at));
  assert.deepEqual((await ok(svc, viewer, 'GET', '/api/hardware/ems/export-limit/bare-1/events')).events, []);
  assertRefused(await call(svc, other, 'GET', `/api/hardware/ems/export-limit/${SITE}/events`), 404, 'Site not found');
  assertRefused(await call(svc, viewer, 'GET', `/api/hardware/ems/export-limit/${SITE}/events?limit=0`), 422, { fields: ['query.limit'] });
});

test('overrides: the loop respects one; revoke records who and why; expiry ends it by itself', async () => {
  const now = () => svc.clock.now().getTime();
  await scenario(0.5, 7.5);
  await ok(svc, admin, 'POST', '/api/hardware/ems/control/setpoints', { site_id: SITE, device_id: 'farm-1.pv', value_kw: 8 });
  await ok(svc, admin, 'POST', '/api/hardware/ems/control/setpoints', { site_id: SITE, device_id: 'farm-1.battery', value_kw: 0 });

  const created = await ok(
    svc,
    operator,
    'POST',
    '/api/hardware/ems/overrides',
    {
      site_id: SITE,
      reason: 'Inverter firmware update on site',
      authority: 'Site manager J. Smith',
      expires_at: new Date(now() + 3_600_000).toISOString(),
    },
    201,
  );
  assert.equal(created.status, 'active');
  assert.equal(created.created_by, 'user-otto');
  const held = json(await run());
  assert.equal(held.outcome, 'skipped_override');
  assert.deepEqual(held.commands, []);
  assert.ok(held.export_after_kw > 3, 'nothing was sent');
  // The optimiser's write (the exported service) is refused while the override holds; a manual one acts.
  const setpoints = svc.deps.services.get(CONTROL_SETPOINTS);
  const countBefore = (await ok(svc, viewer, 'GET', '/api/hardware/ems/control/setpoints?limit=200')).setpoints.length;
  await assert.rejects(
    svc.deps.db.tx((q) => setpoints.write(q, DEMO, { site_id: SITE, device_id: 'farm-1.pv', value_kw: 2, source: 'optimiser' }, null)),
    (e: any) => e.status === 409 && e.detail === 'Override active',
  );
  assert.deepEqual(await svc.deps.db.tx((q) => setpoints.overrides(q, DEMO, SITE)), { site: true, devices: [] });
  assert.equal((await ok(svc, viewer, 'GET', '/api/hardware/ems/control/setpoints?limit=200')).setpoints.length, countBefore, 'nothing recorded');
  // A production organisation through the service: 403 Demo realm only.
  await assert.rejects(
    svc.deps.db.tx((q) => setpoints.write(q, PROD, { site_id: 'plant-1', device_id: 'plant-1.pv', value_kw: 2, source: 'optimiser' }, null)),
    (e: any) => e.status === 403 && e.detail === 'Demo realm only',
  );
  assert.equal((await ok(svc, viewer, 'GET', '/api/hardware/ems/control/sites')).sites.find((s: any) => s.site_id === SITE).active_overrides, 1);

  const revoked = await ok(svc, admin, 'POST', `/api/hardware/ems/overrides/${created.override_id}/revoke`, { reason: 'Update finished early' });
  assert.equal(revoked.status, 'revoked');
  assert.equal(revoked.revoked_by, 'user-ada');
  assert.equal(revoked.revoke_reason, 'Update finished early');
  assertRefused(
    await call(svc, admin, 'POST', `/api/hardware/ems/overrides/${created.override_id}/revoke`, { reason: 'again' }),
    409,
    'Override not active: revoked',
  );
  assert.equal(json(await run()).outcome, 'held');

  // A device override: the loop leaves the battery alone and curtails PV.
  await ok(svc, admin, 'POST', '/api/hardware/ems/control/setpoints', { site_id: SITE, device_id: 'farm-1.pv', value_kw: 8 });
  await ok(svc, admin, 'POST', '/api/hardware/ems/control/setpoints', { site_id: SITE, device_id: 'farm-1.battery', value_kw: 0 });
  const dev = await ok(
    svc,
    operator,
    'POST',
    '/api/hardware/ems/overrides',
    {
      site_id: SITE,
      device_id: 'farm-1.battery',
      reason: 'Cell balancing',
      authority: 'Battery vendor',
      expires_at: new Date(now() + 60_000).toISOString(),
    },
    201,
  );
  const e = json(await run());
  assert.deepEqual(
    e.commands.map((c: any) => c.device_id),
    ['farm-1.pv'],
  );
  // Expiry ends it by itself.
  clockOf(svc).advance(61_000);
  const list = await ok(svc, viewer, 'GET', `/api/hardware/ems/overrides?site_id=${SITE}`);
  assert.equal(list.overrides.find((o: any) => o.override_id === dev.override_id).status, 'expired');
  assert.equal((await ok(svc, viewer, 'GET', '/api/hardware/ems/overrides?status=expired')).overrides.length, 1);
  assert.equal((await ok(svc, viewer, 'GET', '/api/hardware/ems/overrides?status=revoked')).overrides.length, 1);
  assert.equal((await ok(svc, viewer, 'GET', '/api/hardware/ems/overrides?status=active')).overrides.length, 0);
  assertRefused(
    await call(svc, admin, 'POST', `/api/hardware/ems/overrides/${dev.override_id}/revoke`, { reason: 'late' }),
    409,
    'Override not active: expired',
  );

  // Refusals.
  const base = { site_id: SITE, reason: 'r', authority: 'a', expires_at: new Date(now() + 60_000).toISOString() };
  assertRefused(await call(svc, admin, 'POST', '/api/hardware/ems/overrides', { ...base, expires_at: new Date(now() - 1000).toISOString() }), 422, {
    fields: ['body.expires_at'],
  });
  assertRefused(await call(svc, admin, 'POST', '/api/hardware/ems/overrides', { ...base, expires_at: new Date(now() + 8 * 86_400_000).toISOString() }), 422, {
    fields: ['body.expires_at'],
  });
  assertRefused(await call(svc, admin, 'POST', '/api/hardware/ems/overrides', { ...base, reason: '' }), 422, { fields: ['body.reason'] });
  assertRefused(await call(svc, admin, 'POST', '/api/hardware/ems/overrides', { ...base, device_id: 'elsewhere' }), 422, { fields: ['body.device_id'] });
  assertRefused(await call(svc, admin, 'POST', '/api/hardware/ems/overrides', { ...base, site_id: 'nowhere' }), 404, 'Site not found');
  assertRefused(await call(svc, viewer, 'POST', '/api/hardware/ems/overrides', base), 403, /./);
  assertRefused(await call(svc, other, 'POST', `/api/hardware/ems/overrides/${dev.override_id}/revoke`, { reason: 'x' }), 404, 'Override not found');
  assertRefused(await call(svc, viewer, 'POST', `/api/hardware/ems/overrides/${dev.override_id}/revoke`, { reason: 'x' }), 403, /./);
  assertRefused(await call(svc, admin, 'POST', `/api/hardware/ems/overrides/${dev.override_id}/revoke`, {}), 422, { fields: ['body.reason'] });
  assert.deepEqual((await ok(svc, other, 'GET', '/api/hardware/ems/overrides')).overrides, []);
  assertRefused(await call(svc, viewer, 'GET', '/api/hardware/ems/overrides?status=paused'), 422, { fields: ['query.status'] });
});

test('sites under control; refusals', async () => {
  const s = await ok(svc, viewer, 'GET', '/api/hardware/ems/control/sites');
  assert.equal(s.demo_realm, true);
  const farm = s.sites.find((x: any) => x.site_id === SITE);
  assert.equal(farm.device_model, true);
  assert.deepEqual(farm.export_limitation, { enabled: true, limit_kw: 3, loop_active: true });
  assert.equal(farm.connection.reference, 'NG-123');
  assert.ok(farm.last_setpoint_at);
  assert.ok(farm.last_export_event.outcome);
  assert.deepEqual(
    s.sites.map((x: any) => x.site_id),
    ['bare-1', 'farm-1'],
  );
  const p = await ok(svc, prod, 'GET', '/api/hardware/ems/control/sites');
  assert.deepEqual(
    p.sites.map((x: any) => [x.site_id, x.device_model, x.export_limitation.loop_active]),
    [['plant-1', false, false]],
  );
  assertRefused(await call(svc, null, 'GET', '/api/hardware/ems/control/sites'), 401, /./);
});

test('every decision recorded in this file replays to the same result', async () => {
  assert.ok((await replayAll(svc, viewer)) > 20);
});

test('retention: idle scheduled iterations older than 7 days go with their decisions; acting and manual ones stay', async () => {
  const list = async () => (await ok(svc, viewer, 'GET', `/api/hardware/ems/export-limit/${SITE}/events?limit=200`)).events;
  const before = await list();
  const idle = before.filter((e: any) => e.trigger === 'schedule' && e.action === 'none');
  const kept = before.filter((e: any) => !(e.trigger === 'schedule' && e.action === 'none'));
  assert.ok(idle.length > 0 && kept.some((e: any) => e.trigger === 'schedule'), 'the day had idle and acting ticks');
  assert.ok(
    kept.some((e: any) => e.trigger !== 'schedule'),
    'and a run on demand',
  );
  // Six days on: nothing is old enough yet.
  const last = Math.max(...before.map((e: any) => Date.parse(e.at)));
  clockOf(svc).set(new Date(last + 6 * 86_400_000));
  await svc.runDue();
  const six = await list();
  for (const e of before)
    assert.ok(
      six.some((x: any) => x.event_id === e.event_id),
      `kept at 6 days: ${e.event_id}`,
    );
  // Eight days on: the idle ticks of that day are gone, their decisions too; the rest is whole.
  clockOf(svc).set(new Date(last + 8 * 86_400_000 + 3_600_000));
  await svc.runDue();
  const after = await list();
  for (const e of idle) assert.ok(!after.some((x: any) => x.event_id === e.event_id), `idle tick ${e.tick_at} purged`);
  for (const e of kept)
    assert.ok(
      after.some((x: any) => x.event_id === e.event_id),
      `kept: ${e.trigger} ${e.action} ${e.at}`,
    );
  assertRefused(await call(svc, viewer, 'GET', `/api/hardware/ems/decisions/${idle[0].decision_id}`), 404, 'Decision not found');
  const d = await ok(svc, viewer, 'GET', `/api/hardware/ems/decisions/${kept[0].decision_id}`);
  assert.equal(d.decision_id, kept[0].decision_id);
  // The loop goes on writing new iterations (recent, so kept) after the purge.
  assert.ok(after.some((x: any) => Date.parse(x.at) > last + 8 * 86_400_000));
});
