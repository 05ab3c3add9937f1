// Webhook endpoints: register (SSRF guard), change, disable / re-enable, delete, rotate the secret,
// delivery log with cursors, test events, replay.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import type { FakeServer } from '../helpers/fake-server.ts';
import { bearer, deliveries, issueKey, registerEndpoint, runAt, startReceiver, verifySignature } from './helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let strict: TestService;
let receiver: FakeServer;
const ORG = 'hooks-org';
const OTHER = 'hooks-other';

before(async () => {
  svc = await startTestService();
  strict = await startTestService({ env: { ALLOW_PRIVATE_OUTBOUND: 'false' } });
  for (const s of [svc, strict]) {
    await s.createOrg(ORG);
    await s.createOrg(OTHER);
  }
  receiver = await startReceiver([200]);
});
after(async () => {
  await receiver.close();
  await svc.stop();
  await strict.stop();
});

const post = async (s: TestService, url: string, payload?: unknown, org = ORG) =>
  s.request({ method: 'POST', url, headers: await bearer(s, org), ...(payload !== undefined && { payload: payload as object }) });

test('register: 201 with the signing secret once; list shows it without the secret; audited', async () => {
  const res = await post(svc, '/api/devtools/webhooks', { url: `${receiver.url}/hook`, description: 'ops', event_types: ['alert.raised'] });
  assert.equal(res.statusCode, 201);
  const body = json(res);
  assert.match(body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.equal(body.environment, 'live');
  assert.equal(body.enabled, true);
  assert.deepEqual(body.event_types, ['alert.raised']);
  const list = await svc.request({ method: 'GET', url: '/api/devtools/webhooks', headers: await bearer(svc, ORG) });
  assert.equal(list.statusCode, 200);
  assert.ok(!list.body.includes(body.secret.slice(6)));
  assert.ok(json(list).webhooks.some((w: { id: string }) => w.id === body.id));
  const dump = await svc.deps.db.query<{ t: string }>(`select string_agg(row_to_json(x)::text, '') as t from webhook_endpoints x`);
  assert.ok(!dump.rows[0].t.includes(body.secret.slice(6)), 'the secret is stored encrypted');
  const other = await svc.request({ method: 'GET', url: '/api/devtools/webhooks', headers: await bearer(svc, OTHER) });
  assert.ok(!json(other).webhooks.some((w: { id: string }) => w.id === body.id));
  const sbx = await post(svc, '/api/devtools/webhooks?environment=sandbox', { url: `${receiver.url}/sbx` });
  assert.equal(json(sbx).environment, 'sandbox');
  const onlySandbox = await svc.request({ method: 'GET', url: '/api/devtools/webhooks?environment=sandbox', headers: await bearer(svc, ORG) });
  assert.ok(json(onlySandbox).webhooks.every((w: { environment: string }) => w.environment === 'sandbox'));
});

test('register refusals: wrong role 403, bad body 422, an API key 401', async () => {
  const viewer = await svc.request({
    method: 'POST',
    url: '/api/devtools/webhooks',
    headers: await bearer(svc, ORG, ['OPERATOR']),
    payload: { url: 'https://example.com/x' },
  });
  assertRefused(viewer, 403, { code: 'insufficient_permissions', detail: 'Insufficient permissions' });
  const key = await issueKey(svc, ORG);
  const withKey = await svc.request({ method: 'POST', url: '/api/devtools/webhooks', headers: key.auth, payload: { url: 'https://example.com/x' } });
  assertRefused(withKey, 401, { code: 'api_key_not_accepted', detail: 'API keys are not accepted by this operation' });
  for (const payload of [{}, { url: 'https://example.com/x', event_types: ['nope'] }, { url: 'https://example.com/x', secret: 'mine' }, { url: 'not a url' }]) {
    const res = await post(svc, '/api/devtools/webhooks', payload);
    assert.equal(res.statusCode, 422, JSON.stringify(payload));
    assert.equal(json(res).code, 'validation_error');
  }
});

test('SSRF (private outbound off): loopback, private, link-local, metadata and plain http are refused at registration', async () => {
  for (const url of [
    'https://127.0.0.1/hook',
    'https://[::1]/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://10.0.0.1/hook',
    'https://10.20.30.40:8443/hook',
    'https://192.168.1.5/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://100.64.0.1/hook',
    'https://localhost/hook',
    'http://hooks.example.com/hook',
    'http://127.0.0.1/hook',
    'file:///etc/passwd',
    'gopher://example.com/',
    'https://user:pw@example.com/hook',
  ]) {
    const res = await post(strict, '/api/devtools/webhooks', { url });
    assert.equal(res.statusCode, 422, url);
    assert.deepEqual(json(res).detail[0].loc, ['body', 'url'], url);
    assert.match(json(res).detail[0].msg, /^URL refused/, url);
  }
  // (Acceptance of a public HTTPS address is not shown here: the test harness confines outbound
  // calls to loopback process-wide, OUTBOUND_LOOPBACK_ONLY.)
});

test('PATCH: change, disable, re-enable; other organisation 404; empty body 422', async () => {
  const ep = await registerEndpoint(svc, ORG, `${receiver.url}/patch`);
  const url = `/api/devtools/webhooks/${ep.id}`;
  const other = await svc.request({ method: 'PATCH', url, headers: await bearer(svc, OTHER), payload: { enabled: false } });
  assertRefused(other, 404, { code: 'not_found', detail: 'Not Found' });
  assertRefused(await svc.request({ method: 'PATCH', url, headers: await bearer(svc, ORG), payload: {} }), 422, { code: 'validation_error', fields: ['body'] });
  const changed = await svc.request({
    method: 'PATCH',
    url,
    headers: await bearer(svc, ORG),
    payload: { description: 'changed', event_types: ['webhook.test'] },
  });
  assert.equal(changed.statusCode, 200);
  assert.equal(json(changed).description, 'changed');
  const off = await svc.request({ method: 'PATCH', url, headers: await bearer(svc, ORG), payload: { enabled: false } });
  assert.equal(json(off).enabled, false);
  assert.equal(json(off).disabled_reason, 'manual');
  const t = await post(svc, `${url}/test`);
  assert.equal(t.statusCode, 409);
  assert.equal(json(t).code, 'webhook_endpoint_disabled');
  const on = await svc.request({ method: 'PATCH', url, headers: await bearer(svc, ORG), payload: { enabled: true } });
  assert.equal(json(on).enabled, true);
  assert.equal(json(on).disabled_reason, null);
});

test('DELETE: 204, then 404; other organisation 404; audited', async () => {
  const ep = await registerEndpoint(svc, ORG, `${receiver.url}/delete`);
  const url = `/api/devtools/webhooks/${ep.id}`;
  assertRefused(await svc.request({ method: 'DELETE', url, headers: await bearer(svc, OTHER) }), 404, { code: 'not_found', detail: 'Not Found' });
  assertRefused(await svc.request({ method: 'DELETE', url, headers: await bearer(svc, ORG, ['ANALYST']) }), 403, {
    code: 'insufficient_permissions',
    detail: 'Insufficient permissions',
  });
  const res = await svc.request({ method: 'DELETE', url, headers: await bearer(svc, ORG) });
  assert.equal(res.statusCode, 204);
  assert.equal(res.body, '');
  assertRefused(await svc.request({ method: 'DELETE', url, headers: await bearer(svc, ORG) }), 404, { code: 'not_found', detail: 'Not Found' });
  const audit = await svc.deps.db.query<{ action: string }>('select action from audit_log where target_id = $1 order by id', [ep.id]);
  assert.deepEqual(
    audit.rows.map((r) => r.action),
    ['webhook.create', 'webhook.delete'],
  );
});

test('test event: 202, delivered signed; a live endpoint refuses other types (400), a sandbox one sends them', async () => {
  const ep = await registerEndpoint(svc, ORG, `${receiver.url}/test-live`);
  const res = await post(svc, `/api/devtools/webhooks/${ep.id}/test`);
  assert.equal(res.statusCode, 202);
  assert.equal(json(res).event_type, 'webhook.test');
  const refused = await post(svc, `/api/devtools/webhooks/${ep.id}/test`, { event_type: 'alert.raised' });
  assert.equal(refused.statusCode, 400);
  assert.equal(json(refused).code, 'sandbox_only_event_type');
  assertRefused(await post(svc, `/api/devtools/webhooks/${ep.id}/test`, { event_type: 'nope' }), 422, {
    code: 'validation_error',
    fields: ['body.event_type'],
  });
  assertRefused(await post(svc, `/api/devtools/webhooks/${ep.id}/test`, undefined, OTHER), 404, { code: 'not_found', detail: 'Not Found' });
  await runAt(svc, svc.clock.now().getTime() + 11_000);
  const got = receiver.requests.filter((r) => r.url === '/test-live');
  assert.equal(got.length, 1);
  const envelope = JSON.parse(got[0].body);
  assert.equal(envelope.id, json(res).event_id);
  assert.equal(envelope.type, 'webhook.test');
  assert.equal(envelope.organisation_id, ORG);
  assert.equal(envelope.api_version, '2026-10-15');
  assert.ok(verifySignature(String(got[0].headers['platform-signature']), got[0].body, ep.secret, Math.floor(svc.clock.now().getTime() / 1000)));

  const sbx = await registerEndpoint(svc, ORG, `${receiver.url}/test-sandbox`, { environment: 'sandbox' });
  const s = await post(svc, `/api/devtools/webhooks/${sbx.id}/test`, { event_type: 'device.offline' });
  assert.equal(s.statusCode, 202);
  await runAt(svc, svc.clock.now().getTime() + 11_000);
  const sreq = receiver.requests.filter((r) => r.url === '/test-sandbox');
  assert.equal(sreq.length, 1);
  const sEnv = JSON.parse(sreq[0].body);
  assert.equal(sEnv.type, 'device.offline');
  assert.match(sEnv.organisation_id, /^demo-sandbox-[0-9a-f]{16}$/);
  assert.ok(sEnv.data.device.asset_id);
});

test('rotate-secret: new secret once; during the window both secrets verify; after it only the new one', async () => {
  const ep = await registerEndpoint(svc, ORG, `${receiver.url}/rotate`);
  const url = `/api/devtools/webhooks/${ep.id}/rotate-secret`;
  assertRefused(await post(svc, url, undefined, OTHER), 404, { code: 'not_found', detail: 'Not Found' });
  assertRefused(await post(svc, url, { overlap_seconds: 'soon' }), 422, { code: 'validation_error', fields: ['body.overlap_seconds'] });
  const res = await post(svc, url, { overlap_seconds: 3600 });
  assert.equal(res.statusCode, 200);
  const fresh = json(res).secret as string;
  assert.notEqual(fresh, ep.secret);
  assert.ok(json(res).previous_secret_valid_until);
  await post(svc, `/api/devtools/webhooks/${ep.id}/test`);
  await runAt(svc, svc.clock.now().getTime() + 11_000);
  const during = receiver.requests.filter((r) => r.url === '/rotate').at(-1)!;
  const now = () => Math.floor(svc.clock.now().getTime() / 1000);
  assert.equal(String(during.headers['platform-signature']).match(/v1=/g)!.length, 2);
  assert.ok(verifySignature(String(during.headers['platform-signature']), during.body, ep.secret, now()));
  assert.ok(verifySignature(String(during.headers['platform-signature']), during.body, fresh, now()));
  assert.ok(!verifySignature(String(during.headers['platform-signature']), during.body.replace('}', ' }'), fresh, now()));
  await runAt(svc, svc.clock.now().getTime() + 3600_000);
  await post(svc, `/api/devtools/webhooks/${ep.id}/test`);
  await runAt(svc, svc.clock.now().getTime() + 11_000);
  const after = receiver.requests.filter((r) => r.url === '/rotate').at(-1)!;
  assert.equal(String(after.headers['platform-signature']).match(/v1=/g)!.length, 1);
  assert.ok(verifySignature(String(after.headers['platform-signature']), after.body, fresh, now()));
  assert.ok(!verifySignature(String(after.headers['platform-signature']), after.body, ep.secret, now()));
});

test('deliveries log: newest first with attempts, cursor pages each row once while rows are added; invalid cursors 400', async () => {
  const ep = await registerEndpoint(svc, ORG, `${receiver.url}/log`);
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) ids.push(json(await post(svc, `/api/devtools/webhooks/${ep.id}/test`)).delivery_id);
  await runAt(svc, svc.clock.now().getTime() + 11_000);
  const first = await deliveries(svc, ORG, ep.id, '?limit=3');
  assert.equal(first.deliveries.length, 3);
  assert.equal(first.has_more, true);
  assert.equal(first.deliveries[0].status, 'succeeded');
  assert.equal(first.deliveries[0].attempts.length, 1);
  assert.equal(first.deliveries[0].attempts[0].status_code, 200);
  // Rows added while paging are newer than the cursor: not repeated, none skipped.
  for (let i = 0; i < 3; i++) await post(svc, `/api/devtools/webhooks/${ep.id}/test`);
  const seen = first.deliveries.map((d: { id: string }) => d.id);
  let cursor = first.next_cursor;
  while (cursor) {
    const page = await deliveries(svc, ORG, ep.id, `?limit=3&cursor=${encodeURIComponent(cursor)}`);
    seen.push(...page.deliveries.map((d: { id: string }) => d.id));
    assert.equal(page.next_cursor === null, !page.has_more);
    cursor = page.next_cursor;
  }
  assert.deepEqual([...seen].sort(), [...ids].sort());
  assert.equal(new Set(seen).size, seen.length);
  const bad = async (q: string, org = ORG, endpoint = ep.id) =>
    svc.request({ method: 'GET', url: `/api/devtools/webhooks/${endpoint}/deliveries${q}`, headers: await bearer(svc, org) });
  const forged = first.next_cursor.slice(0, -2) + (first.next_cursor.endsWith('AA') ? 'BB' : 'AA');
  for (const q of [`?cursor=${encodeURIComponent(forged)}`, '?cursor=garbage', `?cursor=${encodeURIComponent(first.next_cursor)}x`]) {
    const res = await bad(q);
    assert.equal(res.statusCode, 400, q);
    assert.equal(json(res).detail, 'invalid_cursor');
    assert.equal(json(res).code, 'invalid_cursor');
  }
  const ep2 = await registerEndpoint(svc, ORG, `${receiver.url}/log2`);
  assertRefused(
    await bad(`?cursor=${encodeURIComponent(first.next_cursor)}`, ORG, ep2.id),
    400,
    { code: 'invalid_cursor', detail: 'invalid_cursor' },
    'another endpoint (filter)',
  );
  assert.equal((await bad('')).statusCode, 200);
  assertRefused(await bad('', OTHER), 404, { code: 'not_found', detail: 'Not Found' });
  assertRefused(await bad('?limit=0'), 422, { code: 'validation_error', fields: ['query.limit'] });
});

test('replay: a stored event is delivered again (same id and body, fresh signature); refusals', async () => {
  const ep = await registerEndpoint(svc, ORG, `${receiver.url}/replay`);
  const sent = json(await post(svc, `/api/devtools/webhooks/${ep.id}/test`));
  await runAt(svc, svc.clock.now().getTime() + 11_000);
  const res = await post(svc, `/api/devtools/webhooks/${ep.id}/replay`, { event_id: sent.event_id });
  assert.equal(res.statusCode, 202);
  assert.notEqual(json(res).delivery_id, sent.delivery_id);
  await runAt(svc, svc.clock.now().getTime() + 11_000);
  const got = receiver.requests.filter((r) => r.url === '/replay');
  assert.equal(got.length, 2);
  assert.equal(got[0].body, got[1].body);
  assert.equal(JSON.parse(got[1].body).id, sent.event_id);
  const log = await deliveries(svc, ORG, ep.id);
  assert.equal(log.deliveries[0].replay, true);
  assertRefused(await post(svc, `/api/devtools/webhooks/${ep.id}/replay`, { event_id: 'evt_nope' }), 404, { code: 'event_not_found', detail: 'Not Found' });
  assertRefused(await post(svc, `/api/devtools/webhooks/${ep.id}/replay`, { event_id: sent.event_id }, OTHER), 404, { code: 'not_found', detail: 'Not Found' });
  assertRefused(await post(svc, `/api/devtools/webhooks/${ep.id}/replay`, {}), 422, { code: 'validation_error', fields: ['body.event_id'] });
  // A sandbox endpoint cannot receive a live event.
  const sbx = await registerEndpoint(svc, ORG, `${receiver.url}/replay-sbx`, { environment: 'sandbox' });
  assertRefused(await post(svc, `/api/devtools/webhooks/${sbx.id}/replay`, { event_id: sent.event_id }), 404, { code: 'event_not_found', detail: 'Not Found' });
  // Events are kept 30 days.
  await runAt(svc, svc.clock.now().getTime() + 31 * 86_400_000);
  assertRefused(await post(svc, `/api/devtools/webhooks/${ep.id}/replay`, { event_id: sent.event_id }), 404, { code: 'event_not_found', detail: 'Not Found' });
});

test('plan limit: beyond organisations.plan_limits.webhook_endpoints registration answers 402', async () => {
  await svc.createOrg('hooks-limited');
  await svc.deps.db.query(`update organisations set plan_limits = '{"webhook_endpoints": 1}' where id = 'hooks-limited'`);
  assert.equal((await post(svc, '/api/devtools/webhooks', { url: `${receiver.url}/a` }, 'hooks-limited')).statusCode, 201);
  const res = await post(svc, '/api/devtools/webhooks', { url: `${receiver.url}/b` }, 'hooks-limited');
  assert.equal(res.statusCode, 402);
  assert.equal(json(res).detail.metric, 'webhook_endpoints');
  assert.equal(json(res).detail.limit, 1);
});
