-- The two newest-first B-trees of the hot table become ascending (decision 0252). Every read that
-- used them walks the same index backwards (PostgreSQL scans a B-tree either way): live events
-- (received_at desc, id desc), the Partner API's readings (ts desc, id desc); the export's
-- (received_at, id) pages now read it forwards. What changes is the write: a new key of an
-- organisation now lands at the right end of its range instead of the left, so a full leaf page
-- is split to leave the old page full (not half full), the index stays about half the size and
-- each batch writes fewer pages (and less WAL). Same columns, same plans; only the direction.
create index telemetry_org_received_asc_idx on telemetry (org_id, received_at, id);
drop index telemetry_org_received_idx;
create index telemetry_org_ts_asc_idx on telemetry (org_id, ts, id);
drop index telemetry_org_ts_idx;
