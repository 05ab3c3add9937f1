// Single sign-on configuration: one identity provider per organisation and its group-to-role
// mappings. The exchange finds the organisation from the token's tenant id (tid), which is
// unique across organisations; that lookup is the one query not scoped by organisation.
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
}

export interface MappingRow {
  id: string;
  group_id: string;
  role: Role;
  created_by: string | null;
  created_at: Date;
}

export interface ProviderInput {
  tid: string;
  issuer: string;
  application_id: string;
  jwks_url: string | null;
  discovery_url: string | null;
  enabled: boolean;
}

const PROVIDER_COLS = 'org_id, tid, issuer, application_id, jwks_url, discovery_url, enabled, created_at, updated_at, updated_by';

export function createSsoStore(db: Queryable) {
  return {
    async provider(orgId: string): Promise<ProviderRow | null> {
      const r = await db.query<ProviderRow>(`select ${PROVIDER_COLS} from sso_providers where org_id = $1`, [orgId]);
      return r.rows[0] ?? null;
    },

    /** The organisation that configured this provider tenant, whatever its state. */
    async providerByTid(tid: string): Promise<ProviderRow | null> {
      const r = await db.query<ProviderRow>(`select ${PROVIDER_COLS} from sso_providers where tid = $1`, [tid]);
      return r.rows[0] ?? null;
    },

    /** True when another organisation already holds this provider tenant. */
    async tidTakenElsewhere(orgId: string, tid: string): Promise<boolean> {
      const r = await db.query('select 1 from sso_providers where tid = $1 and org_id <> $2', [tid, orgId]);
      return r.rows.length > 0;
    },

    async upsertProvider(orgId: string, p: ProviderInput, by: string | null, now: Date): Promise<ProviderRow> {
      const r = await db.query<ProviderRow>(
        `insert into sso_providers (org_id, tid, issuer, application_id, jwks_url, discovery_url, enabled, created_at, updated_at, updated_by)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9)
         on conflict (org_id) do update set tid = excluded.tid, issuer = excluded.issuer,
           application_id = excluded.application_id, jwks_url = excluded.jwks_url,
           discovery_url = excluded.discovery_url, enabled = excluded.enabled,
           updated_at = excluded.updated_at, updated_by = excluded.updated_by
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
      const r = await db.query<{ role: Role }>(
        'select distinct role from sso_group_mappings where org_id = $1 and group_id = any($2::text[]) order by role',
        [orgId, groupIds],
      );
      return r.rows.map((x) => x.role);
    },
  };
}

export type SsoStore = ReturnType<typeof createSsoStore>;
