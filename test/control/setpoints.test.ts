// The synthetic device model and the verified setpoint write through HTTP: the boundary follows the
// physics, each device behaviour gives its verdict, every write is in the decision log and replays
// to the same verdict; production organisations get 403 `Demo realm only` with nothing recorded.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { call, clockOf, ok, replayAll, tokenFor } from './helpers.ts';

let svc: TestService;
const DEMO = 'demo-control-sp';
const OTHER = 'demo-control-sp-other';
const PROD = 'acme-control-sp';
const SITE = 'home-1';
let admin: string;
let viewer: string;
let other: string;
let prod: string;

before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-06-21T12:00:00.000Z') });
  await svc.createOrg(DEMO);
  await svc.createOrg(OTHER);
  await svc.createOrg(PROD);
  admin = await tokenFor(svc, DEMO, 'ORG_ADMIN', 'user-ada');
  viewer = await tokenFor(svc, DEMO, 'VIEWER');
  other = await tokenFor(svc, OTHER);
  prod = await tokenFor(svc, PROD);
});
after(() => svc.stop());

const scenario = (body: object, site = SITE, token = admin) => call(svc, token, 'POST', `/api/hardware/ems/control/demo/sites/${site}/scenario`, body);
const write = (body: object, token = admin) => call(svc, token, 'POST', '/api/hardware/ems/control/setpoints', body);
const behaviour = (device: string, b: string, token = admin) =>
  call(svc, token, 'POST', `/api/hardware/ems/control/demo/devices/${encodeURIComponent(device)}/behaviour`, { behaviour: b });

test('scenario creates the model; the boundary is load + battery charge + EV - PV - discharge', async () => {
  const res = await scenario({ load_kw: 1.5, pv_available_kw: 4, battery_soc_pct: 50 });
  assert.equal(res.statusCode, 200, res.body);
  const b = json(res);
  assert.deepEqual(
    b.devices.map((d: any) => [d.device_id, d.kind]),
    [
      ['home-1.load', 'load'],
      ['home-1.pv', 'pv'],
      ['home-1.battery', 'battery'],
      ['home-1.ev', 'ev'],
      ['home-1.meter', 'meter'],
    ],
  );
  assert.equal(b.boundary_kw, -2.5);
  assert.equal(b.export_kw, 2.5);
  assert.equal(b.direction, 'export');

  // Battery charging 2 kW and the EV at 3 kW: 1.5 + 2 + 3 - 4 = 2.5 import.
  assert.equal(json(await write({ site_id: SITE, device_id: 'home-1.battery', value_kw: 2 })).verdict, 'verified');
  assert.equal(json(await write({ site_id: SITE, device_id: 'home-1.ev', value_kw: 3 })).verdict, 'verified');
  const bal = await ok(svc, viewer, 'GET', `/api/hardware/ems/control/sites/${SITE}/balance`);
  assert.equal(bal.boundary_kw, 2.5);
  assert.equal(bal.import_kw, 2.5);
  const meter = bal.devices.find((d: any) => d.kind === 'meter');
  assert.equal(meter.power_kw, 2.5);

  // Half an hour at 2 kW into 13.5 kWh: +7.407 % state of charge.
  clockOf(svc).advance(30 * 60_000);
  const later = await ok(svc, viewer, 'GET', `/api/hardware/ems/control/sites/${SITE}/balance`);
  assert.equal(later.devices.find((d: any) => d.kind === 'battery').soc_pct, 57.407);
  // Discharging 3 kW, EV off: 1.5 - 3 - 4 = -5.5.
  await write({ site_id: SITE, device_id: 'home-1.battery', value_kw: -3 });
  await write({ site_id: SITE, device_id: 'home-1.ev', value_kw: 0 });
  assert.equal((await ok(svc, viewer, 'GET', `/api/hardware/ems/control/sites/${SITE}/balance`)).boundary_kw, -5.5);
});

test('registered assets of the site lend their ids to the model', async () => {
  const reg = (body: object) => ok(svc, admin, 'POST', '/api/twin/registry/assets', body, 201);
  await reg({ asset_id: 'EM-7', site_id: 'flat-9', asset_class: 'site_meter', name: 'Grid meter' });
  await reg({ asset_id: 'SE-INV-1', site_id: 'flat-9', asset_class: 'inverter', name: 'Inverter', parent_asset_id: 'EM-7' });
  const b = json(await scenario({ load_kw: 0.4, pv_available_kw: 1 }, 'flat-9'));
  assert.deepEqual(
    b.devices.map((d: any) => d.device_id),
    ['flat-9.load', 'SE-INV-1', 'flat-9.battery', 'flat-9.ev', 'EM-7'],
  );
  assert.equal(json(await write({ site_id: 'flat-9', device_id: 'SE-INV-1', value_kw: 0.5 })).verdict, 'verified');
});

test('each behaviour gives its verdict through the verified write', async () => {
  await scenario({ load_kw: 1, pv_available_kw: 5 });
  const pv = 'home-1.pv';
  const cases: [string, object, string, boolean | null, number | null][] = [
    ['normal', {}, 'verified', true, -2],
    ['ignores', {}, 'readback_mismatch', true, -5],
    ['unreachable', {}, 'unconfirmed', null, null],
    ['rejects', {}, 'rejected', false, -5],
    ['slow', {}, 'readback_mismatch', true, -5],
    ['slow', { settle_seconds: 60 }, 'verified', true, -2],
  ];
  for (const [b, extra, verdict, accepted, readback] of cases) {
    // Start from an uncurtailed inverter each time.
    assert.equal((await behaviour(pv, 'normal')).statusCode, 200);
    assert.equal(json(await write({ site_id: SITE, device_id: pv, value_kw: 6 })).verdict, 'verified');
    clockOf(svc).advance(1000);
    const set = await behaviour(pv, b);
    assert.equal(set.statusCode, 200, set.body);
    assert.equal(json(set).behaviour, b);
    const res = await write({ site_id: SITE, device_id: pv, value_kw: 2, ...extra });
    assert.equal(res.statusCode, 200, res.body);
    const r = json(res);
    assert.equal(r.verdict, verdict, `${b}: ${r.reason}`);
    assert.equal(r.accepted, accepted, b);
    assert.equal(r.readback_kw, readback, b);
    assert.equal(r.kind, 'pv');
    assert.equal(r.source, 'manual');
    assert.equal(Date.parse(r.read_at) - Date.parse(r.commanded_at), r.settle_seconds * 1000);
    // The log has it, with its inputs.
    const d = await ok(svc, viewer, 'GET', `/api/hardware/ems/decisions/${r.decision_id}`);
    assert.equal(d.kind, 'setpoint');
    assert.equal(d.output.verdict, verdict);
    assert.equal(d.outcome.behaviour, b);
    assert.equal(d.actor, 'user-ada');
    clockOf(svc).advance(1000);
  }
  // The slow device applies 60 s after accepting: the balance shows it then.
  await behaviour(pv, 'normal');
  await write({ site_id: SITE, device_id: pv, value_kw: 6 });
  await behaviour(pv, 'slow');
  await write({ site_id: SITE, device_id: pv, value_kw: 1 });
  const pending = (await ok(svc, viewer, 'GET', `/api/hardware/ems/control/sites/${SITE}/balance`)).devices.find((d: any) => d.device_id === pv);
  assert.equal(pending.power_kw, -5);
  assert.equal(pending.pending_kw, 1);
  clockOf(svc).advance(60_000);
  assert.equal((await ok(svc, viewer, 'GET', `/api/hardware/ems/control/sites/${SITE}/balance`)).devices.find((d: any) => d.device_id === pv).power_kw, -1);
  await behaviour(pv, 'normal');
});

test('setpoint history lists writes newest first, filtered and paged', async () => {
  const all = await ok(svc, viewer, 'GET', '/api/hardware/ems/control/setpoints?site_id=home-1&limit=200');
  assert.ok(all.setpoints.length >= 18);
  const times = all.setpoints.map((s: any) => Date.parse(s.commanded_at));
  assert.deepEqual(
    times,
    [...times].sort((a, b) => b - a),
  );
  const rejected = await ok(svc, viewer, 'GET', '/api/hardware/ems/control/setpoints?verdict=rejected');
  assert.equal(rejected.setpoints.length, 1);
  assert.equal(rejected.setpoints[0].accepted, false);
  const p1 = await ok(svc, viewer, 'GET', '/api/hardware/ems/control/setpoints?limit=3');
  assert.equal(p1.has_more, true);
  const p2 = await ok(svc, viewer, 'GET', `/api/hardware/ems/control/setpoints?limit=3&cursor=${encodeURIComponent(p1.next_cursor)}`);
  assert.equal(p2.setpoints.length, 3);
  assert.ok(!p2.setpoints.some((s: any) => p1.setpoints.some((t: any) => t.setpoint_id === s.setpoint_id)));
  assertRefused(
    await call(svc, viewer, 'GET', `/api/hardware/ems/control/setpoints?limit=3&cursor=${encodeURIComponent(p1.next_cursor)}&verdict=verified`),
    400,
    'invalid_cursor',
  );
  assertRefused(await call(svc, viewer, 'GET', '/api/hardware/ems/control/setpoints?verdict=maybe'), 422, { fields: ['query.verdict'] });
  // Another organisation sees none of them.
  assert.equal((await ok(svc, other, 'GET', '/api/hardware/ems/control/setpoints')).setpoints.length, 0);
});

test('refusals: bad input, unknown device, wrong role, another organisation', async () => {
  assertRefused(await write({ site_id: SITE, device_id: 'home-1.load', value_kw: 1 }), 422, { fields: ['body.device_id'] });
  assertRefused(await write({ site_id: SITE, device_id: 'home-1.pv', value_kw: 7 }), 422, { fields: ['body.value_kw'] });
  assertRefused(await write({ site_id: SITE, device_id: 'home-1.battery', value_kw: -5.5 }), 422, { fields: ['body.value_kw'] });
  assertRefused(await write({ site_id: SITE, device_id: 'home-1.pv' }), 422, { fields: ['body.value_kw'] });
  assertRefused(await write({ site_id: 'home-2', device_id: 'home-1.pv', value_kw: 1 }), 422, { fields: ['body.device_id'] });
  assertRefused(await write({ site_id: SITE, device_id: 'nope', value_kw: 1 }), 404, 'Device not found');
  assertRefused(await write({ site_id: SITE, device_id: 'home-1.pv', value_kw: 1 }, viewer), 403, /./);
  assertRefused(await write({ site_id: SITE, device_id: 'home-1.pv', value_kw: 1 }, other), 404, 'Device not found');
  assertRefused(await behaviour('home-1.pv', 'sulking'), 422, { fields: ['body.behaviour'] });
  assertRefused(await behaviour('home-1.pv', 'ignores', other), 404, 'Device not found');
  assertRefused(await behaviour('home-1.pv', 'ignores', viewer), 403, /./);
  assertRefused(await scenario({ load_kw: -1, pv_available_kw: 1 }), 422, { fields: ['body.load_kw'] });
  assertRefused(await scenario({ load_kw: 1 }), 422, { fields: ['body.pv_available_kw'] });
  assertRefused(await scenario({ load_kw: 1, pv_available_kw: 1 }, 'my%20house'), 422, { fields: ['path.site_id'] });
  assertRefused(await scenario({ load_kw: 1, pv_available_kw: 1 }, SITE, viewer), 403, /./);
  assertRefused(await call(svc, other, 'GET', `/api/hardware/ems/control/sites/${SITE}/balance`), 404, 'No device model for this site; set a scenario first');
  assertRefused(await call(svc, null, 'GET', `/api/hardware/ems/control/sites/${SITE}/balance`), 401, /./);
});

test('production organisations: 403 Demo realm only on each demo operation, and nothing is recorded', async () => {
  const before = await ok(svc, prod, 'GET', '/api/hardware/ems/decisions');
  const spBefore = await ok(svc, prod, 'GET', '/api/hardware/ems/control/setpoints');
  const demoOps: [string, string, object | undefined][] = [
    ['POST', '/api/hardware/ems/control/demo/sites/plant-1/scenario', { load_kw: 1, pv_available_kw: 2 }],
    ['POST', '/api/hardware/ems/control/setpoints', { site_id: 'plant-1', device_id: 'plant-1.pv', value_kw: 1 }],
    ['POST', '/api/hardware/ems/control/demo/devices/plant-1.pv/behaviour', { behaviour: 'ignores' }],
    ['GET', '/api/hardware/ems/control/sites/plant-1/balance', undefined],
    ['POST', '/api/hardware/ems/export-limit/plant-1/run', undefined],
  ];
  for (const [method, url, body] of demoOps)
    assertRefused(await call(svc, prod, method as 'GET' | 'POST', url, body), 403, 'Demo realm only', `${method} ${url}`);
  // Nothing recorded: no decision, no setpoint, no model, no site under control.
  assert.deepEqual((await ok(svc, prod, 'GET', '/api/hardware/ems/decisions')).decisions, before.decisions);
  assert.deepEqual((await ok(svc, prod, 'GET', '/api/hardware/ems/control/setpoints')).setpoints, spBefore.setpoints);
  const sites = await ok(svc, prod, 'GET', '/api/hardware/ems/control/sites');
  assert.equal(sites.demo_realm, false);
  assert.deepEqual(sites.sites, []);
});

test('decision log: list, filter, one, unknown; replay of every recorded decision reproduces it', async () => {
  const list = await ok(svc, viewer, 'GET', '/api/hardware/ems/decisions?kind=setpoint&site_id=home-1&limit=5');
  assert.equal(list.decisions.length, 5);
  assert.ok(list.decisions.every((d: any) => d.kind === 'setpoint' && d.rule === 'verified-setpoint-write/1'));
  assertRefused(await call(svc, viewer, 'GET', '/api/hardware/ems/decisions/00000000-0000-4000-8000-000000000000'), 404, 'Decision not found');
  assertRefused(await call(svc, other, 'GET', `/api/hardware/ems/decisions/${list.decisions[0].decision_id}`), 404, 'Decision not found');
  assertRefused(await call(svc, other, 'POST', `/api/hardware/ems/decisions/${list.decisions[0].decision_id}/replay`), 404, 'Decision not found');
  assertRefused(await call(svc, viewer, 'POST', '/api/hardware/ems/decisions/not-a-uuid/replay'), 422, { fields: ['path.decision_id'] });
  assertRefused(await call(svc, viewer, 'GET', '/api/hardware/ems/decisions?kind=whim'), 422, { fields: ['query.kind'] });
  const n = await replayAll(svc, viewer);
  assert.ok(n >= 19, `${n} decisions replayed`);
});
