-- Chunks stored in parts of a few hundred rows (decision 0207): a job still writes a chunk (and its
-- position) in one transaction, now as several rows, so a download holds one small part at a time
-- and never a whole chunk's text.
alter table export_chunks add column part integer not null default 0;
alter table export_chunks drop constraint export_chunks_pkey;
alter table export_chunks add primary key (org_id, job_id, seq, part);
drop index export_chunks_collection_idx;
create index export_chunks_collection_idx on export_chunks (org_id, job_id, collection, seq, part);
