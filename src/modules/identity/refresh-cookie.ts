// The console's refresh token in an HttpOnly cookie (decision 0365), an opt-in beside the spec's
// body tokens: a request with `X-Refresh-Cookie: 1` gets its refresh token in the cookie
// `__Secure-ep_refresh` (HttpOnly; Secure; SameSite=Strict; Path=/api/auth) and `""` in the
// body's `refresh_token`; refresh and logout take the cookie only with that header and no body
// token. Without the header nothing changes for API clients.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors, fieldError } from '../../platform/errors.ts';
import { REFRESH_TTL_SECONDS } from './tokens.ts';

export const REFRESH_COOKIE = '__Secure-ep_refresh';
/** The request header that opts in (a plain link or form cannot send it). */
export const REFRESH_COOKIE_HEADER = 'x-refresh-cookie';
const ATTRIBUTES = 'HttpOnly; Secure; SameSite=Strict; Path=/api/auth';

/** Whether the caller asked for the cookie (`X-Refresh-Cookie: 1`). */
export function wantsCookie(req: FastifyRequest): boolean {
  return req.headers[REFRESH_COOKIE_HEADER] === '1';
}

/** The refresh cookie's value, or null; the first of duplicates (the most specific path, RFC 6265 5.4). */
export function cookieToken(req: FastifyRequest): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0 || part.slice(0, i).trim() !== REFRESH_COOKIE) continue;
    const value = part.slice(i + 1).trim();
    // Tokens are base64url JWTs: anything else is not one of ours.
    return /^[A-Za-z0-9._-]{1,4096}$/.test(value) ? value : null;
  }
  return null;
}

export function setCookie(reply: FastifyReply, token: string, maxAgeSeconds = REFRESH_TTL_SECONDS): void {
  reply.header('set-cookie', `${REFRESH_COOKIE}=${token}; Max-Age=${maxAgeSeconds}; ${ATTRIBUTES}`);
}

export const CLEARED_COOKIE = `${REFRESH_COOKIE}=; Max-Age=0; ${ATTRIBUTES}`;
export function clearCookie(reply: FastifyReply): void {
  reply.header('set-cookie', CLEARED_COOKIE);
}

/** The refresh token the request presents: the body's, else the cookie's where the caller opted in. */
export function presentedRefresh(req: FastifyRequest, body: { refresh_token?: string }): { token: string; via: 'body' | 'cookie' } {
  if (body.refresh_token !== undefined) return { token: body.refresh_token, via: 'body' };
  const fromCookie = wantsCookie(req) ? cookieToken(req) : null;
  if (fromCookie) return { token: fromCookie, via: 'cookie' };
  // The answer the body schema gives when `refresh_token` is missing (the spec's 422).
  throw errors.validation([fieldError(['body', 'refresh_token'], 'Field required', body, 'missing')]);
}
