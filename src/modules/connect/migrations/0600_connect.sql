-- Connect: site onboarding (templates, runs with their clock and mapping), the gateway link
-- (last contact, thresholds, evaluated state), buffer replay (one row per device and sequence) and
-- the home-automation connector (reported entities, mapping, health).

-- An organisation's own site templates (built-in templates live in code).
create table connect_templates (
  org_id text not null,
  template_id text not null,
  name text not null,
  description text not null,
  slots jsonb not null,
  created_by text,
  created_at timestamptz not null,
  primary key (org_id, template_id)
);

-- One onboarding run per from-template call: the template as used, the assets made, the proposed
-- and the confirmed mapping, and the clock (started_at to confirmed_at).
create table connect_onboarding_runs (
  seq bigint generated always as identity,
  org_id text not null,
  run_id text not null,
  site_id text not null,
  template_id text not null,
  template jsonb not null,
  slots jsonb not null,
  proposal jsonb not null,
  mapping jsonb,
  started_at timestamptz not null,
  started_by text,
  confirmed_at timestamptz,
  confirmed_by text,
  elapsed_ms bigint,
  primary key (org_id, run_id)
);
create index connect_runs_site_idx on connect_onboarding_runs (org_id, site_id, seq desc);
create index connect_runs_started_idx on connect_onboarding_runs (org_id, started_at desc, run_id desc);

-- The gateway link of a site: last contact as sent, thresholds, the state last evaluated and
-- whether an asset_silence alert is open for it (demo realm watchdog).
create table connect_gateways (
  org_id text not null,
  site_id text not null,
  last_heartbeat_at timestamptz,
  heartbeat_count bigint not null default 0,
  firmware text,
  buffer_depth integer,
  gateway_id text,
  late_after_s integer not null,
  silent_after_s integer not null,
  state text not null,
  state_since timestamptz not null,
  checked_at timestamptz not null,
  dropped_at timestamptz,
  updated_at timestamptz not null,
  primary key (org_id, site_id)
);

-- Replayed readings: one row per (device, sequence) in the organisation. The primary key is what
-- makes a retried replay store nothing twice, under any concurrency.
create table connect_buffer_rows (
  org_id text not null,
  device_id text not null,
  sequence bigint not null,
  site_id text not null,
  ts timestamptz not null,
  anomalies text[] not null default '{}',
  replay_id text not null,
  received_at timestamptz not null,
  primary key (org_id, device_id, sequence)
);
create index connect_buffer_site_idx on connect_buffer_rows (org_id, site_id, device_id, sequence);

-- Replay progress per site: totals and the remaining count the gateway last declared.
create table connect_buffer_state (
  org_id text not null,
  site_id text not null,
  replays bigint not null default 0,
  received bigint not null default 0,
  stored bigint not null default 0,
  duplicates bigint not null default 0,
  rejected bigint not null default 0,
  remaining integer,
  remaining_reported_at timestamptz,
  first_replay_at timestamptz,
  last_replay_at timestamptz,
  primary key (org_id, site_id)
);

-- Home-automation connector per site: the entities it last reported, the mapping (proposed from
-- the report, or confirmed by a person), and connector health.
create table connect_ha_sites (
  org_id text not null,
  site_id text not null,
  entities jsonb not null default '[]',
  reported_at timestamptz,
  mapping jsonb not null default '[]',
  mapping_status text not null default 'none',
  mapping_confirmed_at timestamptz,
  mapping_confirmed_by text,
  health jsonb,
  health_at timestamptz,
  last_telemetry_at timestamptz,
  readings_received bigint not null default 0,
  readings_stored bigint not null default 0,
  readings_unmapped bigint not null default 0,
  readings_rejected bigint not null default 0,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (org_id, site_id)
);

select enable_org_isolation('connect_templates');
select enable_org_isolation('connect_onboarding_runs');
select enable_org_isolation('connect_gateways');
select enable_org_isolation('connect_buffer_rows');
select enable_org_isolation('connect_buffer_state');
select enable_org_isolation('connect_ha_sites');
