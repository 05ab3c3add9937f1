// Turns declared operations into Fastify routes. Every cross-cutting rule lives here once:
// authentication, status-label and module refusals, rate limits, request ids, deprecation and
// CORS headers, and the error surface.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Counter } from 'prom-client';
import { AppError, errors } from './errors.ts';
import { authenticate, ipOf, type AuthDeps } from './auth.ts';
import { bodyIsOptional, successStatusOf, type Operation, type RequestContext } from './operation.ts';
import type { ErrorSurface } from './surface.ts';
import type { LimitClass } from './module.ts';
import type { RateLimiter, LimitResult } from './rate-limit.ts';
import type { FailedAuthLimit } from './auth-failures.ts';
import type { OrgShares } from './load-shedding.ts';
import type { Config } from '../core/config.ts';
import { runInOrgScope } from '../infra/db/scope.ts';
import { findMalformedQuery, illFormedTextError } from './text-guard.ts';
import { findIllFormedText } from '../kit/text.ts';

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext;
  }
  interface FastifyContextConfig {
    op?: Operation;
  }
}

export interface OrgDirectory {
  /** An organisation's enabled modules and realm (set when it was made); null when it does not exist. */
  gatesOf(orgId: string): Promise<{ modules: string[]; realm: 'production' | 'demo' } | null>;
  /** The realm an organisation id has (concepts.md: demo organisations are `demo-*`), without a lookup. */
  realmOf(orgId: string): 'production' | 'demo';
}

export interface RegisterDeps {
  config: Config;
  auth: AuthDeps;
  limiter: RateLimiter;
  failedAuth: FailedAuthLimit;
  orgs: OrgDirectory;
  /** Counts 429 refusals by policy. */
  rateLimited?: Counter<'policy'>;
  surface: ErrorSurface;
  /** The limit classes modules declare, by the name operations give in `rateLimit`. */
  limitClasses: Readonly<Record<string, LimitClass>>;
  /** Each organisation's share of the instance's places (load-shedding.ts); none: unbounded. */
  orgShares?: OrgShares;
}

/** Throws the 429 (counted by policy) when the check did not allow the request. */
function refuseIfLimited(deps: RegisterDeps, policy: string, r: LimitResult): void {
  if (r.allowed) return;
  deps.rateLimited?.inc({ policy });
  throw errors.rateLimited(r.resetSeconds);
}

const MINUTE = 60_000;

export function toFastifyPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

export function pathRegex(path: string): RegExp {
  const body = path
    .replace(/\/+$/, '')
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}/?$`);
}

export function wantsRequestIdHeader(surface: ErrorSurface, op: Operation | undefined, url: string): boolean {
  return surface.envelope(op?.path ?? url) || op?.requestIdHeader === true;
}

/**
 * Counts the request against one limit: the answer carries `RateLimit-*` for the tightest limit
 * that applied so far (the fewest requests left), so a client sees a limit coming before a 429,
 * on every limited operation (issue 42); over the limit it is refused.
 */
function spend(reply: FastifyReply, deps: RegisterDeps, policy: string, r: LimitResult, windowMs: number): void {
  const shown = reply.getHeader('RateLimit-Remaining');
  if (shown === undefined || r.remaining < Number(shown)) {
    reply.header('RateLimit-Limit', String(r.limit));
    reply.header('RateLimit-Remaining', String(r.remaining));
    reply.header('RateLimit-Reset', String(r.resetSeconds));
    reply.header('RateLimit-Policy', `${r.limit};w=${Math.round(windowMs / 1000)}`);
  }
  refuseIfLimited(deps, policy, r);
}

function deprecationHeaders(reply: FastifyReply, op: Operation, docsOrigin: string) {
  if (!op.deprecation) return;
  const on = Date.parse(`${op.deprecation.on}T00:00:00Z`) / 1000;
  reply.header('Deprecation', `@${on}`);
  reply.header('Sunset', new Date(`${op.deprecation.sunset}T23:59:59Z`).toUTCString());
  reply.header('Link', `<${docsOrigin}/docs#deprecation>; rel="deprecation"; type="text/html"`);
}

async function applyLimits(req: FastifyRequest, reply: FastifyReply, op: Operation, deps: RegisterDeps) {
  const { limits } = deps.config;
  const ctx = req.ctx;
  const isWrite = op.method !== 'GET';
  if (ctx.actor.kind === 'key') {
    const r = await deps.limiter.check({ name: 'partner', limit: limits.partnerPerMinutePerKey, windowMs: MINUTE }, ctx.actor.keyId, {
      countLocally: !isWrite,
    });
    // Without the shared store a write cannot be limited across servers: refuse it (spec 8).
    if (!r.shared && isWrite) {
      throw errors.serviceUnavailable('service_unavailable', 30, 'service_unavailable');
    }
    spend(reply, deps, 'partner', r, MINUTE);
    return;
  }
  if (ctx.actor.kind === 'user') {
    const r = await deps.limiter.check({ name: 'user', limit: limits.userPerMinute, windowMs: MINUTE }, ctx.actor.userId);
    spend(reply, deps, 'user', r, MINUTE);
  }
  // A device credential is limited on its own (decision 0375): a device that floods does not use up its organisation's share.
  if (ctx.actor.kind === 'device') {
    const r = await deps.limiter.check({ name: 'device', limit: limits.userPerMinute, windowMs: MINUTE }, ctx.actor.credentialId);
    refuseIfLimited(deps, 'device', r);
  }
  const cls = op.rateLimit && op.rateLimit !== 'auth' ? deps.limitClasses[op.rateLimit] : undefined;
  if (cls && cls.per !== 'address') {
    const r = await deps.limiter.check({ name: cls.policy, limit: cls.limit, windowMs: cls.windowMs }, ctx.orgId);
    spend(reply, deps, cls.policy, r, cls.windowMs);
  }
}

/**
 * The guard, with the failed-authentication limit around it (decision 0027): an address over the
 * limit is refused before any verification, and every 401 counts against the address.
 */
async function authenticateCounted(req: FastifyRequest, op: Operation, deps: RegisterDeps): Promise<RequestContext> {
  if (op.access.kind === 'public') return authenticate(req, op, deps.auth);
  const ip = ipOf(req);
  const credential = bearerCredential(req);
  await deps.failedAuth.refuseIfBlocked(ip, credential);
  let ctx: RequestContext;
  try {
    ctx = await authenticate(req, op, deps.auth);
  } catch (e) {
    if (e instanceof AppError && e.status === 401) await deps.failedAuth.recordFailure(ip);
    throw e;
  }
  if (credential) await deps.failedAuth.recordSuccess(credential);
  return ctx;
}

function bearerCredential(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  const v = Array.isArray(h) ? h[0] : h;
  return v ? v.trim() : undefined;
}

/** Header-safe text (visible ASCII): a formula's symbols spelt out, anything else dropped. */
export function headerText(s: string): string {
  return s
    .replace(/Σ/g, 'sum of ')
    .replace(/×/g, 'x')
    .replace(/÷/g, '/')
    .replace(/[−–—]/g, '-')
    .replace(/[‘’]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/[^\x20-\x7e]/g, '')
    .replace(/ {2,}/g, ' ')
    .trim();
}

/**
 * `x-platform-data-basis` and, where stated, `x-platform-method` (concepts.md section 1), sent with
 * every successful answer of an operation that declares a data basis, as the OpenAPI entry states.
 */
export function dataBasisHeaders(op: Pick<Operation, 'dataBasis'>): [string, string][] {
  if (!op.dataBasis) return [];
  const out: [string, string][] = [['x-platform-data-basis', op.dataBasis.basis]];
  if (op.dataBasis.method) out.push(['x-platform-method', headerText(op.dataBasis.method)]);
  return out;
}

/** The method of a sandbox key's answer (decision 0085: nothing of it is stored). */
export const SANDBOX_METHOD = 'Sandbox organisation: generated on the fly from a seed derived from the organisation and the clock; nothing is stored.';
/** The method of a demo organisation's answer, before the operation's own method. */
export const DEMO_METHOD = 'Demo organisation: simulated devices and synthetic readings';

/**
 * The three bases an operation's answer may carry (concepts.md section 1: `simulated` is sandbox and
 * demo only): as declared; a sandbox key's on a sandbox operation; a demo organisation's (with the
 * operation's own demo method where it answers demo organisations from a sample). Labels
 * follow the data, not the operation, so simulated figures never travel as measured (decision 0304).
 */
export function answerBases(op: Pick<Operation, 'dataBasis' | 'sandbox'>) {
  const declared = dataBasisHeaders(op);
  const d = op.dataBasis;
  const sandbox =
    d && op.sandbox && d.basis !== 'configured'
      ? dataBasisHeaders({ dataBasis: { basis: 'simulated', method: d.basis === 'simulated' && d.method ? d.method : SANDBOX_METHOD } })
      : declared;
  const demo = d?.demo
    ? dataBasisHeaders({ dataBasis: { basis: 'simulated', method: d.demo } })
    : d && (d.basis === 'measured' || d.basis === 'calculated' || d.basis === 'forecast' || d.readings)
      ? dataBasisHeaders({ dataBasis: { basis: 'simulated', method: d.method ? `${DEMO_METHOD}. ${d.method}` : `${DEMO_METHOD}.` } })
      : declared;
  return { declared, sandbox, demo };
}

/**
 * The data-basis headers of this answer, for a handler that writes its own head (a hijacked event
 * stream), where the platform cannot add them after the handler.
 */
export function answerBasisHeaders(
  op: Pick<Operation, 'dataBasis' | 'sandbox'>,
  ctx: RequestContext,
  orgs: Pick<OrgDirectory, 'realmOf'>,
): Record<string, string> {
  return Object.fromEntries(answerBasis(answerBases(op), ctx, orgs));
}

function answerBasis(bases: ReturnType<typeof answerBases>, ctx: RequestContext, orgs: Pick<OrgDirectory, 'realmOf'>): [string, string][] {
  if (ctx.actor.kind === 'key' && ctx.actor.environment === 'sandbox') return bases.sandbox;
  if (ctx.orgId && orgs.realmOf(ctx.orgId) === 'demo') return bases.demo;
  return bases.declared;
}

export function registerOperation(app: FastifyInstance, op: Operation, deps: RegisterDeps): void {
  if (op.rateLimit && op.rateLimit !== 'auth' && !deps.limitClasses[op.rateLimit]) {
    throw new Error(`operation ${op.operationId} names limit class ${op.rateLimit}, which no module declares`);
  }
  const docsOrigin = deps.config.publicDocsOrigin;
  const url = toFastifyPath(op.path);
  const bases = answerBases(op);
  const successStatus = successStatusOf(op);
  const optionalBody = bodyIsOptional(op);
  app.route({
    method: op.method,
    url,
    bodyLimit: op.bodyLimit,
    config: { op },
    schema: routeSchema(op),
    onRequest: async (req, reply) => {
      if (wantsRequestIdHeader(deps.surface, op, req.url)) reply.header('X-Request-Id', String(req.id));
      deprecationHeaders(reply, op, docsOrigin);
      if (op.sandbox) {
        // The answer depends on Origin for these six: caches must key on it whatever the caller.
        reply.header('Vary', 'Origin');
        if (req.headers.origin === docsOrigin) reply.header('Access-Control-Allow-Origin', docsOrigin);
      }
      // Limits that apply before any credential or body is looked at.
      if (op.rateLimit === 'auth') {
        const r = await deps.limiter.check({ name: 'auth', limit: deps.config.limits.authPerMinutePerIp, windowMs: MINUTE }, ipOf(req));
        spend(reply, deps, 'auth', r, MINUTE);
      } else if (op.access.kind === 'public' && !op.probe) {
        const r = await deps.limiter.check({ name: 'anon', limit: deps.config.limits.anonPerMinutePerIp, windowMs: MINUTE }, ipOf(req));
        spend(reply, deps, 'anon', r, MINUTE);
      }
      const perAddress = op.rateLimit && op.rateLimit !== 'auth' ? deps.limitClasses[op.rateLimit] : undefined;
      if (perAddress?.per === 'address') {
        const r = await deps.limiter.check({ name: perAddress.policy, limit: perAddress.limit, windowMs: perAddress.windowMs }, ipOf(req));
        spend(reply, deps, perAddress.policy, r, perAddress.windowMs);
      }
      req.ctx = await authenticateCounted(req, op, deps);
      await applyGates(req.ctx, op, deps);
      if (op.access.kind !== 'public') await applyLimits(req, reply, op, deps);
      // A stream holds no place (load-shedding.ts); a probe takes none.
      if (req.ctx.orgId && !op.stream && !op.probe) deps.orgShares?.admit(req.ctx.orgId, reply);
    },
    preValidation: async (req) => {
      // An operation whose body is optional takes an absent one as `{}` (its members' own rules apply).
      if (req.body === undefined && optionalBody) req.body = {};
      const found =
        findIllFormedText(req.params, ['path']) ??
        findMalformedQuery(req.url) ??
        findIllFormedText(req.query, ['query']) ??
        (op.handlesNulInBody ? null : findIllFormedText(req.body, ['body']));
      if (found) throw illFormedTextError(found);
    },
    // The handler runs in the organisation's database scope (row-level security). Callback style so
    // the scope carries into the handler. Staff operations are not tied to one organisation.
    preHandler: (req, _reply, done) => {
      if (op.access.kind === 'public' || op.audience === 'platform-staff' || !req.ctx.orgId) return done();
      runInOrgScope(req.ctx.orgId, done);
    },
    handler: async (req, reply) => {
      const result = await op.handler({
        body: req.body,
        query: req.query,
        params: req.params,
        ctx: req.ctx,
        req,
        reply,
      });
      if (reply.sent) return reply;
      // A success carries its figures' basis as the operation declares it (a refusal carries none).
      for (const [name, value] of answerBasis(bases, req.ctx, deps.orgs)) reply.header(name, value);
      if (successStatus && reply.statusCode === 200) reply.code(successStatus);
      if (op.locates && (reply.statusCode === 201 || reply.statusCode === 202)) {
        const where = locationOf(op.locates, result, req.params);
        if (where) reply.header('Location', where);
      }
      return result ?? (reply.statusCode === 204 ? undefined : {});
    },
  });
  if (op.sandbox) registerPreflight(app, op, docsOrigin);
}

/** The `locates` template filled from the answer's members, else the path parameters; undefined if one is missing. */
export function locationOf(template: string, answer: unknown, params: unknown): string | undefined {
  const from = (name: string): unknown => (answer as Record<string, unknown> | null)?.[name] ?? (params as Record<string, unknown> | null)?.[name];
  let missing = false;
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const v = from(name);
    if (typeof v !== 'string' && typeof v !== 'number') missing = true;
    return encodeURIComponent(String(v));
  });
  return missing ? undefined : path;
}

function routeSchema(op: Operation) {
  const { body, query, params, headers, response } = op.schema;
  return {
    response,
    ...(body && { body }),
    ...(query && { querystring: query }),
    ...(params && { params }),
    ...(headers && { headers }),
  };
}

async function applyGates(ctx: RequestContext, op: Operation, deps: RegisterDeps) {
  if (op.access.kind === 'public') return;
  if (op.audience === 'platform-staff' && !(ctx.actor.kind === 'user' && ctx.actor.staff)) {
    throw new AppError(403, 'Platform staff only', { code: 'platform_staff_only' });
  }
  if (op.platformAdmin && !(ctx.actor.kind === 'user' && ctx.actor.admin)) {
    throw new AppError(403, 'Platform administrators only', { code: 'platform_admin_only' });
  }
  if (op.status !== 'demo-realm' && !op.module) return;
  const org = await deps.orgs.gatesOf(ctx.orgId);
  if (op.status === 'demo-realm' && org?.realm !== 'demo') {
    throw errors.demoRealmOnly();
  }
  if (op.module) {
    if (!org?.modules.includes(op.module)) {
      throw new AppError(403, `Module not enabled: ${op.module}`, { code: 'module_not_enabled' });
    }
  }
}

/** CORS preflight for the six sandbox operations, from the public docs origin only. */
function registerPreflight(app: FastifyInstance, op: Operation, docsOrigin: string) {
  app.route({
    method: 'OPTIONS',
    url: toFastifyPath(op.path),
    handler: async (req, reply) => {
      const origin = req.headers.origin;
      const method = String(req.headers['access-control-request-method'] ?? '').toUpperCase();
      const requested = String(req.headers['access-control-request-headers'] ?? '')
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean);
      const headersOk = requested.every((h) => h === 'authorization' || h === 'content-type');
      reply.header('X-Request-Id', String(req.id));
      if (origin !== docsOrigin || method !== op.method || !headersOk) {
        // No CORS headers: the browser refuses the cross-origin call.
        return reply.code(204).send();
      }
      reply.header('Access-Control-Allow-Origin', docsOrigin);
      reply.header('Access-Control-Allow-Methods', op.method);
      reply.header('Access-Control-Allow-Headers', 'Authorization, Content-Type');
      reply.header('Access-Control-Max-Age', '600');
      reply.header('Vary', 'Origin');
      return reply.code(204).send();
    },
  });
}
