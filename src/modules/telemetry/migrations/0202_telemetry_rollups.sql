-- Sealed daily rollups of the history metrics, so long history ranges (daily, weekly, historical)
-- read one row per asset-day instead of every sample (decision 0046).
--
-- A day is sealed by partition maintenance once it has ended (plus a grace period): its samples are
-- aggregated per (org_id, asset_id) into telemetry_rollup_daily and the horizon moves past it. A
-- record that arrives later for a sealed day (ts < horizon) is added to its rollup by the ingest
-- statement itself, in the same transaction. Ingest holds a shared advisory lock and sealing an
-- exclusive one, so every record is counted exactly once (by the seal or by its insert).

-- Days before `horizon` are sealed. NULL until the first maintenance pass sets it.
create table telemetry_rollup_state (
  id boolean primary key default true check (id),
  horizon timestamptz
);
insert into telemetry_rollup_state (id, horizon) values (true, null);

-- One row per organisation, asset and UTC day. Slot i holds metric id i of the metric table
-- (src/modules/telemetry/metrics.ts): n = samples carrying the metric, s = their sum,
-- mn/mx = their minimum and maximum.
create table telemetry_rollup_daily (
  org_id text not null,
  asset_id text not null,
  day timestamptz not null,
  n0 integer not null default 0, s0 double precision, mn0 double precision, mx0 double precision,
  n1 integer not null default 0, s1 double precision, mn1 double precision, mx1 double precision,
  n2 integer not null default 0, s2 double precision, mn2 double precision, mx2 double precision,
  n3 integer not null default 0, s3 double precision, mn3 double precision, mx3 double precision,
  n4 integer not null default 0, s4 double precision, mn4 double precision, mx4 double precision,
  n5 integer not null default 0, s5 double precision, mn5 double precision, mx5 double precision,
  n6 integer not null default 0, s6 double precision, mn6 double precision, mx6 double precision,
  n7 integer not null default 0, s7 double precision, mn7 double precision, mx7 double precision,
  n8 integer not null default 0, s8 double precision, mn8 double precision, mx8 double precision,
  n9 integer not null default 0, s9 double precision, mn9 double precision, mx9 double precision,
  n10 integer not null default 0, s10 double precision, mn10 double precision, mx10 double precision,
  n11 integer not null default 0, s11 double precision, mn11 double precision, mx11 double precision,
  primary key (org_id, asset_id, day)
);

-- Sealing reads one day of every asset: a BRIN index on ts makes that a range scan. Records
-- arrive in roughly ts order, so the index stays small and nearly free to maintain.
create index telemetry_ts_brin_idx on telemetry using brin (ts);

-- Retention also removes the rollups of the days it removes (the maintenance pass gives a
-- month-aligned cutoff, so whole partitions, default rows and rollups go together).
create or replace function telemetry_drop_partitions_before(cutoff timestamptz)
returns integer language plpgsql as $$
declare
  r record;
  dropped integer := 0;
  upper_ts timestamptz;
begin
  perform pg_advisory_xact_lock(hashtext('telemetry_partition_maintenance'));
  for r in
    select c.relname
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = to_regclass('telemetry') and c.relname ~ '^telemetry_[0-9]{6}$'
    order by c.relname
  loop
    upper_ts := (to_date(substr(r.relname, 11), 'YYYYMM')::timestamp + interval '1 month') at time zone 'UTC';
    if upper_ts <= cutoff then
      execute format('drop table %I', r.relname);
      dropped := dropped + 1;
    end if;
  end loop;
  delete from telemetry_default where ts < cutoff;
  delete from telemetry_rollup_daily where day < cutoff;
  return dropped;
end;
$$;

-- Row-level security (decision 0009): only the rows of app.org_id for the restricted role.
select enable_org_isolation('telemetry_rollup_daily');
