-- Fair claiming (decision 0088) counts each organisation's running jobs (rows under a live lease)
-- on every claim. Settled rows clear locked_until, so this index holds only the running ones.
create index jobs_running_idx on jobs (kind, locked_until) where locked_until is not null and failed_at is null;
