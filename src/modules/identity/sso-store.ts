// Single sign-on configuration: one identity provider per organisation and its group-to-role
// mappings. The exchange finds the organisation from the token's tenant id (tid): the one
// verified claim of that tenant, else the pending claims (decision 0029). Those lookups, and a
// platform administrator's approval, are the queries not scoped by organisation.
import type { Queryable } from '../../infra/db/index.ts';
import type { Role } from '../../platform/roles.ts';

export interface ProviderRow {
  org_id: string;
  tid: string;
  issuer: string;
  application_id: string;
  jwks_url: string | null;
  discovery_url: string | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
  updated_by: string | null;
  /** When the claim on `tid` was proven (a completed sign-in) or approved; null while pending. */
  verified_at: Date | null;
  verified_by: string | null;
}

export interface MappingRow {
  id: string;
  group_id: string;
  role: Role;
  created_by: string | null;
  created_at: Date;
}

/** What an administrator sets of a provider. */
export type ProviderInput = Pick<ProviderRow, 'tid' | 'issuer' | 'application_id' | 'jwks_url' | 'discovery_url' | 'enabled'>;

const PROVIDER_COLS = 'org_id, tid, issuer, application_id, jwks_url, discovery_url, enabled, created_at, updated_at, updated_by, verified_at, verified_by';

export function createSsoStore(db: Queryable) {
  return {
    async provider(orgId: string): Promise<ProviderRow | null> {
      const r = await db.query<ProviderRow>(`select ${PROVIDER_COLS} from sso_providers where org_id = $1`, [orgId]);
      return r.rows[0] ?? null;
    },

    /** The organisation whose claim on this provider tenant is verified, whatever its state. */
    async verifiedByTid(tid: string): Promise<ProviderRow | null> {
      const r = await db.query<ProviderRow>(`select ${PROVIDER_COLS} from sso_providers where tid = $1 and verified_at is not null`, [tid]);
      return r.rows[0] ?? null;
    },

    /** Enabled claims on this tenant not verified yet, oldest first. */
    async pendingByTid(tid: string): Promise<ProviderRow[]> {
      const r = await db.query<ProviderRow>(
        `select ${PROVIDER_COLS} from sso_providers where tid = $1 and verified_at is null and enabled order by created_at, org_id`,
        [tid],
      );
      return r.rows;
    },

    /** Makes the organisation's pending claim the verified one; null when it is not pending any more. */
    async markVerified(orgId: string, tid: string, by: string, now: Date): Promise<ProviderRow | null> {
      const r = await db.query<ProviderRow>(
        `update sso_providers set verified_at = $3, verified_by = $4
         where org_id = $1 and tid = $2 and verified_at is null returning ${PROVIDER_COLS}`,
        [orgId, tid, now, by],
      );
      return r.rows[0] ?? null;
    },

    /** Withdraws another organisation's verified claim on the tenant; the organisation, if any. */
    async releaseTid(tid: string, exceptOrgId: string): Promise<string | null> {
      const r = await db.query<{ org_id: string }>(
        `update sso_providers set verified_at = null, verified_by = null
         where tid = $1 and org_id <> $2 and verified_at is not null returning org_id`,
        [tid, exceptOrgId],
      );
      return r.rows[0]?.org_id ?? null;
    },

    async upsertProvider(orgId: string, p: ProviderInput, by: string | null, now: Date): Promise<ProviderRow> {
      const r = await db.query<ProviderRow>(
        `insert into sso_providers (org_id, tid, issuer, application_id, jwks_url, discovery_url, enabled, created_at, updated_at, updated_by)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9)
         on conflict (org_id) do update set tid = excluded.tid, issuer = excluded.issuer,
           application_id = excluded.application_id, jwks_url = excluded.jwks_url,
           discovery_url = excluded.discovery_url, enabled = excluded.enabled,
           updated_at = excluded.updated_at, updated_by = excluded.updated_by,
           -- A claim stays verified only while it names the same tenant.
           verified_at = case when sso_providers.tid = excluded.tid then sso_providers.verified_at end,
           verified_by = case when sso_providers.tid = excluded.tid then sso_providers.verified_by end
         returning ${PROVIDER_COLS}`,
        [orgId, p.tid, p.issuer, p.application_id, p.jwks_url, p.discovery_url, p.enabled, now, by],
      );
      return r.rows[0];
    },

    async mappings(orgId: string): Promise<MappingRow[]> {
      const r = await db.query<MappingRow>(
        'select id, group_id, role, created_by, created_at from sso_group_mappings where org_id = $1 order by created_at, id',
        [orgId],
      );
      return r.rows;
    },

    /** Inserts the mapping; null when the same group already maps to the same role. */
    async addMapping(orgId: string, m: { id: string; groupId: string; role: Role; by: string | null; now: Date }) {
      const r = await db.query<MappingRow>(
        `insert into sso_group_mappings (id, org_id, group_id, role, created_by, created_at)
         values ($1, $2, $3, $4, $5, $6) on conflict (org_id, group_id, role) do nothing
         returning id, group_id, role, created_by, created_at`,
        [m.id, orgId, m.groupId, m.role, m.by, m.now],
      );
      return r.rows[0] ?? null;
    },

    async deleteMapping(orgId: string, id: string): Promise<MappingRow | null> {
      const r = await db.query<MappingRow>(
        'delete from sso_group_mappings where org_id = $1 and id = $2 returning id, group_id, role, created_by, created_at',
        [orgId, id],
      );
      return r.rows[0] ?? null;
    },

    /** The roles the given groups map to in the organisation (the union), sorted. */
    async rolesFor(orgId: string, groupIds: string[]): Promise<Role[]> {
      if (groupIds.length === 0) return [];
      const r = await db.query<{ role: Role }>('select distinct role from sso_group_mappings where org_id = $1 and group_id = any($2::text[]) order by role', [
        orgId,
        groupIds,
      ]);
      return r.rows.map((x) => x.role);
    },
  };
}

export type SsoStore = ReturnType<typeof createSsoStore>;
