-- The newest-reading row of an asset is replaced in place (decision 0371): a heap-only (HOT) update,
-- which writes no index entry, needs room on the row's page and no indexed column changed. The
-- registry's site_ref index read raw (an expression of it), and raw changes with every reading, so
-- every update wrote a new entry in both indexes. raw's site_ref becomes a stored column of its own
-- (the same expression, so the same text), which the registry's index keys on instead (registry
-- migration 0301); its value, like the key, stays the same from one reading to the next. Pages keep
-- half their room for the new versions (fillfactor 50: the table holds one row per asset).
alter table telemetry_latest set (fillfactor = 50);
alter table telemetry_latest add column site_ref text generated always as (raw->>'site_ref') stored;
