// What every CRM service shares: the API view of each record kind, finding a record of the
// caller's organisation (404) or a reference in a body (422), and keyset pages.
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { CursorCodec, Page } from '../../platform/cursor.ts';
import { pageAfter } from '../../platform/cursor.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import { crmErrors } from './errors.ts';
import { randomUUID } from 'node:crypto';
import {
  type AccountRow,
  type ActivityRow,
  type Columns,
  type ContactRow,
  crmStore,
  type DealRow,
  type Kind,
  type MoveRow,
  type RowOf,
  type TaskRow,
} from './store.ts';

/** A caller inside the service: a request, or the system (public intake) acting for an organisation. */
export type Caller = RequestContext | { orgId: string; system: true };

/** The audit log's actor of a caller. */
export const auditActor = (ctx: Caller) => ('system' in ctx ? { orgId: ctx.orgId, actorType: 'system' as const, actorId: null } : ctx);

/** Who moved a deal: the person or the API key. */
/** A new deal stored with its first move (into its stage from none, at its creation): how every deal starts, made by hand or imported. */
export async function insertDeal(
  q: Queryable,
  orgId: string,
  deal: Columns<'deal'> & { stage: string; created_at: Date },
  move: { reason: string | null; movedBy: string | null },
): Promise<DealRow> {
  const row = await crmStore.insert(q, 'deal', orgId, deal);
  await crmStore.addMove(q, orgId, {
    id: `mv_${randomUUID()}`,
    deal_id: row.id,
    from_stage: null,
    to_stage: deal.stage,
    reason: move.reason,
    moved_by: move.movedBy,
    moved_at: deal.created_at,
  });
  return row;
}

export const userOf = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : ctx.actor.kind === 'key' ? ctx.actor.keyId : null);

const dateOnly = (d: unknown) => (d === null || d === undefined ? null : d instanceof Date ? d.toISOString().slice(0, 10) : String(d).slice(0, 10));

/** The API view of each record kind (schemas.ts). */
export const views = {
  account: (r: AccountRow) => ({
    id: r.id,
    name: r.name,
    domain: r.domain,
    kind: r.kind,
    notes: r.notes,
    created_at: isoTime(r.created_at),
    updated_at: isoTime(r.updated_at),
  }),
  contact: (r: ContactRow) => ({
    id: r.id,
    account_id: r.account_id,
    name: r.name,
    email: r.email,
    phone: r.phone,
    job_title: r.job_title,
    opted_out: r.opted_out_at !== null,
    opted_out_at: isoTimeOrNull(r.opted_out_at),
    erased: r.erased_at !== null,
    erased_at: isoTimeOrNull(r.erased_at),
    last_engaged_at: isoTimeOrNull(r.last_engaged_at),
    created_at: isoTime(r.created_at),
    updated_at: isoTime(r.updated_at),
  }),
  deal: (r: DealRow) => ({
    id: r.id,
    account_id: r.account_id,
    contact_id: r.contact_id,
    title: r.title,
    value: String(r.value),
    currency: r.currency,
    stage: r.stage,
    expected_close: dateOnly(r.expected_close),
    created_at: isoTime(r.created_at),
    updated_at: isoTime(r.updated_at),
  }),
  activity: (r: ActivityRow) => ({
    id: r.id,
    kind: r.kind,
    account_id: r.account_id,
    contact_id: r.contact_id,
    deal_id: r.deal_id,
    subject: r.subject,
    body: r.body,
    occurred_at: isoTime(r.occurred_at),
    created_at: isoTime(r.created_at),
  }),
  task: (r: TaskRow) => ({
    id: r.id,
    title: r.title,
    due_at: isoTime(r.due_at),
    account_id: r.account_id,
    contact_id: r.contact_id,
    deal_id: r.deal_id,
    assignee_id: r.assignee_id,
    done: r.done_at !== null,
    done_at: isoTimeOrNull(r.done_at),
    created_at: isoTime(r.created_at),
    updated_at: isoTime(r.updated_at),
  }),
} satisfies { [K in Kind]: (r: RowOf[K]) => object };

export function moveView(m: MoveRow) {
  return { from: m.from_stage, to: m.to_stage, reason: m.reason, moved_by: m.moved_by, moved_at: isoTime(m.moved_at) };
}

const NAMES: Record<Kind, string> = { account: 'Account', contact: 'Contact', deal: 'Deal', activity: 'Activity', task: 'Task' };

/** A record of the organisation, or 404 naming its kind. */
export async function must<K extends Kind>(q: Queryable, kind: K, orgId: string, id: string, lock = false): Promise<RowOf[K]> {
  const row = await crmStore.get(q, kind, orgId, id, lock);
  if (!row) throw crmErrors.notFound(NAMES[kind]);
  return row;
}

/** A reference in a body: 422 naming the member when it is not one of the organisation's rows. */
export async function ref(q: Queryable, kind: Kind, orgId: string, id: string | null | undefined, member: string) {
  if (id === undefined || id === null) return;
  if (!(await crmStore.get(q, kind, orgId, id))) throw crmErrors.field([member], `No ${kind} ${id} in this organisation`, id);
}

/** A list's paging parameters. */
export interface ListQuery {
  limit?: number;
  cursor?: string;
}

export interface Pages {
  /** A page of `kind`, newest first by `order`, the cursor bound to the operation and its filters. */
  page<K extends Kind>(
    ctx: RequestContext,
    kind: K,
    op: string,
    query: ListQuery,
    filters: Record<string, unknown>,
    order: keyof RowOf[K] & ('created_at' | 'occurred_at' | 'due_at'),
    extra?: string,
  ): Promise<Page<RowOf[K]>>;
}

export function createPages(deps: { db: Db; cursors: CursorCodec }): Pages {
  const { db, cursors } = deps;
  return {
    async page(ctx, kind, op, query, filters, order, extra) {
      const limit = query.limit ?? 50;
      const binding = { op, orgId: ctx.orgId, filters };
      const { after, page } = pageAfter(cursors, binding, query.cursor, limit);
      const rows = await crmStore.list(db, kind, ctx.orgId, { order, filters, limit, ...(after && { after }), ...(extra && { extra }) });
      return page(rows, (r) => ({ t: isoTime(r[order] as Date), id: r.id }));
    },
  };
}
