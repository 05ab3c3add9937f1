// CRM tasks: follow-ups with a due time and an assignee, done or not, and the list of those due soon.
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import type { AuditLog } from '../audit/index.ts';
import { auditActor, type Caller, type ListQuery, must, type Pages, ref, views } from './records.ts';
import type { Static } from 'typebox';
import type * as S from './schemas.ts';
import { type Columns, crmStore } from './store.ts';

export function createTasks(deps: { db: Db; clock: Clock; audit: AuditLog; pages: Pages }) {
  const { db, clock, audit, pages } = deps;
  return {
    listTasks: (ctx: RequestContext, query: ListQuery & { account_id?: string; deal_id?: string; assignee_id?: string; done?: boolean }) => {
      const extra = query.done === undefined ? undefined : query.done ? 'done_at is not null' : 'done_at is null';
      return pages
        .page(
          ctx,
          'task',
          'listCrmTasks',
          query,
          { account_id: query.account_id, deal_id: query.deal_id, assignee_id: query.assignee_id, ...(query.done !== undefined && {}) },
          'created_at',
          extra,
        )
        .then((p) => ({ tasks: p.items.map(views.task), next_cursor: p.next_cursor, has_more: p.has_more }));
    },
    /** In the caller's transaction `q0` when given (intake), else in its own. */
    async createTask(ctx: Caller, body: Static<typeof S.TaskBody>, q0?: Queryable) {
      const orgId = ctx.orgId;
      const run = async (q: Queryable) => {
        await ref(q, 'account', orgId, body.account_id, 'account_id');
        await ref(q, 'contact', orgId, body.contact_id, 'contact_id');
        await ref(q, 'deal', orgId, body.deal_id, 'deal_id');
        const now = clock.now();
        const row = await crmStore.insert(q, 'task', orgId, {
          id: `task_${randomUUID()}`,
          title: body.title,
          due_at: new Date(body.due_at),
          account_id: body.account_id ?? null,
          contact_id: body.contact_id ?? null,
          deal_id: body.deal_id ?? null,
          assignee_id: body.assignee_id ?? null,
          created_at: now,
          updated_at: now,
        });
        await audit.record(q, auditActor(ctx), { action: 'crm.task.create', targetType: 'crm_task', targetId: row.id });
        return views.task(row);
      };
      return q0 ? run(q0) : db.tx(run);
    },
    async patchTask(ctx: RequestContext, id: string, body: Static<typeof S.TaskPatch>) {
      return db.tx(async (q) => {
        const t = await must(q, 'task', ctx.orgId, id, true);
        const now = clock.now();
        const set: Columns<'task'> = { updated_at: now };
        if (body.title !== undefined) set.title = body.title;
        if (body.due_at !== undefined) set.due_at = new Date(body.due_at);
        if (body.assignee_id !== undefined) set.assignee_id = body.assignee_id;
        if (body.done !== undefined) set.done_at = body.done ? (t.done_at ?? now) : null;
        const row = await crmStore.update(q, 'task', ctx.orgId, id, set);
        await audit.record(q, ctx, { action: 'crm.task.update', targetType: 'crm_task', targetId: id, details: { fields: Object.keys(body) } });
        return views.task(row!);
      });
    },
    async dueTasks(ctx: RequestContext, query: { within_hours?: number }) {
      const now = clock.now();
      const until = new Date(now.getTime() + (query.within_hours ?? 24) * 3_600_000);
      const rows = await crmStore.list(db, 'task', ctx.orgId, {
        order: 'due_at',
        filters: {},
        limit: 500,
        asc: true,
        extra: `done_at is null and due_at <= '${until.toISOString()}'::timestamptz`,
      });
      return {
        as_of: isoTime(now),
        until: isoTime(until),
        tasks: rows.slice(0, 500).map((r) => ({ ...views.task(r), overdue: r.due_at.getTime() < now.getTime() })),
      };
    },
  };
}

export type Tasks = ReturnType<typeof createTasks>;
