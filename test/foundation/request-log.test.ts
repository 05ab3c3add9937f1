// One log line per request (issue 42, item 4): written when the answer is complete, with the method,
// route template, status, duration, organisation, principal id, request id and trace id; and
// nothing a reader of the log must not see (passwords, tokens, e-mail addresses, query strings).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';

const ORG = 'log-org';
const EMAIL = 'operator.of.logs@example.org';
const PASSWORD = 'lumberjack-lines-ok-9';
const lines: Record<string, unknown>[] = [];
const raw: string[] = [];
let svc: TestService;

before(async () => {
  const logDestination = {
    write(chunk: string) {
      raw.push(chunk);
      for (const l of chunk.split('\n').filter(Boolean)) lines.push(JSON.parse(l));
    },
  };
  svc = await startTestService({ clock: new ManualClock('2026-10-15T12:00:00Z'), env: { LOG_LEVEL: 'info' }, logDestination });
  await svc.createOrg(ORG);
  await svc.createUser(ORG, EMAIL, 'OPERATOR', PASSWORD);
});
after(() => svc.stop());

const requestLines = (id: string) => lines.filter((l) => l.request_id === id);

test('each request writes exactly one line, on completion, naming route, status, duration, organisation, user, request and trace', async () => {
  const login = await svc.request({ method: 'POST', url: '/api/auth/login', payload: { email: EMAIL, password: PASSWORD } });
  assert.equal(login.statusCode, 200, login.body);
  const { access_token, refresh_token } = json(login);
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const ingest = await svc.request({
    method: 'POST',
    url: '/api/telemetry/ingest',
    headers: {
      authorization: `Bearer ${access_token}`,
      'x-request-id': 'req-log-ingest-1',
      traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
    },
    payload: [{ asset_id: 'bat-1', ts: '2026-10-15T11:59:00Z', power_kw: 1.5 }],
  });
  assert.equal(ingest.statusCode, 200, ingest.body);

  const own = requestLines('req-log-ingest-1');
  assert.equal(own.length, 1, `one line for the request, got ${JSON.stringify(own)}`);
  const line = own[0];
  assert.equal(line.msg, 'request');
  assert.equal(line.method, 'POST');
  assert.equal(line.route, '/api/telemetry/ingest');
  assert.equal(line.status, 200);
  assert.equal(typeof line.duration_ms, 'number');
  assert.equal(line.org_id, ORG);
  assert.match(String(line.user_id), /.+/);
  assert.equal(line.trace_id, traceId);

  // A route with parameters logs its template, not the path a caller sent (ids stay out of the route).
  const history = await svc.request({
    method: 'GET',
    url: `/api/telemetry/assets/battery/bat-1/history?range=live&email=${encodeURIComponent(EMAIL)}`,
    headers: { authorization: `Bearer ${access_token}`, 'x-request-id': 'req-log-history-1' },
  });
  assert.equal(history.statusCode, 200, history.body);
  const [h] = requestLines('req-log-history-1');
  assert.equal(h.route, '/api/telemetry/assets/:asset_type/:asset_id/history');
  assert.equal(h.status, 200);
  assert.equal(h.trace_id, undefined, 'no trace id without a traceparent');

  // Refusals and unknown paths are logged once too, with their status.
  const refused = await svc.request({
    method: 'POST',
    url: '/api/auth/login',
    headers: { 'x-request-id': 'req-log-refused-1' },
    payload: { email: EMAIL, password: 'wrong-password-123' },
  });
  assert.equal(refused.statusCode, 401);
  assert.deepEqual(
    requestLines('req-log-refused-1').map((l) => [l.route, l.status, l.user_id]),
    [['/api/auth/login', 401, undefined]],
  );
  const missing = await svc.request({ method: 'GET', url: '/api/no-such-thing', headers: { 'x-request-id': 'req-log-missing-1' } });
  assert.equal(missing.statusCode, 404);
  assert.deepEqual(
    requestLines('req-log-missing-1').map((l) => [l.route, l.status]),
    [['unmatched', 404]],
  );

  // Nothing secret or personal anywhere in the run's log.
  const all = raw.join('');
  for (const secret of [PASSWORD, 'wrong-password-123', access_token, refresh_token, EMAIL, encodeURIComponent(EMAIL)]) {
    assert.equal(all.includes(secret), false, `the log must not hold ${secret.slice(0, 12)}…`);
  }
});
