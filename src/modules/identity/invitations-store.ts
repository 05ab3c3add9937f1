// Invitations to join an organisation. Tokens are stored as SHA-256 hashes only.
import type { Queryable } from '../../infra/db/index.ts';
import type { Role } from '../../platform/roles.ts';

export interface InvitationRow {
  id: string;
  org_id: string;
  email: string;
  role: Role;
  created_by: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  accepted_user_id: string | null;
  revoked_at: Date | null;
}

export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired';

export function statusOf(inv: InvitationRow, now: Date): InvitationStatus {
  if (inv.accepted_at) return 'accepted';
  if (inv.revoked_at) return 'revoked';
  return inv.expires_at.getTime() <= now.getTime() ? 'expired' : 'pending';
}

const COLS = 'id, org_id, email, role, created_by, created_at, expires_at, accepted_at, accepted_user_id, revoked_at';

export function createInvitationStore(db: Queryable) {
  return {
    async create(
      orgId: string,
      i: { id: string; email: string; role: Role; tokenHash: string; createdBy: string | null; now: Date; expiresAt: Date },
    ): Promise<InvitationRow> {
      const r = await db.query<InvitationRow>(
        `insert into invitations (id, org_id, email, role, token_hash, created_by, created_at, expires_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8) returning ${COLS}`,
        [i.id, orgId, i.email, i.role, i.tokenHash, i.createdBy, i.now, i.expiresAt],
      );
      return r.rows[0];
    },

    async list(orgId: string): Promise<InvitationRow[]> {
      const r = await db.query<InvitationRow>(`select ${COLS} from invitations where org_id = $1 order by created_at desc, id`, [orgId]);
      return r.rows;
    },

    async get(orgId: string, id: string): Promise<InvitationRow | null> {
      const r = await db.query<InvitationRow>(`select ${COLS} from invitations where org_id = $1 and id = $2`, [orgId, id]);
      return r.rows[0] ?? null;
    },

    async pendingExists(orgId: string, email: string, now: Date): Promise<boolean> {
      const r = await db.query(
        `select 1 from invitations where org_id = $1 and lower(email) = lower($2)
         and accepted_at is null and revoked_at is null and expires_at > $3`,
        [orgId, email, now],
      );
      return r.rows.length > 0;
    },

    /**
     * The invitation a presented token belongs to. The token is what names the organisation here
     * (the invitee has no credential yet), so this lookup is by hash alone.
     */
    async byTokenHash(tokenHash: string): Promise<InvitationRow | null> {
      const r = await db.query<InvitationRow>(`select ${COLS} from invitations where token_hash = $1`, [tokenHash]);
      return r.rows[0] ?? null;
    },

    async revoke(orgId: string, id: string, now: Date): Promise<boolean> {
      const r = await db.query('update invitations set revoked_at = $3 where org_id = $1 and id = $2 and accepted_at is null and revoked_at is null', [
        orgId,
        id,
        now,
      ]);
      return r.rowCount > 0;
    },

    /** Single use: only a pending, unexpired invitation is marked, and only once. */
    async accept(orgId: string, id: string, userId: string, now: Date): Promise<boolean> {
      const r = await db.query(
        `update invitations set accepted_at = $4, accepted_user_id = $3
         where org_id = $1 and id = $2 and accepted_at is null and revoked_at is null and expires_at > $4`,
        [orgId, id, userId, now],
      );
      return r.rowCount > 0;
    },
  };
}
