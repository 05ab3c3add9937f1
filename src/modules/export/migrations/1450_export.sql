-- Data export jobs (decisions 0203-0206). A job writes the organisation's collections as JSON Lines
-- chunks, each chunk in the same transaction as the job's progress, so a job resumed by another
-- instance after a crash neither repeats nor skips rows. Chunks live in the store (every instance
-- can serve a download) until the job expires; a schedule then deletes them.
create table export_jobs (
  org_id text not null,
  job_id text not null,
  status text not null check (status in ('queued', 'running', 'completed', 'failed', 'expired')),
  collections jsonb not null,
  period_from timestamptz,
  period_to timestamptz,
  format text not null,
  rows_expected bigint not null,
  rows_written bigint not null default 0,
  -- Where the writer stands: collection index, key of the last row written, next chunk number.
  position jsonb not null,
  bytes_written bigint not null default 0,
  requested_by text,
  created_at timestamptz not null,
  started_at timestamptz,
  completed_at timestamptz,
  expires_at timestamptz,
  error text,
  primary key (org_id, job_id)
);
create index export_jobs_expiry_idx on export_jobs (expires_at) where status in ('completed', 'failed');

create table export_chunks (
  org_id text not null,
  job_id text not null,
  seq integer not null,
  collection text not null,
  rows integer not null,
  body text not null,
  primary key (org_id, job_id, seq),
  foreign key (org_id, job_id) references export_jobs (org_id, job_id) on delete cascade
);
create index export_chunks_collection_idx on export_chunks (org_id, job_id, collection, seq);

select enable_org_isolation('export_jobs');
select enable_org_isolation('export_chunks');
