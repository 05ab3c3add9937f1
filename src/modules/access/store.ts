// Site access grants: one persona per user and site, within one organisation.
import type { Queryable } from '../../infra/db/index.ts';

/** A grant as stored; the member's email comes from the identity module (decision 0356). */
export interface SiteAccessRow {
  site_id: string;
  user_id: string;
  persona: string;
  granted_by: string | null;
  created_at: Date;
  updated_at: Date;
}

// A grant's membership is its foreign key (removing the membership removes the grant), so every
// answer stays inside the organisation.
const SELECT = 'select a.site_id, a.user_id, a.persona, a.granted_by, a.created_at, a.updated_at from site_access a';

export function createSiteAccessStore(db: Queryable) {
  return {
    async list(orgId: string, f: { siteId?: string; userId?: string }): Promise<SiteAccessRow[]> {
      const r = await db.query<SiteAccessRow>(
        `${SELECT} where a.org_id = $1 and ($2::text is null or a.site_id = $2) and ($3::text is null or a.user_id = $3)
         order by a.site_id, a.user_id`,
        [orgId, f.siteId ?? null, f.userId ?? null],
      );
      return r.rows;
    },

    async get(orgId: string, siteId: string, userId: string): Promise<SiteAccessRow | null> {
      const r = await db.query<SiteAccessRow>(`${SELECT} where a.org_id = $1 and a.site_id = $2 and a.user_id = $3`, [orgId, siteId, userId]);
      return r.rows[0] ?? null;
    },

    async upsert(orgId: string, g: { siteId: string; userId: string; persona: string; by: string | null; now: Date }) {
      await db.query(
        `insert into site_access (org_id, site_id, user_id, persona, granted_by, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $6)
         on conflict (org_id, site_id, user_id) do update set persona = excluded.persona,
           granted_by = excluded.granted_by, updated_at = excluded.updated_at`,
        [orgId, g.siteId, g.userId, g.persona, g.by, g.now],
      );
    },

    async remove(orgId: string, siteId: string, userId: string): Promise<{ persona: string } | null> {
      const r = await db.query<{ persona: string }>('delete from site_access where org_id = $1 and site_id = $2 and user_id = $3 returning persona', [
        orgId,
        siteId,
        userId,
      ]);
      return r.rows[0] ?? null;
    },
  };
}
