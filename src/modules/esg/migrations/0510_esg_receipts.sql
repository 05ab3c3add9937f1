-- The service's Ed25519 keys for energy receipts. Public halves are published; a private half is
-- kept only for a key the service generated itself (no ESG_SIGNING_KEY, never in production), so
-- its signatures stay verifiable across restarts. Service-level, not organisation data.
create table esg_signing_keys (
  key_id text primary key,
  public_key text not null,
  private_key text,
  origin text not null check (origin in ('generated', 'configured')),
  created_at timestamptz not null
);
create unique index esg_signing_keys_one_generated on esg_signing_keys (origin) where origin = 'generated';

-- Energy receipts: a payload stored with its content hash (identifies it within the organisation)
-- and the service's signature over the receipt's signing input.
create table esg_receipts (
  org_id text not null,
  receipt_id text not null,
  content_hash text not null,
  payload_canonical text not null,
  key_id text not null references esg_signing_keys (key_id),
  signing_input text not null,
  signature text not null,
  issued_at timestamptz not null,
  issued_by text,
  primary key (org_id, receipt_id)
);
create unique index esg_receipts_org_hash_key on esg_receipts (org_id, content_hash);
create index esg_receipts_org_issued_idx on esg_receipts (org_id, issued_at desc, receipt_id);

-- Row-level security (decision 0009): only the rows of app.org_id for the restricted role.
select enable_org_isolation('esg_receipts');
