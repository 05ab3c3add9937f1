// The energy ledger: a site's half hours with the balance and residual, one period in detail,
// rebuilds (a job with progress), PPA contracts and the monthly statement.
import { ensureJobRoom } from '../../platform/job-caps.ts';
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { JobQueue, Job, JobOutcome } from '../../platform/jobs.ts';
import { errorClass, type JobUnits } from '../../platform/job-units.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import type { TelemetryEnergy } from '../telemetry/index.ts';
import type { AuditActor, AuditLog } from '../audit/index.ts';
import type { AssetsChangedPayload } from '../registry/index.ts';
import { settlementPeriod, SLOT_MS, parseInstant, addDays, ukMidnight, ukDate } from '../../kit/uk-time.ts';
import { energyErrors } from './errors.ts';
import { DAY_MS, flowKwh, type EnergyModel } from './model.ts';
import type { AssetFlowRow, RebuildRow, SiteHalfHourRow } from './store.ts';
import { monthWindow, settlementDays, slotsOf, windowOf, type DayWindow } from './range.ts';
import { costPence, kwhText, poundsText, toWh } from '../../kit/decimal.ts';
import { jobProgress } from '../../kit/progress.ts';
import { FLOWS } from './flows.ts';
import { basisShown, flowBasesShown, type Shown } from './basis-shown.ts';

export const REBUILD_KIND = 'energy.rebuild';
/** The job that answers the registry's ASSETS_CHANGED event (rebuilds the sites named). */
export const ASSETS_CHANGED_KIND = 'energy.assets-changed';
/** The recurring refresh that folds pending spans in, one organisation a unit (decision 0285). */
export const REFRESH_KIND = 'energy.refresh';
/** Days of a site recomputed per rebuild step (one transaction each). */
export const REBUILD_STEP_DAYS = 7;

export interface PpaContractSetting {
  contract_id: string;
  counterparty: string;
  flow: 'generation' | 'export' | 'import' | 'consumption';
  price_p_per_kwh: string;
  start_date: string;
  end_date: string | null;
}

const actorId = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : ctx.actor.kind === 'key' ? ctx.actor.keyId : null);

/** A half hour of the ledger; `orgId` decides the basis shown (basis-shown.ts). */
/** One asset's flow in a half hour as the lineage shows it (the ledger's and the EMS report's). */
export function flowLineage(f: AssetFlowRow, shown: Shown) {
  return {
    kwh: kwhText(toWh(f.kwh)),
    basis: shown(f.basis),
    source: f.source,
    coverage: f.coverage,
    samples: f.samples,
    counter_resets: f.resets,
  };
}

export function halfHourView(orgId: string, start: number, row: SiteHalfHourRow | undefined, expected: number) {
  const sp = settlementPeriod(start);
  const base = { period_start: isoTime(start), period_end: isoTime(start + SLOT_MS), settlement_date: sp.date, settlement_period: sp.period };
  if (!row) {
    return {
      ...base,
      gap: true,
      import_kwh: null,
      export_kwh: null,
      generation_kwh: null,
      consumption_kwh: null,
      charge_kwh: null,
      discharge_kwh: null,
      residual_kwh: null,
      basis: null,
      consumption_method: null,
      coverage: null,
      assets_expected: expected,
      assets_reporting: 0,
      meters_disagree: false,
    };
  }
  return {
    ...base,
    gap: !row.complete,
    import_kwh: row.import_kwh,
    export_kwh: row.export_kwh,
    generation_kwh: row.generation_kwh,
    consumption_kwh: row.consumption_kwh,
    charge_kwh: row.charge_kwh,
    discharge_kwh: row.discharge_kwh,
    residual_kwh: row.residual_kwh,
    basis: flowBasesShown(orgId, row.basis),
    consumption_method: row.consumption_method,
    coverage: row.coverage,
    assets_expected: row.assets_expected,
    assets_reporting: row.assets_reporting,
    meters_disagree: metersDisagree(row),
  };
}

/**
 * The half hour's consumption is negative: only derived consumption can be (metered loads are
 * positive parts), and only where the site's meters disagree (decisions 0492, 0495).
 */
const metersDisagree = (row: SiteHalfHourRow) => toWh(row.consumption_kwh) < 0;

export function totalsOf(rows: SiteHalfHourRow[], halfHours: number) {
  const wh = { import: 0, export: 0, generation: 0, consumption: 0, charge: 0, discharge: 0, residual: 0 };
  for (const r of rows) {
    wh.import += toWh(r.import_kwh);
    wh.export += toWh(r.export_kwh);
    wh.generation += toWh(r.generation_kwh);
    wh.consumption += toWh(r.consumption_kwh);
    wh.charge += toWh(r.charge_kwh);
    wh.discharge += toWh(r.discharge_kwh);
    wh.residual += toWh(r.residual_kwh);
  }
  const complete = rows.filter((r) => r.complete).length;
  return {
    ...flowKwh(wh),
    half_hours: halfHours,
    half_hours_with_data: rows.length,
    complete_half_hours: complete,
    gap_half_hours: halfHours - complete,
    measured_half_hours: rows.filter((r) => r.all_measured).length,
    meters_disagree_half_hours: rows.filter(metersDisagree).length,
    wh,
  };
}

export function rebuildView(r: RebuildRow) {
  return {
    rebuild_id: r.rebuild_id,
    site_id: r.site_id,
    status: r.status,
    from: isoTime(r.from_ts),
    to: isoTime(r.to_ts),
    days_total: r.days_total,
    days_done: r.days_done,
    progress: jobProgress(r.days_done, r.days_total, 'days'),
    requested_at: isoTime(r.requested_at),
    finished_at: r.finished_at ? isoTime(r.finished_at) : null,
    error: r.error,
  };
}

export interface LedgerDeps {
  db: Db;
  backgroundDb: Db;
  clock: Clock;
  model: EnergyModel;
  telemetry: TelemetryEnergy;
  jobs: Pick<JobQueue, 'enqueue'>;
  jobUnits: Pick<JobUnits, 'status'>;
  audit: AuditLog;
  /** Rebuilds one organisation may have queued or running (ENERGY_MAX_QUEUED_REBUILDS). */
  maxQueuedRebuilds?: number;
}

export function createLedger(deps: LedgerDeps) {
  const { db, clock, model } = deps;
  const store = model.store;

  async function requireSite(q: Queryable, orgId: string, siteId: string) {
    const ctx = await model.siteContext(q, orgId, siteId);
    if (!ctx.assets.length) throw energyErrors.siteNotFound();
    return ctx;
  }

  async function ledger(ctx: RequestContext, siteId: string, query: { date?: string; from?: string; to?: string }) {
    const site = await requireSite(db, ctx.orgId, siteId);
    const w = windowOf(query, clock.now().getTime(), { defaultDays: 1, maxDays: 31 });
    const rows = await store.siteHalfHours(db, ctx.orgId, siteId, new Date(w.from), new Date(w.to));
    const at = new Map(rows.map((r) => [r.slot.getTime(), r]));
    const halfHours = [...slotsOf(w)].map((s) => halfHourView(ctx.orgId, s.start, at.get(s.start), site.roled.length));
    const { wh, ...totals } = totalsOf(rows, halfHours.length);
    const pending = await store.pendingCount(
      db,
      ctx.orgId,
      site.roled.map((r) => r.asset.asset_id),
    );
    const rebuild = await store.latestRebuild(db, ctx.orgId, siteId);
    const held = (await deps.jobUnits.status(db, REFRESH_KIND, ctx.orgId)).find((u) => u.quarantined_at);
    return {
      site_id: siteId,
      from: isoTime(w.from),
      to: isoTime(w.to),
      timezone: 'Europe/London',
      settlement_days: settlementDays(w),
      half_hours: halfHours,
      totals,
      balance: {
        identity: 'generation + import + discharge = consumption + export + charge + residual',
        inputs_kwh: kwhText(wh.generation + wh.import + wh.discharge),
        outputs_kwh: kwhText(wh.consumption + wh.export + wh.charge),
        residual_kwh: kwhText(wh.residual),
        balances: wh.generation + wh.import + wh.discharge === wh.consumption + wh.export + wh.charge + wh.residual,
      },
      assets: site.roled.map((r) => ({ asset_id: r.asset.asset_id, asset_class: r.asset.asset_class, role: r.role })),
      pending_refresh: pending > 0,
      refresh_quarantine:
        held && pending > 0 ? { since: isoTime(held.quarantined_at!), error_class: held.error_class, next_retry_at: isoTime(held.retry_at) } : null,
      rebuild: rebuild ? rebuildView(rebuild) : null,
    };
  }

  async function period(ctx: RequestContext, siteId: string, periodStart: string) {
    const site = await requireSite(db, ctx.orgId, siteId);
    const t = parseInstant(periodStart);
    if (t === null || t % SLOT_MS !== 0 || /^\d{4}-\d{2}-\d{2}$/.test(periodStart.trim())) {
      throw energyErrors.path('period_start', 'Input should be the start of a half hour, ISO 8601 with an offset (e.g. 2026-10-25T01:00:00Z)', periodStart);
    }
    const from = new Date(t);
    const to = new Date(t + SLOT_MS);
    const [rows, flows] = await Promise.all([store.siteHalfHours(db, ctx.orgId, siteId, from, to), store.assetFlows(db, ctx.orgId, siteId, from, to)]);
    const view = halfHourView(ctx.orgId, t, rows[0], site.roled.length);
    return {
      site_id: siteId,
      ...view,
      balance: rows[0]
        ? {
            identity: 'generation + import + discharge = consumption + export + charge + residual',
            inputs_kwh: kwhText(toWh(rows[0].generation_kwh) + toWh(rows[0].import_kwh) + toWh(rows[0].discharge_kwh)),
            outputs_kwh: kwhText(toWh(rows[0].consumption_kwh) + toWh(rows[0].export_kwh) + toWh(rows[0].charge_kwh)),
            residual_kwh: rows[0].residual_kwh,
          }
        : null,
      contributions: flows.map((f) => ({
        asset_id: f.asset_id,
        role: site.roled.find((r) => r.asset.asset_id === f.asset_id)?.role ?? null,
        flow: f.flow,
        ...flowLineage(f, basisShown(ctx.orgId)),
      })),
      readings_url: `/api/hardware/ems/lineage/reading?site_id=${encodeURIComponent(siteId)}&period_start=${encodeURIComponent(isoTime(t))}`,
    };
  }

  /** Starts a rebuild of [from, to) unless one of the site is running (then that one is answered). */
  async function startRebuild(
    q: Queryable,
    orgId: string,
    siteId: string,
    from: number,
    to: number,
    who: RequestContext | AuditActor,
    requestedBy: string | null,
  ) {
    const now = clock.now();
    const daysTotal = Math.max(0, Math.round((to - from) / DAY_MS));
    const active = await store.activeRebuild(q, orgId, siteId);
    if (active) return { rebuild: rebuildView(active), created: false };
    // A person's requests count against the organisation's cap; the registry's (one a site at a
    // time: a change while one runs waits for it) do not.
    if ('actor' in who) {
      await ensureJobRoom(q, orgId, { kinds: [REBUILD_KIND], limit: deps.maxQueuedRebuilds ?? 10, what: 'ledger rebuilds', itemKey: 'rebuild_id' });
    }
    const row = await store.insertRebuild(q, orgId, {
      rebuild_id: randomUUID(),
      site_id: siteId,
      from: new Date(from),
      to: new Date(to),
      days_total: daysTotal,
      requested_by: requestedBy,
      now,
    });
    if (!row) {
      const again = await store.activeRebuild(q, orgId, siteId);
      return { rebuild: rebuildView(again!), created: false };
    }
    await deps.audit.record(q, who, { action: 'energy.ledger.rebuild', details: { site_id: siteId, rebuild_id: row.rebuild_id } });
    await deps.jobs.enqueue(q, {
      kind: REBUILD_KIND,
      orgId,
      payload: { rebuild_id: row.rebuild_id, step: 0 },
      dedupeKey: `${REBUILD_KIND}:${orgId}:${row.rebuild_id}:0`,
    });
    return { rebuild: rebuildView(row), created: true };
  }

  async function requestRebuild(ctx: RequestContext, siteId: string, body: { from?: string; to?: string } | undefined) {
    const site = await requireSite(db, ctx.orgId, siteId);
    const now = clock.now();
    let from: number;
    let to: number;
    if (body?.from || body?.to) {
      const w = windowOf({ from: body.from, to: body.to }, now.getTime(), { defaultDays: 31, maxDays: 800 });
      from = w.from;
      to = w.to;
    } else {
      const ext = await deps.telemetry.reads(db).extent(
        ctx.orgId,
        site.roled.map((r) => r.asset.asset_id),
      );
      if (!ext.length) {
        from = ukMidnight(ukDate(now.getTime()));
        to = from;
      } else {
        from = ukMidnight(ukDate(Math.min(...ext.map((e) => e.first.getTime()))));
        to = ukMidnight(addDays(ukDate(Math.max(...ext.map((e) => e.last.getTime()))), 1));
      }
    }
    return db.tx((q) => startRebuild(q, ctx.orgId, siteId, from, to, ctx, actorId(ctx)));
  }

  /**
   * The registry changed assets of these sites (added, removed, moved, re-parented, re-classed):
   * each site is rebuilt over the days its readings and the changed assets' readings span, so
   * readings stored before an asset was registered reach the ledger without anyone asking. While
   * a rebuild of the site is running, this waits for it and starts its own after.
   */
  async function assetsChanged(job: Job<AssetsChangedPayload>): Promise<JobOutcome | void> {
    const orgId = job.orgId!;
    const bg = deps.backgroundDb;
    const system: AuditActor = { orgId, actorType: 'system', actorId: null };
    const assetIds = job.payload.asset_ids ?? [];
    const busy: string[] = [];
    for (const siteId of job.payload.site_ids ?? []) {
      const site = await model.siteContext(bg, orgId, siteId);
      const ids = [...new Set([...site.assets.map((a) => a.asset_id), ...assetIds])];
      const ext = ids.length ? await deps.telemetry.reads(bg).extent(orgId, ids) : [];
      if (!ext.length) continue;
      const from = ukMidnight(ukDate(Math.min(...ext.map((e) => e.first.getTime()))));
      const to = ukMidnight(addDays(ukDate(Math.max(...ext.map((e) => e.last.getTime()))), 1));
      const started = await bg.tx((q) => startRebuild(q, orgId, siteId, from, to, system, null));
      if (!started.created) busy.push(siteId);
    }
    // A site whose rebuild was already running gets its own after it, in a job of its own.
    if (busy.length) {
      await bg.tx((q) =>
        deps.jobs.enqueue(q, {
          kind: ASSETS_CHANGED_KIND,
          orgId,
          payload: { site_ids: busy, asset_ids: assetIds },
          runAt: new Date(clock.now().getTime() + 30_000),
        }),
      );
    }
  }

  /** One step of a rebuild: REBUILD_STEP_DAYS days recomputed in one transaction, then the next step queued. */
  async function runRebuild(job: Job<{ rebuild_id: string; step: number }>): Promise<JobOutcome | void> {
    const orgId = job.orgId!;
    const bg = deps.backgroundDb;
    const r = await store.getRebuild(bg, orgId, job.payload.rebuild_id);
    if (!r || r.status === 'completed' || r.status === 'failed') return;
    const start = new Date(r.next_ts).getTime();
    const end = Math.min(new Date(r.to_ts).getTime(), start + REBUILD_STEP_DAYS * DAY_MS);
    const now = clock.now();
    try {
      await bg.tx(async (q) => {
        if (end > start) await model.recomputeSite(q, orgId, r.site_id, start, end);
        const done = end >= new Date(r.to_ts).getTime();
        const daysDone = Math.min(r.days_total, Math.round((end - new Date(r.from_ts).getTime()) / DAY_MS));
        await store.advanceRebuild(q, orgId, r.rebuild_id, new Date(end), daysDone, done, now);
        if (!done) {
          const step = job.payload.step + 1;
          await deps.jobs.enqueue(q, {
            kind: REBUILD_KIND,
            orgId,
            payload: { rebuild_id: r.rebuild_id, step },
            dedupeKey: `${REBUILD_KIND}:${orgId}:${r.rebuild_id}:${step}`,
          });
        }
      });
    } catch (e) {
      if (job.attempts >= 5) {
        // The organisation sees the failure's class, never the store's text (decision 0285).
        await store.failRebuild(bg, orgId, r.rebuild_id, errorClass(e), now);
        return;
      }
      throw e;
    }
  }

  async function contracts(ctx: RequestContext, siteId: string) {
    await requireSite(db, ctx.orgId, siteId);
    const s = await store.settings(db, ctx.orgId, siteId);
    const list = ((s?.settings.ppa_contracts as PpaContractSetting[] | undefined) ?? []).map((c) => ({ ...c, end_date: c.end_date ?? null }));
    return { site_id: siteId, contracts: list, updated_at: s ? isoTime(s.updated_at) : null };
  }

  /**
   * The monthly statement: for each contract in force, one line per UK day of the month it covers:
   * the day's energy of the contract's flow × the price, rounded to the penny once per line; the
   * total is the sum of the lines. A line is `measured` only when every half hour of the day is
   * complete and its flow measured; otherwise `calculated`, with the gaps counted.
   */
  async function statement(ctx: RequestContext, siteId: string, query: { month?: string; contract_id?: string }) {
    await requireSite(db, ctx.orgId, siteId);
    const m = monthWindow(query.month, clock.now().getTime());
    const s = await store.settings(db, ctx.orgId, siteId);
    let list = (s?.settings.ppa_contracts as PpaContractSetting[] | undefined) ?? [];
    if (query.contract_id !== undefined) {
      list = list.filter((c) => c.contract_id === query.contract_id);
      if (!list.length) throw energyErrors.noContract();
    }
    const rows = await store.siteHalfHours(db, ctx.orgId, siteId, new Date(m.from), new Date(m.to));
    const byDay = new Map<string, SiteHalfHourRow[]>();
    for (const r of rows) byDay.set(r.day, [...(byDay.get(r.day) ?? []), r]);
    const days = settlementDays(m);
    const shown = basisShown(ctx.orgId);
    const statements = list.map((c) => {
      const lines = [];
      let totalPence = 0n;
      let totalWh = 0;
      for (const d of days) {
        if (d.date < c.start_date || (c.end_date && d.date > c.end_date)) continue;
        const dayRows = byDay.get(d.date) ?? [];
        const wh = dayRows.reduce((a, r) => a + toWh(r[`${c.flow}_kwh` as const]), 0);
        const measured = dayRows.filter((r) => r.complete && r.basis[c.flow] === 'measured').length;
        const complete = dayRows.filter((r) => r.complete).length;
        const pence = costPence(wh, c.price_p_per_kwh);
        totalPence += pence;
        totalWh += wh;
        lines.push({
          date: d.date,
          settlement_periods: d.periods,
          half_hours_with_data: dayRows.length,
          gap_half_hours: d.periods - complete,
          energy_kwh: kwhText(wh),
          price_p_per_kwh: c.price_p_per_kwh,
          amount_gbp: poundsText(pence),
          data_basis: shown(measured === d.periods ? 'measured' : 'calculated'),
        });
      }
      return {
        contract: { ...c, end_date: c.end_date ?? null },
        lines,
        total_energy_kwh: kwhText(totalWh),
        total_amount_gbp: poundsText(totalPence),
        data_basis: shown(lines.length && lines.every((l) => l.data_basis === 'measured') ? 'measured' : 'calculated'),
      };
    });
    return {
      site_id: siteId,
      month: m.month,
      from: isoTime(m.from),
      to: isoTime(m.to),
      timezone: 'Europe/London',
      currency: 'GBP',
      rounding: 'Each line is energy (kWh to the watt-hour) × price (p/kWh), rounded to the penny half away from zero; totals are sums of lines.',
      statements,
    };
  }

  return { ledger, period, requestRebuild, runRebuild, assetsChanged, contracts, statement, requireSite };
}

export type Ledger = ReturnType<typeof createLedger>;
export { FLOWS };
export type { DayWindow };
