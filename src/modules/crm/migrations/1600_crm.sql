-- CRM (docs/crm.md, decisions 0220-0222): settings, accounts, contacts (personal data), the
-- suppression list (salted hashes only), deals with their stage moves, activities and tasks.
create table crm_settings (
  org_id text primary key references organisations(id) on delete cascade,
  stages jsonb not null,
  retention_days integer not null,
  templates jsonb not null,
  -- Salt of the organisation's suppression hashes (never shown).
  salt text not null,
  updated_at timestamptz not null
);
select enable_org_isolation('crm_settings');

create table crm_accounts (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  name text not null,
  domain text,
  kind text not null,
  notes text,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index crm_accounts_list_idx on crm_accounts (org_id, created_at desc, id desc);
select enable_org_isolation('crm_accounts');

create table crm_contacts (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  account_id text references crm_accounts(id) on delete set null,
  name text,
  email text,
  phone text,
  job_title text,
  opted_out_at timestamptz,
  erased_at timestamptz,
  last_engaged_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index crm_contacts_list_idx on crm_contacts (org_id, created_at desc, id desc);
select enable_org_isolation('crm_contacts');

-- Suppressed addresses and numbers: HMAC-SHA256 under the organisation's salt, nothing else.
create table crm_suppressions (
  org_id text not null references organisations(id) on delete cascade,
  hash text not null,
  reason text not null,
  created_at timestamptz not null,
  primary key (org_id, hash)
);
select enable_org_isolation('crm_suppressions');

create table crm_deals (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  account_id text not null references crm_accounts(id) on delete cascade,
  contact_id text references crm_contacts(id) on delete set null,
  title text not null,
  value numeric(18, 2) not null,
  currency text not null,
  stage text not null,
  expected_close date,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index crm_deals_list_idx on crm_deals (org_id, created_at desc, id desc);
select enable_org_isolation('crm_deals');

create table crm_deal_moves (
  seq bigint generated always as identity,
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  deal_id text not null references crm_deals(id) on delete cascade,
  from_stage text,
  to_stage text not null,
  reason text,
  moved_by text,
  moved_at timestamptz not null
);
create index crm_deal_moves_idx on crm_deal_moves (org_id, deal_id, moved_at);
select enable_org_isolation('crm_deal_moves');

create table crm_activities (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  kind text not null,
  account_id text references crm_accounts(id) on delete cascade,
  contact_id text references crm_contacts(id) on delete set null,
  deal_id text references crm_deals(id) on delete set null,
  subject text not null,
  body text,
  occurred_at timestamptz not null,
  created_at timestamptz not null
);
create index crm_activities_list_idx on crm_activities (org_id, occurred_at desc, id desc);
select enable_org_isolation('crm_activities');

create table crm_tasks (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  title text not null,
  due_at timestamptz not null,
  account_id text references crm_accounts(id) on delete cascade,
  contact_id text references crm_contacts(id) on delete set null,
  deal_id text references crm_deals(id) on delete set null,
  assignee_id text,
  done_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index crm_tasks_due_idx on crm_tasks (org_id, due_at, id);
select enable_org_isolation('crm_tasks');
