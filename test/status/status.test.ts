// Platform status and incidents through HTTP (decision 0224): component health from the recorded
// health checks, incidents read by members of any organisation and written by platform
// administrators only, the one-way state order, and the CSV export.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { assertRefused } from '../helpers/refusal.ts';

const P = '/api/hardware/platform';
let svc: TestService;
let platformAdmin: string;
let staffOnly: string;
let orgAdmin: string;
let viewerB: string;
const clock = new ManualClock(new Date('2026-11-23T17:00:00.000Z'));
const req = (method: string, url: string, token: string, payload?: unknown) =>
  svc.request({ method: method as never, url, headers: { authorization: `Bearer ${token}` }, ...(payload !== undefined && { payload: payload as never }) });
const opening = {
  title: 'Webhook deliveries delayed',
  impact: 'minor',
  affected_components: ['webhook_delivery'],
  message: 'We are looking into delayed deliveries.',
};

before(async () => {
  svc = await startTestService({ clock });
  await svc.createOrg('status-a');
  await svc.createOrg('status-b');
  platformAdmin = await svc.token({ orgId: 'status-a', roles: ['VIEWER'], userId: 'u-padmin', staff: true, admin: true });
  staffOnly = await svc.token({ orgId: 'status-a', roles: ['ORG_ADMIN'], userId: 'u-staff', staff: true });
  orgAdmin = await svc.token({ orgId: 'status-a', roles: ['ORG_ADMIN'] });
  viewerB = await svc.token({ orgId: 'status-b', roles: ['VIEWER'] });
});
after(async () => svc?.stop());

test('status: components from the recorded health checks; unobserved before any check, operational after', async () => {
  let s = json(await req('GET', `${P}/status`, viewerB));
  assert.equal(s.status, 'unobserved');
  assert.deepEqual(
    s.components.map((c: any) => c.name),
    ['partner_api', 'webhook_delivery', 'database', 'cache', 'bus'],
  );
  assert.deepEqual(s.components[2].availability.last_24h, { percent: null, checks: 0, failed: 0 });
  await svc.runDue();
  s = json(await req('GET', `${P}/status`, viewerB));
  assert.equal(s.status, 'operational');
  assert.deepEqual(s.components[2].availability.last_24h, { percent: 100, checks: 1, failed: 0 });
  assert.deepEqual(s.open_incidents, []);
  assertRefused(await svc.request({ method: 'GET', url: `${P}/status` }), 401, 'Authorization header missing');
});

test('create: platform administrators only; bad input refused; incident opens investigating and shows on the status', async () => {
  assertRefused(await req('POST', `${P}/incidents`, orgAdmin, opening), 403, 'Platform staff only');
  assertRefused(await req('POST', `${P}/incidents`, staffOnly, opening), 403, 'Platform administrators only');
  assertRefused(await req('POST', `${P}/incidents`, platformAdmin, { ...opening, impact: 'huge' }), 422, { fields: ['body.impact'] });
  assertRefused(await req('POST', `${P}/incidents`, platformAdmin, { ...opening, affected_components: ['database', 'toaster'] }), 422, {
    fields: ['body.affected_components.1'],
  });
  assertRefused(await req('POST', `${P}/incidents`, platformAdmin, { ...opening, affected_components: [] }), 422, { fields: ['body.affected_components'] });
  assert.deepEqual(json(await req('GET', `${P}/incidents`, viewerB)).incidents, [], 'nothing half-written');
  const r = await req('POST', `${P}/incidents`, platformAdmin, opening);
  assert.equal(r.statusCode, 201, r.body);
  const inc = json(r);
  assert.match(inc.id, /^inc_/);
  assert.equal(inc.state, 'investigating');
  assert.equal(inc.started_at, '2026-11-23T17:00:00.000Z');
  assert.equal(inc.resolved_at, null);
  assert.deepEqual(
    inc.updates.map((u: any) => [u.state, u.message]),
    [['investigating', opening.message]],
  );
  const s = json(await req('GET', `${P}/status`, viewerB));
  assert.deepEqual(
    s.open_incidents.map((i: any) => i.id),
    [inc.id],
  );
  assert.deepEqual(s.components.find((c: any) => c.name === 'webhook_delivery').open_incidents, [inc.id]);
  assert.deepEqual(s.components.find((c: any) => c.name === 'database').open_incidents, []);
});

test('updates: forward moves only, 409 naming the allowed states, resolved final, unknown 404, admins only', async () => {
  const inc = json(await req('POST', `${P}/incidents`, platformAdmin, { ...opening, title: 'Bus lag', affected_components: ['bus'] }));
  const U = `${P}/incidents/${inc.id}/updates`;
  assertRefused(await req('POST', U, viewerB, { state: 'identified', message: 'x' }), 403, 'Platform staff only');
  assertRefused(await req('POST', U, staffOnly, { state: 'identified', message: 'x' }), 403, 'Platform administrators only');
  assertRefused(await req('POST', U, platformAdmin, { state: 'fixed', message: 'x' }), 422, { fields: ['body.state'] });
  assertRefused(await req('POST', U, platformAdmin, { state: 'identified', message: '' }), 422, { fields: ['body.message'] });
  assertRefused(await req('POST', `${P}/incidents/inc_nope/updates`, platformAdmin, { state: 'identified', message: 'x' }), 404, 'Incident not found');
  clock.advance(10 * 60_000);
  let r = await req('POST', U, platformAdmin, { state: 'monitoring', message: 'Fix deployed', impact: 'major' });
  assert.equal(r.statusCode, 201, r.body);
  assert.equal(json(r).state, 'monitoring');
  assert.equal(json(r).impact, 'major');
  assertRefused(
    await req('POST', U, platformAdmin, { state: 'investigating', message: 'Back again' }),
    409,
    'Cannot move an incident from monitoring to investigating; allowed: monitoring, resolved',
  );
  assert.equal((await req('POST', U, platformAdmin, { state: 'monitoring', message: 'Still watching' })).statusCode, 201);
  clock.advance(5 * 60_000);
  r = await req('POST', U, platformAdmin, { state: 'resolved', message: 'All clear' });
  const done = json(r);
  assert.equal(done.state, 'resolved');
  assert.equal(done.resolved_at, '2026-11-23T17:15:00.000Z');
  assert.deepEqual(
    done.updates.map((u: any) => u.state),
    ['resolved', 'monitoring', 'monitoring', 'investigating'],
  );
  assertRefused(
    await req('POST', U, platformAdmin, { state: 'resolved', message: 'again' }),
    409,
    'Incident is resolved; resolved is final and takes no further updates',
  );
  const s = json(await req('GET', `${P}/status`, viewerB));
  assert.ok(!s.open_incidents.some((i: any) => i.id === inc.id));
});

test('list: newest first, filtered by state, read by any organisation; bad limit refused', async () => {
  const all = json(await req('GET', `${P}/incidents`, viewerB)).incidents;
  assert.deepEqual(
    all.map((i: any) => i.title),
    ['Bus lag', 'Webhook deliveries delayed'],
  );
  assert.deepEqual(
    json(await req('GET', `${P}/incidents?state=open`, orgAdmin)).incidents.map((i: any) => i.title),
    ['Webhook deliveries delayed'],
  );
  assert.deepEqual(
    json(await req('GET', `${P}/incidents?state=resolved`, orgAdmin)).incidents.map((i: any) => i.title),
    ['Bus lag'],
  );
  assert.equal(json(await req('GET', `${P}/incidents?limit=1`, viewerB)).incidents.length, 1);
  assertRefused(await req('GET', `${P}/incidents?limit=0`, viewerB), 422, { fields: ['query.limit'] });
  assertRefused(await req('GET', `${P}/incidents?state=closed`, viewerB), 422, { fields: ['query.state'] });
});

test('CSV export: header, one row per incident, formula defused; bad filter refused', async () => {
  await req('POST', `${P}/incidents`, platformAdmin, {
    ...opening,
    title: '=HYPERLINK("x")',
    affected_components: ['database', 'cache'],
    message: 'a, "quoted"\nline',
  });
  const r = await req('GET', `${P}/incidents/export.csv`, viewerB);
  assert.equal(r.statusCode, 200);
  assert.match(String(r.headers['content-type']), /^text\/csv/);
  const lines = r.body.split('\r\n');
  assert.equal(lines[0], 'id,title,impact,state,affected_components,started_at,resolved_at,updated_at,updates,latest_message');
  assert.match(
    lines[1],
    /^inc_[^,]+,"'=HYPERLINK\(""x""\)",minor,investigating,database;cache,2026-11-23T17:15:00\.000Z,,2026-11-23T17:15:00\.000Z,1,"a, ""quoted""\nline"$/,
  );
  assert.equal(r.body.split('\r\n').filter((l: string) => l.startsWith('inc_')).length, 3);
  assertRefused(await req('GET', `${P}/incidents/export.csv?state=nope`, viewerB), 422, { fields: ['query.state'] });
});
