// Price schedule versions (draft -> published, never edited after) and quotes under the schedule in force.
import type { RequestContext } from '../../../platform/operation.ts';
import { isoTime } from '../../../platform/schema-kit.ts';
import { hubStore as store } from '../store.ts';
import { bandProblems, costSession, QUOTE_METHOD } from '../tariff.ts';
import { hubErrors } from '../errors.ts';
import { type HubDeps, scheduleView, siteOr404, toSchedule } from './shared.ts';

export function createPricingService(deps: HubDeps) {
  const { db, clock } = deps;
  return {
    async listSchedules(ctx: RequestContext, siteId: string) {
      await siteOr404(db, ctx.orgId, siteId);
      const rows = await store.schedules(db, ctx.orgId, siteId);
      const inForce = await store.inForce(db, ctx.orgId, siteId, clock.now());
      return { schedules: rows.map(scheduleView), in_force: inForce?.version ?? null };
    },

    async createSchedule(
      ctx: RequestContext,
      siteId: string,
      body: {
        energy_p_per_kwh: string;
        time_p_per_minute?: string;
        connection_fee_p?: string;
        overstay_p_per_minute?: string;
        overstay_grace_minutes?: number;
        vat_percent?: string;
        bands?: { start: string; end: string; energy_p_per_kwh: string }[];
        note?: string;
      },
    ) {
      const bands = body.bands ?? [];
      const problems = bandProblems(bands);
      if (problems.length) throw hubErrors.bands(problems);
      for (const [k, v] of Object.entries({
        energy_p_per_kwh: body.energy_p_per_kwh,
        time_p_per_minute: body.time_p_per_minute,
        connection_fee_p: body.connection_fee_p,
        overstay_p_per_minute: body.overstay_p_per_minute,
      })) {
        if (v !== undefined && v.startsWith('-')) throw hubErrors.field([k], 'Prices are not negative', v);
      }
      bands.forEach((b, i) => {
        if (b.energy_p_per_kwh.startsWith('-')) throw hubErrors.field(['bands', i, 'energy_p_per_kwh'], 'Prices are not negative', b.energy_p_per_kwh);
      });
      return db.tx(async (q) => {
        if (!(await store.site(q, ctx.orgId, siteId, true))) throw hubErrors.siteNotFound();
        const row = await store.insertSchedule(
          q,
          ctx.orgId,
          siteId,
          {
            energy_p_per_kwh: body.energy_p_per_kwh,
            time_p_per_minute: body.time_p_per_minute ?? '0',
            connection_fee_p: body.connection_fee_p ?? '0',
            overstay_p_per_minute: body.overstay_p_per_minute ?? '0',
            overstay_grace_minutes: body.overstay_grace_minutes ?? 10,
            vat_percent: body.vat_percent ?? '20',
            bands,
            note: body.note ?? null,
          },
          clock.now(),
        );
        await deps.audit.record(q, ctx, { action: 'hub.price_schedule.create', targetType: 'hub_site', targetId: siteId, details: { version: row.version } });
        return scheduleView(row);
      });
    },

    async publish(ctx: RequestContext, siteId: string, version: number) {
      return db.tx(async (q) => {
        if (!(await store.site(q, ctx.orgId, siteId, true))) throw hubErrors.siteNotFound();
        const cur = await store.schedule(q, ctx.orgId, siteId, version, true);
        if (!cur) throw hubErrors.scheduleNotFound();
        if (cur.status === 'published') throw hubErrors.alreadyPublished();
        const row = await store.publish(q, ctx.orgId, siteId, version, clock.now());
        await deps.audit.record(q, ctx, { action: 'hub.price_schedule.publish', targetType: 'hub_site', targetId: siteId, details: { version } });
        return scheduleView(row);
      });
    },

    async quote(ctx: RequestContext, siteId: string, query: { energy_kwh: string; duration_minutes: number; start?: string; overstay_minutes?: number }) {
      await siteOr404(db, ctx.orgId, siteId);
      const now = clock.now();
      const start = query.start ? new Date(query.start) : now;
      // A start ahead is priced at the schedule drivers see now; a past one at the schedule then.
      const sched = await store.inForce(db, ctx.orgId, siteId, start.getTime() > now.getTime() ? now : start);
      if (!sched) throw hubErrors.noPublishedSchedule();
      const startMs = start.getTime();
      const stopMs = startMs + query.duration_minutes * 60_000;
      const wh = Math.round(Number(query.energy_kwh) * 1000);
      const overstay = (query.overstay_minutes ?? 0) * 60_000;
      // Connected for the duration plus the stated overstay; the overstay is charged beyond the grace period.
      const c = costSession(
        toSchedule(sched),
        [
          { t: startMs, wh: 0 },
          { t: stopMs, wh },
        ],
        startMs,
        stopMs + overstay,
        overstay,
      );
      return { site_id: siteId, start: isoTime(start), ...c, data_basis: { basis: 'calculated' as const, method: QUOTE_METHOD } };
    },
  };
}
