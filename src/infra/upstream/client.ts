// One client per third-party provider: base URL, timeout, retry with backoff on idempotent calls,
// metrics. Every call goes through the SSRF-guarded outbound client. Failures come out as
// UpstreamError, which says what kind of failure it was but never carries the provider's body.
/** What an upstream call reports (prom-client counters and histograms fit it). */
export interface UpstreamMetrics {
  upstreamCalls: { inc(labels: { provider: string; outcome: string }): void };
  upstreamLatency: { observe(labels: { provider: string }, seconds: number): void };
}
import { findIllFormedText } from '../../kit/text.ts';
import { outboundRequest, OutboundFailedError, OutboundRefusedError, type OutboundResponse } from '../outbound/http-client.ts';

export type UpstreamFailure = 'timeout' | 'network' | 'status' | 'refused' | 'bad_response';

export class UpstreamError extends Error {
  readonly provider: string;
  readonly kind: UpstreamFailure;
  /** HTTP status of the provider's answer, for kind 'status'. */
  readonly status?: number;
  constructor(provider: string, kind: UpstreamFailure, message: string, status?: number) {
    super(`${provider}: ${message}`);
    this.provider = provider;
    this.kind = kind;
    this.status = status;
  }
}

/** Thrown by a decoder when the provider's answer does not have the expected shape. */
export class BadResponseError extends Error {}

export interface UpstreamClientOptions {
  /** Metrics label, e.g. 'tariff', 'carbon', 'flex:dno-a'. */
  provider: string;
  baseUrl: string;
  timeoutMs: number;
  /** Extra attempts after the first, for idempotent calls only. */
  retries: number;
  /** First backoff delay; doubles each attempt, with jitter. */
  retryBaseMs: number;
  allowPrivate: boolean;
  metrics: UpstreamMetrics;
  maxResponseBytes?: number;
  /** Test seam; defaults to setTimeout. */
  sleep?: (ms: number) => Promise<void>;
}

export interface UpstreamCall<T> {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute URL from url(), or a path joined onto the base URL. */
  url: string;
  headers?: Record<string, string>;
  json?: unknown;
  /** Retry on network errors and 429/5xx. Defaults to true for GET only. */
  idempotent?: boolean;
  /** Statuses handed to decode; any other status is an UpstreamError. Default: 2xx. */
  accept?: (status: number) => boolean;
  /** Turns the answer into a value; throw BadResponseError for a body of the wrong shape. */
  decode: (res: OutboundResponse) => T;
}

export type Query = Record<string, string | number | undefined>;

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

export interface UpstreamClient {
  readonly provider: string;
  readonly baseUrl: string;
  /** base URL + path + query. */
  url(path: string, query?: Query): string;
  /**
   * A URL the provider handed back (a `next` link) moved onto the configured base URL, so a
   * provider can never steer the service to another host. Null when unreadable.
   */
  onBase(link: string): string | null;
  call<T>(call: UpstreamCall<T>): Promise<T>;
}

/**
 * Parses a JSON body; a body that is not JSON, or holds text no store can hold (a NUL character or
 * an unpaired surrogate, which would fail the statement that caches it), is a bad response.
 */
export function jsonBody(res: OutboundResponse): unknown {
  let v: unknown;
  try {
    v = res.json();
  } catch {
    throw new BadResponseError('body is not JSON');
  }
  if (findIllFormedText(v, [])) throw new BadResponseError('body holds text no store can hold (a NUL character or an unpaired surrogate)');
  return v;
}

export function createUpstreamClient(opts: UpstreamClientOptions): UpstreamClient {
  const base = new URL(opts.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const { provider, metrics } = opts;

  function url(path: string, query: Query = {}): string {
    const u = new URL(base.origin + basePath + (path.startsWith('/') ? path : `/${path}`));
    for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  function onBase(link: string): string | null {
    let u: URL;
    try {
      u = new URL(link, base);
    } catch {
      return null;
    }
    const path = basePath && !u.pathname.startsWith(basePath + '/') ? basePath + u.pathname : u.pathname;
    return base.origin + path + u.search;
  }

  async function attempt<T>(c: UpstreamCall<T>, target: string): Promise<T> {
    const started = performance.now();
    let outcome = 'ok';
    try {
      let res: OutboundResponse;
      try {
        res = await outboundRequest(
          target,
          {
            method: c.method ?? 'GET',
            headers: {
              accept: 'application/json',
              ...(c.json !== undefined && { 'content-type': 'application/json' }),
              ...c.headers,
            },
            body: c.json !== undefined ? JSON.stringify(c.json) : undefined,
          },
          { allowPrivate: opts.allowPrivate, timeoutMs: opts.timeoutMs, maxResponseBytes: opts.maxResponseBytes },
        );
      } catch (e) {
        if (e instanceof OutboundRefusedError) {
          outcome = 'refused';
          throw new UpstreamError(provider, 'refused', 'address refused by the outbound guard');
        }
        if (e instanceof OutboundFailedError && e.timedOut) {
          outcome = 'timeout';
          throw new UpstreamError(provider, 'timeout', `no answer within ${opts.timeoutMs} ms`);
        }
        outcome = 'network_error';
        throw new UpstreamError(provider, 'network', 'connection failed');
      }
      const accept = c.accept ?? ((s: number) => s >= 200 && s < 300);
      if (!accept(res.status)) {
        outcome = `http_${Math.floor(res.status / 100)}xx`;
        throw new UpstreamError(provider, 'status', `answered HTTP ${res.status}`, res.status);
      }
      try {
        return c.decode(res);
      } catch (e) {
        if (e instanceof BadResponseError) {
          outcome = 'bad_response';
          throw new UpstreamError(provider, 'bad_response', `unexpected answer: ${e.message}`, res.status);
        }
        throw e;
      }
    } finally {
      metrics.upstreamCalls.inc({ provider, outcome });
      metrics.upstreamLatency.observe({ provider }, (performance.now() - started) / 1000);
    }
  }

  async function call<T>(c: UpstreamCall<T>): Promise<T> {
    const target = /^https?:\/\//i.test(c.url) ? c.url : url(c.url);
    const idempotent = c.idempotent ?? (c.method ?? 'GET') === 'GET';
    const attempts = idempotent ? 1 + Math.max(0, opts.retries) : 1;
    for (let n = 0; ; n++) {
      try {
        return await attempt(c, target);
      } catch (e) {
        // A timed-out attempt has already spent the time budget; garbage is not fixed by asking again.
        const retryable = e instanceof UpstreamError && (e.kind === 'network' || (e.kind === 'status' && RETRYABLE_STATUS.has(e.status ?? 0)));
        if (!retryable || n + 1 >= attempts) throw e;
        const ceiling = opts.retryBaseMs * 2 ** n;
        await sleep(ceiling / 2 + Math.random() * (ceiling / 2));
      }
    }
  }

  return { provider, baseUrl: opts.baseUrl, url, onBase, call };
}
