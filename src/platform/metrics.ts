// Prometheus metrics through prom-client, one registry per app instance (tests build several).
// Every name carries the service's prefix (decision 0019), except the names the spec itself gives
// (`unprefixed`). The platform makes its own mechanism metrics; a module registers what it counts
// (its domain) through counter(), gauge() and histogram(), so the platform names no domain.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The prefix of every metric the service exposes, process metrics included. */
export const METRIC_PREFIX = 'eps_';

export interface MetricSpec<L extends string> {
  /** Without the prefix, snake_case; counters end in `_total`. */
  name: string;
  help: string;
  labelNames?: readonly L[];
  /** The name is the spec's own (e.g. on /api/telemetry/metrics): exposed exactly as given. */
  unprefixed?: boolean;
}

export interface GaugeSpec<L extends string> extends MetricSpec<L> {
  /** Sets the gauge at each scrape (may query a store; a failure leaves the last values). */
  collect?: (gauge: Gauge<L>) => Promise<void> | void;
}

export interface HistogramSpec<L extends string> extends MetricSpec<L> {
  /** Upper bounds of the buckets, in the metric's unit (seconds for `_seconds`). */
  buckets: readonly number[];
}

export interface Metrics {
  registry: Registry;
  /** HTTP requests by method, route and status. */
  requests: Counter<'method' | 'route' | 'status'>;
  inFlight: Gauge;
  latency: Histogram<'method' | 'route'>;
  /** Requests refused 429 by a rate limit, by policy (auth, anon, user, partner, devtools). */
  rateLimited: Counter<'policy'>;
  upstreamCalls: Counter<'provider' | 'outcome'>;
  upstreamLatency: Histogram<'provider'>;
  /** Failures caught at an entry that is not a Fastify route (platform/entry-guard.ts, decision 0270), by entry. */
  uncaughtEntries: Counter<'entry'>;
  counter<L extends string = never>(spec: MetricSpec<L>): Counter<L>;
  gauge<L extends string = never>(spec: GaugeSpec<L>): Gauge<L>;
  histogram<L extends string = never>(spec: HistogramSpec<L>): Histogram<L>;
}

export function createMetrics(opts: { defaults?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaults) collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  const named = (spec: MetricSpec<string>) => (spec.unprefixed ? spec.name : METRIC_PREFIX + spec.name);
  const counter = <L extends string>(spec: MetricSpec<L>) =>
    new Counter<L>({ name: named(spec), help: spec.help, labelNames: spec.labelNames ?? [], registers: [registry] });
  const gauge = <L extends string>(spec: GaugeSpec<L>) => {
    const collect = spec.collect;
    return new Gauge<L>({
      name: named(spec),
      help: spec.help,
      labelNames: spec.labelNames ?? [],
      registers: [registry],
      ...(collect && {
        async collect(this: Gauge<L>) {
          try {
            await collect(this);
          } catch {
            // A scrape must not fail because one source is unavailable (e.g. the store during an outage).
          }
        },
      }),
    });
  };
  const histogram = <L extends string>(spec: HistogramSpec<L>) =>
    new Histogram<L>({ name: named(spec), help: spec.help, labelNames: spec.labelNames ?? [], buckets: [...spec.buckets], registers: [registry] });
  return {
    registry,
    counter,
    gauge,
    histogram,
    requests: counter({ name: 'http_requests_total', help: 'HTTP requests by route and status', labelNames: ['method', 'route', 'status'] }),
    inFlight: gauge({ name: 'http_requests_in_flight', help: 'Requests being handled now (load shedding starts at MAX_INFLIGHT_REQUESTS)' }),
    latency: new Histogram({
      name: `${METRIC_PREFIX}http_request_duration_seconds`,
      help: 'HTTP request latency by route',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    rateLimited: counter({ name: 'rate_limit_refusals_total', help: 'Requests refused with 429 by a rate limit, by policy', labelNames: ['policy'] }),
    upstreamCalls: counter({
      name: 'upstream_calls_total',
      help: 'Calls to third-party providers by provider and outcome',
      labelNames: ['provider', 'outcome'],
    }),
    uncaughtEntries: counter({
      name: 'uncaught_entry_errors_total',
      help: 'Failures caught at an entry that is not an HTTP route (upgrade, socket, emitter, bus, timer, process), by entry; each was refused and logged, none ended the process',
      labelNames: ['entry'],
    }),
    upstreamLatency: new Histogram({
      name: `${METRIC_PREFIX}upstream_call_duration_seconds`,
      help: 'Latency of calls to third-party providers',
      labelNames: ['provider'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
}
