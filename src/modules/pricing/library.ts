// The charge library (rates and time-band schedules, published and the organisation's own), the
// organisation's supply points (MPANs), and the pricing engine's two operations over them.
import { isoTime } from '../../platform/schema-kit.ts';
import { randomUUID } from 'node:crypto';
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CursorCodec } from '../../platform/cursor.ts';
import { pageAfter } from '../../platform/cursor.ts';
import { fieldError, type FieldError } from '../../platform/errors.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { AuditLog } from '../audit/index.ts';
import { parseScaled, pow10, rescale } from '../../kit/decimal.ts';
import { parseInstant, slotsInDay, SLOT_MS } from '../../kit/uk-time.ts';
import { checkSchedule, type BandPeriod } from './bands.ts';
import { COMPONENTS, componentInfo } from './components.ts';
import { distributorOf } from './distributors.ts';
import {
  libraryAt,
  priceHalfHours,
  inForce,
  appliesTo,
  parseRate,
  PRICE_METHOD,
  type LibRate,
  type LibSchedule,
  type SupplyPoint,
  type HalfHourIn,
} from './engine.ts';
import { pricingErrors } from './errors.ts';
import { parseMpanCore } from './mpan.ts';
import { Q, q, plain } from './money.ts';
import { PUBLISHED_RATES } from './published.ts';
import { libraryStore, mpanStore, type MpanRow, type RateRow, type ScheduleRow } from './store.ts';

export const actorId = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : ctx.actor.kind === 'key' ? `key:${ctx.actor.keyId}` : null);

const DATE = /^\d{4}-\d{2}-\d{2}$/;
export const validDate = (s: string) => DATE.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s);

export interface RateIn {
  component: string;
  unit: string;
  rate: string;
  distributor_id?: string | null;
  line_loss_class?: string | null;
  supply_type?: 'domestic' | 'business' | null;
  band?: string | null;
  valid_from: string;
  valid_to?: string | null;
  source: string;
}

export interface BandsIn {
  distributor_id: string;
  valid_from: string;
  valid_to?: string | null;
  periods: BandPeriod[];
  source: string;
}

export interface MpanIn {
  mpan_core: string;
  line_loss_class: string;
  connection_voltage: string;
  supply_type: 'domestic' | 'business';
  agreed_capacity_kva?: string | null;
  site_id?: string | null;
  label?: string | null;
}

const published = (): LibRate[] => PUBLISHED_RATES.map((r) => ({ ...r, origin: 'published' as const }));
const own = (r: RateRow): LibRate => ({
  rate_id: r.rate_id,
  component: r.component,
  rate: plain(parseRate(r.rate)),
  distributor_id: r.distributor_id,
  line_loss_class: r.line_loss_class,
  supply_type: r.supply_type,
  band: r.band,
  valid_from: r.valid_from,
  valid_to: r.valid_to,
  source: r.source,
  origin: 'organisation',
});

export function rateView(r: LibRate & { created_at?: Date | null }) {
  const info = componentInfo(r.component)!;
  return { ...r, unit: info.unit, created_at: r.created_at ? isoTime(r.created_at) : null };
}

export function scheduleView(s: ScheduleRow) {
  return { ...s, created_at: isoTime(s.created_at) };
}

export function mpanView(m: MpanRow) {
  const d = distributorOf(m.distributor_id)!;
  return {
    mpan_core: m.mpan_core,
    distributor: d,
    line_loss_class: m.line_loss_class,
    connection_voltage: m.connection_voltage,
    supply_type: m.supply_type,
    agreed_capacity_kva: m.agreed_capacity_kva === null ? null : plain(parseRate(m.agreed_capacity_kva)),
    site_id: m.site_id,
    label: m.label,
    created_at: isoTime(m.created_at),
  };
}

function validity(from: string, to: string | null | undefined, errs: FieldError[]) {
  if (!validDate(from)) errs.push(fieldError(['body', 'valid_from'], 'valid_from must be a date, YYYY-MM-DD', from));
  if (to !== null && to !== undefined) {
    if (!validDate(to)) errs.push(fieldError(['body', 'valid_to'], 'valid_to must be a date, YYYY-MM-DD (the first day no longer in force), or null', to));
    else if (validDate(from) && to <= from)
      errs.push(fieldError(['body', 'valid_to'], 'valid_to must be after valid_from (it is the first day no longer in force)', to));
  }
}

const describe = (r: { rate_id: string; component: string; band?: string | null; valid_from: string; valid_to: string | null; origin?: string }) =>
  `${r.origin === 'published' ? 'published rate' : 'rate'} ${r.rate_id} (${r.component}${r.band ? ` ${r.band}` : ''}, in force ${r.valid_from} to ${r.valid_to ?? 'open'})`;

export function createLibrary(deps: { db: Db; clock: Clock; audit: AuditLog; cursors: CursorCodec }) {
  const { db, clock, audit, cursors } = deps;

  async function supplyPoint(ctx: RequestContext, raw: string): Promise<MpanRow> {
    const parsed = parseMpanCore(raw);
    if (!parsed.ok) throw pricingErrors.field(['mpan_core'], parsed.reason, raw);
    const m = await mpanStore.get(db, ctx.orgId, parsed.core);
    if (!m) throw pricingErrors.mpanUnknown();
    return m;
  }

  async function libraryFor(ctx: RequestContext, m: SupplyPoint): Promise<{ rates: LibRate[]; schedules: LibSchedule[] }> {
    const rates = [...published(), ...(await libraryStore.rates(db, ctx.orgId, { distributorId: m.distributor_id })).map(own)];
    const schedules = await libraryStore.schedules(db, ctx.orgId, m.distributor_id);
    return { rates, schedules };
  }

  return {
    supplyPoint,
    libraryFor,

    async library(ctx: RequestContext, query: { component?: string; distributor_id?: string }) {
      const rows = (await libraryStore.rates(db, ctx.orgId, { component: query.component, distributorId: query.distributor_id })).map((r) =>
        rateView({ ...own(r), created_at: r.created_at }),
      );
      const pub = published()
        .filter((r) => !query.component || r.component === query.component)
        .map((r) => rateView(r));
      const schedules = (await libraryStore.schedules(db, ctx.orgId, query.distributor_id)).map(scheduleView);
      return {
        components: COMPONENTS.map((c) => ({
          component: c.component,
          unit: c.unit,
          description: c.description,
          needs_distributor: c.needsDistributor,
          needs_band: c.needsBand,
        })),
        rates: [...pub, ...rows],
        time_bands: schedules,
      };
    },

    async addRate(ctx: RequestContext, body: RateIn) {
      const errs: FieldError[] = [];
      const info = componentInfo(body.component);
      if (!info) errs.push(fieldError(['body', 'component'], `component must be one of ${COMPONENTS.map((c) => c.component).join(', ')}`, body.component));
      else if (body.unit !== info.unit)
        errs.push(
          fieldError(
            ['body', 'unit'],
            `${info.component} rates are stated in ${info.unit}${info.unit === 'p/kWh' ? ' (£1/MWh = 0.1 p/kWh)' : info.unit === 'p/day' ? ' (£1/day = 100 p/day)' : ''}`,
            body.unit,
          ),
        );
      const rate = parseScaled(body.rate, Q);
      if (rate === null) errs.push(fieldError(['body', 'rate'], 'rate must be decimal text with at most 6 decimal places', body.rate));
      else if (info?.basis === 'vat' && (rate < 0n || rate > 100n * pow10(Q)))
        errs.push(fieldError(['body', 'rate'], 'a VAT rate is a percentage, 0 to 100', body.rate));
      const dist = body.distributor_id ?? null;
      if (dist !== null && !distributorOf(dist))
        errs.push(
          fieldError(
            ['body', 'distributor_id'],
            'distributor_id must be a distributor id: 10 to 23 for the 14 licence areas, 24 and up for independent operators',
            dist,
          ),
        );
      if (info?.needsDistributor && dist === null)
        errs.push(fieldError(['body', 'distributor_id'], `${info.component} rates are the distributor's: distributor_id is required`, null));
      const band = body.band ?? null;
      if (info?.needsBand && band === null)
        errs.push(fieldError(['body', 'band'], `${info.component} rates are by time band: band is required (red, amber, green, ...)`, null));
      if (info && !info.needsBand && band !== null) errs.push(fieldError(['body', 'band'], `${info.component} rates have no time band`, band));
      validity(body.valid_from, body.valid_to, errs);
      if (errs.length) throw pricingErrors.fields(errs);
      const row = {
        rate_id: randomUUID(),
        component: body.component,
        rate: plain(rate!),
        distributor_id: dist,
        line_loss_class: body.line_loss_class ?? null,
        supply_type: body.supply_type ?? null,
        band,
        valid_from: body.valid_from,
        valid_to: body.valid_to ?? null,
        source: body.source.trim(),
      };
      const overlapsScope = (r: LibRate) =>
        r.component === row.component &&
        [
          [r.distributor_id, row.distributor_id],
          [r.line_loss_class, row.line_loss_class],
          [r.supply_type, row.supply_type],
          [r.band, row.band],
        ].every(([a, b]) => a === null || b === null || a === b) &&
        (r.valid_to === null || r.valid_to > row.valid_from) &&
        (row.valid_to === null || r.valid_from < row.valid_to);
      const pub = published().find(overlapsScope);
      if (pub) throw pricingErrors.rateClash(`Rate clashes with ${describe(pub)}`);
      const now = clock.now();
      return db.tx(async (tx) => {
        await libraryStore.lock(tx, ctx.orgId, 'rates');
        const clash = await libraryStore.clashingRates(tx, ctx.orgId, row);
        if (clash.length) throw pricingErrors.rateClash(`Rate clashes with ${describe(clash[0])}`);
        await libraryStore.insertRate(tx, ctx.orgId, row, actorId(ctx), now);
        await audit.record(tx, ctx, {
          action: 'pricing.rate.create',
          targetType: 'charge_rate',
          targetId: row.rate_id,
          details: { component: row.component, valid_from: row.valid_from },
        });
        return rateView({ ...row, origin: 'organisation', created_at: now });
      });
    },

    async addTimeBands(ctx: RequestContext, body: BandsIn) {
      const errs: FieldError[] = [];
      if (!distributorOf(body.distributor_id))
        errs.push(
          fieldError(
            ['body', 'distributor_id'],
            'distributor_id must be a distributor id: 10 to 23 for the 14 licence areas, 24 and up for independent operators',
            body.distributor_id,
          ),
        );
      validity(body.valid_from, body.valid_to, errs);
      for (const p of checkSchedule(body.periods).problems)
        errs.push(
          fieldError(
            p.index === null ? ['body', 'periods'] : ['body', 'periods', p.index, ...(p.field ? [p.field] : [])],
            p.msg,
            p.index === null ? null : body.periods[p.index],
          ),
        );
      if (errs.length) throw pricingErrors.fields(errs);
      const row = {
        schedule_id: randomUUID(),
        distributor_id: body.distributor_id,
        valid_from: body.valid_from,
        valid_to: body.valid_to ?? null,
        periods: body.periods,
        source: body.source.trim(),
      };
      const now = clock.now();
      return db.tx(async (tx) => {
        await libraryStore.lock(tx, ctx.orgId, 'bands');
        const clash = await libraryStore.clashingSchedules(tx, ctx.orgId, row);
        if (clash.length)
          throw pricingErrors.bandsClash(
            `Time bands clash with schedule ${clash[0].schedule_id} for distributor ${clash[0].distributor_id} (in force ${clash[0].valid_from} to ${clash[0].valid_to ?? 'open'})`,
          );
        await libraryStore.insertSchedule(tx, ctx.orgId, row, actorId(ctx), now);
        await audit.record(tx, ctx, {
          action: 'pricing.time_bands.create',
          targetType: 'time_bands',
          targetId: row.schedule_id,
          details: { distributor_id: row.distributor_id, valid_from: row.valid_from },
        });
        return scheduleView({ ...row, created_at: now });
      });
    },

    async registerMpan(ctx: RequestContext, body: MpanIn) {
      const parsed = parseMpanCore(body.mpan_core);
      if (!parsed.ok) throw pricingErrors.field(['mpan_core'], parsed.reason, body.mpan_core);
      let kva: string | null = null;
      if (body.agreed_capacity_kva !== undefined && body.agreed_capacity_kva !== null) {
        const v = parseScaled(body.agreed_capacity_kva, 3);
        if (v === null || v <= 0n)
          throw pricingErrors.field(
            ['agreed_capacity_kva'],
            'agreed_capacity_kva must be a positive decimal with at most 3 decimal places',
            body.agreed_capacity_kva,
          );
        kva = plain(rescale(v, 3, Q));
      }
      const row = {
        mpan_core: parsed.core,
        distributor_id: parsed.distributor.distributor_id,
        line_loss_class: body.line_loss_class,
        connection_voltage: body.connection_voltage,
        supply_type: body.supply_type,
        agreed_capacity_kva: kva,
        site_id: body.site_id ?? null,
        label: body.label ?? null,
      };
      const now = clock.now();
      return db.tx(async (tx) => {
        if (!(await mpanStore.insert(tx, ctx.orgId, row, actorId(ctx), now))) throw pricingErrors.mpanExists();
        await audit.record(tx, ctx, { action: 'pricing.mpan.create', targetType: 'mpan', targetId: row.mpan_core });
        return mpanView({ ...row, created_at: now });
      });
    },

    async mpans(ctx: RequestContext, query: { limit?: number; cursor?: string; distributor_id?: string }) {
      const limit = query.limit ?? 50;
      const binding = { op: 'listMpans', orgId: ctx.orgId, filters: { distributor_id: query.distributor_id ?? null } };
      const paged = pageAfter(cursors, binding, query.cursor, limit);
      const rows = await mpanStore.page(db, ctx.orgId, {
        before: paged.after,
        distributorId: query.distributor_id,
        limit,
      });
      const page = paged.page(rows, (r) => ({ t: isoTime(r.created_at), id: r.mpan_core }));
      return { mpans: page.items.map(mpanView), next_cursor: page.next_cursor, has_more: page.has_more };
    },

    async price(ctx: RequestContext, body: { mpan_core: string; half_hours: { start: string; kwh: string | number }[]; detail?: 'half_hours' | 'totals' }) {
      const halfHours = parseHalfHours(body.half_hours, ['body', 'half_hours']);
      const m = await supplyPoint(ctx, body.mpan_core);
      const { rates, schedules } = await libraryFor(ctx, m);
      const at = libraryAt(m, rates, schedules);
      const out = priceHalfHours(m, at, halfHours, { detail: body.detail !== 'totals', slotsInDay });
      return {
        mpan: mpanView(m),
        ...out,
        rounding:
          "Each half hour's charge per component and each day's fixed charge: exact, then rounded half away from zero to 0.0001p; totals are exact sums of those lines; total_gbp is total_p / 100 exactly.",
        data_basis: { basis: 'calculated' as const, method: PRICE_METHOD },
      };
    },

    async stack(ctx: RequestContext, query: { mpan_core: string; from: string; to: string }) {
      const errs: FieldError[] = [];
      if (!validDate(query.from)) errs.push(fieldError(['query', 'from'], 'from must be a date, YYYY-MM-DD', query.from));
      if (!validDate(query.to)) errs.push(fieldError(['query', 'to'], 'to must be a date, YYYY-MM-DD (the day after the last)', query.to));
      else if (validDate(query.from) && query.to <= query.from)
        errs.push(fieldError(['query', 'to'], 'to must be after from (it is the day after the last)', query.to));
      else if (validDate(query.from) && Date.parse(query.to) - Date.parse(query.from) > 3 * 366 * 86_400_000)
        errs.push(fieldError(['query', 'to'], 'a stack covers at most three years', query.to));
      if (errs.length) throw pricingErrors.fields(errs);
      const parsed = parseMpanCore(query.mpan_core);
      if (!parsed.ok) throw pricingErrors.fields([fieldError(['query', 'mpan_core'], parsed.reason, query.mpan_core)]);
      const m = await supplyPoint(ctx, parsed.core);
      const { rates, schedules } = await libraryFor(ctx, m);
      return { mpan: mpanView(m), from: query.from, to: query.to, segments: stackSegments(m, rates, schedules, query.from, query.to) };
    },
  };
}

export type Library = ReturnType<typeof createLibrary>;

/**
 * Half hours from the request: each start an ISO 8601 instant with an offset, on :00 or :30 UTC
 * (UK offsets are whole hours, so UTC half hours are local ones), each once; kWh decimal, not negative.
 */
export function parseHalfHours(list: { start: string; kwh: string | number }[], at: (string | number)[]): HalfHourIn[] {
  const errs: FieldError[] = [];
  // Starts in ascending order (the usual batch) are distinct without a set; the set is filled only
  // from the first start out of order on.
  let seen: Set<number> | null = null;
  let last = -Infinity;
  let sorted = true;
  const out: HalfHourIn[] = [];
  for (let i = 0; i < list.length && errs.length < 20; i++) {
    const h = list[i];
    const t = parseInstant(h.start);
    if (t === null || !(h.start.includes('T') || h.start.includes('t'))) {
      errs.push(fieldError([...at, i, 'start'], 'start must be an ISO 8601 date-time with an offset (Z or +01:00)', h.start));
      continue;
    }
    if (t % SLOT_MS !== 0) {
      errs.push(fieldError([...at, i, 'start'], 'start must be the start of a half hour (:00 or :30)', h.start));
      continue;
    }
    if (seen === null && t <= last) seen = new Set(out.map((x) => x.t));
    if (seen?.has(t) || t === last) {
      errs.push(fieldError([...at, i, 'start'], `half hour ${isoTime(t)} is given twice`, h.start));
      continue;
    }
    seen?.add(t);
    if (t < last) sorted = false;
    last = Math.max(last, t);
    const text = typeof h.kwh === 'number' ? String(h.kwh) : h.kwh;
    const kwh = parseScaled(text, Q);
    if (kwh === null || kwh < 0n) {
      errs.push(fieldError([...at, i, 'kwh'], 'kwh must be a decimal, not negative, with at most 6 decimal places', h.kwh));
      continue;
    }
    out.push({ t, kwh });
  }
  if (errs.length) throw pricingErrors.fields(errs);
  return sorted ? out : out.sort((a, b) => a.t - b.t);
}

/** The component stack over [from, to): one segment per run of days with the same rates and bands in force. */
export function stackSegments(m: SupplyPoint, rates: readonly LibRate[], schedules: readonly LibSchedule[], from: string, to: string) {
  const mine = rates.filter((r) => appliesTo(r, m));
  const scheds = schedules.filter((s) => s.distributor_id === m.distributor_id);
  const cuts = new Set<string>([from, to]);
  for (const x of [...mine, ...scheds]) {
    if (x.valid_from > from && x.valid_from < to) cuts.add(x.valid_from);
    if (x.valid_to && x.valid_to > from && x.valid_to < to) cuts.add(x.valid_to);
  }
  const edges = [...cuts].sort();
  const segments = [];
  for (let i = 0; i < edges.length - 1; i++) {
    const day = edges[i];
    const live = mine
      .filter((r) => inForce(r.valid_from, r.valid_to, day))
      .sort((x, y) => COMPONENT_ORDER.indexOf(x.component) - COMPONENT_ORDER.indexOf(y.component));
    const sched = scheds.find((s) => inForce(s.valid_from, s.valid_to, day)) ?? null;
    const bands = sched ? [...new Set(sched.periods.map((p) => p.band))] : [];
    const kwhRates = live.filter((r) => componentInfo(r.component)!.basis === 'kwh');
    const perBand = (band: string | null) => {
      const comps = kwhRates
        .filter((r) => (componentInfo(r.component)!.needsBand ? r.band === band : true))
        .map((r) => ({ component: r.component, band: r.band, rate_p_per_kwh: r.rate, rate_id: r.rate_id, source: r.source, origin: r.origin }));
      const sum = comps.reduce((s, c) => s + q(c.rate_p_per_kwh), 0n);
      const missing = COMPONENT_KWH_NAMES.filter((c) => !comps.some((x) => x.component === c) && !(c === 'ccl' && m.supply_type === 'domestic'));
      return { band, components: comps, total_p_per_kwh: plain(sum), unpriced: missing };
    };
    const kva = m.agreed_capacity_kva === null ? null : parseRate(m.agreed_capacity_kva);
    const daily = live
      .filter((r) => ['day', 'kva_day'].includes(componentInfo(r.component)!.basis))
      .map((r) => {
        const basis = componentInfo(r.component)!.basis;
        const perDay = basis === 'kva_day' ? (kva === null ? null : plain(rescale(q(r.rate) * kva, 12, Q))) : plain(q(r.rate));
        return {
          component: r.component,
          rate: r.rate,
          unit: componentInfo(r.component)!.unit,
          p_per_day: perDay,
          rate_id: r.rate_id,
          source: r.source,
          origin: r.origin,
        };
      });
    const vat = live.find((r) => r.component === 'vat') ?? null;
    segments.push({
      from: edges[i],
      to: edges[i + 1],
      days: Math.round((Date.parse(edges[i + 1]) - Date.parse(edges[i])) / 86_400_000),
      time_bands: sched ? { schedule_id: sched.schedule_id, periods: sched.periods, source: sched.source } : null,
      per_kwh: sched ? bands.map((b) => perBand(b)) : [perBand(null)],
      daily,
      daily_total_p: plain(daily.reduce((s, d) => s + (d.p_per_day === null ? 0n : q(d.p_per_day)), 0n)),
      vat_rate_percent: vat ? vat.rate : null,
    });
  }
  return segments;
}

const COMPONENT_ORDER = COMPONENTS.map((c) => c.component);
const COMPONENT_KWH_NAMES = COMPONENTS.filter((c) => c.basis === 'kwh').map((c) => c.component);
