// CRM contacts: the people of accounts (personal data). A suppressed address or number comes in
// opted out, and every name, address and number a contact held is remembered for erasure
// (decision 0295). Opt-out, erasure, outreach and retention: privacy.ts.
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { AuditLog } from '../audit/index.ts';
import { crmErrors } from './errors.ts';
import { normaliseEmail, suppressionKeys } from './identity.ts';
import { auditActor, type Caller, type ListQuery, must, type Pages, ref, views } from './records.ts';
import type { CrmSettings } from './settings.ts';
import type { Static } from 'typebox';
import type * as S from './schemas.ts';
import { type Columns, type ContactRow, crmStore } from './store.ts';

/** Records the name, address and number a contact holds now among those it ever held. */
export async function remember(q: Queryable, orgId: string, contactId: string, c: ContactRow, now: Date) {
  const values: { kind: 'name' | 'email' | 'phone'; value: string }[] = [];
  for (const kind of ['name', 'email', 'phone'] as const) {
    const value = c[kind];
    if (value) values.push({ kind, value });
  }
  await crmStore.addIdentities(q, orgId, contactId, values, now);
}

export function createContacts(deps: { db: Db; clock: Clock; audit: AuditLog; pages: Pages; settings: CrmSettings }) {
  const { db, clock, audit, pages, settings } = deps;
  return {
    listContacts: (ctx: RequestContext, query: ListQuery & { account_id?: string; include_erased?: boolean }) =>
      pages
        .page(ctx, 'contact', 'listCrmContacts', query, { account_id: query.account_id }, 'created_at', query.include_erased ? undefined : 'erased_at is null')
        .then((p) => ({
          contacts: p.items.map(views.contact),
          next_cursor: p.next_cursor,
          has_more: p.has_more,
        })),
    /** In the caller's transaction `q0` when given (import, intake), else in its own. */
    async createContact(ctx: Caller, body: Static<typeof S.ContactBody>, q0?: Queryable) {
      const orgId = ctx.orgId;
      const run = async (q: Queryable) => {
        await ref(q, 'account', orgId, body.account_id, 'account_id');
        const s = await settings.row(q, orgId);
        const now = clock.now();
        // A suppressed address or number comes in opted out: nothing re-subscribes it.
        const isSuppressed = await crmStore.suppressed(q, orgId, suppressionKeys(s.salt, body));
        const row = await crmStore.insert(q, 'contact', orgId, {
          id: `con_${randomUUID()}`,
          account_id: body.account_id ?? null,
          name: body.name,
          email: body.email ? normaliseEmail(body.email) : null,
          phone: body.phone ?? null,
          job_title: body.job_title ?? null,
          opted_out_at: isSuppressed ? now : null,
          created_at: now,
          updated_at: now,
        });
        await remember(q, orgId, row.id, row, clock.now());
        await audit.record(q, auditActor(ctx), {
          action: 'crm.contact.create',
          targetType: 'crm_contact',
          targetId: row.id,
          details: { email: row.email, suppressed: isSuppressed },
        });
        return views.contact(row);
      };
      return q0 ? run(q0) : db.tx(run);
    },
    getContact: async (ctx: RequestContext, id: string) => views.contact(await must(db, 'contact', ctx.orgId, id)),
    async patchContact(ctx: RequestContext, id: string, body: Static<typeof S.ContactPatch>) {
      return db.tx(async (q) => {
        const c = await must(q, 'contact', ctx.orgId, id, true);
        if (c.erased_at) throw crmErrors.erased();
        await ref(q, 'account', ctx.orgId, body.account_id, 'account_id');
        const set: Columns<'contact'> = { ...body, updated_at: clock.now() };
        if (body.email) set.email = normaliseEmail(body.email);
        // A new address or number that is suppressed makes the contact opted out.
        if (!c.opted_out_at && (body.email || body.phone)) {
          const s = await settings.row(q, ctx.orgId);
          if (await crmStore.suppressed(q, ctx.orgId, suppressionKeys(s.salt, { email: body.email, phone: body.phone }))) set.opted_out_at = clock.now();
        }
        const row = await crmStore.update(q, 'contact', ctx.orgId, id, set);
        // Earlier values stay known to erasure (those held before the history existed included).
        await remember(q, ctx.orgId, id, c, clock.now());
        await remember(q, ctx.orgId, id, row!, clock.now());
        await audit.record(q, ctx, { action: 'crm.contact.update', targetType: 'crm_contact', targetId: id, details: { fields: Object.keys(body) } });
        return views.contact(row!);
      });
    },
  };
}

export type Contacts = ReturnType<typeof createContacts>;
