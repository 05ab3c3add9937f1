-- Buffer replay claims belong to the site whose gateway sent them (decision 0302): a gateway numbers
-- its own devices' readings, so (device, sequence) is unique per site, not per organisation. Each
-- claimed row keeps a hash of the record it stored, so a reused sequence with other content is told
-- apart from a retry; each replay id keeps a hash of its records, so a reused id with other records
-- is a conflict.
alter table connect_buffer_rows drop constraint connect_buffer_rows_pkey;
alter table connect_buffer_rows add primary key (org_id, site_id, device_id, sequence);
drop index connect_buffer_site_idx;
alter table connect_buffer_rows add column record_hash text;

create table connect_buffer_replays (
  org_id text not null,
  site_id text not null,
  replay_id text not null,
  records_hash text not null,
  first_at timestamptz not null,
  primary key (org_id, site_id, replay_id)
);
select enable_org_isolation('connect_buffer_replays');
