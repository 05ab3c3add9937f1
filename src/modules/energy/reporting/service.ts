// EMS reporting (endpoints.md 4.5): the report whose every figure carries lineage, the lineage
// itself (figure → UK days → half hours → asset flows and stored readings), interval exports
// streamed from the rollup, PV underperformance against expected yield priced in pounds and its
// attribution, out-of-hours consumption and PV calibration. Every figure is read from the rollup
// (site days for long windows, site half hours where a shape is needed), never raw telemetry,
// except the readings lineage/reading shows. Decisions 0144-0148.
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../../infra/db/index.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { RequestContext } from '../../../platform/operation.ts';
import { isoTime } from '../../../platform/schema-kit.ts';
import type { TelemetryEnergy } from '../../telemetry/index.ts';
import type { AuditLog } from '../../audit/index.ts';
import { csvField } from '../../../kit/csv.ts';
import { addDays, FIRST_SERVICE_DATE, LAST_SERVICE_DATE, parseInstant, SLOT_MS, ukClock, ukLocalIso, ukMidnight, slotsInDay } from '../../../kit/uk-time.ts';
import { energyErrors } from '../errors.ts';
import type { EnergyConfig } from '../config.ts';
import type { EnergyModel, SiteContext } from '../model.ts';
import type { SiteSettings, Settings } from '../settings.ts';
import { ROLE_FLOWS } from '../flows.ts';
import type { CalibrationRow, SiteDayRow, SiteHalfHourRow } from '../store.ts';
import { windowOf, type DayWindow } from '../range.ts';
import { costPence, decimal, kwhText, poundsText, ratio, roundDiv, toWh } from '../../../kit/decimal.ts';
import { flowLineage, halfHourView } from '../ledger.ts';
import { FIGURES, type FigureKey } from './figures.ts';
import { consumptionByLocalTime, flowBases, hoursSplit, intervalValues as intervalValuesStore, type OperatingRule } from './store.ts';
import { clearSkyDay, correlation, expectedDayWh, expectedHalfHours } from './solar.ts';
import { basisShown, simulatedRealm } from '../basis-shown.ts';

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
export const REPORT_METHOD =
  'Each figure is computed from the half-hour energy rollup (summed per UK day) and the site settings as set, by the formula it states; its lineage lists the rollup rows and settings it came from.';

export type Query = { site_id: string; date?: string; from?: string; to?: string };

/** Operating hours as rules of ISO weekday and local minutes (24:00 = 1440). */
export function rulesOf(hours: Settings['operating_hours']): OperatingRule[] {
  const min = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));
  return hours.flatMap((h) => h.days.map((d) => ({ dow: DAYS.indexOf(d) + 1, startMin: min(h.start), endMin: min(h.end) })));
}

/** Whether the half hour starting at `slot` is within operating hours (its UK local start). */
export function inHours(slot: number, rules: OperatingRule[]): boolean {
  const c = ukClock(slot);
  const dow = c.weekday === 0 ? 7 : c.weekday;
  return rules.some((r) => r.dow === dow && c.minute >= r.startMin && c.minute < r.endMin);
}

/**
 * Value of lost generation in integer pence, rounded once: the lost energy split as the window's
 * generation was (self-consumed at the import rate, exported at the export rate, none where unset).
 */
export function lostValuePence(lostWh: number, selfWh: number, genWh: number, importP: string, exportP: string | null): bigint {
  const imp = decimal(importP, 4);
  const exp = exportP ? decimal(exportP, 4) : 0n;
  if (genWh <= 0) return roundDiv(BigInt(lostWh) * imp, 10_000_000n);
  const s = BigInt(Math.max(0, Math.min(selfWh, genWh)));
  return roundDiv(BigInt(lostWh) * (s * imp + (BigInt(genWh) - s) * exp), BigInt(genWh) * 10_000_000n);
}

const CAUSES = ['data_gap', 'outage', 'clipping', 'shading', 'soiling', 'unexplained'] as const;
type Cause = (typeof CAUSES)[number];
export const CAUSE_DEFINITIONS: Record<Cause, string> = {
  data_gap:
    'Shortfall of the half hours with expected energy in which the site did not report completely (generation missing or partial): unknown, not necessarily lost.',
  outage: 'Expected energy of half hours with complete data and zero generation.',
  clipping:
    "A flat top (three or more half hours within 2% of the day's largest while the clear-sky shape rises or falls by 5% or more): the calibrated clear-sky energy above what was generated in them.",
  shading:
    "One half of the day (before or after solar noon) performing below 60% of the other's ratio to expected: the energy the low half lacks to match the high half.",
  soiling: 'A remaining loss on a day whose profile follows the expected shape (correlation 0.97 or more): a uniform loss such as soiling or degradation.',
  unexplained: 'The rest: weather (the expected yield is an average, not a forecast) or a cause the data does not show.',
};

/** The window of a query, dates limited to 2000-01-01..2099-12-31 (beyond them UK time rules are not known). */
function reportWindow(
  q: { date?: string; from?: string; to?: string },
  now: number,
  opts: { defaultDays: number; maxDays: number },
  loc: 'query' | 'body' = 'query',
): DayWindow {
  for (const k of ['date', 'from', 'to'] as const) {
    const v = q[k];
    if (v !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(v) && (v < FIRST_SERVICE_DATE || v > LAST_SERVICE_DATE)) {
      const msg = `Input should be a date from ${FIRST_SERVICE_DATE} to ${LAST_SERVICE_DATE}`;
      throw loc === 'query' ? energyErrors.query(k, msg, v) : energyErrors.field([k], msg, v);
    }
  }
  return windowOf(q, now, opts);
}

export function createReporting(deps: {
  db: Db;
  /** Lag-tolerant reads of the rollups (report figures, interval exports): the read replica when there is one (decision 0250). */
  readDb?: Queryable;
  clock: Clock;
  model: EnergyModel;
  settings: SiteSettings;
  telemetry: TelemetryEnergy;
  audit: AuditLog;
  config: EnergyConfig;
}) {
  const { db, model } = deps;
  const rollups: Queryable = deps.readDb ?? db;
  const store = model.store;
  const now = () => deps.clock.now().getTime();
  const halfHoursOf = (w: DayWindow) => Math.round((w.to - w.from) / SLOT_MS);

  async function requireSite(orgId: string, siteId: string): Promise<SiteContext> {
    const ctx = await model.siteContext(db, orgId, siteId);
    if (!ctx.assets.length) throw energyErrors.siteNotFound();
    return ctx;
  }

  async function calibrationOf(orgId: string, siteId: string): Promise<CalibrationRow | null> {
    return (await store.calibrations(db, orgId, siteId))[0] ?? null;
  }

  function pvSettings(s: Settings) {
    if (s.pv_kwp === null || s.expected_yield_kwh_per_kwp === null) return null;
    return { kwp: s.pv_kwp, yieldPerKwp: s.expected_yield_kwh_per_kwp };
  }

  function expectedOverDays(w: DayWindow, pv: { kwp: number; yieldPerKwp: number }, factor: number) {
    const out: { date: string; wh: number }[] = [];
    for (let d = w.fromDay; d < w.toDay; d = addDays(d, 1)) out.push({ date: d, wh: expectedDayWh(d, pv.kwp, pv.yieldPerKwp, factor) });
    return out;
  }

  const lineageUrl = (siteId: string, figure: string, w: DayWindow) =>
    `/api/hardware/ems/lineage?site_id=${encodeURIComponent(siteId)}&figure=${figure}&from=${w.fromDay}&to=${addDays(w.toDay, -1)}`;
  const readingUrl = (siteId: string, slot: number) =>
    `/api/hardware/ems/lineage/reading?site_id=${encodeURIComponent(siteId)}&period_start=${encodeURIComponent(isoTime(slot))}`;

  /** Every figure of the report over the window, with what it was computed from. */
  async function computeReport(orgId: string, siteId: string, w: DayWindow) {
    const [totalsRows, set, cal, bases, byTime] = await Promise.all([
      store.siteTotals(rollups, orgId, w.fromDay, w.toDay, [siteId]),
      deps.settings.read(orgId, siteId),
      calibrationOf(orgId, siteId),
      flowBases(rollups, orgId, siteId, new Date(w.from), new Date(w.to)),
      consumptionByLocalTime(rollups, orgId, siteId, new Date(w.from), new Date(w.to)),
    ]);
    const t = totalsRows[0];
    const s = set.settings;
    const wh = (k: Exclude<keyof SiteDayRow, 'day'>) => toWh((t?.[k] as string | undefined) ?? '0');
    const expectedHh = halfHoursOf(w);
    const complete = !!t && t.half_hours === expectedHh && t.complete_half_hours === expectedHh;
    // An energy figure is measured when every half hour is complete and each flow it sums is counter-metered throughout.
    const shown = basisShown(orgId);
    const energyBasis = (flows: string[]) =>
      complete && flows.every((f) => (bases[f]?.measured ?? 0) + (bases[f]?.absent ?? 0) === expectedHh) ? 'measured' : 'calculated';
    const factor = cal ? Number(cal.factor) : 1;
    const pv = pvSettings(s);
    const rules = rulesOf(s.operating_hours);

    const gen = wh('generation_kwh');
    const cons = wh('consumption_kwh');
    const self = wh('self_consumed_kwh');
    const peakKw = t ? (wh('max_import_kwh') * 2) / 1000 : null;
    const expectedWh = pv ? expectedOverDays(w, pv, factor).reduce((a, x) => a + x.wh, 0) : null;
    const inRules = (dow: number, minute: number) => rules.some((r) => r.dow === dow && minute >= r.startMin && minute < r.endMin);
    const oohWh = byTime.filter((x) => !inRules(x.dow, x.minute)).reduce((a, x) => a + toWh(x.consumption_kwh), 0);
    const values: Record<FigureKey, { value: string | number | null; unavailable?: string }> = {
      import_kwh: { value: kwhText(wh('import_kwh')) },
      export_kwh: { value: kwhText(wh('export_kwh')) },
      generation_kwh: { value: kwhText(gen) },
      consumption_kwh: { value: kwhText(cons) },
      self_consumed_kwh: { value: kwhText(self) },
      self_consumption_ratio: gen ? { value: ratio(self, gen) } : { value: null, unavailable: 'no generation in the window' },
      self_sufficiency_ratio: wh('consumption_positive_kwh')
        ? { value: ratio(wh('self_supplied_kwh'), wh('consumption_positive_kwh')) }
        : { value: null, unavailable: 'no consumption in the window' },
      data_completeness: { value: ratio(t?.complete_half_hours ?? 0, expectedHh) },
      peak_demand_kw: peakKw === null ? { value: null, unavailable: 'no half hours in the window' } : { value: peakKw },
      capacity_utilisation:
        s.agreed_capacity_kw === null
          ? { value: null, unavailable: 'agreed_capacity_kw not set' }
          : peakKw === null
            ? { value: null, unavailable: 'no half hours in the window' }
            : { value: Math.round((peakKw / s.agreed_capacity_kw) * 10_000) / 10_000 },
      import_cost_gbp: s.tariff
        ? { value: poundsText(costPence(wh('import_kwh'), s.tariff.import_p_per_kwh)) }
        : { value: null, unavailable: 'tariff not set' },
      export_income_gbp: s.tariff?.export_p_per_kwh
        ? { value: poundsText(costPence(wh('export_kwh'), s.tariff.export_p_per_kwh)) }
        : { value: null, unavailable: 'tariff.export_p_per_kwh not set' },
      pv_expected_kwh: expectedWh === null ? { value: null, unavailable: 'pv_kwp or expected_yield_kwh_per_kwp not set' } : { value: kwhText(expectedWh) },
      pv_performance_ratio:
        expectedWh === null
          ? { value: null, unavailable: 'pv_kwp or expected_yield_kwh_per_kwp not set' }
          : expectedWh === 0
            ? { value: null, unavailable: 'no expected yield in the window' }
            : { value: ratio(gen, expectedWh) },
      out_of_hours_consumption_kwh: rules.length ? { value: kwhText(oohWh) } : { value: null, unavailable: 'operating_hours not set' },
      out_of_hours_share: !rules.length
        ? { value: null, unavailable: 'operating_hours not set' }
        : cons
          ? { value: ratio(oohWh, cons) }
          : { value: null, unavailable: 'no consumption in the window' },
    };
    const settingValue = (name: string): unknown => {
      if (name === 'calibration.factor') return cal ? cal.factor : '1.0000';
      const [a, b] = name.split('.');
      const v = (s as Record<string, unknown>)[a];
      return b ? ((v as Record<string, unknown> | null)?.[b] ?? null) : v;
    };
    const figures = (Object.keys(FIGURES) as FigureKey[]).map((key) => {
      const def = FIGURES[key];
      const v = values[key];
      return {
        key,
        label: def.label,
        value: v.value,
        unit: def.unit,
        basis: shown(v.value === null ? 'calculated' : def.kind === 'energy' ? energyBasis(def.flows) : 'calculated'),
        method: def.formula,
        unavailable_reason: v.unavailable ?? null,
        inputs: {
          rollup: def.dayInputs.length ? 'energy_site_days' : null,
          rollup_columns: def.dayInputs,
          days: t?.days ?? 0,
          settings: Object.fromEntries(def.settings.map((n) => [n, settingValue(n)])),
        },
        lineage_url: lineageUrl(siteId, key, w),
      };
    });
    return { figures, t, set, cal, pv, factor, rules };
  }

  async function report(ctx: RequestContext, q: Query) {
    await requireSite(ctx.orgId, q.site_id);
    const w = reportWindow(q, now(), { defaultDays: 30, maxDays: 366 });
    const r = await computeReport(ctx.orgId, q.site_id, w);
    return {
      site_id: q.site_id,
      from: isoTime(w.from),
      to: isoTime(w.to),
      days: w.days,
      half_hours: halfHoursOf(w),
      data_basis: basisShown(ctx.orgId)('calculated'),
      method: REPORT_METHOD,
      settings_configured: r.set.configured,
      settings_updated_at: r.set.updated_at,
      calibration: r.cal ? { calibration_id: r.cal.calibration_id, factor: r.cal.factor, created_at: isoTime(r.cal.created_at) } : null,
      figures: r.figures,
    };
  }

  async function lineage(ctx: RequestContext, q: Query & { figure: FigureKey }) {
    const site = await requireSite(ctx.orgId, q.site_id);
    const w = reportWindow(q, now(), { defaultDays: 30, maxDays: 366 });
    const r = await computeReport(ctx.orgId, q.site_id, w);
    const fig = r.figures.find((f) => f.key === q.figure)!;
    const def = FIGURES[q.figure];
    const usesPv = def.settings.includes('pv_kwp');
    const usesHours = def.settings.includes('operating_hours');
    const settings = def.settings.map((name) => ({
      name,
      value: fig.inputs.settings[name],
      source: name === 'calibration.factor' ? (r.cal ? `pv_calibration:${r.cal.calibration_id}` : 'default (not calibrated)') : 'ems_site_settings',
      updated_at: name === 'calibration.factor' ? (r.cal ? isoTime(r.cal.created_at) : null) : r.set.updated_at,
    }));
    const expected = usesPv && r.pv ? new Map(expectedOverDays(w, r.pv, r.factor).map((x) => [x.date, x.wh])) : null;
    const base = {
      site_id: q.site_id,
      from: isoTime(w.from),
      to: isoTime(w.to),
      figure: fig,
      formula: def.formula,
      settings,
      calibration: usesPv && r.cal ? { calibration_id: r.cal.calibration_id, factor: r.cal.factor, created_at: isoTime(r.cal.created_at) } : null,
    };
    if (w.days > 1) {
      const days = await store.siteDays(db, ctx.orgId, [q.site_id], w.fromDay, w.toDay);
      const byDay = new Map(days.map((d) => [d.day, d]));
      const split = usesHours && r.rules.length ? await hoursSplit(db, ctx.orgId, q.site_id, new Date(w.from), new Date(w.to), r.rules) : [];
      const ooh = new Map<string, { in: number; out: number }>();
      for (const x of split) {
        const e = ooh.get(x.day) ?? { in: 0, out: 0 };
        if (x.in_hours) e.in += toWh(x.consumption_kwh);
        else e.out += toWh(x.consumption_kwh);
        ooh.set(x.day, e);
      }
      const out = [];
      for (let d = w.fromDay; d < w.toDay; d = addDays(d, 1)) {
        const row = byDay.get(d);
        const inputs: Record<string, string | number | null> = {};
        for (const c of def.dayInputs) {
          if (c === 'out_of_hours_kwh') inputs[c] = usesHours ? kwhText(ooh.get(d)?.out ?? 0) : null;
          else if (c === 'half_hours') inputs[c] = slotsInDay(d);
          else if (c === 'complete_half_hours') inputs[c] = row?.complete_half_hours ?? 0;
          else inputs[c] = row ? kwhText(toWh(row[c as keyof SiteDayRow] as string)) : null;
        }
        if (expected) inputs.expected_kwh = kwhText(expected.get(d) ?? 0);
        out.push({
          date: d,
          rollup: 'energy_site_days',
          present: !!row,
          inputs,
          half_hours: slotsInDay(d),
          half_hours_with_data: row?.half_hours ?? 0,
          complete_half_hours: row?.complete_half_hours ?? 0,
          measured_half_hours: row?.measured_half_hours ?? 0,
          lineage_url: `/api/hardware/ems/lineage?site_id=${encodeURIComponent(q.site_id)}&figure=${q.figure}&date=${d}`,
        });
      }
      return { ...base, level: 'day', days: out, half_hours: [] };
    }
    // One UK day: its half hours, each leading to the asset flows and readings behind it.
    const rows = await store.siteHalfHours(db, ctx.orgId, q.site_id, new Date(w.from), new Date(w.to));
    const bySlot = new Map(rows.map((x) => [x.slot.getTime(), x]));
    const expHh = expected ? new Map(expectedHalfHours(w.fromDay, expected.get(w.fromDay) ?? 0).map((x) => [x.slot, x.wh])) : null;
    const hh = [];
    for (let t = w.from; t < w.to; t += SLOT_MS) {
      const row = bySlot.get(t);
      const v = halfHourView(ctx.orgId, t, row, site.roled.length);
      const inputs: Record<string, string | number | boolean | null> = {};
      for (const c of def.halfHourInputs) {
        if (c === 'in_hours') inputs[c] = inHours(t, r.rules);
        else inputs[c] = row ? (row[c as keyof SiteHalfHourRow] as string | number | boolean) : null;
      }
      if (expHh) inputs.expected_kwh = kwhText(expHh.get(t) ?? 0);
      hh.push({
        period_start: v.period_start,
        period_end: v.period_end,
        settlement_date: v.settlement_date,
        settlement_period: v.settlement_period,
        rollup: 'energy_site_halfhours',
        present: !!row,
        gap: v.gap,
        basis: v.basis,
        inputs,
        reading_url: readingUrl(q.site_id, t),
      });
    }
    return { ...base, level: 'half_hour', days: [], half_hours: hh };
  }

  async function readingLineage(ctx: RequestContext, q: { site_id: string; period_start: string; asset_id?: string }) {
    const site = await requireSite(ctx.orgId, q.site_id);
    const t = parseInstant(q.period_start);
    if (t === null || t % SLOT_MS !== 0 || /^\d{4}-\d{2}-\d{2}$/.test(q.period_start.trim())) {
      throw energyErrors.query('period_start', 'Input should be the start of a half hour, ISO 8601 with an offset (e.g. 2026-10-25T01:00:00Z)', q.period_start);
    }
    const roled = q.asset_id ? site.roled.filter((r) => r.asset.asset_id === q.asset_id) : site.roled;
    if (q.asset_id && !roled.length) throw energyErrors.query('asset_id', 'Not an asset feeding an energy flow at this site', q.asset_id);
    const from = new Date(t);
    const to = new Date(t + SLOT_MS);
    const [rows, flows] = await Promise.all([store.siteHalfHours(db, ctx.orgId, q.site_id, from, to), store.assetFlows(db, ctx.orgId, q.site_id, from, to)]);
    const reads = deps.telemetry.reads(db);
    const gapMs = Math.max(deps.config.powerGapSeconds, deps.config.counterGapSeconds) * 1000;
    const assets = [];
    for (const ra of roled) {
      const id = ra.asset.asset_id;
      const keys = ROLE_FLOWS[ra.role].flatMap((s) => s.counters);
      const inside = await reads.readings(ctx.orgId, [id], from, to, 501);
      // The neighbour before: the newest reading within the gap limit, looked for in widening windows
      // (readings come oldest first, so a narrow window finds it without reading hours of samples).
      let before: (typeof inside)[number] | undefined;
      for (const back of [60_000, 300_000, 1_800_000, gapMs]) {
        const got = await reads.readings(ctx.orgId, [id], new Date(t - Math.min(back, gapMs)), from, 5000);
        if (got.length) {
          before = got[got.length - 1];
          break;
        }
        if (back >= gapMs) break;
      }
      const [after] = await reads.readings(ctx.orgId, [id], to, new Date(t + SLOT_MS + gapMs), 1);
      const picked = [...(before ? [before] : []), ...inside.slice(0, 500), ...(after ? [after] : [])];
      assets.push({
        asset_id: id,
        asset_class: ra.asset.asset_class,
        role: ra.role,
        flows: flows
          .filter((f) => f.asset_id === id)
          .map((f) => ({
            flow: f.flow,
            ...flowLineage(f, basisShown(ctx.orgId)),
          })),
        readings: picked.map((x) => ({
          reading_id: String(x.id),
          ts: isoTime(x.ts),
          received_at: isoTime(x.received_at),
          position: Date.parse(x.ts) < t ? 'before' : Date.parse(x.ts) >= t + SLOT_MS ? 'after' : 'inside',
          power_kw: x.power_kw,
          counters: Object.fromEntries(keys.filter((k) => typeof x.raw?.[k] === 'number').map((k) => [k, x.raw[k] as number])),
          anomalies: x.anomalies ?? [],
        })),
        readings_inside: Math.min(inside.length, 500),
        truncated: inside.length > 500,
      });
    }
    const v = halfHourView(ctx.orgId, t, rows[0], site.roled.length);
    return {
      site_id: q.site_id,
      ...v,
      method:
        "A counter's advance between the reading before (or at) the half hour's start and the one after its end is spread over time; power is integrated (trapezoidal) between consecutive samples; the readings outside the half hour are the neighbours the integration pairs with.",
      assets,
    };
  }

  // ---- Interval exports ------------------------------------------------------------------------
  const COLUMNS = [
    'site_id',
    'settlement_date',
    'settlement_period',
    'period_start',
    'period_end',
    'period_start_local',
    'import_kwh',
    'export_kwh',
    'generation_kwh',
    'consumption_kwh',
    'charge_kwh',
    'discharge_kwh',
    'residual_kwh',
    'gap',
    'coverage',
    'consumption_method',
    'basis_import',
    'basis_export',
    'basis_generation',
    'basis_consumption',
    'basis_charge',
    'basis_discharge',
  ] as const;

  /** Resolves the sites and window of an export before anything is streamed (refusals answer whole). */
  async function exportScope(ctx: RequestContext, q: { site_id?: string; date?: string; from?: string; to?: string }) {
    const w = reportWindow(q, now(), { defaultDays: 30, maxDays: 366 });
    let sites: string[];
    if (q.site_id !== undefined) {
      await requireSite(ctx.orgId, q.site_id);
      sites = [q.site_id];
    } else sites = (await model.allSites(db, ctx.orgId)).map((s) => s.siteId);
    return { w, sites };
  }

  /**
   * The window's interval rows, site by site, as CSV records or comma-joined JSON objects
   * (decision 0155): the stored values come from the database as one text value per
   * `ENERGY_EXPORT_BATCH_ROWS` half hours, already in column order; the time columns are worked out
   * here from the UK clock. Memory stays flat whatever the window or the number of sites.
   */
  async function* intervalText(orgId: string, sites: string[], w: DayWindow, format: 'csv' | 'json') {
    const step = deps.config.exportBatchRows * SLOT_MS;
    const GAP = ',,,,,,,,true,0,,missing,missing,missing,missing,missing,missing';
    const keys = ['import_kwh', 'export_kwh', 'generation_kwh', 'consumption_kwh', 'charge_kwh', 'discharge_kwh', 'residual_kwh'];
    const bases = ['basis_import', 'basis_export', 'basis_generation', 'basis_consumption', 'basis_charge', 'basis_discharge'];
    const json = (rest: string) => {
      // rest: ",<7 kWh>,<gap>,<coverage>,<method>,<6 bases>" (empty kWh and method: null)
      const v = rest.slice(1).split(',');
      let out = '';
      for (let i = 0; i < 7; i++) out += `,"${keys[i]}":${v[i] === '' ? 'null' : `"${v[i]}"`}`;
      out += `,"gap":${v[7]},"coverage":${v[8]},"consumption_method":${v[9] === '' ? 'null' : `"${v[9]}"`}`;
      for (let i = 0; i < 6; i++) out += `,"${bases[i]}":"${v[10 + i]}"`;
      return out;
    };
    for (const siteId of sites) {
      const site = format === 'csv' ? csvField(siteId) : JSON.stringify(siteId);
      for (let from = w.from; from < w.to; from += step) {
        const to = Math.min(from + step, w.to);
        const values = await intervalValuesStore(rollups, orgId, siteId, new Date(from), new Date(to), simulatedRealm(orgId));
        let pos = 0;
        let nextAt = values ? Number(values.slice(0, values.indexOf(','))) * 1000 : Infinity;
        let out = '';
        let start = isoTime(from);
        for (let t = from; t < to; t += SLOT_MS) {
          let rest = GAP;
          if (nextAt === t) {
            const eol = values.indexOf('\n', pos);
            const line = values.slice(pos, eol < 0 ? values.length : eol);
            rest = line.slice(line.indexOf(','));
            pos = eol < 0 ? values.length : eol + 1;
            nextAt = pos < values.length ? Number(values.slice(pos, values.indexOf(',', pos))) * 1000 : Infinity;
          }
          const end = isoTime(t + SLOT_MS);
          const c = ukClock(t);
          const local = ukLocalIso(t);
          out +=
            format === 'csv'
              ? `${site},${c.date},${c.period},${start},${end},${local}${rest}\r\n`
              : `${out ? ',' : ''}{"site_id":${site},"settlement_date":"${c.date}","settlement_period":${c.period},"period_start":"${start}","period_end":"${end}","period_start_local":"${local}"${json(rest)}}`;
          start = end;
        }
        yield out;
      }
    }
  }

  // ---- PV: underperformance, attribution, calibration -------------------------------------------
  async function pvContext(ctx: RequestContext, q: Query, maxDays: number) {
    await requireSite(ctx.orgId, q.site_id);
    const w = reportWindow(q, now(), { defaultDays: 30, maxDays });
    const [set, cal] = await Promise.all([deps.settings.read(ctx.orgId, q.site_id), calibrationOf(ctx.orgId, q.site_id)]);
    const pv = pvSettings(set.settings);
    if (!pv) throw energyErrors.noPvSettings();
    const factor = cal ? Number(cal.factor) : 1;
    const totals = (await store.siteTotals(db, ctx.orgId, w.fromDay, w.toDay, [q.site_id]))[0];
    const genWh = toWh(totals?.generation_kwh ?? '0');
    const selfWh = toWh(totals?.self_consumed_kwh ?? '0');
    const tariff = set.settings.tariff;
    const price = (lostWh: number) => (tariff ? poundsText(lostValuePence(lostWh, selfWh, genWh, tariff.import_p_per_kwh, tariff.export_p_per_kwh)) : null);
    return { w, pv, cal, factor, tariff, price, genWh, selfWh };
  }

  function pricing(p: Awaited<ReturnType<typeof pvContext>>) {
    return {
      import_p_per_kwh: p.tariff?.import_p_per_kwh ?? null,
      export_p_per_kwh: p.tariff?.export_p_per_kwh ?? null,
      self_consumption_share: p.genWh ? ratio(p.selfWh, p.genWh) : null,
      method: p.tariff
        ? "Lost energy valued as the window's generation was used: the self-consumed share at the import unit rate (import avoided), the exported share at the export rate (none if unset); integer pence, rounded half away from zero once per figure."
        : 'No tariff in the site settings: money figures are null.',
    };
  }

  async function underperformance(ctx: RequestContext, q: Query) {
    const p = await pvContext(ctx, q, 366);
    const days = await store.siteDays(db, ctx.orgId, [q.site_id], p.w.fromDay, p.w.toDay);
    const byDay = new Map(days.map((d) => [d.day, d]));
    let expTotal = 0;
    let actTotal = 0;
    let lostTotal = 0;
    const out = [];
    for (const e of expectedOverDays(p.w, p.pv, p.factor)) {
      const row = byDay.get(e.date);
      const act = toWh(row?.generation_kwh ?? '0');
      const lost = Math.max(e.wh - act, 0);
      expTotal += e.wh;
      actTotal += act;
      lostTotal += lost;
      const n = slotsInDay(e.date);
      out.push({
        date: e.date,
        expected_kwh: kwhText(e.wh),
        actual_kwh: kwhText(act),
        shortfall_kwh: kwhText(lost),
        performance_ratio: ratio(act, e.wh),
        value_gbp: p.price(lost),
        complete: (row?.complete_half_hours ?? 0) === n,
        complete_half_hours: row?.complete_half_hours ?? 0,
      });
    }
    return {
      site_id: q.site_id,
      from: isoTime(p.w.from),
      to: isoTime(p.w.to),
      pv_kwp: p.pv.kwp,
      expected_yield_kwh_per_kwp: p.pv.yieldPerKwp,
      calibration_factor: p.cal?.factor ?? '1.0000',
      calibration_id: p.cal?.calibration_id ?? null,
      expected_kwh: kwhText(expTotal),
      actual_kwh: kwhText(actTotal),
      shortfall_kwh: kwhText(lostTotal),
      performance_ratio: ratio(actTotal, expTotal),
      value_gbp: p.price(lostTotal),
      underperforming_days: out.filter((d) => d.shortfall_kwh !== '0.000').length,
      pricing: pricing(p),
      days: out,
    };
  }

  /** Splits one day's shortfall into causes (Wh), in order, each capped by what is left. */
  function attributeDay(date: string, expWh: number, kwp: number, factor: number, rows: Map<number, SiteHalfHourRow>) {
    const hh = expectedHalfHours(date, expWh);
    const cs = clearSkyDay(date, kwp);
    const slots = hh.map((x, i) => {
      const row = rows.get(x.slot);
      const a = row ? toWh(row.generation_kwh) : 0;
      const gb = row?.basis?.generation;
      const gap = !row || !row.complete || gb === 'missing' || gb === 'partial';
      return { slot: x.slot, e: x.wh, a, gap, daylight: x.wh > 0, cs: Math.round(cs[i].wh * factor) };
    });
    const actual = slots.reduce((s, x) => s + x.a, 0);
    const shortfall = Math.max(expWh - actual, 0);
    const causes: Record<Cause, number> = { data_gap: 0, outage: 0, clipping: 0, shading: 0, soiling: 0, unexplained: 0 };
    let left = shortfall;
    const take = (c: Cause, wh: number) => {
      const v = Math.max(0, Math.min(left, Math.round(wh)));
      causes[c] += v;
      left -= v;
    };
    const loss = (x: { e: number; a: number }) => Math.max(x.e - x.a, 0);
    take(
      'data_gap',
      slots.filter((x) => x.gap && x.daylight).reduce((s, x) => s + loss(x), 0),
    );
    const ok = slots.filter((x) => !x.gap && x.daylight);
    const outage = ok.filter((x) => x.a === 0);
    take(
      'outage',
      outage.reduce((s, x) => s + x.e, 0),
    );
    const live = ok.filter((x) => x.a > 0);
    if (live.length >= 3) {
      const max = Math.max(...live.map((x) => x.a));
      // The longest run of consecutive half hours within 2% of the day's largest.
      let top: typeof live = [];
      let run: typeof live = [];
      for (const x of live) {
        const near = x.a >= 0.98 * max;
        if (near && run.length && x.slot === run[run.length - 1].slot + SLOT_MS) run.push(x);
        else run = near ? [x] : [];
        if (run.length > top.length) top = [...run];
      }
      const csTop = top.map((x) => x.cs);
      if (top.length >= 3 && Math.min(...csTop) > 0 && Math.max(...csTop) / Math.min(...csTop) >= 1.05) {
        take(
          'clipping',
          top.reduce((s, x) => s + Math.max(x.cs - x.a, 0), 0),
        );
      }
      const noon = hh.reduce((b, x, i) => (x.wh > hh[b].wh ? i : b), 0);
      const morning = live.filter((x) => x.slot < hh[noon].slot);
      const afternoon = live.filter((x) => x.slot > hh[noon].slot);
      const r = (xs: typeof live) => {
        const e = xs.reduce((s, x) => s + x.e, 0);
        return e > 0 ? xs.reduce((s, x) => s + x.a, 0) / e : null;
      };
      const rm = r(morning);
      const ra = r(afternoon);
      if (rm !== null && ra !== null && Math.min(rm, ra) < 0.6 * Math.max(rm, ra)) {
        const [low, hi] = rm < ra ? [morning, ra] : [afternoon, rm];
        take(
          'shading',
          low.reduce((s, x) => s + Math.max(hi * x.e - x.a, 0), 0),
        );
      }
      const corr = correlation(
        live.map((x) => x.a),
        live.map((x) => x.e),
      );
      if (left > 0) take(corr !== null && corr >= 0.97 ? 'soiling' : 'unexplained', left);
    }
    if (left > 0) take('unexplained', left);
    return { expected: expWh, actual, shortfall, causes };
  }

  async function attribution(ctx: RequestContext, q: Query) {
    const p = await pvContext(ctx, q, 92);
    const rows = await store.siteHalfHours(db, ctx.orgId, q.site_id, new Date(p.w.from), new Date(p.w.to));
    const bySlot = new Map(rows.map((x) => [x.slot.getTime(), x]));
    const totals: Record<Cause, number> = { data_gap: 0, outage: 0, clipping: 0, shading: 0, soiling: 0, unexplained: 0 };
    const dayCount: Record<Cause, number> = { data_gap: 0, outage: 0, clipping: 0, shading: 0, soiling: 0, unexplained: 0 };
    let shortfall = 0;
    const days = [];
    for (const e of expectedOverDays(p.w, p.pv, p.factor)) {
      const d = attributeDay(e.date, e.wh, p.pv.kwp, p.factor, bySlot);
      shortfall += d.shortfall;
      for (const c of CAUSES) {
        totals[c] += d.causes[c];
        if (d.causes[c] > 0) dayCount[c]++;
      }
      const main = d.shortfall > 0 ? CAUSES.reduce((b, c) => (d.causes[c] > d.causes[b] ? c : b), CAUSES[0]) : null;
      days.push({
        date: e.date,
        expected_kwh: kwhText(d.expected),
        actual_kwh: kwhText(d.actual),
        shortfall_kwh: kwhText(d.shortfall),
        main_cause: main,
        causes: Object.fromEntries(CAUSES.map((c) => [c, kwhText(d.causes[c])])),
      });
    }
    return {
      site_id: q.site_id,
      from: isoTime(p.w.from),
      to: isoTime(p.w.to),
      calibration_factor: p.cal?.factor ?? '1.0000',
      shortfall_kwh: kwhText(shortfall),
      value_gbp: p.price(shortfall),
      causes: CAUSES.map((c) => ({
        cause: c,
        kwh: kwhText(totals[c]),
        share: ratio(totals[c], shortfall),
        value_gbp: p.price(totals[c]),
        days: dayCount[c],
        definition: CAUSE_DEFINITIONS[c],
      })),
      pricing: pricing(p),
      days,
    };
  }

  async function outOfHours(ctx: RequestContext, q: Query) {
    await requireSite(ctx.orgId, q.site_id);
    const w = reportWindow(q, now(), { defaultDays: 30, maxDays: 366 });
    const set = await deps.settings.read(ctx.orgId, q.site_id);
    const rules = rulesOf(set.settings.operating_hours);
    if (!rules.length) throw energyErrors.noOperatingHours();
    const split = await hoursSplit(db, ctx.orgId, q.site_id, new Date(w.from), new Date(w.to), rules);
    const byDay = new Map<string, { in: number; out: number; inImp: number; outImp: number; outHh: number; inHh: number; complete: number }>();
    for (const x of split) {
      const e = byDay.get(x.day) ?? { in: 0, out: 0, inImp: 0, outImp: 0, outHh: 0, inHh: 0, complete: 0 };
      if (x.in_hours) {
        e.in += toWh(x.consumption_kwh);
        e.inImp += toWh(x.import_kwh);
        e.inHh += x.half_hours;
      } else {
        e.out += toWh(x.consumption_kwh);
        e.outImp += toWh(x.import_kwh);
        e.outHh += x.half_hours;
      }
      e.complete += x.complete_half_hours;
      byDay.set(x.day, e);
    }
    const tariff = set.settings.tariff;
    const money = (wh: number) => (tariff ? poundsText(costPence(wh, tariff.import_p_per_kwh)) : null);
    let tin = 0;
    let tout = 0;
    let toutImp = 0;
    let complete = 0;
    const days = [];
    for (let d = w.fromDay; d < w.toDay; d = addDays(d, 1)) {
      const e = byDay.get(d);
      tin += e?.in ?? 0;
      tout += e?.out ?? 0;
      toutImp += e?.outImp ?? 0;
      complete += e?.complete ?? 0;
      days.push({
        date: d,
        weekday: DAYS[(new Date(`${d}T12:00:00Z`).getUTCDay() + 6) % 7],
        in_hours_kwh: kwhText(e?.in ?? 0),
        out_of_hours_kwh: kwhText(e?.out ?? 0),
        out_of_hours_import_kwh: kwhText(e?.outImp ?? 0),
        out_of_hours_share: ratio(e?.out ?? 0, (e?.in ?? 0) + (e?.out ?? 0)),
        out_of_hours_import_cost_gbp: money(e?.outImp ?? 0),
        half_hours: slotsInDay(d),
        complete_half_hours: e?.complete ?? 0,
      });
    }
    return {
      site_id: q.site_id,
      from: isoTime(w.from),
      to: isoTime(w.to),
      operating_hours: set.settings.operating_hours,
      in_hours_kwh: kwhText(tin),
      out_of_hours_kwh: kwhText(tout),
      out_of_hours_share: ratio(tout, tin + tout),
      out_of_hours_import_kwh: kwhText(toutImp),
      out_of_hours_import_cost_gbp: money(toutImp),
      import_p_per_kwh: tariff?.import_p_per_kwh ?? null,
      half_hours: halfHoursOf(w),
      complete_half_hours: complete,
      days,
    };
  }

  /** A clear-sky day a calibration used, as stored in its details. */
  interface CalibrationDay {
    date: string;
    actual_kwh: string;
    clear_sky_kwh: string;
    ratio: number | null;
    correlation: number;
  }

  function calibrationView(c: CalibrationRow) {
    const d = c.details as { days?: CalibrationDay[]; candidates?: number; rejected?: Record<string, number> };
    return {
      calibration_id: c.calibration_id,
      site_id: c.site_id,
      from: c.from_day,
      to: c.to_day,
      days_used: c.days_used,
      factor: c.factor,
      previous_factor: c.previous_factor,
      days: d.days ?? [],
      candidates: d.candidates ?? 0,
      rejected: d.rejected ?? {},
      created_by: c.created_by,
      created_at: isoTime(c.created_at),
    };
  }

  async function calibrations(ctx: RequestContext, q: { site_id: string }) {
    await requireSite(ctx.orgId, q.site_id);
    const [list, set] = await Promise.all([store.calibrations(db, ctx.orgId, q.site_id), deps.settings.read(ctx.orgId, q.site_id)]);
    return {
      site_id: q.site_id,
      factor: list[0]?.factor ?? '1.0000',
      calibrated: list.length > 0,
      pv_kwp: set.settings.pv_kwp,
      expected_yield_kwh_per_kwp: set.settings.expected_yield_kwh_per_kwp,
      current: list[0] ? calibrationView(list[0]) : null,
      history: list.map(calibrationView),
    };
  }

  async function calibrate(ctx: RequestContext, body: { site_id: string; from?: string; to?: string }) {
    await requireSite(ctx.orgId, body.site_id);
    for (const k of ['from', 'to'] as const) {
      const v = body[k];
      if (v !== undefined && (!/^\d{4}-\d{2}-\d{2}$/.test(v) || addDays(v, 0) !== v)) throw energyErrors.field([k], 'Input should be a date YYYY-MM-DD', v);
    }
    if (body.from && body.to && body.to < body.from) throw energyErrors.field(['to'], 'to must not be before from', body.to);
    if (body.from && body.to && Math.round((Date.parse(body.to) - Date.parse(body.from)) / 86_400_000) + 1 > 366)
      throw energyErrors.field(['to'], 'At most 366 days', body.to);
    const w = reportWindow({ from: body.from, to: body.to }, now(), { defaultDays: 90, maxDays: 366 }, 'body');
    const set = await deps.settings.read(ctx.orgId, body.site_id);
    const pv = pvSettings(set.settings);
    if (!pv) throw energyErrors.noPvSettings();
    const rows = await store.siteHalfHours(db, ctx.orgId, body.site_id, new Date(w.from), new Date(w.to));
    const bySlot = new Map(rows.map((x) => [x.slot.getTime(), x]));
    const used: CalibrationDay[] = [];
    const rejected = { incomplete: 0, no_generation: 0, not_clear_sky: 0, too_low: 0 };
    let sumA = 0;
    let sumCs = 0;
    for (let d = w.fromDay; d < w.toDay; d = addDays(d, 1)) {
      const cs = clearSkyDay(d, pv.kwp);
      const day = cs.map((x) => ({ cs: x.wh, row: bySlot.get(x.slot) }));
      if (day.some((x) => !x.row || !x.row.complete || ['missing', 'partial'].includes(x.row.basis?.generation))) {
        rejected.incomplete++;
        continue;
      }
      const a = day.map((x) => toWh(x.row!.generation_kwh));
      const A = a.reduce((s, x) => s + x, 0);
      if (A <= 0) {
        rejected.no_generation++;
        continue;
      }
      const daylight = day.map((x, i) => ({ cs: x.cs, a: a[i] })).filter((x) => x.cs > 0);
      const r = correlation(
        daylight.map((x) => x.a),
        daylight.map((x) => x.cs),
      );
      const CS = Math.round(cs.reduce((s, x) => s + x.wh, 0));
      if (r === null || r < 0.98) {
        rejected.not_clear_sky++;
        continue;
      }
      if (A < 0.5 * CS) {
        rejected.too_low++;
        continue;
      }
      sumA += A;
      sumCs += CS;
      used.push({ date: d, actual_kwh: kwhText(A), clear_sky_kwh: kwhText(CS), ratio: ratio(A, CS), correlation: Math.round(r * 10_000) / 10_000 });
    }
    if (!used.length) throw energyErrors.noClearDays();
    const factor = (Math.round((sumA / sumCs) * 10_000) / 10_000).toFixed(4);
    const previous = await calibrationOf(ctx.orgId, body.site_id);
    const row = {
      calibration_id: randomUUID(),
      site_id: body.site_id,
      from_day: w.fromDay,
      to_day: addDays(w.toDay, -1),
      days_used: used.length,
      factor,
      previous_factor: previous?.factor ?? null,
      details: { days: used, candidates: w.days, rejected, actual_kwh: kwhText(sumA), clear_sky_kwh: kwhText(sumCs) },
      created_by: ctx.actor.kind === 'user' ? ctx.actor.userId : ctx.actor.kind === 'key' ? ctx.actor.keyId : null,
      created_at: deps.clock.now(),
    };
    await db.tx(async (q) => {
      await store.insertCalibration(q, ctx.orgId, row);
      await deps.audit.record(q, ctx, { action: 'ems.pv_calibration.create', details: { site_id: body.site_id, factor, days_used: used.length } });
    });
    return calibrationView({ ...row, details: row.details as Record<string, unknown> });
  }

  async function energySummary(ctx: RequestContext, q: { site_id?: string; date?: string; from?: string; to?: string }) {
    const { w, sites } = await exportScope(ctx, q);
    const totals = await store.siteTotals(db, ctx.orgId, w.fromDay, w.toDay, sites);
    const by = new Map(totals.map((t) => [t.site_id, t]));
    const n = halfHoursOf(w);
    return {
      from: isoTime(w.from),
      to: isoTime(w.to),
      days: w.days,
      half_hours: n,
      sites: sites.map((id) => {
        const t = by.get(id);
        const wh = (k: Exclude<keyof SiteDayRow, 'day'>) => toWh((t?.[k] as string | undefined) ?? '0');
        const measured = !!t && t.measured_half_hours === n && t.complete_half_hours === n;
        return {
          site_id: id,
          import_kwh: kwhText(wh('import_kwh')),
          export_kwh: kwhText(wh('export_kwh')),
          generation_kwh: kwhText(wh('generation_kwh')),
          consumption_kwh: kwhText(wh('consumption_kwh')),
          charge_kwh: kwhText(wh('charge_kwh')),
          discharge_kwh: kwhText(wh('discharge_kwh')),
          residual_kwh: kwhText(wh('residual_kwh')),
          self_consumed_kwh: kwhText(wh('self_consumed_kwh')),
          peak_demand_kw: t ? (wh('max_import_kwh') * 2) / 1000 : null,
          half_hours_with_data: t?.half_hours ?? 0,
          complete_half_hours: t?.complete_half_hours ?? 0,
          measured_half_hours: t?.measured_half_hours ?? 0,
          data_completeness: ratio(t?.complete_half_hours ?? 0, n),
          basis: basisShown(ctx.orgId)(measured ? 'measured' : 'calculated'),
        };
      }),
    };
  }

  return {
    report,
    lineage,
    readingLineage,
    exportScope,
    intervalText,
    underperformance,
    attribution,
    outOfHours,
    calibrations,
    calibrate,
    energySummary,
    COLUMNS,
  };
}

export type Reporting = ReturnType<typeof createReporting>;
export { ukMidnight };
