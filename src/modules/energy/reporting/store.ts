// EMS reporting SQL over the energy rollup (the module's own tables): half hours split by the
// site's operating hours, and the slim half-hour read the interval exports stream.
import type { Queryable } from '../../../infra/db/index.ts';

export interface OperatingRule {
  /** ISO day of week, 1 = Monday. */
  dow: number;
  /** Minutes after local midnight, start inclusive, end exclusive. */
  startMin: number;
  endMin: number;
}

export interface HoursSplitRow {
  day: string;
  in_hours: boolean;
  half_hours: number;
  complete_half_hours: number;
  consumption_kwh: string;
  import_kwh: string;
}

/**
 * A site's consumption and import per UK day, in and out of operating hours (a half hour is in
 * hours when its UK local start time falls in a rule of its UK local weekday).
 */
export async function hoursSplit(q: Queryable, orgId: string, siteId: string, from: Date, to: Date, rules: OperatingRule[]): Promise<HoursSplitRow[]> {
  const r = await q.query<HoursSplitRow>(
    `select to_char(h.day, 'YYYY-MM-DD') as day,
            exists (select 1 from unnest($5::int[], $6::int[], $7::int[]) as r(d, s, e)
                    where r.d = extract(isodow from lt.l)::int
                      and (extract(hour from lt.l) * 60 + extract(minute from lt.l))::int >= r.s
                      and (extract(hour from lt.l) * 60 + extract(minute from lt.l))::int < r.e) as in_hours,
            count(*)::int as half_hours, count(*) filter (where h.complete)::int as complete_half_hours,
            sum(h.consumption_kwh)::text as consumption_kwh, sum(h.import_kwh)::text as import_kwh
     from energy_site_halfhours h
     cross join lateral (select h.slot at time zone 'Europe/London' as l) lt
     where h.org_id = $1 and h.site_id = $2 and h.slot >= $3 and h.slot < $4
     group by 1, 2 order by 1, 2`,
    [orgId, siteId, from, to, rules.map((x) => x.dow), rules.map((x) => x.startMin), rules.map((x) => x.endMin)],
  );
  return r.rows;
}

const FLOWS = ['import', 'export', 'generation', 'consumption', 'charge', 'discharge'] as const;

/**
 * One site's stored half hours in [from, to) as one text value (decision 0155): a line per half
 * hour, in slot order, `<epoch seconds>,<import>,<export>,<generation>,<consumption>,<charge>,
 * <discharge>,<residual>,<gap>,<coverage>,<consumption method>,<basis of each flow ×6>`, every value
 * already as the interval export writes it (kWh as exact decimal text, `gap` true/false, a flow
 * with no basis `missing`). The driver then carries one value, not 17 columns of each row.
 */
export async function intervalValues(q: Queryable, orgId: string, siteId: string, from: Date, to: Date, simulated = false): Promise<string> {
  const fields = [
    'extract(epoch from slot)::bigint::text',
    ...['import', 'export', 'generation', 'consumption', 'charge', 'discharge', 'residual'].map((f) => `${f}_kwh::text`),
    `case when complete then 'false' else 'true' end`,
    'coverage::text',
    'consumption_method',
    // A demo organisation's bases read simulated (basis-shown.ts, decision 0304).
    ...FLOWS.map((f) =>
      simulated
        ? `case when basis ->> '${f}' in ('measured', 'calculated') then 'simulated' else coalesce(basis ->> '${f}', 'missing') end`
        : `coalesce(basis ->> '${f}', 'missing')`,
    ),
  ];
  const r = await q.query<{ body: string | null }>(
    `select string_agg(${fields.join(` || ',' || `)}, E'\n' order by slot) as body
     from energy_site_halfhours where org_id = $1 and site_id = $2 and slot >= $3 and slot < $4`,
    [orgId, siteId, from, to],
  );
  return r.rows[0]?.body ?? '';
}

/** How many of the window's half hours have each flow measured or absent, in one pass: `{import: {measured: 48, absent: 0}, ...}`. */
export async function flowBases(q: Queryable, orgId: string, siteId: string, from: Date, to: Date): Promise<Record<string, Record<string, number>>> {
  const flows = ['import', 'export', 'generation', 'consumption', 'charge', 'discharge'];
  const cols = flows.flatMap((f) => [
    `count(*) filter (where basis ->> '${f}' = 'measured')::int as "${f}_measured"`,
    `count(*) filter (where basis ->> '${f}' = 'absent')::int as "${f}_absent"`,
  ]);
  const r = await q.query<Record<string, number>>(
    `select ${cols.join(', ')} from energy_site_halfhours where org_id = $1 and site_id = $2 and slot >= $3 and slot < $4`,
    [orgId, siteId, from, to],
  );
  const row = r.rows[0] ?? {};
  return Object.fromEntries(flows.map((f) => [f, { measured: Number(row[`${f}_measured`] ?? 0), absent: Number(row[`${f}_absent`] ?? 0) }]));
}

/**
 * A site's consumption over the window by UK local weekday and minute of day (at most 7 × 48
 * groups whatever the window): the report classifies them by the operating hours.
 */
export async function consumptionByLocalTime(q: Queryable, orgId: string, siteId: string, from: Date, to: Date) {
  const r = await q.query<{ dow: number; minute: number; consumption_kwh: string }>(
    `select extract(isodow from lt.l)::int as dow, (extract(hour from lt.l) * 60 + extract(minute from lt.l))::int as minute,
            sum(h.consumption_kwh)::text as consumption_kwh
     from energy_site_halfhours h
     cross join lateral (select h.slot at time zone 'Europe/London' as l) lt
     where h.org_id = $1 and h.site_id = $2 and h.slot >= $3 and h.slot < $4
     group by 1, 2`,
    [orgId, siteId, from, to],
  );
  return r.rows;
}
