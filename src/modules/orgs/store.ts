// Organisations: the tenants. Created by the provisioning CLI (the API has no sign-up).
import type { Queryable } from '../../infra/db/index.ts';

export const MODULES = ['field', 'crm', 'ems/routing'] as const;
export type OrgModule = (typeof MODULES)[number];

export type Realm = 'production' | 'demo';

/** The spec's rule: demo organisations are `demo-*`; every other organisation is production. */
export const realmForId = (id: string): Realm => (id.startsWith('demo-') ? 'demo' : 'production');

export interface Organisation {
  id: string;
  name: string;
  realm: Realm;
  modules: string[];
  plan_limits: Record<string, number>;
  created_at: Date;
}

export function createOrgStore(db: Queryable) {
  return {
    async get(id: string): Promise<Organisation | null> {
      const r = await db.query<Organisation>('select id, name, realm, modules, plan_limits, created_at from organisations where id = $1', [id]);
      return r.rows[0] ?? null;
    },
    /** What the platform's gates need: enabled modules and realm; null when it does not exist. */
    async gatesOf(id: string): Promise<{ modules: string[]; realm: Realm } | null> {
      const r = await db.query<{ modules: string[]; realm: Realm }>('select modules, realm from organisations where id = $1', [id]);
      return r.rows[0] ?? null;
    },
    /** The organisation's name; null when it does not exist. */
    async nameOf(id: string): Promise<string | null> {
      return (await db.query<{ name: string }>('select name from organisations where id = $1', [id])).rows[0]?.name ?? null;
    },
    /** Locks the organisation row (in the transaction `db` is) and returns its plan limits; null if absent. */
    async lockPlanLimits(id: string): Promise<Record<string, number> | null> {
      const r = await db.query<{ plan_limits: Record<string, number> }>('select plan_limits from organisations where id = $1 for update', [id]);
      return r.rows[0]?.plan_limits ?? null;
    },
    /** Creates the organisation (its realm from its id), or updates its name and adds modules when it exists. */
    async upsert(org: { id: string; name: string; modules?: string[]; planLimits?: Record<string, number> }) {
      const r = await db.query<Organisation>(
        `insert into organisations (id, name, modules, plan_limits, realm) values ($1, $2, $3, $4, $5)
         on conflict (id) do update set name = excluded.name,
           modules = (select array(select distinct unnest(organisations.modules || excluded.modules) order by 1)),
           plan_limits = organisations.plan_limits || excluded.plan_limits
         returning id, name, realm, modules, plan_limits, created_at`,
        [org.id, org.name, org.modules ?? [], JSON.stringify(org.planLimits ?? {}), realmForId(org.id)],
      );
      return r.rows[0];
    },
    async setModules(id: string, modules: string[]) {
      const r = await db.query<Organisation>(
        'update organisations set modules = $2 where id = $1 returning id, name, realm, modules, plan_limits, created_at',
        [id, modules],
      );
      return r.rows[0] ?? null;
    },
    async list(): Promise<Organisation[]> {
      return (await db.query<Organisation>('select id, name, realm, modules, plan_limits, created_at from organisations order by id')).rows;
    },
  };
}

export type OrgStore = ReturnType<typeof createOrgStore>;
