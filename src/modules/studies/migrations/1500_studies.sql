-- Plan studies (decision 0210): a study, its inputs (every version kept, so a run is reproducible)
-- and its runs (background jobs on the platform queue).
create table studies (
  org_id text not null,
  study_id text not null,
  study_type text not null,
  name text not null,
  description text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (org_id, study_id)
);
select enable_org_isolation('studies');

create table study_inputs (
  org_id text not null,
  study_id text not null,
  kind text not null,
  version integer not null,
  rows jsonb not null,
  csv text not null,
  row_count integer not null,
  current boolean not null,
  created_at timestamptz not null,
  primary key (org_id, study_id, kind, version)
);
select enable_org_isolation('study_inputs');

create table study_runs (
  org_id text not null,
  study_id text not null,
  run_id text not null,
  status text not null,
  progress integer not null default 0,
  input_versions jsonb not null,
  results jsonb,
  error text,
  attempts integer not null default 0,
  created_at timestamptz not null,
  started_at timestamptz,
  finished_at timestamptz,
  primary key (org_id, study_id, run_id)
);
select enable_org_isolation('study_runs');
create index study_runs_created on study_runs (org_id, study_id, created_at desc);
