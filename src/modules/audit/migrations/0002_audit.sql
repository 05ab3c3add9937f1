-- One audit log for the whole service: sign-ins, refusals that matter, every configuration write.
create table audit_log (
  id bigint generated always as identity primary key,
  org_id text,
  actor_type text not null,
  actor_id text,
  action text not null,
  target_type text,
  target_id text,
  details jsonb not null default '{}',
  request_id text,
  source_ip text,
  created_at timestamptz not null
);
create index audit_log_org_created_idx on audit_log (org_id, created_at desc, id desc);
create index audit_log_org_action_idx on audit_log (org_id, action, created_at desc);

-- Row-level security (decision 0009): only the rows of app.org_id for the restricted role.
select enable_org_isolation('audit_log');
