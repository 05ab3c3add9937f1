// Access and refresh tokens: HS256 JWTs signed with the service key. `typ` keeps them apart: the
// platform guard refuses anything but an access token, and refresh accepts only a refresh token.
import { createHash, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Role } from '../../platform/roles.ts';

export const ACCESS_TTL_SECONDS = 60 * 60;
export const REFRESH_TTL_SECONDS = 7 * 24 * 60 * 60;

export interface AccessSubject {
  userId: string;
  orgId: string;
  roles: Role[];
  sessionId: string;
  staff?: boolean;
  admin?: boolean;
}

export interface RefreshClaims {
  sub: string;
  sid: string;
  jti: string;
  org_id: string;
  exp: number;
}

/** The allowlist key of a refresh token: its jti, hashed. */
export function refreshTokenId(jti: string): string {
  return createHash('sha256').update(`refresh:${jti}`).digest('hex');
}

export function createTokenIssuer(secret: string) {
  const key = new TextEncoder().encode(secret);
  return {
    async access(s: AccessSubject, now: Date): Promise<string> {
      const iat = Math.floor(now.getTime() / 1000);
      return new SignJWT({
        typ: 'access',
        tenant_id: s.orgId,
        org_id: s.orgId,
        roles: s.roles,
        sid: s.sessionId,
        ...(s.staff && { platform_staff: true }),
        ...(s.admin && { platform_admin: true }),
      })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(s.userId)
        .setIssuedAt(iat)
        .setExpirationTime(iat + ACCESS_TTL_SECONDS)
        .setJti(randomUUID())
        .sign(key);
    },

    /** A new refresh token; the caller stores `id` (the hashed jti) in the allowlist. */
    async refresh(s: { userId: string; orgId: string; sessionId: string }, now: Date) {
      const iat = Math.floor(now.getTime() / 1000);
      const jti = randomUUID();
      const token = await new SignJWT({ typ: 'refresh', sid: s.sessionId, org_id: s.orgId })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(s.userId)
        .setIssuedAt(iat)
        .setExpirationTime(iat + REFRESH_TTL_SECONDS)
        .setJti(jti)
        .sign(key);
      return { token, id: refreshTokenId(jti), expiresAt: new Date((iat + REFRESH_TTL_SECONDS) * 1000) };
    },

    /** The claims of a well-signed refresh token, or null. Expiry is checked when `checkExpiry`. */
    async readRefresh(token: string, now: Date, checkExpiry = true): Promise<RefreshClaims | null> {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          currentDate: checkExpiry ? now : new Date(0),
          requiredClaims: ['sub', 'jti', 'exp', 'sid'],
        });
        if (payload.typ !== 'refresh' || typeof payload.sid !== 'string' || typeof payload.org_id !== 'string') return null;
        return payload as unknown as RefreshClaims;
      } catch {
        return null;
      }
    },
  };
}

export type TokenIssuer = ReturnType<typeof createTokenIssuer>;
