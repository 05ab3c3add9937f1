-- Pricing: the organisation's charge library (rates, time-band schedules), its supply points
-- (MPANs) and its retail tariffs with their versions. Tariff versions are append only: the table
-- refuses updates, so a version never changes once stored (decision 0152).

create table pricing_rates (
  org_id text not null,
  rate_id text not null,
  component text not null,
  rate numeric not null,
  distributor_id text,
  line_loss_class text,
  supply_type text,
  band text,
  valid_from date not null,
  valid_to date,
  source text not null,
  created_at timestamptz not null,
  created_by text,
  primary key (org_id, rate_id)
);
create index pricing_rates_component on pricing_rates (org_id, component, valid_from);
select enable_org_isolation('pricing_rates');

create table pricing_time_bands (
  org_id text not null,
  schedule_id text not null,
  distributor_id text not null,
  valid_from date not null,
  valid_to date,
  periods jsonb not null,
  source text not null,
  created_at timestamptz not null,
  created_by text,
  primary key (org_id, schedule_id)
);
create index pricing_time_bands_distributor on pricing_time_bands (org_id, distributor_id, valid_from);
select enable_org_isolation('pricing_time_bands');

create table pricing_mpans (
  org_id text not null,
  mpan_core text not null,
  distributor_id text not null,
  line_loss_class text not null,
  connection_voltage text not null,
  supply_type text not null,
  agreed_capacity_kva numeric,
  site_id text,
  label text,
  created_at timestamptz not null,
  created_by text,
  primary key (org_id, mpan_core)
);
create index pricing_mpans_page on pricing_mpans (org_id, created_at desc, mpan_core desc);
select enable_org_isolation('pricing_mpans');

create table pricing_tariffs (
  org_id text not null,
  tariff_id text not null,
  name text not null,
  description text,
  supply_type text not null,
  created_at timestamptz not null,
  created_by text,
  primary key (org_id, tariff_id)
);
create index pricing_tariffs_page on pricing_tariffs (org_id, created_at desc, tariff_id desc);
select enable_org_isolation('pricing_tariffs');

create table pricing_tariff_versions (
  org_id text not null,
  tariff_id text not null,
  version integer not null,
  effective_from date not null,
  effective_to date,
  terms jsonb not null,
  created_at timestamptz not null,
  created_by text,
  primary key (org_id, tariff_id, version),
  foreign key (org_id, tariff_id) references pricing_tariffs (org_id, tariff_id)
);
select enable_org_isolation('pricing_tariff_versions');

create or replace function pricing_versions_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'retail tariff versions are append only: version % of tariff % cannot be changed', old.version, old.tariff_id;
end $$;

create trigger pricing_versions_no_update before update on pricing_tariff_versions
  for each row execute function pricing_versions_append_only();
