-- The site_ref index of telemetry_latest keys on its stored site_ref column (telemetry migration
-- 0207, decision 0371) instead of the raw expression, so a new reading of an asset no longer writes
-- an index entry: the row is updated in place. Lookups read the column (`l.site_ref = $n`).
drop index if exists telemetry_latest_site_ref_idx;
create index telemetry_latest_site_ref_idx on telemetry_latest (org_id, site_ref);
