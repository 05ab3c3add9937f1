// Row-level security by rule: every table with an org_id column gets a policy that lets the
// restricted role `eps_app` see and write only the rows of `app.org_id`. The service's own role
// (the table owner) is not subject to it, so jobs and provisioning, which run unscoped, see all.
import type { Queryable } from './index.ts';
import { APP_ROLE } from './scope.ts';

/**
 * Tables with org_id that scoped requests must read across organisations, with the reason.
 */
export const RLS_EXEMPT: Record<string, string> = {
  memberships: 'a signed-in user lists all of their own organisations (/api/auth/me)',
};

export async function applyRowLevelSecurity(q: Queryable): Promise<string[]> {
  await q.query(`do $$ begin
    if not exists (select 1 from pg_roles where rolname = '${APP_ROLE}') then
      create role ${APP_ROLE} nologin;
    end if;
  exception when duplicate_object or unique_violation then null;
  end $$`);
  // The session user must be able to SET ROLE to it.
  await q.query(`do $$ begin execute format('grant ${APP_ROLE} to %I', session_user); exception when others then null; end $$`);
  await q.query(`do $$ begin execute format('grant usage on schema %I to ${APP_ROLE}', current_schema()); end $$`);
  await q.query(`do $$ begin
    execute format('grant select, insert, update, delete on all tables in schema %I to ${APP_ROLE}', current_schema());
    execute format('grant usage, select, update on all sequences in schema %I to ${APP_ROLE}', current_schema());
    execute format('grant execute on all functions in schema %I to ${APP_ROLE}', current_schema());
  end $$`);
  const { rows } = await q.query<{ table_name: string }>(
    `select c.table_name from information_schema.columns c
       join pg_class k on k.relname = c.table_name
       join pg_namespace n on n.oid = k.relnamespace and n.nspname = c.table_schema
      where c.table_schema = current_schema() and c.column_name = 'org_id'
        and k.relkind in ('r', 'p') and not k.relispartition
      order by 1`,
  );
  const applied: string[] = [];
  for (const { table_name: t } of rows) {
    if (t in RLS_EXEMPT) continue;
    await q.query(`alter table "${t}" enable row level security`);
    const exists = await q.query(`select 1 from pg_policies where schemaname = current_schema() and tablename = $1 and policyname = 'org_isolation'`, [t]);
    if (exists.rowCount === 0) {
      await q.query(
        `create policy org_isolation on "${t}" to ${APP_ROLE}
           using (org_id = current_setting('app.org_id', true))
           with check (org_id = current_setting('app.org_id', true))`,
      );
    }
    applied.push(t);
  }
  return applied;
}
