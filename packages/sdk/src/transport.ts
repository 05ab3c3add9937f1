// The one place requests are sent: credentials (an API key, or a session with transparent refresh
// rotation), request ids, retries with backoff and jitter, and typed errors. openapi-fetch calls
// `send` for every typed call (its `fetch` option). Web platform APIs only (fetch, crypto), so the
// operators' console runs the same client in the browser.
import { ApiError, ConnectionError, errorFrom, parseRetryAfter } from './errors.ts';

/** A signed-in session: keep it (e.g. in a file) to resume without the password. */
export interface Session {
  accessToken: string;
  refreshToken: string;
  /** When the access token stops working (ISO 8601), from the sign-in answer's expires_in. */
  accessExpiresAt?: string;
  organisationId?: string;
}

export type Credentials = { apiKey: string } | { email: string; password: string; organisationId?: string } | { session: Session };

export interface RetryOptions {
  /** Further tries after the first (default 4). 0 turns retrying off. */
  retries?: number;
  /** First backoff step when the service gave no Retry-After (default 500 ms); doubles each try. */
  baseDelayMs?: number;
  /** Largest single wait (default 60 s): a Retry-After longer than this is not waited for (the ApiError says how long). */
  maxDelayMs?: number;
}

export interface TransportOptions {
  baseUrl: string;
  credentials?: Credentials;
  /** Called with each new session (sign-in, every refresh rotation) and null on sign-out. */
  onSession?: (session: Session | null) => void | Promise<void>;
  retry?: RetryOptions;
  /** How to wait between tries (tests move a clock instead). */
  sleep?: (ms: number) => Promise<void>;
  /** 0 <= x < 1, for jitter. */
  random?: () => number;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: (request: Request) => Promise<Response>;
  /** Refresh the access token this long before it expires (default 30 s). */
  refreshSkewMs?: number;
  userAgent?: string;
  /** A new request id (X-Request-Id) for a request that has none (default a random UUID). */
  requestId?: () => string;
  /**
   * A browser page on the service's own origin (the console): the refresh token travels in the
   * service's HttpOnly cookie instead of the body (decision 0365). Sign-in, refresh and sign-out send
   * `X-Refresh-Cookie: 1` with same-origin credentials and no body token; the session's
   * `refreshToken` is `""`; `refresh()` works without a session (it restores one after a reload).
   */
  refreshCookie?: boolean;
}

export interface SendOptions {
  /**
   * Also retry a write without Idempotency-Key when the answer is 429: the rate limiter refuses a
   * request before the operation looks at it, so nothing was done (the ingestion helpers use it).
   */
  retryRateLimitedWrites?: boolean;
  /** No credentials (sign-in, refresh). */
  anonymous?: boolean;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const RETRYABLE = new Set([429, 503]);

export class Transport {
  readonly baseUrl: string;
  private credentials: Credentials | undefined;
  private session: Session | undefined;
  private pending: Promise<Session> | undefined;
  private readonly opts: TransportOptions;
  private readonly retries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(opts: TransportOptions) {
    this.opts = opts;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.credentials = opts.credentials;
    if (opts.credentials && 'session' in opts.credentials) this.session = opts.credentials.session;
    this.retries = opts.retry?.retries ?? 4;
    this.baseDelayMs = opts.retry?.baseDelayMs ?? 500;
    this.maxDelayMs = opts.retry?.maxDelayMs ?? 60_000;
  }

  get currentSession(): Session | undefined {
    return this.session;
  }

  /** Wait before try `attempt` (0-based count of tries already failed); undefined: do not wait that long. */
  delayFor(attempt: number, retryAfterSeconds: number | undefined): number | undefined {
    const random = this.opts.random ?? Math.random;
    if (retryAfterSeconds !== undefined) {
      // Never earlier than the service asked; up to 10 % later so many clients do not return together.
      const ms = retryAfterSeconds * 1000;
      return ms > this.maxDelayMs ? undefined : Math.round(ms + random() * ms * 0.1);
    }
    // Full jitter: anywhere up to the exponential step.
    const cap = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** attempt);
    return Math.round(random() * cap);
  }

  private sleep(ms: number): Promise<void> {
    return this.opts.sleep ? this.opts.sleep(ms) : new Promise((r) => setTimeout(r, ms));
  }

  private rawFetch(req: Request): Promise<Response> {
    return (this.opts.fetch ?? globalThis.fetch)(req);
  }

  /** Signs in with the password credentials (also used after a refresh token is refused). */
  async signIn(): Promise<Session> {
    const c = this.credentials;
    if (!c || !('password' in c)) throw new Error('signIn needs email and password credentials');
    return this.single(async () => {
      const body = await this.postJson('/api/auth/login', {
        email: c.email,
        password: c.password,
        ...(c.organisationId && { organisation_id: c.organisationId }),
      });
      return this.adopt(body);
    });
  }

  /** Trades the refresh token for a new pair (the old refresh token is revoked by the service). */
  async refresh(): Promise<Session> {
    const current = this.session;
    if (!current && !this.opts.refreshCookie) throw new Error('no session to refresh');
    return this.single(async () => {
      try {
        return this.adopt(await this.postJson('/api/auth/token/refresh', this.opts.refreshCookie ? {} : { refresh_token: current!.refreshToken }));
      } catch (e) {
        // A refused refresh token ends the session; with a password we can sign in again.
        if (e instanceof ApiError && e.status === 401 && this.credentials && 'password' in this.credentials) {
          return this.adopt(await this.postJson('/api/auth/login', this.loginBody()));
        }
        throw e;
      }
    });
  }

  /** Revokes the refresh token and forgets the session. */
  async signOut(): Promise<void> {
    const s = this.session;
    if (!s) return;
    await this.send(
      new Request(`${this.baseUrl}/api/auth/logout`, {
        method: 'POST',
        ...this.cookieInit({ 'content-type': 'application/json' }),
        body: JSON.stringify(this.opts.refreshCookie ? {} : { refresh_token: s.refreshToken }),
      }),
    );
    this.session = undefined;
    await this.opts.onSession?.(null);
  }

  private loginBody() {
    const c = this.credentials as { email: string; password: string; organisationId?: string };
    return { email: c.email, password: c.password, ...(c.organisationId && { organisation_id: c.organisationId }) };
  }

  /** One sign-in or refresh at a time: concurrent callers share it. */
  private single(run: () => Promise<Session>): Promise<Session> {
    if (!this.pending)
      this.pending = run().finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  private async adopt(body: any): Promise<Session> {
    const session: Session = {
      accessToken: body.access_token,
      refreshToken: body.refresh_token,
      ...(typeof body.expires_in === 'number' && { accessExpiresAt: new Date(Date.now() + body.expires_in * 1000).toISOString() }),
      ...(body.organisation_id && { organisationId: body.organisation_id }),
    };
    this.session = session;
    await this.opts.onSession?.(session);
    return session;
  }

  /** Headers (and credentials) of the auth calls: with `refreshCookie`, the opt-in header and same-origin cookies. */
  private cookieInit(headers: Record<string, string>): { headers: Record<string, string>; credentials?: RequestInit['credentials'] } {
    return this.opts.refreshCookie ? { headers: { ...headers, 'x-refresh-cookie': '1' }, credentials: 'same-origin' } : { headers };
  }

  private async postJson(path: string, payload: unknown): Promise<any> {
    const res = await this.send(
      new Request(`${this.baseUrl}${path}`, { method: 'POST', ...this.cookieInit({ 'content-type': 'application/json' }), body: JSON.stringify(payload) }),
      { anonymous: true, retryRateLimitedWrites: true },
    );
    return res.json();
  }

  /** The access token to send, signing in or refreshing first when needed. */
  private async bearer(): Promise<string | undefined> {
    const c = this.credentials;
    if (c && 'apiKey' in c) return c.apiKey;
    // With the refresh cookie a session may come from `refresh()` alone (restored after a reload).
    if (!c && !this.opts.refreshCookie) return undefined;
    if (this.pending) await this.pending.catch(() => {});
    if (!this.session) return c ? (await this.signIn()).accessToken : undefined;
    const exp = this.session.accessExpiresAt ? Date.parse(this.session.accessExpiresAt) : NaN;
    if (!Number.isNaN(exp) && exp - Date.now() < (this.opts.refreshSkewMs ?? 30_000)) return (await this.refresh()).accessToken;
    return this.session.accessToken;
  }

  /**
   * Sends a request: credentials, X-Request-Id, one transparent refresh on 401, retries of 429 and
   * 503 (idempotent methods, or a write carrying Idempotency-Key) honouring Retry-After. Resolves
   * with a 2xx response; rejects with ApiError or ConnectionError.
   */
  async send(request: Request, opts: SendOptions = {}): Promise<Response> {
    const method = request.method.toUpperCase();
    const requestId = request.headers.get('x-request-id') ?? (this.opts.requestId ?? (() => globalThis.crypto.randomUUID()))();
    const canRetry = IDEMPOTENT.has(method) || request.headers.has('idempotency-key');
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      const req = request.clone();
      req.headers.set('x-request-id', requestId);
      if (this.opts.userAgent) req.headers.set('user-agent', this.opts.userAgent);
      let usedToken: string | undefined;
      if (!opts.anonymous && !req.headers.has('authorization')) {
        usedToken = await this.bearer();
        if (usedToken) req.headers.set('authorization', `Bearer ${usedToken}`);
      }
      let res: Response;
      try {
        res = await this.rawFetch(req);
      } catch (e) {
        // The request may or may not have arrived: only an idempotent one is sent again.
        if (canRetry && attempt < this.retries) {
          await this.sleep(this.delayFor(attempt, undefined)!);
          continue;
        }
        throw new ConnectionError(method, request.url, e);
      }
      if (res.ok) return res;
      if (res.status === 401 && usedToken && !refreshed && this.session && usedToken === this.session.accessToken) {
        // The access token expired or was revoked: rotate once and replay.
        await res.body?.cancel();
        refreshed = true;
        await this.refresh();
        attempt--;
        continue;
      }
      if (res.status === 401 && usedToken && !refreshed && this.session && usedToken !== this.session.accessToken) {
        // Another call rotated meanwhile: replay with the new token.
        await res.body?.cancel();
        refreshed = true;
        attempt--;
        continue;
      }
      const retryable = RETRYABLE.has(res.status) && (canRetry || (res.status === 429 && opts.retryRateLimitedWrites));
      const wait = retryable && attempt < this.retries ? this.delayFor(attempt, parseRetryAfter(res.headers.get('retry-after'))) : undefined;
      if (wait !== undefined) {
        await res.body?.cancel();
        await this.sleep(wait);
        continue;
      }
      throw await errorFrom(res, method, requestId);
    }
  }
}
