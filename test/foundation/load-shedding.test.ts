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
