// Advisory optimisation (concepts.md section 1, rules 4, 5, 8): the tariff schedule and the import
// limit, planned on request with HiGHS and recorded; warranty limits per battery; dispatch of an
// import-limit plan's first half hour in the demo realm only, through control's verified write.
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { CursorCodec } from '../../platform/cursor.ts';
import { pageAfter } from '../../platform/cursor.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import type { RegistrySites, SiteAsset } from '../registry/index.ts';
import type { MarketData } from '../market/index.ts';
import { floorSlot, SLOT_MS } from '../../kit/uk-time.ts';
import { realmForId } from '../orgs/index.ts';
import type { ControlSetpoints, DecisionLog } from '../control/index.ts';
import type { SiteForecast } from '../forecasting/index.ts';
import type { RetailTariffRates } from '../pricing/index.ts';
import { errors } from '../../platform/errors.ts';
import { optErrors } from './errors.ts';
import { optStore, type RunKind, type RunRow } from './store.ts';
import { Infeasible, solveLoaded, type BatterySpec, type EvSpec } from './lp.ts';
import { gbp, halfHourView, MONEY_METHOD, plan, r3, RULE_METHOD, SCHEDULE_METHOD, type PlanInput } from './schedule.ts';

export const DEFAULT_IMPORT_P = 25;

export interface BatteryInput {
  device_id: string;
  capacity_kwh: number;
  max_charge_kw: number;
  max_discharge_kw?: number;
  round_trip_efficiency?: number;
  min_soc_pct?: number;
  max_soc_pct?: number;
  initial_soc_pct: number;
}
export type PricesInput =
  | { source: 'agile'; region?: string }
  | { source: 'manual'; import_p_per_kwh: number[]; export_p_per_kwh?: number[] }
  | { source: 'retail_tariff'; tariff_id: string };

export interface TariffRunBody {
  start?: string;
  hours?: number;
  batteries: BatteryInput[];
  prices: PricesInput;
  export_p_per_kwh?: number;
  include_site_forecast?: boolean;
}

export interface LimitAsset {
  device_id: string;
  kind: 'battery' | 'ev_charger';
  max_power_kw: number;
  capacity_kwh?: number;
  initial_soc_pct?: number;
  min_soc_pct?: number;
  max_soc_pct?: number;
  round_trip_efficiency?: number;
  energy_kwh?: number;
  ready_within_hours?: number;
}

/** What an import-limit decision records: the first half hour's commands and the peaks either way. */
function limitOutput(
  input: PlanInput,
  sol: { import_kwh: number[]; export_kwh: number[]; charge_kw: number[][]; discharge_kw: number[][]; ev_kw: number[][] },
) {
  const evs = input.evs ?? [];
  const netOpt = sol.import_kwh.map((x, i) => x - sol.export_kwh[i]);
  // The do-nothing comparison charges each EV at full power from the start.
  const evAsap = input.base_kwh.map(
    (b, i) =>
      b + evs.reduce((s, e) => s + (i < e.deadline_slot ? Math.max(0, Math.min(e.max_charge_kw * 0.5, e.energy_kwh - i * e.max_charge_kw * 0.5)) : 0), 0),
  );
  const limitKwh = (input.import_limit_kw ?? Infinity) * 0.5;
  return {
    first_half_hour: [
      ...input.batteries.map((b, k) => ({ device_id: b.device_id, value_kw: r3(sol.charge_kw[k][0] - sol.discharge_kw[k][0]) })),
      ...evs.map((e, k) => ({ device_id: e.device_id, value_kw: r3(sol.ev_kw[k][0]) })),
    ],
    peaks_before: evAsap.filter((x) => x > limitKwh + 1e-6).length,
    peaks_after: netOpt.filter((x) => x > limitKwh + 1e-6).length,
    max_import_before_kw: r3(Math.max(0, ...evAsap) / 0.5),
    max_import_after_kw: r3(Math.max(0, ...netOpt) / 0.5),
  };
}

type Deps = {
  db: Db;
  clock: Clock;
  cursors: CursorCodec;
  registry: RegistrySites;
  market: MarketData;
  tariffs: RetailTariffRates;
  forecast: SiteForecast;
  setpoints: ControlSetpoints;
  decisions: DecisionLog;
};

const actorOf = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : ctx.actor.kind === 'key' ? `key:${ctx.actor.keyId}` : null);

export function createOptimisation(deps: Deps) {
  const { db, clock, cursors } = deps;

  // Replay re-solves the recorded problem and answers the recorded output's shape, so the decision
  // log can say whether the same plan comes out.
  deps.decisions.registerReplayer('optimisation', (inputs: { problem?: PlanInput }) => {
    if (!inputs?.problem) return { replayed: false, reason: 'no problem recorded' };
    const p = inputs.problem;
    const sol = solveLoaded({ ...p, days: Array(p.n).fill('') });
    if (!sol) return { replayed: false, reason: 'solver not loaded in this process' };
    return limitOutput(p, sol);
  });

  async function siteAssets(q: Queryable, orgId: string, siteId: string) {
    if (!(await deps.registry.siteExists(q, orgId, siteId))) throw optErrors.siteNotFound();
    return deps.registry.assets(q, orgId, { siteId });
  }

  function nextSlot() {
    const now = clock.now().getTime();
    return floorSlot(now) + (now % SLOT_MS === 0 ? 0 : SLOT_MS);
  }

  /**
   * A plan never gives a battery more room than the registry says it has: a stated capacity above
   * the asset's registered `details.capacity_kwh` (the figure site energy and EMS alerts use) is
   * refused; at or below it is the planner's choice (decision 0316).
   */
  function withinRegistered(asset: SiteAsset | undefined, capacityKwh: number | undefined, loc: (string | number)[]) {
    const registered = asset?.details.capacity_kwh;
    if (typeof registered !== 'number' || !(registered > 0) || capacityKwh === undefined || capacityKwh <= registered) return;
    throw optErrors.field([...loc, 'capacity_kwh'], `above the battery's registered capacity_kwh (${registered} kWh in its registry details)`, capacityKwh);
  }

  function batterySpec(
    b: BatteryInput,
    loc: (string | number)[],
    warranty?: { max_cycles_per_day: number | null; max_throughput_kwh_per_day: number | null },
  ): BatterySpec {
    const min = b.min_soc_pct ?? 10;
    const max = b.max_soc_pct ?? 100;
    if (min >= max) throw optErrors.field([...loc, 'max_soc_pct'], 'must be above min_soc_pct', max);
    if (b.initial_soc_pct < min || b.initial_soc_pct > max)
      throw optErrors.field([...loc, 'initial_soc_pct'], `must be within the state-of-charge bounds ${min} to ${max}`, b.initial_soc_pct);
    const limits = [
      warranty?.max_throughput_kwh_per_day ?? null,
      warranty?.max_cycles_per_day != null ? warranty.max_cycles_per_day * b.capacity_kwh : null,
    ].filter((x): x is number => x !== null);
    return {
      device_id: b.device_id,
      capacity_kwh: b.capacity_kwh,
      max_charge_kw: b.max_charge_kw,
      max_discharge_kw: b.max_discharge_kw ?? b.max_charge_kw,
      round_trip_efficiency: b.round_trip_efficiency ?? 0.9,
      min_soc_kwh: (b.capacity_kwh * min) / 100,
      max_soc_kwh: (b.capacity_kwh * max) / 100,
      initial_soc_kwh: (b.capacity_kwh * b.initial_soc_pct) / 100,
      max_discharge_kwh_per_day: limits.length ? Math.min(...limits) : null,
    };
  }

  async function prices(q: Queryable, orgId: string, body: TariffRunBody, start: number, n: number) {
    const exportConst = body.export_p_per_kwh ?? 0;
    let imp: number[];
    let exp: number[];
    let source: string;
    if (body.prices.source === 'manual') {
      if (body.prices.import_p_per_kwh.length !== n)
        throw optErrors.field(['body', 'prices', 'import_p_per_kwh'], `must have one price a half hour: ${n}`, body.prices.import_p_per_kwh.length);
      if (body.prices.export_p_per_kwh && body.prices.export_p_per_kwh.length !== n)
        throw optErrors.field(['body', 'prices', 'export_p_per_kwh'], `must have one price a half hour: ${n}`, body.prices.export_p_per_kwh.length);
      imp = body.prices.import_p_per_kwh;
      exp = body.prices.export_p_per_kwh ?? imp.map(() => exportConst);
      source = 'manual: import and export prices given in the request';
    } else if (body.prices.source === 'retail_tariff') {
      const at = Array.from({ length: n }, (_, i) => start + i * SLOT_MS);
      const r = await deps.tariffs.unitRates(q, orgId, body.prices.tariff_id, at);
      if (r === null) throw optErrors.field(['body', 'prices', 'tariff_id'], 'no retail tariff of this organisation has this id', body.prices.tariff_id);
      if ('problem' in r)
        throw optErrors.field(['body', 'prices', 'tariff_id'], `the tariff has no unit rate for the horizon: ${r.problem}`, body.prices.tariff_id);
      imp = r.rates_p_per_kwh_inc_vat.map(Number);
      exp = imp.map(() => exportConst);
      source = `retail tariff ${r.tariff_id} (${r.name}), version${r.versions.length > 1 ? 's' : ''} ${r.versions.join(', ')}, unit rates including VAT by UK local day and time band; export at ${exportConst} p/kWh`;
    } else {
      const region = body.prices.region ?? 'C';
      const range = await deps.market.prices.range(region, start, start + n * SLOT_MS);
      imp = [];
      for (let i = 0; i < n; i++) {
        const t = start + i * SLOT_MS;
        const row = range.rows.find((r) => r.from <= t && t < r.to);
        if (!row) throw optErrors.infeasible(`Agile prices for region ${region} are not published for ${isoTime(t)}`);
        imp.push(row.inc);
      }
      exp = imp.map(() => exportConst);
      source = `Agile (${deps.market.tariffCode(region)}), prices including VAT${range.stale ? ', stale cache' : ''}; export at ${exportConst} p/kWh`;
    }
    // Export is never paid more than import in the same half hour (else buying to sell is unbounded).
    exp = exp.map((e, i) => Math.min(e, imp[i]));
    return { imp, exp, source };
  }

  async function baseOf(q: Queryable, orgId: string, siteId: string, start: number, n: number, include: boolean) {
    if (!include) return { base: Array(n).fill(0) as number[], forecast: null };
    const f = await deps.forecast.forecastSeries(q, orgId, siteId, start, n);
    return { base: f.load.map((l, i) => (l ?? 0) - (f.generation[i] ?? 0)), forecast: f };
  }

  async function runPage(ctx: RequestContext, kind: RunKind, siteId: string, query: { limit?: number; cursor?: string }) {
    const limit = query.limit ?? 20;
    const binding = { op: `list-${kind}-runs`, orgId: ctx.orgId, filters: { s: siteId } };
    const paged = pageAfter(cursors, binding, query.cursor, limit);
    return db.tx(async (q) => {
      await siteAssets(q, ctx.orgId, siteId);
      const page = paged.page(await optStore.runs(q, ctx.orgId, kind, siteId, paged.after ?? null, limit + 1), (r) => ({ t: r.created_at, id: r.run_id }));
      return { runs: page.items.map(runSummary), next_cursor: page.next_cursor, has_more: page.has_more };
    });
  }
  const runSummary = (r: RunRow) => ({
    run_id: r.run_id,
    site_id: r.site_id,
    created_at: r.created_at,
    created_by: r.created_by,
    dispatched: r.dispatched,
    ...r.summary,
  });

  async function solved(input: PlanInput) {
    try {
      return await plan(input);
    } catch (e) {
      if (e instanceof Infeasible) throw optErrors.infeasible(`solver status ${e.message}`);
      throw e;
    }
  }

  return {
    // ---- Tariff schedule ------------------------------------------------------------------------
    async tariffRun(ctx: RequestContext, siteId: string, body: TariffRunBody) {
      const start = body.start ? floorSlot(Date.parse(body.start)) : nextSlot();
      const n = (body.hours ?? 24) * 2;
      const ids = body.batteries.map((b) => b.device_id);
      const dup = ids.findIndex((id, i) => ids.indexOf(id) !== i);
      if (dup >= 0) throw optErrors.field(['body', 'batteries', dup, 'device_id'], 'device listed twice', ids[dup]);
      return db.tx(async (q) => {
        const assets = await siteAssets(q, ctx.orgId, siteId);
        body.batteries.forEach((b, i) => {
          const registered = assets.find((a) => a.asset_id === b.device_id && a.asset_class === 'battery');
          if (!registered) throw optErrors.field(['body', 'batteries', i, 'device_id'], 'not a battery registered at this site', b.device_id);
          withinRegistered(registered, b.capacity_kwh, ['body', 'batteries', i]);
        });
        const warranties = new Map((await optStore.warranties(q, ctx.orgId, siteId)).map((w) => [w.device_id, w]));
        const batteries = body.batteries.map((b, i) => batterySpec(b, ['body', 'batteries', i], warranties.get(b.device_id)));
        const pr = await prices(q, ctx.orgId, body, start, n);
        const { base, forecast } = await baseOf(q, ctx.orgId, siteId, start, n, body.include_site_forecast ?? true);
        const input: PlanInput = { start, n, import_p: pr.imp, export_p: pr.exp, base_kwh: base, batteries };
        const { sol, slots, netOpt, cost, lines, problem } = await solved(input);
        const run_id = randomUUID();
        const now = clock.now();
        const summary = {
          start: isoTime(start),
          end: isoTime(start + n * SLOT_MS),
          half_hours: n,
          cost_do_nothing_gbp: gbp(cost.none),
          cost_simple_rule_gbp: gbp(cost.rule),
          cost_optimised_gbp: gbp(cost.opt),
          saving_vs_do_nothing_gbp: gbp(cost.none - cost.opt),
          saving_vs_simple_rule_gbp: gbp(cost.rule - cost.opt),
        };
        const result = {
          status: 'optimal',
          solver: 'HiGHS (highs npm package, WebAssembly), linear programme',
          method: `${SCHEDULE_METHOD} ${MONEY_METHOD}`,
          baseline_method: RULE_METHOD,
          price_source: pr.source,
          site_forecast: forecast ? `${forecast.method}: ${forecast.method_description}` : 'not included: battery against prices alone',
          batteries: batteries.map((b) => ({
            device_id: b.device_id,
            capacity_kwh: b.capacity_kwh,
            min_soc_kwh: r3(b.min_soc_kwh),
            max_soc_kwh: r3(b.max_soc_kwh),
            initial_soc_kwh: r3(b.initial_soc_kwh),
            max_discharge_kwh_per_day: b.max_discharge_kwh_per_day === null ? null : r3(b.max_discharge_kwh_per_day),
          })),
          solve_ms: Math.round(sol.solve_ms * 10) / 10,
          half_hour_plan: halfHourView(slots, input, sol, netOpt, lines),
        };
        void problem;
        await optStore.insertRun(
          q,
          ctx.orgId,
          { run_id, site_id: siteId, kind: 'tariff_schedule', created_at: isoTime(now), created_by: actorOf(ctx), dispatched: false, summary, result },
          now,
        );
        return { run_id, site_id: siteId, created_at: isoTime(now), created_by: actorOf(ctx), dispatched: false, ...summary, ...result };
      });
    },

    tariffRuns: (ctx: RequestContext, siteId: string, query: { limit?: number; cursor?: string }) => runPage(ctx, 'tariff_schedule', siteId, query),

    async tariffRunGet(ctx: RequestContext, siteId: string, runId: string) {
      return db.tx(async (q) => {
        await siteAssets(q, ctx.orgId, siteId);
        const r = await optStore.run(q, ctx.orgId, 'tariff_schedule', runId);
        if (!r || r.site_id !== siteId) throw optErrors.runNotFound();
        return { ...runSummary(r), ...r.result };
      });
    },

    async warranty(ctx: RequestContext, siteId: string) {
      return db.tx(async (q) => {
        const assets = await siteAssets(q, ctx.orgId, siteId);
        const rows = new Map((await optStore.warranties(q, ctx.orgId, siteId)).map((w) => [w.device_id, w]));
        return {
          site_id: siteId,
          devices: assets
            .filter((a) => a.asset_class === 'battery')
            .map((a) => {
              const w = rows.get(a.asset_id);
              return {
                device_id: a.asset_id,
                max_cycles_per_day: w?.max_cycles_per_day ?? null,
                max_throughput_kwh_per_day: w?.max_throughput_kwh_per_day ?? null,
                warranty_end: w?.warranty_end ?? null,
                updated_at: w?.updated_at ?? null,
                updated_by: w?.updated_by ?? null,
              };
            }),
        };
      });
    },

    async putWarranty(
      ctx: RequestContext,
      siteId: string,
      deviceId: string,
      body: { max_cycles_per_day: number | null; max_throughput_kwh_per_day: number | null; warranty_end?: string | null },
    ) {
      return db.tx(async (q) => {
        const assets = await siteAssets(q, ctx.orgId, siteId);
        if (!assets.some((a) => a.asset_id === deviceId && a.asset_class === 'battery')) throw optErrors.deviceNotFound();
        const now = clock.now();
        const w = {
          device_id: deviceId,
          max_cycles_per_day: body.max_cycles_per_day,
          max_throughput_kwh_per_day: body.max_throughput_kwh_per_day,
          warranty_end: body.warranty_end ?? null,
          updated_by: actorOf(ctx),
        };
        await optStore.putWarranty(q, ctx.orgId, siteId, w, now);
        return { ...w, updated_at: isoTime(now) };
      });
    },

    // ---- Import limit ---------------------------------------------------------------------------
    async limitConfig(ctx: RequestContext, siteId: string) {
      return db.tx(async (q) => {
        await siteAssets(q, ctx.orgId, siteId);
        const c = await optStore.importLimit(q, ctx.orgId, siteId);
        return c
          ? {
              site_id: siteId,
              configured: true,
              import_limit_kw: c.import_limit_kw,
              assets: c.assets as LimitAsset[],
              updated_at: c.updated_at,
              updated_by: c.updated_by,
            }
          : { site_id: siteId, configured: false, import_limit_kw: null, assets: [], updated_at: null, updated_by: null };
      });
    },

    async putLimitConfig(ctx: RequestContext, siteId: string, body: { import_limit_kw: number; assets: LimitAsset[] }) {
      return db.tx(async (q) => {
        const assets = await siteAssets(q, ctx.orgId, siteId);
        const seen = new Set<string>();
        body.assets.forEach((a, i) => {
          if (!assets.some((x: SiteAsset) => x.asset_id === a.device_id))
            throw optErrors.field(['body', 'assets', i, 'device_id'], 'not an asset registered at this site', a.device_id);
          if (seen.has(a.device_id)) throw optErrors.field(['body', 'assets', i, 'device_id'], 'device listed twice', a.device_id);
          seen.add(a.device_id);
          if (a.kind === 'battery') {
            if (a.capacity_kwh === undefined) throw optErrors.field(['body', 'assets', i, 'capacity_kwh'], 'required for a battery', null);
            withinRegistered(
              assets.find((x: SiteAsset) => x.asset_id === a.device_id),
              a.capacity_kwh,
              ['body', 'assets', i],
            );
            batterySpec(
              {
                device_id: a.device_id,
                capacity_kwh: a.capacity_kwh,
                max_charge_kw: a.max_power_kw,
                initial_soc_pct: a.initial_soc_pct ?? 50,
                min_soc_pct: a.min_soc_pct,
                max_soc_pct: a.max_soc_pct,
              },
              ['body', 'assets', i],
            );
          } else if (a.energy_kwh !== undefined && a.energy_kwh > a.max_power_kw * (a.ready_within_hours ?? 8)) {
            throw optErrors.field(['body', 'assets', i, 'energy_kwh'], 'more than the charger can deliver in ready_within_hours at max_power_kw', a.energy_kwh);
          }
        });
        const now = clock.now();
        await optStore.putImportLimit(q, ctx.orgId, siteId, body.import_limit_kw, body.assets, actorOf(ctx), now);
        return {
          site_id: siteId,
          configured: true,
          import_limit_kw: body.import_limit_kw,
          assets: body.assets,
          updated_at: isoTime(now),
          updated_by: actorOf(ctx),
        };
      });
    },

    async limitSeries(ctx: RequestContext, siteId: string, query: { hours?: number }) {
      return db.tx(async (q) => {
        await siteAssets(q, ctx.orgId, siteId);
        const c = await optStore.importLimit(q, ctx.orgId, siteId);
        if (!c) throw optErrors.notConfigured();
        const start = nextSlot();
        const n = (query.hours ?? 48) * 2;
        const f = await deps.forecast.forecastSeries(q, ctx.orgId, siteId, start, n);
        const half_hours = f.load.map((l, i) => {
          const t = start + i * SLOT_MS;
          const kw = l === null ? null : r3((l - (f.generation[i] ?? 0)) / 0.5);
          return {
            start: isoTime(t),
            end: isoTime(t + SLOT_MS),
            forecast_import_kw: kw,
            limit_kw: c.import_limit_kw,
            over_kw: kw === null ? null : r3(Math.max(0, kw - c.import_limit_kw)),
          };
        });
        return {
          site_id: siteId,
          import_limit_kw: c.import_limit_kw,
          forecast_method: f.method,
          half_hours_over: half_hours.filter((h) => (h.over_kw ?? 0) > 0).length,
          half_hours,
        };
      });
    },

    async limitRun(ctx: RequestContext, siteId: string, body: { hours?: number; dispatch?: boolean; import_p_per_kwh?: number[] }) {
      if (body.dispatch && realmForId(ctx.orgId) !== 'demo') throw errors.demoRealmOnly();
      const start = nextSlot();
      const n = (body.hours ?? 24) * 2;
      if (body.import_p_per_kwh && body.import_p_per_kwh.length !== n)
        throw optErrors.field(['body', 'import_p_per_kwh'], `must have one price a half hour: ${n}`, body.import_p_per_kwh.length);
      return db.tx(async (q) => {
        await siteAssets(q, ctx.orgId, siteId);
        const c = await optStore.importLimit(q, ctx.orgId, siteId);
        if (!c) throw optErrors.notConfigured();
        const cfgAssets = c.assets as LimitAsset[];
        const batteries = cfgAssets
          .filter((a) => a.kind === 'battery')
          .map((a, i) =>
            batterySpec(
              {
                device_id: a.device_id,
                capacity_kwh: a.capacity_kwh!,
                max_charge_kw: a.max_power_kw,
                initial_soc_pct: a.initial_soc_pct ?? 50,
                min_soc_pct: a.min_soc_pct,
                max_soc_pct: a.max_soc_pct,
                round_trip_efficiency: a.round_trip_efficiency,
              },
              ['config', i],
            ),
          );
        const evs: EvSpec[] = cfgAssets
          .filter((a) => a.kind === 'ev_charger')
          .map((a) => ({
            device_id: a.device_id,
            max_charge_kw: a.max_power_kw,
            energy_kwh: a.energy_kwh ?? 0,
            deadline_slot: Math.min(n, Math.round((a.ready_within_hours ?? 8) * 2)),
          }));
        const { base } = await baseOf(q, ctx.orgId, siteId, start, n, true);
        const imp = body.import_p_per_kwh ?? Array(n).fill(DEFAULT_IMPORT_P);
        const input: PlanInput = { start, n, import_p: imp, export_p: imp.map(() => 0), base_kwh: base, batteries, evs, import_limit_kw: c.import_limit_kw };
        const { sol, slots, netOpt, cost, lines } = await solved(input);
        const out = limitOutput(input, sol);
        const before = out.peaks_before;
        const after = out.peaks_after;
        const run_id = randomUUID();
        const now = clock.now();
        const commands = out.first_half_hour;
        let dispatch: { device_id: string; value_kw: number; verdict: string; setpoint_id: string }[] | null = null;
        const decision_id = await deps.decisions.record(q, ctx.orgId, {
          site_id: siteId,
          kind: 'optimisation',
          rule: 'import-limit plan: keep import under the limit at least cost (HiGHS LP); the first half hour is dispatched only when asked, in the demo realm',
          inputs: { problem: input, run_id },
          output: out,
          outcome: body.dispatch ? 'dispatched' : 'advisory',
          actor: actorOf(ctx),
        });
        if (body.dispatch) {
          dispatch = [];
          for (const cmd of commands) {
            const r = await deps.setpoints.write(
              q,
              ctx.orgId,
              { site_id: siteId, device_id: cmd.device_id, value_kw: cmd.value_kw, source: 'optimiser', requested_by_decision: decision_id },
              actorOf(ctx),
            );
            dispatch.push({ device_id: cmd.device_id, value_kw: cmd.value_kw, verdict: r.verdict, setpoint_id: r.setpoint_id });
          }
        }
        const summary = {
          start: isoTime(start),
          end: isoTime(start + n * SLOT_MS),
          import_limit_kw: c.import_limit_kw,
          peaks_before: before,
          peaks_after: after,
          peaks_avoided: Math.max(0, before - after),
          max_import_before_kw: out.max_import_before_kw,
          max_import_after_kw: out.max_import_after_kw,
          cost_gbp: gbp(cost.opt),
          decision_id,
        };
        const result = {
          method: `${SCHEDULE_METHOD} Import above the limit is allowed only through a slack costing 1,000 £/kWh, so it is used only where unavoidable. ${MONEY_METHOD}`,
          dispatch,
          half_hour_plan: halfHourView(slots, input, sol, netOpt, lines),
        };
        await optStore.insertRun(
          q,
          ctx.orgId,
          { run_id, site_id: siteId, kind: 'import_limit', created_at: isoTime(now), created_by: actorOf(ctx), dispatched: !!body.dispatch, summary, result },
          now,
        );
        return { run_id, site_id: siteId, created_at: isoTime(now), created_by: actorOf(ctx), dispatched: !!body.dispatch, ...summary, ...result };
      });
    },

    limitRuns: (ctx: RequestContext, siteId: string, query: { limit?: number; cursor?: string }) => runPage(ctx, 'import_limit', siteId, query),
  };
}

export type Optimisation = ReturnType<typeof createOptimisation>;
