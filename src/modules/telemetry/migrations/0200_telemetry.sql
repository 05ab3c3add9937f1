-- Telemetry: one row per stored record, range-partitioned by ts (monthly). Partitions are made
-- ahead by telemetry_ensure_partitions(); the default partition only catches far-out timestamps.
create sequence telemetry_id_seq;

create table telemetry (
  id bigint not null default nextval('telemetry_id_seq'),
  org_id text not null,
  asset_id text not null,
  ts timestamptz not null,
  received_at timestamptz not null,
  power_kw double precision,
  soc_pct double precision,
  voltage double precision,
  "current" double precision,
  temp_c double precision,
  status text not null default 'unknown',
  run_id text,
  intent_id text,
  anomalies text[] not null default '{}',
  raw jsonb not null
) partition by range (ts);

create index telemetry_org_asset_ts_idx on telemetry (org_id, asset_id, ts);
create index telemetry_org_received_idx on telemetry (org_id, received_at desc, id desc);

create table telemetry_default partition of telemetry default;

-- Creates monthly partitions covering [from_month, to_month], skipping those that exist.
create or replace function telemetry_ensure_partitions(from_ts timestamptz, to_ts timestamptz)
returns integer language plpgsql as $$
declare
  m timestamptz := date_trunc('month', from_ts at time zone 'UTC') at time zone 'UTC';
  made integer := 0;
  name text;
begin
  while m <= to_ts loop
    name := 'telemetry_' || to_char(m at time zone 'UTC', 'YYYYMM');
    if to_regclass(name) is null then
      execute format('create table %I partition of telemetry for values from (%L) to (%L)',
        name, m, (m at time zone 'UTC' + interval '1 month') at time zone 'UTC');
      made := made + 1;
    end if;
    m := (m at time zone 'UTC' + interval '1 month') at time zone 'UTC';
  end loop;
  return made;
end;
$$;

-- The newest record of each asset, maintained by ingestion in the same transaction; device
-- listings, freshness and the partner API read it instead of scanning telemetry.
create table telemetry_latest (
  org_id text not null,
  asset_id text not null,
  ts timestamptz not null,
  received_at timestamptz not null,
  power_kw double precision,
  soc_pct double precision,
  voltage double precision,
  "current" double precision,
  temp_c double precision,
  status text not null,
  raw jsonb not null,
  primary key (org_id, asset_id)
);

-- Row-level security (decision 0009): only the rows of app.org_id for the restricted role.
select enable_org_isolation('telemetry');
select enable_org_isolation('telemetry_latest');
