-- Flexibility offers submitted to an operator's platform, with the platform's answer.
create table flex_offers (
  org_id text not null,
  offer_id text not null,
  dno text not null,
  reserve_object_id text not null,
  tender_platform_id text,
  direction_turn_up boolean not null,
  intervals jsonb not null,
  -- submitting: sent, no answer yet; submitted: the platform took it; rejected: the platform
  -- refused it; failed: the platform erred; unknown: no answer in time (it may have arrived)
  status text not null check (status in ('submitting', 'submitted', 'rejected', 'failed', 'unknown')),
  platform_reference text,
  platform_bid_ids jsonb not null default '[]',
  platform_status integer,
  -- The platform's answer as received (kept for the operator, never sent to callers).
  platform_response jsonb,
  submitted_by text,
  request_id text,
  created_at timestamptz not null,
  answered_at timestamptz,
  primary key (org_id, offer_id)
);
create index flex_offers_org_created_idx on flex_offers (org_id, created_at desc);
create index flex_offers_org_dno_idx on flex_offers (org_id, dno);

-- Enrolment of a site in the service's own virtual power plant. Its own state: it says nothing
-- of partnership, qualification or dispatch.
create table vpp_enrolments (
  org_id text not null,
  site_id text not null,
  status text not null check (status in ('enrolled', 'withdrawn')),
  region text not null,
  enrolled_at timestamptz not null,
  enrolled_by text,
  withdrawn_at timestamptz,
  withdrawn_by text,
  updated_at timestamptz not null,
  primary key (org_id, site_id)
);

-- Row-level security (decision 0009): only the rows of app.org_id for the restricted role.
select enable_org_isolation('flex_offers');
select enable_org_isolation('vpp_enrolments');
