-- Pending spans become append-only (decision 0157): ingestion inserts a row per asset and batch
-- instead of widening one row per asset, so it never waits on a row a running refresh has taken
-- (the refresh deletes the rows it takes and holds them until it commits).
alter table energy_pending drop constraint energy_pending_pkey;
alter table energy_pending add column seq bigint generated always as identity;
alter table energy_pending add primary key (org_id, asset_id, seq);
