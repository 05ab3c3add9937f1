-- Authorisation that means something (issue 39, decision 0410): id tokens per organisation with a
-- status, expiry and group, answered in Authorize / StartTransaction / TransactionEvent; a site may
-- choose free vend explicitly, and each transaction records which applied and the status answered.
-- Commands to chargers (decision 0411): each a stored operation with its request, outcome and answer.
create table hub_id_tokens (
  org_id text not null,
  id_token text not null,
  token_type text not null,
  status text not null check (status in ('accepted', 'blocked', 'expired', 'invalid')),
  expires_at timestamptz,
  group_id text,
  note text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (org_id, id_token)
);
-- OCPP id tokens are case-insensitive (CiString): one token per organisation whatever its case.
create unique index hub_id_tokens_ci on hub_id_tokens (org_id, upper(id_token));
select enable_org_isolation('hub_id_tokens');

alter table hub_sites add column free_vend boolean not null default false;
alter table hub_transactions add column authorisation text;
alter table hub_transactions add column id_token_status text;

create table hub_commands (
  org_id text not null,
  command_id text not null,
  charge_point_id text not null,
  action text not null,
  parameters jsonb not null,
  ocpp_version text,
  ocpp_action text,
  request jsonb,
  status text not null check (status in ('pending', 'accepted', 'rejected', 'timeout', 'offline', 'failed')),
  response jsonb,
  error text,
  created_by text,
  created_at timestamptz not null,
  completed_at timestamptz,
  primary key (org_id, command_id)
);
create index hub_commands_cp on hub_commands (org_id, charge_point_id, created_at desc);
select enable_org_isolation('hub_commands');

-- The version of the local authorisation list each charger last accepted (SendLocalList) or
-- reported (GetLocalListVersion); 0: none sent.
alter table hub_charge_points add column local_list_version int not null default 0;

-- The last firmware and diagnostics (log upload) status each charger reported
-- (FirmwareStatusNotification; 1.6 DiagnosticsStatusNotification, 2.0.1 LogStatusNotification).
alter table hub_charge_points add column firmware_status text;
alter table hub_charge_points add column firmware_status_at timestamptz;
alter table hub_charge_points add column diagnostics_status text;
alter table hub_charge_points add column diagnostics_status_at timestamptz;
