-- The site's sums hold what the record rules accept (decision 0280): one asset's half hour is at
-- most 5e7 kWh (power_kw bounded at 1e8 kW, counter advances at the same rate), which fits
-- energy_asset_flows.kwh numeric(14, 3). A site's half hour sums its assets, a day up to 50 half
-- hours, a month up to 31 days: the columns are widened so a billion assets at the bound fit
-- (half hour below 1e17 kWh, day below 1e19, month below 1e21). Only the precision grows (the
-- scale stays 3), so PostgreSQL changes the type without rewriting the rows.
alter table energy_site_halfhours
  alter column import_kwh type numeric(20, 3),
  alter column export_kwh type numeric(20, 3),
  alter column generation_kwh type numeric(20, 3),
  alter column consumption_kwh type numeric(20, 3),
  alter column charge_kwh type numeric(20, 3),
  alter column discharge_kwh type numeric(20, 3),
  alter column residual_kwh type numeric(20, 3);

alter table energy_site_days
  alter column import_kwh type numeric(22, 3),
  alter column export_kwh type numeric(22, 3),
  alter column generation_kwh type numeric(22, 3),
  alter column consumption_kwh type numeric(22, 3),
  alter column charge_kwh type numeric(22, 3),
  alter column discharge_kwh type numeric(22, 3),
  alter column residual_kwh type numeric(22, 3),
  alter column self_consumed_kwh type numeric(22, 3),
  alter column max_import_kwh type numeric(20, 3);

alter table energy_site_months
  alter column import_kwh type numeric(24, 3),
  alter column export_kwh type numeric(24, 3),
  alter column generation_kwh type numeric(24, 3),
  alter column consumption_kwh type numeric(24, 3),
  alter column charge_kwh type numeric(24, 3),
  alter column discharge_kwh type numeric(24, 3),
  alter column residual_kwh type numeric(24, 3),
  alter column self_consumed_kwh type numeric(24, 3),
  alter column max_import_kwh type numeric(20, 3);
