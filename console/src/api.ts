// The console's only way to the API. The session (access and refresh tokens) lives in this
// module's memory and nowhere else: no localStorage, sessionStorage or cookie a script could read
// (decision 0230). Access tokens are refreshed before they expire, one refresh at a time (the
// service revokes a whole sign-in when a refresh token is used twice); sign-out revokes it.

export interface Session {
  organisationId: string;
  roles: string[];
  email: string;
}

interface Tokens {
  access: string;
  refresh: string;
  expiresAt: number;
}

export class ApiError extends Error {
  status: number;
  requestId: string;
  fields: Array<{ loc: string[]; msg: string }>;
  retryAfter: string | null;
  constructor(status: number, message: string, requestId: string, fields: Array<{ loc: string[]; msg: string }> = [], retryAfter: string | null = null) {
    super(message);
    this.status = status;
    this.requestId = requestId;
    this.fields = fields;
    this.retryAfter = retryAfter;
  }
}

let tokens: Tokens | null = null;
let session: Session | null = null;
let refreshing: Promise<void> | null = null;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
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

const newRequestId = () => `console-${crypto.randomUUID()}`;

/** The problem a refusal carries, in words: `{detail}` or the developer envelope `{error}`. */
async function toError(res: Response, requestId: string): Promise<ApiError> {
  let body: any = null;
  try {
    body = await res.json();
  } catch {
    /* not JSON */
  }
  const rid = res.headers.get('x-request-id') ?? body?.error?.request_id ?? requestId;
  const retryAfter = res.headers.get('retry-after');
  let message = `The service answered ${res.status}`;
  let fields: Array<{ loc: string[]; msg: string }> = [];
  const detail = body?.error?.message ?? body?.detail;
  if (typeof detail === 'string') message = detail;
  else if (Array.isArray(detail)) {
    fields = detail.map((d: any) => ({ loc: d.loc ?? [], msg: String(d.msg ?? '') }));
    message = fields.map((f) => `${f.loc.slice(1).join('.') || 'request'}: ${f.msg}`).join('; ');
  } else if (Array.isArray(body?.error?.details)) {
    message = body.error.details.map((d: any) => d.msg ?? d.message).join('; ');
  }
  return new ApiError(res.status, message, rid, fields, retryAfter);
}

async function send(method: string, path: string, body: unknown, auth: string | null): Promise<Response> {
  const requestId = newRequestId();
  const headers: Record<string, string> = { accept: 'application/json', 'x-request-id': requestId };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (auth) headers.authorization = `Bearer ${auth}`;
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new ApiError(0, 'The service could not be reached. Check the connection and try again.', requestId);
  }
  if (!res.ok) throw await toError(res, requestId);
  return res;
}

function take(t: { access_token: string; refresh_token: string; expires_in: number }) {
  tokens = { access: t.access_token, refresh: t.refresh_token, expiresAt: Date.now() + t.expires_in * 1000 };
  clearTimeout(refreshTimer);
  // Refresh a minute before the access token ends (or at half its life if that is shorter).
  const inMs = Math.max(5_000, Math.min(t.expires_in * 1000 - 60_000, (t.expires_in * 1000) / 2));
  refreshTimer = setTimeout(() => void refresh().catch(() => undefined), inMs);
}

export async function signIn(email: string, password: string, organisationId?: string): Promise<Session> {
  const res = await send('POST', '/api/auth/login', { email, password, ...(organisationId && { organisation_id: organisationId }) }, null);
  const t = await res.json();
  take(t);
  const s = { organisationId: t.organisation_id, roles: t.roles, email };
  setSession(s);
  return s;
}

/** The organisations a multi-organisation account may choose, from the service's 422 answer. */
export function organisationChoices(err: ApiError): string[] | null {
  const f = err.fields.find((x) => x.loc.join('.') === 'body.organisation_id');
  const m = f?.msg.match(/\(([^)]*)\)/);
  return m
    ? m[1]
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : null;
}

/** One refresh at a time: concurrent callers share it. */
function refresh(): Promise<void> {
  if (!tokens) return Promise.reject(new ApiError(401, 'Signed out', ''));
  refreshing ??= (async () => {
    try {
      const res = await send('POST', '/api/auth/token/refresh', { refresh_token: tokens!.refresh }, null);
      take(await res.json());
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) end();
      throw err;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

function end() {
  tokens = null;
  clearTimeout(refreshTimer);
  setSession(null);
}

export async function signOut(): Promise<void> {
  const t = tokens;
  if (t) {
    try {
      await send('POST', '/api/auth/logout', { refresh_token: t.refresh }, t.access);
    } finally {
      end();
    }
  }
}

/** The access token for a call, refreshed first when it is about to end. */
export async function accessToken(): Promise<string> {
  if (!tokens) throw new ApiError(401, 'Signed out', '');
  if (tokens.expiresAt - Date.now() < 30_000) await refresh();
  return tokens!.access;
}

/** A call with the session's token: on 401 one refresh and one retry, as the service asks. */
export async function call<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await send(method, path, body, await accessToken());
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 401 || !tokens) throw err;
    await refresh();
    res = await send(method, path, body, tokens!.access);
  }
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

export const get = <T = any>(path: string) => call<T>('GET', path);
export const post = <T = any>(path: string, body?: unknown) => call<T>('POST', path, body);

/** Operations the service declares, from its OpenAPI document: screens appear only for those that exist. */
let operations: Promise<Set<string>> | null = null;
let documentP: Promise<any> | null = null;
export function openapiDocument(): Promise<any> {
  documentP ??= fetch('/openapi.json', { credentials: 'omit' })
    .then((r) => r.json())
    .catch(() => ({}));
  return documentP;
}
export function declaredOperations(): Promise<Set<string>> {
  operations ??= openapiDocument()
    .then((doc) => {
      const set = new Set<string>();
      for (const [p, item] of Object.entries<any>(doc.paths ?? {})) for (const m of Object.keys(item)) set.add(`${m.toUpperCase()} ${p}`);
      return set;
    })
    .catch(() => new Set<string>());
  return operations;
}
