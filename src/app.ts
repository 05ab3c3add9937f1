// buildApp: platform plugins, then every module's declared operations. No I/O at import time.
import { context, isSpanContextValid, trace, type Span } from '@opentelemetry/api';
import { endRequestSpan, startRequestSpan } from './platform/tracing.ts';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { AppError, errors, STATUS_TITLES } from './platform/errors.ts';
import { renderError } from './platform/render-error.ts';
import { toFieldErrors } from './platform/validation.ts';
import type { ErrorObject } from 'ajv';
import { createLazySchemaCompilers } from './platform/schema-compilers.ts';
import { registerOperation, pathRegex, wantsRequestIdHeader, type OrgDirectory } from './platform/register.ts';
import { buildOpenApi } from './platform/openapi.ts';
import type { Operation } from './platform/operation.ts';
import { createErrorSurface } from './platform/surface.ts';
import { isReadScope } from './platform/roles.ts';
import type { AppDeps, ModuleFactory, ModuleInstance } from './platform/module.ts';
import type { ApiKeyAuthenticator, DeviceAuthenticator, SessionChecker } from './platform/auth.ts';
import { registerDocs } from './platform/docs-ui.ts';
import { registerConsole } from './platform/console-ui.ts';
import { errorPage, PLATFORM_ERRORS } from './platform/error-docs.ts';
import { registerCsvParser, registerJsonParser } from './platform/json-body.ts';
import { createOrgShares, registerLoadShedding } from './platform/load-shedding.ts';
import { defaultModules } from './modules/index.ts';
import { createOrgStore, MODULES, realmForId } from './modules/orgs/index.ts';
import { StoreUnavailableError, STORE_RETRY_AFTER_SECONDS } from './infra/db/index.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface BuiltApp {
  app: FastifyInstance;
  operations: Operation[];
  modules: ModuleInstance[];
  openapi: ReturnType<typeof buildOpenApi>;
  /** Compiles every request validator and response serializer not compiled yet (they compile on first use). */
  warmSchemas(): number;
}

export async function buildApp(deps: AppDeps, factories: ModuleFactory[] = defaultModules): Promise<BuiltApp> {
  const { config } = deps;
  const modules = factories.map((f) => f(deps));
  const operations = modules.flatMap((m) => m.operations);
  checkDeclarations(operations, deps.scopes);
  const surface = createErrorSurface(modules.flatMap((m) => m.envelopePrefixes ?? []));
  const limitClasses = Object.assign({}, ...modules.map((m) => m.limitClasses ?? {}));
  // Router-level failures (a malformed percent-encoding, an over-long path segment) happen before
  // any route; they still answer in the spec's shape.
  const frameworkErrors = (err: FastifyError, req: FastifyRequest, reply: import('fastify').FastifyReply) => {
    const e =
      err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new AppError(414, 'URI Too Long', { code: 'uri_too_long' })
        : new AppError(400, 'Malformed URL', { code: 'malformed_url' });
    if (surface.envelope(req.url)) reply.header('X-Request-Id', String(req.id));
    renderError(e, req, reply, { envelope: surface.envelope(req.url), docsOrigin: config.publicDocsOrigin });
  };
  const app = Fastify({
    loggerInstance: deps.log,
    // One line per request, written on completion below (Fastify's own pair is off); every line a
    // request writes carries its id as request_id.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    frameworkErrors,
    bodyLimit: config.bodyLimitBytes,
    // Echo a well-formed X-Request-Id, otherwise make one; logs carry the same id.
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // Slow clients are cut off instead of holding sockets (reliability plan T-4): headers within
    // 10 s, the whole request within 60 s, checked every second (Node's default is every 30 s,
    // which let a slow-header socket live up to 40 s).
    http: { headersTimeout: 10_000, connectionsCheckingInterval: 1_000 },
    requestTimeout: 60_000,
    connectionTimeout: 0,
    keepAliveTimeout: 72_000,
    // Only the configured proxies' X-Forwarded-For names the client (limits and lockouts key on
    // it); from any other peer the header is ignored (decision 0028).
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
  });
  // Schemas compile on first use (schema-compilers.ts); main.ts warms the rest once it listens.
  const compilers = createLazySchemaCompilers();
  app.setValidatorCompiler(compilers.validatorCompiler);
  app.setSerializerCompiler(compilers.serializerCompiler);
  // Payloads are JSON (concepts.md conventions); anything else is 415, not a string body, except
  // `text/csv` for the operations that declare a CSV body.
  app.removeContentTypeParser('text/plain');
  registerJsonParser(app);
  registerCsvParser(app);

  const provided = modules.reduce<{ apiKeys?: ApiKeyAuthenticator; devices?: DeviceAuthenticator; sessions?: SessionChecker }>(
    (acc, m) => ({ ...acc, ...m.provides }),
    {},
  );
  const orgStore = createOrgStore(deps.db);
  const orgs: OrgDirectory = { gatesOf: (id) => orgStore.gatesOf(id), realmOf: realmForId };
  const openapi = buildOpenApi(operations, {
    docsOrigin: config.publicDocsOrigin,
    apiKeyPrefix: config.apiKeyPrefix,
    tags: Object.assign({}, ...modules.map((m) => m.tags ?? {})),
    envelope: surface.envelope,
  });
  const errorPageHtml = errorPage([{ owner: 'Platform', errors: PLATFORM_ERRORS }, ...modules.map((m) => ({ owner: m.name, errors: m.errors ?? [] }))]);

  const surfaceOf = (req: FastifyRequest) => ({
    envelope: surface.envelope(req.routeOptions.config?.op?.path ?? req.url),
    docsOrigin: config.publicDocsOrigin,
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const op = req.routeOptions.config?.op;
    if (wantsRequestIdHeader(surface, op, req.url)) reply.header('X-Request-Id', String(req.id));
    try {
      renderError(toAppError(err, req), req, reply, surfaceOf(req));
    } catch (renderFailure) {
      // Never let Fastify's fallback answer (it would carry the internal message).
      req.log.error({ err: renderFailure }, 'error renderer failed');
      reply.code(500).type('application/json; charset=utf-8').send('{"detail":"Internal Server Error"}');
    }
  });

  const matchers = operations.map((op) => ({ op, re: pathRegex(op.path) }));
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    if (surface.envelope(path)) reply.header('X-Request-Id', String(req.id));
    const allow = [...new Set(matchers.filter((m) => m.re.test(path)).map((m) => m.op.method))];
    const err = allow.length ? errors.methodNotAllowed(allow) : errors.notFound();
    renderError(err, req, reply, surfaceOf(req));
  });

  registerLoadShedding(app, { maxInFlight: config.maxInflightRequests, gauge: deps.metrics.inFlight });

  // A server span per request (decision 0386), entered for the request's whole life so that its
  // statements, cache calls and publishes are its children; ended with what the log line says.
  const spans = new WeakMap<FastifyRequest, Span>();
  if (deps.tracing.enabled) {
    app.addHook('onRequest', async (req) => {
      const span = startRequestSpan(deps.tracing, req.method, req.headers);
      if (span) spans.set(req, span);
    });
  }
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    const span = spans.get(req);
    if (span) {
      const line = requestLine(req, route, reply.statusCode, reply.elapsedTime);
      endRequestSpan(span, {
        method: req.method,
        route,
        status: reply.statusCode,
        orgId: line.org_id as string | undefined,
        principal: (line.user_id ?? line.key_id) as string | undefined,
      });
    }
    deps.metrics.requests.inc({ method: req.method, route, status: String(reply.statusCode) });
    deps.metrics.latency.observe({ method: req.method, route }, reply.elapsedTime / 1000);
    req.log.info(requestLine(req, route, reply.statusCode, reply.elapsedTime), 'request');
  });

  app.get('/openapi.json', async () => openapi);
  await registerDocs(app, openapi, errorPageHtml);
  await registerConsole(app);
  const apiKeys = provided.apiKeys;
  const sessions = provided.sessions;
  const failedAuth = deps.failedAuth;
  const registerDeps = {
    config,
    limiter: deps.limiter,
    failedAuth,
    rateLimited: deps.metrics.rateLimited,
    orgs,
    surface,
    limitClasses,
    orgShares: createOrgShares(config.maxInflightPerOrg),
    auth: {
      jwtKey: new TextEncoder().encode(config.jwtSecret),
      apiKeyPrefix: config.apiKeyPrefix,
      clock: deps.clock,
      apiKeys,
      devices: provided.devices,
      sessions,
      readScopes: Object.keys(deps.scopes).filter(isReadScope).sort(),
    },
  };
  for (const op of operations) registerOperation(app, op, registerDeps);
  return { app, operations, modules, openapi, warmSchemas: compilers.warm };

  function toAppError(err: FastifyError, req: FastifyRequest): AppError {
    if (err instanceof AppError) return err;
    if (err.validation) {
      const part = err.validationContext ?? 'body';
      const data = part === 'body' ? req.body : part === 'querystring' ? req.query : part === 'params' ? req.params : req.headers;
      // The validators are ajv's (platform/schema-compilers.ts): their errors are ajv's ErrorObjects.
      return errors.validation(toFieldErrors(err.validation as ErrorObject[], part, data));
    }
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return errors.payloadTooLarge(req.routeOptions.bodyLimit ?? config.bodyLimitBytes);
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return errors.unsupportedMediaType(String(req.headers['content-type'] ?? ''));
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return errors.validation([{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]);
    }
    if (err.statusCode === 400 && (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError)) {
      return errors.validation([{ type: 'json_invalid', loc: ['body'], msg: `JSON decode error: ${err.message.slice(0, 200)}`, input: null }]);
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return new AppError(err.statusCode, STATUS_TITLES[err.statusCode] ?? 'Bad Request');
    }
    if (err instanceof StoreUnavailableError) {
      // Overload or an outage of the store: say so and when to come back, never a 500.
      req.log.warn({ err }, 'store unavailable');
      return errors.serviceUnavailable(STATUS_TITLES[503], STORE_RETRY_AFTER_SECONDS, 'store_unavailable');
    }
    req.log.error({ err }, 'unhandled error');
    return errors.internal();
  }
}

/**
 * Every name an operation uses must be declared by a module: API key scopes (ModuleDefinition.scopes)
 * and module gates (the organisations' module catalogue). A typo fails the start, not a request.
 */
function checkDeclarations(operations: readonly Operation[], scopes: Readonly<Record<string, string>>): void {
  for (const op of operations) {
    if (op.access.kind === 'key' && op.access.scope !== 'any' && op.access.scope !== 'read' && scopes[op.access.scope] === undefined) {
      throw new Error(`operation ${op.operationId} requires scope ${op.access.scope}, which no module declares`);
    }
    if (op.module && !(MODULES as readonly string[]).includes(op.module)) {
      throw new Error(`operation ${op.operationId} is gated on module ${op.module}, which is not in the organisations' module catalogue`);
    }
  }
}

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The one log line of a request (issue 42): what was asked, of which route, by whom, with what
 * outcome and how long it took. Never the query string, a header value or a body: those may hold
 * secrets or personal data. The principal is named by its id only.
 */
export function requestLine(req: FastifyRequest, route: string, status: number, elapsedMs: number): Record<string, unknown> {
  const ctx = req.ctx as FastifyRequest['ctx'] | undefined;
  const actor = ctx?.actor;
  const traceparent = req.headers.traceparent;
  // The trace this request is part of: its own span's when tracing is on, else the caller's.
  const active = trace.getSpan(context.active())?.spanContext();
  const own = active && isSpanContextValid(active) ? active.traceId : undefined;
  const traceId = own ?? (typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent)?.[1] : undefined);
  return {
    method: req.method,
    route,
    status,
    duration_ms: Math.round(elapsedMs * 10) / 10,
    ...(ctx?.orgId ? { org_id: ctx.orgId } : {}),
    ...(actor?.kind === 'user' ? { user_id: actor.userId } : actor?.kind === 'key' ? { key_id: actor.keyId } : {}),
    ...(traceId && traceId !== '0'.repeat(32) ? { trace_id: traceId } : {}),
  };
}
