-- EMS alerts (docs/alerts.md). The alerts themselves live in the organisation alert stream
-- (org_alerts, source 'ems'); these tables hold what the stream does not: the current impact and
-- evidence of each EMS alert, the severity policy, alert admin state and history, routing rules
-- and the routed-delivery log.

-- The policy (severity thresholds, prices, source settings); no row = the defaults.
create table ems_alert_policies (
  org_id text primary key references organisations(id) on delete cascade,
  policy jsonb not null,
  updated_at timestamptz not null,
  updated_by text
);
select enable_org_isolation('ems_alert_policies');

-- One row per EMS alert raised into the stream: the latest evaluation's figures.
create table ems_alerts (
  alert_id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  dedupe_key text not null,
  source text not null,
  site_id text,
  asset_id text,
  since timestamptz not null,
  severity text not null,
  impact_pence bigint not null,
  method text not null,
  evidence jsonb not null,
  evaluated_at timestamptz not null
);
create index ems_alerts_org_idx on ems_alerts (org_id, dedupe_key);
select enable_org_isolation('ems_alerts');

-- Alert admin state of any alert in the stream (acknowledged, owner, who resolved it and why).
create table alert_admin_state (
  alert_id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  acknowledged_at timestamptz,
  acknowledged_by text,
  assigned_to text,
  assigned_by text,
  assigned_at timestamptz,
  resolved_by text,
  resolved_at timestamptz,
  resolution_reason text
);
create index alert_admin_state_org_idx on alert_admin_state (org_id);
select enable_org_isolation('alert_admin_state');

-- Every admin action on an alert, stamped who and when (comments included).
create table alert_admin_events (
  seq bigint generated always as identity,
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  alert_id text not null,
  action text not null check (action in ('acknowledge', 'assign', 'resolve', 'comment')),
  actor_id text,
  at timestamptz not null,
  note text,
  details jsonb not null default '{}'
);
create index alert_admin_events_alert_idx on alert_admin_events (org_id, alert_id, at, seq);
select enable_org_isolation('alert_admin_events');

-- Routing rules: what they match and the channels they name. Channel secrets are sealed
-- (AES-256-GCM under the service key) and never shown.
create table ems_routing_rules (
  seq bigint generated always as identity,
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  name text not null,
  enabled boolean not null,
  match jsonb not null,
  channels jsonb not null,
  escalation jsonb,
  created_at timestamptz not null,
  created_by text,
  updated_at timestamptz not null,
  updated_by text
);
create index ems_routing_rules_org_idx on ems_routing_rules (org_id, created_at, seq);
select enable_org_isolation('ems_routing_rules');

-- The delivery log: one row per attempt. A row claims (alert, channel, reason) before anything is
-- sent, so no alert reaches the same channel twice for the same reason, whichever instance runs
-- the call (the partial unique index); suppressed rows (preferences, quiet hours) claim nothing.
create table ems_deliveries (
  seq bigint generated always as identity,
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  alert_id text not null,
  rule_id text not null,
  channel_key text not null,
  channel_type text not null,
  target text not null,
  reason text not null check (reason in ('routed', 'escalated')),
  trigger text not null,
  outcome text not null check (outcome in ('sending', 'delivered', 'failed', 'suppressed')),
  status_code integer,
  error text,
  event_id text,
  attempted_at timestamptz not null,
  duration_ms integer
);
create unique index ems_deliveries_once on ems_deliveries (org_id, alert_id, channel_key, reason) where outcome <> 'suppressed';
create index ems_deliveries_org_idx on ems_deliveries (org_id, attempted_at desc, seq desc);
select enable_org_isolation('ems_deliveries');
