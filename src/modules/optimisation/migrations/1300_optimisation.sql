-- Advisory optimisation (decisions 0191-0193): recorded runs of the tariff schedule and the import
-- limit, per-device warranty limits, per-site import-limit configuration and awareness plans.
create table optimisation_runs (
  org_id text not null,
  run_id text not null,
  site_id text not null,
  kind text not null check (kind in ('tariff_schedule', 'import_limit', 'awareness')),
  created_at timestamptz not null,
  created_by text,
  dispatched boolean not null default false,
  summary jsonb not null,
  result jsonb not null,
  primary key (org_id, run_id)
);
create index optimisation_runs_site on optimisation_runs (org_id, kind, site_id, created_at desc, run_id desc);
select enable_org_isolation('optimisation_runs');

create table optimisation_warranty (
  org_id text not null,
  site_id text not null,
  device_id text not null,
  max_cycles_per_day double precision,
  max_throughput_kwh_per_day double precision,
  warranty_end date,
  updated_at timestamptz not null,
  updated_by text,
  primary key (org_id, site_id, device_id)
);
select enable_org_isolation('optimisation_warranty');

create table optimisation_import_limit (
  org_id text not null,
  site_id text not null,
  import_limit_kw double precision not null,
  assets jsonb not null,
  updated_at timestamptz not null,
  updated_by text,
  primary key (org_id, site_id)
);
select enable_org_isolation('optimisation_import_limit');
