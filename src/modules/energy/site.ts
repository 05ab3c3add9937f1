// Site energy: the organisation's sites, self-consumption, battery state, the portfolio league,
// capacity against the agreed figure and the peak-shaving what-if. Every figure is read from the
// rollup (site days for long windows, site half hours for peaks), never from raw telemetry.
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import type { TelemetryEnergy } from '../telemetry/index.ts';
import { SLOT_MS, settlementPeriod } from '../../kit/uk-time.ts';
import { energyErrors } from './errors.ts';
import type { EnergyModel } from './model.ts';
import type { SiteSettings } from './settings.ts';
import { importsAbove, topImports, type SiteDayRow } from './store.ts';
import { windowOf, type DayWindow } from './range.ts';
import { kwhText, ratio, toWh } from '../../kit/decimal.ts';
import { basisShown } from './basis-shown.ts';

export const LEAGUE_MEASURES = {
  self_sufficiency: {
    higherIsBetter: true,
    unit: 'ratio',
    definition:
      "Share of the site's consumption not met by import (its own generation, and its battery): max(consumption - import, 0) per half hour, summed, / consumption of the half hours where it is positive.",
  },
  self_consumption: {
    higherIsBetter: true,
    unit: 'ratio',
    definition: "Share of the site's generation used on site: (generation - export) / generation, per half hour summed.",
  },
  generation_kwh: { higherIsBetter: true, unit: 'kWh', definition: 'Energy generated on site.' },
  import_kwh: { higherIsBetter: false, unit: 'kWh', definition: 'Energy imported from the grid (lower ranks higher).' },
  export_kwh: { higherIsBetter: true, unit: 'kWh', definition: 'Energy exported to the grid.' },
  data_completeness: {
    higherIsBetter: true,
    unit: 'ratio',
    definition: "Share of the window's half hours in which every expected asset reported over the whole half hour.",
  },
} as const;
export type LeagueMeasure = keyof typeof LEAGUE_MEASURES;

type Totals = Omit<SiteDayRow, 'day'> & { days: number };

function figures(t: Totals | undefined, w: DayWindow, expectedHalfHours: number) {
  const wh = (k: keyof Totals) => toWh((t?.[k] as string | undefined) ?? '0');
  const gen = wh('generation_kwh');
  const self = wh('self_consumed_kwh');
  const supplied = wh('self_supplied_kwh');
  const consPos = wh('consumption_positive_kwh');
  const cons = wh('consumption_kwh');
  return {
    generation_kwh: kwhText(gen),
    export_kwh: kwhText(wh('export_kwh')),
    import_kwh: kwhText(wh('import_kwh')),
    consumption_kwh: kwhText(cons),
    self_consumed_kwh: kwhText(self),
    self_consumption_ratio: ratio(self, gen),
    self_sufficiency_ratio: ratio(supplied, consPos),
    charge_kwh: kwhText(wh('charge_kwh')),
    discharge_kwh: kwhText(wh('discharge_kwh')),
    half_hours: expectedHalfHours,
    half_hours_with_data: t?.half_hours ?? 0,
    complete_half_hours: t?.complete_half_hours ?? 0,
    measured_half_hours: t?.measured_half_hours ?? 0,
    data_completeness: ratio(t?.complete_half_hours ?? 0, expectedHalfHours),
    max_import_kwh: kwhText(wh('max_import_kwh')),
    window_days: w.days,
  };
}

export function createSiteEnergy(deps: { db: Db; clock: Clock; model: EnergyModel; settings: SiteSettings; telemetry: TelemetryEnergy }) {
  const { db, model } = deps;
  const store = model.store;
  const now = () => deps.clock.now().getTime();
  const halfHoursOf = (w: DayWindow) => Math.round((w.to - w.from) / SLOT_MS);

  async function requireSite(orgId: string, siteId: string) {
    const ctx = await model.siteContext(db, orgId, siteId);
    if (!ctx.assets.length) throw energyErrors.siteNotFound();
    return ctx;
  }

  async function totals(orgId: string, siteId: string, w: DayWindow) {
    return (await store.siteTotals(db, orgId, w.fromDay, w.toDay, [siteId]))[0];
  }

  return {
    requireSite,
    async sites(ctx: RequestContext, query: { days?: number }) {
      const assets = await deps.model.allSites(db, ctx.orgId);
      const w = windowOf({}, now(), { defaultDays: query.days ?? 30, maxDays: 366 });
      const t = await store.siteTotals(db, ctx.orgId, w.fromDay, w.toDay);
      const byId = new Map(t.map((x) => [x.site_id, x]));
      return {
        from: isoTime(w.from),
        to: isoTime(w.to),
        sites: assets.map((s) => ({
          site_id: s.siteId,
          assets: s.assets.length,
          roles: Object.fromEntries(['grid', 'pv', 'battery', 'load'].map((r) => [r, s.roled.filter((x) => x.role === r).length])),
          ...figures(byId.get(s.siteId), w, halfHoursOf(w)),
        })),
      };
    },

    async selfConsumption(ctx: RequestContext, siteId: string, query: { date?: string; from?: string; to?: string }) {
      const site = await requireSite(ctx.orgId, siteId);
      const w = windowOf(query, now(), { defaultDays: 30, maxDays: 366 });
      const days = await store.siteDays(db, ctx.orgId, [siteId], w.fromDay, w.toDay);
      const f = figures(await totals(ctx.orgId, siteId, w), w, halfHoursOf(w));
      return {
        site_id: siteId,
        from: isoTime(w.from),
        to: isoTime(w.to),
        has_generation: site.flows.has('generation'),
        generation_kwh: f.generation_kwh,
        self_consumed_kwh: f.self_consumed_kwh,
        export_kwh: f.export_kwh,
        import_kwh: f.import_kwh,
        consumption_kwh: f.consumption_kwh,
        self_consumption_ratio: f.self_consumption_ratio,
        self_sufficiency_ratio: f.self_sufficiency_ratio,
        complete_half_hours: f.complete_half_hours,
        half_hours: f.half_hours,
        measured_half_hours: f.measured_half_hours,
        days: days.map((d) => ({
          date: d.day,
          generation_kwh: kwhText(toWh(d.generation_kwh)),
          self_consumed_kwh: kwhText(toWh(d.self_consumed_kwh)),
          export_kwh: kwhText(toWh(d.export_kwh)),
          consumption_kwh: kwhText(toWh(d.consumption_kwh)),
          self_consumption_ratio: ratio(toWh(d.self_consumed_kwh), toWh(d.generation_kwh)),
          self_sufficiency_ratio: ratio(toWh(d.self_supplied_kwh), toWh(d.consumption_positive_kwh)),
          complete_half_hours: d.complete_half_hours,
        })),
      };
    },

    async battery(ctx: RequestContext, siteId: string, query: { date?: string; from?: string; to?: string }) {
      const site = await requireSite(ctx.orgId, siteId);
      const batteries = site.roled.filter((r) => r.role === 'battery');
      const w = windowOf(query, now(), { defaultDays: 30, maxDays: 366 });
      const t = await totals(ctx.orgId, siteId, w);
      const { settings } = await deps.settings.read(ctx.orgId, siteId);
      const latest = await deps.telemetry.reads(db).latest(
        ctx.orgId,
        batteries.map((b) => b.asset.asset_id),
      );
      const capacityOf = (d: Record<string, unknown>) => (typeof d.capacity_kwh === 'number' && d.capacity_kwh > 0 ? d.capacity_kwh : null);
      const assetCapacity = batteries.map((b) => capacityOf(b.asset.details));
      const capacity =
        settings.battery_capacity_kwh ?? (assetCapacity.every((c) => c !== null) && assetCapacity.length ? assetCapacity.reduce((a, c) => a + c!, 0) : null);
      const charge = toWh(t?.charge_kwh ?? '0');
      const discharge = toWh(t?.discharge_kwh ?? '0');
      return {
        site_id: siteId,
        from: isoTime(w.from),
        to: isoTime(w.to),
        batteries: batteries.map((b) => {
          const l = latest.find((x) => x.asset_id === b.asset.asset_id);
          return {
            asset_id: b.asset.asset_id,
            soc_pct: l?.soc_pct ?? null,
            soc_at: l ? isoTime(l.ts) : null,
            power_kw: l?.power_kw ?? null,
            capacity_kwh: capacityOf(b.asset.details),
          };
        }),
        capacity_kwh: capacity,
        capacity_source: settings.battery_capacity_kwh !== null ? 'settings' : capacity !== null ? 'asset_details' : null,
        charge_kwh: kwhText(charge),
        discharge_kwh: kwhText(discharge),
        throughput_kwh: kwhText(charge + discharge),
        equivalent_full_cycles: capacity ? Math.round(((charge + discharge) / 2 / 1000 / capacity) * 100) / 100 : null,
        round_trip_efficiency_observed: ratio(discharge, charge),
        complete_half_hours: t?.complete_half_hours ?? 0,
        half_hours: halfHoursOf(w),
      };
    },

    async league(ctx: RequestContext, query: { measure?: LeagueMeasure; date?: string; from?: string; to?: string; limit?: number }) {
      const measure = query.measure ?? 'self_sufficiency';
      const def = LEAGUE_MEASURES[measure];
      const w = windowOf(query, now(), { defaultDays: 30, maxDays: 366 });
      const rows = await store.siteTotals(db, ctx.orgId, w.fromDay, w.toDay);
      const hh = halfHoursOf(w);
      const scored = rows.map((r) => {
        const f = figures(r, w, hh);
        const value =
          measure === 'self_sufficiency'
            ? f.self_sufficiency_ratio
            : measure === 'self_consumption'
              ? f.self_consumption_ratio
              : measure === 'data_completeness'
                ? f.data_completeness
                : Number(f[measure]);
        return { site_id: r.site_id, value, figures: f };
      });
      const ranked = scored
        .filter((s) => s.value !== null)
        .sort((a, b) => (def.higherIsBetter ? b.value! - a.value! : a.value! - b.value!) || a.site_id.localeCompare(b.site_id));
      const unranked = scored.filter((s) => s.value === null).map((s) => s.site_id);
      return {
        measure,
        definition: def.definition,
        unit: def.unit,
        higher_is_better: def.higherIsBetter,
        from: isoTime(w.from),
        to: isoTime(w.to),
        league: ranked.slice(0, query.limit ?? 100).map((s, i) => ({
          rank: i + 1,
          site_id: s.site_id,
          value: s.value!,
          generation_kwh: s.figures.generation_kwh,
          consumption_kwh: s.figures.consumption_kwh,
          import_kwh: s.figures.import_kwh,
          export_kwh: s.figures.export_kwh,
          data_completeness: s.figures.data_completeness,
        })),
        unranked,
      };
    },

    async capacity(ctx: RequestContext, siteId: string, query: { date?: string; from?: string; to?: string }) {
      await requireSite(ctx.orgId, siteId);
      const w = windowOf(query, now(), { defaultDays: 30, maxDays: 366 });
      const { settings } = await deps.settings.read(ctx.orgId, siteId);
      const agreed = settings.agreed_capacity_kw;
      const top = await topImports(db, ctx.orgId, siteId, new Date(w.from), new Date(w.to), 10);
      const peakKw = top.length ? (toWh(top[0].import_kwh) * 2) / 1000 : null;
      const over = agreed !== null ? await importsAbove(db, ctx.orgId, siteId, new Date(w.from), new Date(w.to), agreed / 2) : null;
      return {
        site_id: siteId,
        from: isoTime(w.from),
        to: isoTime(w.to),
        agreed_capacity_kw: agreed,
        peak_import_kw: peakKw,
        peak_at: top.length ? isoTime(top[0].slot) : null,
        utilisation: agreed !== null && peakKw !== null ? Math.round((peakKw / agreed) * 10_000) / 10_000 : null,
        headroom_kw: agreed !== null && peakKw !== null ? Math.round((agreed - peakKw) * 1000) / 1000 : null,
        half_hours_over_capacity: over,
        peaks: top.map((p) => {
          const sp = settlementPeriod(p.slot.getTime());
          return {
            period_start: isoTime(p.slot),
            settlement_date: sp.date,
            settlement_period: sp.period,
            import_kwh: p.import_kwh,
            demand_kw: (toWh(p.import_kwh) * 2) / 1000,
            basis: basisShown(ctx.orgId)(p.basis.import ?? 'missing'),
            complete: p.complete,
          };
        }),
      };
    },

    /**
     * Peak-shaving what-if: a battery of `battery_kwh` (usable) and `battery_kw` (power), full at the
     * window's start, discharges whenever half-hour demand exceeds the target and recharges from the
     * headroom below it (at most `battery_kw`, never lifting demand above the target). Each half hour
     * over the target is listed with the demand before and after. Round-trip losses ignored (stated).
     */
    async peaks(
      ctx: RequestContext,
      siteId: string,
      query: { date?: string; from?: string; to?: string; battery_kwh: number; battery_kw: number; target_kw?: number },
    ) {
      await requireSite(ctx.orgId, siteId);
      const w = windowOf(query, now(), { defaultDays: 7, maxDays: 62 });
      const { settings } = await deps.settings.read(ctx.orgId, siteId);
      const target = query.target_kw ?? settings.agreed_capacity_kw;
      if (target === null || target === undefined)
        throw energyErrors.query('target_kw', 'target_kw is required when the site has no agreed capacity in its settings', null);
      const rows = await store.siteHalfHours(db, ctx.orgId, siteId, new Date(w.from), new Date(w.to));
      let soc = query.battery_kwh;
      const shaved: {
        period_start: string;
        settlement_date: string;
        settlement_period: number;
        demand_kw: number;
        shaved_demand_kw: number;
        shaved_kw: number;
        battery_kwh_after: number;
      }[] = [];
      let over = 0;
      let fully = 0;
      for (const r of rows) {
        const demand = (toWh(r.import_kwh) * 2) / 1000;
        if (demand > target) {
          over++;
          const need = demand - target;
          const p = Math.min(need, query.battery_kw, soc * 2);
          soc -= p / 2;
          const sp = settlementPeriod(r.slot.getTime());
          const after = demand - p;
          if (after <= target + 1e-9) fully++;
          shaved.push({
            period_start: isoTime(r.slot),
            settlement_date: sp.date,
            settlement_period: sp.period,
            demand_kw: round3(demand),
            shaved_demand_kw: round3(after),
            shaved_kw: round3(p),
            battery_kwh_after: round3(soc),
          });
        } else {
          const p = Math.min(target - demand, query.battery_kw, (query.battery_kwh - soc) * 2);
          soc += p / 2;
        }
      }
      return {
        site_id: siteId,
        from: isoTime(w.from),
        to: isoTime(w.to),
        target_kw: target,
        target_source: query.target_kw !== undefined ? 'query' : 'agreed_capacity',
        battery_kwh: query.battery_kwh,
        battery_kw: query.battery_kw,
        half_hours_over_target: over,
        half_hours_fully_shaved: fully,
        peak_before_kw: rows.length ? round3(Math.max(...rows.map((r) => (toWh(r.import_kwh) * 2) / 1000))) : null,
        peak_after_kw: shaved.length
          ? round3(Math.max(target, ...shaved.map((s) => s.shaved_demand_kw)))
          : rows.length
            ? round3(Math.max(...rows.map((r) => (toWh(r.import_kwh) * 2) / 1000)))
            : null,
        peaks: shaved,
      };
    },
  };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

export type SiteEnergy = ReturnType<typeof createSiteEnergy>;
