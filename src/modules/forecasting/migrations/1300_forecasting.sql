-- Forecasting (decision 0190): each site's forecast configuration. Forecasts themselves are
-- computed on request from stored telemetry and are not kept.
create table forecast_site_config (
  org_id text not null,
  site_id text not null,
  method text not null check (method in ('persistence', 'seasonal', 'blend')),
  horizon_hours integer not null check (horizon_hours between 1 and 48),
  seasonal_weight double precision not null check (seasonal_weight between 0 and 1),
  updated_at timestamptz not null,
  updated_by text,
  primary key (org_id, site_id)
);
select enable_org_isolation('forecast_site_config');
