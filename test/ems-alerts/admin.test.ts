// Alert admin through HTTP: the staff-only history list, acknowledge / assign / resolve / comment
// scoped to the caller's organisation (stamped who and when, audited), and stats.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { json, type TestService } from '../helpers/service.ts';
import { call, clockOf, ok, silentInverter, startAt, tokenFor } from './helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let admin: string;
let viewer: string;
let analyst: string;
let other: string;
let staff: string;
let alertId: string;
let opId: string;
const ORG = 'adm-org';

before(async () => {
  svc = await startAt();
  await svc.createOrg(ORG);
  await svc.createOrg('adm-other');
  opId = (await svc.createUser(ORG, 'op@adm.test', 'OPERATOR')).id;
  admin = await tokenFor(svc, ORG, ['ORG_ADMIN'], { userId: 'adm-user' });
  viewer = await tokenFor(svc, ORG, ['VIEWER']);
  analyst = await tokenFor(svc, ORG, ['ANALYST'], { userId: 'analyst-1' });
  other = await tokenFor(svc, 'adm-other');
  staff = await tokenFor(svc, 'adm-other', ['VIEWER'], { staff: true });
  await silentInverter(svc, admin, 'inv-adm');
  alertId = (await ok(svc, admin, 'POST', '/api/hardware/ems/alerts/evaluate')).raised[0].id;
});
after(() => svc.stop());

const url = (action: string, id = alertId) => `/api/hardware/admin/alerts-history/${id}/${action}`;

test('alerts-history list: platform staff see every organisation; organisation tokens get 403', async () => {
  const res = await call(svc, admin, 'GET', '/api/hardware/admin/alerts-history');
  assert.equal(res.statusCode, 403);
  assert.equal(json(res).detail, 'Platform staff only');
  const list = await ok(svc, staff, 'GET', '/api/hardware/admin/alerts-history');
  const mine = list.alerts.find((a: { id: string }) => a.id === alertId);
  assert.equal(mine.organisation_id, ORG);
  assert.equal(mine.source, 'ems');
  assert.equal(mine.type, 'asset_silence');
  assert.equal(mine.details.impact_gbp_per_day, '5.88');
  const filtered = await ok(svc, staff, 'GET', `/api/hardware/admin/alerts-history?organisation_id=adm-other`);
  assert.equal(filtered.alerts.length, 0);
  assertRefused(await call(svc, staff, 'GET', '/api/hardware/admin/alerts-history?status=closed'), 422, { fields: ['query.status'] });
});

test('acknowledge: stamped who and when, first one stands; refusals by role, organisation and unknown id', async () => {
  const clock = clockOf(svc);
  clock.set('2026-11-24T12:05:00Z');
  const denied = await call(svc, viewer, 'POST', url('acknowledge'), {});
  assertRefused(denied, 403, 'Insufficient permissions');
  assertRefused(await call(svc, other, 'POST', url('acknowledge'), {}), 404, 'Not Found', "another organisation's alert is not found");
  assertRefused(await call(svc, admin, 'POST', url('acknowledge', 'nope'), {}), 404, 'Not Found');
  const a = await ok(svc, admin, 'POST', url('acknowledge'), { note: 'looking' });
  assert.equal(a.acknowledged_by, 'adm-user');
  assert.equal(a.acknowledged_at, '2026-11-24T12:05:00.000Z');
  assert.deepEqual(
    a.history.map((h: { action: string; actor_id: string; note: string }) => [h.action, h.actor_id, h.note]),
    [['acknowledge', 'adm-user', 'looking']],
  );
  clock.set('2026-11-24T12:06:00Z');
  const again = await ok(svc, admin, 'POST', url('acknowledge')); // no body at all
  assert.equal(again.acknowledged_at, '2026-11-24T12:05:00.000Z');
  assert.equal(again.history.length, 2);
  const q = await ok(svc, viewer, 'GET', '/api/hardware/ems/alerts');
  assert.equal(q.alerts[0].acknowledged_by, 'adm-user');
});

test('assign: owner must be a member; they are notified; comment by an analyst; refusals', async () => {
  const bad = await call(svc, admin, 'POST', url('assign'), { user_id: 'stranger' });
  assertRefused(bad, 422, { fields: ['body.user_id'] });
  assertRefused(await call(svc, analyst, 'POST', url('assign'), { user_id: opId }), 403, 'Insufficient permissions');
  const a = await ok(svc, admin, 'POST', url('assign'), { user_id: opId, note: 'yours' });
  assert.equal(a.assigned_to, opId);
  assert.equal(a.assigned_by, 'adm-user');
  const opToken = await tokenFor(svc, ORG, ['OPERATOR'], { userId: opId });
  const n = await ok(svc, opToken, 'GET', '/api/notifications/?kind=alert_assigned');
  assert.equal(n.notifications.length, 1);
  assert.equal(n.notifications[0].data.alert_id, alertId);
  // The link is a path the assignee may read: the organisation's alerts, where the alert is listed.
  const linked = await call(svc, opToken, 'GET', n.notifications[0].link);
  assert.equal(linked.statusCode, 200, `${n.notifications[0].link}: ${linked.body}`);
  assert.ok(JSON.stringify(json(linked)).includes(alertId), 'the assigned alert is among those listed');

  const c = await ok(svc, analyst, 'POST', url('comment'), { text: 'the breaker tripped at 10:00' }, 201);
  assert.deepEqual(c.history.at(-1).action, 'comment');
  assert.equal(c.history.at(-1).actor_id, 'analyst-1');
  assertRefused(await call(svc, viewer, 'POST', url('comment'), { text: 'x' }), 403, 'Insufficient permissions');
  assertRefused(await call(svc, analyst, 'POST', url('comment'), { text: '' }), 422, { fields: ['body.text'] });
  assertRefused(await call(svc, other, 'POST', url('comment'), { text: 'x' }), 404, 'Not Found');
});

test('resolve: who and why; resolved alerts refuse acknowledge, assign, resolve (409) and still take comments; audit log; stats', async () => {
  const clock = clockOf(svc);
  clock.set('2026-11-24T12:30:00Z');
  assertRefused(await call(svc, admin, 'POST', url('resolve'), {}), 422, { fields: ['body.reason'] }, 'a reason is required');
  assertRefused(await call(svc, other, 'POST', url('resolve'), { reason: 'x' }), 404, 'Not Found');
  const r = await ok(svc, admin, 'POST', url('resolve'), { reason: 'replaced the isolator' });
  assert.equal(r.status, 'resolved');
  assert.equal(r.resolved_by, 'adm-user');
  assert.equal(r.resolution, 'resolved by adm-user: replaced the isolator');
  for (const [a, body] of [
    ['acknowledge', {}],
    ['assign', { user_id: opId }],
    ['resolve', { reason: 'again' }],
  ] as const) {
    const res = await call(svc, admin, 'POST', url(a), body);
    assert.equal(res.statusCode, 409, a);
    assert.equal(json(res).detail, 'Alert is already resolved');
  }
  await ok(svc, analyst, 'POST', url('comment'), { text: 'post-mortem filed' }, 201);

  const audit = await ok(svc, admin, 'GET', '/api/hardware/admin/audit-log');
  const entries = (audit.entries ?? audit.items ?? audit.events) as { action: string; target_id?: string }[];
  const actions = entries.filter((e) => e.action.startsWith('alert.')).map((e) => e.action);
  for (const a of ['alert.acknowledge', 'alert.assign', 'alert.comment', 'alert.resolve']) assert.ok(actions.includes(a), a);

  const stats = await ok(svc, viewer, 'GET', '/api/hardware/admin/alerts-history/stats?days=7');
  assert.equal(stats.window.days, 7);
  assert.equal(stats.open.total, 0);
  assert.equal(stats.raised_in_window, 1);
  assert.equal(stats.resolved_in_window, 1);
  // Raised 12:00, acknowledged 12:05, resolved 12:30.
  assert.equal(stats.mean_minutes_to_acknowledge, 5);
  assert.equal(stats.mean_minutes_to_resolve, 30);
  const theirs = await ok(svc, other, 'GET', '/api/hardware/admin/alerts-history/stats');
  assert.equal(theirs.raised_in_window, 0, 'stats are scoped to the caller');
  assertRefused(await call(svc, viewer, 'GET', '/api/hardware/admin/alerts-history/stats?days=0'), 422, { fields: ['query.days'] });
});
