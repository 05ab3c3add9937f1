-- Developer platform: API keys, webhook endpoints, events, deliveries, idempotency records,
-- device freshness state and public-status health checks.

-- API keys. The secret is never stored: only SHA-256 of it and its last four characters.
-- `id` is the non-secret lookup id embedded in the key (<prefix>_<env>_<id>_<secret>).
create table api_keys (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  name text not null,
  environment text not null check (environment in ('live', 'sandbox')),
  scopes text[] not null,
  secret_hash bytea not null,
  secret_hint text not null,
  created_at timestamptz not null,
  created_by text,
  expires_at timestamptz not null,
  revoked_at timestamptz,
  -- rotation: the successor's id, when, and until when this key still works (null = stopped at rotation)
  replaced_by text,
  rotated_at timestamptz,
  overlap_until timestamptz,
  last_used_at timestamptz
);
create index api_keys_org_idx on api_keys (org_id, created_at desc, id desc);

-- Webhook endpoints. Signing secrets must be usable to sign, so they are stored encrypted
-- (AES-256-GCM under a key derived from the service secret), never in clear.
create table webhook_endpoints (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  environment text not null check (environment in ('live', 'sandbox')),
  url text not null,
  description text not null default '',
  event_types text[] not null,
  enabled boolean not null default true,
  disabled_reason text check (disabled_reason in ('manual', 'failing')),
  disabled_at timestamptz,
  secret_enc text not null,
  previous_secret_enc text,
  previous_secret_until timestamptz,
  -- first failure of the current run of failures; null after a success
  failing_since timestamptz,
  last_success_at timestamptz,
  last_failure_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index webhook_endpoints_org_idx on webhook_endpoints (org_id, environment);

-- Events, kept 30 days for replay. `body` is the exact envelope sent (signed bytes).
create table webhook_events (
  id text primary key,
  org_id text not null,
  environment text not null,
  type text not null,
  body text not null,
  created_at timestamptz not null
);
create index webhook_events_org_idx on webhook_events (org_id, created_at desc);
create index webhook_events_created_idx on webhook_events (created_at);

-- One delivery of one event to one endpoint (a replay is a new delivery).
create table webhook_deliveries (
  seq bigint generated always as identity,
  id text primary key,
  org_id text not null,
  endpoint_id text not null references webhook_endpoints(id) on delete cascade,
  event_id text not null references webhook_events(id) on delete cascade,
  status text not null check (status in ('pending', 'succeeded', 'failed', 'cancelled')),
  attempt_count integer not null default 0,
  next_attempt_at timestamptz,
  last_status_code integer,
  last_error text,
  replay boolean not null default false,
  created_at timestamptz not null,
  completed_at timestamptz
);
create index webhook_deliveries_endpoint_idx on webhook_deliveries (org_id, endpoint_id, created_at desc, seq desc);
create index webhook_deliveries_pending_idx on webhook_deliveries (endpoint_id) where status = 'pending';

create table webhook_attempts (
  id bigint generated always as identity primary key,
  org_id text not null,
  delivery_id text not null references webhook_deliveries(id) on delete cascade,
  attempt integer not null,
  attempted_at timestamptz not null,
  status_code integer,
  outcome text not null check (outcome in ('succeeded', 'failed')),
  error text,
  duration_ms integer not null,
  unique (delivery_id, attempt)
);

-- Idempotency-Key records of POST /api/devtools/partner/v1/sandbox/webhooks/test (24 hours).
create table idempotency_keys (
  org_id text not null,
  operation text not null,
  key text not null,
  request_hash text not null,
  status_code integer,
  response_body text,
  created_at timestamptz not null,
  primary key (org_id, operation, key)
);

-- device.offline watchdog: the last record time already reported as offline, per device.
create table device_offline_state (
  org_id text not null,
  asset_id text not null,
  last_ts timestamptz not null,
  reported_at timestamptz not null,
  primary key (org_id, asset_id)
);

-- Public status: one row per component per scheduled health check (not organisation data).
create table health_checks (
  id bigint generated always as identity primary key,
  component text not null,
  checked_at timestamptz not null,
  ok boolean not null,
  latency_ms integer not null,
  detail text
);
create index health_checks_component_idx on health_checks (component, checked_at desc);

-- Row-level security (decision 0009): only the rows of app.org_id for the restricted role.
select enable_org_isolation('api_keys');
select enable_org_isolation('device_offline_state');
select enable_org_isolation('idempotency_keys');
select enable_org_isolation('webhook_attempts');
select enable_org_isolation('webhook_deliveries');
select enable_org_isolation('webhook_endpoints');
select enable_org_isolation('webhook_events');
