-- Row-level security by rule (decision 0009): the restricted role `eps_app` that scoped requests
-- run as, its privileges on everything the migrations make from here on, and the one function a
-- migration calls for each table it makes with an org_id column. The service's own role (the table
-- owner) is not subject to the policy, so jobs and provisioning, which run unscoped, see all rows.
do $$ begin
  if not exists (select 1 from pg_roles where rolname = 'eps_app') then
    create role eps_app nologin;
  end if;
exception when duplicate_object or unique_violation then null;
end $$;

-- The session user must be able to SET ROLE to it.
do $$ begin execute format('grant eps_app to %I', session_user); exception when others then null; end $$;

do $$ begin
  execute format('grant usage on schema %I to eps_app', current_schema());
  execute format('grant select, insert, update, delete on all tables in schema %I to eps_app', current_schema());
  execute format('grant usage, select, update on all sequences in schema %I to eps_app', current_schema());
  execute format('alter default privileges in schema %I grant select, insert, update, delete on tables to eps_app', current_schema());
  execute format('alter default privileges in schema %I grant usage, select, update on sequences to eps_app', current_schema());
  execute format('alter default privileges in schema %I grant execute on functions to eps_app', current_schema());
end $$;

create or replace function enable_org_isolation(t text) returns void language plpgsql as $$
begin
  execute format('alter table %I enable row level security', t);
  if not exists (select 1 from pg_policies where schemaname = current_schema() and tablename = t and policyname = 'org_isolation') then
    execute format('create policy org_isolation on %I to eps_app using (org_id = current_setting(''app.org_id'', true)) with check (org_id = current_setting(''app.org_id'', true))', t);
  end if;
end $$;
