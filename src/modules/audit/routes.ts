// Audit log reads for organisation administrators: a cursor-paginated page, the catalogue of
// actions, and a streamed CSV export. Each reads only the caller's organisation.
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { BEARER, withDefaults } from '../../platform/operation.ts';
import type { AppDeps } from '../../platform/module.ts';
import { errors, fieldError } from '../../platform/errors.ts';
import { pageAfter } from '../../platform/cursor.ts';
import { createAuditReadStore, type AuditFilters, type AuditRow } from './store.ts';
import { AUDIT_ACTIONS } from './actions.ts';
import { csvRecord } from '../../kit/csv.ts';
import { AUDIT_LOG } from './log.ts';
import { Nullable } from '../../platform/schema-kit.ts';

const tags = ['audit'];

const FilterProps = {
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Exact action, e.g. `auth.login`' })),
  actor: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Actor id (user id or API key id)' })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'From this instant (inclusive)' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Before this instant (exclusive)' })),
};

const Entry = Type.Object({
  id: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  action: Type.String(),
  actor_type: Type.String({ description: '`user`, `api_key`, `system` or `anonymous`' }),
  actor_id: Nullable(Type.String()),
  target_type: Nullable(Type.String()),
  target_id: Nullable(Type.String()),
  details: Type.Object({}, { additionalProperties: true, description: 'Ids, changed fields, reasons; never secrets' }),
  request_id: Nullable(Type.String()),
  source_ip: Nullable(Type.String()),
});

const CSV_COLUMNS = ['id', 'created_at', 'action', 'actor_type', 'actor_id', 'target_type', 'target_id', 'details', 'request_id', 'source_ip'] as const;
const EXPORT_BATCH = 500;

function filtersOf(q: AuditFilters): AuditFilters {
  if (q.since && q.until && Date.parse(q.since) >= Date.parse(q.until)) {
    throw errors.validation([fieldError(['query', 'until'], 'until must be after since', q.until)]);
  }
  return { action: q.action, actor: q.actor, since: q.since, until: q.until };
}

const entryOf = (r: AuditRow) => ({
  id: r.id,
  created_at: r.created_at.toISOString(),
  action: r.action,
  actor_type: r.actor_type,
  actor_id: r.actor_id,
  target_type: r.target_type,
  target_id: r.target_id,
  details: r.details ?? {},
  request_id: r.request_id,
  source_ip: r.source_ip,
});

const op = withDefaults({ tags, status: 'live', access: BEARER.admin, dataBasis: { basis: 'stored' } });

export function auditOperations(deps: AppDeps) {
  const { db, cursors } = deps;
  const audit = deps.services.get(AUDIT_LOG);
  const store = createAuditReadStore(db);

  return [
    op({
      operationId: 'listAuditLog',
      method: 'GET',
      path: '/api/hardware/admin/audit-log',
      summary: "A page of the organisation's audit log, newest first",
      description:
        'Organisation administrators only. Filters: `action`, `actor`, `since`, `until`. Follow `next_cursor` ' +
        'until null; a cursor works only with the filters it was made with (otherwise 400 `invalid_cursor`).',
      schema: {
        query: Type.Object({
          ...FilterProps,
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
          cursor: Type.Optional(Type.String({ maxLength: 512 })),
        }),
        response: {
          200: Type.Object({ entries: Type.Array(Entry), next_cursor: Nullable(Type.String()), has_more: Type.Boolean() }),
        },
      },
      handler: async ({ query, ctx }) => {
        const filters = filtersOf(query);
        const binding = { op: 'listAuditLog', orgId: ctx.orgId, filters };
        const limit = query.limit ?? 50;
        const paged = pageAfter(cursors, binding, query.cursor, limit);
        const page = paged.page(await store.page(ctx.orgId, filters, paged.after ?? null, limit + 1), (r) => ({ t: r.pos, id: r.id }));
        return { entries: page.items.map(entryOf), next_cursor: page.next_cursor, has_more: page.has_more };
      },
    }),
    op({
      operationId: 'listAuditActions',
      method: 'GET',
      path: '/api/hardware/admin/audit-log/actions',
      summary: 'Catalogue of recorded audit actions',
      description:
        'Organisation administrators only. Every action the service records, with a description, plus any other ' +
        "action present in the organisation's log; `count` and `last_recorded_at` are for this organisation.",
      schema: {
        response: {
          200: Type.Object({
            actions: Type.Array(
              Type.Object({
                action: Type.String(),
                description: Nullable(Type.String()),
                count: Type.Integer(),
                last_recorded_at: Nullable(Type.String({ format: 'date-time' })),
              }),
            ),
          }),
        },
      },
      handler: async ({ ctx }) => {
        const seen = new Map((await store.actions(ctx.orgId)).map((a) => [a.action, a]));
        const described = new Map(AUDIT_ACTIONS.map((a) => [a.action, a.description]));
        const names = [...new Set([...described.keys(), ...seen.keys()])].sort();
        return {
          actions: names.map((action) => ({
            action,
            description: described.get(action) ?? null,
            count: seen.get(action)?.count ?? 0,
            last_recorded_at: seen.get(action)?.last_recorded_at.toISOString() ?? null,
          })),
        };
      },
    }),
    op({
      operationId: 'exportAuditLogCsv',
      method: 'GET',
      path: '/api/hardware/admin/audit-log/export.csv',
      summary: "The organisation's audit log as CSV",
      description:
        'Organisation administrators only. Streamed `text/csv` (RFC 4180, CRLF line ends, header row), newest ' +
        'first, with the same filters as the page. `details` is a JSON text column. Text that a spreadsheet would ' +
        'run as a formula is prefixed with an apostrophe. The export itself is audited (`audit.export`).',
      produces: 'text/csv',
      schema: {
        query: Type.Object(FilterProps),
        response: { 200: Type.String({ description: 'CSV text with a header row' }) },
      },
      handler: async ({ query, ctx, reply }) => {
        const filters = filtersOf(query);
        await audit.record(db, ctx, { action: 'audit.export', details: { format: 'csv', filters } });
        async function* rows() {
          yield csvRecord([...CSV_COLUMNS]);
          let after: { t: string; id: string } | null = null;
          for (;;) {
            const batch = await store.page(ctx.orgId, filters, after, EXPORT_BATCH);
            for (const r of batch) {
              const e = entryOf(r);
              yield csvRecord(CSV_COLUMNS.map((c) => e[c]));
            }
            if (batch.length < EXPORT_BATCH) return;
            const last = batch[batch.length - 1];
            after = { t: last.pos, id: last.id };
          }
        }
        reply.type('text/csv; charset=utf-8');
        reply.header('Content-Disposition', 'attachment; filename="audit-log.csv"');
        return Readable.from(rows());
      },
    }),
  ];
}
