-- The organisation alert stream: alerts raised by the service (partner_webhook_disabled,
-- partner_api_key_expiring, partner_api_operation_deprecated, ...). One open alert per
-- (organisation, dedupe_key): raising an open condition again changes nothing.
create table org_alerts (
  seq bigint generated always as identity,
  id text primary key,
  org_id text not null,
  type text not null,
  source text not null,
  severity text not null check (severity in ('info', 'warning', 'critical')),
  status text not null check (status in ('open', 'resolved')),
  subject_type text,
  subject_id text,
  title text not null,
  details jsonb not null default '{}',
  dedupe_key text not null,
  raised_at timestamptz not null,
  resolved_at timestamptz,
  resolution text
);
create unique index org_alerts_open_key on org_alerts (org_id, dedupe_key) where status = 'open';
create index org_alerts_org_raised_idx on org_alerts (org_id, raised_at desc, seq desc);

-- Row-level security (decision 0009): only the rows of app.org_id for the restricted role.
select enable_org_isolation('org_alerts');
