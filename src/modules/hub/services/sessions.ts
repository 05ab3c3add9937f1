// Charging sessions (transactions) of a site and each one's cost under the schedule in force at its start.
import { pageAfter } from '../../../platform/cursor.ts';
import type { RequestContext } from '../../../platform/operation.ts';
import { hubStore as store } from '../store.ts';
import { costSession, COST_METHOD } from '../tariff.ts';
import { hubErrors } from '../errors.ts';
import { anomalyView, CLOCK_TOLERANCE_MS } from '../meter-rules.ts';
import { type HubDeps, siteOr404, toSchedule, txView } from './shared.ts';

export function createSessionService(deps: HubDeps) {
  const { db, clock, cursors } = deps;
  return {
    async transactions(ctx: RequestContext, siteId: string, query: { limit?: number; cursor?: string }) {
      await siteOr404(db, ctx.orgId, siteId);
      const limit = query.limit ?? 50;
      const binding = { op: 'listHubTransactions', orgId: ctx.orgId, filters: { site_id: siteId } };
      const paged = pageAfter(cursors, binding, query.cursor, limit);
      const page = paged.page(await store.transactionsPage(db, ctx.orgId, siteId, paged.after, limit), (r) => ({ t: r.pos, id: r.transaction_id }));
      return { transactions: page.items.map(txView), next_cursor: page.next_cursor, has_more: page.has_more };
    },

    async cost(ctx: RequestContext, txId: string) {
      const tx = await store.transaction(db, ctx.orgId, txId);
      if (!tx) throw hubErrors.transactionNotFound();
      if (tx.schedule_version === null) throw hubErrors.noScheduleAtStart();
      const sched = await store.schedule(db, ctx.orgId, tx.site_id, tx.schedule_version);
      if (!sched) throw hubErrors.noScheduleAtStart();
      // The accepted samples within the transaction and not ahead of the clock (meter-rules.ts): rows
      // stored before the rules were judged when read.
      const startMs = tx.started_at.getTime();
      const stopMs = Math.min((tx.stopped_at ?? tx.last_meter_at ?? clock.now()).getTime(), clock.now().getTime() + CLOCK_TOLERANCE_MS);
      const samples = (await store.billedSamples(db, ctx.orgId, txId, tx.started_at, new Date(Math.max(startMs, stopMs)))).map((s) => ({
        t: s.ts.getTime(),
        wh: Number(s.wh),
      }));
      const lastRise = tx.energy_last_increase_at?.getTime() ?? startMs;
      const c = costSession(toSchedule(sched), samples, startMs, stopMs, tx.stopped_at ? Math.max(0, stopMs - lastRise) : 0);
      return {
        transaction_id: txId,
        status: tx.stopped_at ? ('stopped' as const) : ('open' as const),
        ...c,
        meter_anomalies: anomalyView(tx.meter_anomalies),
        data_basis: { basis: 'calculated' as const, method: COST_METHOD },
      };
    },
  };
}
