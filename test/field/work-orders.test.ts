// Field operations through HTTP on a real store: every operation's success and refusals (role,
// other organisation, module off, bad input, a transition not allowed, assigning to a stranger),
// SLA clocks moved by the service clock, work from alerts and stale feeds, the SLA report.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { json, realServers, startTestService, type TestService } from '../helpers/service.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { ALERT_STREAM } from '../../src/modules/alerts/index.ts';
import type { Role } from '../../src/platform/roles.ts';

const B = '/api/hardware/field';
/** Tuesday 24 November 2026, 09:00 UK (GMT). */
const NOW = '2026-11-24T09:00:00.000Z';
const ORG = 'fld-org';
const OTHER = 'fld-other';
const OFF = 'fld-off';

let svc: TestService;
let clock: ManualClock;
let admin: string;
let viewer: string;
let analyst: string;
let other: string;
let off: string;
let engineer: { id: string; token: string };
let stranger: string;

const auth = (t: string) => ({ authorization: `Bearer ${t}` });
const call = (token: string, method: string, url: string, payload?: unknown) =>
  svc.request({ method: method as 'GET', url, headers: auth(token), ...(payload !== undefined && { payload: payload as object }) });
async function ok(token: string, method: string, url: string, payload?: unknown, status = 200) {
  const res = await call(token, method, url, payload);
  assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`);
  return json(res);
}
const tok = (orgId: string, roles: Role[], userId?: string) => svc.token({ orgId, roles, expiresIn: '3650d', ...(userId && { userId }) });
const create = (body: Record<string, unknown> = {}) =>
  ok(admin, 'POST', `${B}/work-orders`, { site_id: 'S1', priority: 'critical', kind: 'corrective', description: 'Inverter tripped', ...body }, 201);

before(async () => {
  clock = new ManualClock(NOW);
  svc = await startTestService({ clock });
  await svc.createOrg(ORG, ['field']);
  await svc.createOrg(OTHER, ['field']);
  await svc.createOrg(OFF);
  const adminUser = await svc.createUser(ORG, 'admin@fld.test', 'ORG_ADMIN');
  admin = await tok(ORG, ['ORG_ADMIN'], adminUser.id);
  viewer = await tok(ORG, ['VIEWER']);
  analyst = await tok(ORG, ['ANALYST']);
  other = await tok(OTHER, ['ORG_ADMIN']);
  off = await tok(OFF, ['ORG_ADMIN']);
  const eng = await svc.createUser(ORG, 'eng@fld.test', 'OPERATOR');
  engineer = { id: eng.id, token: await tok(ORG, ['OPERATOR'], eng.id) };
  stranger = (await svc.createUser(OTHER, 'stranger@fld.test', 'OPERATOR')).id;
  for (const [asset_id, site_id] of [
    ['inv-1', 'S1'],
    ['meter-1', 'S1'],
    ['bat-2', 'S2'],
    ['pump-3', 'S3'],
  ]) {
    await ok(admin, 'POST', '/api/twin/registry/assets', { asset_id, site_id, type: 'inverter', name: asset_id, asset_class: 'inverter', details: {} }, 201);
  }
  // inv-1 last reported two hours ago (stale); meter-1 a minute ago (fresh); bat-2 never.
  await ok(admin, 'POST', '/api/telemetry/ingest', [
    { asset_id: 'inv-1', ts: '2026-11-24T07:00:00Z', power_kw: -1 },
    { asset_id: 'meter-1', ts: '2026-11-24T08:59:00Z', power_kw: 1 },
  ]);
});
after(() => svc.stop());

const EVERY = [
  ['GET', `${B}/vocabulary`],
  ['GET', `${B}/assets`],
  ['GET', `${B}/alerts`],
  ['GET', `${B}/sla-policies`],
  ['PUT', `${B}/sla-policies/high`, { response_minutes: 60, resolution_minutes: 120, measure: 'calendar_hours' }],
  ['DELETE', `${B}/sla-policies/high`],
  ['GET', `${B}/work-orders`],
  ['POST', `${B}/work-orders`, { site_id: 'S1', priority: 'low', kind: 'inspection', description: 'x' }],
  ['GET', `${B}/work-orders/due`],
  ['GET', `${B}/reports/sla`],
  ['POST', `${B}/work-orders/from-alert/a1`],
  ['POST', `${B}/work-orders/from-stale-feed/inv-1`],
  ['GET', `${B}/work-orders/wo_x`],
  ['POST', `${B}/work-orders/wo_x/assign`, { user_id: 'u' }],
  ['POST', `${B}/work-orders/wo_x/transition`, { to: 'cancelled' }],
  ['POST', `${B}/work-orders/wo_x/priority`, { priority: 'low' }],
  ['POST', `${B}/work-orders/wo_x/notes`, { text: 'x' }],
  ['POST', `${B}/work-orders/wo_x/attachments`, { name: 'a', content_type: 'image/png', size_bytes: 1, sha256: 'a'.repeat(64), external_ref: 'r' }],
] as const;

test('every operation: 403 Module not enabled: field for an organisation without it, 401 without a token', async () => {
  assert.equal(EVERY.length, 18);
  for (const [method, url, body] of EVERY) {
    assertRefused(await call(off, method, url, body), 403, 'Module not enabled: field', `${method} ${url}`);
    assertRefused(await svc.request({ method: method as 'GET', url }), 401, 'Authorization header missing', `${method} ${url}`);
  }
});

test('vocabulary: statuses, transitions by operation, priorities, kinds and the bank-holiday calendar', async () => {
  const v = await ok(viewer, 'GET', `${B}/vocabulary`);
  assert.deepEqual(
    v.statuses.map((s: { name: string }) => s.name),
    ['new', 'assigned', 'scheduled', 'in_progress', 'on_hold', 'completed', 'verified', 'cancelled'],
  );
  assert.deepEqual(v.transitions.find((t: { from: string; to: string }) => t.from === 'new' && t.to === 'assigned').via, 'assign');
  assert.ok(v.transitions.some((t: { from: string; to: string }) => t.from === 'completed' && t.to === 'in_progress'));
  assert.deepEqual(
    v.priorities.map((p: { name: string }) => p.name),
    ['critical', 'high', 'medium', 'low'],
  );
  assert.ok(v.kinds.some((k: { name: string }) => k.name === 'communications'));
  assert.equal(v.calendar.time_zone, 'Europe/London');
  assert.ok(v.calendar.bank_holidays.dates.includes('2026-12-28'), 'Boxing Day 2026 falls on a Saturday: the substitute is Monday 28th');
});

test('SLA policies: defaults, set one priority, refusals, DELETE restores the default', async () => {
  const list = await ok(viewer, 'GET', `${B}/sla-policies`);
  assert.equal(list.policies.length, 4);
  assert.deepEqual(list.policies[0], {
    priority: 'critical',
    response_minutes: 60,
    resolution_minutes: 480,
    measure: 'calendar_hours',
    business_day_start: '08:00',
    business_day_end: '18:00',
    pause_on_hold: false,
    at_risk_percent: 75,
    is_default: true,
    updated_at: null,
  });
  const put = await ok(admin, 'PUT', `${B}/sla-policies/low`, {
    response_minutes: 120,
    resolution_minutes: 600,
    measure: 'business_hours',
    business_day_start: '09:00',
    business_day_end: '17:30',
  });
  assert.equal(put.is_default, false);
  assert.equal(put.pause_on_hold, true, 'unset members keep the default');
  const again = await ok(viewer, 'GET', `${B}/sla-policies`);
  assert.equal(again.policies[3].business_day_end, '17:30');
  assert.equal((await ok(other, 'GET', `${B}/sla-policies`)).policies[3].is_default, true, "another organisation's policies are its own");
  assertRefused(
    await call(viewer, 'PUT', `${B}/sla-policies/low`, { response_minutes: 1, resolution_minutes: 2, measure: 'calendar_hours' }),
    403,
    'Insufficient permissions',
  );
  assertRefused(await call(admin, 'PUT', `${B}/sla-policies/low`, { response_minutes: 700, resolution_minutes: 600, measure: 'calendar_hours' }), 422, {
    fields: ['body.response_minutes'],
  });
  assertRefused(
    await call(admin, 'PUT', `${B}/sla-policies/low`, { response_minutes: 7, resolution_minutes: 60, measure: 'business_hours', business_day_start: '01:30' }),
    422,
    { fields: ['body.business_day_start'] },
  );
  assertRefused(
    await call(admin, 'PUT', `${B}/sla-policies/low`, {
      response_minutes: 7,
      resolution_minutes: 86400,
      measure: 'business_hours',
      business_day_start: '12:00',
      business_day_end: '12:30',
    }),
    422,
    { fields: ['body.business_day_end'] },
  );
  const urgent = await call(admin, 'PUT', `${B}/sla-policies/urgent`, { response_minutes: 7, resolution_minutes: 60, measure: 'calendar_hours' });
  assertRefused(urgent, 422, { fields: ['path.priority'] });
  assert.equal(json(urgent).detail[0].msg, 'Input should be "critical", "high", "medium", "low"');
  assertRefused(await call(analyst, 'DELETE', `${B}/sla-policies/low`), 403, 'Insufficient permissions');
  const reset = await ok(admin, 'DELETE', `${B}/sla-policies/low`);
  assert.equal(reset.is_default, true);
  assert.equal(reset.response_minutes, 1800);
  assert.equal((await ok(viewer, 'GET', `${B}/sla-policies`)).policies[3].is_default, true);
});

test('create and read a work order: clocks start under the priority policy; refusals', async () => {
  clock.set(NOW);
  const wo = await create({ asset_id: 'inv-1' });
  assert.match(wo.id, /^wo_/);
  assert.equal(wo.status, 'new');
  assert.deepEqual(wo.allowed_transitions, ['cancelled']);
  assert.equal(wo.sla.response.due_at, '2026-11-24T10:00:00.000Z');
  assert.equal(wo.sla.resolution.due_at, '2026-11-24T17:00:00.000Z');
  assert.equal(wo.sla.response.at_risk_at, '2026-11-24T09:45:00.000Z');
  assert.equal(wo.history[0].type, 'created');
  const got = await ok(viewer, 'GET', `${B}/work-orders/${wo.id}`);
  assert.equal(got.description, 'Inverter tripped');
  assertRefused(await call(other, 'GET', `${B}/work-orders/${wo.id}`), 404, 'Not Found', "another organisation's work order");
  assertRefused(await call(admin, 'GET', `${B}/work-orders/wo_missing`), 404, 'Not Found');
  assertRefused(
    await call(viewer, 'POST', `${B}/work-orders`, { site_id: 'S1', priority: 'low', kind: 'inspection', description: 'x' }),
    403,
    'Insufficient permissions',
  );
  assertRefused(await call(admin, 'POST', `${B}/work-orders`, { site_id: 'S9', priority: 'low', kind: 'inspection', description: 'x' }), 422, {
    fields: ['body.site_id'],
  });
  assertRefused(
    await call(admin, 'POST', `${B}/work-orders`, { site_id: 'S1', asset_id: 'bat-2', priority: 'low', kind: 'inspection', description: 'x' }),
    422,
    { fields: ['body.asset_id'] },
  );
  assertRefused(await call(admin, 'POST', `${B}/work-orders`, { site_id: 'S1', priority: 'urgent', kind: 'repair', description: '' }), 422, {
    fields: ['body.priority', 'body.kind', 'body.description'],
  });
  assertRefused(
    await call(other, 'POST', `${B}/work-orders`, { site_id: 'S1', priority: 'low', kind: 'inspection', description: 'x' }),
    422,
    { fields: ['body.site_id'] },
    "another organisation's site",
  );
});

test('assign: to a member only, a new work order moves to assigned and the member is notified', async () => {
  clock.set(NOW);
  const wo = await create();
  assertRefused(
    await call(admin, 'POST', `${B}/work-orders/${wo.id}/assign`, { user_id: stranger }),
    422,
    { fields: ['body.user_id'] },
    'a member of another organisation',
  );
  assertRefused(await call(viewer, 'POST', `${B}/work-orders/${wo.id}/assign`, { user_id: engineer.id }), 403, 'Insufficient permissions');
  assertRefused(await call(other, 'POST', `${B}/work-orders/${wo.id}/assign`, { user_id: stranger }), 404, 'Not Found');
  const a = await ok(admin, 'POST', `${B}/work-orders/${wo.id}/assign`, { user_id: engineer.id });
  assert.equal(a.status, 'assigned');
  assert.equal(a.assignee_id, engineer.id);
  assert.deepEqual(a.history.at(-1).data, { from_user: null, to_user: engineer.id, from: 'new', to: 'assigned' });
  const inbox = await ok(engineer.token, 'GET', '/api/notifications/?kind=work_order_assigned');
  const n = inbox.notifications.find((x: { data: { work_order_id: string } }) => x.data.work_order_id === wo.id);
  assert.ok(n, 'the assignee got a work_order_assigned notification');
  assert.equal(n.link, `${B}/work-orders/${wo.id}`);
  await ok(admin, 'POST', `${B}/work-orders/${wo.id}/transition`, { to: 'cancelled' });
  assertRefused(
    await call(admin, 'POST', `${B}/work-orders/${wo.id}/assign`, { user_id: engineer.id }),
    409,
    'Work order is cancelled; only an open work order can be assigned',
  );
});

test('transition: the vocabulary moves only; 409 names the allowed ones; scheduled needs a time', async () => {
  clock.set(NOW);
  const wo = await create({ priority: 'high' });
  const bad = await call(engineer.token, 'POST', `${B}/work-orders/${wo.id}/transition`, { to: 'completed' });
  assertRefused(bad, 409, 'Cannot move a work order from new to completed; allowed: cancelled');
  assert.deepEqual(json(bad).allowed, ['cancelled']);
  assertRefused(
    await call(admin, 'POST', `${B}/work-orders/${wo.id}/transition`, { to: 'assigned' }),
    409,
    'Cannot move a work order from new to assigned; allowed: cancelled; assign it with POST /api/hardware/field/work-orders/{work_order_id}/assign',
  );
  await ok(admin, 'POST', `${B}/work-orders/${wo.id}/assign`, { user_id: engineer.id });
  assertRefused(await call(admin, 'POST', `${B}/work-orders/${wo.id}/transition`, { to: 'scheduled' }), 422, { fields: ['body.scheduled_for'] });
  assertRefused(await call(admin, 'POST', `${B}/work-orders/${wo.id}/transition`, { to: 'paused' }), 422, { fields: ['body.to'] });
  assertRefused(await call(viewer, 'POST', `${B}/work-orders/${wo.id}/transition`, { to: 'cancelled' }), 403, 'Insufficient permissions');
  assertRefused(await call(other, 'POST', `${B}/work-orders/${wo.id}/transition`, { to: 'cancelled' }), 404, 'Not Found');
  const s = await ok(engineer.token, 'POST', `${B}/work-orders/${wo.id}/transition`, {
    to: 'scheduled',
    scheduled_for: '2026-11-24T11:00:00Z',
    note: 'booked',
  });
  assert.equal(s.scheduled_for, '2026-11-24T11:00:00.000Z');
  clock.set('2026-11-24T11:00:00Z');
  const p = await ok(engineer.token, 'POST', `${B}/work-orders/${wo.id}/transition`, { to: 'in_progress' });
  assert.equal(p.sla.response.state, 'met');
  assert.equal(p.sla.response.stopped_at, '2026-11-24T11:00:00.000Z');
  clock.set('2026-11-24T12:00:00Z');
  const h = await ok(engineer.token, 'POST', `${B}/work-orders/${wo.id}/transition`, { to: 'on_hold', note: 'waiting for parts' });
  assert.equal(h.sla.resolution.paused, true, 'the high policy pauses on hold');
  assert.equal(h.sla.resolution.due_at, null);
  clock.set('2026-11-25T12:00:00Z');
  const r = await ok(engineer.token, 'POST', `${B}/work-orders/${wo.id}/transition`, { to: 'in_progress' });
  assert.equal(r.sla.resolution.elapsed_seconds, 3 * 3600, 'the day on hold did not count');
  assert.equal(r.sla.resolution.due_at, '2026-11-26T09:00:00.000Z', '24 h target: 21 h left from noon');
  const c = await ok(engineer.token, 'POST', `${B}/work-orders/${wo.id}/transition`, { to: 'completed' });
  assert.equal(c.sla.resolution.state, 'met');
  const v = await ok(admin, 'POST', `${B}/work-orders/${wo.id}/transition`, { to: 'verified' });
  assert.deepEqual(v.allowed_transitions, []);
  assertRefused(
    await call(admin, 'POST', `${B}/work-orders/${wo.id}/transition`, { to: 'in_progress' }),
    409,
    'Cannot move a work order from verified to in_progress; allowed: none (verified is final)',
  );
  assert.deepEqual(
    v.history.filter((e: { type: string }) => e.type === 'transition').map((e: { data: { to: string } }) => e.data.to),
    ['scheduled', 'in_progress', 'on_hold', 'in_progress', 'completed', 'verified'],
  );
});

test('priority: clocks recomputed from creation under the new policy and the change recorded', async () => {
  clock.set(NOW);
  const wo = await create({ priority: 'low' });
  assert.equal(
    wo.sla.response.due_at,
    '2026-11-27T09:00:00.000Z',
    '30 business hours from Tuesday 09:00: 9 + 10 + 10 to Thursday 18:00, then Friday 08:00-09:00',
  );
  clock.set('2026-11-24T09:30:00Z');
  const p = await ok(engineer.token, 'POST', `${B}/work-orders/${wo.id}/priority`, { priority: 'critical', reason: 'site offline' });
  assert.equal(p.priority, 'critical');
  assert.equal(p.sla.response.due_at, '2026-11-24T10:00:00.000Z');
  assert.equal(p.sla.response.state, 'ok');
  assert.equal(p.sla_policy.measure, 'calendar_hours');
  const e = p.history.at(-1);
  assert.equal(e.type, 'priority_changed');
  assert.deepEqual(e.data.response_due_at, { from: '2026-11-27T09:00:00.000Z', to: '2026-11-24T10:00:00.000Z' });
  assert.equal(e.data.reason, 'site offline');
  assertRefused(await call(admin, 'POST', `${B}/work-orders/${wo.id}/priority`, { priority: 'urgent' }), 422, { fields: ['body.priority'] });
  assertRefused(await call(viewer, 'POST', `${B}/work-orders/${wo.id}/priority`, { priority: 'low' }), 403, 'Insufficient permissions');
  await ok(admin, 'POST', `${B}/work-orders/${wo.id}/transition`, { to: 'cancelled' });
  assertRefused(
    await call(admin, 'POST', `${B}/work-orders/${wo.id}/priority`, { priority: 'low' }),
    409,
    'Work order is cancelled; only an open work order can be reprioritised',
  );
});

test('notes and attachments (metadata only): kept in the history; refusals', async () => {
  clock.set(NOW);
  const wo = await create();
  const n = await ok(engineer.token, 'POST', `${B}/work-orders/${wo.id}/notes`, { text: 'Reset the breaker' }, 201);
  assert.equal(n.author_id, engineer.id);
  const sha = 'AB'.repeat(32);
  const a = await ok(
    engineer.token,
    'POST',
    `${B}/work-orders/${wo.id}/attachments`,
    { name: 'panel.jpg', content_type: 'image/jpeg', size_bytes: 123456, sha256: sha, external_ref: 's3://bucket/panel.jpg' },
    201,
  );
  assert.equal(a.sha256, sha.toLowerCase());
  const got = await ok(viewer, 'GET', `${B}/work-orders/${wo.id}`);
  assert.deepEqual(
    got.notes.map((x: { text: string }) => x.text),
    ['Reset the breaker'],
  );
  assert.deepEqual(
    got.attachments.map((x: { name: string; size_bytes: number }) => [x.name, x.size_bytes]),
    [['panel.jpg', 123456]],
  );
  assertRefused(await call(engineer.token, 'POST', `${B}/work-orders/${wo.id}/notes`, { text: '' }), 422, { fields: ['body.text'] });
  assertRefused(await call(viewer, 'POST', `${B}/work-orders/${wo.id}/notes`, { text: 'x' }), 403, 'Insufficient permissions');
  assertRefused(await call(other, 'POST', `${B}/work-orders/${wo.id}/notes`, { text: 'x' }), 404, 'Not Found');
  assertRefused(
    await call(engineer.token, 'POST', `${B}/work-orders/${wo.id}/attachments`, {
      name: 'a',
      content_type: 'image/png',
      size_bytes: -1,
      sha256: 'zz',
      external_ref: 'r',
    }),
    422,
    { fields: ['body.size_bytes', 'body.sha256'] },
  );
  assertRefused(
    await call(other, 'POST', `${B}/work-orders/${wo.id}/attachments`, {
      name: 'a',
      content_type: 'image/png',
      size_bytes: 1,
      sha256: 'a'.repeat(64),
      external_ref: 'r',
    }),
    404,
    'Not Found',
  );
});

test('from-alert: one work order per alert (second call 200 with the same one); resolved and unknown alerts refused', async () => {
  clock.set(NOW);
  const stream = svc.deps.services.get(ALERT_STREAM);
  const raise = (id: string, severity: 'critical' | 'warning') =>
    stream.raise(svc.deps.db, ORG, {
      type: 'test_fault',
      source: 'test',
      severity,
      title: `Fault on ${id}`,
      subject: { type: 'asset', id },
      details: { site_id: 'S1', asset_id: id },
    });
  const { alert } = await raise('inv-1', 'critical');
  const first = await ok(engineer.token, 'POST', `${B}/work-orders/from-alert/${alert.id}`, undefined, 201);
  assert.deepEqual(
    [first.source, first.site_id, first.asset_id, first.priority, first.kind],
    [{ type: 'alert', id: alert.id }, 'S1', 'inv-1', 'critical', 'corrective'],
  );
  const second = await ok(engineer.token, 'POST', `${B}/work-orders/from-alert/${alert.id}`, undefined, 200);
  assert.equal(second.id, first.id);
  const listed = await ok(viewer, 'GET', `${B}/alerts`);
  assert.equal(listed.alerts.find((a: { id: string }) => a.id === alert.id).work_order_id, first.id);
  const { alert: b } = await raise('meter-1', 'warning');
  assert.deepEqual(
    (await ok(viewer, 'GET', `${B}/alerts?without_work_order=true`)).alerts.map((a: { id: string }) => a.id),
    [b.id],
  );
  await stream.resolveById(svc.deps.db, ORG, b.id, 'cleared');
  assertRefused(await call(admin, 'POST', `${B}/work-orders/from-alert/${b.id}`), 409, `Alert ${b.id} is resolved; no work order was opened`);
  assertRefused(await call(other, 'POST', `${B}/work-orders/from-alert/${alert.id}`), 404, 'Not Found', "another organisation's alert");
  assertRefused(await call(viewer, 'POST', `${B}/work-orders/from-alert/${alert.id}`), 403, 'Insufficient permissions');
  assertRefused(await call(admin, 'POST', `${B}/work-orders/from-alert/nope`), 404, 'Not Found');
});

test('from-stale-feed and assets: a stale feed opens one work order, a fresh one is refused with 409', async () => {
  clock.set(NOW);
  const assets = await ok(viewer, 'GET', `${B}/assets?site_id=S1`);
  assert.deepEqual(
    assets.assets.map((a: { asset_id: string; feed_stale: boolean }) => [a.asset_id, a.feed_stale]),
    [
      ['inv-1', true],
      ['meter-1', false],
    ],
  );
  const wo = await ok(engineer.token, 'POST', `${B}/work-orders/from-stale-feed/inv-1`, undefined, 201);
  assert.deepEqual([wo.kind, wo.priority, wo.site_id, wo.source.type], ['communications', 'medium', 'S1', 'stale_feed']);
  assert.equal(wo.description, 'No telemetry from inv-1 since 2026-11-24T07:00:00.000Z: restore the data feed.');
  assert.equal((await ok(engineer.token, 'POST', `${B}/work-orders/from-stale-feed/inv-1`, undefined, 200)).id, wo.id);
  const never = await ok(engineer.token, 'POST', `${B}/work-orders/from-stale-feed/bat-2`, undefined, 201);
  assert.equal(never.description, 'No telemetry from bat-2 ever: restore the data feed.');
  assertRefused(
    await call(engineer.token, 'POST', `${B}/work-orders/from-stale-feed/meter-1`),
    409,
    'Feed of device meter-1 is fresh: last record at 2026-11-24T08:59:00.000Z; a feed is stale after 1 hour without a record',
  );
  assertRefused(await call(engineer.token, 'POST', `${B}/work-orders/from-stale-feed/ghost`), 404, 'Not Found');
  assertRefused(await call(other, 'POST', `${B}/work-orders/from-stale-feed/inv-1`), 404, 'Not Found', "another organisation's device");
  const stale = await ok(viewer, 'GET', `${B}/assets?stale_only=true`);
  assert.deepEqual(
    stale.assets.map((a: { asset_id: string }) => a.asset_id),
    ['inv-1', 'bat-2', 'pump-3'],
  );
  assert.ok(stale.assets.find((a: { asset_id: string }) => a.asset_id === 'inv-1').open_work_orders >= 1);
  assertRefused(await call(viewer, 'GET', `${B}/assets?stale_only=maybe`), 422, { fields: ['query.stale_only'] });
  assert.deepEqual((await ok(other, 'GET', `${B}/assets`)).assets, [], "another organisation's assets are not listed");
});

test('dispatch list, due list and SLA report: filters, risk as time moves, cursor paging', async () => {
  const T0 = '2026-12-01T09:00:00.000Z';
  clock.set(T0);
  await create({ site_id: 'S3', priority: 'critical', description: 'A' });
  const b = await create({ site_id: 'S3', priority: 'high', description: 'B' });
  await create({ site_id: 'S3', priority: 'medium', description: 'C' });
  await ok(admin, 'POST', `${B}/work-orders/${b.id}/assign`, { user_id: engineer.id });
  clock.set('2026-12-01T09:50:00.000Z');
  const due = await ok(viewer, 'GET', `${B}/work-orders/due`);
  const mine = due.work_orders.filter((w: { site_id: string; created_at: string }) => w.site_id === 'S3' && w.created_at === T0);
  assert.deepEqual(
    mine.map((w: { description: string; next_due: { clock: string; due_at: string } }) => [w.description, w.next_due.clock, w.next_due.due_at]),
    [
      ['A', 'response', '2026-12-01T10:00:00.000Z'],
      ['B', 'response', '2026-12-01T13:00:00.000Z'],
      ['C', 'response', '2026-12-02T09:00:00.000Z'],
    ],
  );
  assert.equal(mine[0].next_due.seconds_left, 600);
  // Equal creation times: the order among them is by id, so compare as sets.
  const list = async (q: string) =>
    (await ok(viewer, 'GET', `${B}/work-orders?site_id=S3&${q}`)).work_orders.map((w: { description: string }) => w.description).sort();
  assert.deepEqual(await list('sla_risk=at_risk'), ['A']);
  clock.set('2026-12-01T10:00:00.000Z');
  assert.deepEqual(await list('sla_risk=breached'), ['A']);
  assert.deepEqual(await list('sla_risk=ok'), ['B', 'C']);
  assert.deepEqual(await list('priority=high'), ['B']);
  assert.deepEqual(await list(`assignee_id=${engineer.id}`), ['B']);
  assert.deepEqual(await list('assignee_id=none&status=new'), ['A', 'C']);
  const p1 = await ok(viewer, 'GET', `${B}/work-orders?site_id=S3&limit=2`);
  assert.equal(p1.has_more, true);
  const p2 = await ok(viewer, 'GET', `${B}/work-orders?site_id=S3&limit=2&cursor=${encodeURIComponent(p1.next_cursor)}`);
  assert.equal(p2.has_more, false);
  assert.deepEqual([...p1.work_orders, ...p2.work_orders].map((w: { description: string }) => w.description).sort(), ['A', 'B', 'C']);
  assertRefused(await call(viewer, 'GET', `${B}/work-orders?site_id=S1&limit=2&cursor=${encodeURIComponent(p1.next_cursor)}`), 400, 'invalid_cursor');
  assertRefused(await call(viewer, 'GET', `${B}/work-orders?sla_risk=late`), 422, { fields: ['query.sla_risk'] });
  assertRefused(await call(viewer, 'GET', `${B}/work-orders/due?limit=0`), 422, { fields: ['query.limit'] });
  assert.equal((await ok(other, 'GET', `${B}/work-orders`)).work_orders.length, 0);
  // Finish B within its targets; A breached its response; C is on track.
  await ok(engineer.token, 'POST', `${B}/work-orders/${b.id}/transition`, { to: 'in_progress' });
  clock.set('2026-12-01T11:00:00.000Z');
  await ok(engineer.token, 'POST', `${B}/work-orders/${b.id}/transition`, { to: 'completed' });
  const rep = await ok(viewer, 'GET', `${B}/reports/sla?from=2026-12-01T00:00:00Z&to=2026-12-02T00:00:00Z`);
  assert.deepEqual(
    { total: rep.overall.total, met: rep.overall.met, breached: rep.overall.breached, on_track: rep.overall.on_track, met_percent: rep.overall.met_percent },
    { total: 3, met: 1, breached: 1, on_track: 1, met_percent: 33.3 },
  );
  assert.equal(rep.overall.median_response_minutes, 60);
  assert.equal(rep.overall.median_resolution_minutes, 120);
  assert.deepEqual(
    rep.by_priority.map((g: { key: string; breached: number }) => [g.key, g.breached]),
    [
      ['critical', 1],
      ['high', 0],
      ['medium', 0],
    ],
  );
  assert.deepEqual(
    rep.by_assignee.map((g: { key: string; total: number }) => [g.key, g.total]),
    [
      [engineer.id, 1],
      ['unassigned', 2],
    ],
  );
  assert.deepEqual(
    rep.by_site.map((g: { key: string }) => g.key),
    ['S3'],
  );
  assertRefused(await call(viewer, 'GET', `${B}/reports/sla?from=2026-12-02T00:00:00Z&to=2026-12-01T00:00:00Z`), 422, { fields: ['query.from'] });
  assertRefused(await call(viewer, 'GET', `${B}/reports/sla?from=yesterday`), 422, { fields: ['query.from'] });
  assert.equal((await ok(other, 'GET', `${B}/reports/sla?from=2026-12-01T00:00:00Z&to=2026-12-02T00:00:00Z`)).overall.total, 0);
});

test('from-alert and from-stale-feed called at once: one work order each, the other call answers 200 with it', {
  skip: !realServers.database && 'needs PostgreSQL: PGlite runs one transaction at a time, so the unique-index race cannot happen',
}, async () => {
  clock.set('2026-12-10T09:00:00Z');
  const { alert } = await svc.deps.services
    .get(ALERT_STREAM)
    .raise(svc.deps.db, ORG, { type: 'race', source: 'test', severity: 'info', title: 'Race', details: { site_id: 'S2' } });
  for (const url of [`${B}/work-orders/from-alert/${alert.id}`, `${B}/work-orders/from-stale-feed/pump-3`]) {
    const answers = await Promise.all(Array.from({ length: 4 }, () => call(engineer.token, 'POST', url)));
    assert.deepEqual(answers.map((r) => r.statusCode).sort(), [200, 200, 200, 201], url);
    assert.equal(new Set(answers.map((r) => json(r).id)).size, 1, url);
  }
});
