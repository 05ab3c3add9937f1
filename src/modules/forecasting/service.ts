// Forecasting rules: the site's half-hourly load and generation from the energy ledger (the energy
// module's service; never its tables), forecasts by the configured method, forecast against actual,
// accuracy metrics and a rolling-origin backtest (decisions 0190, 0326).
import { ensureJobRoom } from '../../platform/job-caps.ts';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import type { RegistrySites, SiteAsset } from '../registry/index.ts';
import type { EnergyFigures } from '../energy/index.ts';
import { addDays, floorSlot, FIRST_SERVICE_DATE, isServiceDate, LAST_SERVICE_DATE, settlementPeriod, SLOT_MS, ukDate, ukMidnight } from '../../kit/uk-time.ts';
import { jobProgress } from '../../kit/progress.ts';
import { forecastErrors } from './errors.ts';
import { randomUUID } from 'node:crypto';
import { runInOrgScope } from '../../infra/db/scope.ts';
import { nextStep, type Job, type JobOutcome, type JobQueue } from '../../platform/jobs.ts';
import { backtestStore, forecastStore, type BacktestRow, type ConfigRow } from './store.ts';
import { addPairs, emptySums, forecastAt, METHOD_SENTENCES, METHODS, metricsOf, metricsOfSums, type MetricSums, type Method } from './methods.ts';

const DAY = 86_400_000;
const METERS = new Set(['site_meter', 'smart_meter']);
const LOADS = new Set(['charger', 'heat_pump', 'appliance', 'sub_meter']);
export const MAX_WINDOW_DAYS = 31;
/** Longest backtest answered in the request; longer ones run as a background job (decision 0196). */
export const MAX_BACKTEST_DAYS = 28;
/** Longest backtest at all: a year and a day (a leap year's whole year). */
export const MAX_BACKTEST_JOB_DAYS = 366;
/** UK days a background backtest computes in one step (one transaction with its progress). */
export const BACKTEST_STEP_DAYS = 7;
export const BACKTEST_KIND = 'forecasting.backtest';

type BacktestSums = { seasonal_weight: number; by: Record<string, { load: MetricSums; generation: MetricSums }> };

function backtestView(r: BacktestRow) {
  return {
    backtest_id: r.backtest_id,
    site_id: r.site_id,
    status: r.status,
    from: r.from_date,
    to: r.to_date,
    methods: r.methods,
    progress: jobProgress(r.days_done, r.days_total, 'days'),
    created_at: r.created_at,
    started_at: r.started_at,
    completed_at: r.completed_at,
    error: r.error,
    result: (r.result ?? null) as BacktestResult | null,
  };
}
/** History read before a forecast origin: three weeks and a day covers the day and week look-back, with one step further for a wall-clock half hour a spring clock-change day lacks. */
const LOOKBACK = 22 * DAY;

export interface SiteSeries {
  load: Map<number, number>;
  generation: Map<number, number>;
  /** Which roles the site has: whether load and generation can be derived at all. */
  has_load: boolean;
  has_generation: boolean;
}

export const DEFAULT_CONFIG = { method: 'persistence' as Method, horizon_hours: 48, seasonal_weight: 0.5 };

const r3 = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 1000);

/** Roles of a site's assets by registry class (topmost meter; loads not under another load). */
export function rolesOf(assets: SiteAsset[]) {
  const byId = new Map(assets.map((a) => [a.asset_id, a]));
  const grid: string[] = [];
  const pv: string[] = [];
  const battery: string[] = [];
  const load: string[] = [];
  for (const a of assets) {
    const c = a.asset_class;
    const parent = a.parent_asset_id ? byId.get(a.parent_asset_id) : undefined;
    if (c && METERS.has(c)) {
      if (!(parent?.asset_class && METERS.has(parent.asset_class))) grid.push(a.asset_id);
    } else if (c === 'inverter') pv.push(a.asset_id);
    else if (c === 'battery') battery.push(a.asset_id);
    else if (c && LOADS.has(c)) {
      let under = false;
      for (let p = parent, hops = 0; p && hops < 16; p = p.parent_asset_id ? byId.get(p.parent_asset_id) : undefined, hops++)
        if (p.asset_class && LOADS.has(p.asset_class)) under = true;
      if (!under) load.push(a.asset_id);
    }
  }
  return { grid, pv, battery, load };
}

export const SERIES_METHOD =
  "The site's energy ledger (the energy module: counters measured, power integrated): load = what the whole site used: with a grid meter, the ledger's consumption plus its residual (the metered loads and the unmetered rest; where the site meters no load, the balance generation + import + discharge − export − charge), without one the metered loads; generation = the ledger's generation. A half hour the ledger lacks or marks a gap is missing.";
/** A flow's basis in the ledger's half hour that carries a figure (not missing, partial or absent). */
const KNOWN = new Set(['measured', 'calculated']);

export function createForecasting(deps: {
  db: Db;
  backgroundDb?: Db;
  clock: Clock;
  registry: RegistrySites;
  energy: Pick<EnergyFigures, 'siteHalfHours'>;
  maxQueuedBacktests?: number;
}) {
  const { db, clock } = deps;
  const backgroundDb = deps.backgroundDb ?? db;

  async function mustExist(q: Queryable, orgId: string, siteId: string) {
    if (!(await deps.registry.siteExists(q, orgId, siteId))) throw forecastErrors.siteNotFound();
  }

  async function configOf(q: Queryable, orgId: string, siteId: string) {
    const row = await forecastStore.get(q, orgId, siteId);
    return row ? { ...view(row), is_default: false } : { site_id: siteId, ...DEFAULT_CONFIG, updated_at: null, updated_by: null, is_default: true };
  }
  const view = (r: ConfigRow) => ({
    site_id: r.site_id,
    method: r.method,
    horizon_hours: r.horizon_hours,
    seasonal_weight: r.seasonal_weight,
    updated_at: r.updated_at,
    updated_by: r.updated_by,
  });

  /**
   * The site's half-hourly load and generation in [from, to) (UTC slot starts): the energy ledger's
   * consumption plus residual (the whole site's load) and generation (decision 0326). A half hour the ledger has no row for, or marks a
   * gap (an expected asset silent or not covering all of it), is missing: no value, never zero.
   */
  async function series(q: Queryable, orgId: string, siteId: string, from: number, to: number): Promise<SiteSeries> {
    const roles = rolesOf(await deps.registry.assets(q, orgId, { siteId }));
    const has_generation = roles.pv.length > 0;
    const has_load = roles.grid.length > 0 || roles.load.length > 0;
    const load = new Map<number, number>();
    const generation = new Map<number, number>();
    for (const r of await deps.energy.siteHalfHours(q, orgId, siteId, new Date(from), new Date(to))) {
      if (!r.complete) continue;
      const k = r.slot.getTime();
      // The whole site's load (decision 0326): with a grid meter, the metered loads and the unmetered
      // rest (residual; zero where the site meters no load and consumption is the balance); without
      // one, the metered loads are all the ledger knows. In Wh.
      const rest = KNOWN.has(r.basis.import ?? '') ? Number(r.residual_kwh) : 0;
      if (KNOWN.has(r.basis.consumption ?? '')) load.set(k, Math.round(Number(r.consumption_kwh) * 1000 + rest * 1000) / 1000);
      if (KNOWN.has(r.basis.generation ?? '')) generation.set(k, Number(r.generation_kwh));
    }
    return { load, generation, has_load, has_generation };
  }

  const slotView = (t: number) => {
    const sp = settlementPeriod(t);
    return { start: isoTime(t), end: isoTime(t + SLOT_MS), settlement_date: sp.date, settlement_period: sp.period };
  };

  /** Day-ahead comparison: each half hour forecast from the UK midnight that starts its day. */
  function compare(s: SiteSeries, from: number, to: number, method: Method, weight: number) {
    const out = [];
    for (let t = from; t < to; t += SLOT_MS) {
      const origin = ukMidnight(ukDate(t));
      out.push({
        t,
        load: { forecast: forecastAt(s.load, t, origin, method, weight), actual: s.load.get(t) ?? null },
        generation: { forecast: forecastAt(s.generation, t, origin, method, weight), actual: s.generation.get(t) ?? null },
      });
    }
    return out;
  }

  function window(query: { from?: string; to?: string }) {
    const now = floorSlot(clock.now().getTime());
    const to = query.to ? floorSlot(Date.parse(query.to)) : now;
    const from = query.from ? floorSlot(Date.parse(query.from)) : to - DAY;
    if (to <= from) throw forecastErrors.field(['query', 'to'], 'must be after from (at least one half hour)', query.to);
    if (to - from > MAX_WINDOW_DAYS * DAY) throw forecastErrors.field(['query', 'to'], `window longer than ${MAX_WINDOW_DAYS} days`, query.to);
    return { from, to };
  }

  /** Forecast against actual over the query's window by its method (else the site's): the answer's head and each half hour. */
  async function comparison(ctx: RequestContext, siteId: string, query: { from?: string; to?: string; method?: Method }) {
    const { from, to } = window(query);
    return db.tx(async (q) => {
      await mustExist(q, ctx.orgId, siteId);
      const cfg = await configOf(q, ctx.orgId, siteId);
      const method = query.method ?? cfg.method;
      const s = await series(q, ctx.orgId, siteId, ukMidnight(ukDate(from)) - LOOKBACK, to);
      const rows = compare(s, from, to, method, cfg.seasonal_weight);
      return { head: { site_id: siteId, method, from: isoTime(from), to: isoTime(to) }, rows };
    });
  }

  return {
    /** For the optimiser: the site's forecast over n half hours from `origin` by its configured method. */
    async forecastSeries(q: Queryable, orgId: string, siteId: string, origin: number, n: number) {
      const cfg = await configOf(q, orgId, siteId);
      const s = await series(q, orgId, siteId, origin - LOOKBACK, origin);
      const load: (number | null)[] = [];
      const generation: (number | null)[] = [];
      for (let i = 0; i < n; i++) {
        const t = origin + i * SLOT_MS;
        load.push(s.has_load ? forecastAt(s.load, t, origin, cfg.method, cfg.seasonal_weight) : null);
        generation.push(s.has_generation ? forecastAt(s.generation, t, origin, cfg.method, cfg.seasonal_weight) : null);
      }
      const last = Math.max(-Infinity, ...s.load.keys(), ...s.generation.keys());
      return { method: cfg.method, method_description: METHOD_SENTENCES[cfg.method], load, generation, last_stored: Number.isFinite(last) ? last : null };
    },

    async sites(ctx: RequestContext) {
      return db.tx(async (q) => {
        const assets = await deps.registry.assets(q, ctx.orgId);
        const configs = new Map((await forecastStore.list(q, ctx.orgId)).map((c) => [c.site_id, c]));
        const bySite = new Map<string, SiteAsset[]>();
        for (const a of assets) bySite.set(a.site_id, [...(bySite.get(a.site_id) ?? []), a]);
        for (const id of configs.keys()) if (!bySite.has(id)) bySite.set(id, []);
        return {
          sites: [...bySite.keys()].sort().map((siteId) => {
            const roles = rolesOf(bySite.get(siteId)!);
            const c = configs.get(siteId);
            return {
              site_id: siteId,
              method: c?.method ?? DEFAULT_CONFIG.method,
              horizon_hours: c?.horizon_hours ?? DEFAULT_CONFIG.horizon_hours,
              configured: !!c,
              forecasts_load: roles.grid.length > 0 || roles.load.length > 0,
              forecasts_generation: roles.pv.length > 0,
            };
          }),
        };
      });
    },

    async getConfig(ctx: RequestContext, siteId: string) {
      return db.tx(async (q) => {
        await mustExist(q, ctx.orgId, siteId);
        return configOf(q, ctx.orgId, siteId);
      });
    },

    async putConfig(ctx: RequestContext, siteId: string, body: { method: Method; horizon_hours?: number; seasonal_weight?: number }) {
      return db.tx(async (q) => {
        await mustExist(q, ctx.orgId, siteId);
        const by = ctx.actor.kind === 'user' ? ctx.actor.userId : ctx.actor.kind === 'key' ? `key:${ctx.actor.keyId}` : null;
        const row = await forecastStore.put(
          q,
          ctx.orgId,
          {
            site_id: siteId,
            method: body.method,
            horizon_hours: body.horizon_hours ?? DEFAULT_CONFIG.horizon_hours,
            seasonal_weight: body.seasonal_weight ?? DEFAULT_CONFIG.seasonal_weight,
            updated_by: by,
          },
          clock.now(),
        );
        return { ...view(row), is_default: false };
      });
    },

    /** The forecast from the next half hour for the configured (or asked) horizon and method. */
    async forecast(ctx: RequestContext, siteId: string, query: { hours?: number; method?: Method }) {
      return db.tx(async (q) => {
        await mustExist(q, ctx.orgId, siteId);
        const cfg = await configOf(q, ctx.orgId, siteId);
        const method = query.method ?? cfg.method;
        const hours = query.hours ?? cfg.horizon_hours;
        const now = clock.now().getTime();
        const origin = floorSlot(now) + (now % SLOT_MS === 0 ? 0 : SLOT_MS);
        const s = await series(q, ctx.orgId, siteId, origin - LOOKBACK, origin);
        const half_hours = [];
        for (let t = origin; t < origin + hours * 3_600_000; t += SLOT_MS) {
          half_hours.push({
            ...slotView(t),
            load_kwh: s.has_load ? r3(forecastAt(s.load, t, origin, method, cfg.seasonal_weight)) : null,
            generation_kwh: s.has_generation ? r3(forecastAt(s.generation, t, origin, method, cfg.seasonal_weight)) : null,
          });
        }
        const last = Math.max(-Infinity, ...s.load.keys(), ...s.generation.keys());
        return {
          site_id: siteId,
          method,
          method_description: METHOD_SENTENCES[method],
          seasonal_weight: cfg.seasonal_weight,
          origin: isoTime(origin),
          horizon_hours: hours,
          last_stored_half_hour: Number.isFinite(last) ? isoTime(last) : null,
          half_hours,
        };
      });
    },

    async forecastVsActual(ctx: RequestContext, siteId: string, query: { from?: string; to?: string; method?: Method }) {
      const c = await comparison(ctx, siteId, query);
      return {
        ...c.head,
        half_hours: c.rows.map((r) => ({
          ...slotView(r.t),
          load_forecast_kwh: r3(r.load.forecast),
          load_actual_kwh: r3(r.load.actual),
          generation_forecast_kwh: r3(r.generation.forecast),
          generation_actual_kwh: r3(r.generation.actual),
        })),
      };
    },

    async metrics(ctx: RequestContext, siteId: string, query: { from?: string; to?: string; method?: Method }) {
      const c = await comparison(ctx, siteId, query);
      return { ...c.head, load: metricsOf(c.rows.map((r) => r.load)), generation: metricsOf(c.rows.map((r) => r.generation)) };
    },

    /**
     * Rolling origin: every UK day of the period forecast from its own midnight by each method. Up to
     * 28 days is answered in the request ({ job: null, result }); up to 366 days is queued as a
     * background job ({ job, result: null }) computed a week at a time (decision 0196).
     */
    async backtest(ctx: RequestContext, siteId: string, body: { from: string; to: string; methods?: Method[] }, jobs?: Pick<JobQueue, 'enqueue'>) {
      const fromDate = body.from;
      const toDate = body.to;
      for (const k of ['from', 'to'] as const) {
        if (!isServiceDate(body[k]))
          throw forecastErrors.field(['body', k], `Input should be a calendar date from ${FIRST_SERVICE_DATE} to ${LAST_SERVICE_DATE}`, body[k]);
      }
      if (toDate <= fromDate) throw forecastErrors.field(['body', 'to'], 'must be after from', body.to);
      const days = daysOf(fromDate, toDate);
      if (days > MAX_BACKTEST_JOB_DAYS) throw forecastErrors.field(['body', 'to'], `period longer than ${MAX_BACKTEST_JOB_DAYS} days`, body.to);
      const methods = [...new Set(body.methods ?? METHODS)];
      if (days > MAX_BACKTEST_DAYS) {
        if (!jobs) throw forecastErrors.field(['body', 'to'], `period longer than ${MAX_BACKTEST_DAYS} days`, body.to);
        return db.tx(async (q) => {
          await mustExist(q, ctx.orgId, siteId);
          // Per organisation, however many sites it has (decision 0291).
          await ensureJobRoom(q, ctx.orgId, { kinds: [BACKTEST_KIND], limit: deps.maxQueuedBacktests ?? 3, what: 'backtests', itemKey: 'backtest_id' });
          const cfg = await configOf(q, ctx.orgId, siteId);
          const id = randomUUID();
          const by = ctx.actor.kind === 'user' ? ctx.actor.userId : ctx.actor.kind === 'key' ? `key:${ctx.actor.keyId}` : null;
          await backtestStore.insert(
            q,
            ctx.orgId,
            {
              backtest_id: id,
              site_id: siteId,
              from_date: fromDate,
              to_date: toDate,
              methods,
              days_total: days,
              sums: newSums(methods, cfg.seasonal_weight),
              requested_by: by,
            },
            clock.now(),
          );
          await jobs.enqueue(q, { kind: BACKTEST_KIND, orgId: ctx.orgId, payload: { backtest_id: id, step: 0 }, dedupeKey: `${BACKTEST_KIND}:${id}:0` });
          return { job: backtestView((await backtestStore.get(q, ctx.orgId, id))!), result: null };
        });
      }
      return db.tx(async (q) => {
        await mustExist(q, ctx.orgId, siteId);
        const cfg = await configOf(q, ctx.orgId, siteId);
        const sums = newSums(methods, cfg.seasonal_weight);
        await addDaysTo(q, ctx.orgId, siteId, fromDate, toDate, sums);
        return { job: null, result: backtestResult(siteId, fromDate, toDate, days, methods, sums) };
      });
    },

    async backtestJob(ctx: RequestContext, siteId: string, backtestId: string) {
      return db.tx(async (q) => {
        await mustExist(q, ctx.orgId, siteId);
        const r = await backtestStore.get(q, ctx.orgId, backtestId);
        if (!r || r.site_id !== siteId) throw forecastErrors.backtestNotFound();
        return backtestView(r);
      });
    },

    /** The queue's handler: one step of up to a week of days, its sums and progress in one transaction. */
    async runBacktestStep(job: Job<{ backtest_id: string; step: number }>, jobs: Pick<JobQueue, 'enqueue'>): Promise<JobOutcome | void> {
      const orgId = job.orgId!;
      const { backtest_id: id, step } = job.payload;
      let more: boolean;
      try {
        more = await runInOrgScope(orgId, () =>
          backgroundDb.tx(async (q) => {
            const r = await backtestStore.get(q, orgId, id, true);
            if (!r || (r.status !== 'queued' && r.status !== 'running')) return false;
            const sums = r.sums as BacktestSums;
            const from = addDays(r.from_date, r.days_done);
            const n = Math.min(BACKTEST_STEP_DAYS, r.days_total - r.days_done);
            const to = addDays(from, n);
            await addDaysTo(q, orgId, r.site_id, from, to, sums);
            const done = r.days_done + n;
            const now = clock.now();
            await backtestStore.advance(q, orgId, id, done, sums, now);
            if (done < r.days_total) return true;
            await backtestStore.finish(q, orgId, id, 'completed', backtestResult(r.site_id, r.from_date, r.to_date, r.days_total, r.methods, sums), null, now);
            return false;
          }),
        );
      } catch (e) {
        if (job.attempts < 5) throw e;
        await runInOrgScope(orgId, () =>
          backgroundDb.tx((q) => backtestStore.finish(q, orgId, id, 'failed', null, 'The backtest could not be computed; request it again', clock.now())),
        );
        return;
      }
      if (more)
        return nextStep(jobs, clock, {
          kind: BACKTEST_KIND,
          orgId,
          payload: { backtest_id: id, step: step + 1 },
          dedupeKey: `${BACKTEST_KIND}:${id}:${step + 1}`,
        });
    },
  };

  /** Adds the days [fromDate, toDate) of every method to the sums, in time order. */
  async function addDaysTo(q: Queryable, orgId: string, siteId: string, fromDate: string, toDate: string, sums: BacktestSums) {
    const from = ukMidnight(fromDate);
    const to = ukMidnight(toDate);
    const s = await series(q, orgId, siteId, from - LOOKBACK, to);
    for (const [method, acc] of Object.entries(sums.by)) {
      const rows = compare(s, from, to, method as Method, sums.seasonal_weight);
      addPairs(
        acc.load,
        rows.map((r) => r.load),
      );
      addPairs(
        acc.generation,
        rows.map((r) => r.generation),
      );
    }
  }
}

function daysOf(fromDate: string, toDate: string) {
  return Math.round((Date.parse(`${toDate}T00:00:00Z`) - Date.parse(`${fromDate}T00:00:00Z`)) / DAY);
}

function newSums(methods: Method[], weight: number): BacktestSums {
  return { seasonal_weight: weight, by: Object.fromEntries(methods.map((m) => [m, { load: emptySums(), generation: emptySums() }])) };
}

type BacktestResult = ReturnType<typeof backtestResult>;

function backtestResult(siteId: string, fromDate: string, toDate: string, days: number, methods: Method[], sums: BacktestSums) {
  // In the order asked (the stored sums are JSONB, whose keys come back in its own order).
  const results = methods.map((method) => ({ method, load: metricsOfSums(sums.by[method].load), generation: metricsOfSums(sums.by[method].generation) }));
  const best = (k: 'load' | 'generation') => {
    const c = results.filter((r) => r[k].mae_kwh !== null).sort((a, b) => a[k].mae_kwh! - b[k].mae_kwh!);
    return c[0]?.method ?? null;
  };
  return {
    site_id: siteId,
    from: fromDate,
    to: toDate,
    origins: days,
    half_hours: Math.round((ukMidnight(toDate) - ukMidnight(fromDate)) / SLOT_MS),
    seasonal_weight: sums.seasonal_weight,
    results,
    best_for_load: best('load'),
    best_for_generation: best('generation'),
  };
}

export type Forecasting = ReturnType<typeof createForecasting>;
