// EMS alerts: evaluation of the organisation's own data into alerts in the organisation alert
// stream (source 'ems'), the ranked queue, and the policy.
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import { actorOf, type AuditLog } from '../audit/index.ts';
import type { AlertStream, AlertView } from '../alerts/index.ts';
import { classOfType, type RegistryReads } from '../registry/index.ts';
import type { TelemetryReads } from '../telemetry/index.ts';
import type { EnergyFigures, Flow } from '../energy/index.ts';
import { SLOT_MS } from '../../kit/uk-time.ts';
import { emsErrors } from './errors.ts';
import { penceOf, poundsText } from '../../kit/decimal.ts';
import { DEFAULT_POLICY, effectivePolicy, severityOf, type AlertPolicy } from './policy.ts';
import { rankAlerts, totalPence } from './ranking.ts';
import { evaluateSources, IMPACT_METHODS, type EvalAsset, type FlowSlot, type Slot, type Source } from './sources.ts';
import { emsStore } from './store.ts';
import { emsAlertOut, type EmsAlertOut } from './views.ts';

export const EMS_SOURCE = 'ems';
const DAY_MS = 86_400_000;

export interface EvaluationResult {
  evaluated_at: string;
  window: { from: string; to: string };
  raised: EmsAlertOut[];
  updated: number;
  resolved: { id: string; source: string; site_id: string | null; asset_id: string | null }[];
  open_count: number;
  total_impact_gbp_per_day: string;
}

export function createEvaluation(deps: {
  db: Db;
  clock: Clock;
  alerts: AlertStream;
  audit: AuditLog;
  registry: RegistryReads;
  telemetry: TelemetryReads;
  energy: EnergyFigures;
}) {
  const { db, clock, alerts, audit, registry, telemetry, energy } = deps;

  async function policyOf(q: Queryable, orgId: string) {
    const row = await emsStore.policy(q, orgId);
    return {
      policy: effectivePolicy(row?.policy as Partial<AlertPolicy> | null),
      is_default: !row,
      updated_at: row ? isoTime(row.updated_at) : null,
      updated_by: row?.updated_by ?? null,
    };
  }

  /** Open EMS alerts with their current figures and admin state (unranked). */
  async function openAlerts(q: Queryable, orgId: string): Promise<EmsAlertOut[]> {
    const open = await alerts.listOpenBySource(q, orgId, EMS_SOURCE);
    const ids = open.map((a) => a.id);
    const figures = new Map((await emsStore.alertsByIds(q, orgId, ids)).map((e) => [e.alert_id, e]));
    const states = new Map((await emsStore.adminStates(q, orgId, ids)).map((s) => [s.alert_id, s]));
    return open.filter((a) => figures.has(a.id)).map((a) => emsAlertOut(a, figures.get(a.id)!, states.get(a.id)));
  }

  /** The ledger's half hours of these assets' flows, by asset (slots as ISO instants). */
  async function flowsOf(q: Queryable, orgId: string, assetIds: string[], flows: Flow[], from: Date, to: Date) {
    const by = new Map<string, FlowSlot[]>();
    for (const r of await energy.assetHalfHours(q, orgId, assetIds, flows, from, to)) {
      by.set(r.asset_id, [...(by.get(r.asset_id) ?? []), { slot: r.slot.toISOString(), flow: r.flow, kwh: r.kwh, coverage: r.coverage }]);
    }
    return by;
  }

  async function gather(q: Queryable, orgId: string, policy: AlertPolicy, now: Date) {
    const rows = await registry.assets(q, orgId);
    const assets: EvalAsset[] = rows.map((r) => ({
      asset_id: r.asset_id,
      site_id: r.site_id,
      cls: r.asset_class ?? classOfType(r.type),
      details: r.details ?? {},
      last_ts: r.last_ts ? new Date(r.last_ts) : null,
    }));
    const ids = assets.map((a) => a.asset_id);
    // Energies are the ledger's (decision 0320): fold in what ingestion left pending first, so the
    // figures are as of now; a fold that fails (a quarantined site) leaves the ledger as it stands,
    // and each energy figure's evidence says whether its asset was still pending.
    try {
      await energy.bringUpToDate(orgId);
    } catch {
      // the pending state below says which figures are behind
    }
    const pending = new Set(await energy.pendingAssets(q, orgId, ids));
    // The window is whole half hours (the ledger's): the window_hours up to the start of the current half hour.
    const to = new Date(Math.floor(now.getTime() / SLOT_MS) * SLOT_MS);
    const from = new Date(to.getTime() - policy.window_hours * 3_600_000);
    const windowSlots = await telemetry.halfHourly(q, orgId, ids, from, to);
    const slots = new Map<string, Slot[]>();
    for (const s of windowSlots) slots.set(s.asset_id, [...(slots.get(s.asset_id) ?? []), s]);
    const energyIn = await flowsOf(q, orgId, ids, ['generation', 'import'], from, to);
    const beforeSilence = new Map<string, { from: Date; to: Date; energy: FlowSlot[] }>();
    for (const a of assets) {
      if (!a.last_ts || now.getTime() - a.last_ts.getTime() < policy.silence_after_minutes * 60_000) continue;
      if (a.cls !== 'inverter' && a.cls !== 'battery') continue;
      // The 24 hours of half hours up to the last record (its own half hour included when it ends inside one).
      const t = new Date(Math.ceil(a.last_ts.getTime() / SLOT_MS) * SLOT_MS);
      const f = new Date(t.getTime() - DAY_MS);
      const flow: Flow = a.cls === 'inverter' ? 'generation' : 'discharge';
      beforeSilence.set(a.asset_id, { from: f, to: t, energy: (await flowsOf(q, orgId, [a.asset_id], [flow], f, t)).get(a.asset_id) ?? [] });
    }
    return { assets, window: { from, to, slots, energy: energyIn }, beforeSilence, pending };
  }

  return {
    policyOf,
    openAlerts,

    /** The queue: open EMS alerts ranked by impact (£/day), filtered. */
    async list(ctx: RequestContext, f: { site_id?: string; source?: string; severity?: string; min_impact_gbp_per_day?: string }) {
      let items = await openAlerts(db, ctx.orgId);
      if (f.site_id) items = items.filter((a) => a.site_id === f.site_id);
      if (f.source) items = items.filter((a) => a.source === f.source);
      if (f.severity) items = items.filter((a) => a.severity === f.severity);
      if (f.min_impact_gbp_per_day) {
        const min = penceOf(f.min_impact_gbp_per_day);
        items = items.filter((a) => a.impact_pence >= min);
      }
      const ranked = rankAlerts(items);
      return {
        alerts: ranked,
        count: ranked.length,
        total_impact_gbp_per_day: poundsText(totalPence(ranked)),
        ranked_by: 'impact_gbp_per_day, highest first; equal impacts by raised_at, oldest first, then id',
      };
    },

    /** Evaluates every source; raises new conditions, refreshes open ones, resolves cleared ones. */
    async evaluate(ctx: RequestContext): Promise<EvaluationResult & { newly: AlertView[] }> {
      const now = clock.now();
      const { policy } = await policyOf(db, ctx.orgId);
      const input = await gather(db, ctx.orgId, policy, now);
      const findings = evaluateSources({ now, policy, ...input });
      const result = await db.tx(async (q) => {
        const openBefore = await alerts.listOpenBySource(q, ctx.orgId, EMS_SOURCE);
        const figures = new Map(
          (
            await emsStore.alertsByIds(
              q,
              ctx.orgId,
              openBefore.map((a) => a.id),
            )
          ).map((e) => [e.alert_id, e]),
        );
        const newly: AlertView[] = [];
        let updated = 0;
        const seen = new Set<string>();
        for (const f of findings) {
          seen.add(f.dedupe_key);
          const severity = severityOf(f.impact_pence, policy);
          const details = {
            source: f.source,
            site_id: f.site_id,
            asset_id: f.asset_id,
            since: f.since.toISOString(),
            impact_gbp_per_day: poundsText(f.impact_pence),
            impact_method: IMPACT_METHODS[f.source],
            evidence: f.evidence,
          };
          const { alert, raised } = await alerts.raise(q, ctx.orgId, {
            type: f.source,
            source: EMS_SOURCE,
            severity,
            title: f.title,
            subject: f.subject,
            details,
            dedupeKey: f.dedupe_key,
          });
          if (raised) newly.push(alert);
          else updated++;
          await emsStore.upsertAlert(q, ctx.orgId, {
            alert_id: alert.id,
            dedupe_key: f.dedupe_key,
            source: f.source,
            site_id: f.site_id,
            asset_id: f.asset_id,
            since: raised ? f.since : (figures.get(alert.id)?.since ?? f.since),
            severity,
            impact_pence: f.impact_pence,
            method: IMPACT_METHODS[f.source],
            evidence: f.evidence,
            evaluated_at: now,
          });
        }
        const resolved = [];
        for (const a of openBefore) {
          const e = figures.get(a.id);
          if (!e || seen.has(e.dedupe_key)) continue;
          await alerts.resolve(q, ctx.orgId, e.dedupe_key, `condition cleared at evaluation ${now.toISOString()}`);
          resolved.push({ id: a.id, source: e.source, site_id: e.site_id, asset_id: e.asset_id });
        }
        await audit.record(q, actorOf(ctx), {
          action: 'ems.alerts.evaluate',
          details: { raised: newly.length, updated, resolved: resolved.length },
        });
        return { newly, updated, resolved };
      });
      const open = rankAlerts(await openAlerts(db, ctx.orgId));
      const newIds = new Set(result.newly.map((a) => a.id));
      return {
        evaluated_at: now.toISOString(),
        window: { from: input.window.from.toISOString(), to: input.window.to.toISOString() },
        raised: open.filter((a) => newIds.has(a.id)),
        updated: result.updated,
        resolved: result.resolved,
        open_count: open.length,
        total_impact_gbp_per_day: poundsText(totalPence(open)),
        newly: result.newly,
      };
    },

    async getPolicy(ctx: RequestContext) {
      return policyOf(db, ctx.orgId);
    },

    async putPolicy(ctx: RequestContext, body: Partial<AlertPolicy>) {
      const policy = effectivePolicy(body);
      if (penceOf(policy.severity.critical_gbp_per_day) < penceOf(policy.severity.warning_gbp_per_day)) {
        throw emsErrors.field(['severity', 'critical_gbp_per_day'], 'must be at least warning_gbp_per_day', policy.severity.critical_gbp_per_day);
      }
      const actor = ctx.actor.kind === 'user' ? ctx.actor.userId : null;
      await db.tx(async (q) => {
        await emsStore.savePolicy(q, ctx.orgId, policy, clock.now(), actor);
        await audit.record(q, ctx, { action: 'ems.alerts.policy.update', details: { members: Object.keys(body) } });
      });
      return policyOf(db, ctx.orgId);
    },

    async resetPolicy(ctx: RequestContext) {
      await db.tx(async (q) => {
        if (await emsStore.deletePolicy(q, ctx.orgId)) await audit.record(q, ctx, { action: 'ems.alerts.policy.reset' });
      });
      return { policy: structuredClone(DEFAULT_POLICY), is_default: true, updated_at: null, updated_by: null };
    },
  };
}

export type Evaluation = ReturnType<typeof createEvaluation>;
export type { Source };
