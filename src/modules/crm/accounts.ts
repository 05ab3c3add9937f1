// CRM accounts: the organisations a sales team works with; one with contacts or deals stays.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { AuditLog } from '../audit/index.ts';
import { crmErrors } from './errors.ts';
import { type ListQuery, must, type Pages, views } from './records.ts';
import type { Static } from 'typebox';
import type * as S from './schemas.ts';
import { crmStore } from './store.ts';

export function createAccounts(deps: { db: Db; clock: Clock; audit: AuditLog; pages: Pages }) {
  const { db, clock, audit, pages } = deps;
  return {
    listAccounts: (ctx: RequestContext, query: ListQuery & { kind?: string }) =>
      pages.page(ctx, 'account', 'listCrmAccounts', query, { kind: query.kind }, 'created_at').then((p) => ({
        accounts: p.items.map(views.account),
        next_cursor: p.next_cursor,
        has_more: p.has_more,
      })),
    async createAccount(ctx: RequestContext, body: Static<typeof S.AccountBody>) {
      const now = clock.now();
      return db.tx(async (q) => {
        const row = await crmStore.insert(q, 'account', ctx.orgId, {
          id: `acc_${randomUUID()}`,
          name: body.name,
          domain: body.domain ?? null,
          kind: body.kind ?? 'prospect',
          notes: body.notes ?? null,
          created_at: now,
          updated_at: now,
        });
        await audit.record(q, ctx, { action: 'crm.account.create', targetType: 'crm_account', targetId: row.id });
        return views.account(row);
      });
    },
    getAccount: async (ctx: RequestContext, id: string) => views.account(await must(db, 'account', ctx.orgId, id)),
    async patchAccount(ctx: RequestContext, id: string, body: Static<typeof S.AccountPatch>) {
      return db.tx(async (q) => {
        await must(q, 'account', ctx.orgId, id, true);
        const row = await crmStore.update(q, 'account', ctx.orgId, id, { ...body, updated_at: clock.now() });
        await audit.record(q, ctx, { action: 'crm.account.update', targetType: 'crm_account', targetId: id, details: { fields: Object.keys(body) } });
        return views.account(row!);
      });
    },
    async deleteAccount(ctx: RequestContext, id: string) {
      await db.tx(async (q) => {
        await must(q, 'account', ctx.orgId, id, true);
        const contacts = await crmStore.count(q, 'contact', ctx.orgId, 'account_id', id);
        const deals = await crmStore.count(q, 'deal', ctx.orgId, 'account_id', id);
        if (contacts || deals) throw crmErrors.accountInUse(contacts, deals);
        await crmStore.remove(q, 'account', ctx.orgId, id);
        await audit.record(q, ctx, { action: 'crm.account.delete', targetType: 'crm_account', targetId: id });
      });
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
