-- PV calibrations made in the same instant (two POSTs within a millisecond, or a test clock that
-- does not move) are ordered by when they were written: the newest is the one in force.
alter table pv_calibrations add column seq bigint generated always as identity;
create index pv_calibrations_site_seq_idx on pv_calibrations (org_id, site_id, created_at desc, seq desc);
drop index pv_calibrations_site_idx;
