// Probes: liveness, readiness with real dependency failures, Prometheus metrics.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';

describe('probes with every dependency up', () => {
  let svc: TestService;
  after(() => svc?.stop());

  test('healthz is 200 {status: ok}', async () => {
    svc = await startTestService();
    const res = await svc.request({ method: 'GET', url: '/api/telemetry/healthz' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(json(res), { status: 'ok' });
  });

  test('readyz is 200 ready with boolean checks', async () => {
    const res = await svc.request({ method: 'GET', url: '/api/telemetry/readyz' });
    assert.equal(res.statusCode, 200);
    const body = json(res);
    assert.equal(body.status, 'ready');
    assert.deepEqual(body.checks, { bus: true, cache: true, database: true });
    // Device MQTT is off without MQTT_URL (decision 0441): said, never degraded.
    assert.deepEqual(body.mqtt, { configured: false, connected: false });
  });

  test('metrics expose telemetry_readiness, telemetry_ingest_total and per-route request metrics', async () => {
    await svc.request({ method: 'GET', url: '/api/telemetry/healthz' });
    const res = await svc.request({ method: 'GET', url: '/api/telemetry/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    assert.match(res.body, /^telemetry_readiness 1$/m);
    assert.match(res.body, /^telemetry_ingest_total 0$/m);
    assert.match(res.body, /eps_http_requests_total\{method="GET",route="\/api\/telemetry\/healthz",status="200"\} \d+/);
    assert.match(res.body, /eps_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/telemetry\/healthz"\}/);
  });

  test('probes are public and not counted against the anonymous limit', async () => {
    for (let i = 0; i < svc.config.limits.anonPerMinutePerIp + 5; i++) {
      const res = await svc.request({ method: 'GET', url: '/api/telemetry/healthz' });
      assert.equal(res.statusCode, 200);
    }
  });

  test('a false database does not set degraded', async () => {
    await svc.deps.db.close();
    const res = await svc.request({ method: 'GET', url: '/api/telemetry/readyz' });
    assert.equal(res.statusCode, 200);
    assert.equal(json(res).status, 'ready');
    assert.equal(json(res).checks.database, false);
  });
});

describe('probes with the cache and bus unreachable', () => {
  let svc: TestService;
  after(() => svc?.stop());

  test('readyz answers 503 degraded naming the failed checks; metrics report readiness 0', async () => {
    // Real adapters pointed at closed ports: what a stopped Redis and NATS look like.
    svc = await startTestService({ env: { REDIS_URL: 'redis://127.0.0.1:6399', NATS_URL: 'nats://127.0.0.1:4299' } });
    const res = await svc.request({ method: 'GET', url: '/api/telemetry/readyz' });
    assert.equal(res.statusCode, 503);
    const body = json(res);
    assert.equal(body.status, 'degraded');
    assert.equal(body.checks.cache, false);
    assert.equal(body.checks.bus, false);
    assert.equal(body.checks.database, true);
    const metrics = await svc.request({ method: 'GET', url: '/api/telemetry/metrics' });
    assert.match(metrics.body, /^telemetry_readiness 0$/m);
    const health = await svc.request({ method: 'GET', url: '/api/telemetry/healthz' });
    assert.equal(health.statusCode, 200, 'liveness checks no dependency');
  });
});

describe('probes with only the bus down', () => {
  let svc: TestService;
  after(() => svc?.stop());
  test('a false bus alone gives 503 degraded', async () => {
    svc = await startTestService({ env: { NATS_URL: 'nats://127.0.0.1:4299' } });
    const res = await svc.request({ method: 'GET', url: '/api/telemetry/readyz' });
    assert.equal(res.statusCode, 503);
    assert.equal(json(res).checks.bus, false);
    assert.equal(json(res).checks.cache, true);
  });
});

describe('probes with device MQTT configured and its broker away', () => {
  let svc: TestService;
  after(() => svc?.stop());

  test('readyz says MQTT is configured but not connected, and stays ready: HTTP ingestion goes on', async () => {
    // Nothing listens on this port: a broker that is down.
    svc = await startTestService({ env: { MQTT_URL: 'mqtt://127.0.0.1:1899', MQTT_ADMIN_PASSWORD: 'x', MQTT_CLIENT_ID: 'eps-probe-test' } });
    const res = await svc.request({ method: 'GET', url: '/api/telemetry/readyz' });
    assert.equal(res.statusCode, 200);
    const body = json(res);
    assert.equal(body.status, 'ready');
    assert.deepEqual(body.checks, { bus: true, cache: true, database: true });
    assert.deepEqual(body.mqtt, { configured: true, connected: false });
  });
});
