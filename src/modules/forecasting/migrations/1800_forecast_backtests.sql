-- Long forecast backtests run as background jobs (decision 0196): the job's period, its progress in
-- UK days, the running sums of each method's errors (so each chunk of days is added in the same
-- transaction as the progress, and a job resumed elsewhere neither repeats nor skips a day), and
-- the result once completed.
create table forecast_backtests (
  org_id text not null,
  backtest_id text not null,
  site_id text not null,
  status text not null check (status in ('queued', 'running', 'completed', 'failed')),
  from_date date not null,
  to_date date not null,
  methods jsonb not null,
  days_total integer not null,
  days_done integer not null default 0,
  sums jsonb not null,
  result jsonb,
  requested_by text,
  created_at timestamptz not null,
  started_at timestamptz,
  completed_at timestamptz,
  error text,
  primary key (org_id, backtest_id)
);
select enable_org_isolation('forecast_backtests');
