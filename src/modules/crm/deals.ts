// CRM deals and their stage machine: a deal starts in an open stage, moves between stages with a
// reason, and stays once won or lost; every move is kept.
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { AuditLog } from '../audit/index.ts';
import { crmErrors } from './errors.ts';
import { insertDeal, type ListQuery, moveView, must, type Pages, ref, userOf, views } from './records.ts';
import { type CrmSettings, LOST, stagesOf, WON } from './settings.ts';
import type { Static } from 'typebox';
import type * as S from './schemas.ts';
import { crmStore, type DealRow } from './store.ts';

export function createDeals(deps: { db: Db; clock: Clock; audit: AuditLog; pages: Pages; settings: CrmSettings }) {
  const { db, clock, audit, pages, settings } = deps;
  /** The deal with its moves, read in `q`. */
  const withMoves = async (q: Queryable, orgId: string, row: DealRow) => ({
    ...views.deal(row),
    moves: (await crmStore.moves(q, orgId, row.id)).map(moveView),
  });

  return {
    listDeals: (ctx: RequestContext, query: ListQuery & { account_id?: string; stage?: string }) =>
      pages.page(ctx, 'deal', 'listCrmDeals', query, { account_id: query.account_id, stage: query.stage }, 'created_at').then((p) => ({
        deals: p.items.map(views.deal),
        next_cursor: p.next_cursor,
        has_more: p.has_more,
      })),
    async createDeal(ctx: RequestContext, body: Static<typeof S.DealBody> & { currency?: string }) {
      return db.tx(async (q) => {
        await ref(q, 'account', ctx.orgId, body.account_id, 'account_id');
        await ref(q, 'contact', ctx.orgId, body.contact_id, 'contact_id');
        const stages = stagesOf(await settings.row(q, ctx.orgId));
        const stage = body.stage ?? stages[0]!.name;
        if (!stages.some((s) => s.name === stage && !s.final))
          throw crmErrors.field(
            ['stage'],
            `A deal starts in an open stage: ${stages
              .filter((s) => !s.final)
              .map((s) => s.name)
              .join(', ')}`,
            stage,
          );
        const now = clock.now();
        const row = await insertDeal(
          q,
          ctx.orgId,
          {
            id: `deal_${randomUUID()}`,
            account_id: body.account_id,
            contact_id: body.contact_id ?? null,
            title: body.title,
            value: body.value,
            currency: body.currency ?? 'GBP',
            stage,
            expected_close: body.expected_close ?? null,
            created_at: now,
            updated_at: now,
          },
          { reason: null, movedBy: userOf(ctx) },
        );
        await audit.record(q, ctx, { action: 'crm.deal.create', targetType: 'crm_deal', targetId: row.id });
        return withMoves(q, ctx.orgId, row);
      });
    },
    async getDeal(ctx: RequestContext, id: string) {
      return withMoves(db, ctx.orgId, await must(db, 'deal', ctx.orgId, id));
    },
    async patchDeal(ctx: RequestContext, id: string, body: Static<typeof S.DealPatch>) {
      return db.tx(async (q) => {
        await must(q, 'deal', ctx.orgId, id, true);
        await ref(q, 'contact', ctx.orgId, body.contact_id, 'contact_id');
        const row = await crmStore.update(q, 'deal', ctx.orgId, id, { ...body, updated_at: clock.now() });
        await audit.record(q, ctx, { action: 'crm.deal.update', targetType: 'crm_deal', targetId: id, details: { fields: Object.keys(body) } });
        return withMoves(q, ctx.orgId, row!);
      });
    },
    async deleteDeal(ctx: RequestContext, id: string) {
      await db.tx(async (q) => {
        await must(q, 'deal', ctx.orgId, id, true);
        await crmStore.remove(q, 'deal', ctx.orgId, id);
        await audit.record(q, ctx, { action: 'crm.deal.delete', targetType: 'crm_deal', targetId: id });
      });
    },
    async moveStage(ctx: RequestContext, id: string, body: { stage: string; reason?: string }) {
      return db.tx(async (q) => {
        const deal = await must(q, 'deal', ctx.orgId, id, true);
        const stages = stagesOf(await settings.row(q, ctx.orgId));
        if (!stages.some((s) => s.name === body.stage))
          throw crmErrors.field(['stage'], `Unknown stage; the pipeline has: ${stages.map((s) => s.name).join(', ')}`, body.stage);
        if (deal.stage === WON || deal.stage === LOST) throw crmErrors.stageClosed(deal.stage);
        if (deal.stage === body.stage) throw crmErrors.sameStage(body.stage);
        const now = clock.now();
        const row = await crmStore.update(q, 'deal', ctx.orgId, id, { stage: body.stage, updated_at: now });
        await crmStore.addMove(q, ctx.orgId, {
          id: `mv_${randomUUID()}`,
          deal_id: id,
          from_stage: deal.stage,
          to_stage: body.stage,
          reason: body.reason ?? null,
          moved_by: userOf(ctx),
          moved_at: now,
        });
        await audit.record(q, ctx, { action: 'crm.deal.stage', targetType: 'crm_deal', targetId: id, details: { from: deal.stage, to: body.stage } });
        return withMoves(q, ctx.orgId, row!);
      });
    },
  };
}

export type Deals = ReturnType<typeof createDeals>;
