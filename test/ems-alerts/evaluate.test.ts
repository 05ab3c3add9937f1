// EMS alerts through HTTP: the five sources on a hand-worked organisation, ranking by £/day,
// re-evaluation without duplicates, resolution when a condition clears, and the policy.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { json, type TestService } from '../helpers/service.ts';
import { call, ok, seedScenario, startAt, tokenFor } from './helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let admin: string;
let viewer: string;
let other: string;
const ORG = 'ems-eval';

before(async () => {
  svc = await startAt();
  await svc.createOrg(ORG);
  await svc.createOrg('ems-eval-other');
  admin = await tokenFor(svc, ORG);
  viewer = await tokenFor(svc, ORG, ['VIEWER']);
  other = await tokenFor(svc, 'ems-eval-other');
  await seedScenario(svc, admin);
});
after(() => svc.stop());

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const bySource = (alerts: any[]): Record<string, any> => Object.fromEntries(alerts.map((a) => [a.source, a]));

test('evaluate raises one alert per condition with evidence and the hand-worked £/day; the queue is ranked by impact', async () => {
  const r = await ok(svc, admin, 'POST', '/api/hardware/ems/alerts/evaluate');
  assert.equal(r.evaluated_at, '2026-11-24T12:00:00.000Z');
  assert.deepEqual(r.window, { from: '2026-11-23T12:00:00.000Z', to: '2026-11-24T12:00:00.000Z' });
  assert.equal(r.raised.length, 5);
  assert.equal(r.updated, 0);
  assert.equal(r.routing, null, 'routing module not enabled: nothing routed');
  const s = bySource(r.raised);
  assert.equal(s.asset_silence.impact_gbp_per_day, '5.88');
  assert.equal(s.asset_silence.severity, 'warning');
  assert.equal(s.asset_silence.asset_id, 'inv-2');
  assert.equal(s.asset_silence.site_id, 'S2');
  assert.equal(s.asset_silence.since, '2026-11-24T09:00:00.000Z');
  assert.equal(s.asset_silence.evidence.energy_before_silence_kwh, 24);
  assert.equal(s.asset_silence.evidence.silent_for_minutes, 180);
  assert.equal(s.asset_silence.evidence.freshness, 'stale');
  assert.match(s.asset_silence.impact_method, /import rate/);

  assert.equal(s.peak_import_with_charge.impact_gbp_per_day, '2.10');
  assert.equal(s.peak_import_with_charge.evidence.imported_kwh, 6);
  assert.equal(s.peak_import_with_charge.evidence.half_hours.length, 6);
  assert.equal(s.peak_import_with_charge.since, '2026-11-23T16:00:00.000Z');

  assert.equal(s.battery_not_cycling.impact_gbp_per_day, '1.05');
  assert.equal(s.battery_not_cycling.evidence.swing_pct, 0);

  assert.equal(s.pv_underperformance.impact_gbp_per_day, '0.98');
  assert.deepEqual(
    [s.pv_underperformance.evidence.expected_kwh, s.pv_underperformance.evidence.measured_kwh, s.pv_underperformance.evidence.shortfall_kwh],
    [10, 6, 4],
  );
  assert.equal(s.pv_underperformance.evidence.shortfall_pct, 40);
  // The readings were ingested just before and no background refresh has run: evaluation folded
  // them into the energy ledger first, so the energies are up to date and say so (decision 0320).
  assert.deepEqual(
    [s.pv_underperformance.evidence.ledger_pending, s.asset_silence.evidence.ledger_pending, s.peak_import_with_charge.evidence.ledger_pending],
    [false, false, false],
  );
  const ledger = await ok(svc, admin, 'GET', '/api/telemetry/sites/S1/ledger?from=2026-11-23&to=2026-11-24');
  const inWindow = ledger.half_hours.filter(
    (h: { period_start: string }) => h.period_start >= '2026-11-23T12:00:00.000Z' && h.period_start < '2026-11-24T12:00:00.000Z',
  );
  const wh = inWindow.reduce((a: number, h: { generation_kwh: string | null }) => a + Math.round(Number(h.generation_kwh ?? 0) * 1000), 0);
  assert.equal(wh, 6000, "the alert's measured generation is the ledger's");
  assert.equal(ledger.pending_refresh, false);

  assert.equal(s.export_over_limit.impact_gbp_per_day, '0.15');
  assert.equal(s.export_over_limit.evidence.max_export_kw, 5);
  assert.equal(s.export_over_limit.evidence.excess_kwh, 1);
  assert.equal(r.total_impact_gbp_per_day, '10.16');
  assert.equal(r.open_count, 5);

  const q = await ok(svc, viewer, 'GET', '/api/hardware/ems/alerts');
  assert.deepEqual(
    q.alerts.map((a: { source: string; impact_gbp_per_day: string }) => `${a.source}=${a.impact_gbp_per_day}`),
    ['asset_silence=5.88', 'peak_import_with_charge=2.10', 'battery_not_cycling=1.05', 'pv_underperformance=0.98', 'export_over_limit=0.15'],
  );
  assert.equal(q.total_impact_gbp_per_day, '10.16');
  assert.equal(q.count, 5);
  // Filters
  assert.equal((await ok(svc, viewer, 'GET', '/api/hardware/ems/alerts?site_id=S2')).count, 1);
  assert.equal((await ok(svc, viewer, 'GET', '/api/hardware/ems/alerts?min_impact_gbp_per_day=1.05')).total_impact_gbp_per_day, '9.03');
  assert.equal((await ok(svc, viewer, 'GET', '/api/hardware/ems/alerts?severity=warning')).alerts[0].source, 'asset_silence');
});

test('re-evaluating does not duplicate open alerts; they are refreshed', async () => {
  const before = await ok(svc, admin, 'GET', '/api/hardware/ems/alerts');
  const r = await ok(svc, admin, 'POST', '/api/hardware/ems/alerts/evaluate');
  assert.equal(r.raised.length, 0);
  assert.equal(r.updated, 5);
  const after = await ok(svc, admin, 'GET', '/api/hardware/ems/alerts');
  assert.deepEqual(
    after.alerts.map((a: { id: string }) => a.id),
    before.alerts.map((a: { id: string }) => a.id),
  );
});

test('policy: defaults, PUT changes severities and limits (a cleared condition resolves), DELETE resets; refusals', async () => {
  const d = await ok(svc, viewer, 'GET', '/api/hardware/ems/alerts/policy');
  assert.equal(d.is_default, true);
  assert.deepEqual(d.policy.severity, { warning_gbp_per_day: '5.00', critical_gbp_per_day: '25.00' });

  const put = await ok(svc, admin, 'PUT', '/api/hardware/ems/alerts/policy', {
    severity: { warning_gbp_per_day: '1.00', critical_gbp_per_day: '2.00' },
    sites: { S1: { export_limit_kw: 6 } },
  });
  assert.equal(put.is_default, false);
  assert.equal(put.policy.window_hours, 24, 'members left out take their defaults');
  assert.equal(put.policy.sites.S1.export_limit_kw, 6);

  const r = await ok(svc, admin, 'POST', '/api/hardware/ems/alerts/evaluate');
  assert.deepEqual(
    r.resolved.map((x: { source: string }) => x.source),
    ['export_over_limit'],
    'the 5 kW export is within a 6 kW limit',
  );
  const q = await ok(svc, admin, 'GET', '/api/hardware/ems/alerts');
  assert.deepEqual(
    q.alerts.map((a: { severity: string }) => a.severity),
    ['critical', 'critical', 'warning', 'info'],
  );
  assert.equal(q.total_impact_gbp_per_day, '10.01');

  // Refusals: thresholds the wrong way round, unknown members, wrong roles.
  const bad = await call(svc, admin, 'PUT', '/api/hardware/ems/alerts/policy', { severity: { warning_gbp_per_day: '9.00', critical_gbp_per_day: '1.00' } });
  assert.equal(bad.statusCode, 422);
  assert.deepEqual(json(bad).detail[0].loc, ['body', 'severity', 'critical_gbp_per_day']);
  assertRefused(await call(svc, admin, 'PUT', '/api/hardware/ems/alerts/policy', { window_hours: 0 }), 422, { fields: ['body.window_hours'] });
  assertRefused(await call(svc, admin, 'PUT', '/api/hardware/ems/alerts/policy', { surprise: 1 }), 422, { fields: ['body.surprise'] });
  const denied = await call(svc, viewer, 'PUT', '/api/hardware/ems/alerts/policy', {});
  assert.equal(denied.statusCode, 403);
  assert.equal(json(denied).detail, 'Insufficient permissions');
  assertRefused(await call(svc, viewer, 'DELETE', '/api/hardware/ems/alerts/policy'), 403, 'Insufficient permissions');

  const reset = await ok(svc, admin, 'DELETE', '/api/hardware/ems/alerts/policy');
  assert.equal(reset.is_default, true);
  assert.equal((await ok(svc, viewer, 'GET', '/api/hardware/ems/alerts/policy')).policy.severity.critical_gbp_per_day, '25.00');

  const audit = await ok(svc, admin, 'GET', '/api/hardware/admin/audit-log');
  const actions = (audit.entries ?? audit.items ?? audit.events ?? []).map((e: { action: string }) => e.action);
  assert.ok(
    actions.includes('ems.alerts.policy.update') && actions.includes('ems.alerts.policy.reset') && actions.includes('ems.alerts.evaluate'),
    actions.join(),
  );
});

test('evaluate refusals: a viewer is 403; no token is 401; another organisation sees none of these alerts', async () => {
  const res = await call(svc, viewer, 'POST', '/api/hardware/ems/alerts/evaluate');
  assert.equal(res.statusCode, 403);
  assert.equal(json(res).detail, 'Insufficient permissions');
  assertRefused(await svc.request({ method: 'POST', url: '/api/hardware/ems/alerts/evaluate' }), 401, 'Authorization header missing');
  const theirs = await ok(svc, other, 'GET', '/api/hardware/ems/alerts');
  assert.deepEqual(theirs, { alerts: [], count: 0, total_impact_gbp_per_day: '0.00', ranked_by: theirs.ranked_by });
  const r = await ok(svc, other, 'POST', '/api/hardware/ems/alerts/evaluate');
  assert.equal(r.raised.length, 0, "the other organisation's evaluation sees none of this one's data");
  assertRefused(await call(svc, viewer, 'GET', '/api/hardware/ems/alerts?severity=loud'), 422, { fields: ['query.severity'] });
});
