// Sessions (login families) and the refresh-token allowlist. Every function takes the
// organisation first; the organisation of a presented token comes from its verified claims.
import type { Queryable } from '../../infra/db/index.ts';

export type SessionMethod = 'password' | 'invitation' | 'sso';

export interface SessionRow {
  id: string;
  org_id: string;
  user_id: string;
  method: SessionMethod;
  email: string | null;
  sso_groups: string[] | null;
  created_at: Date;
  revoked_at: Date | null;
  revoked_reason: string | null;
}

export interface RefreshRow {
  id: string;
  session_id: string;
  issued_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

const SESSION_COLS = 'id, org_id, user_id, method, email, sso_groups, created_at, revoked_at, revoked_reason';

export function createSessionStore(db: Queryable) {
  return {
    async create(
      orgId: string,
      s: { id: string; userId: string; method: SessionMethod; email?: string | null; ssoGroups?: string[]; now: Date },
    ): Promise<void> {
      await db.query(
        `insert into auth_sessions (id, org_id, user_id, method, email, sso_groups, created_at)
         values ($1, $2, $3, $4, $5, $6, $7)`,
        [s.id, orgId, s.userId, s.method, s.email ?? null, s.ssoGroups ? JSON.stringify(s.ssoGroups) : null, s.now],
      );
    },

    async get(orgId: string, sessionId: string): Promise<SessionRow | null> {
      const r = await db.query<SessionRow>(`select ${SESSION_COLS} from auth_sessions where org_id = $1 and id = $2`, [orgId, sessionId]);
      return r.rows[0] ?? null;
    },

    /** Revokes the session (idempotent: the first reason stays). True when this call revoked it. */
    async revoke(orgId: string, sessionId: string, reason: string, now: Date): Promise<boolean> {
      const r = await db.query(
        `update auth_sessions set revoked_at = $3, revoked_reason = $4
         where org_id = $1 and id = $2 and revoked_at is null`,
        [orgId, sessionId, now, reason],
      );
      return r.rowCount > 0;
    },

    async addRefresh(orgId: string, t: { id: string; sessionId: string; issuedAt: Date; expiresAt: Date }): Promise<void> {
      await db.query(`insert into refresh_tokens (id, session_id, org_id, issued_at, expires_at) values ($1, $2, $3, $4, $5)`, [
        t.id,
        t.sessionId,
        orgId,
        t.issuedAt,
        t.expiresAt,
      ]);
    },

    async getRefresh(orgId: string, id: string): Promise<RefreshRow | null> {
      const r = await db.query<RefreshRow>('select id, session_id, issued_at, expires_at, used_at from refresh_tokens where org_id = $1 and id = $2', [
        orgId,
        id,
      ]);
      return r.rows[0] ?? null;
    },

    /**
     * Marks the token used, atomically: of two concurrent presentations only one wins, and the
     * other is then seen as reuse. False when it was already used.
     */
    async consumeRefresh(orgId: string, id: string, now: Date): Promise<boolean> {
      const r = await db.query('update refresh_tokens set used_at = $3 where org_id = $1 and id = $2 and used_at is null', [orgId, id, now]);
      return r.rowCount > 0;
    },

    /**
     * Forgets allowlist rows long past expiry (a used row must outlive its token to detect reuse),
     * then sessions left without any: every token they issued has expired.
     */
    async pruneExpired(orgId: string, before: Date): Promise<void> {
      await db.query('delete from refresh_tokens where org_id = $1 and expires_at < $2', [orgId, before]);
      await db.query(
        `delete from auth_sessions s where s.org_id = $1 and s.created_at < $2
         and not exists (select 1 from refresh_tokens t where t.session_id = s.id)`,
        [orgId, before],
      );
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;

/**
 * The revocation state of a session by id alone: the one lookup that cannot know the organisation
 * in advance (it runs inside the platform guard, before the request context exists). It reads one
 * row by primary key and returns nothing but a boolean.
 */
export async function sessionRevokedById(db: Queryable, sessionId: string): Promise<boolean> {
  const r = await db.query<{ revoked: boolean }>('select (revoked_at is not null) as revoked from auth_sessions where id = $1', [sessionId]);
  // A session we have no record of is not trusted.
  return r.rows[0]?.revoked ?? true;
}
