// Notifications through HTTP: the calling user's own list, unread count, mark read (one, all) and
// preferences. Notifications are made by other modules through the NOTIFICATIONS service.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { json, startTestService, type TestService } from '../helpers/service.ts';
import { NOTIFICATIONS } from '../../src/modules/notifications/index.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let me: string;
let colleague: string;
let otherOrg: string;
const ORG = 'ntf-org';
const h = (t: string) => ({ authorization: `Bearer ${t}` });

before(async () => {
  svc = await startTestService();
  await svc.createOrg(ORG);
  await svc.createOrg('ntf-other');
  me = await svc.token({ orgId: ORG, roles: ['VIEWER'], userId: 'u-me' });
  colleague = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], userId: 'u-col' });
  otherOrg = await svc.token({ orgId: 'ntf-other', roles: ['ORG_ADMIN'], userId: 'u-me' });
  const n = svc.deps.services.get(NOTIFICATIONS);
  for (let i = 1; i <= 3; i++) {
    await n.notify(svc.deps.db, { orgId: ORG, userId: 'u-me', kind: 'alert_routed', title: `Alert ${i}`, data: { i } });
  }
  await n.notify(svc.deps.db, { orgId: ORG, userId: 'u-me', kind: 'work_order_assigned', title: 'WO-1' });
  await n.notify(svc.deps.db, { orgId: ORG, userId: 'u-col', kind: 'alert_routed', title: 'Not yours' });
});
after(() => svc.stop());

const get = (t: string, url: string) => svc.request({ method: 'GET', url, headers: h(t) });
const post = (t: string, url: string) => svc.request({ method: 'POST', url, headers: h(t) });

test("list: only the caller's own, newest first, cursor pages and filters; the path without the slash too", async () => {
  const res = await get(me, '/api/notifications/?limit=3');
  assert.equal(res.statusCode, 200);
  const p1 = json(res);
  assert.deepEqual(
    p1.notifications.map((n: { title: string }) => n.title),
    ['WO-1', 'Alert 3', 'Alert 2'],
  );
  assert.equal(p1.has_more, true);
  const p2 = json(await get(me, `/api/notifications/?limit=3&cursor=${encodeURIComponent(p1.next_cursor)}`));
  assert.deepEqual(
    p2.notifications.map((n: { title: string }) => n.title),
    ['Alert 1'],
  );
  assert.equal(p2.next_cursor, null);
  assert.equal(json(await get(me, '/api/notifications?kind=work_order_assigned')).notifications.length, 1);
  assert.equal(json(await get(colleague, '/api/notifications/')).notifications.length, 1);
  assert.equal(json(await get(otherOrg, '/api/notifications/')).notifications.length, 0, 'the same user id in another organisation sees nothing');
  assertRefused(await get(me, '/api/notifications/?kind=gossip'), 422, { fields: ['query.kind'] });
  assertRefused(await get(me, `/api/notifications/?limit=3&cursor=${encodeURIComponent(p1.next_cursor)}&unread_only=true`), 400, 'invalid_cursor');
  assertRefused(await svc.request({ method: 'GET', url: '/api/notifications/' }), 401, 'Authorization header missing');
});

test("unread count, mark one read (idempotent; someone else's is 404), mark all read", async () => {
  assert.deepEqual(json(await get(me, '/api/notifications/unread-count')), { unread: 4 });
  const first = json(await get(me, '/api/notifications/')).notifications[0];
  const r = await post(me, `/api/notifications/${first.id}/read`);
  assert.equal(r.statusCode, 200);
  assert.equal(json(r).read, true);
  const at = json(r).read_at;
  assert.equal(json(await post(me, `/api/notifications/${first.id}/read`)).read_at, at);
  assertRefused(await post(colleague, `/api/notifications/${first.id}/read`), 404, 'Not Found');
  assertRefused(await post(otherOrg, `/api/notifications/${first.id}/read`), 404, 'Not Found');
  assert.deepEqual(json(await get(me, '/api/notifications/unread-count')), { unread: 3 });
  assert.equal(json(await get(me, '/api/notifications/?unread_only=true')).notifications.length, 3);
  assert.deepEqual(json(await post(me, '/api/notifications/read-all')), { marked: 3, unread: 0 });
  assert.deepEqual(json(await get(me, '/api/notifications/unread-count')), { unread: 0 });
  assert.deepEqual(json(await get(colleague, '/api/notifications/unread-count')), { unread: 1 }, "a colleague's are untouched");
});

test('preferences: defaults, PUT (whole set), honoured by notify; refusals', async () => {
  const d = json(await get(me, '/api/notifications/preferences'));
  assert.equal(d.updated_at, null);
  assert.equal(d.kinds.alert_routed, true);
  assert.deepEqual(d.channels, { in_app: true, email: false });
  assert.equal(d.quiet_hours, null);
  const put = await svc.request({
    method: 'PUT',
    url: '/api/notifications/preferences',
    headers: h(me),
    payload: { kinds: { alert_routed: false }, channels: { email: true }, quiet_hours: { start: '22:00', end: '07:00', timezone: 'Europe/London' } },
  });
  assert.equal(put.statusCode, 200, put.body);
  const p = json(put);
  assert.equal(p.kinds.alert_routed, false);
  assert.equal(p.kinds.alert_assigned, true);
  assert.deepEqual(p.channels, { in_app: true, email: true });
  assert.deepEqual(p.quiet_hours, { start: '22:00', end: '07:00', timezone: 'Europe/London' });
  assert.ok(p.updated_at);
  const n = svc.deps.services.get(NOTIFICATIONS);
  assert.equal(await n.notify(svc.deps.db, { orgId: ORG, userId: 'u-me', kind: 'alert_routed', title: 'muted' }), null, 'a kind switched off is not recorded');
  assert.ok(await n.notify(svc.deps.db, { orgId: ORG, userId: 'u-me', kind: 'alert_assigned', title: 'kept' }));
  assert.equal(json(await get(colleague, '/api/notifications/preferences')).updated_at, null, "one user's preferences are theirs only");

  const refusals: [object, string][] = [
    [{ kinds: { gossip: true } }, 'body.kinds.gossip'],
    [{ quiet_hours: { start: '25:00', end: '07:00', timezone: 'Europe/London' } }, 'body.quiet_hours'],
    [{ quiet_hours: { start: '22:00', end: '07:00', timezone: 'Mars/Olympus' } }, 'body.quiet_hours.timezone'],
    [{ quiet_hours: { start: '07:00', end: '07:00', timezone: 'Europe/London' } }, 'body.quiet_hours.end'],
    [{ channels: { pager: true } }, 'body.channels.pager'],
  ];
  for (const [payload, field] of refusals) {
    const res = await svc.request({ method: 'PUT', url: '/api/notifications/preferences', headers: h(me), payload });
    assertRefused(res, 422, { fields: [field] }, JSON.stringify(payload));
  }
});
