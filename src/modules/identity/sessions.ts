// Sessions: a sign-in starts a family; refresh rotates its single-use refresh token; logout and
// reuse detection revoke the family, which ends every access and refresh token descended from it.
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { Role } from '../../platform/roles.ts';
import type { AuditActor, AuditLog } from '../audit/index.ts';
import { createSessionStore, type SessionMethod, type SessionRow } from './sessions-store.ts';
import { createUserStore, type User } from './users-store.ts';
import { createSsoStore } from './sso-store.ts';
import { ACCESS_TTL_SECONDS, REFRESH_TTL_SECONDS, refreshTokenId, type TokenIssuer } from './tokens.ts';
import type { SessionRevocations } from './session-checker.ts';
import { identityErrors } from './errors.ts';

export interface TokenResponse {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
  refresh_expires_in: number;
  organisation_id: string;
  roles: Role[];
}

export interface NewSession {
  userId: string;
  method: SessionMethod;
  email?: string | null;
  roles: Role[];
  staff?: boolean;
  admin?: boolean;
  ssoGroups?: string[];
}

/** The audit actor of a signed-in user acting through a request. */
export function userActor(orgId: string, userId: string, ctx: Pick<RequestContext, 'requestId' | 'ip'>): AuditActor {
  return { orgId, actorType: 'user', actorId: userId, requestId: ctx.requestId, ip: ctx.ip };
}

/** A local account's session in one organisation with one role: its email and platform flags from the account. */
export function localSession(user: User, method: SessionMethod, role: Role): NewSession {
  return { userId: user.id, method, email: user.email, roles: [role], staff: user.platform_staff, admin: user.platform_admin };
}

export interface SessionDeps {
  db: Db;
  clock: Clock;
  issuer: TokenIssuer;
  audit: AuditLog;
  revocations: SessionRevocations;
}

/** What the session may do now: membership and flags re-read, SSO groups re-mapped. */
export async function currentAccess(q: Queryable, session: SessionRow) {
  if (session.method === 'sso') {
    const sso = createSsoStore(q);
    const provider = await sso.provider(session.org_id);
    if (!provider?.enabled) return null;
    const roles = await sso.rolesFor(session.org_id, session.sso_groups ?? []);
    return roles.length ? { roles, staff: false, admin: false } : null;
  }
  const users = createUserStore(q);
  const user = await users.byId(session.user_id);
  if (!user || user.disabled) return null;
  const m = await users.membershipIn(session.org_id, user.id);
  return m ? { roles: [m.role], staff: user.platform_staff, admin: user.platform_admin } : null;
}

/**
 * Whether a session still grants access, read from the store now: `revoked` (logout, refresh-token
 * reuse, access withdrawn at a refresh), `withdrawn` (the user disabled or no longer a member, the SSO
 * provider off or its mappings no longer giving a role), or `active` with the roles it holds now.
 */
export type SessionState = { state: 'revoked' } | { state: 'withdrawn' } | { state: 'active'; roles: Role[] };

export async function sessionState(q: Queryable, orgId: string, sessionId: string): Promise<SessionState> {
  const session = await createSessionStore(q).get(orgId, sessionId);
  if (!session || session.revoked_at) return { state: 'revoked' };
  const access = await currentAccess(q, session);
  return access ? { state: 'active', roles: access.roles } : { state: 'withdrawn' };
}

export function createSessions(deps: SessionDeps) {
  const { db, clock, issuer, audit, revocations } = deps;

  async function issue(q: Queryable, orgId: string, sessionId: string, s: Omit<NewSession, 'method'>): Promise<TokenResponse> {
    const now = clock.now();
    const refresh = await issuer.refresh({ userId: s.userId, orgId, sessionId }, now);
    await createSessionStore(q).addRefresh(orgId, { id: refresh.id, sessionId, issuedAt: now, expiresAt: refresh.expiresAt });
    const access = await issuer.access({ userId: s.userId, orgId, roles: s.roles, sessionId, staff: s.staff, admin: s.admin }, now);
    return {
      access_token: access,
      token_type: 'bearer',
      expires_in: ACCESS_TTL_SECONDS,
      refresh_token: refresh.token,
      refresh_expires_in: REFRESH_TTL_SECONDS,
      organisation_id: orgId,
      roles: s.roles,
    };
  }

  return {
    /** Starts a family inside the caller's transaction and returns its first tokens. */
    async start(q: Queryable, orgId: string, s: NewSession): Promise<{ sessionId: string; tokens: TokenResponse }> {
      const sessionId = randomUUID();
      const store = createSessionStore(q);
      await store.create(orgId, {
        id: sessionId,
        userId: s.userId,
        method: s.method,
        email: s.email,
        ssoGroups: s.ssoGroups,
        now: clock.now(),
      });
      // Housekeeping: allowlist rows a day past expiry can no longer matter for reuse detection.
      await store.pruneExpired(orgId, new Date(clock.now().getTime() - 24 * 3600 * 1000));
      return { sessionId, tokens: await issue(q, orgId, sessionId, s) };
    },

    async refresh(ctx: RequestContext, presented: string): Promise<TokenResponse> {
      const claims = await issuer.readRefresh(presented, clock.now());
      if (!claims) throw identityErrors.invalidRefresh();
      const orgId = claims.org_id;
      const who = userActor(orgId, claims.sub, ctx);
      const outcome = await db.tx(async (q) => {
        const store = createSessionStore(q);
        const row = await store.getRefresh(orgId, refreshTokenId(claims.jti));
        if (!row || row.session_id !== claims.sid) return { kind: 'refused' as const };
        const session = await store.get(orgId, claims.sid);
        if (!session || session.revoked_at) return { kind: 'refused' as const };
        if (!(await store.consumeRefresh(orgId, row.id, clock.now()))) {
          // Presented twice: someone holds a copy. End the whole family.
          await store.revoke(orgId, session.id, 'refresh_token_reuse', clock.now());
          await audit.record(q, who, {
            action: 'auth.token.reuse',
            targetType: 'session',
            targetId: session.id,
            details: { user_id: session.user_id, session_id: session.id, method: session.method },
          });
          return { kind: 'revoked' as const, sessionId: session.id };
        }
        const access = await currentAccess(q, session);
        if (!access) {
          await store.revoke(orgId, session.id, 'access_withdrawn', clock.now());
          return { kind: 'revoked' as const, sessionId: session.id };
        }
        return { kind: 'ok' as const, tokens: await issue(q, orgId, session.id, { userId: session.user_id, ...access }) };
      });
      if (outcome.kind === 'ok') return outcome.tokens;
      if (outcome.kind === 'revoked') await revocations.markRevoked(outcome.sessionId);
      throw identityErrors.invalidRefresh();
    },

    /** Ends the family of the presented refresh token; it must be the caller's own. */
    async logout(ctx: RequestContext, presented: string): Promise<{ status: 'ok'; message: string }> {
      const claims = await issuer.readRefresh(presented, clock.now(), false);
      const userId = ctx.actor.kind === 'user' ? ctx.actor.userId : null;
      if (!claims || claims.sub !== userId || claims.org_id !== ctx.orgId) throw identityErrors.invalidRefresh();
      const revokedNow = await db.tx(async (q) => {
        const store = createSessionStore(q);
        const session = await store.get(ctx.orgId, claims.sid);
        if (!session || session.user_id !== userId) throw identityErrors.invalidRefresh();
        const revoked = await store.revoke(ctx.orgId, session.id, 'logout', clock.now());
        if (revoked) {
          await audit.record(q, ctx, { action: 'auth.logout', targetType: 'session', targetId: session.id });
        }
        return revoked;
      });
      await revocations.markRevoked(claims.sid);
      return { status: 'ok', message: revokedNow ? 'Logged out' : 'Already logged out' };
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
