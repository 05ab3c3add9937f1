// Carbon and Scope 2 (GHG Protocol Scope 2 Guidance; DESNZ company reporting factors): location-
// based emissions of grid import with the published factor of the reporting year, market-based with
// the organisation's own contractual factors, half-hourly GB grid intensity from the market
// module's carbon provider, avoided emissions of generation, and usage with carbon by period.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import type { AuditLog } from '../audit/index.ts';
import type { CarbonService } from '../market/index.ts';
import { addDays, isCalendarDay, settlementPeriod, ukDate, ukMidnight } from '../../kit/uk-time.ts';
import { energyErrors } from './errors.ts';
import type { EnergyModel } from './model.ts';
import type { FactorVersionRow, MarketFactorRow, SiteDayRow } from './store.ts';
import { dayWindow, windowOf, type DayWindow } from './range.ts';
import { decimal, formatScaled, kwhText, roundDiv, toWh } from '../../kit/decimal.ts';

/** kg CO2e of an energy (Wh) at a factor (kg/kWh, up to 5 places), to the gram (3 places). */
export function kgOf(wh: number, factor: string): string {
  // Wh (1e-3 kWh) × factor (1e-5 kg/kWh) = 1e-8 kg → grams (1e-3 kg): divide by 1e5.
  return formatScaled(roundDiv(BigInt(wh) * decimal(factor, 5), 100_000n), 3);
}
const addKg = (a: string, b: string) => formatScaled(decimal(a, 3) + decimal(b, 3), 3);

const LOCATION_METHOD =
  'Location-based: grid import (kWh) × the DESNZ UK electricity generation factor of the calendar year the UK day falls in (kg CO2e/kWh), to the gram. T&D losses are Scope 3 and shown apart where the factor is published.';
const MARKET_METHOD =
  "Market-based: each UK day's grid import × the organisation's contractual factor in force that day (a site's own before an organisation-wide one); where no instrument covers a day, the location factor stands in for the residual mix (not published here) and the day is counted as uncovered.";

export function createCarbon(deps: { db: Db; clock: Clock; model: EnergyModel; intensity: Pick<CarbonService, 'range'>; audit: AuditLog }) {
  const { db, model } = deps;
  const store = model.store;

  async function versions() {
    return store.factorVersions(db);
  }

  function factorFor(list: FactorVersionRow[], year: number) {
    const exact = list.find((f) => f.year === year);
    if (exact) return { f: exact, note: null as string | null };
    const earlier = list.filter((f) => f.year < year).sort((a, b) => b.year - a.year)[0];
    if (earlier) return { f: earlier, note: `No factor set published for ${year} in this service; the ${earlier.year} set is used.` };
    return null;
  }

  async function sitesOf(orgId: string, siteId?: string) {
    if (siteId !== undefined) {
      const s = await model.siteContext(db, orgId, siteId);
      if (!s.assets.length) throw energyErrors.siteNotFound();
      return [siteId];
    }
    return (await model.allSites(db, orgId)).map((s) => s.siteId);
  }

  function yearWindow(year: number | undefined, now: number): DayWindow & { year: number } {
    const y = year ?? Number(ukDate(now).slice(0, 4)) - 1;
    return { ...dayWindow(`${y}-01-01`, `${y + 1}-01-01`), year: y };
  }

  function marketFactorOn(list: MarketFactorRow[], siteId: string, day: string): MarketFactorRow | null {
    const live = list.filter((f) => f.valid_from <= day && (f.valid_to === null || f.valid_to >= day));
    return live.filter((f) => f.site_id === siteId).at(-1) ?? live.filter((f) => f.site_id === null).at(-1) ?? null;
  }

  return {
    versions,

    async changes() {
      const list = await versions();
      const out = [];
      for (let i = 1; i < list.length; i++) {
        const a = list[i - 1];
        const b = list[i];
        const d = decimal(b.generation_kg_per_kwh, 5) - decimal(a.generation_kg_per_kwh, 5);
        out.push({
          from_year: a.year,
          to_year: b.year,
          generation_from: a.generation_kg_per_kwh,
          generation_to: b.generation_kg_per_kwh,
          generation_change: formatScaled(d, 5),
          generation_change_pct: Math.round((Number(d) / Number(decimal(a.generation_kg_per_kwh, 5))) * 10_000) / 100,
          td_from: a.td_kg_per_kwh,
          td_to: b.td_kg_per_kwh,
          confidence: b.confidence === 'unconfirmed' || a.confidence === 'unconfirmed' ? 'unconfirmed' : 'third-party quotation',
        });
      }
      return { changes: out };
    },

    async marketFactors(ctx: RequestContext) {
      return { factors: (await store.marketFactors(db, ctx.orgId)).map((f) => ({ ...f, created_at: isoTime(f.created_at) })) };
    },

    async addMarketFactor(
      ctx: RequestContext,
      body: {
        site_id?: string | null;
        instrument: string;
        name: string;
        kg_per_kwh: string;
        valid_from: string;
        valid_to?: string | null;
        evidence?: string | null;
      },
    ) {
      if (!isCalendarDay(body.valid_from)) throw energyErrors.field(['valid_from'], 'Input should be a date YYYY-MM-DD', body.valid_from);
      if (body.valid_to && !isCalendarDay(body.valid_to)) throw energyErrors.field(['valid_to'], 'Input should be a date YYYY-MM-DD', body.valid_to);
      if (body.site_id) await sitesOf(ctx.orgId, body.site_id);
      if (body.valid_to && body.valid_to < body.valid_from) throw energyErrors.field(['valid_to'], 'valid_to must not be before valid_from', body.valid_to);
      const row = {
        factor_id: randomUUID(),
        site_id: body.site_id ?? null,
        instrument: body.instrument,
        name: body.name,
        kg_per_kwh: body.kg_per_kwh,
        valid_from: body.valid_from,
        valid_to: body.valid_to ?? null,
        evidence: body.evidence ?? null,
        created_by: ctx.actor.kind === 'user' ? ctx.actor.userId : null,
        created_at: deps.clock.now(),
      };
      await db.tx(async (q) => {
        await store.insertMarketFactor(q, ctx.orgId, row);
        await deps.audit.record(q, ctx, { action: 'scope2.market_factor.create', details: { factor_id: row.factor_id, instrument: row.instrument } });
      });
      return { ...row, created_at: isoTime(row.created_at) };
    },

    async scope2(ctx: RequestContext, query: { year?: number; site_id?: string }) {
      const w = yearWindow(query.year, deps.clock.now().getTime());
      const factor = factorFor(await versions(), w.year);
      if (!factor) throw energyErrors.query('year', 'No published factor set covers this year (the first is 2022)', w.year);
      const siteIds = await sitesOf(ctx.orgId, query.site_id);
      const days = await store.siteDays(db, ctx.orgId, siteIds, w.fromDay, w.toDay);
      const mfs = await store.marketFactors(db, ctx.orgId);
      const bySite = new Map<string, SiteDayRow[]>();
      for (const d of days) bySite.set(d.site_id, [...(bySite.get(d.site_id) ?? []), d]);
      const f = factor.f;
      let totalWh = 0;
      let loc = '0.000';
      let td: string | null = f.td_kg_per_kwh ? '0.000' : null;
      let market = '0.000';
      let uncoveredWh = 0;
      const instrumentsUsed = new Set<string>();
      const sites = siteIds.map((id) => {
        let wh = 0;
        let l = '0.000';
        let m = '0.000';
        let unc = 0;
        let complete = 0;
        let hh = 0;
        for (const d of bySite.get(id) ?? []) {
          const dwh = toWh(d.import_kwh);
          wh += dwh;
          complete += d.complete_half_hours;
          hh += d.half_hours;
          l = addKg(l, kgOf(dwh, f.generation_kg_per_kwh));
          const mf = marketFactorOn(mfs, id, d.day);
          if (mf) instrumentsUsed.add(mf.factor_id);
          else unc += dwh;
          m = addKg(m, kgOf(dwh, mf ? mf.kg_per_kwh : f.generation_kg_per_kwh));
        }
        totalWh += wh;
        loc = addKg(loc, l);
        market = addKg(market, m);
        uncoveredWh += unc;
        if (td !== null) td = addKg(td, kgOf(wh, f.td_kg_per_kwh!));
        return {
          site_id: id,
          import_kwh: kwhText(wh),
          location_based_kg: l,
          market_based_kg: m,
          uncovered_import_kwh: kwhText(unc),
          complete_half_hours: complete,
          half_hours_with_data: hh,
        };
      });
      return {
        year: w.year,
        from: isoTime(w.from),
        to: isoTime(w.to),
        factor: { ...f, applied_to_year: w.year, note: factor.note },
        import_kwh: kwhText(totalWh),
        location_based_kg: loc,
        market_based_kg: market,
        td_losses_scope3_kg: td,
        market_based_uncovered_import_kwh: kwhText(uncoveredWh),
        market_instruments_used: mfs
          .filter((x) => instrumentsUsed.has(x.factor_id))
          .map((x) => ({ factor_id: x.factor_id, name: x.name, instrument: x.instrument, kg_per_kwh: x.kg_per_kwh })),
        methods: { location_based: LOCATION_METHOD, market_based: MARKET_METHOD },
        sites,
      };
    },

    async intensity(ctx: RequestContext, query: { date?: string; site_id?: string }) {
      const w = windowOf({ date: query.date }, deps.clock.now().getTime(), { defaultDays: 1, maxDays: 1 });
      const rows = await deps.intensity.range(w.from, w.to);
      let site: { site_id: string; import_kwh: string; weighted_g_per_kwh: number | null; import_kg: string } | null = null;
      let series: { import_kwh: string | null }[] = [];
      if (query.site_id !== undefined) {
        await sitesOf(ctx.orgId, query.site_id);
        const hh = await store.siteHalfHours(db, ctx.orgId, query.site_id, new Date(w.from), new Date(w.to));
        const at = new Map(hh.map((r) => [r.slot.getTime(), r]));
        let wh = 0;
        let gramsX = 0n; // Wh × g/kWh = mg
        let weightedWh = 0;
        series = rows.map((r) => {
          const h = at.get(r.from);
          if (h) {
            const v = toWh(h.import_kwh);
            wh += v;
            gramsX += BigInt(v) * BigInt(Math.round(r.actual ?? r.forecast));
            weightedWh += v;
          }
          return { import_kwh: h ? h.import_kwh : null };
        });
        site = {
          site_id: query.site_id,
          import_kwh: kwhText(wh),
          weighted_g_per_kwh: weightedWh ? Math.round((Number(gramsX) / weightedWh) * 10) / 10 : null,
          import_kg: formatScaled(roundDiv(gramsX, 1000n), 3),
        };
      }
      return {
        date: w.fromDay,
        from: isoTime(w.from),
        to: isoTime(w.to),
        region: 'GB',
        source: 'NESO Carbon Intensity API (national), gCO2/kWh',
        half_hours: rows.map((r, i) => {
          const sp = settlementPeriod(r.from);
          return {
            period_start: isoTime(r.from),
            period_end: isoTime(r.to),
            settlement_period: sp.period,
            forecast_g_per_kwh: r.forecast,
            actual_g_per_kwh: r.actual,
            index: r.index,
            data_basis: r.actual !== null ? 'measured' : 'forecast',
            ...(site ? { import_kwh: series[i]?.import_kwh ?? null } : {}),
          };
        }),
        site,
      };
    },

    async avoided(ctx: RequestContext, query: { year?: number; site_id?: string }) {
      const w = yearWindow(query.year, deps.clock.now().getTime());
      const factor = factorFor(await versions(), w.year);
      if (!factor) throw energyErrors.query('year', 'No published factor set covers this year (the first is 2022)', w.year);
      const siteIds = await sitesOf(ctx.orgId, query.site_id);
      const totals = await store.siteTotals(db, ctx.orgId, w.fromDay, w.toDay, siteIds);
      const f = factor.f.generation_kg_per_kwh;
      let gen = 0;
      let self = 0;
      let exp = 0;
      const sites = totals.map((t) => {
        const g = toWh(t.generation_kwh);
        const s = toWh(t.self_consumed_kwh);
        const e = Math.max(0, g - s);
        gen += g;
        self += s;
        exp += e;
        return { site_id: t.site_id, generation_kwh: kwhText(g), self_consumed_kwh: kwhText(s), exported_generation_kwh: kwhText(e), avoided_kg: kgOf(g, f) };
      });
      return {
        year: w.year,
        from: isoTime(w.from),
        to: isoTime(w.to),
        factor: { ...factor.f, applied_to_year: w.year, note: factor.note },
        generation_kwh: kwhText(gen),
        self_consumed_kwh: kwhText(self),
        exported_generation_kwh: kwhText(exp),
        avoided_kg: kgOf(gen, f),
        avoided_self_consumed_kg: kgOf(self, f),
        avoided_exported_kg: kgOf(exp, f),
        method:
          'Generation × the DESNZ UK electricity generation factor of the year: grid electricity the site did not draw (self-consumed) or displaced (exported). Not a Scope 2 reduction and not to be netted off Scope 2 under the GHG Protocol.',
        sites,
      };
    },

    async usage(ctx: RequestContext, query: { period?: 'day' | 'week' | 'month'; from?: string; to?: string; site_id?: string }) {
      const period = query.period ?? 'day';
      const w = windowOf({ from: query.from, to: query.to }, deps.clock.now().getTime(), {
        defaultDays: period === 'month' ? 365 : period === 'week' ? 84 : 31,
        maxDays: 800,
      });
      const siteIds = await sitesOf(ctx.orgId, query.site_id);
      const days = await store.siteDays(db, ctx.orgId, siteIds, w.fromDay, w.toDay);
      const list = await versions();
      const bucketOf = (day: string) => {
        if (period === 'day') return day;
        if (period === 'month') return `${day.slice(0, 7)}-01`;
        const dow = (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday 0
        return addDays(day, -dow);
      };
      const buckets = new Map<string, { imp: number; cons: number; gen: number; kg: string; complete: number; hh: number; factors: Set<number> }>();
      for (const d of days) {
        const k = bucketOf(d.day);
        const b = buckets.get(k) ?? { imp: 0, cons: 0, gen: 0, kg: '0.000', complete: 0, hh: 0, factors: new Set<number>() };
        const ff = factorFor(list, Number(d.day.slice(0, 4)));
        const wh = toWh(d.import_kwh);
        b.imp += wh;
        b.cons += toWh(d.consumption_kwh);
        b.gen += toWh(d.generation_kwh);
        b.complete += d.complete_half_hours;
        b.hh += d.half_hours;
        if (ff) {
          b.kg = addKg(b.kg, kgOf(wh, ff.f.generation_kg_per_kwh));
          b.factors.add(ff.f.year);
        }
        buckets.set(k, b);
      }
      return {
        period,
        from: isoTime(w.from),
        to: isoTime(w.to),
        site_id: query.site_id ?? null,
        buckets: [...buckets.entries()]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([start, b]) => ({
            period_start: isoTime(Math.max(w.from, ukMidnight(start))),
            label: start,
            import_kwh: kwhText(b.imp),
            consumption_kwh: kwhText(b.cons),
            generation_kwh: kwhText(b.gen),
            location_based_kg: b.kg,
            factor_years: [...b.factors].sort(),
            complete_half_hours: b.complete,
            half_hours_with_data: b.hh,
          })),
      };
    },
  };
}

export type Carbon = ReturnType<typeof createCarbon>;
