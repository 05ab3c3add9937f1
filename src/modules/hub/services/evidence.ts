// PCPR 2023 evidence: reliability from connector status history (pcpr.ts), and compliance with each duty.
import type { RequestContext } from '../../../platform/operation.ts';
import { isoTime } from '../../../platform/schema-kit.ts';
import { hubStore as store } from '../store.ts';
import { pencePerKwhIncVat } from '../tariff.ts';
import { DUTIES, PCPR, RELIABILITY_METHOD, COMPLIANCE_METHOD, reliabilityOf, complianceOf } from '../pcpr.ts';
import { type HubDeps, siteOr404, toSchedule } from './shared.ts';

export function createEvidenceService(deps: HubDeps) {
  const { db, clock } = deps;
  /** The site's charge points and their connector status history over the year to now. */
  async function pastYear(ctx: RequestContext, siteId: string) {
    const cps = await store.chargePointsOfSite(db, ctx.orgId, siteId);
    const to = clock.now();
    const from = new Date(to);
    from.setUTCFullYear(from.getUTCFullYear() - 1);
    const history = await store.statusHistory(
      db,
      ctx.orgId,
      cps.map((c) => c.charge_point_id),
      from,
      to,
    );
    return { cps, history, from, to };
  }
  return {
    async reliability(ctx: RequestContext, siteId: string) {
      await siteOr404(db, ctx.orgId, siteId);
      const { cps, history, from, to } = await pastYear(ctx, siteId);
      return { site_id: siteId, ...reliabilityOf(cps, history, from, to), data_basis: { basis: 'calculated' as const, method: RELIABILITY_METHOD } };
    },

    async compliance(ctx: RequestContext, siteId: string) {
      const site = await siteOr404(db, ctx.orgId, siteId);
      const { cps, history, from, to: now } = await pastYear(ctx, siteId);
      const rel = reliabilityOf(cps, history, from, now);
      const sched = await store.inForce(db, ctx.orgId, siteId, now);
      const duties = complianceOf({
        site,
        cps,
        reliability: rel,
        schedule: sched ? { version: sched.version, incVat: pencePerKwhIncVat({ ...toSchedule(sched), bands: [] }, 0) } : null,
        now,
      });
      const summary = { met: 0, not_met: 0, not_known: 0, not_applicable: 0 };
      for (const d of duties) summary[d.result]++;
      return { site_id: siteId, assessed_at: isoTime(now), summary, duties, data_basis: { basis: 'calculated' as const, method: COMPLIANCE_METHOD } };
    },

    regulations: () => ({ ...PCPR, duties: DUTIES }),
  };
}
