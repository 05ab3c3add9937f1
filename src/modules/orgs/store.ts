// Organisations: the tenants. Created by the provisioning CLI (the API has no sign-up).
import type { Queryable } from '../../infra/db/index.ts';

export const MODULES = ['field', 'crm', 'ems/routing'] as const;
export type OrgModule = (typeof MODULES)[number];

export interface Organisation {
  id: string;
  name: string;
  modules: string[];
  plan_limits: Record<string, number>;
  created_at: Date;
}

export function createOrgStore(db: Queryable) {
  return {
    async get(id: string): Promise<Organisation | null> {
      const r = await db.query<Organisation>(
        'select id, name, modules, plan_limits, created_at from organisations where id = $1',
        [id],
      );
      return r.rows[0] ?? null;
    },
    async modulesOf(id: string): Promise<string[] | null> {
      const r = await db.query<{ modules: string[] }>('select modules from organisations where id = $1', [id]);
      return r.rows[0]?.modules ?? null;
    },
    /** Creates the organisation, or updates its name and adds modules when it exists. */
    async upsert(org: { id: string; name: string; modules?: string[]; planLimits?: Record<string, number> }) {
      const r = await db.query<Organisation>(
        `insert into organisations (id, name, modules, plan_limits) values ($1, $2, $3, $4)
         on conflict (id) do update set name = excluded.name,
           modules = (select array(select distinct unnest(organisations.modules || excluded.modules) order by 1)),
           plan_limits = organisations.plan_limits || excluded.plan_limits
         returning id, name, modules, plan_limits, created_at`,
        [org.id, org.name, org.modules ?? [], JSON.stringify(org.planLimits ?? {})],
      );
      return r.rows[0];
    },
    async setModules(id: string, modules: string[]) {
      const r = await db.query<Organisation>(
        'update organisations set modules = $2 where id = $1 returning id, name, modules, plan_limits, created_at',
        [id, modules],
      );
      return r.rows[0] ?? null;
    },
    async list(): Promise<Organisation[]> {
      return (await db.query<Organisation>('select id, name, modules, plan_limits, created_at from organisations order by id'))
        .rows;
    },
  };
}

export type OrgStore = ReturnType<typeof createOrgStore>;
