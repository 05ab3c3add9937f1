// POST /api/devtools/partner/v1/sandbox/webhooks/test: 202, sample events to the sandbox
// endpoints, and Idempotency-Key (T-16).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, realServers, type TestService } from '../helpers/service.ts';
import { deliveries, issueKey, registerEndpoint, runAt, startReceiver, verifySignature, type Receiver } from './helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let rx: Receiver;
const ORG = 'sbx-hooks';
const OTHER = 'sbx-hooks-other';
const URL_ = '/api/devtools/partner/v1/sandbox/webhooks/test';
let key: { auth: { authorization: string } };
let otherKey: { auth: { authorization: string } };
let sandboxEp: { id: string; secret: string };
let otherEp: { id: string; secret: string };

const send = (auth: { authorization: string }, payload?: object, idem?: string) =>
  svc.request({ method: 'POST', url: URL_, headers: { ...auth, ...(idem !== undefined && { 'idempotency-key': idem }) }, ...(payload && { payload }) });

before(async () => {
  svc = await startTestService();
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  rx = await startReceiver([200]);
  key = await issueKey(svc, ORG, { scopes: ['alerts:read'], environment: 'sandbox' });
  otherKey = await issueKey(svc, OTHER, { scopes: ['devices:read'] });
  sandboxEp = await registerEndpoint(svc, ORG, `${rx.url}/sandbox`, { environment: 'sandbox' });
  await registerEndpoint(svc, ORG, `${rx.url}/live`);
  otherEp = await registerEndpoint(svc, OTHER, `${rx.url}/other-sandbox`, { environment: 'sandbox' });
});
after(async () => {
  await rx.close();
  await svc.stop();
});

test('202: a signed sample event to the sandbox endpoints only, delivered like a live event', async () => {
  const res = await send(key.auth, { event_type: 'alert.raised' });
  assert.equal(res.statusCode, 202);
  const body = json(res);
  assert.equal(body.event_type, 'alert.raised');
  assert.match(body.organisation_id, /^demo-sandbox-[0-9a-f]{16}$/);
  assert.equal(body.queued, 1);
  assert.deepEqual(
    body.deliveries.map((d: { endpoint_id: string }) => d.endpoint_id),
    [sandboxEp.id],
  );
  assert.ok(res.headers['x-request-id']);
  await runAt(svc, svc.clock.now().getTime() + 12_000);
  const got = rx.requests.filter((r) => r.url === '/sandbox');
  assert.equal(got.length, 1);
  assert.equal(rx.requests.filter((r) => r.url === '/live').length, 0);
  const env = JSON.parse(got[0].body);
  assert.equal(env.id, body.event_id);
  assert.equal(env.organisation_id, body.organisation_id);
  assert.equal(env.data.alert.status, 'open');
  assert.ok(verifySignature(String(got[0].headers['platform-signature']), got[0].body, sandboxEp.secret, Math.floor(svc.clock.now().getTime() / 1000)));
  // Retried exactly as a live event.
  rx.script([500]);
  await send(key.auth);
  await runAt(svc, svc.clock.now().getTime() + 12_000);
  await runAt(svc, svc.clock.now().getTime() + 35_000);
  const log = (await deliveries(svc, ORG, sandboxEp.id)).deliveries[0];
  assert.equal(log.attempt_count, 2);
  assert.equal(log.status, 'pending');
  rx.script([200]);
});

test("refusals: a bearer token 401, bad body 422, another organisation's endpoint 404", async () => {
  const t = await svc.token({ orgId: ORG });
  assertRefused(await svc.request({ method: 'POST', url: URL_, headers: { authorization: `Bearer ${t}` } }), 401, {
    code: 'api_key_required',
    detail: 'This operation requires an API key',
  });
  assertRefused(await send(key.auth, { event_type: 'dispatch.executed' }), 422, { code: 'validation_error', fields: ['body.event_type'] });
  assertRefused(await send(key.auth, { organisation_id: OTHER }), 422, { code: 'validation_error', fields: ['body.organisation_id'] });
  const res = await send(key.auth, { endpoint_id: otherEp.id });
  assert.equal(res.statusCode, 404);
  assert.equal(json(res).code, 'not_found');
});

test('Idempotency-Key: a repeat returns the first body byte for byte with Idempotent-Replayed and queues nothing', async () => {
  const before = (await deliveries(svc, ORG, sandboxEp.id, '?limit=200')).deliveries.length;
  const first = await send(key.auth, { event_type: 'device.offline' }, 'order-1');
  assert.equal(first.statusCode, 202);
  assert.equal(first.headers['idempotent-replayed'], undefined);
  const again = await send(key.auth, { event_type: 'device.offline' }, 'order-1');
  assert.equal(again.statusCode, 202);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.body, first.body);
  assert.equal((await deliveries(svc, ORG, sandboxEp.id, '?limit=200')).deliveries.length, before + 1);
  // The same key with another request: 409.
  const conflict = await send(key.auth, { event_type: 'alert.resolved' }, 'order-1');
  assert.equal(conflict.statusCode, 409);
  assert.equal(json(conflict).code, 'idempotency_conflict');
  // The same key in another organisation is independent.
  const other = await send(otherKey.auth, { event_type: 'device.offline' }, 'order-1');
  assert.equal(other.statusCode, 202);
  assert.equal(other.headers['idempotent-replayed'], undefined);
  assert.notEqual(json(other).event_id, json(first).event_id);
  // After 24 hours the key may be used afresh.
  await runAt(svc, svc.clock.now().getTime() + 25 * 3_600_000);
  const key2 = await issueKey(svc, ORG, { environment: 'sandbox' });
  const later = await send(key2.auth, { event_type: 'alert.resolved' }, 'order-1');
  assert.equal(later.statusCode, 202);
  assert.equal(later.headers['idempotent-replayed'], undefined);
});

test('Idempotency-Key: empty or over-long keys are refused (422)', async () => {
  for (const k of ['', 'x'.repeat(256), 'has space']) {
    const res = await send(key.auth, undefined, k);
    assert.equal(res.statusCode, 422, JSON.stringify(k));
    assert.equal(json(res).detail[0].loc[0], 'header');
  }
  assert.equal((await send(key.auth, undefined, 'x'.repeat(255))).statusCode, 202);
});

test('Idempotency-Key: 50 parallel requests with one key, to two instances, queue exactly one delivery', {
  skip:
    !realServers.database &&
    'needs PostgreSQL: the key is claimed by a unique insert that concurrent transactions race for, and PGlite runs one transaction at a time',
}, async () => {
  const before = (await deliveries(svc, ORG, sandboxEp.id, '?limit=200')).deliveries.length;
  // Two instances with their own connection pools on one schema, as two servers behind a balancer.
  const second = await startTestService({ shareWith: svc });
  const to = [svc, second];
  let all;
  try {
    all = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        to[i % 2].request({ method: 'POST', url: URL_, headers: { ...key.auth, 'idempotency-key': 'burst-1' }, payload: { event_type: 'webhook.test' } }),
      ),
    );
  } finally {
    await second.stop();
  }
  assert.ok(
    all.every((r) => r.statusCode === 202),
    all.map((r) => r.statusCode).join(),
  );
  assert.equal(new Set(all.map((r) => r.body)).size, 1, 'every answer is the first body');
  assert.equal(all.filter((r) => r.headers['idempotent-replayed'] === 'true').length, 49);
  assert.equal((await deliveries(svc, ORG, sandboxEp.id, '?limit=200')).deliveries.length, before + 1);
});
