// The seams' side of tracing (decision 0386), on the OpenTelemetry API alone: a child span around a
// call, the `traceparent` of the active span, a job continuing the trace that queued it. Until the
// platform turns tracing on (src/platform/tracing.ts, when OTEL_EXPORTER_OTLP_ENDPOINT is set) each
// is a plain pass-through, so infrastructure code can call them on every path at no cost.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';

let enabled = false;

/** Called once by the platform when a tracer provider is registered. */
export function enableTraceSeams(): void {
  enabled = true;
}

export function tracingEnabled(): boolean {
  return enabled;
}

const tracer = () => trace.getTracer('energy-platform');

function ended<T>(span: Span, fn: () => Promise<T>): Promise<T> {
  return fn().then(
    (v) => {
      span.end();
      return v;
    },
    (e: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.name : 'error' });
      span.end();
      throw e;
    },
  );
}

/** Runs `fn` in a child span of the active one; without an active span (or with tracing off), just runs it. */
export function inSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>, kind: SpanKind = SpanKind.CLIENT): Promise<T> {
  if (!enabled || !trace.getSpan(context.active())) return fn();
  return tracer().startActiveSpan(name, { kind, attributes }, (span) => ended(span, fn));
}

/** The W3C `traceparent` of the active span, to hand to a call or a job that continues this trace. */
export function currentTraceparent(): string | undefined {
  if (!enabled) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** Runs `fn` in a new span continuing the trace named by `traceparent` (a root span without one). */
export function continueTrace<T>(traceparent: string | undefined, name: string, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  if (!enabled) return fn();
  const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
  return context.with(parent, () => tracer().startActiveSpan(name, { kind: SpanKind.CONSUMER, attributes }, (span) => ended(span, fn)));
}

export { SpanKind };
