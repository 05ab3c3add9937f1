-- Fleet readiness (decision 0211): one depot per organisation, its constraints, its shift schedule
-- and the vehicle requirements imported from CSV. Each a document per organisation.
create table fleet_depot (
  org_id text primary key,
  constraints jsonb not null,
  updated_at timestamptz not null
);
select enable_org_isolation('fleet_depot');

create table fleet_shift_schedule (
  org_id text primary key,
  shifts jsonb not null,
  updated_at timestamptz not null
);
select enable_org_isolation('fleet_shift_schedule');

create table fleet_requirements (
  org_id text primary key,
  vehicles jsonb not null,
  imported_at timestamptz not null
);
select enable_org_isolation('fleet_requirements');
