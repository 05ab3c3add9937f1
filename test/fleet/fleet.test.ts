// Fleet readiness through HTTP: depot constraints, shift schedule, requirements CSV (errors by line),
// readiness against the hand-worked three-vehicle depot (docs/fleet.md) and electrification.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { assertRefused } from '../helpers/refusal.ts';

const F = '/api/fleet';
let svc: TestService;
let admin: string;
let viewer: string;
let other: string;
// 17:00 on a November Monday: UK local time is UTC.
const clock = new ManualClock(new Date('2026-11-23T17:00:00.000Z'));
const req = (method: string, url: string, token: string, payload?: unknown) =>
  svc.request({ method: method as never, url, headers: { authorization: `Bearer ${token}` }, ...(payload !== undefined && { payload: payload as never }) });

before(async () => {
  svc = await startTestService({ clock });
  await svc.createOrg('fleet-a');
  await svc.createOrg('fleet-b');
  admin = await svc.token({ orgId: 'fleet-a', roles: ['ORG_ADMIN'] });
  viewer = await svc.token({ orgId: 'fleet-a', roles: ['VIEWER'] });
  other = await svc.token({ orgId: 'fleet-b', roles: ['ORG_ADMIN'] });
});
after(async () => svc?.stop());

test('before set-up: depot unconfigured, constraints 404, readiness 409', async () => {
  const d = await req('GET', `${F}/depot`, viewer);
  assert.equal(d.statusCode, 200);
  assert.equal(json(d).configured, false);
  assertRefused(await req('GET', `${F}/depot/constraints`, viewer), 404, 'Depot constraints are not set');
  assertRefused(await req('GET', `${F}/readiness`, viewer), 409, 'Depot constraints are not set');
  assertRefused(await req('GET', `${F}/readiness/electrification`, viewer), 409, 'Depot constraints are not set');
  assertRefused(await svc.request({ method: 'GET', url: `${F}/depot` }), 401, 'Authorization header missing');
});

test('constraints: PUT and GET; viewer, duplicate charger and bad numbers refused', async () => {
  const body = {
    connection_kw: 30,
    reserve_pct: 0,
    chargers: [
      { charger_id: 'C2', max_kw: 11 },
      { charger_id: 'C1', max_kw: 22 },
    ],
  };
  assertRefused(await req('PUT', `${F}/depot/constraints`, viewer, body), 403, 'Insufficient permissions');
  assertRefused(
    await req('PUT', `${F}/depot/constraints`, admin, {
      ...body,
      chargers: [
        { charger_id: 'C1', max_kw: 1 },
        { charger_id: 'C1', max_kw: 2 },
      ],
    }),
    422,
    { fields: ['body.chargers.1.charger_id'] },
  );
  assertRefused(await req('PUT', `${F}/depot/constraints`, admin, { ...body, connection_kw: -1 }), 422, { fields: ['body.connection_kw'] });
  const p = await req('PUT', `${F}/depot/constraints`, admin, body);
  assert.equal(p.statusCode, 200, p.body);
  const g = json(await req('GET', `${F}/depot/constraints`, viewer));
  assert.deepEqual({ ...g, updated_at: undefined }, { connection_kw: 30, base_load_kw: 0, reserve_pct: 0, chargers: body.chargers, updated_at: undefined });
  assertRefused(await req('GET', `${F}/depot/constraints`, other), 404, 'Depot constraints are not set');
});

test('shift schedule: PUT and GET; bad time and duplicate vehicle refused', async () => {
  const shifts = [
    { vehicle_id: 'A', return: '17:00', depart: '21:00' },
    { vehicle_id: 'B', return: '17:00', depart: '05:00' },
    { vehicle_id: 'C', return: '18:00', depart: '19:00' },
    { vehicle_id: 'D', return: '18:00', depart: '06:00' },
    { vehicle_id: 'E', return: '18:00', depart: '06:00' },
  ];
  assertRefused(await req('PUT', `${F}/shift-schedule`, admin, { shifts: [{ vehicle_id: 'A', return: '25:00', depart: '06:00' }] }), 422, {
    fields: ['body.shifts.0.return'],
  });
  assertRefused(await req('PUT', `${F}/shift-schedule`, admin, { shifts: [shifts[0], shifts[0]] }), 422, { fields: ['body.shifts.1.vehicle_id'] });
  assertRefused(await req('PUT', `${F}/shift-schedule`, viewer, { shifts }), 403, 'Insufficient permissions');
  assert.equal((await req('PUT', `${F}/shift-schedule`, admin, { shifts })).statusCode, 200);
  assert.deepEqual(json(await req('GET', `${F}/shift-schedule`, viewer)).shifts, shifts);
  assert.deepEqual(json(await req('GET', `${F}/shift-schedule`, other)).shifts, []);
});

test('requirements import: malformed CSV named by line and column, nothing stored; then stored', async () => {
  const bad = await req('POST', `${F}/requirements/import`, admin, {
    csv: 'vehicle_id,powertrain,battery_kwh,kwh_per_shift,max_charge_kw\nA,ev,80,60,22\nB,diesel,60,x,22\nA,ev,1,1,1\nZ,ev\n',
  });
  assertRefused(bad, 422, { fields: ['body.csv'] });
  assert.deepEqual(
    json(bad).detail.map((d: any) => d.msg),
    [
      'line 3, column powertrain: must be ev or ice',
      'line 3, column kwh_per_shift: must be a non-negative decimal number',
      'line 4, column vehicle_id: A is listed twice',
      'line 5: expected 5 columns, found 2',
    ],
  );
  assert.equal(json(await req('GET', `${F}/depot`, viewer)).requirements_imported_at, null);
  assertRefused(await req('POST', `${F}/requirements/import`, viewer, { csv: 'x' }), 403, 'Insufficient permissions');
  const csv = 'vehicle_id,powertrain,battery_kwh,kwh_per_shift,max_charge_kw\nA,ev,80,60,22\nB,ev,60,50,22\nC,ev,60,40,11\nD,ice,60,70,22\nE,ice,80,30,11\n';
  const ok = await req('POST', `${F}/requirements/import`, admin, { csv });
  assert.equal(ok.statusCode, 200, ok.body);
  assert.equal(json(ok).imported, 5);
  const depot = await req('GET', `${F}/depot`, viewer);
  const d = json(depot);
  assert.deepEqual([d.configured, d.available_kw, d.charger_kw_total, d.vehicles, d.shifts], [true, 30, 33, { ev: 3, ice: 2 }, 5]);
  // Derived figures carry their basis and method (concepts.md section 1).
  assert.equal(depot.headers['x-platform-data-basis'], 'calculated');
  assert.match(String(depot.headers['x-platform-method']), /available_kw is connection_kw - base_load_kw/);
});

test('requirements import as text/csv (the catalogued form): errors by line, refusals, per organisation', async () => {
  const csvReq = (token: string, payload: string | Buffer, type = 'text/csv; charset=utf-8', url = `${F}/requirements/import`, method = 'POST') =>
    svc.request({ method: method as never, url, headers: { authorization: `Bearer ${token}`, 'content-type': type }, payload });
  const header = 'vehicle_id,powertrain,battery_kwh,kwh_per_shift,max_charge_kw\n';
  const bad = await csvReq(admin, header + 'A,ev,80,60,22\nB,diesel,60,x,22\n');
  assertRefused(bad, 422, { fields: ['body.csv'] });
  assert.deepEqual(
    json(bad).detail.map((d: any) => d.msg),
    ['line 3, column powertrain: must be ev or ice', 'line 3, column kwh_per_shift: must be a non-negative decimal number'],
  );
  // Unbalanced quotes: the parser's own complaint, as the spec's 422, never a 500.
  assertRefused(await csvReq(admin, header + 'A,"ev,80,60,22\n'), 422, { fields: ['body.csv'] });
  assertRefused(await csvReq(admin, ''), 422, { fields: ['body.csv'] });
  assertRefused(await csvReq(admin, Buffer.from([0x76, 0xff, 0x0a])), 422, { fields: ['body'] });
  assertRefused(await csvReq(admin, header + 'A,ev,80,60,22\n'.repeat(80_000)), 413, /^Request body too large: the limit is \d+ bytes$/);
  assertRefused(await csvReq(viewer, header + 'A,ev,80,60,22\n'), 403, 'Insufficient permissions');
  assertRefused(
    await svc.request({ method: 'POST', url: `${F}/requirements/import`, headers: { 'content-type': 'text/csv' }, payload: header }),
    401,
    'Authorization header missing',
  );
  // Other operations still take JSON only.
  assertRefused(await csvReq(admin, header, 'text/csv', `${F}/shift-schedule`, 'PUT'), 415, 'Unsupported media type: text/csv; send application/json');
  // Nothing of the refused imports was stored: A's five vehicles from the JSON import stand.
  assert.deepEqual(json(await req('GET', `${F}/depot`, viewer)).vehicles, { ev: 3, ice: 2 });
  // Another organisation's import is its own.
  const b = await csvReq(other, header + 'X,ev,60,20,11\n', 'text/csv');
  assert.equal(b.statusCode, 200, b.body);
  assert.deepEqual([json(b).imported, json(b).vehicles.map((v: any) => v.vehicle_id)], [1, ['X']]);
  assert.deepEqual(json(await req('GET', `${F}/depot`, other)).vehicles, { ev: 1, ice: 0 });
  assert.deepEqual(json(await req('GET', `${F}/depot`, viewer)).vehicles, { ev: 3, ice: 2 });
  // The same file as A's JSON import, sent as CSV with a byte order mark and CRLF line ends.
  const csv = '\ufeff' + (header + 'A,ev,80,60,22\nB,ev,60,50,22\nC,ev,60,40,11\nD,ice,60,70,22\nE,ice,80,30,11\n').replace(/\n/g, '\r\n');
  const ok = await csvReq(admin, csv);
  assert.equal(ok.statusCode, 200, ok.body);
  assert.deepEqual(
    json(ok).vehicles.map((v: any) => v.vehicle_id),
    ['A', 'B', 'C', 'D', 'E'],
  );
  // The catalogue describes both forms.
  const entry = json(await svc.request({ method: 'GET', url: '/openapi.json' })).paths[`${F}/requirements/import`].post;
  assert.deepEqual(Object.keys(entry.requestBody.content).sort(), ['application/json', 'text/csv']);
  assert.equal(entry.requestBody.content['text/csv'].schema.type, 'string');
});

/** The request's answer and the longest the event loop went without running a timer meanwhile. */
async function timed<T>(run: () => Promise<T>): Promise<{ res: T; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const tick = setInterval(() => {
    const t = performance.now();
    stallMs = Math.max(stallMs, t - last);
    last = t;
  }, 5);
  try {
    const res = await run();
    stallMs = Math.max(stallMs, performance.now() - last);
    return { res, stallMs };
  } finally {
    clearInterval(tick);
  }
}

test('requirements import: a file of a million short or empty-quoted lines is refused 422 without holding up the event loop', async () => {
  const header = 'vehicle_id,powertrain,battery_kwh,kwh_per_shift,max_charge_kw\n';
  const before = json(await req('GET', `${F}/depot`, viewer)).vehicles;
  // Each line a record with the wrong number of columns (just under the 1 MiB body limit).
  for (const [name, body, first] of [
    ['one-column lines', header + 'a\n'.repeat(490_000), 'line 2: expected 5 columns, found 1'],
    ['empty quoted fields', header + '""\n'.repeat(330_000), 'line 2: expected 5 columns, found 1'],
  ] as const) {
    const { res, stallMs } = await timed(() =>
      svc.request({
        method: 'POST',
        url: `${F}/requirements/import`,
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'text/csv' },
        payload: body,
      }),
    );
    assert.ok(stallMs < 1000, `${name}: the event loop stood still ${Math.round(stallMs)} ms`);
    assertRefused(res, 422, { fields: ['body.csv'] });
    const msgs = json(res).detail.map((d: any) => d.msg);
    assert.equal(msgs[0], first, name);
    assert.ok(msgs.length <= 100, name);
  }
  assert.deepEqual(json(await req('GET', `${F}/depot`, viewer)).vehicles, before, 'nothing stored');
});

test('requirements import: errors name the line of the file, past empty lines and quoted line ends', async () => {
  const csv = 'vehicle_id,powertrain,battery_kwh,kwh_per_shift,max_charge_kw\n\nL1,ev,80,60,22\n"L\n2",ev,60,x,22\n\n\nL3,petrol,60,40,11\n';
  const bad = await req('POST', `${F}/requirements/import`, other, { csv });
  assertRefused(bad, 422, { fields: ['body.csv'] });
  assert.deepEqual(
    json(bad).detail.map((d: any) => d.msg),
    ['line 5, column kwh_per_shift: must be a non-negative decimal number', 'line 8, column powertrain: must be ev or ice'],
  );
});

test('requirements import: a file whose lines end in both LF and CRLF (as the description allows) is read line by line', async () => {
  const csv = 'vehicle_id,powertrain,battery_kwh,kwh_per_shift,max_charge_kw\r\nM1,ev,80,60,22\nM2,ev,60,50,22\r\nM3,ice,60,40,11\n';
  const res = await svc.request({
    method: 'POST',
    url: `${F}/requirements/import`,
    headers: { authorization: `Bearer ${other}`, 'content-type': 'text/csv' },
    payload: csv,
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(
    json(res).vehicles.map((v: any) => [v.vehicle_id, v.powertrain, v.max_charge_kw]),
    [
      ['M1', 'ev', 22],
      ['M2', 'ev', 22],
      ['M3', 'ice', 11],
    ],
  );
});

test('readiness: the hand-worked depot (three vehicles, chargers 22 and 11 kW, 30 kW connection)', async () => {
  const res = await req('GET', `${F}/readiness`, viewer);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['x-platform-data-basis'], 'calculated');
  const r = json(res);
  const v = Object.fromEntries(r.vehicles.map((x: any) => [x.vehicle_id, x]));
  // Worked in docs/fleet.md: C leaves at 19:00 9 kWh short; A and B are ready.
  assert.deepEqual(
    v.A.slots.map((s: any) => [s.charger_id, s.kw]),
    [
      ['C1', 22],
      ['C1', 22],
      ['C2', 11],
      ['C2', 11],
      ['C1', 14],
    ],
  );
  assert.deepEqual(
    v.B.slots.map((s: any) => s.kw),
    [8, 8, 11, 22, 22, 9],
  );
  assert.deepEqual(
    v.C.slots.map((s: any) => s.kw),
    [11, 11],
  );
  assert.deepEqual([v.A.ready, v.A.departure_kwh, v.A.departs_at], [true, 60, '2026-11-23T21:00:00.000Z']);
  assert.deepEqual([v.B.ready, v.B.departure_kwh, v.B.departs_at], [true, 50, '2026-11-24T05:00:00.000Z']);
  assert.deepEqual([v.C.ready, v.C.shortfall_kwh, v.C.reason], [false, 9, 'not enough charger time or connection capacity before departure']);
  assert.deepEqual(
    r.slots.slice(0, 9).map((s: any) => s.total_kw),
    [30, 30, 22, 22, 25, 22, 22, 9, 0],
  );
  assert.deepEqual([r.ready, r.not_ready], [2, 1]);
  assert.equal(r.vehicles.length, 3, 'ice vehicles are not planned');
  assertRefused(await req('GET', `${F}/readiness`, other), 409, 'Depot constraints are not set');
});

test('electrification: feasible vehicles and what the depot would need', async () => {
  const res = await req('GET', `${F}/readiness/electrification`, viewer);
  assert.equal(res.statusCode, 200, res.body);
  const r = json(res);
  const v = Object.fromEntries(r.vehicles.map((x: any) => [x.vehicle_id, x]));
  assert.deepEqual([v.A.could_be_electric, v.B.could_be_electric, v.E.could_be_electric], [true, true, true]);
  assert.deepEqual([v.D.could_be_electric, v.D.reason], [false, 'energy per shift plus the reserve exceeds the battery']);
  assert.equal(v.C.could_be_electric, false, 'C cannot take 20 kWh in an hour at 11 kW');
  assert.equal(v.C.ready_with_current_depot, false);
  // A needs 40 kWh in 4 hours: 10 kW at the least; B then has 16 slots alone; E arrives with enough.
  assert.deepEqual(r.depot_needs, { connection_kw: 10, additional_connection_kw: 0, chargers: 1, additional_chargers: 0 });
  assertRefused(await req('GET', `${F}/readiness/electrification`, other), 409, 'Depot constraints are not set');
});
