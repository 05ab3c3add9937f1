// Traces (issue 42, decision 0386): OpenTelemetry spans for each request, with a child span for each
// SQL statement, cache call, bus publish and outbound HTTP call, exported over OTLP/HTTP when
// OTEL_EXPORTER_OTLP_ENDPOINT is set. Off by default, and then free: nothing of the SDK is loaded and
// every seam below is a plain pass-through.
//
// The seams are ours (the store, cache and bus interfaces, the outbound client, the job queue), not
// monkey-patched libraries: they see both stores (PGlite and PostgreSQL) alike and work under ES
// modules without a loader hook. The active span travels in an AsyncLocalStorage, as the SDK's own
// context manager does; a request enters its span for the rest of its asynchronous life.
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type ContextManager,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { enableTraceSeams, inSpan } from '../core/trace.ts';
import type { Bus } from '../infra/bus/index.ts';
import type { Cache } from '../infra/cache/index.ts';
import type { Db, Queryable } from '../infra/db/index.ts';

export interface TracingSettings {
  /** OTLP/HTTP base address (spans go to `<endpoint>/v1/traces`); none: tracing is off. */
  endpoint?: string;
  serviceName: string;
}

export interface Tracing {
  readonly enabled: boolean;
  readonly tracer: Tracer;
  /** Makes `ctx` the active context for the rest of the current asynchronous execution. */
  enter(ctx: Context): void;
  /** Sends every finished span now (tests, shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** A context manager on AsyncLocalStorage that can also enter a context (for a request's hooks). */
class StoreContextManager implements ContextManager {
  private readonly store = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.store.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.store.run(ctx, () => fn.apply(thisArg, args));
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const fn = target as (...a: unknown[]) => unknown;
    const manager = this;
    return function (this: unknown, ...a: unknown[]) {
      return manager.with(ctx, () => fn.apply(this, a));
    } as T;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.store.disable();
    return this;
  }
  enterWith(ctx: Context): void {
    this.store.enterWith(ctx);
  }
}

const OFF: Tracing = {
  enabled: false,
  tracer: trace.getTracer('energy-platform'),
  enter: () => {},
  flush: async () => {},
  shutdown: async () => {},
};

let started: Promise<Tracing> | undefined;

/**
 * Starts tracing for this process (once: the OpenTelemetry API is process-global). Without an
 * endpoint it answers the no-op tracing and loads nothing.
 */
export function startTracing(settings: TracingSettings): Promise<Tracing> {
  if (!settings.endpoint) return Promise.resolve(OFF);
  started ??= open(settings.endpoint, settings.serviceName);
  return started;
}

async function open(endpoint: string, serviceName: string): Promise<Tracing> {
  const [{ TracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }, { W3CTraceContextPropagator }] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/core'),
  ]);
  const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 2_000, maxQueueSize: 8_192 })],
  });
  const manager = new StoreContextManager();
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  enableTraceSeams();
  return {
    enabled: true,
    tracer: provider.getTracer('energy-platform'),
    enter: (ctx) => manager.enterWith(ctx),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/** The statement's first keyword (SELECT, INSERT, WITH...), the span's name. */
function operationOf(sql: string): string {
  return /^\s*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
}

const MAX_STATEMENT = 2_000;

function tracedQueryable(q: Queryable, system: string): Queryable {
  return {
    query: (sql, params) =>
      inSpan(
        operationOf(sql),
        // The statement with its placeholders, never the values bound to them.
        {
          'db.system.name': system,
          'db.operation.name': operationOf(sql),
          'db.query.text': sql.length > MAX_STATEMENT ? `${sql.slice(0, MAX_STATEMENT)}…` : sql,
        },
        () => q.query(sql, params),
      ),
  };
}

/** The store with a span per statement and per transaction (its statements are the children). */
export function tracedDb<D extends Db>(tracing: Tracing, db: D): D {
  if (!tracing.enabled) return db;
  const system = db.kind === 'postgres' ? 'postgresql' : 'pglite';
  return {
    ...db,
    ...tracedQueryable(db, system),
    tx: (fn) => inSpan('transaction', { 'db.system.name': system }, () => db.tx((q) => fn(tracedQueryable(q, system)))),
  };
}

/** The cache with a span per call (never the key: it may name a user or an address). */
export function tracedCache(tracing: Tracing, cache: Cache): Cache {
  if (!tracing.enabled) return cache;
  const system = cache.kind;
  const span =
    <A extends unknown[], R>(op: string, fn: (...a: A) => Promise<R>) =>
    (...a: A) =>
      inSpan(`cache ${op}`, { 'db.system.name': system, 'db.operation.name': op }, () => fn(...a));
  return {
    ...cache,
    hit: span('hit', cache.hit),
    hitMany: span('hitMany', cache.hitMany),
    get: span('get', cache.get),
    set: span('set', cache.set),
    setIfAbsent: span('setIfAbsent', cache.setIfAbsent),
    del: span('del', cache.del),
  };
}

/** The bus with a span per publish, named by the subject's first part (`telemetry`, `alerts`...). */
export function tracedBus(tracing: Tracing, bus: Bus): Bus {
  if (!tracing.enabled) return bus;
  return {
    ...bus,
    publish: (subject, payload) =>
      inSpan(
        `publish ${subject.split('.')[0]}`,
        { 'messaging.system': bus.kind, 'messaging.operation.type': 'send', 'messaging.destination.name': subject },
        () => bus.publish(subject, payload),
        SpanKind.PRODUCER,
      ),
    publishRetrying: (subject, payload, opts) =>
      inSpan(
        `publish ${subject.split('.')[0]}`,
        { 'messaging.system': bus.kind, 'messaging.operation.type': 'send', 'messaging.destination.name': subject },
        () => bus.publishRetrying(subject, payload, opts),
        SpanKind.PRODUCER,
      ),
  };
}

/** A request's server span: started when it arrives (continuing the caller's `traceparent`), entered for its whole life. */
export function startRequestSpan(tracing: Tracing, method: string, headers: Record<string, string | string[] | undefined>): Span | undefined {
  if (!tracing.enabled) return undefined;
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const span = tracing.tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent);
  tracing.enter(trace.setSpan(parent, span));
  return span;
}

/** Ends a request's span with what the log line says: route template, status, organisation, principal. */
export function endRequestSpan(span: Span, done: { method: string; route: string; status: number; orgId?: string; principal?: string }): void {
  span.updateName(`${done.method} ${done.route}`);
  span.setAttributes({
    'http.route': done.route,
    'http.response.status_code': done.status,
    ...(done.orgId ? { 'eps.organisation_id': done.orgId } : {}),
    ...(done.principal ? { 'enduser.id': done.principal } : {}),
  });
  if (done.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
