// Prometheus metrics through prom-client, one registry per app instance (tests build several).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  readiness: Gauge;
  ingestTotal: Counter;
  requests: Counter;
  inFlight: Gauge;
  latency: Histogram;
  upstreamCalls: Counter;
  upstreamLatency: Histogram;
}

export function createMetrics(opts: { defaults?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaults) collectDefaultMetrics({ register: registry });
  return {
    registry,
    readiness: new Gauge({ name: 'telemetry_readiness', help: '1 when ready, 0 when degraded', registers: [registry] }),
    ingestTotal: new Counter({
      name: 'telemetry_ingest_total',
      help: 'Telemetry records accepted and stored since start',
      registers: [registry],
    }),
    requests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    inFlight: new Gauge({
      name: 'http_requests_in_flight',
      help: 'Requests being handled now (load shedding starts at MAX_INFLIGHT_REQUESTS)',
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    upstreamCalls: new Counter({
      name: 'upstream_calls_total',
      help: 'Calls to third-party providers by provider and outcome',
      labelNames: ['provider', 'outcome'],
      registers: [registry],
    }),
    upstreamLatency: new Histogram({
      name: 'upstream_call_duration_seconds',
      help: 'Latency of calls to third-party providers',
      labelNames: ['provider'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
}
