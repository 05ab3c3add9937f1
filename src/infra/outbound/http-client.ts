// Outbound HTTP for every call the service makes (webhook deliveries, identity-provider keys,
// market-data providers). Guards against SSRF: the scheme is checked, the host's addresses are
// checked when the socket connects (so DNS rebinding cannot slip a private address in), redirects
// are never followed, and time and response size are bounded.
import { currentTraceparent, inSpan } from '../../core/trace.ts';
import http from 'node:http';
import https from 'node:https';
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from './ip-guard.ts';

export class OutboundRefusedError extends Error {}
export class OutboundFailedError extends Error {
  readonly timedOut: boolean;
  constructor(message: string, timedOut = false) {
    super(message);
    this.timedOut = timedOut;
  }
}

// Process-wide safety net, set from configuration at start: when loopback-only, no outbound call
// may leave the machine whatever a caller passes (test runs, fuzzing, sandboxes without egress).
let loopbackOnly = false;
export function setOutboundPolicy(policy: { loopbackOnly: boolean }): void {
  loopbackOnly = policy.loopbackOnly;
}
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i;

export interface OutboundOptions {
  /** Allow loopback and private targets (tests, local development). Default false. */
  allowPrivate?: boolean;
  /** Require https (webhooks); default false (providers may be configured with http in tests). */
  requireHttps?: boolean;
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Stub resolver for tests. */
  lookup?: (hostname: string) => Promise<string[]>;
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text(): string;
  json<T = unknown>(): T;
}

/**
 * The system resolver: every address a name has. The one place names are resolved, at registration
 * (checkTarget) and at connect time (the guarded lookup). Tests without DNS replace `lookup`.
 */
export const resolver = {
  lookup: (hostname: string): Promise<string[]> => dns.promises.lookup(hostname, { all: true }).then((r) => r.map((a) => a.address)),
};

const REGISTRATION_LOOKUP_MS = 2000;

/**
 * A user-given address checked where it is registered (webhook endpoints, alert-routing channels):
 * the URL as `checkUrl` judges it, HTTPS unless private outbound is allowed, and every address the
 * host resolves to now public. A host that does not resolve within 2 s is accepted (deliveries
 * fail until it resolves, publicly): registration must not wait on a slow resolver. Each delivery
 * checks again at connect time, so a name that changes later (DNS rebinding) is still refused.
 * Throws OutboundRefusedError; callers answer `URL refused: <message>` on the field.
 */
export async function checkTarget(raw: string, opts: { allowPrivate: boolean; lookup?: (hostname: string) => Promise<string[]> }): Promise<URL> {
  const url = checkUrl(raw, { requireHttps: true, allowPrivate: opts.allowPrivate });
  if (opts.allowPrivate) return url;
  if (url.protocol !== 'https:') throw new OutboundRefusedError('an HTTPS address is required');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return url;
  let addresses: string[];
  try {
    addresses = await Promise.race([
      (opts.lookup ?? resolver.lookup)(host),
      new Promise<string[]>((resolve) => setTimeout(() => resolve([]), REGISTRATION_LOOKUP_MS).unref()),
    ]);
  } catch {
    addresses = []; // unresolvable now: accepted, deliveries fail until it resolves (publicly)
  }
  if (addresses.some((a) => !isPublicAddress(a))) throw new OutboundRefusedError('the host resolves to a non-public address');
  return url;
}

/** Checks a URL can be called at all; the address check happens again at connect time. */
export function checkUrl(raw: string, opts: OutboundOptions = {}): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefusedError('not a valid URL');
  }
  const allowed = opts.requireHttps && !opts.allowPrivate ? ['https:'] : ['https:', 'http:'];
  if (!allowed.includes(url.protocol)) throw new OutboundRefusedError(`scheme ${url.protocol} is not allowed`);
  if (url.username || url.password) throw new OutboundRefusedError('credentials in the URL are not allowed');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (loopbackOnly && !LOOPBACK.test(host)) throw new OutboundRefusedError('outbound calls are limited to loopback here');
  if (isIP(host) && !opts.allowPrivate && !isPublicAddress(host)) {
    throw new OutboundRefusedError('address is not a public address');
  }
  if (!opts.allowPrivate && /^(localhost|.*\.localhost|.*\.local|.*\.internal)\.?$/i.test(host)) {
    throw new OutboundRefusedError('host is not public');
  }
  return url;
}

function guardedLookup(opts: OutboundOptions): LookupFunction {
  return (hostname, options, callback) => {
    const resolve = (opts.lookup ?? resolver.lookup)(hostname);
    resolve.then(
      (addresses) => {
        const usable = opts.allowPrivate ? addresses : addresses.filter(isPublicAddress);
        if (usable.length === 0 || usable.length !== addresses.length) {
          callback(new OutboundRefusedError(`${hostname} resolves to a non-public address`), '', 4);
          return;
        }
        const address = usable[0];
        if ((options as { all?: boolean }).all) {
          (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family: isIP(address) }]);
        } else callback(null, address, isIP(address));
      },
      (err) => callback(err, '', 4),
    );
  };
}

export async function outboundRequest(raw: string, req: OutboundRequest = {}, opts: OutboundOptions = {}): Promise<OutboundResponse> {
  const url = checkUrl(raw, opts);
  // A client span inside a traced request or job, and the trace handed on in `traceparent` (decision 0386).
  return inSpan(
    `${req.method ?? 'GET'}`,
    { 'http.request.method': req.method ?? 'GET', 'server.address': url.hostname, 'url.scheme': url.protocol.replace(':', '') },
    () => {
      const traceparent = currentTraceparent();
      return send(url, traceparent ? { ...req, headers: { ...req.headers, traceparent } } : req, opts);
    },
  );
}

function send(url: URL, req: OutboundRequest, opts: OutboundOptions): Promise<OutboundResponse> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const max = opts.maxResponseBytes ?? 5 * 1024 * 1024;
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise<OutboundResponse>((resolve, reject) => {
    const r = lib.request(
      url,
      {
        method: req.method ?? 'GET',
        headers: { 'user-agent': 'energy-platform-service', ...req.headers },
        lookup: guardedLookup(opts),
        timeout: timeoutMs,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > max) {
            res.destroy();
            reject(new OutboundFailedError(`response larger than ${max} bytes`));
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            text: () => body.toString('utf8'),
            json: <T>() => JSON.parse(body.toString('utf8')) as T,
          });
        });
        res.on('error', (e) => reject(new OutboundFailedError(e.message)));
      },
    );
    // One deadline for the whole exchange, not only for idle sockets.
    const deadline = setTimeout(() => {
      r.destroy(new OutboundFailedError(`no answer within ${timeoutMs} ms`, true));
    }, timeoutMs);
    r.on('close', () => clearTimeout(deadline));
    r.on('timeout', () => r.destroy(new OutboundFailedError(`no answer within ${timeoutMs} ms`, true)));
    r.on('error', (e) => {
      clearTimeout(deadline);
      reject(e instanceof OutboundRefusedError || e instanceof OutboundFailedError ? e : new OutboundFailedError(e.message));
    });
    if (req.body !== undefined) r.write(req.body);
    r.end();
  });
}
