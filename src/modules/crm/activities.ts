// CRM activities: calls, meetings, e-mails and notes against an account, a contact or a deal; an
// activity with a contact marks when the person last engaged (retention reads it).
import { randomUUID } from 'node:crypto';
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { AuditLog } from '../audit/index.ts';
import { crmErrors } from './errors.ts';
import { type ListQuery, must, type Pages, ref, views } from './records.ts';
import type { Static } from 'typebox';
import type * as S from './schemas.ts';
import { crmStore } from './store.ts';

export function createActivities(deps: { db: Db; clock: Clock; audit: AuditLog; pages: Pages }) {
  const { db, clock, audit, pages } = deps;
  return {
    listActivities: (ctx: RequestContext, query: ListQuery & { account_id?: string; contact_id?: string; deal_id?: string; kind?: string }) =>
      pages
        .page(
          ctx,
          'activity',
          'listCrmActivities',
          query,
          { account_id: query.account_id, contact_id: query.contact_id, deal_id: query.deal_id, kind: query.kind },
          'occurred_at',
        )
        .then((p) => ({
          activities: p.items.map(views.activity),
          next_cursor: p.next_cursor,
          has_more: p.has_more,
        })),
    async createActivity(ctx: RequestContext, body: Static<typeof S.ActivityBody>) {
      if (!body.account_id && !body.contact_id && !body.deal_id)
        throw crmErrors.field(['account_id'], 'An activity names an account, a contact or a deal', null);
      return db.tx(async (q) => {
        await ref(q, 'account', ctx.orgId, body.account_id, 'account_id');
        await ref(q, 'contact', ctx.orgId, body.contact_id, 'contact_id');
        await ref(q, 'deal', ctx.orgId, body.deal_id, 'deal_id');
        const now = clock.now();
        const at = body.occurred_at ? new Date(body.occurred_at) : now;
        const row = await crmStore.insert(q, 'activity', ctx.orgId, {
          id: `act_${randomUUID()}`,
          kind: body.kind,
          account_id: body.account_id ?? null,
          contact_id: body.contact_id ?? null,
          deal_id: body.deal_id ?? null,
          subject: body.subject,
          body: body.body ?? null,
          occurred_at: at,
          created_at: now,
        });
        if (body.contact_id) await crmStore.touchContact(q, ctx.orgId, body.contact_id, at);
        await audit.record(q, ctx, { action: 'crm.activity.create', targetType: 'crm_activity', targetId: row.id });
        return views.activity(row);
      });
    },
    async deleteActivity(ctx: RequestContext, id: string) {
      await db.tx(async (q) => {
        await must(q, 'activity', ctx.orgId, id, true);
        await crmStore.remove(q, 'activity', ctx.orgId, id);
        await audit.record(q, ctx, { action: 'crm.activity.delete', targetType: 'crm_activity', targetId: id });
      });
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
