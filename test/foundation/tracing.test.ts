// Traces (issue 42, item 3; decision 0386): with OTEL_EXPORTER_OTLP_ENDPOINT set, one ingest request
// yields a server span continuing the caller's traceparent, with children for its SQL statements,
// its cache calls and its bus publish; a webhook test send runs as a job continuing the trace of
// the request that queued it, and the delivery carries the trace to the receiver in `traceparent`.
// An OTLP/HTTP receiver on loopback takes the spans as the exporter sends them (JSON).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../journeys/helpers.ts';
import { registerEndpoint } from '../devtools/helpers.ts';
import { eventually } from '../helpers/eventually.ts';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number; boolValue?: boolean } }[];
}
const spans: OtlpSpan[] = [];
const resources: string[] = [];
let otlp: http.Server;
let svc: TestService;
let hook: HttpsReceiver;
const ORG = 'trace-org';

before(async () => {
  otlp = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces' && String(req.headers['content-type']).startsWith('application/json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const rs of body.resourceSpans ?? []) {
          resources.push(JSON.stringify(rs.resource));
          for (const ss of rs.scopeSpans ?? []) spans.push(...ss.spans);
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => otlp.listen(0, '127.0.0.1', () => r()));
  hook = await startHttpsReceiver(204);
  svc = await startTestService({
    clock: new ManualClock('2026-10-15T12:00:00Z'),
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(otlp.address() as AddressInfo).port}`, OTEL_SERVICE_NAME: 'eps-under-test' },
  });
  await svc.createOrg(ORG);
});
after(async () => {
  await svc?.stop();
  await hook?.close();
  await new Promise<void>((r) => otlp.close(() => r()));
});

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue !== undefined ? Number(v.intValue) : v?.boolValue);
};
const childrenOf = (parent: OtlpSpan) => spans.filter((s) => s.parentSpanId === parent.spanId);
const descendantsOf = (parent: OtlpSpan): OtlpSpan[] => childrenOf(parent).flatMap((c) => [c, ...descendantsOf(c)]);

test('one ingest request: a server span continuing the caller, with its statements, cache calls and publish as children', async () => {
  const callerTrace = '0af7651916cd43dd8448eb211c80319c';
  const callerSpan = 'b7ad6b7169203331';
  const token = await svc.token({ orgId: ORG, roles: ['OPERATOR'], userId: 'u-tracer' });
  const res = await svc.request({
    method: 'POST',
    url: '/api/telemetry/ingest',
    headers: { authorization: `Bearer ${token}`, traceparent: `00-${callerTrace}-${callerSpan}-01` },
    payload: [{ asset_id: 'secret-asset-7', ts: '2026-10-15T11:59:00Z', power_kw: 2.5 }],
  });
  assert.equal(res.statusCode, 200, res.body);
  await svc.deps.tracing.flush();
  const isServer = (s: OtlpSpan) => s.traceId === callerTrace && s.name === 'POST /api/telemetry/ingest';
  await eventually(() => spans.some(isServer), 'the request span');
  const server = spans.find(isServer)!;
  assert.equal(server.parentSpanId, callerSpan, 'the caller’s span is the parent');
  assert.equal(server.kind, 2, 'SERVER');
  assert.equal(attr(server, 'http.route'), '/api/telemetry/ingest');
  assert.equal(attr(server, 'http.response.status_code'), 200);
  assert.equal(attr(server, 'eps.organisation_id'), ORG);
  assert.equal(attr(server, 'enduser.id'), 'u-tracer');
  assert.ok(
    resources.some((r) => r.includes('eps-under-test')),
    'the service name is the resource',
  );

  const below = descendantsOf(server);
  assert.ok(below.every((s) => s.traceId === callerTrace));
  const statements = below.filter((s) => attr(s, 'db.query.text') !== undefined);
  assert.ok(
    statements.some((s) => s.name === 'INSERT' || /insert/i.test(String(attr(s, 'db.query.text')))),
    `an INSERT among ${statements.map((s) => s.name).join(', ')}`,
  );
  for (const s of statements) assert.doesNotMatch(String(attr(s, 'db.query.text')), /secret-asset-7/, 'statements carry placeholders, not values');
  assert.ok(
    below.some((s) => s.name.startsWith('cache ')),
    'the rate limiter’s cache call',
  );
  assert.ok(
    below.some((s) => s.name === 'publish telemetry' && s.kind === 4),
    `a PRODUCER span for the live stream among ${below.map((s) => s.name).join(', ')}`,
  );
  // The one log line carries the same trace id (app.ts requestLine).
});

test('a webhook test send: the job continues the request’s trace and the delivery carries traceparent', async () => {
  const endpoint = await registerEndpoint(svc, ORG, `${hook.url}/traced`);
  const token = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'] });
  const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
  const res = await svc.request({
    method: 'POST',
    url: `/api/devtools/webhooks/${endpoint.id}/test`,
    headers: { authorization: `Bearer ${token}`, traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` },
  });
  assert.equal(res.statusCode, 202, res.body);
  // The test event is sent a few seconds on (its delivery's next_attempt_at): move the service clock there.
  (svc.clock as ManualClock).advance(15_000);
  await svc.runDue();
  await hook.received(1).catch(async (e) => {
    const list = await svc.request({ method: 'GET', url: `/api/devtools/webhooks/${endpoint.id}/deliveries`, headers: { authorization: `Bearer ${token}` } });
    throw new Error(`${e.message}: ${list.body}`);
  });
  const delivered = hook.requests.at(-1)!;
  assert.match(String(delivered.headers.traceparent), new RegExp(`^00-${callerTrace}-[0-9a-f]{16}-01$`), 'the receiver sees the same trace');
  await svc.deps.tracing.flush();
  const isJob = (s: OtlpSpan) => s.traceId === callerTrace && s.name.startsWith('job ');
  await eventually(() => spans.some(isJob), 'the job span');
  const job = spans.find(isJob)!;
  const request = spans.find((s) => s.traceId === callerTrace && s.kind === 2);
  assert.ok(request, 'the request span');
  // The job hangs under the request that queued it (under the transaction that wrote its row).
  assert.ok(
    descendantsOf(request).some((s) => s.spanId === job.spanId),
    'the job descends from the request that queued it',
  );
  const post = descendantsOf(job).find((s) => s.kind === 3 && attr(s, 'http.request.method') === 'POST');
  assert.ok(post, 'the outbound call is a CLIENT span under the job');
  assert.equal(delivered.headers.traceparent?.toString().split('-')[2], post.spanId, 'the receiver’s parent is the outbound span');
  assert.equal(json(res).endpoint_id ?? endpoint.id, endpoint.id);
});
