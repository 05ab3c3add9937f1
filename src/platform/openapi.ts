// The OpenAPI 3.1 document, generated from the operation declarations and nothing else.
import type { TSchema } from 'typebox';
import { bodyMayBeAbsent, type Operation } from './operation.ts';
import { COMPONENT, PLATFORM_ERROR } from './schema-kit.ts';

export const API_VERSION = '2026-10-15';

const plain = <T>(s: T): T => JSON.parse(JSON.stringify(s));

/**
 * Moves every schema marked as a component (schema-kit `Component`) into `components.schemas` and
 * puts a `$ref` in its place. One name, one shape: a name used for two different shapes is an error
 * at start-up, not a silently wrong client.
 */
function hoister(components: Record<string, unknown>) {
  const seen = new Map<string, string>();
  const hoist = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(hoist);
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) if (k !== COMPONENT) out[k] = hoist(v);
    const name = (node as Record<string, unknown>)[COMPONENT];
    if (typeof name !== 'string') return out;
    const text = JSON.stringify(out);
    const before = seen.get(name);
    if (before !== undefined && before !== text) throw new Error(`OpenAPI component ${name} is declared with two different shapes`);
    seen.set(name, text);
    components[name] = out;
    return { $ref: `#/components/schemas/${name}` };
  };
  return <T>(schema: T): T => hoist(plain(schema)) as T;
}

const fieldErrorSchema = {
  type: 'object',
  required: ['type', 'loc', 'msg', 'input'],
  properties: {
    type: { type: 'string' },
    loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
    msg: { type: 'string' },
    input: {},
  },
};

const legacyError = {
  type: 'object',
  required: ['detail'],
  properties: {
    detail: {
      description: 'A message; for 422 a list of field errors; for 402 and SSO refusals an object.',
      anyOf: [{ type: 'string' }, { type: 'array', items: { $ref: '#/components/schemas/FieldError' } }, { type: 'object' }],
    },
  },
  // An error may carry members of its own beside detail (a refused transition's from, to and allowed), as the envelope may.
  additionalProperties: true,
};

const errorEnvelope = {
  type: 'object',
  required: ['detail', 'error', 'type', 'title', 'status', 'instance', 'code', 'request_id'],
  properties: {
    detail: legacyError.properties.detail,
    error: {
      type: 'object',
      required: ['code', 'message', 'request_id'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, request_id: { type: 'string' } },
    },
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    instance: { type: 'string' },
    code: { type: 'string', description: 'Stable machine code: the contract.' },
    request_id: { type: 'string' },
    required_scope: { type: 'string' },
    errors: { type: 'array', items: {} },
  },
  additionalProperties: true,
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request',
  401: 'Missing, malformed, invalid or expired credential',
  402: 'Plan limit exceeded',
  403: 'Forbidden: role, scope, tenant, module or status label refuses the caller',
  404: 'Not found, or not visible to the caller',
  409: 'Conflict',
  413: 'Request body too large',
  422: 'Validation failed',
  423: 'Locked',
  429: 'Rate limited; see Retry-After',
  502: 'Upstream provider failed',
  503: 'A dependency is unavailable; retry later',
};

function parameters(op: Operation) {
  const out: object[] = [];
  const add = (where: 'path' | 'query' | 'header', schema: TSchema | undefined) => {
    if (!schema) return;
    const s = plain(schema) as { properties?: Record<string, { description?: string }>; required?: string[] };
    for (const [name, prop] of Object.entries(s.properties ?? {})) {
      out.push({
        name,
        in: where,
        required: where === 'path' || (s.required ?? []).includes(name),
        description: prop.description,
        schema: prop,
      });
    }
  };
  add('path', op.schema.params);
  add('query', op.schema.query);
  add('header', op.schema.headers);
  return out;
}

function security(op: Operation) {
  switch (op.access.kind) {
    case 'public':
      return [];
    case 'bearer':
      return op.access.device ? [{ bearerAuth: [] }, { deviceCredential: [] }] : [{ bearerAuth: [] }];
    case 'key':
      return op.access.bearerRoles ? [{ apiKey: [] }, { bearerAuth: [] }] : [{ apiKey: [] }];
  }
}

function errorStatuses(op: Operation): number[] {
  const s = new Set<number>();
  if (op.access.kind !== 'public') [400, 401, 403].forEach((c) => s.add(c));
  if (op.schema.body || op.schema.query || op.schema.params || op.schema.headers) s.add(422);
  if (op.schema.params) s.add(404);
  if (op.schema.body) s.add(413);
  // Any operation: rate limits, and load shedding or an unreachable store (both with Retry-After).
  s.add(429);
  s.add(503);
  for (const code of Object.keys(op.schema.response).map(Number)) if (code >= 400) s.delete(code);
  return [...s].sort();
}

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;

/** The headers the platform adds to an answer of this operation with this status. */
function responseHeaders(op: Operation, status: number, requestId: boolean): Record<string, unknown> {
  const h: Record<string, { description: string; schema: object }> = {};
  if (requestId)
    h['X-Request-Id'] = {
      description: 'The request id: the incoming well-formed value, else one made here. Also in the error envelope and the logs.',
      schema: str,
    };
  if (status === 429 || status === 503) h['Retry-After'] = { description: 'Seconds to wait before retrying.', schema: int };
  if (!op.probe && (status < 400 || status === 429)) {
    // Every limited operation (all but the probes) says where the caller stands: for an API key its
    // per-key limit; otherwise the tightest of the limits that applied (per user, per organisation's
    // class, per address).
    const whose = op.access.kind === 'key' ? 'for this key' : 'of the tightest limit that applied to this request';
    h['RateLimit-Limit'] = { description: `Requests allowed in the window ${whose}.`, schema: int };
    h['RateLimit-Remaining'] = { description: 'Requests left in the current window.', schema: int };
    h['RateLimit-Reset'] = { description: 'Seconds until the window resets.', schema: int };
    h['RateLimit-Policy'] = { description: 'The policy, e.g. `600;w=60`.', schema: str };
  }
  if (op.deprecation) {
    h.Deprecation = { description: 'RFC 9745: `@<unix seconds>` of the announcement day.', schema: str };
    h.Sunset = { description: 'RFC 8594: the HTTP-date after which the operation is removed.', schema: str };
    h.Link = { description: 'The deprecation notice: `<docs>#deprecation; rel="deprecation"`.', schema: str };
  }
  if (status < 400) for (const [name, spec] of Object.entries(op.responseHeaders ?? {})) h[name] = spec;
  if (op.locates && (status === 201 || status === 202))
    h.Location = { description: `Where to follow what this queued or created: \`${op.locates}\`.`, schema: str };
  return h;
}

export interface OpenApiOptions {
  docsOrigin: string;
  apiKeyPrefix: string;
  /** Descriptions of the tags the operations use (from the modules). */
  tags?: Record<string, string>;
  /** Whether errors at a path use the envelope (platform/surface.ts). */
  envelope: (path: string) => boolean;
}

export function buildOpenApi(ops: Operation[], opts: OpenApiOptions) {
  const paths: Record<string, Record<string, unknown>> = {};
  const used = new Set<string>();
  const named: Record<string, unknown> = {};
  const schemaOf = hoister(named);
  for (const op of ops) {
    if (op.hidden) continue;
    op.tags.forEach((t) => used.add(t));
    const envelope = opts.envelope(op.path);
    const requestId = envelope || op.requestIdHeader === true;
    const errRef = envelope ? '#/components/schemas/ErrorEnvelope' : '#/components/schemas/Error';
    const responses: Record<string, unknown> = {};
    /** An error answer as the renderer gives it: `Error`, or the envelope and problem+json on its surface. */
    const errorAnswer = (code: number) => {
      const content: Record<string, unknown> = { 'application/json': { schema: { $ref: errRef } } };
      if (envelope) content['application/problem+json'] = { schema: { $ref: '#/components/schemas/Problem' } };
      const headers = responseHeaders(op, code, requestId);
      return { description: ERROR_DESCRIPTIONS[code] ?? 'Error', ...(Object.keys(headers).length && { headers }), content };
    };
    for (const [code, schema] of Object.entries(op.schema.response)) {
      const n = Number(code);
      // The shared error-response schema (schema-kit ErrorResponse) is the platform's error answer.
      if (n >= 400 && (schema as Record<string, unknown>)[PLATFORM_ERROR] === true) {
        responses[code] = errorAnswer(n);
        continue;
      }
      const media = n < 400 && op.produces ? op.produces : 'application/json';
      const headers = responseHeaders(op, n, requestId);
      responses[code] = {
        description: n >= 400 ? (ERROR_DESCRIPTIONS[n] ?? 'Error') : 'Success',
        ...(Object.keys(headers).length && { headers }),
        content: { [media]: { schema: schemaOf(schema) } },
      };
    }
    for (const code of errorStatuses(op)) responses[String(code)] = errorAnswer(code);
    const entry: Record<string, unknown> = {
      operationId: op.operationId,
      summary: op.summary,
      description: op.description,
      tags: op.tags,
      security: security(op),
      parameters: parameters(op),
      responses,
      'x-platform-status': op.status,
    };
    if (op.schema.body) {
      const content: Record<string, unknown> = { 'application/json': { schema: schemaOf(op.documentedBody ?? op.schema.body) } };
      if (op.csvBody) {
        const member = (op.schema.body as { properties?: Record<string, { maxLength?: number }> }).properties?.[op.csvBody.member];
        content['text/csv'] = { schema: { type: 'string', description: op.csvBody.description, ...(member?.maxLength && { maxLength: member.maxLength }) } };
      }
      entry.requestBody = { required: !bodyMayBeAbsent(op), content };
    }
    if (op.dataBasis) {
      entry['x-platform-data-basis'] = op.dataBasis.basis;
      if (op.dataBasis.method) entry['x-platform-method'] = op.dataBasis.method;
    }
    // Roles are "not shown" in the spec; we publish who may call each operation.
    if (op.access.kind === 'bearer') entry['x-platform-roles'] = [...op.access.roles];
    if (op.access.kind === 'key') {
      entry['x-platform-scope'] = op.access.scope;
      if (op.access.bearerRoles) entry['x-platform-roles'] = [...op.access.bearerRoles];
    }
    if (op.platformAdmin) entry['x-platform-admin-only'] = true;
    if (op.audience) entry['x-platform-audience'] = op.audience;
    if (op.sandbox) entry['x-platform-sandbox'] = true;
    if (op.module) entry['x-platform-module'] = op.module;
    if (op.deprecation) {
      entry.deprecated = true;
      entry['x-platform-deprecated-on'] = op.deprecation.on;
      entry['x-platform-sunset'] = op.deprecation.sunset;
      entry['x-platform-replacement'] = op.deprecation.replacement;
    }
    (paths[op.path] ??= {})[op.method.toLowerCase()] = entry;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Energy Platform Service',
      version: API_VERSION,
      description:
        'Telemetry ingestion, asset registry, market data, flexibility and the services around them. ' +
        'Every operation carries x-platform-status; derived figures carry x-platform-data-basis. ' +
        "An answer from simulated data carries x-platform-data-basis: simulated instead of the declared basis: a sandbox key's answer " +
        "(except configuration), and a demo organisation's (demo-*) where the declared basis is measured, calculated or forecast, or a stored list of readings, " +
        'or the operation answers demo organisations from a sample shipped with the service (its description says so). ' +
        `Errors: ${opts.docsOrigin}/docs/errors.`,
      contact: { name: 'Energy Platform Service API', url: `${opts.docsOrigin}/docs` },
      license: { name: 'Proprietary: use under the agreement with the operator', url: `${opts.docsOrigin}/docs` },
    },
    servers: [{ url: '/' }],
    tags: [...used].sort().map((name) => ({ name, description: opts.tags?.[name] ?? '' })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'User access token from POST /api/auth/login' },
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: `API key (${opts.apiKeyPrefix}_...) sent as Authorization: Bearer <key>`,
        },
        deviceCredential: {
          type: 'http',
          scheme: 'bearer',
          description:
            `Device credential (${opts.apiKeyPrefix}dev_<credential_id>_<secret>) sent as Authorization: Bearer <credential>. An extension beside ` +
            "the spec's user sign-in for gateways (decision 0375, docs/devices.md): issued by POST /api/hardware/device-credentials, bound to one site " +
            'and optionally some device ids, with scopes among telemetry:write, gateway:heartbeat and buffer:replay. Accepted only by the operations ' +
            'listing it (heartbeat, buffer replay, ingestion), for its own site.',
        },
      },
      schemas: {
        ...named,
        FieldError: fieldErrorSchema,
        Error: legacyError,
        ErrorEnvelope: errorEnvelope,
        Problem: { ...errorEnvelope, properties: { ...errorEnvelope.properties, detail: { type: 'string' } } },
      },
    },
  };
}
