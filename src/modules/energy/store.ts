// Energy SQL: the rollup tables (asset flows, site half hours, site days), pending work, rebuilds,
// EMS settings, PV calibrations and Scope 2 factors. Every organisation-scoped function takes the
// organisation first and filters on it.
import type { Queryable } from '../../infra/db/index.ts';
import type { TouchedRange } from '../telemetry/index.ts';

export interface AssetFlowRow {
  asset_id: string;
  slot: Date;
  flow: string;
  kwh: string;
  basis: 'measured' | 'calculated';
  source: string;
  coverage: number;
  samples: number;
  resets: number;
}

/** A period's energy by flow, kWh text, with the residual that does not balance. */
export interface FlowKwh {
  import_kwh: string;
  export_kwh: string;
  generation_kwh: string;
  consumption_kwh: string;
  charge_kwh: string;
  discharge_kwh: string;
  residual_kwh: string;
}

export interface SiteHalfHourRow extends FlowKwh {
  slot: Date;
  day: string;
  basis: Record<string, string>;
  consumption_method: 'metered' | 'derived';
  coverage: number;
  assets_expected: number;
  assets_reporting: number;
  complete: boolean;
  all_measured: boolean;
}

export interface SiteDayRow extends FlowKwh {
  site_id: string;
  day: string;
  half_hours: number;
  complete_half_hours: number;
  measured_half_hours: number;
  self_consumed_kwh: string;
  /** Consumption not met by import, a half hour at least 0, summed (self-sufficiency's numerator, decision 0492). */
  self_supplied_kwh: string;
  /** Consumption of the half hours where it is positive, summed (self-sufficiency's denominator, decision 0492). */
  consumption_positive_kwh: string;
  max_import_kwh: string;
}

const HH_COLS = `slot, to_char(day, 'YYYY-MM-DD') as day, import_kwh, export_kwh, generation_kwh, consumption_kwh, charge_kwh,
  discharge_kwh, residual_kwh, basis, consumption_method, coverage, assets_expected, assets_reporting, complete, all_measured`;
const DAY_COLS = `site_id, to_char(day, 'YYYY-MM-DD') as day, half_hours, complete_half_hours, measured_half_hours, import_kwh, export_kwh,
  generation_kwh, consumption_kwh, charge_kwh, discharge_kwh, residual_kwh, self_consumed_kwh, self_supplied_kwh, consumption_positive_kwh, max_import_kwh`;

/**
 * The whole UK months inside the days [fromDay, toDay): the first month's first day and the day
 * after the last whole month (equal when no month is covered whole).
 */
export function wholeMonths(fromDay: string, toDay: string): { firstMonth: string; endMonth: string } {
  const [fy, fm, fd] = fromDay.split('-').map(Number) as [number, number, number];
  const first = fd === 1 ? Date.UTC(fy, fm - 1, 1) : Date.UTC(fy, fm, 1);
  const [ty, tm] = toDay.split('-').map(Number) as [number, number];
  const end = Math.max(first, Date.UTC(ty, tm - 1, 1));
  const day = (t: number) => {
    const d = new Date(t);
    return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-01`;
  };
  return { firstMonth: day(first), endMonth: day(end) };
}

/** A site over slots [from, to) (both on half-hour boundaries): what a recompute replaces. */
export interface SiteWindow {
  site_id: string;
  from: Date;
  to: Date;
}

/** An asset over slots [from, to). */
export interface AssetWindow {
  asset_id: string;
  from: Date;
  to: Date;
}

export type SiteAssetFlowRow = AssetFlowRow & { site_id: string };

function siteWindowParams(windows: readonly SiteWindow[]): unknown[] {
  return [windows.map((x) => x.site_id), windows.map((x) => x.from), windows.map((x) => x.to)];
}

/** A pending row's place in the refresh's walk: (org, asset, seq). */
export interface PendingKey {
  org_id: string;
  asset_id: string;
  seq: string;
}

export function createEnergyStore() {
  return {
    /**
     * What ingestion runs in each batch's own statement (telemetry's BatchStatement, decision 0476):
     * a pending span per asset the batch touched, in the batch's transaction.
     */
    pendingFromBatch: `insert into energy_pending (org_id, asset_id, from_ts, to_ts) select $1, asset_id, from_ts, to_ts from touched`,

    /** Adds a pending span per asset (a refresh's site that failed keeps its spans this way). */
    async markPending(q: Queryable, orgId: string, touched: TouchedRange[]): Promise<void> {
      await q.query(
        `insert into energy_pending as p (org_id, asset_id, from_ts, to_ts)
         select $1, a, to_timestamp(f / 1000.0), to_timestamp(t / 1000.0)
         from unnest($2::text[], $3::float8[], $4::float8[]) as u(a, f, t)`,
        [orgId, touched.map((t) => t.asset_id), touched.map((t) => t.from), touched.map((t) => t.to)],
      );
    },

    /**
     * Takes the pending rows of the next `maxAssets` assets after `after` (in (org, asset) order),
     * at most `maxRows` rows in all (an asset cut short is taken up again after its last row), up to
     * sequence `upToSeq`: removed in the caller's transaction, skipping rows others hold. One span an
     * asset: the earliest start and latest end of its rows taken. `last` is where the next call
     * starts (null when nothing was taken).
     * A run walks the table once from where the previous call stopped (decision 0514): started from
     * the beginning each time, every call read again the index entries of the rows the run had
     * already deleted (until a vacuum), and a run's cost grew with the square of its rows.
     * Rows ingestion adds meanwhile are new rows, neither seen nor waited on (decision 0157).
     */
    async takePending(
      q: Queryable,
      opts: {
        maxAssets: number;
        maxRows: number;
        upToSeq: string;
        after: PendingKey | null;
        orgId?: string;
        skipAssets?: readonly string[];
      },
    ): Promise<{ spans: { org_id: string; asset_id: string; from_ts: Date; to_ts: Date }[]; last: PendingKey | null }> {
      const after = opts.after ?? { org_id: '', asset_id: '', seq: '0' };
      const r = await q.query<{ org_id: string; asset_id: string; from_ts: Date; to_ts: Date; last_seq: string }>(
        `with next_assets as (
           select distinct org_id, asset_id from energy_pending
           where (org_id, asset_id) >= ($4, $5) and seq <= $3::bigint ${opts.orgId === undefined ? '' : 'and org_id = $7 and asset_id <> all($8::text[])'}
           order by org_id, asset_id limit $1
         ), pick as (
           select p.org_id, p.asset_id, p.seq from energy_pending p join next_assets n on n.org_id = p.org_id and n.asset_id = p.asset_id
           where (p.org_id, p.asset_id, p.seq) > ($4, $5, $6::bigint) and p.seq <= $3::bigint
           order by p.org_id, p.asset_id, p.seq limit $2 for update of p skip locked
         ), gone as (
           delete from energy_pending p using pick where p.org_id = pick.org_id and p.asset_id = pick.asset_id and p.seq = pick.seq
           returning p.org_id, p.asset_id, p.seq, p.from_ts, p.to_ts
         )
         select org_id, asset_id, min(from_ts) as from_ts, max(to_ts) as to_ts, max(seq)::text as last_seq
         from gone group by org_id, asset_id order by org_id, asset_id`,
        [
          opts.maxAssets,
          opts.maxRows,
          opts.upToSeq,
          after.org_id,
          after.asset_id,
          after.seq,
          ...(opts.orgId === undefined ? [] : [opts.orgId, opts.skipAssets ?? []]),
        ],
      );
      const end = r.rows.at(-1);
      return {
        spans: r.rows.map((x) => ({ org_id: x.org_id, asset_id: x.asset_id, from_ts: new Date(x.from_ts), to_ts: new Date(x.to_ts) })),
        last: end ? { org_id: end.org_id, asset_id: end.asset_id, seq: end.last_seq } : null,
      };
    },

    /**
     * The newest pending row's sequence number (of the organisation, when given), as text; null when
     * none is pending. A refresh takes the rows up to it and no more (decision 0512).
     */
    async pendingHighWater(q: Queryable, orgId?: string): Promise<string | null> {
      const r = await q.query<{ seq: string | null }>(
        `select max(seq)::text as seq from energy_pending ${orgId === undefined ? '' : 'where org_id = $1'}`,
        orgId === undefined ? [] : [orgId],
      );
      return r.rows[0]?.seq ?? null;
    },

    /** The organisations with pending spans (the refresh's units, decision 0285). */
    async pendingOrgs(q: Queryable): Promise<string[]> {
      const r = await q.query<{ org_id: string }>('select distinct org_id from energy_pending order by org_id');
      return r.rows.map((x) => x.org_id);
    },

    async pendingCount(q: Queryable, orgId: string, assetIds: string[]): Promise<number> {
      const r = await q.query<{ n: number }>('select count(distinct asset_id)::int as n from energy_pending where org_id = $1 and asset_id = any($2::text[])', [
        orgId,
        assetIds,
      ]);
      return r.rows[0].n;
    },

    /**
     * Replaces each window's asset flow rows (an asset over its slots [from, to)) with `rows`,
     * rounding each to the watt-hour: one delete and one insert whatever the number of windows.
     */
    async replaceAssetsFlows(q: Queryable, orgId: string, windows: readonly AssetWindow[], rows: readonly SiteAssetFlowRow[]): Promise<void> {
      if (!windows.length) return;
      await q.query(
        `delete from energy_asset_flows e using unnest($2::text[], $3::timestamptz[], $4::timestamptz[]) as u(aid, f, t)
         where e.org_id = $1 and e.asset_id = u.aid and e.slot >= u.f and e.slot < u.t`,
        [orgId, windows.map((x) => x.asset_id), windows.map((x) => x.from), windows.map((x) => x.to)],
      );
      if (!rows.length) return;
      await q.query(
        `insert into energy_asset_flows (org_id, asset_id, site_id, slot, flow, kwh, basis, source, coverage, samples, resets)
         select $1, u.asset_id, u.site_id, u.slot, u.flow, round(u.kwh::numeric, 3), u.basis, u.source, u.coverage, u.samples, u.resets
         from unnest($2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::float8[], $7::text[], $8::text[], $9::float8[], $10::int[], $11::int[])
              as u(asset_id, site_id, slot, flow, kwh, basis, source, coverage, samples, resets)`,
        [
          orgId,
          rows.map((r) => r.asset_id),
          rows.map((r) => r.site_id),
          rows.map((r) => r.slot),
          rows.map((r) => r.flow),
          rows.map((r) => Number(r.kwh)),
          rows.map((r) => r.basis),
          rows.map((r) => r.source),
          rows.map((r) => r.coverage),
          rows.map((r) => r.samples),
          rows.map((r) => r.resets),
        ],
      );
    },

    /** Removes each site window's flow rows of assets no longer at the site (moved, deleted or without a role). */
    async dropOtherAssets(q: Queryable, orgId: string, windows: readonly SiteWindow[], keep: readonly { site_id: string; asset_id: string }[]): Promise<void> {
      if (!windows.length) return;
      await q.query(
        `delete from energy_asset_flows e using unnest($2::text[], $3::timestamptz[], $4::timestamptz[]) as u(site, f, t)
         where e.org_id = $1 and e.site_id = u.site and e.slot >= u.f and e.slot < u.t
           and not exists (select 1 from unnest($5::text[], $6::text[]) as k(site, aid) where k.site = e.site_id and k.aid = e.asset_id)`,
        [orgId, ...siteWindowParams(windows), keep.map((k) => k.site_id), keep.map((k) => k.asset_id)],
      );
    },

    /** Each site window's asset flow rows, by window index (0-based), in slot, asset and flow order. */
    async assetFlowsIn(q: Queryable, orgId: string, windows: readonly SiteWindow[]): Promise<(AssetFlowRow & { w: number })[]> {
      if (!windows.length) return [];
      const r = await q.query<AssetFlowRow & { w: number }>(
        `select u.w::int - 1 as w, e.asset_id, e.slot, e.flow, e.kwh::text as kwh, e.basis, e.source, e.coverage, e.samples, e.resets
         from unnest($2::text[], $3::timestamptz[], $4::timestamptz[]) with ordinality as u(site, f, t, w)
         join energy_asset_flows e on e.org_id = $1 and e.site_id = u.site and e.slot >= u.f and e.slot < u.t
         order by u.w, e.slot, e.asset_id, e.flow`,
        [orgId, ...siteWindowParams(windows)],
      );
      return r.rows.map((x) => ({ ...x, slot: new Date(x.slot) }));
    },

    async assetFlows(q: Queryable, orgId: string, siteId: string, from: Date, to: Date, assetIds?: string[]): Promise<AssetFlowRow[]> {
      const r = await q.query<AssetFlowRow>(
        `select asset_id, slot, flow, kwh::text as kwh, basis, source, coverage, samples, resets from energy_asset_flows
         where org_id = $1 and site_id = $2 and slot >= $3 and slot < $4 ${assetIds ? 'and asset_id = any($5::text[])' : ''}
         order by slot, asset_id, flow`,
        assetIds ? [orgId, siteId, from, to, assetIds] : [orgId, siteId, from, to],
      );
      return r.rows.map((x) => ({ ...x, slot: new Date(x.slot) }));
    },

    /** The given assets' flow rows in [from, to) whatever their site (other modules read them through ENERGY_FIGURES). */
    async assetFlowsOf(q: Queryable, orgId: string, assetIds: string[], from: Date, to: Date, flows: readonly string[]): Promise<AssetFlowRow[]> {
      if (!assetIds.length || !flows.length) return [];
      const r = await q.query<AssetFlowRow>(
        `select asset_id, slot, flow, kwh::text as kwh, basis, source, coverage, samples, resets from energy_asset_flows
         where org_id = $1 and asset_id = any($2::text[]) and slot >= $3 and slot < $4 and flow = any($5::text[])
         order by asset_id, slot, flow`,
        [orgId, assetIds, from, to, flows],
      );
      return r.rows.map((x) => ({ ...x, slot: new Date(x.slot) }));
    },

    /** Which of the given assets have spans waiting to be folded in (the ledger's pending state). */
    async pendingAssets(q: Queryable, orgId: string, assetIds: string[]): Promise<string[]> {
      if (!assetIds.length) return [];
      const r = await q.query<{ asset_id: string }>(
        'select distinct asset_id from energy_pending where org_id = $1 and asset_id = any($2::text[]) order by asset_id',
        [orgId, assetIds],
      );
      return r.rows.map((x) => x.asset_id);
    },

    /**
     * Replaces each site window's half hours (slots [from, to)) with `rows`, then re-sums the UK days
     * the windows fall in from their half hours, and the UK months from their days (decision 0156):
     * four statements whatever the number of windows. A site's windows do not overlap.
     */
    async replaceSiteHalfHours(
      q: Queryable,
      orgId: string,
      windows: readonly SiteWindow[],
      rows: readonly (SiteHalfHourRow & { site_id: string })[],
    ): Promise<void> {
      if (!windows.length) return;
      const sw = siteWindowParams(windows);
      await q.query(
        `delete from energy_site_halfhours h using unnest($2::text[], $3::timestamptz[], $4::timestamptz[]) as u(site, f, t)
         where h.org_id = $1 and h.site_id = u.site and h.slot >= u.f and h.slot < u.t`,
        [orgId, ...sw],
      );
      if (rows.length) {
        const col = <K extends keyof SiteHalfHourRow>(k: K) => rows.map((r) => r[k]);
        await q.query(
          `insert into energy_site_halfhours (org_id, site_id, slot, day, import_kwh, export_kwh, generation_kwh, consumption_kwh, charge_kwh,
             discharge_kwh, residual_kwh, basis, consumption_method, coverage, assets_expected, assets_reporting, complete, all_measured)
           select $1, u.* from unnest($2::text[], $3::timestamptz[], $4::date[], $5::numeric[], $6::numeric[], $7::numeric[], $8::numeric[], $9::numeric[],
             $10::numeric[], $11::numeric[], $12::jsonb[], $13::text[], $14::float8[], $15::int[], $16::int[], $17::bool[], $18::bool[]) as u`,
          [
            orgId,
            rows.map((r) => r.site_id),
            col('slot'),
            col('day'),
            col('import_kwh'),
            col('export_kwh'),
            col('generation_kwh'),
            col('consumption_kwh'),
            col('charge_kwh'),
            col('discharge_kwh'),
            col('residual_kwh'),
            rows.map((r) => JSON.stringify(r.basis)),
            col('consumption_method'),
            col('coverage'),
            col('assets_expected'),
            col('assets_reporting'),
            col('complete'),
            col('all_measured'),
          ],
        );
      }
      // The UK days the windows touch, summed again from their half hours.
      await q.query(
        `with days as (
           select distinct u.site, (s at time zone 'Europe/London')::date as day
           from unnest($2::text[], $3::timestamptz[], $4::timestamptz[]) as u(site, f, t)
           cross join lateral generate_series(u.f, u.t - '30 minutes'::interval, '30 minutes'::interval) s
         ), gone as (
           delete from energy_site_days d using days where d.org_id = $1 and d.site_id = days.site and d.day = days.day
         )
         insert into energy_site_days (org_id, site_id, day, half_hours, complete_half_hours, measured_half_hours, import_kwh, export_kwh,
           generation_kwh, consumption_kwh, charge_kwh, discharge_kwh, residual_kwh, self_consumed_kwh, self_supplied_kwh, consumption_positive_kwh, max_import_kwh)
         select $1, h.site_id, h.day, count(*)::int, count(*) filter (where complete)::int, count(*) filter (where all_measured)::int,
                sum(import_kwh), sum(export_kwh), sum(generation_kwh), sum(consumption_kwh), sum(charge_kwh), sum(discharge_kwh),
                sum(residual_kwh), sum(greatest(generation_kwh - export_kwh, 0)), sum(greatest(consumption_kwh - import_kwh, 0)), sum(greatest(consumption_kwh, 0)), max(import_kwh)
         from energy_site_halfhours h join days on days.site = h.site_id and days.day = h.day
         where h.org_id = $1
         group by h.site_id, h.day
         on conflict (org_id, site_id, day) do update set
           half_hours = excluded.half_hours, complete_half_hours = excluded.complete_half_hours,
           measured_half_hours = excluded.measured_half_hours, import_kwh = excluded.import_kwh, export_kwh = excluded.export_kwh,
           generation_kwh = excluded.generation_kwh, consumption_kwh = excluded.consumption_kwh, charge_kwh = excluded.charge_kwh,
           discharge_kwh = excluded.discharge_kwh, residual_kwh = excluded.residual_kwh, self_consumed_kwh = excluded.self_consumed_kwh,
           self_supplied_kwh = excluded.self_supplied_kwh, consumption_positive_kwh = excluded.consumption_positive_kwh, max_import_kwh = excluded.max_import_kwh`,
        [orgId, ...sw],
      );
      // The UK months those days fall in, summed again from their days (decision 0156).
      await q.query(
        `with months as (
           select distinct u.site, date_trunc('month', (s at time zone 'Europe/London'))::date as month
           from unnest($2::text[], $3::timestamptz[], $4::timestamptz[]) as u(site, f, t)
           cross join lateral generate_series(u.f, u.t - '30 minutes'::interval, '30 minutes'::interval) s
         ), gone as (
           delete from energy_site_months m using months where m.org_id = $1 and m.site_id = months.site and m.month = months.month
             and not exists (select 1 from energy_site_days d where d.org_id = $1 and d.site_id = months.site
                             and d.day >= months.month and d.day < (months.month + interval '1 month')::date)
         )
         insert into energy_site_months (org_id, site_id, month, days, half_hours, complete_half_hours, measured_half_hours, import_kwh, export_kwh,
           generation_kwh, consumption_kwh, charge_kwh, discharge_kwh, residual_kwh, self_consumed_kwh, self_supplied_kwh, consumption_positive_kwh, max_import_kwh)
         select $1, d.site_id, months.month, count(*)::int, sum(half_hours)::int, sum(complete_half_hours)::int, sum(measured_half_hours)::int,
                sum(import_kwh), sum(export_kwh), sum(generation_kwh), sum(consumption_kwh), sum(charge_kwh), sum(discharge_kwh),
                sum(residual_kwh), sum(self_consumed_kwh), sum(self_supplied_kwh), sum(consumption_positive_kwh), max(max_import_kwh)
         from energy_site_days d join months on d.site_id = months.site and d.day >= months.month and d.day < (months.month + interval '1 month')::date
         where d.org_id = $1
         group by d.site_id, months.month
         on conflict (org_id, site_id, month) do update set
           days = excluded.days, half_hours = excluded.half_hours, complete_half_hours = excluded.complete_half_hours,
           measured_half_hours = excluded.measured_half_hours, import_kwh = excluded.import_kwh, export_kwh = excluded.export_kwh,
           generation_kwh = excluded.generation_kwh, consumption_kwh = excluded.consumption_kwh, charge_kwh = excluded.charge_kwh,
           discharge_kwh = excluded.discharge_kwh, residual_kwh = excluded.residual_kwh, self_consumed_kwh = excluded.self_consumed_kwh,
           self_supplied_kwh = excluded.self_supplied_kwh, consumption_positive_kwh = excluded.consumption_positive_kwh, max_import_kwh = excluded.max_import_kwh`,
        [orgId, ...sw],
      );
    },

    async siteHalfHours(q: Queryable, orgId: string, siteId: string, from: Date, to: Date): Promise<SiteHalfHourRow[]> {
      const r = await q.query<SiteHalfHourRow>(
        `select ${HH_COLS} from energy_site_halfhours where org_id = $1 and site_id = $2 and slot >= $3 and slot < $4 order by slot`,
        [orgId, siteId, from, to],
      );
      return r.rows.map((x) => ({ ...x, slot: new Date(x.slot) }));
    },

    /** Half hours in slot order, `batch` at a time after `after` (streamed exports). */
    async siteHalfHoursAfter(q: Queryable, orgId: string, siteIds: string[], after: { site: string; slot: Date } | null, to: Date, from: Date, batch: number) {
      const r = await q.query<SiteHalfHourRow & { site_id: string }>(
        `select site_id, ${HH_COLS} from energy_site_halfhours
         where org_id = $1 and site_id = any($2::text[]) and slot >= $3 and slot < $4
           and ($5::text is null or (site_id, slot) > ($5::text, $6::timestamptz))
         order by site_id, slot limit $7`,
        [orgId, siteIds, from, to, after?.site ?? null, after?.slot ?? null, batch],
      );
      return r.rows.map((x) => ({ ...x, slot: new Date(x.slot) }));
    },

    async siteDays(q: Queryable, orgId: string, siteIds: string[] | null, fromDay: string, toDay: string): Promise<SiteDayRow[]> {
      const r = await q.query<SiteDayRow>(
        `select ${DAY_COLS} from energy_site_days
         where org_id = $1 and day >= $2::date and day < $3::date ${siteIds ? 'and site_id = any($4::text[])' : ''}
         order by site_id, day`,
        siteIds ? [orgId, fromDay, toDay, siteIds] : [orgId, fromDay, toDay],
      );
      return r.rows;
    },

    /** Sums of each site's days in [fromDay, toDay): one row a site (the portfolio league). */
    /**
     * Each site's sums over the UK days [fromDay, toDay): the monthly rollup for the months the window
     * covers whole, the daily rollup for the days at its edges (decision 0156); the same sums as
     * adding up every day.
     */
    async siteTotals(q: Queryable, orgId: string, fromDay: string, toDay: string, siteIds?: string[]) {
      const { firstMonth, endMonth } = wholeMonths(fromDay, toDay);
      const sites = siteIds ? 'and site_id = any($6::text[])' : '';
      const r = await q.query<Omit<SiteDayRow, 'day'> & { days: number }>(
        `with parts as (
           select site_id, days, half_hours, complete_half_hours, measured_half_hours, import_kwh, export_kwh, generation_kwh,
                  consumption_kwh, charge_kwh, discharge_kwh, residual_kwh, self_consumed_kwh, self_supplied_kwh, consumption_positive_kwh, max_import_kwh
           from energy_site_months where org_id = $1 and month >= $4::date and month < $5::date ${sites}
           union all
           select site_id, 1, half_hours, complete_half_hours, measured_half_hours, import_kwh, export_kwh, generation_kwh,
                  consumption_kwh, charge_kwh, discharge_kwh, residual_kwh, self_consumed_kwh, self_supplied_kwh, consumption_positive_kwh, max_import_kwh
           from energy_site_days where org_id = $1 and day >= $2::date and day < $3::date and (day < $4::date or day >= $5::date) ${sites}
         )
         select site_id, sum(days)::int as days, sum(half_hours)::int as half_hours, sum(complete_half_hours)::int as complete_half_hours,
                sum(measured_half_hours)::int as measured_half_hours,
                sum(import_kwh)::text as import_kwh, sum(export_kwh)::text as export_kwh, sum(generation_kwh)::text as generation_kwh,
                sum(consumption_kwh)::text as consumption_kwh, sum(charge_kwh)::text as charge_kwh, sum(discharge_kwh)::text as discharge_kwh,
                sum(residual_kwh)::text as residual_kwh, sum(self_consumed_kwh)::text as self_consumed_kwh,
                sum(self_supplied_kwh)::text as self_supplied_kwh,
                sum(consumption_positive_kwh)::text as consumption_positive_kwh, max(max_import_kwh)::text as max_import_kwh
         from parts group by site_id order by site_id`,
        siteIds ? [orgId, fromDay, toDay, firstMonth, endMonth, siteIds] : [orgId, fromDay, toDay, firstMonth, endMonth],
      );
      return r.rows;
    },

    // ---- Rebuilds ----------------------------------------------------------------------------
    async activeRebuild(q: Queryable, orgId: string, siteId: string) {
      const r = await q.query<RebuildRow>(
        `select ${REBUILD_COLS} from energy_rebuilds where org_id = $1 and site_id = $2 and status in ('queued', 'running')`,
        [orgId, siteId],
      );
      return r.rows[0] ?? null;
    },
    async latestRebuild(q: Queryable, orgId: string, siteId: string) {
      const r = await q.query<RebuildRow>(
        `select ${REBUILD_COLS} from energy_rebuilds where org_id = $1 and site_id = $2 order by requested_at desc, rebuild_id desc limit 1`,
        [orgId, siteId],
      );
      return r.rows[0] ?? null;
    },
    async getRebuild(q: Queryable, orgId: string, rebuildId: string) {
      const r = await q.query<RebuildRow>(`select ${REBUILD_COLS} from energy_rebuilds where org_id = $1 and rebuild_id = $2`, [orgId, rebuildId]);
      return r.rows[0] ?? null;
    },
    /** Inserts a queued rebuild unless one is queued or running for the site; returns it or null. */
    async insertRebuild(
      q: Queryable,
      orgId: string,
      row: { rebuild_id: string; site_id: string; from: Date; to: Date; days_total: number; requested_by: string | null; now: Date },
    ) {
      const r = await q.query<RebuildRow>(
        `insert into energy_rebuilds (org_id, rebuild_id, site_id, status, from_ts, to_ts, next_ts, days_total, days_done, requested_by, requested_at)
         values ($1, $2, $3, 'queued', $4, $5, $4, $6, 0, $7, $8)
         on conflict do nothing
         returning ${REBUILD_COLS}`,
        [orgId, row.rebuild_id, row.site_id, row.from, row.to, row.days_total, row.requested_by, row.now],
      );
      return r.rows[0] ?? null;
    },
    async advanceRebuild(q: Queryable, orgId: string, rebuildId: string, next: Date, daysDone: number, done: boolean, now: Date) {
      await q.query(
        `update energy_rebuilds set status = $3, next_ts = $4, days_done = $5, finished_at = case when $3 = 'completed' then $6::timestamptz end
         where org_id = $1 and rebuild_id = $2`,
        [orgId, rebuildId, done ? 'completed' : 'running', next, daysDone, now],
      );
    },
    async failRebuild(q: Queryable, orgId: string, rebuildId: string, error: string, now: Date) {
      await q.query(`update energy_rebuilds set status = 'failed', error = $3, finished_at = $4 where org_id = $1 and rebuild_id = $2`, [
        orgId,
        rebuildId,
        error,
        now,
      ]);
    },

    // ---- EMS settings ----------------------------------------------------------------------
    async settings(q: Queryable, orgId: string, siteId: string) {
      const r = await q.query<{ settings: Record<string, unknown>; updated_at: Date; updated_by: string | null }>(
        'select settings, updated_at, updated_by from ems_site_settings where org_id = $1 and site_id = $2',
        [orgId, siteId],
      );
      return r.rows[0] ?? null;
    },
    async allSettings(q: Queryable, orgId: string) {
      const r = await q.query<{ site_id: string; settings: Record<string, unknown>; updated_at: Date }>(
        'select site_id, settings, updated_at from ems_site_settings where org_id = $1 order by site_id',
        [orgId],
      );
      return r.rows;
    },
    async putSettings(q: Queryable, orgId: string, siteId: string, settings: unknown, by: string | null, now: Date) {
      await q.query(
        `insert into ems_site_settings (org_id, site_id, settings, updated_at, updated_by) values ($1, $2, $3, $4, $5)
         on conflict (org_id, site_id) do update set settings = excluded.settings, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
        [orgId, siteId, JSON.stringify(settings), now, by],
      );
    },

    // ---- PV calibration --------------------------------------------------------------------
    async calibrations(q: Queryable, orgId: string, siteId: string) {
      const r = await q.query<CalibrationRow>(
        `select calibration_id, site_id, to_char(from_day, 'YYYY-MM-DD') as from_day, to_char(to_day, 'YYYY-MM-DD') as to_day, days_used,
                factor::text as factor, previous_factor::text as previous_factor, details, created_by, created_at
         from pv_calibrations where org_id = $1 and site_id = $2 order by created_at desc, seq desc`,
        [orgId, siteId],
      );
      return r.rows;
    },
    async insertCalibration(q: Queryable, orgId: string, c: Omit<CalibrationRow, 'created_at'> & { created_at: Date }) {
      await q.query(
        `insert into pv_calibrations (org_id, calibration_id, site_id, from_day, to_day, days_used, factor, previous_factor, details, created_by, created_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          orgId,
          c.calibration_id,
          c.site_id,
          c.from_day,
          c.to_day,
          c.days_used,
          c.factor,
          c.previous_factor,
          JSON.stringify(c.details),
          c.created_by,
          c.created_at,
        ],
      );
    },

    // ---- Scope 2 factors -------------------------------------------------------------------
    async factorVersions(q: Queryable) {
      const r = await q.query<FactorVersionRow>(
        `select year, generation_kg_per_kwh::text as generation_kg_per_kwh, td_kg_per_kwh::text as td_kg_per_kwh, published, source, confidence, note
         from carbon_factor_versions order by year`,
      );
      return r.rows;
    },
    async marketFactors(q: Queryable, orgId: string) {
      const r = await q.query<MarketFactorRow>(
        `select factor_id, site_id, instrument, name, kg_per_kwh::text as kg_per_kwh, to_char(valid_from, 'YYYY-MM-DD') as valid_from,
                to_char(valid_to, 'YYYY-MM-DD') as valid_to, evidence, created_by, created_at
         from scope2_market_factors where org_id = $1 order by valid_from, created_at, factor_id`,
        [orgId],
      );
      return r.rows;
    },
    async insertMarketFactor(q: Queryable, orgId: string, f: Omit<MarketFactorRow, 'created_at'> & { created_at: Date }) {
      await q.query(
        `insert into scope2_market_factors (org_id, factor_id, site_id, instrument, name, kg_per_kwh, valid_from, valid_to, evidence, created_by, created_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [orgId, f.factor_id, f.site_id, f.instrument, f.name, f.kg_per_kwh, f.valid_from, f.valid_to, f.evidence, f.created_by, f.created_at],
      );
    },
  };
}

const REBUILD_COLS = `rebuild_id, site_id, status, from_ts, to_ts, next_ts, days_total, days_done, requested_by, requested_at, finished_at, error`;

export interface RebuildRow {
  rebuild_id: string;
  site_id: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  from_ts: Date;
  to_ts: Date;
  next_ts: Date;
  days_total: number;
  days_done: number;
  requested_by: string | null;
  requested_at: Date;
  finished_at: Date | null;
  error: string | null;
}

export interface CalibrationRow {
  calibration_id: string;
  site_id: string;
  from_day: string;
  to_day: string;
  days_used: number;
  factor: string;
  previous_factor: string | null;
  details: Record<string, unknown>;
  created_by: string | null;
  created_at: Date;
}

export interface FactorVersionRow {
  year: number;
  generation_kg_per_kwh: string;
  td_kg_per_kwh: string | null;
  published: string | null;
  source: string;
  confidence: string;
  note: string | null;
}

export interface MarketFactorRow {
  factor_id: string;
  site_id: string | null;
  instrument: string;
  name: string;
  kg_per_kwh: string;
  valid_from: string;
  valid_to: string | null;
  evidence: string | null;
  created_by: string | null;
  created_at: Date;
}

export type EnergyStore = ReturnType<typeof createEnergyStore>;

/** Half hours of a site ordered by import, largest first (capacity peaks). */
export async function topImports(q: Queryable, orgId: string, siteId: string, from: Date, to: Date, limit: number) {
  const r = await q.query<{ slot: Date; import_kwh: string; complete: boolean; basis: Record<string, string> }>(
    `select slot, import_kwh, complete, basis from energy_site_halfhours
     where org_id = $1 and site_id = $2 and slot >= $3 and slot < $4 order by import_kwh desc, slot limit $5`,
    [orgId, siteId, from, to, limit],
  );
  return r.rows.map((x) => ({ ...x, slot: new Date(x.slot) }));
}

/** Half hours whose import exceeds `kwh` (a half hour's energy at the agreed capacity). */
export async function importsAbove(q: Queryable, orgId: string, siteId: string, from: Date, to: Date, kwh: number) {
  const r = await q.query<{ n: number }>(
    `select count(*)::int as n from energy_site_halfhours where org_id = $1 and site_id = $2 and slot >= $3 and slot < $4 and import_kwh > $5`,
    [orgId, siteId, from, to, kwh],
  );
  return r.rows[0].n;
}
