// Sign-in, token refresh, logout and the caller's identity context.
import { BEARER, withDefaults } from '../../../platform/operation.ts';
import { bodyTo } from '../../../platform/resource.ts';
import type { Db } from '../../../infra/db/index.ts';
import { LoginBody, LogoutResponse, MeResponse, RefreshBody, RefreshBodyOrCookie, TokenResponse } from '../schemas.ts';
import type { createLogin } from '../login.ts';
import type { Sessions } from '../sessions.ts';
import { identityContext } from '../me.ts';
import { AppError } from '../../../platform/errors.ts';
import { clearCookie, presentedRefresh, setCookie, wantsCookie } from '../refresh-cookie.ts';

/** How the opt-in refresh cookie is described in each of the three operations (decision 0365). */
const COOKIE_NOTE = ' **Refresh cookie (the console; an extension, decision 0365):** with the request header `X-Refresh-Cookie: 1` ';

const tags = ['auth'];

const op = withDefaults({ tags, status: 'live' });

export function authOperations(deps: { db: Db; login: ReturnType<typeof createLogin>; sessions: Sessions }) {
  return [
    op({
      operationId: 'login',
      method: 'POST',
      path: '/api/auth/login',
      summary: 'Sign in with email and password',
      description:
        'Returns an access token (JWT HS256, 60 minutes) and a single-use refresh token (7 days). ' +
        '`organisation_id` is required when the account belongs to several organisations: without it the answer is ' +
        '422 with a field error at `body.organisation_id`. A wrong password and an unknown email get the same 401 ' +
        '`Invalid email or password`. 5 consecutive failures lock the email for 15 minutes: 423 ' +
        '`Account locked. Try again later.` whatever the password. Limited to 5 requests per minute per source ' +
        'IP across the authentication operations (429 with Retry-After; not counted as a failure).' +
        COOKIE_NOTE +
        'the answer\'s `refresh_token` is `""` and the refresh token is set in the cookie `__Secure-ep_refresh` ' +
        '(HttpOnly; Secure; SameSite=Strict; Path=/api/auth; Max-Age its life). Without the header nothing changes.',
      access: { kind: 'public' },
      rateLimit: 'auth',
      schema: bodyTo(LoginBody, TokenResponse),
      responseHeaders: { 'Set-Cookie': { description: 'With `X-Refresh-Cookie: 1` only: the refresh cookie.', schema: { type: 'string' } } },
      handler: async ({ body, ctx, req, reply }) => {
        const tokens = await deps.login.login(ctx, body);
        if (!wantsCookie(req)) return tokens;
        setCookie(reply, tokens.refresh_token, tokens.refresh_expires_in);
        return { ...tokens, refresh_token: '' };
      },
    }),
    op({
      operationId: 'refreshToken',
      method: 'POST',
      path: '/api/auth/token/refresh',
      summary: 'Exchange a refresh token for new access and refresh tokens',
      description:
        'The presented refresh token is used up: it is valid only while its `jti` is in the allowlist and only ' +
        'once. Presenting a refresh token that was already used revokes every token of the same sign-in (reuse ' +
        'detection; audited as `auth.token.reuse`) and answers 401. Roles are read afresh: a removed membership ' +
        'or a disabled account ends the session.' +
        COOKIE_NOTE +
        "and `{}` as the body, the refresh token is read from the cookie `__Secure-ep_refresh`; the answer's " +
        '`refresh_token` is `""` and the rotated one is set in the cookie. A refused cookie token answers the same 401 ' +
        'and clears the cookie. A refresh token in the body always wins (the cookie is then ignored); without the ' +
        'header the cookie is never read.',
      access: { kind: 'public' },
      rateLimit: 'auth',
      // `refresh_token` may be left out only for the cookie (checked in the handler, with the schema's own 422).
      schema: bodyTo(RefreshBodyOrCookie, TokenResponse),
      documentedBody: RefreshBody,
      responseHeaders: {
        'Set-Cookie': {
          description: 'With `X-Refresh-Cookie: 1` and the cookie only: the rotated refresh cookie, or its clearing.',
          schema: { type: 'string' },
        },
      },
      handler: async ({ body, ctx, req, reply }) => {
        const presented = presentedRefresh(req, body);
        if (presented.via === 'body') return deps.sessions.refresh(ctx, presented.token);
        try {
          const tokens = await deps.sessions.refresh(ctx, presented.token);
          setCookie(reply, tokens.refresh_token, tokens.refresh_expires_in);
          return { ...tokens, refresh_token: '' };
        } catch (e) {
          if (e instanceof AppError && e.status === 401) clearCookie(reply);
          throw e;
        }
      },
    }),
    op({
      operationId: 'logout',
      method: 'POST',
      path: '/api/auth/logout',
      summary: 'End the session of a refresh token',
      description:
        'Revokes the sign-in the refresh token belongs to (which must be the caller’s own): the refresh token ' +
        'and every access token of that sign-in stop working at once. Repeating it answers 200 again.' +
        COOKIE_NOTE +
        'and `{}` as the body, the refresh token is read from the cookie `__Secure-ep_refresh`, and the answer (200 ' +
        'or 401) clears the cookie. A refresh token in the body wins.',
      access: BEARER.read,
      schema: bodyTo(RefreshBodyOrCookie, LogoutResponse),
      documentedBody: RefreshBody,
      responseHeaders: { 'Set-Cookie': { description: 'With `X-Refresh-Cookie: 1` only: the refresh cookie cleared.', schema: { type: 'string' } } },
      handler: async ({ body, ctx, req, reply }) => {
        const presented = presentedRefresh(req, body);
        if (wantsCookie(req)) clearCookie(reply);
        return deps.sessions.logout(ctx, presented.token);
      },
    }),
    op({
      operationId: 'getMe',
      method: 'GET',
      path: '/api/auth/me',
      summary: 'Identity context of the token',
      description: 'User id, email, organisation, roles, every membership of the account, platform flags and session.',
      access: BEARER.read,
      schema: { response: { 200: MeResponse } },
      handler: async ({ ctx }) => identityContext(deps.db, ctx),
    }),
  ];
}
