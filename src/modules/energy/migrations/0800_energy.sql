-- The energy model (docs/energy-accounting.md): half-hour energy per asset and flow, summed per
-- site, kept current from the ingestion path. Ingestion records what each batch touched in
-- energy_pending (same transaction); the refresh job recomputes those half hours from the stored
-- samples; a rebuild recomputes a whole site. Everything here can be rebuilt from telemetry.

-- One asset's energy in one UTC half hour (`slot`, its start) for one flow. kwh is rounded to the
-- watt-hour; basis 'measured' (a cumulative counter) or 'calculated' (power integrated);
-- coverage = share of the half hour the source covered (1 = whole); resets = counter resets.
create table energy_asset_flows (
  org_id text not null,
  asset_id text not null,
  slot timestamptz not null,
  flow text not null,
  site_id text not null,
  kwh numeric(14, 3) not null,
  basis text not null,
  source text not null,
  coverage real not null,
  samples integer not null,
  resets integer not null default 0,
  primary key (org_id, asset_id, slot, flow)
);
create index energy_asset_flows_site_idx on energy_asset_flows (org_id, site_id, slot);

-- One site's half hour: each flow's sum over its assets, the ledger's residual, the basis of each
-- flow (measured only when every contributing asset's figure is), how consumption was found
-- (metered loads or the balance) and the coverage (the least of the contributing assets').
create table energy_site_halfhours (
  org_id text not null,
  site_id text not null,
  slot timestamptz not null,
  day date not null,
  import_kwh numeric(14, 3) not null,
  export_kwh numeric(14, 3) not null,
  generation_kwh numeric(14, 3) not null,
  consumption_kwh numeric(14, 3) not null,
  charge_kwh numeric(14, 3) not null,
  discharge_kwh numeric(14, 3) not null,
  residual_kwh numeric(14, 3) not null,
  basis jsonb not null,
  consumption_method text not null,
  coverage real not null,
  assets_expected integer not null,
  assets_reporting integer not null,
  -- every expected asset reported over the whole half hour
  complete boolean not null,
  -- every flow's figure is measured (or the site has no such flow)
  all_measured boolean not null,
  primary key (org_id, site_id, slot)
);

-- One site's UK local day: sums of its half hours and the largest half-hour import (for capacity),
-- so year-long reads and the portfolio league read 365 rows a site, not 17,520.
create table energy_site_days (
  org_id text not null,
  site_id text not null,
  day date not null,
  half_hours integer not null,
  complete_half_hours integer not null,
  measured_half_hours integer not null,
  import_kwh numeric(16, 3) not null,
  export_kwh numeric(16, 3) not null,
  generation_kwh numeric(16, 3) not null,
  consumption_kwh numeric(16, 3) not null,
  charge_kwh numeric(16, 3) not null,
  discharge_kwh numeric(16, 3) not null,
  residual_kwh numeric(16, 3) not null,
  self_consumed_kwh numeric(16, 3) not null,
  max_import_kwh numeric(14, 3) not null,
  primary key (org_id, site_id, day)
);

-- Work the ingestion path left for the refresh job: per asset, the span of timestamps written since
-- the last refresh (one row an asset, widened by each batch).
create table energy_pending (
  org_id text not null,
  asset_id text not null,
  from_ts timestamptz not null,
  to_ts timestamptz not null,
  primary key (org_id, asset_id)
);

-- Rebuilds of a site's ledger: a job with progress (days done of days total).
create table energy_rebuilds (
  org_id text not null,
  rebuild_id text not null,
  site_id text not null,
  status text not null,
  from_ts timestamptz not null,
  to_ts timestamptz not null,
  next_ts timestamptz not null,
  days_total integer not null,
  days_done integer not null,
  requested_by text,
  requested_at timestamptz not null,
  finished_at timestamptz,
  error text,
  primary key (org_id, rebuild_id)
);
create index energy_rebuilds_site_idx on energy_rebuilds (org_id, site_id, requested_at desc);
create unique index energy_rebuilds_running_idx on energy_rebuilds (org_id, site_id) where status in ('queued', 'running');

-- EMS settings of a site (agreed capacity, PV, operating hours, tariff, PPA contracts), as set.
create table ems_site_settings (
  org_id text not null,
  site_id text not null,
  settings jsonb not null,
  updated_at timestamptz not null,
  updated_by text,
  primary key (org_id, site_id)
);

-- PV calibrations: the expected-yield fit kept as history (newest is in force).
create table pv_calibrations (
  org_id text not null,
  calibration_id text not null,
  site_id text not null,
  from_day date not null,
  to_day date not null,
  days_used integer not null,
  factor numeric(10, 4) not null,
  previous_factor numeric(10, 4),
  details jsonb not null,
  created_by text,
  created_at timestamptz not null,
  primary key (org_id, calibration_id)
);
create index pv_calibrations_site_idx on pv_calibrations (org_id, site_id, created_at desc);

-- Scope 2 location-based factors as published (DESNZ/Defra company reporting factors, UK
-- electricity), one version per reporting year. Platform data, the same for every organisation.
create table carbon_factor_versions (
  year integer primary key,
  generation_kg_per_kwh numeric(10, 5) not null,
  td_kg_per_kwh numeric(10, 5),
  published text,
  source text not null,
  confidence text not null,
  note text
);
insert into carbon_factor_versions (year, generation_kg_per_kwh, td_kg_per_kwh, published, source, confidence, note) values
  (2022, 0.19338, 0.01769, null, 'DESNZ/BEIS Greenhouse gas reporting: conversion factors 2022, UK electricity (as quoted by ITPEnergised)', 'third-party quotation', null),
  (2023, 0.20707, 0.01792, '2023-06-07', 'DESNZ Greenhouse gas reporting: conversion factors 2023, UK electricity (as quoted by ITPEnergised and Inenco)', 'third-party quotation', 'Full figure 0.207074'),
  (2024, 0.20705, null, null, 'DESNZ Greenhouse gas reporting: conversion factors 2024, UK electricity (as quoted by entrnce.com)', 'unconfirmed', 'One other source quotes 0.20493; transmission and distribution factor not confirmed'),
  (2025, 0.17700, null, null, 'DESNZ Greenhouse gas reporting: conversion factors 2025, UK electricity (as quoted by nzcportal.com)', 'unconfirmed', 'Transmission and distribution factor not confirmed');

-- An organisation's market-based factors: contractual instruments (REGO-backed supply, supplier
-- specific rate, PPA, residual mix) for all its sites or one, over a validity period.
create table scope2_market_factors (
  org_id text not null,
  factor_id text not null,
  site_id text,
  instrument text not null,
  name text not null,
  kg_per_kwh numeric(10, 5) not null,
  valid_from date not null,
  valid_to date,
  evidence text,
  created_by text,
  created_at timestamptz not null,
  primary key (org_id, factor_id)
);

select enable_org_isolation('energy_asset_flows');
select enable_org_isolation('energy_site_halfhours');
select enable_org_isolation('energy_site_days');
select enable_org_isolation('energy_pending');
select enable_org_isolation('energy_rebuilds');
select enable_org_isolation('ems_site_settings');
select enable_org_isolation('pv_calibrations');
select enable_org_isolation('scope2_market_factors');
