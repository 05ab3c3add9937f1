-- Register metrics in the daily rollups (decision 0323): a history bucket of a cumulative register
-- (ev `sessions`, heat-pump `kwh`) is the register's advance over the bucket, not the mean of its
-- readings. For each such slot i (5 and 6 of the metric table), a day's rollup also keeps its
-- first reading (cf<i>_ts, cf<i>), its last (cl<i>_ts, cl<i>) and the advance between its own
-- consecutive readings (ca<i>; null when no two were joined), as exact decimals: the interval from one day's last reading to the
-- next day's first is split between the days at read time.
--
-- Rows sealed before this migration have them null: a history read of a register metric takes
-- such a day from the samples (decision 0323).
alter table telemetry_rollup_daily
  add column cf5_ts timestamptz, add column cf5 numeric, add column cl5_ts timestamptz, add column cl5 numeric, add column ca5 numeric,
  add column cf6_ts timestamptz, add column cf6 numeric, add column cl6_ts timestamptz, add column cl6 numeric, add column ca6 numeric;
