// The console's only way to the API: the generated SDK (packages/sdk), whose client is typed from
// the service's OpenAPI document (openapi-fetch) and whose transport sends every request: request
// ids, one refresh and replay on 401, retries of 429/503 honouring Retry-After, typed errors. The
// console declares no request or response type of its own: `Read<path>` and `Schemas[name]` are the
// generated ones (test/foundation/console-sdk-types.test.ts holds that).
//
// The access token lives in this module's memory and nowhere else: no localStorage,
// sessionStorage or cookie a script could read (decision 0230). The refresh token is the service's
// HttpOnly cookie on /api/auth (decision 0365: sign-in, refresh and sign-out send
// `X-Refresh-Cookie: 1`), so a reload restores the session with one refresh (`restoreSession`)
// while no script ever sees a refresh token. The SDK refreshes an access token before it expires,
// one refresh at a time (the service revokes a whole sign-in when a refresh token is used twice); a
// refused refresh signs the console out; sign-out revokes the sign-in and clears the cookie.
import type { Client } from 'openapi-fetch';
import { Platform } from '../../packages/sdk/src/client.ts';
import { ApiError, ConnectionError } from '../../packages/sdk/src/errors.ts';
import type { components, paths } from '../../packages/sdk/src/generated/openapi.ts';

export { ApiError, ConnectionError };
export type { LiveStreamEvent, LiveTelemetryRecord } from '../../packages/sdk/src/live.ts';

/** The OpenAPI document's named schemas. */
export type Schemas = components['schemas'];
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON answer (200) of `GET path`, as the OpenAPI document declares it. */
export type Read<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer R } } } ? JsonOf<R> : never;
/** The JSON answer of `POST path` with the given status. */
export type Written<P extends keyof paths, S extends number = 200> = paths[P] extends { post: { responses: { [K in S]: infer R } } } ? JsonOf<R> : never;
/** The JSON body of `POST path`. */
export type Sent<P extends keyof paths> = paths[P] extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never;
/** The parameters (path, query) of `GET path`. */
export type Params<P extends keyof paths> = paths[P] extends { get: { parameters: infer Q } } ? Q : never;
type LoginAnswer = Written<'/api/auth/login'>;

export interface Session {
  organisationId: string;
  roles: LoginAnswer['roles'];
  email: string;
}

let platform: Platform | null = null;
let session: Session | null = null;
const listeners = new Set<(s: Session | null) => void>();

export const currentSession = () => session;
export function onSession(fn: (s: Session | null) => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
function setSession(s: Session | null) {
  session = s;
  for (const l of listeners) l(s);
}

/** The header that asks the service for the refresh cookie (decision 0365). */
const COOKIE_HEADER = { 'x-refresh-cookie': '1' };

/**
 * The SDK's options for this page: this origin, the refresh cookie, no HTTP cache, `console-`
 * request ids. Cookies go only with the sign-in, refresh and sign-out calls (the opt-in header);
 * every other request omits them.
 */
function options() {
  return {
    baseUrl: location.origin,
    requestId: () => `console-${crypto.randomUUID()}`,
    refreshCookie: true,
    // A person is waiting: retry a refused read briefly, then say so (the screens offer "Try again").
    retry: { retries: 2, maxDelayMs: 5_000 },
    fetch: async (req: Request) => {
      const res = await fetch(req, { credentials: req.headers.get('x-refresh-cookie') === '1' ? 'same-origin' : 'omit', cache: 'no-store' });
      // The service refused the refresh token (expired, revoked, or used twice): the sign-in is over.
      if (res.status === 401 && new URL(req.url).pathname === '/api/auth/token/refresh') queueMicrotask(end);
      return res;
    },
  };
}
/** Signed-out calls (sign-in). */
const anonymous = new Platform(options());

/** The data of a typed call (the SDK's transport has already turned every refusal into an ApiError). */
export async function data<T>(call: Promise<{ data?: T; response: Response }>): Promise<T> {
  return (await call).data as T;
}

/** The typed client of the signed-in session: `api().GET('/api/...', { params })`. */
export function api(): Client<paths> {
  if (!platform) throw new ApiError({ status: 401, detail: 'Signed out', body: null, method: 'GET', url: location.href });
  return platform.api;
}
/** The SDK of the signed-in session (the live stream). */
export function sdk(): Platform {
  api();
  return platform!;
}

export async function signIn(email: string, password: string, organisationId?: string): Promise<Session> {
  const t = await data(
    anonymous.api.POST('/api/auth/login', {
      body: { email, password, ...(organisationId && { organisation_id: organisationId }) },
      headers: COOKIE_HEADER,
    }),
  );
  platform = new Platform({
    ...options(),
    credentials: {
      session: {
        accessToken: t.access_token,
        // "" with the cookie: the refresh token is in the service's HttpOnly cookie.
        refreshToken: t.refresh_token,
        accessExpiresAt: new Date(Date.now() + t.expires_in * 1000).toISOString(),
        organisationId: t.organisation_id,
      },
    },
  });
  const s = { organisationId: t.organisation_id, roles: t.roles, email };
  setSession(s);
  return s;
}

/**
 * After a reload: one refresh by the cookie restores the session (then `GET /api/auth/me` for the
 * email); null when there is no cookie or the service refuses it (the sign-in form shows).
 */
export async function restoreSession(): Promise<Session | null> {
  const p = new Platform(options());
  try {
    await p.transport.refresh();
    const me = await data(p.api.GET('/api/auth/me'));
    platform = p;
    const s = { organisationId: me.organisation_id, roles: me.roles, email: me.email ?? me.user_id };
    setSession(s);
    return s;
  } catch {
    return null;
  }
}

/** The refusal's `detail` in words (a 422's field list as `field: message; …`). */
export function detailText(e: ApiError): string {
  if (typeof e.detail === 'string') return e.detail;
  return e.detail.map((f) => `${f.loc.slice(1).join('.') || 'request'}: ${f.msg}`).join('; ');
}

/** The organisations a multi-organisation account may choose, from the service's 422 answer. */
export function organisationChoices(err: ApiError): string[] | null {
  const f = err.fieldErrors.find((x) => x.loc.join('.') === 'body.organisation_id');
  const m = f?.msg.match(/\(([^)]*)\)/);
  return m
    ? m[1]
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : null;
}

function end() {
  platform = null;
  if (session) setSession(null);
}

export async function signOut(): Promise<void> {
  try {
    await platform?.signOut();
  } finally {
    end();
  }
}

/** Operations the service declares, from its OpenAPI document: screens appear only for those that exist. */
interface OpenApiDocument {
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, unknown> };
}
let operations: Promise<Set<string>> | null = null;
let documentP: Promise<OpenApiDocument> | null = null;
export function openapiDocument(): Promise<OpenApiDocument> {
  documentP ??= fetch('/openapi.json', { credentials: 'omit' })
    .then((r) => r.json() as Promise<OpenApiDocument>)
    .catch(() => ({}));
  return documentP;
}
export function declaredOperations(): Promise<Set<string>> {
  operations ??= openapiDocument()
    .then((doc) => {
      const set = new Set<string>();
      for (const [p, item] of Object.entries(doc.paths ?? {})) for (const m of Object.keys(item)) set.add(`${m.toUpperCase()} ${p}`);
      return set;
    })
    .catch(() => new Set<string>());
  return operations;
}

/** How an answer's figures were come by: the service's `x-platform-data-basis` and `x-platform-method` headers. */
export interface Basis {
  basis: string;
  method: string | null;
}
/** The data of a typed call with its data basis (null where the operation declares none). */
export async function dataWithBasis<T>(call: Promise<{ data?: T; response: Response }>): Promise<{ data: T; basis: Basis | null }> {
  const r = await call;
  const basis = r.response.headers.get('x-platform-data-basis');
  return { data: r.data as T, basis: basis ? { basis, method: r.response.headers.get('x-platform-method') } : null };
}
