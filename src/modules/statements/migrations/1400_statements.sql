-- Fleet savings statements (decisions 0200-0204). A baseline is proposed for a site from its own
-- energy over a reference period, then agreed (frozen) or withdrawn. A statement is issued for a
-- period against an agreed baseline and signed like settlement receipts: `signed_body` is the
-- canonical JSON (RFC 8785) that was signed with the service's Ed25519 key (RECEIPT_KEYRING);
-- `statement_hash` is its SHA-256, unique service-wide, the public verification handle.
create table statement_baselines (
  org_id text not null,
  baseline_id text not null,
  site_id text not null,
  method text not null,
  reference_from date not null,
  reference_to date not null,
  -- The figures the baseline rests on, as computed when proposed (jsonb, decimal strings).
  figures jsonb not null,
  tariff_pence_per_kwh numeric(12, 4) not null,
  note text,
  status text not null check (status in ('proposed', 'agreed', 'withdrawn')),
  proposed_by text,
  proposed_at timestamptz not null,
  agreed_by text,
  agreed_at timestamptz,
  withdrawn_by text,
  withdrawn_at timestamptz,
  withdrawn_reason text,
  primary key (org_id, baseline_id)
);
create index statement_baselines_site_idx on statement_baselines (org_id, site_id, proposed_at desc);

create table statement_statements (
  org_id text not null,
  statement_id text not null,
  site_id text not null,
  baseline_id text not null,
  period_from date not null,
  period_to date not null,
  statement_hash text not null,
  signed_body text not null,
  signature text not null,
  kid text not null references esg_signing_keys (key_id),
  issued_by text,
  issued_at timestamptz not null,
  primary key (org_id, statement_id),
  foreign key (org_id, baseline_id) references statement_baselines (org_id, baseline_id)
);
create unique index statement_statements_hash_key on statement_statements (statement_hash);
create index statement_statements_list_idx on statement_statements (org_id, issued_at desc, statement_id desc);

select enable_org_isolation('statement_baselines');
select enable_org_isolation('statement_statements');
