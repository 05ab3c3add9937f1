// The page every error `type` URI points at (`/docs/errors#<code>`): one entry per stable code,
// the platform's here and each module's from its own declaration (ModuleInstance.errors). The
// contract fuzzer checks that every code it meets on the developer-tools surface is listed.
import { escapeHtml as esc } from '../kit/html.ts';
import { AppError, errors as platformErrors, fieldError } from './errors.ts';
export interface ErrorDoc {
  code: string;
  status: number;
  description: string;
}

/**
 * One error, declared once: its status, the spec's `detail` (a text, or made from the factory's
 * arguments), its stable `code` (by default the status's), where it has them the `members` sent
 * beside `detail` (made from the same arguments) and fixed `headers`, and, where it has its own
 * entry on the error page, the `doc` that describes it. An entry with a `doc` and no `detail` is
 * documented here but raised by another module's service (it makes no factory).
 */
export type ErrorDeclaration =
  | ({
      status: number;
      detail: string | ((...args: never[]) => string);
      members?: (...args: never[]) => Record<string, unknown>;
      headers?: Record<string, string>;
    } & ({ code: string; doc?: string } | { code?: undefined; doc?: undefined }))
  | { status: number; code: string; doc: string; detail?: undefined };

type ErrorFactories<T extends Record<string, ErrorDeclaration>> = {
  [K in keyof T as T[K]['detail'] extends undefined ? never : K]: T[K]['detail'] extends (...args: infer A) => string
    ? (...args: A) => AppError
    : () => AppError;
};

/**
 * A module's errors from their declarations: `errors` has a factory per name (a fresh AppError
 * each call), and `field`, the 422 for one field a schema cannot check (its `loc` under
 * `fieldsIn` when given: `field(['rates', 2], ...)` with `fieldsIn: 'body'` names
 * `['body', 'rates', 2]`); `docs` the error-page entries of those with a `doc`, in the order declared.
 */
export function declareErrors<T extends Record<string, ErrorDeclaration>>(
  declarations: T,
  options: { fieldsIn?: 'body' | 'query' | 'path' } = {},
): { errors: ErrorFactories<T> & { field: FieldFactory }; docs: ErrorDoc[] } {
  const errors: Record<string, (...args: never[]) => AppError> = {};
  const docs: ErrorDoc[] = [];
  for (const [name, d] of Object.entries(declarations)) {
    if (d.detail !== undefined) {
      const { status, detail, code, members, headers } = d;
      errors[name] = (...args) =>
        new AppError(status, typeof detail === 'string' ? detail : detail(...args), {
          ...(code !== undefined && { code }),
          ...(members && { members: members(...args) }),
          ...(headers && { headers }),
        });
    }
    if (d.code !== undefined && d.doc !== undefined) docs.push({ code: d.code, status: d.status, description: d.doc });
  }
  const under = options.fieldsIn;
  const field: FieldFactory = (loc, msg, input) => platformErrors.validation([fieldError(under ? [under, ...loc] : loc, msg, input)]);
  return { errors: { ...(errors as ErrorFactories<T>), field }, docs };
}

/** A 422 naming one field and why its value is refused. */
export type FieldFactory = (loc: (string | number)[], msg: string, input: unknown) => AppError;

export const PLATFORM_ERRORS: readonly ErrorDoc[] = [
  { code: 'bad_request', status: 400, description: 'The request is well formed but makes no sense for this operation; `detail` says why.' },
  { code: 'malformed_url', status: 400, description: 'The URL could not be decoded (for example a broken percent-encoding).' },
  {
    code: 'invalid_cursor',
    status: 400,
    description: 'The cursor is unreadable, belongs to another operation, or came with different filters. Start again without it.',
  },
  { code: 'organisation_context_missing', status: 400, description: 'The token verifies but names no organisation.' },
  {
    code: 'unauthorized',
    status: 401,
    description: 'No credential (`Authorization header missing`) or not `Bearer <token>` (`Invalid authorization header`).',
  },
  { code: 'invalid_token', status: 401, description: 'The access token has a bad signature, is malformed or expired, or its session was ended.' },
  { code: 'tenant_missing', status: 401, description: 'Neither the token nor an `X-Tenant-ID` header names a tenant.' },
  { code: 'api_key_required', status: 401, description: 'This operation is called with an API key, not a user token.' },
  { code: 'api_key_not_accepted', status: 401, description: 'This operation does not accept API keys; sign in as a user.' },
  { code: 'invalid_api_key', status: 401, description: 'The API key is unknown, revoked, replaced or expired.' },
  {
    code: 'device_credential_not_accepted',
    status: 401,
    description: 'This operation does not accept device credentials: they serve heartbeat, buffer replay and ingestion only (docs/devices.md).',
  },
  { code: 'invalid_device_credential', status: 401, description: 'The device credential is unknown, revoked, rotated out or expired.' },
  {
    code: 'plan_limit_exceeded',
    status: 402,
    description: "The organisation's plan allows no more of this resource; `detail.metric` and `detail.limit` say which.",
  },
  { code: 'forbidden', status: 403, description: 'The caller may not do this.' },
  { code: 'insufficient_permissions', status: 403, description: "The caller's role does not allow this operation." },
  { code: 'roles_missing', status: 403, description: 'The token carries no roles.' },
  { code: 'tenant_mismatch', status: 403, description: '`X-Tenant-ID` disagrees with the credential.' },
  { code: 'insufficient_scope', status: 403, description: 'The API key or device credential lacks the scope this operation needs; `required_scope` names it.' },
  { code: 'device_site_mismatch', status: 403, description: 'The device credential is bound to another site than the one in the path.' },
  { code: 'sandbox_not_allowed', status: 403, description: 'A sandbox key may call only the operations marked `x-platform-sandbox`.' },
  { code: 'module_not_enabled', status: 403, description: 'The module this operation belongs to is not enabled for the organisation.' },
  { code: 'demo_realm_only', status: 403, description: 'The operation acts only in demo organisations.' },
  { code: 'platform_staff_only', status: 403, description: 'The operation is for platform staff.' },
  { code: 'platform_admin_only', status: 403, description: 'The operation is for platform administrators.' },
  { code: 'not_found', status: 404, description: 'The resource does not exist or is not visible to the caller, or the route is not served.' },
  { code: 'method_not_allowed', status: 405, description: 'The path exists but not with this method; `Allow` lists the methods.' },
  { code: 'conflict', status: 409, description: 'The request conflicts with the current state of the resource.' },
  { code: 'payload_too_large', status: 413, description: 'The request body is over the size limit.' },
  { code: 'uri_too_long', status: 414, description: 'A path segment is over the length limit.' },
  { code: 'unsupported_media_type', status: 415, description: 'The body is not `application/json` (nor `text/csv` where the operation takes a CSV file).' },
  {
    code: 'validation_error',
    status: 422,
    description: 'The request failed validation; `errors` (problem+json) or `detail` (JSON) lists each field with `type`, `loc`, `msg`, `input`.',
  },
  { code: 'locked', status: 423, description: 'The resource is locked for now.' },
  { code: 'rate_limited', status: 429, description: 'Too many requests in the window; wait `Retry-After` seconds.' },
  {
    code: 'job_backlog_full',
    status: 429,
    description:
      'The organisation already has as much of this long work (backtests, exports, study runs, ledger rebuilds) queued or running as it may; wait `Retry-After` seconds or for one to finish.',
  },
  { code: 'internal_error', status: 500, description: 'An unexpected failure; the request id identifies it in the logs.' },
  { code: 'upstream_error', status: 502, description: 'A third-party provider failed or answered something unusable.' },
  { code: 'service_unavailable', status: 503, description: 'A dependency the operation needs is unavailable; retry after `Retry-After` seconds.' },
  { code: 'store_unavailable', status: 503, description: 'The store did not answer in time; retry after `Retry-After` seconds.' },
  { code: 'overloaded', status: 503, description: 'The instance is at its limit of requests in flight; retry after `Retry-After` seconds.' },
];

const code = (s: string) => esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');

/** The error reference as one HTML page, an anchor per code. */
export function errorPage(groups: { owner: string; errors: readonly ErrorDoc[] }[]): string {
  const sections = groups
    .filter((g) => g.errors.length)
    .map(
      (g) =>
        `<h2>${esc(g.owner)}</h2>\n<dl>\n` +
        g.errors.map((e) => `<dt id="${esc(e.code)}"><code>${esc(e.code)}</code> (HTTP ${e.status})</dt><dd>${code(e.description)}</dd>`).join('\n') +
        '\n</dl>',
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Errors: Energy Platform Service</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}dt{margin-top:1rem;font-weight:600}code{background:#f3f3f3;padding:0 .2rem}</style>
</head><body>
<h1>Errors</h1>
<p>Every error answer of the developer tools and the Partner API carries a stable <code>code</code> and a <code>type</code> URI pointing to its entry here. The <code>code</code> is the contract; messages are for people.</p>
${sections}
</body></html>
`;
}
