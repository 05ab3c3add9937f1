// Sign-in, token refresh, logout and the caller's identity context.
import { defineOperation } from '../../../platform/operation.ts';
import { CAN_READ } from '../../../platform/roles.ts';
import type { Db } from '../../../infra/db/index.ts';
import { LoginBody, LogoutResponse, MeResponse, RefreshBody, TokenResponse } from '../schemas.ts';
import type { createLogin } from '../login.ts';
import type { Sessions } from '../sessions.ts';
import { identityContext } from '../me.ts';

const tags = ['auth'];

export function authOperations(deps: { db: Db; login: ReturnType<typeof createLogin>; sessions: Sessions }) {
  return [
    defineOperation({
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
        'IP across the authentication operations (429 with Retry-After; not counted as a failure).',
      tags,
      status: 'live',
      access: { kind: 'public' },
      rateLimit: 'auth',
      schema: { body: LoginBody, response: { 200: TokenResponse } },
      handler: async ({ body, ctx }) => deps.login.login(ctx, body),
    }),
    defineOperation({
      operationId: 'refreshToken',
      method: 'POST',
      path: '/api/auth/token/refresh',
      summary: 'Exchange a refresh token for new access and refresh tokens',
      description:
        'The presented refresh token is used up: it is valid only while its `jti` is in the allowlist and only ' +
        'once. Presenting a refresh token that was already used revokes every token of the same sign-in (reuse ' +
        'detection; audited as `auth.token.reuse`) and answers 401. Roles are read afresh: a removed membership ' +
        'or a disabled account ends the session.',
      tags,
      status: 'live',
      access: { kind: 'public' },
      rateLimit: 'auth',
      schema: { body: RefreshBody, response: { 200: TokenResponse } },
      handler: async ({ body, ctx }) => deps.sessions.refresh(ctx, body.refresh_token),
    }),
    defineOperation({
      operationId: 'logout',
      method: 'POST',
      path: '/api/auth/logout',
      summary: 'End the session of a refresh token',
      description:
        'Revokes the sign-in the refresh token belongs to (which must be the caller’s own): the refresh token ' +
        'and every access token of that sign-in stop working at once. Repeating it answers 200 again.',
      tags,
      status: 'live',
      access: { kind: 'bearer', roles: CAN_READ },
      schema: { body: RefreshBody, response: { 200: LogoutResponse } },
      handler: async ({ body, ctx }) => deps.sessions.logout(ctx, body.refresh_token),
    }),
    defineOperation({
      operationId: 'getMe',
      method: 'GET',
      path: '/api/auth/me',
      summary: 'Identity context of the token',
      description: 'User id, email, organisation, roles, every membership of the account, platform flags and session.',
      tags,
      status: 'live',
      access: { kind: 'bearer', roles: CAN_READ },
      schema: { response: { 200: MeResponse } },
      handler: async ({ ctx }) => identityContext(deps.db, ctx),
    }),
  ];
}
