// SQL for VPP enrolment. Every function takes the organisation first and filters on it.
import type { Queryable } from '../../infra/db/index.ts';

export interface EnrolmentRow {
  site_id: string;
  status: 'enrolled' | 'withdrawn';
  region: string;
  enrolled_at: Date;
  enrolled_by: string | null;
  withdrawn_at: Date | null;
  withdrawn_by: string | null;
  updated_at: Date;
}

const COLUMNS = 'site_id, status, region, enrolled_at, enrolled_by, withdrawn_at, withdrawn_by, updated_at';

/** Sites' VPP enrolments. */
export const enrolmentStore = {
  async getEnrolment(q: Queryable, orgId: string, siteId: string, forUpdate = false): Promise<EnrolmentRow | null> {
    const r = await q.query<EnrolmentRow>(`select ${COLUMNS} from vpp_enrolments where org_id = $1 and site_id = $2${forUpdate ? ' for update' : ''}`, [
      orgId,
      siteId,
    ]);
    return r.rows[0] ?? null;
  },

  /** Enrols (or re-enrols) a site; an enrolled site keeps its enrolment time and takes the new region. */
  async upsertEnrolment(q: Queryable, orgId: string, siteId: string, region: string, by: string | null, at: Date): Promise<EnrolmentRow> {
    const r = await q.query<EnrolmentRow>(
      `insert into vpp_enrolments (org_id, site_id, status, region, enrolled_at, enrolled_by, updated_at)
       values ($1, $2, 'enrolled', $3, $5, $4, $5)
       on conflict (org_id, site_id) do update set
         region = excluded.region,
         enrolled_at = case when vpp_enrolments.status = 'enrolled' then vpp_enrolments.enrolled_at else excluded.enrolled_at end,
         enrolled_by = case when vpp_enrolments.status = 'enrolled' then vpp_enrolments.enrolled_by else excluded.enrolled_by end,
         status = 'enrolled',
         withdrawn_at = null,
         withdrawn_by = null,
         updated_at = excluded.updated_at
       returning ${COLUMNS}`,
      [orgId, siteId, region, by, at],
    );
    return r.rows[0];
  },

  async withdrawEnrolment(q: Queryable, orgId: string, siteId: string, by: string | null, at: Date): Promise<EnrolmentRow | null> {
    const r = await q.query<EnrolmentRow>(
      `update vpp_enrolments set status = 'withdrawn', withdrawn_at = $3, withdrawn_by = $4, updated_at = $3
       where org_id = $1 and site_id = $2 and status = 'enrolled'
       returning ${COLUMNS}`,
      [orgId, siteId, at, by],
    );
    return r.rows[0] ?? null;
  },
};
