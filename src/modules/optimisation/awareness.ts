// The awareness layers (decision 0193): what the optimiser knows, each layer live, on a fallback or
// missing with why, and a shadow plan: computed and recorded, never sent (concepts.md rule 8).
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import type { RegistrySites } from '../registry/index.ts';
import type { MarketData } from '../market/index.ts';
import { floorSlot, SLOT_MS } from '../../kit/uk-time.ts';
import type { SiteForecast } from '../forecasting/index.ts';
import { optErrors } from './errors.ts';
import { optStore } from './store.ts';
import { gbp, halfHourView, plan, r3, type PlanInput } from './schedule.ts';
import type { BatterySpec } from './lp.ts';
import { DEFAULT_IMPORT_P, type LimitAsset } from './service.ts';
import { Infeasible } from './lp.ts';

export type LayerStatus = 'live' | 'fallback' | 'missing';
export const SETTINGS = {
  default_region: 'C',
  horizon_hours: 24,
  fallback_import_p_per_kwh: DEFAULT_IMPORT_P,
  forecast_stale_after_hours: 48,
  device_stale_after_minutes: 60,
  shadow_only: true,
};

export const CATALOGUE = [
  {
    layer: 'prices',
    name: 'Half-hourly prices',
    source: 'Agile unit rates from the market adapter (region from the request, default C)',
    fallback: `flat ${DEFAULT_IMPORT_P} p/kWh`,
    used_by_plan: true,
  },
  {
    layer: 'carbon',
    name: 'Grid carbon intensity',
    source: 'GB carbon intensity forecast from the market adapter',
    fallback: 'none: the plan does not weigh carbon without it',
    used_by_plan: false,
  },
  {
    layer: 'site_forecast',
    name: 'Site load and generation forecast',
    source: 'The forecasting module (measured persistence unless configured)',
    fallback: 'zero site load when there is no history',
    used_by_plan: true,
  },
  {
    layer: 'grid_constraints',
    name: 'Grid connection constraints',
    source: "The site's import-limit configuration",
    fallback: 'none: the plan has no import limit',
    used_by_plan: true,
  },
  { layer: 'flexibility_tenders', name: 'Flexibility tenders', source: 'No tender feed is connected to the optimiser', fallback: 'none', used_by_plan: false },
  {
    layer: 'device_availability',
    name: 'Device availability',
    source: "The registry's freshness of the site's batteries and chargers",
    fallback: 'none: devices without fresh readings are still planned, marked stale',
    used_by_plan: true,
  },
] as const;

type Deps = { db: Db; clock: Clock; registry: RegistrySites; market: MarketData; forecast: SiteForecast };

export function createAwareness(deps: Deps) {
  const { db, clock } = deps;

  async function requireSite(q: Queryable, orgId: string, siteId: string) {
    if (!(await deps.registry.siteExists(q, orgId, siteId))) throw optErrors.siteNotFound();
  }

  async function layers(q: Queryable, orgId: string, siteId: string | undefined, region: string, start: number, n: number) {
    const out: { layer: string; status: LayerStatus; why: string; as_of: string | null }[] = [];
    let prices: number[] | null = null;
    try {
      const r = await deps.market.prices.range(region, start, start + n * SLOT_MS);
      const row = (t: number) => r.rows.find((x) => x.from <= t && t < x.to);
      const got = Array.from({ length: n }, (_, i) => row(start + i * SLOT_MS)?.inc ?? null);
      if (got.every((x) => x !== null)) {
        prices = got as number[];
        out.push({
          layer: 'prices',
          status: r.stale ? 'fallback' : 'live',
          why: r.stale ? 'Agile rates served from a stale cache: the upstream did not answer' : `Agile rates for region ${region} cover the horizon`,
          as_of: isoTime(r.fetchedAt),
        });
      } else
        out.push({
          layer: 'prices',
          status: 'fallback',
          why: `Agile rates are published for ${got.filter((x) => x !== null).length} of ${n} half hours; a flat ${DEFAULT_IMPORT_P} p/kWh is used`,
          as_of: isoTime(r.fetchedAt),
        });
    } catch {
      out.push({ layer: 'prices', status: 'fallback', why: `The price upstream did not answer; a flat ${DEFAULT_IMPORT_P} p/kWh is used`, as_of: null });
    }
    try {
      const c = await deps.market.carbon.forward(24);
      out.push({
        layer: 'carbon',
        status: c.value.length ? 'live' : 'missing',
        why: c.value.length ? `${c.value.length} half hours of forecast intensity` : 'the upstream returned no forecast',
        as_of: null,
      });
    } catch {
      out.push({ layer: 'carbon', status: 'missing', why: 'The carbon intensity upstream did not answer', as_of: null });
    }
    let base: number[] | null = null;
    let assets: LimitAsset[] = [];
    let limit: number | null = null;
    if (!siteId) {
      for (const layer of ['site_forecast', 'grid_constraints', 'device_availability'])
        out.push({ layer, status: 'missing', why: 'No site_id given', as_of: null });
    } else {
      const f = await deps.forecast.forecastSeries(q, orgId, siteId, start, n);
      const staleMs = SETTINGS.forecast_stale_after_hours * 3_600_000;
      if (f.last_stored === null)
        out.push({ layer: 'site_forecast', status: 'missing', why: 'The site has no stored load or generation history', as_of: null });
      else if (start - f.last_stored > staleMs)
        out.push({
          layer: 'site_forecast',
          status: 'fallback',
          why: `The newest stored half hour is older than ${SETTINGS.forecast_stale_after_hours} hours; the forecast carries old data forward`,
          as_of: isoTime(f.last_stored),
        });
      else out.push({ layer: 'site_forecast', status: 'live', why: `${f.method} from history up to ${isoTime(f.last_stored)}`, as_of: isoTime(f.last_stored) });
      base = f.load.map((l, i) => (l ?? 0) - (f.generation[i] ?? 0));
      const c = await optStore.importLimit(q, orgId, siteId);
      if (c) {
        limit = c.import_limit_kw;
        assets = c.assets as LimitAsset[];
        out.push({
          layer: 'grid_constraints',
          status: 'live',
          why: `Import limit ${c.import_limit_kw} kW with ${assets.length} flexible assets`,
          as_of: c.updated_at,
        });
      } else out.push({ layer: 'grid_constraints', status: 'missing', why: 'No import-limit configuration for the site', as_of: null });
      const reg = await deps.registry.siteAssets(q, orgId, siteId);
      const flexible = reg.filter((a) => a.asset_class === 'battery' || a.asset_class === 'charger');
      const now = clock.now().getTime();
      const fresh = flexible.filter((a) => a.last_reported_at && now - Date.parse(a.last_reported_at) <= SETTINGS.device_stale_after_minutes * 60_000);
      if (!flexible.length) out.push({ layer: 'device_availability', status: 'missing', why: 'No battery or charger is registered at the site', as_of: null });
      else if (fresh.length === flexible.length)
        out.push({
          layer: 'device_availability',
          status: 'live',
          why: `All ${flexible.length} batteries and chargers reported within ${SETTINGS.device_stale_after_minutes} minutes`,
          as_of: null,
        });
      else
        out.push({
          layer: 'device_availability',
          status: 'fallback',
          why: `${fresh.length} of ${flexible.length} batteries and chargers reported within ${SETTINGS.device_stale_after_minutes} minutes; the rest are assumed available`,
          as_of: null,
        });
    }
    out.push({ layer: 'flexibility_tenders', status: 'missing', why: 'No flexibility tender feed is connected to the optimiser', as_of: null });
    const order = CATALOGUE.map((c) => c.layer as string);
    out.sort((a, b) => order.indexOf(a.layer) - order.indexOf(b.layer));
    return { layers: out, prices, base, assets, limit };
  }

  const startSlot = () => {
    const now = clock.now().getTime();
    return floorSlot(now) + (now % SLOT_MS === 0 ? 0 : SLOT_MS);
  };

  return {
    catalogue: () => ({ layers: CATALOGUE.map((c) => ({ ...c })) }),
    settings: () => ({ ...SETTINGS }),

    async layers(ctx: RequestContext, query: { site_id?: string; region?: string }) {
      return db.tx(async (q) => {
        if (query.site_id) await requireSite(q, ctx.orgId, query.site_id);
        const start = startSlot();
        const l = await layers(q, ctx.orgId, query.site_id, query.region ?? SETTINGS.default_region, start, SETTINGS.horizon_hours * 2);
        return { site_id: query.site_id ?? null, as_of: isoTime(clock.now()), layers: l.layers };
      });
    },

    async grid(ctx: RequestContext, query: { site_id: string }) {
      return db.tx(async (q) => {
        await requireSite(q, ctx.orgId, query.site_id);
        const start = startSlot();
        const n = SETTINGS.horizon_hours * 2;
        const c = await optStore.importLimit(q, ctx.orgId, query.site_id);
        const f = await deps.forecast.forecastSeries(q, ctx.orgId, query.site_id, start, n);
        const kw = f.load.map((l, i) => (l === null ? null : r3((l - (f.generation[i] ?? 0)) / 0.5)));
        const known = kw.filter((x): x is number => x !== null);
        const peak = known.length ? Math.max(...known) : null;
        return {
          site_id: query.site_id,
          import_limit_kw: c?.import_limit_kw ?? null,
          forecast_peak_import_kw: peak,
          headroom_kw: c && peak !== null ? r3(c.import_limit_kw - peak) : null,
          half_hours_over: c ? kw.filter((x) => x !== null && x > c.import_limit_kw).length : null,
          forecast_method: f.method,
          from: isoTime(start),
          to: isoTime(start + n * SLOT_MS),
        };
      });
    },

    async plan(ctx: RequestContext, body: { site_id: string; region?: string; hours?: number }) {
      return db.tx(async (q) => {
        await requireSite(q, ctx.orgId, body.site_id);
        const start = startSlot();
        const n = (body.hours ?? SETTINGS.horizon_hours) * 2;
        const l = await layers(q, ctx.orgId, body.site_id, body.region ?? SETTINGS.default_region, start, n);
        const imp = l.prices ?? Array(n).fill(DEFAULT_IMPORT_P);
        const batteries: BatterySpec[] = l.assets
          .filter((a) => a.kind === 'battery' && a.capacity_kwh)
          .map((a) => {
            const cap = a.capacity_kwh!;
            const min = (cap * (a.min_soc_pct ?? 10)) / 100;
            const max = (cap * (a.max_soc_pct ?? 100)) / 100;
            return {
              device_id: a.device_id,
              capacity_kwh: cap,
              max_charge_kw: a.max_power_kw,
              max_discharge_kw: a.max_power_kw,
              round_trip_efficiency: a.round_trip_efficiency ?? 0.9,
              min_soc_kwh: min,
              max_soc_kwh: max,
              initial_soc_kwh: Math.min(max, Math.max(min, (cap * (a.initial_soc_pct ?? 50)) / 100)),
              max_discharge_kwh_per_day: null,
            };
          });
        const evs = l.assets
          .filter((a) => a.kind === 'ev_charger')
          .map((a) => ({
            device_id: a.device_id,
            max_charge_kw: a.max_power_kw,
            energy_kwh: Math.min(a.energy_kwh ?? 0, a.max_power_kw * Math.min(n / 2, a.ready_within_hours ?? 8)),
            deadline_slot: Math.min(n, Math.round((a.ready_within_hours ?? 8) * 2)),
          }));
        const input: PlanInput = {
          start,
          n,
          import_p: imp,
          export_p: imp.map(() => 0),
          base_kwh: l.base ?? Array(n).fill(0),
          batteries,
          evs,
          import_limit_kw: l.limit,
        };
        let p;
        try {
          p = await plan(input);
        } catch (e) {
          if (e instanceof Infeasible) throw optErrors.infeasible(`solver status ${e.message}`);
          throw e;
        }
        const run_id = randomUUID();
        const now = clock.now();
        const by = ctx.actor.kind === 'user' ? ctx.actor.userId : ctx.actor.kind === 'key' ? `key:${ctx.actor.keyId}` : null;
        const summary = {
          start: isoTime(start),
          end: isoTime(start + n * SLOT_MS),
          shadow: true,
          sent: false,
          cost_gbp: gbp(p.cost.opt),
          cost_do_nothing_gbp: gbp(p.cost.none),
          layers: l.layers,
        };
        const result = { half_hour_plan: halfHourView(p.slots, input, p.sol, p.netOpt, p.lines) };
        await optStore.insertRun(
          q,
          ctx.orgId,
          { run_id, site_id: body.site_id, kind: 'awareness', created_at: isoTime(now), created_by: by, dispatched: false, summary, result },
          now,
        );
        return { plan_id: run_id, site_id: body.site_id, created_at: isoTime(now), created_by: by, ...summary, ...result };
      });
    },

    async latest(ctx: RequestContext) {
      return db.tx(async (q) => {
        const r = await optStore.latestRun(q, ctx.orgId, 'awareness');
        if (!r) throw optErrors.noPlan();
        return { plan_id: r.run_id, site_id: r.site_id, created_at: r.created_at, created_by: r.created_by, ...r.summary, ...r.result };
      });
    },
  };
}

export type Awareness = ReturnType<typeof createAwareness>;
