// Users and their memberships. A user may belong to several organisations with one role in each;
// platform staff and platform administrators are flags on the user, not organisation roles. The
// identity module owns both tables (decision 0356; the orgs module's first migration made them):
// other modules reach them through the MEMBERS service.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../infra/db/index.ts';
import type { Role } from '../../platform/roles.ts';

export interface User {
  id: string;
  email: string;
  password_hash: string | null;
  platform_staff: boolean;
  platform_admin: boolean;
  disabled: boolean;
  created_at: Date;
}

export interface Membership {
  org_id: string;
  role: Role;
  org_name: string;
}

const USER_COLS = 'id, email, password_hash, platform_staff, platform_admin, disabled, created_at';

export function createUserStore(db: Queryable) {
  return {
    async byEmail(email: string): Promise<User | null> {
      const r = await db.query<User>(`select ${USER_COLS} from users where lower(email) = lower($1)`, [email]);
      return r.rows[0] ?? null;
    },
    async byId(id: string): Promise<User | null> {
      const r = await db.query<User>(`select ${USER_COLS} from users where id = $1`, [id]);
      return r.rows[0] ?? null;
    },
    async create(u: { email: string; passwordHash: string | null; staff?: boolean; admin?: boolean }): Promise<User> {
      const r = await db.query<User>(
        `insert into users (id, email, password_hash, platform_staff, platform_admin)
         values ($1, $2, $3, $4, $5) returning ${USER_COLS}`,
        [randomUUID(), u.email, u.passwordHash, u.staff ?? false, u.admin ?? false],
      );
      return r.rows[0];
    },
    async update(id: string, patch: { passwordHash?: string; staff?: boolean; admin?: boolean }): Promise<void> {
      await db.query(
        `update users set password_hash = coalesce($2, password_hash),
           platform_staff = coalesce($3, platform_staff), platform_admin = coalesce($4, platform_admin)
         where id = $1`,
        [id, patch.passwordHash ?? null, patch.staff ?? null, patch.admin ?? null],
      );
    },
    /** Adds the membership, or changes the role when the user already belongs to the organisation. */
    async setMembership(userId: string, orgId: string, role: Role): Promise<void> {
      await db.query(
        `insert into memberships (user_id, org_id, role) values ($1, $2, $3)
         on conflict (user_id, org_id) do update set role = excluded.role`,
        [userId, orgId, role],
      );
    },
    /** The user's membership of one organisation, or null (org first, as every scoped query). */
    async membershipIn(orgId: string, userId: string): Promise<Membership | null> {
      const r = await db.query<Membership>(
        `select m.org_id, m.role, o.name as org_name from memberships m
         join organisations o on o.id = m.org_id where m.org_id = $1 and m.user_id = $2`,
        [orgId, userId],
      );
      return r.rows[0] ?? null;
    },
    /** A member of the organisation by email, or null when there is none in this organisation. */
    async memberByEmail(orgId: string, email: string): Promise<{ id: string; email: string; role: Role } | null> {
      const r = await db.query<{ id: string; email: string; role: Role }>(
        `select u.id, u.email, m.role from memberships m join users u on u.id = m.user_id
         where m.org_id = $1 and lower(u.email) = lower($2)`,
        [orgId, email],
      );
      return r.rows[0] ?? null;
    },
    /** A member of the organisation by user id (active accounts only), or null. */
    async memberById(orgId: string, userId: string): Promise<{ id: string; email: string; role: Role } | null> {
      const r = await db.query<{ id: string; email: string; role: Role }>(
        `select u.id, u.email, m.role from memberships m join users u on u.id = m.user_id
         where m.org_id = $1 and m.user_id = $2 and not u.disabled`,
        [orgId, userId],
      );
      return r.rows[0] ?? null;
    },
    /** Active members of the organisation holding this role, by email. */
    async membersWithRole(orgId: string, role: Role): Promise<{ id: string; email: string; role: Role }[]> {
      const r = await db.query<{ id: string; email: string; role: Role }>(
        `select u.id, u.email, m.role from memberships m join users u on u.id = m.user_id
         where m.org_id = $1 and m.role = $2 and not u.disabled order by u.email`,
        [orgId, role],
      );
      return r.rows;
    },
    /** The email of each of these users that exists, ordered by email. */
    async emails(ids: readonly string[]): Promise<{ id: string; email: string }[]> {
      if (ids.length === 0) return [];
      const r = await db.query<{ id: string; email: string }>('select id, email from users where id = any($1::text[]) order by email, id', [ids]);
      return r.rows;
    },
    async organisationName(orgId: string): Promise<string | null> {
      const r = await db.query<{ name: string }>('select name from organisations where id = $1', [orgId]);
      return r.rows[0]?.name ?? null;
    },
    async memberships(userId: string): Promise<Membership[]> {
      const r = await db.query<Membership>(
        `select m.org_id, m.role, o.name as org_name from memberships m
         join organisations o on o.id = m.org_id where m.user_id = $1 order by m.org_id`,
        [userId],
      );
      return r.rows;
    },
  };
}

export type UserStore = ReturnType<typeof createUserStore>;
