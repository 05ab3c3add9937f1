-- Units of cross-organisation background work that failed (decision 0285): a recurring job that
-- works across organisations processes each organisation (or one of its assets) as its own unit;
-- a unit that fails is retried with backoff, and after its last attempt it is quarantined (skipped
-- until an operator releases it or its long retry succeeds) while every other unit goes on. A row
-- exists only while a unit is failing: a success removes it. Time columns come from the service
-- clock, never now(), so tests move time.
create table job_units (
  kind text not null,
  org_id text not null,
  -- '' when the unit is the whole organisation
  unit_key text not null default '',
  -- consecutive failures
  attempts integer not null,
  -- what kind of failure (a SQLSTATE class name or an error's name): safe to show an organisation
  error_class text not null,
  -- the error's own text, for operators only (the CLI); never shown to an organisation
  last_error text,
  first_failed_at timestamptz not null,
  last_failed_at timestamptz not null,
  -- not tried before this time (backoff; for a quarantined unit, its long retry)
  retry_at timestamptz not null,
  quarantined_at timestamptz,
  primary key (kind, org_id, unit_key)
);
create index job_units_quarantined_idx on job_units (kind) where quarantined_at is not null;

select enable_org_isolation('job_units');
