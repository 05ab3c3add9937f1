// Grid connection through HTTP: guardrails from the stored agreement, evaluating a plan and a
// setpoint (each a logged guardrail decision that replays the same), reading an agreement's stated
// fields, confirm (what would be stored, never saved), capacity from measured peaks by UK half hour
// and a capacity plan on a clock-change day.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { call, ok, replayAll, tokenFor } from './helpers.ts';

let svc: TestService;
const DEMO = 'demo-control-grid';
const OTHER = 'acme-control-grid';
const SITE = 'depot-1';
let admin: string;
let viewer: string;
let other: string;

before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-10-24T12:00:00.000Z') });
  await svc.createOrg(DEMO);
  await svc.createOrg(OTHER);
  admin = await tokenFor(svc, DEMO, 'ORG_ADMIN');
  viewer = await tokenFor(svc, DEMO, 'VIEWER');
  other = await tokenFor(svc, OTHER);
  await ok(svc, admin, 'POST', `/api/hardware/ems/control/demo/sites/${SITE}/scenario`, { load_kw: 2, pv_available_kw: 5 });
});
after(() => svc.stop());

const g = (p: string) => `/api/hardware/ems/grid${p}`;

test('guardrails: none before an agreement; import, export and the G98 limit after', async () => {
  const none = await ok(svc, viewer, 'GET', g(`/sites/${SITE}/guardrails`));
  assert.equal(none.configured, false);
  assert.deepEqual(none.guardrails, []);
  assertRefused(
    await call(svc, viewer, 'POST', g(`/sites/${SITE}/guardrails/evaluate`), { intervals: [{ boundary_kw: 1 }] }),
    409,
    'No grid connection agreement for this site',
  );

  await ok(svc, admin, 'PUT', `/api/hardware/ems/control/sites/${SITE}/config`, {
    connection: { import_limit_kw: 15, export_limit_kw: 3.68, category: 'G98', phases: 1 },
  });
  const gr = await ok(svc, viewer, 'GET', g(`/sites/${SITE}/guardrails`));
  assert.equal(gr.configured, true);
  assert.deepEqual(
    gr.guardrails.map((x: any) => [x.rule, x.limit_kw]),
    [
      ['import_limit', 15],
      ['export_limit', 3.68],
      ['g98_generation', 3.68],
    ],
  );
  assertRefused(await call(svc, viewer, 'GET', g('/sites/nowhere/guardrails')), 404, 'Site not found');
  assertRefused(await call(svc, other, 'GET', g(`/sites/${SITE}/guardrails`)), 404, 'Site not found');
});

test('evaluate a plan and a setpoint against the guardrails; each is a logged decision', async () => {
  const plan = await ok(svc, viewer, 'POST', g(`/sites/${SITE}/guardrails/evaluate`), {
    intervals: [
      { start: '2026-10-24T12:00:00Z', boundary_kw: 10 },
      { start: '2026-10-24T12:30:00Z', boundary_kw: 16.5 },
      { start: '2026-10-24T13:00:00Z', boundary_kw: -4, generation_kw: 4.5 },
    ],
  });
  assert.equal(plan.allowed, false);
  assert.equal(plan.checked, 3);
  assert.deepEqual(
    plan.violations.map((v: any) => [v.index, v.rule, v.excess_kw]),
    [
      [1, 'import_limit', 1.5],
      [2, 'export_limit', 0.32],
      [2, 'g98_generation', 0.82],
    ],
  );
  const d = await ok(svc, viewer, 'GET', `/api/hardware/ems/decisions/${plan.decision_id}`);
  assert.equal(d.kind, 'guardrail');
  assert.equal(d.outcome.violations, 3);

  // The model exports 3 kW now (2 load, 5 PV); discharging the battery 2 kW would export 5.
  const sp = await ok(svc, viewer, 'POST', g(`/sites/${SITE}/guardrails/evaluate`), { setpoint: { device_id: 'depot-1.battery', value_kw: -2 } });
  assert.equal(sp.subject, 'setpoint');
  assert.equal(sp.allowed, false);
  assert.deepEqual(
    sp.violations.map((v: any) => [v.rule, v.value_kw]),
    [
      ['export_limit', 5],
      ['g98_generation', 5],
    ],
  );
  const fine = await ok(svc, viewer, 'POST', g(`/sites/${SITE}/guardrails/evaluate`), { setpoint: { device_id: 'depot-1.pv', value_kw: 3 } });
  assert.equal(fine.allowed, true);
  // Nothing was sent to a device.
  const bal = await ok(svc, admin, 'GET', `/api/hardware/ems/control/sites/${SITE}/balance`);
  assert.equal(bal.boundary_kw, -3);

  assertRefused(await call(svc, viewer, 'POST', g(`/sites/${SITE}/guardrails/evaluate`), {}), 422, { fields: ['body'] });
  assertRefused(await call(svc, viewer, 'POST', g(`/sites/${SITE}/guardrails/evaluate`), { intervals: [] }), 422, { fields: ['body.intervals'] });
  assertRefused(await call(svc, viewer, 'POST', g(`/sites/${SITE}/guardrails/evaluate`), { setpoint: { device_id: 'depot-1.load', value_kw: 1 } }), 422, {
    fields: ['body.setpoint.device_id'],
  });
  assertRefused(await call(svc, other, 'POST', g(`/sites/${SITE}/guardrails/evaluate`), { intervals: [{ boundary_kw: 1 }] }), 404, 'Site not found');
});

test('agreements/read extracts limits from stated fields, with units and provenance', async () => {
  const r = await ok(svc, viewer, 'POST', g('/agreements/read'), {
    fields: {
      'Maximum Import Capacity (MIC)': '100 kVA',
      'Maximum Export Capacity (MEC)': '50 kW',
      'Power factor': 0.95,
      'Connection type': 'Engineering Recommendation G99',
      'Supply phases': 'three phase',
      'Offer reference': 'UKPN-2026-0042',
      'Site contact': 'J. Smith',
    },
  });
  assert.equal(r.import_limit_kw, 95);
  assert.equal(r.export_limit_kw, 50);
  assert.equal(r.category, 'G99');
  assert.equal(r.phases, 3);
  assert.equal(r.reference, 'UKPN-2026-0042');
  assert.equal(r.complete, true);
  assert.deepEqual(r.unread, ['Site contact']);
  assert.equal(r.extracted.find((e: any) => e.member === 'import_limit_kw').note, 'kVA converted to kW at power factor 0.95.');
  const partial = await ok(svc, viewer, 'POST', g('/agreements/read'), { fields: { 'Agreed supply capacity': '1.2 MW' } });
  assert.equal(partial.import_limit_kw, 1200);
  assert.equal(partial.complete, false);
  assert.deepEqual(partial.missing, ['export_limit_kw', 'category']);
  assertRefused(await call(svc, viewer, 'POST', g('/agreements/read'), { fields: {} }), 422, { fields: ['body.fields'] });
  assertRefused(await call(svc, viewer, 'POST', g('/agreements/read'), { fields: { a: true } }), 422, /./);
  assertRefused(await call(svc, null, 'POST', g('/agreements/read'), { fields: { a: '1' } }), 401, /./);
});

test('agreements/confirm answers what would be stored and saves nothing', async () => {
  const before = await ok(svc, viewer, 'GET', `/api/hardware/ems/control/sites/${SITE}/config`);
  const c = await ok(svc, viewer, 'POST', g('/agreements/confirm'), {
    site_id: SITE,
    import_limit_kw: 95,
    export_limit_kw: 50,
    category: 'G99',
    phases: 3,
    reference: 'UKPN-2026-0042',
  });
  assert.equal(c.stored, false);
  assert.deepEqual(c.would_store, { import_limit_kw: 95, export_limit_kw: 50, category: 'G99', phases: 3, reference: 'UKPN-2026-0042' });
  assert.deepEqual(
    c.changes.map((x: any) => x.member),
    ['import_limit_kw', 'export_limit_kw', 'category', 'phases', 'reference'],
  );
  assert.deepEqual(
    c.guardrails.map((x: any) => x.rule),
    ['import_limit', 'export_limit'],
  );
  const g98 = await ok(svc, viewer, 'POST', g('/agreements/confirm'), { site_id: SITE, import_limit_kw: 20, export_limit_kw: 10, category: 'G98' });
  assert.match(g98.warnings[0], /G98 allows at most 3.68 kW/);
  // Re-read: unchanged.
  assert.deepEqual(await ok(svc, viewer, 'GET', `/api/hardware/ems/control/sites/${SITE}/config`), before);
  assertRefused(
    await call(svc, viewer, 'POST', g('/agreements/confirm'), { site_id: 'nowhere', import_limit_kw: 1, export_limit_kw: 1, category: 'G98' }),
    404,
    'Site not found',
  );
  assertRefused(await call(svc, viewer, 'POST', g('/agreements/confirm'), { site_id: SITE, import_limit_kw: 1, export_limit_kw: 1, category: 'G97' }), 422, {
    fields: ['body.category'],
  });
});

test('capacity: peaks by UK half hour from measured meter telemetry; plan on the autumn clock change (50 periods)', async () => {
  // Boundary meter readings on two days: 18:00-18:30 BST peaks at 12 kW on one, 9 on the other.
  const rec = (ts: string, kw: number) => ({ device_id: 'depot-1.meter', ts, power_kw: kw });
  const ing = await call(svc, admin, 'POST', '/api/telemetry/ingest', [
    rec('2026-10-22T17:05:00Z', 12),
    rec('2026-10-22T17:20:00Z', 12),
    rec('2026-10-22T07:00:00Z', 3),
    rec('2026-10-23T17:10:00Z', 9),
    rec('2026-10-23T07:10:00Z', 4),
  ]);
  assert.equal(ing.statusCode, 200, ing.body);
  const cap = await ok(svc, viewer, 'GET', g(`/sites/${SITE}/capacity`));
  assert.deepEqual(cap.meters, ['depot-1.meter']);
  assert.equal(cap.import_limit_kw, 15);
  assert.equal(cap.peak_import_kw, 12);
  assert.equal(cap.peak_at, '2026-10-22T17:00:00.000Z');
  assert.equal(cap.headroom_kw, 3);
  assert.equal(cap.half_hours.length, 48);
  const six = cap.half_hours.find((h: any) => h.slot === '18:00');
  assert.deepEqual(six, { slot: '18:00', peak_kw: 12, headroom_kw: 3, half_hours_measured: 2 });
  assert.equal(cap.half_hours.find((h: any) => h.slot === '08:00').peak_kw, 4);
  assert.equal(cap.half_hours.find((h: any) => h.slot === '03:00').peak_kw, null);

  // 25 October 2026: clocks go back, 50 periods; 4 kW added 17:00-20:00 does not fit at 18:00.
  const plan = await ok(svc, viewer, 'POST', g(`/sites/${SITE}/capacity/plan`), { date: '2026-10-25', added_kw: 4, from: '17:00', to: '20:00' });
  assert.equal(plan.periods, 50);
  assert.equal(plan.fits, false);
  assert.equal(plan.shortfall_periods, 1);
  assert.equal(plan.first_shortfall, '2026-10-25T18:00:00.000Z');
  const p = plan.half_hours.find((h: any) => h.slot === '18:00');
  assert.deepEqual([p.peak_kw, p.added_kw, p.planned_peak_kw, p.headroom_kw, p.fits], [12, 4, 16, -1, false]);
  const ok2 = await ok(svc, viewer, 'POST', g(`/sites/${SITE}/capacity/plan`), { date: '2026-10-26', added_kw: 2 });
  assert.equal(ok2.periods, 48);
  assert.equal(ok2.fits, true);

  assertRefused(await call(svc, viewer, 'POST', g(`/sites/${SITE}/capacity/plan`), { date: '2026-10-25', added_kw: -1 }), 422, { fields: ['body.added_kw'] });
  assertRefused(await call(svc, viewer, 'POST', g(`/sites/${SITE}/capacity/plan`), { date: '2026-10-25', added_kw: 1, from: '17:15' }), 422, {
    fields: ['body.from'],
  });
  assertRefused(await call(svc, viewer, 'POST', g(`/sites/${SITE}/capacity/plan`), { date: '2026-02-30', added_kw: 1 }), 422, { fields: ['body.date'] });
  for (const date of ['0000-01-01', '9999-12-31', '0099-06-01']) {
    assertRefused(await call(svc, viewer, 'POST', g(`/sites/${SITE}/capacity/plan`), { date, added_kw: 1 }), 422, { fields: ['body.date'] }, date);
  }
  assertRefused(await call(svc, other, 'GET', g(`/sites/${SITE}/capacity`)), 404, 'Site not found');
  assertRefused(await call(svc, other, 'POST', g(`/sites/${SITE}/capacity/plan`), { date: '2026-10-25', added_kw: 1 }), 404, 'Site not found');
  await ok(svc, admin, 'POST', '/api/hardware/ems/control/demo/sites/no-agreement/scenario', { load_kw: 1, pv_available_kw: 0 });
  assertRefused(
    await call(svc, viewer, 'POST', g('/sites/no-agreement/capacity/plan'), { date: '2026-10-25', added_kw: 1 }),
    409,
    'No grid connection agreement for this site',
  );
});

test('every guardrail decision replays the same', async () => {
  assert.equal(await replayAll(svc, viewer), 3);
});
