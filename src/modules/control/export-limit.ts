// Export limitation (demo realm rule 3): every 30 seconds on the job queue, each demo-realm site
// with limitation on is measured and, over its limit, the battery then PV are commanded through
// the verified write (at most two rounds); each iteration is an event with its decision, and the
// boundary meter's reading after it is stored as telemetry (decision 0304).
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CursorCodec } from '../../platform/cursor.ts';
import { pageAfter } from '../../platform/cursor.ts';
import type { JobUnits } from '../../platform/job-units.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import type { TelemetryWriter } from '../telemetry/index.ts';
import { actorId, RULES } from './decisions.ts';
import type { DemoModel } from './demo-model.ts';
import { controlErrors } from './errors.ts';
import {
  DEADBAND_KW,
  LOOP_DESCRIPTION,
  LOOP_EVERY_MS,
  LOOP_KIND,
  TOLERANCE_KW,
  decideExport,
  measure,
  round3,
  type DeviceKind,
  type ExportDecision,
  type ExportInputs,
  type SiteState,
  type Verdict,
} from './model.ts';
import type { Overrides } from './overrides.ts';
import type { Setpoints } from './setpoints.ts';
import { isDemo, type Sites } from './sites.ts';
import { configStore, decisionStore, demoStore, eventStore, type ConfigRow, type EventRow } from './store.ts';

type TelemetryRow = Extract<ReturnType<TelemetryWriter['judge']>[number], { ok: true }>['row'];

const eventView = (e: EventRow) => ({
  event_id: e.event_id,
  site_id: e.site_id,
  trigger: e.trigger,
  at: isoTime(e.at),
  tick_at: isoTimeOrNull(e.tick_at),
  limit_kw: Number(e.limit_kw),
  boundary_before_kw: Number(e.boundary_before_kw),
  boundary_after_kw: Number(e.boundary_after_kw),
  export_before_kw: round3(Math.max(0, -Number(e.boundary_before_kw))),
  export_after_kw: round3(Math.max(0, -Number(e.boundary_after_kw))),
  action: e.action,
  outcome: e.outcome,
  commands: e.commands,
  decision_id: e.decision_id,
});

function exportInputs(site: SiteState, t: number, cfg: ConfigRow, override: ExportInputs['override'], failed: string[]): ExportInputs {
  const m = measure(site, t);
  const at = (kind: DeviceKind) => site.devices.findIndex((d) => d.kind === kind);
  const bi = at('battery');
  const pi = at('pv');
  const bat = bi >= 0 ? site.devices[bi]! : null;
  const pv = pi >= 0 ? site.devices[pi]! : null;
  return {
    boundary_kw: m.boundary_kw,
    limit_kw: Number(cfg.export_limit_kw),
    margin_kw: Number(cfg.margin_kw),
    deadband_kw: DEADBAND_KW,
    override,
    failed,
    battery: bat
      ? { device_id: bat.device_id, power_kw: m.devices[bi]!.power_kw, setpoint_kw: bat.setpoint_kw, rated_kw: bat.rated_kw, soc_pct: bat.soc_pct }
      : null,
    pv: pv ? { device_id: pv.device_id, power_kw: m.devices[pi]!.power_kw, limit_kw: pv.setpoint_kw, rated_kw: pv.rated_kw } : null,
  };
}

export function createExportLimitation(deps: {
  db: Db;
  work: Db;
  clock: Clock;
  cursors: CursorCodec;
  units: Pick<JobUnits, 'each'>;
  writer: TelemetryWriter;
  sites: Sites;
  model: DemoModel;
  overrides: Overrides;
  setpoints: Setpoints;
}) {
  const { db, clock, cursors, sites, model, overrides } = deps;

  /** One iteration on a site in the caller's transaction; null when a scheduled tick was taken already. */
  async function iterate(q: Queryable, orgId: string, siteId: string, trigger: 'schedule' | 'manual', actor: string | null) {
    const now = clock.now();
    const t = now.getTime();
    const cfg = await configStore.get(q, orgId, siteId);
    const event_id = randomUUID();
    const decision_id = randomUUID();
    const tickAt = trigger === 'schedule' ? new Date(Math.floor(t / LOOP_EVERY_MS) * LOOP_EVERY_MS) : null;
    if (trigger === 'schedule') {
      if (!cfg || !cfg.export_limit_enabled || cfg.export_limit_kw === null) return null;
      if (!(await demoStore.site(q, orgId, siteId))) return null;
      if (!(await eventStore.claimTick(q, orgId, siteId, tickAt!, event_id, decision_id, now))) return null;
    } else {
      if (!(await demoStore.site(q, orgId, siteId))) throw controlErrors.noModel();
      if (!cfg || cfg.export_limit_kw === null) throw controlErrors.notConfigured();
    }
    let site = await model.lockedModel(q, orgId, siteId, t);
    await demoStore.save(q, orgId, siteId, site);
    const override = await overrides.overridesOn(q, orgId, siteId, now);
    const before = measure(site, t).boundary_kw;
    const rounds: ExportInputs[] = [];
    const decisions: ExportDecision[] = [];
    const setpoints: { setpoint_id: string; device_id: string; value_kw: number; verdict: Verdict; why: string }[] = [];
    for (let round = 0; round < 2; round++) {
      const inputs = exportInputs(
        site,
        t,
        cfg!,
        override,
        setpoints.filter((x) => x.verdict !== 'verified').map((x) => x.device_id),
      );
      const d = decideExport(inputs);
      rounds.push(inputs);
      decisions.push(d);
      for (const c of d.commands) {
        const r = await deps.setpoints.writeSetpoint(
          q,
          orgId,
          {
            site_id: siteId,
            device_id: c.device_id,
            value_kw: c.value_kw,
            source: 'export_limit',
            settle_seconds: cfg!.settle_seconds,
            requested_by_decision: decision_id,
          },
          actor,
        );
        setpoints.push({ setpoint_id: r.setpoint_id, device_id: c.device_id, value_kw: c.value_kw, verdict: r.verdict, why: c.why });
      }
      site = (await demoStore.site(q, orgId, siteId))!;
      const exportNow = Math.max(0, -measure(site, t).boundary_kw);
      // A second round only when the first sent commands and export is still over the limit
      // (a device that did not apply its command: the next device takes the rest).
      if (d.commands.length === 0 || exportNow <= Number(cfg!.export_limit_kw) + TOLERANCE_KW) break;
    }
    const after = measure(site, t).boundary_kw;
    const limit = Number(cfg!.export_limit_kw);
    const last = decisions[decisions.length - 1]!;
    const held = Math.max(0, -after) <= limit + TOLERANCE_KW;
    const action = decisions.find((d) => d.action !== 'none')?.action ?? 'none';
    const outcome = override.site ? 'skipped_override' : held ? (setpoints.length ? 'held' : 'within_limit') : 'over_limit';
    await decisionStore.insert(q, orgId, {
      decision_id,
      site_id: siteId,
      kind: 'export_limit',
      rule: RULES.export_limit,
      inputs: { rounds },
      output: { rounds: decisions },
      outcome: { trigger, boundary_before_kw: before, boundary_after_kw: after, limit_kw: limit, outcome, setpoints, reason: last.reason },
      actor,
      created_at: now,
    });
    const ev = {
      event_id,
      site_id: siteId,
      trigger,
      tick_at: tickAt,
      at: now,
      limit_kw: limit,
      boundary_before_kw: before,
      boundary_after_kw: after,
      action,
      outcome,
      commands: setpoints,
      decision_id,
    };
    await eventStore.insert(q, orgId, ev);
    // The boundary meter's reading after the iteration, stored as the organisation's telemetry
    // (capacity reads peaks from it). It comes from the synthetic device model: the record says
    // so (`simulated`, its source) and claims no device status (decision 0304).
    const meter = site.devices.find((d) => d.kind === 'meter');
    const rows: TelemetryRow[] = [];
    if (meter) {
      const [j] = deps.writer.judge(orgId, [
        {
          asset_id: meter.device_id,
          ts: isoTime(now),
          power_kw: after,
          simulated: true,
          site_ref: siteId,
          source: 'demo-device-model',
          export_limit_event: event_id,
        },
      ]);
      if (j?.ok) {
        rows.push(j.row);
        await deps.writer.writeInTx(q, orgId, now, rows);
      }
    }
    return { view: eventView(ev), rows, at: now };
  }

  /** After the iteration's transaction committed: the meter reading is counted and streamed. */
  async function committed(orgId: string, r: { rows: TelemetryRow[]; at: Date } | null) {
    if (r && r.rows.length) await deps.writer.committed(orgId, r.at, r.rows);
  }

  return {
    // ---- Export limitation ----
    async run(ctx: RequestContext, siteId: string) {
      const r = (await db.tx((q) => iterate(q, ctx.orgId, siteId, 'manual', actorId(ctx))))!;
      await committed(ctx.orgId, r);
      return r.view;
    },

    /** The 30 s tick: every demo-realm site with limitation on, each once per tick across instances. */
    async tick(): Promise<{ ran: number }> {
      const sites = await configStore.loopSites(deps.work);
      let ran = 0;
      // One site's failure does not stop the others: each site is its own unit, retried with
      // backoff, then quarantined (decision 0285).
      await deps.units.each(
        LOOP_KIND,
        sites,
        (s) => ({ orgId: s.org_id, key: s.site_id }),
        async (s) => {
          if (!isDemo(s.org_id)) return;
          const r = await deps.work.tx((q) => iterate(q, s.org_id, s.site_id, 'schedule', null));
          await committed(s.org_id, r);
          if (r) ran++;
        },
      );
      return { ran };
    },

    /** Retention: idle scheduled iterations older than `days` go, with their decisions. */
    async purgeIdleTicks(days: number): Promise<number> {
      return eventStore.purgeIdleTicks(deps.work, new Date(clock.now().getTime() - days * 86_400_000));
    },

    async events(ctx: RequestContext, siteId: string, query: { limit?: number; cursor?: string }) {
      await sites.requireSite(db, ctx.orgId, siteId);
      const limit = query.limit ?? 50;
      const binding = { op: 'listExportLimitEvents', orgId: ctx.orgId, filters: { site_id: siteId } };
      const paged = pageAfter(cursors, binding, query.cursor, limit);
      const page = paged.page(await eventStore.page(db, ctx.orgId, siteId, { limit, before: paged.after }), (r) => ({ t: r.pos, id: r.event_id }));
      return {
        site_id: siteId,
        loop: { every_seconds: LOOP_EVERY_MS / 1000, description: LOOP_DESCRIPTION },
        events: page.items.map(eventView),
        next_cursor: page.next_cursor,
        has_more: page.has_more,
      };
    },
  };
}

export type ExportLimitation = ReturnType<typeof createExportLimitation>;
