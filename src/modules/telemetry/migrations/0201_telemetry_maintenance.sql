-- Telemetry partition maintenance that several instances may run at the same time, and retention.
-- Column names and the meaning of telemetry_latest are unchanged (other modules read them).

-- Creates monthly partitions covering [month of from_ts, month of to_ts]. Safe to run from several
-- instances at once: a transaction-scoped advisory lock serialises the maintainers, and a partition
-- made by another instance is simply skipped. Rows that landed in the default partition for a month
-- that gets its own partition later (far-future or old timestamps) are moved into it, because
-- PostgreSQL refuses to create a partition whose range the default partition already holds.
create or replace function telemetry_ensure_partitions(from_ts timestamptz, to_ts timestamptz)
returns integer language plpgsql as $$
declare
  m timestamptz := date_trunc('month', from_ts at time zone 'UTC') at time zone 'UTC';
  nxt timestamptz;
  made integer := 0;
  name text;
begin
  perform pg_advisory_xact_lock(hashtext('telemetry_partition_maintenance'));
  while m <= to_ts loop
    nxt := (m at time zone 'UTC' + interval '1 month') at time zone 'UTC';
    name := 'telemetry_' || to_char(m at time zone 'UTC', 'YYYYMM');
    if to_regclass(name) is null then
      begin
        if exists (select 1 from telemetry_default where ts >= m and ts < nxt) then
          execute format('create table %I (like telemetry including defaults including constraints)', name);
          execute format(
            'with moved as (delete from telemetry_default where ts >= %L and ts < %L returning *) insert into %I select * from moved',
            m, nxt, name);
          execute format('alter table telemetry attach partition %I for values from (%L) to (%L)', name, m, nxt);
        else
          execute format('create table %I partition of telemetry for values from (%L) to (%L)', name, m, nxt);
        end if;
        made := made + 1;
      exception when duplicate_table then
        -- made by a maintainer that does not take the lock (an older instance): nothing to do
        null;
      end;
    end if;
    m := nxt;
  end loop;
  return made;
end;
$$;

-- Retention: drops every monthly partition that ends at or before cutoff (whole partitions, no
-- row-by-row delete), and deletes rows older than cutoff from the default partition. Returns the
-- number of partitions dropped. telemetry_latest is kept: it records when an asset last reported.
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
  return dropped;
end;
$$;
