// Overload is shed with 503 and Retry-After instead of queueing (reliability plan T-2: "overload
// shows as the spec's 503/429 with Retry-After"); found by the saturation run, where requests past
// the knee waited 5-10 s. Probes stay answerable while the service sheds.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { defineOperation } from '../../src/platform/operation.ts';
import type { ModuleFactory } from '../../src/platform/module.ts';
import { CAN_READ } from '../../src/platform/roles.ts';
import { Inbox } from '../helpers/signal.ts';

// An operation that holds its request until the test lets it go, and says when a request is in.
let release: () => void = () => {};
let gate = new Promise<void>((r) => (release = r));
const entered = new Inbox<string>();
const held: ModuleFactory = () => ({
  name: 'held-fixture',
  operations: (['/api/test-fixture/held', '/api/devtools/test-fixture/held'] as const).map((path, i) =>
    defineOperation({
      tags: ['fixtures'],
      hidden: true,
      status: 'live',
      operationId: `fixtureHeld${i}`,
      method: 'GET',
      path,
      summary: 'Answers when the test releases it',
      access: { kind: 'bearer', roles: CAN_READ },
      schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } },
      handler: async () => {
        entered.push(path);
        await gate;
        return { ok: true };
      },
    }),
  ),
});

const services: TestService[] = [];
after(() => Promise.all(services.map((s) => s.stop())));

test('past MAX_INFLIGHT_REQUESTS a request is shed with 503 and Retry-After; probes still answer; capacity returns', async () => {
  const svc = await startTestService({ extraModules: [held], env: { MAX_INFLIGHT_REQUESTS: '3' } });
  services.push(svc);
  await svc.createOrg('acme');
  const auth = { authorization: `Bearer ${await svc.token({ orgId: 'acme', roles: ['VIEWER'] })}` };

  const holding = [1, 2, 3].map(() => svc.request({ method: 'GET', url: '/api/test-fixture/held', headers: auth }));
  await entered.count(3, 'the three held requests reach their handler');

  const shed = await svc.request({ method: 'GET', url: '/api/test-fixture/held', headers: auth });
  assert.equal(shed.statusCode, 503);
  assert.equal(shed.headers['retry-after'], '1');
  assert.deepEqual(json(shed), { detail: 'Service Unavailable' });
  const shedDevtools = await svc.request({ method: 'GET', url: '/api/devtools/test-fixture/held', headers: auth });
  assert.equal(shedDevtools.statusCode, 503);
  assert.equal(json(shedDevtools).error.code, 'overloaded');
  const ingest = await svc.request({ method: 'POST', url: '/api/telemetry/ingest', headers: auth, payload: [] });
  assert.equal(ingest.statusCode, 503, 'ingestion is shed too, in its declared 503 shape');
  assert.deepEqual(json(ingest), { detail: 'Service Unavailable' });

  assert.equal((await svc.request({ method: 'GET', url: '/api/telemetry/healthz' })).statusCode, 200);
  assert.equal((await svc.request({ method: 'GET', url: '/api/telemetry/readyz' })).statusCode, 200);
  const metrics = await svc.request({ method: 'GET', url: '/api/telemetry/metrics' });
  assert.match(metrics.body, /^eps_http_requests_in_flight 3$/m);

  release();
  for (const r of await Promise.all(holding)) assert.equal(r.statusCode, 200);
  gate = Promise.resolve();
  const after = await svc.request({ method: 'GET', url: '/api/test-fixture/held', headers: auth });
  assert.equal(after.statusCode, 200, 'capacity returns once the held requests finish');
  const later = await svc.request({ method: 'GET', url: '/api/telemetry/metrics' });
  assert.match(later.body, /^eps_http_requests_in_flight 0$/m);
});

test('past MAX_INFLIGHT_PER_ORG one organisation’s new requests are shed while another organisation’s are answered; its share returns', async () => {
  gate = new Promise<void>((r) => (release = r));
  const svc = await startTestService({ extraModules: [held], env: { MAX_INFLIGHT_REQUESTS: '4', MAX_INFLIGHT_PER_ORG: '2' } });
  services.push(svc);
  await svc.createOrg('greedy');
  await svc.createOrg('other');
  const greedy = { authorization: `Bearer ${await svc.token({ orgId: 'greedy', roles: ['VIEWER'] })}` };
  const other = { authorization: `Bearer ${await svc.token({ orgId: 'other', roles: ['VIEWER'] })}` };

  // The greedy organisation's long requests hold its whole share.
  const seen = entered.items.length;
  const holding = [1, 2].map(() => svc.request({ method: 'GET', url: '/api/test-fixture/held', headers: greedy }));
  const pending: ReturnType<typeof svc.request>[] = [...holding];
  try {
    await entered.count(seen + 2, 'the greedy organisation’s two held requests reach their handler');
    // (an operation that answers at once: without the share it would be answered)
    const shed = await svc.request({ method: 'GET', url: '/api/twin/registry/sites', headers: greedy });
    assert.equal(shed.statusCode, 503, 'a third of its requests is shed');
    assert.equal(shed.headers['retry-after'], '1');
    assert.deepEqual(json(shed), { detail: 'Service Unavailable' });
    // Another organisation still has places: its request is answered (once released, like the others).
    pending.push(svc.request({ method: 'GET', url: '/api/test-fixture/held', headers: other }));
    await entered.count(seen + 3, 'the other organisation’s request reaches its handler');
    const sites = await svc.request({ method: 'GET', url: '/api/twin/registry/sites', headers: other });
    assert.equal(sites.statusCode, 200, 'and another of its requests is answered');
    const stillShed = await svc.request({ method: 'GET', url: '/api/twin/registry/sites', headers: greedy });
    assert.equal(stillShed.statusCode, 503, 'while the greedy organisation’s are still shed');
  } finally {
    // Held requests are let go whatever happened above, so a failure ends the test instead of hanging it.
    release();
    await Promise.allSettled(pending);
  }
  for (const r of await Promise.all(pending)) assert.equal(r.statusCode, 200, 'the held requests of both organisations are answered');
  gate = Promise.resolve();
  assert.equal((await svc.request({ method: 'GET', url: '/api/test-fixture/held', headers: greedy })).statusCode, 200, 'its share returns');
});
