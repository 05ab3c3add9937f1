-- Durable job queue: one row per pending run. Any instance claims due rows with
-- FOR UPDATE SKIP LOCKED and holds them under a lease (locked_until); a crashed holder's lease
-- runs out and another instance takes the row over. Time columns are written from the service
-- clock, never now(), so tests move time.
create table jobs (
  id bigint generated always as identity primary key,
  kind text not null,
  payload jsonb not null default '{}',
  run_at timestamptz not null,
  attempts integer not null default 0,
  max_attempts integer not null default 25,
  locked_until timestamptz,
  lock_token text,
  -- one pending row per key (recurring schedules, idempotent enqueues)
  dedupe_key text,
  last_error text,
  -- set when max_attempts is exhausted; the row stays for inspection and is never claimed again
  failed_at timestamptz,
  org_id text,
  created_at timestamptz not null
);
create index jobs_due_idx on jobs (run_at, id) where failed_at is null;
create index jobs_kind_idx on jobs (kind, run_at) where failed_at is null;
create unique index jobs_dedupe_key on jobs (dedupe_key) where dedupe_key is not null;
create index jobs_org_idx on jobs (org_id) where org_id is not null;

-- Durable domain events: publishing a topic inserts one job per subscribed kind, in the
-- publisher's transaction (an outbox), so a reaction is never lost and never runs twice.
create table job_subscriptions (
  topic text not null,
  kind text not null,
  primary key (topic, kind)
);

-- Row-level security (decision 0009): only the rows of app.org_id for the restricted role.
select enable_org_isolation('jobs');
