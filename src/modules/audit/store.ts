// Reads of the audit log, always within one organisation, newest first (time, then id).
import { sqlExportable, type ExportableCollection } from '../../platform/exportable.ts';
import type { Queryable } from '../../infra/db/index.ts';

export interface AuditFilters {
  action?: string;
  actor?: string;
  since?: string;
  until?: string;
}

export interface AuditRow {
  id: string;
  /** created_at with microseconds, for the cursor. */
  pos: string;
  created_at: Date;
  actor_type: string;
  actor_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: Record<string, unknown>;
  request_id: string | null;
  source_ip: string | null;
}

const COLS = `id::text as id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as pos, created_at,
  actor_type, actor_id, action, target_type, target_id, details, request_id, source_ip`;

function where(orgId: string, f: AuditFilters, after: { t: string; id: string } | null) {
  const params: unknown[] = [orgId];
  const conds = ['org_id = $1'];
  const add = (sql: string, v: unknown) => {
    params.push(v);
    conds.push(sql.replace('?', `$${params.length}`));
  };
  if (f.action) add('action = ?', f.action);
  if (f.actor) add('actor_id = ?', f.actor);
  if (f.since) add('created_at >= ?::timestamptz', f.since);
  if (f.until) add('created_at < ?::timestamptz', f.until);
  if (after) {
    params.push(after.t, after.id);
    conds.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::bigint)`);
  }
  return { sql: conds.join(' and '), params };
}

export function createAuditReadStore(db: Queryable) {
  return {
    /** Up to `limit` rows after the position (exclusive), newest first. */
    async page(orgId: string, f: AuditFilters, after: { t: string; id: string } | null, limit: number): Promise<AuditRow[]> {
      const w = where(orgId, f, after);
      const r = await db.query<AuditRow>(`select ${COLS} from audit_log where ${w.sql} order by created_at desc, id desc limit ${Math.floor(limit)}`, w.params);
      return r.rows;
    },

    /** Every action present in the organisation's log, with how often and when last. */
    async actions(orgId: string): Promise<{ action: string; count: number; last_recorded_at: Date }[]> {
      const r = await db.query<{ action: string; count: number; last_recorded_at: Date }>(
        `select action, count(*)::int as count, max(created_at) as last_recorded_at
         from audit_log where org_id = $1 group by action order by action`,
        [orgId],
      );
      return r.rows;
    },
  };
}

// ---- Export (the module declares them in its manifest: ModuleDefinition.exportable) ----------
/** The organisation's audit log for its export (decision 0206): rows as JSON text from the database. */
export const auditExportables: ExportableCollection[] = [
  sqlExportable({
    name: 'audit.log',
    description:
      "The organisation's audit log: sign-ins, refusals that matter and every configuration write, with actor, target, details, request id and address.",
    table: 'audit_log',
    columns: ['id:text', 'created_at:iso', 'action', 'actor_type', 'actor_id', 'target_type', 'target_id', 'details', 'request_id', 'source_ip'],
    period: 'created_at',
    key: ['id:bigint'],
  }),
];
