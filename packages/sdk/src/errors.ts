// Typed errors: every refusal the service answers becomes an ApiError carrying what an integrator
// needs to act on it: the status, the service's `detail`, the request id to quote to support and,
// for ingestion, the per-record results.

/** One entry of the 422 field list (`detail` as a list). */
export interface FieldError {
  type?: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
}

/** One record's outcome in an ingestion answer (index within the request). */
export interface RecordResult {
  index: number;
  status: 'stored' | 'duplicate' | 'rejected';
  anomalies?: string[];
  duplicate_of?: number;
  field?: string;
  reason?: string;
  message?: string;
  errors?: { field: string; reason: string; message: string }[];
}

export class ApiError extends Error {
  override name = 'ApiError';
  /** HTTP status. */
  readonly status: number;
  /** The service's `detail`: a sentence, or the list of field errors of a 422. */
  readonly detail: string | FieldError[];
  /** Stable error code where the service gives one (the developer platform's envelope). */
  readonly code: string | undefined;
  /** The request id (X-Request-Id): the service's answer header, else the one this client sent. */
  readonly requestId: string | undefined;
  /** Seconds the service asked to wait (Retry-After), when it said. */
  readonly retryAfterSeconds: number | undefined;
  /** Per-record results of an ingestion answer (422 all_records_rejected, 503 writer_error). */
  readonly results: RecordResult[] | undefined;
  /** The whole parsed body (or the text when it was not JSON). */
  readonly body: unknown;
  readonly method: string;
  readonly url: string;

  constructor(init: {
    status: number;
    detail: string | FieldError[];
    code?: string;
    requestId?: string;
    retryAfterSeconds?: number;
    results?: RecordResult[];
    body: unknown;
    method: string;
    url: string;
  }) {
    const text = typeof init.detail === 'string' ? init.detail : init.detail.map((e) => `${e.loc.join('.')}: ${e.msg}`).join('; ');
    super(`${init.status} ${text}`);
    this.status = init.status;
    this.detail = init.detail;
    this.code = init.code;
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.results = init.results;
    this.body = init.body;
    this.method = init.method;
    this.url = init.url;
  }

  /** The 422 field list, or [] when the detail is a sentence. */
  get fieldErrors(): FieldError[] {
    return Array.isArray(this.detail) ? this.detail : [];
  }
}

/** The service could not be reached (network error, refused connection, timeout). */
export class ConnectionError extends Error {
  override name = 'ConnectionError';
  readonly method: string;
  readonly url: string;
  constructor(method: string, url: string, cause: unknown) {
    super(`${method} ${url}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.method = method;
    this.url = url;
  }
}

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Builds the ApiError for a non-2xx answer (reads the body). */
export async function errorFrom(res: Response, method: string, sentRequestId: string | undefined): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: keep the text */
  }
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, any>;
  const envelope = b.error && typeof b.error === 'object' ? (b.error as Record<string, any>) : undefined;
  const detail: string | FieldError[] =
    typeof b.detail === 'string' || Array.isArray(b.detail)
      ? b.detail
      : typeof envelope?.message === 'string'
        ? envelope.message
        : typeof body === 'string' && body
          ? body.slice(0, 500)
          : res.statusText || `HTTP ${res.status}`;
  return new ApiError({
    status: res.status,
    detail,
    code: typeof b.code === 'string' ? b.code : typeof envelope?.code === 'string' ? envelope.code : undefined,
    requestId: res.headers.get('x-request-id') ?? (typeof envelope?.request_id === 'string' ? envelope.request_id : undefined) ?? sentRequestId,
    retryAfterSeconds: parseRetryAfter(res.headers.get('retry-after')),
    results: Array.isArray(b.results) ? (b.results as RecordResult[]) : undefined,
    body,
    method,
    url: res.url,
  });
}
