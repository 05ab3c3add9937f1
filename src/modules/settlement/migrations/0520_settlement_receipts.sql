-- Settlement receipts (decision 0110): one hash chain per organisation. `signed_body` is the
-- canonical JSON (RFC 8785) that was signed; the other columns are copies of its members kept for
-- filtering and reconciliation, never the source of truth. `receipt_hash` = SHA-256 of
-- signed_body; `prev_hash` links to the previous receipt of the same organisation.
create table settlement_receipts (
  org_id text not null,
  receipt_id text not null,
  seq integer not null check (seq > 0),
  receipt_hash text not null,
  prev_hash text not null,
  signed_body text not null,
  signature text not null,
  kid text not null references esg_signing_keys (key_id),
  site_id text not null,
  asset_id text not null,
  reference text,
  period_start timestamptz not null,
  period_end timestamptz not null,
  direction text not null,
  delivered_wh bigint not null,
  source_basis text not null,
  issued_at timestamptz not null,
  issued_by text,
  -- Published for counterparty verification while shared_at is set (share / unshare).
  shared_at timestamptz,
  shared_by text,
  primary key (org_id, receipt_id),
  -- A fork (two receipts with one seq) cannot be stored, whatever the code above does.
  constraint settlement_receipts_org_seq_key unique (org_id, seq)
);
-- The hash covers organisation and receipt id, so it is unique service-wide: the public lookup.
create unique index settlement_receipts_hash_key on settlement_receipts (receipt_hash);
create index settlement_receipts_org_asset_idx on settlement_receipts (org_id, site_id, asset_id, period_start);

-- The head of each organisation's chain and its signed checkpoint. Issuing locks this row
-- (select ... for update), which serialises appends per organisation; the checkpoint is re-signed
-- in the same transaction, so it always names the last committed receipt.
create table settlement_chain_heads (
  org_id text primary key,
  seq integer not null,
  head_hash text not null,
  checkpoint_body text,
  checkpoint_signature text,
  kid text references esg_signing_keys (key_id),
  updated_at timestamptz not null
);

-- Row-level security (decision 0009): only the rows of app.org_id for the restricted role.
select enable_org_isolation('settlement_chain_heads');
select enable_org_isolation('settlement_receipts');
