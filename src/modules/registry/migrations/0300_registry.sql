-- Asset registry (twin v1 and registry v2 share this table), per-asset source priority and
-- commissioning runs. Other modules read `assets` (org_id, asset_id, site_id, type, name,
-- created_at): keep those names.
create table assets (
  org_id text not null,
  asset_id text not null,
  site_id text not null,
  -- free-form type as sent (v1); v2 defaults it to the class
  type text not null,
  name text not null,
  details jsonb not null default '{}',
  -- registry v2 vocabulary class; null = unclassified (a v1 type with no known class)
  asset_class text,
  -- upstream asset in the single-line tree, at the same site; null = root
  parent_asset_id text,
  -- how the record came to be: 'twin' (v1), 'registry' (v2), 'import' (from telemetry)
  origin text not null default 'twin',
  -- connect time: when the record was made; never moved by telemetry
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (org_id, asset_id)
);
create index assets_org_site_idx on assets (org_id, site_id);
create index assets_org_parent_idx on assets (org_id, parent_asset_id) where parent_asset_id is not null;

-- Ordered sources per asset and measurement; absent = the default order.
create table source_priorities (
  org_id text not null,
  asset_id text not null,
  measurement text not null,
  sources text[] not null,
  updated_at timestamptz not null,
  primary key (org_id, asset_id, measurement)
);

-- One row per commissioning run of a site, with every check's finding.
create table commissioning_runs (
  seq bigint generated always as identity,
  org_id text not null,
  run_id text not null,
  site_id text not null,
  outcome text not null,
  parameters jsonb not null,
  summary jsonb not null,
  checks jsonb not null,
  created_by text,
  created_at timestamptz not null,
  primary key (org_id, run_id)
);
create index commissioning_runs_site_idx on commissioning_runs (org_id, site_id, created_at desc);

-- Devices seen in telemetry but not registered are tied to a site by the sender's own `site_ref`
-- key in raw (concepts.md, Telemetry record); import and site counts look them up by it.
create index telemetry_latest_site_ref_idx on telemetry_latest (org_id, (raw->>'site_ref'));

-- Row-level security (decision 0009): only the rows of app.org_id for the restricted role.
select enable_org_isolation('assets');
select enable_org_isolation('commissioning_runs');
select enable_org_isolation('source_priorities');
