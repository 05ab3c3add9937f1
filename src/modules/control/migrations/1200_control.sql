-- Control in the demo realm (decisions 0180-0186): the synthetic device model, per-site control
-- configuration and grid connection, verified setpoints, overrides, the export limitation loop's
-- events and the decision log.

create table control_site_config (
  org_id text not null,
  site_id text not null,
  -- The organisation's realm when written: the 30 s loop reads only demo rows with limitation on.
  demo boolean not null,
  export_limit_enabled boolean not null default false,
  export_limit_kw double precision,
  margin_kw double precision not null default 0.2,
  settle_seconds integer not null default 5,
  connection jsonb,
  updated_at timestamptz not null,
  updated_by text,
  primary key (org_id, site_id)
);
create index control_site_config_loop on control_site_config (org_id, site_id) where demo and export_limit_enabled;
select enable_org_isolation('control_site_config');

create table control_demo_sites (
  org_id text not null,
  site_id text not null,
  load_kw double precision not null,
  pv_available_kw double precision not null,
  stepped_at timestamptz not null,
  created_at timestamptz not null,
  primary key (org_id, site_id)
);
select enable_org_isolation('control_demo_sites');

create table control_demo_devices (
  org_id text not null,
  device_id text not null,
  site_id text not null,
  kind text not null,
  behaviour text not null default 'normal',
  rated_kw double precision not null,
  capacity_kwh double precision,
  soc_pct double precision,
  setpoint_kw double precision,
  pending_kw double precision,
  pending_at timestamptz,
  position integer not null,
  primary key (org_id, device_id)
);
create index control_demo_devices_site on control_demo_devices (org_id, site_id, position);
select enable_org_isolation('control_demo_devices');

create table control_decisions (
  org_id text not null,
  decision_id uuid primary key,
  site_id text not null,
  kind text not null,
  rule text not null,
  inputs jsonb not null,
  output jsonb not null,
  outcome jsonb not null,
  actor text,
  created_at timestamptz not null
);
create index control_decisions_page on control_decisions (org_id, created_at desc, decision_id desc);
select enable_org_isolation('control_decisions');

create table control_setpoints (
  org_id text not null,
  setpoint_id uuid primary key,
  site_id text not null,
  device_id text not null,
  value_kw double precision not null,
  source text not null,
  verdict text not null,
  accepted boolean,
  expected_kw double precision,
  readback_kw double precision,
  settle_seconds integer not null,
  commanded_at timestamptz not null,
  read_at timestamptz not null,
  reason text not null,
  decision_id uuid not null,
  actor text
);
create index control_setpoints_page on control_setpoints (org_id, commanded_at desc, setpoint_id desc);
select enable_org_isolation('control_setpoints');

create table control_overrides (
  org_id text not null,
  override_id uuid primary key,
  site_id text not null,
  device_id text,
  reason text not null,
  authority text not null,
  starts_at timestamptz not null,
  expires_at timestamptz not null,
  created_by text,
  created_at timestamptz not null,
  revoked_at timestamptz,
  revoked_by text,
  revoke_reason text
);
create index control_overrides_site on control_overrides (org_id, site_id, expires_at);
select enable_org_isolation('control_overrides');

create table control_export_events (
  org_id text not null,
  event_id uuid primary key,
  site_id text not null,
  trigger text not null,
  -- The 30 s tick a scheduled iteration belongs to: one per site and tick, whichever instance runs it.
  tick_at timestamptz,
  at timestamptz not null,
  limit_kw double precision not null,
  boundary_before_kw double precision not null,
  boundary_after_kw double precision not null,
  action text not null,
  outcome text not null,
  commands jsonb not null,
  decision_id uuid not null
);
create unique index control_export_events_tick on control_export_events (org_id, site_id, tick_at) where tick_at is not null;
create index control_export_events_page on control_export_events (org_id, site_id, at desc, event_id desc);
select enable_org_isolation('control_export_events');
