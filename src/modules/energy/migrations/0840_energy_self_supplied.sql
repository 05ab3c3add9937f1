-- Self-sufficiency's own numerator and denominator (decision 0492): per half hour, the consumption
-- not met by import (at least zero), and the consumption where it is positive, summed per UK day
-- and month. Generation used on site (self_consumed_kwh) also counts what charged the battery, and a
-- half hour whose meters disagree can derive a negative consumption: dividing one by the other's
-- total gave self-sufficiency figures above 100 %.
alter table energy_site_days add column self_supplied_kwh numeric(22, 3) not null default 0,
  add column consumption_positive_kwh numeric(22, 3) not null default 0;
alter table energy_site_months add column self_supplied_kwh numeric(24, 3) not null default 0,
  add column consumption_positive_kwh numeric(24, 3) not null default 0;

update energy_site_days d set self_supplied_kwh = h.s, consumption_positive_kwh = h.c
from (select org_id, site_id, day, sum(greatest(consumption_kwh - import_kwh, 0)) as s, sum(greatest(consumption_kwh, 0)) as c
      from energy_site_halfhours group by 1, 2, 3) h
where h.org_id = d.org_id and h.site_id = d.site_id and h.day = d.day;

update energy_site_months m set self_supplied_kwh = d.s, consumption_positive_kwh = d.c
from (select org_id, site_id, date_trunc('month', day)::date as month, sum(self_supplied_kwh) as s, sum(consumption_positive_kwh) as c
      from energy_site_days group by 1, 2, 3) d
where d.org_id = m.org_id and d.site_id = m.site_id and d.month = m.month;
