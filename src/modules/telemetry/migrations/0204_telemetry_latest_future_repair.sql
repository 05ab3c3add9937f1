-- Repairs newest-reading rows frozen by a far-future timestamp (decision 0048). Before 0048 a
-- record dated more than 24 hours after its arrival (flagged ts_in_future, e.g. year 9999) became
-- its asset's telemetry_latest row and no later record could replace it. Ingestion no longer lets
-- such a record in; here each such row is replaced by the asset's newest record whose ts was not
-- flagged, or removed when the asset has none. Only this derived table changes: every telemetry
-- record stays as stored.
update telemetry_latest l
set (ts, received_at, power_kw, soc_pct, voltage, "current", temp_c, status, raw) = (
  select t.ts, t.received_at, t.power_kw, t.soc_pct, t.voltage, t."current", t.temp_c, t.status, t.raw
  from telemetry t
  where t.org_id = l.org_id and t.asset_id = l.asset_id and not ('ts_in_future' = any(t.anomalies))
  order by t.ts desc, t.id desc
  limit 1
)
where l.ts > l.received_at + interval '24 hours'
  and exists (
    select 1 from telemetry t
    where t.org_id = l.org_id and t.asset_id = l.asset_id and not ('ts_in_future' = any(t.anomalies))
  );

delete from telemetry_latest where ts > received_at + interval '24 hours';
