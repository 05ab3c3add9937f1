// Operational metrics (decision 0019): every name carries the service's prefix except the two the
// spec names, and the counters an operator alerts on move when their event happens: records
// refused by the telemetry rules, rate-limit refusals by policy.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { createMetrics, METRIC_PREFIX } from '../../src/platform/metrics.ts';
import { sample, scrape as scrapeOf } from '../helpers/metrics.ts';

let svc: TestService;
before(async () => {
  svc = await startTestService();
  await svc.createOrg('acme');
});
after(() => svc.stop());

const SPEC_NAMES = ['telemetry_ingest_total', 'telemetry_readiness'];

const scrape = () => scrapeOf(svc);

test('every metric name carries the eps_ prefix, except the two the spec names; process metrics too', async () => {
  const names = [...(await scrape()).matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]);
  assert.ok(names.length > 10);
  for (const name of SPEC_NAMES) assert.ok(names.includes(name), name);
  assert.deepEqual(
    names.filter((n) => !n.startsWith(METRIC_PREFIX) && !SPEC_NAMES.includes(n)),
    [],
  );
  // main.ts turns on the Node process metrics; they carry the prefix as well.
  const withDefaults = (await createMetrics({ defaults: true }).registry.getMetricsAsJSON()).map((m) => m.name);
  assert.ok(withDefaults.includes('eps_process_cpu_seconds_total'));
  assert.deepEqual(
    withDefaults.filter((n) => !n.startsWith(METRIC_PREFIX)),
    [],
  );
});

test('records refused by the telemetry rules are counted by reason; stored ones are not', async () => {
  const token = await svc.token({ orgId: 'acme', roles: ['OPERATOR'] });
  const before = await scrape();
  const res = await svc.request({
    method: 'POST',
    url: '/api/telemetry/ingest',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: JSON.stringify([
      { asset_id: 'bat-1', ts: svc.clock.now().toISOString(), soc_pct: 50 },
      { asset_id: 'bat-1' },
      { asset_id: 'bat-2' },
      { asset_id: 'bat-3', ts: 'yesterday at noon' },
    ]),
  });
  assert.equal(res.statusCode, 207, res.body);
  assert.equal(JSON.parse(res.body).rejected, 3);
  const after_ = await scrape();
  const moved = (labels: string) =>
    (sample(after_, 'eps_telemetry_records_rejected_total', labels) ?? 0) - (sample(before, 'eps_telemetry_records_rejected_total', labels) ?? 0);
  assert.equal(moved('reason="missing_ts"'), 2);
  assert.equal(moved('reason="unparseable_ts"'), 1);
  assert.equal((sample(after_, 'telemetry_ingest_total') ?? 0) - (sample(before, 'telemetry_ingest_total') ?? 0), 1);
});

test('rate-limit refusals are counted by policy, once per 429', async () => {
  const before = sample(await scrape(), 'eps_rate_limit_refusals_total', 'policy="auth"') ?? 0;
  const statuses: number[] = [];
  // The sign-in limit is 5 a minute per address: the 6th and 7th are refused.
  for (let i = 0; i < 7; i++) {
    const res = await svc.request({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: '203.0.113.77',
      payload: { email: 'nobody@example.com', password: 'not-the-password-at-all' },
    });
    statuses.push(res.statusCode);
  }
  assert.deepEqual(statuses.slice(5), [429, 429]);
  assert.ok(!statuses.slice(0, 5).includes(429), String(statuses));
  assert.equal((sample(await scrape(), 'eps_rate_limit_refusals_total', 'policy="auth"') ?? 0) - before, 2);
});
