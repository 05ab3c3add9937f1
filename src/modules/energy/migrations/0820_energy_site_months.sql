-- One site's UK calendar month: the sums of its daily rollup rows (decision 0156), so a league or
-- total over a year reads 12 rows a site plus the days of the months the window only partly
-- covers. Kept by the same transaction that writes the days; filled here from the days stored.
create table energy_site_months (
  org_id text not null,
  site_id text not null,
  month date not null,
  days integer not null,
  half_hours integer not null,
  complete_half_hours integer not null,
  measured_half_hours integer not null,
  import_kwh numeric(18, 3) not null,
  export_kwh numeric(18, 3) not null,
  generation_kwh numeric(18, 3) not null,
  consumption_kwh numeric(18, 3) not null,
  charge_kwh numeric(18, 3) not null,
  discharge_kwh numeric(18, 3) not null,
  residual_kwh numeric(18, 3) not null,
  self_consumed_kwh numeric(18, 3) not null,
  max_import_kwh numeric(14, 3) not null,
  primary key (org_id, site_id, month)
);
select enable_org_isolation('energy_site_months');

insert into energy_site_months (org_id, site_id, month, days, half_hours, complete_half_hours, measured_half_hours, import_kwh, export_kwh,
  generation_kwh, consumption_kwh, charge_kwh, discharge_kwh, residual_kwh, self_consumed_kwh, max_import_kwh)
select org_id, site_id, date_trunc('month', day)::date, count(*), sum(half_hours), sum(complete_half_hours), sum(measured_half_hours),
       sum(import_kwh), sum(export_kwh), sum(generation_kwh), sum(consumption_kwh), sum(charge_kwh), sum(discharge_kwh),
       sum(residual_kwh), sum(self_consumed_kwh), max(max_import_kwh)
from energy_site_days group by 1, 2, 3;

-- The days at the edges of a window, across the organisation's sites.
create index energy_site_days_org_day on energy_site_days (org_id, day);
