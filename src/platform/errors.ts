// Errors are domain data: a status, the spec's `detail`, a stable `code`. Services throw these;
// one renderer (render-error.ts) turns them into the spec's shapes for each surface.

export interface FieldError {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
}

export interface AppErrorOptions {
  /** Stable machine code used in the developer-tools envelope. Defaults by status. */
  code?: string;
  headers?: Record<string, string>;
  /** Extension members added to the developer-tools envelope (e.g. required_scope). */
  extra?: Record<string, unknown>;
  /** Human text for the envelope when `detail` is not a string. */
  message?: string;
  /**
   * Members sent beside `detail` on every surface (e.g. ingestion's `index`/`field` on 403
   * cross_tenant_record, the counts on 503 writer_error). Additive; declare them in the docs.
   */
  members?: Record<string, unknown>;
}

export class AppError extends Error {
  readonly status: number;
  readonly detail: unknown;
  readonly code: string;
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;
  readonly members: Record<string, unknown>;
  constructor(status: number, detail: unknown, opts: AppErrorOptions = {}) {
    super(opts.message ?? (typeof detail === 'string' ? detail : (STATUS_TITLES[status] ?? 'Error')));
    this.status = status;
    this.detail = detail;
    this.code = opts.code ?? DEFAULT_CODES[status] ?? 'error';
    this.headers = opts.headers ?? {};
    this.extra = opts.extra ?? {};
    this.members = opts.members ?? {};
  }
}

export const STATUS_TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  423: 'Locked',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

const DEFAULT_CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  402: 'plan_limit_exceeded',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_error',
  423: 'locked',
  429: 'rate_limited',
  500: 'internal_error',
  502: 'upstream_error',
  503: 'service_unavailable',
};

/** The errors every module shares. Module-specific ones are declared in the module. */
export const errors = {
  notFound: () => new AppError(404, 'Not Found', { code: 'not_found' }),
  methodNotAllowed: (allow: string[]) => new AppError(405, 'Method Not Allowed', { code: 'method_not_allowed', headers: { Allow: allow.join(', ') } }),
  validation: (fields: FieldError[]) => new AppError(422, fields, { code: 'validation_error', message: 'Request validation failed' }),
  badRequest: (detail: string, code = 'bad_request') => new AppError(400, detail, { code }),
  conflict: (detail: string, code = 'conflict') => new AppError(409, detail, { code }),
  forbidden: (detail: string, code = 'forbidden') => new AppError(403, detail, { code }),
  /** An operation, or a part of one, that acts only in demo organisations (PLATFORM_ERRORS documents it). */
  demoRealmOnly: () => new AppError(403, 'Demo realm only', { code: 'demo_realm_only' }),
  rateLimited: (retryAfterSeconds: number, headers: Record<string, string> = {}) =>
    new AppError(429, 'Rate limit exceeded', {
      code: 'rate_limited',
      headers: { ...headers, 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    }),
  planLimit: (metric: string, limit: number, upgradeUrl: string) =>
    new AppError(
      402,
      { error: 'plan_limit_exceeded', metric, limit, upgrade_url: upgradeUrl },
      { code: 'plan_limit_exceeded', message: `Plan limit reached for ${metric} (${limit})` },
    ),
  payloadTooLarge: (limitBytes: number) => new AppError(413, `Request body too large: the limit is ${limitBytes} bytes`, { code: 'payload_too_large' }),
  unsupportedMediaType: (type: string) =>
    new AppError(415, `Unsupported media type: ${type || '(none)'}; send application/json`, {
      code: 'unsupported_media_type',
    }),
  serviceUnavailable: (detail: string, retryAfterSeconds?: number, code = 'service_unavailable') =>
    new AppError(503, detail, {
      code,
      headers: retryAfterSeconds ? { 'Retry-After': String(retryAfterSeconds) } : {},
    }),
  /** More work than this process takes on now (load shedding, decision 0012; KDF gate, 0014). */
  overloaded: () => new AppError(503, STATUS_TITLES[503], { code: 'overloaded', headers: { 'Retry-After': '1' } }),
  upstream: (provider: string) => new AppError(502, `${provider} API error`, { code: 'upstream_error' }),
  internal: () => new AppError(500, 'Internal Server Error', { code: 'internal_error' }),
};

/** One field error, for checks a schema cannot express. */
export function fieldError(loc: (string | number)[], msg: string, input: unknown, type = 'value_error'): FieldError {
  // A value that was not sent (a defaulted parameter) is null: every entry has all four members.
  return { type, loc, msg, input: input === undefined ? null : input };
}
