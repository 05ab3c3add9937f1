// The audit log service: records who did what, inside the caller's transaction (see index.ts).
import type { Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { serviceKey } from '../../platform/services.ts';

export interface AuditEntry {
  /** Dotted verb, e.g. 'auth.login', 'apikey.create', 'twin.asset.update'. */
  action: string;
  targetType?: string;
  targetId?: string;
  /** Never secrets: ids, changed field names, reasons. */
  details?: Record<string, unknown>;
}

/** Who acted, when there is no request context (CLI, jobs). */
export interface AuditActor {
  orgId: string | null;
  actorType: 'user' | 'api_key' | 'device' | 'system' | 'anonymous';
  actorId: string | null;
  requestId?: string | null;
  ip?: string | null;
}

export function actorOf(ctx: RequestContext): AuditActor {
  const a = ctx.actor;
  return {
    orgId: ctx.orgId || null,
    actorType: a.kind === 'user' ? 'user' : a.kind === 'key' ? 'api_key' : a.kind === 'device' ? 'device' : 'anonymous',
    actorId: a.kind === 'user' ? a.userId : a.kind === 'key' ? a.keyId : a.kind === 'device' ? a.credentialId : null,
    requestId: ctx.requestId,
    ip: ctx.ip,
  };
}

export function createAuditLog(clock: Clock) {
  return {
    async record(q: Queryable, who: RequestContext | AuditActor, entry: AuditEntry): Promise<void> {
      const actor = 'actor' in who ? actorOf(who) : who;
      await q.query(
        `insert into audit_log (org_id, actor_type, actor_id, action, target_type, target_id, details, request_id, source_ip, created_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          actor.orgId,
          actor.actorType,
          actor.actorId,
          entry.action,
          entry.targetType ?? null,
          entry.targetId ?? null,
          JSON.stringify(entry.details ?? {}),
          actor.requestId ?? null,
          actor.ip ?? null,
          clock.now(),
        ],
      );
    },
    /**
     * Erasure (a data subject's request, decisions 0221 and 0295): runs `r.redact` over every string
     * (values and keys) in the details of the organisation's entries that may mention the person
     * and writes back what changed. The entries themselves (action, actor, target, time) stay: the
     * log is not hash-chained, so a redacted entry is still the fact it recorded. `r.anchors`
     * picks candidates: every text the redactor changes contains one of `text` once ASCII letters
     * are lower-cased, or one of `digits` once all but digits are dropped (`all`: read every entry).
     * Answers how many entries changed. Run in the erasing transaction.
     */
    async redact(q: Queryable, orgId: string, r: Redactor): Promise<number> {
      const params: unknown[] = [orgId];
      const conds: string[] = [];
      const doc = `details::text`;
      if (r.anchors.all) conds.push('true');
      if (r.anchors.text.length) {
        params.push([...new Set(r.anchors.text)]);
        conds.push(
          `exists (select 1 from unnest($${params.length}::text[]) a where strpos(translate(${doc}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), a) > 0)`,
        );
      }
      if (r.anchors.digits.length) {
        params.push([...new Set(r.anchors.digits)]);
        conds.push(`exists (select 1 from unnest($${params.length}::text[]) a where strpos(regexp_replace(${doc}, '[^0-9]', '', 'g'), a) > 0)`);
      }
      if (!conds.length) return 0;
      let changed = 0;
      let after = '0';
      for (;;) {
        const batch = await q.query<{ id: string; details: unknown }>(
          `select id::text as id, details from audit_log where org_id = $1 and id > $${params.length + 1}::bigint and (${conds.join(' or ')}) order by id limit 500`,
          [...params, after],
        );
        for (const row of batch.rows) {
          const next = redactJson(row.details, r.redact);
          if (JSON.stringify(next) === JSON.stringify(row.details)) continue;
          await q.query(`update audit_log set details = $3::jsonb where org_id = $1 and id = $2::bigint`, [orgId, row.id, JSON.stringify(next)]);
          changed++;
        }
        if (batch.rows.length < 500) return changed;
        after = batch.rows[batch.rows.length - 1]!.id;
      }
    },
    /** The details of the organisation's entries about one target (oldest first), e.g. to learn what erasure must find. */
    async detailsAbout(q: Queryable, orgId: string, targetType: string, targetId: string, actions: string[]): Promise<Record<string, unknown>[]> {
      const r = await q.query<{ details: Record<string, unknown> }>(
        `select details from audit_log where org_id = $1 and target_type = $2 and target_id = $3 and action = any($4::text[]) order by created_at, id`,
        [orgId, targetType, targetId, actions],
      );
      return r.rows.map((x) => x.details ?? {});
    },
  };
}

/** What erasure hands the audit log: a text rewrite and the anchors that find the texts it changes. */
export interface Redactor {
  redact(text: string): string;
  anchors: { text: string[]; digits: string[]; all: boolean };
}

function redactJson(v: unknown, redact: (s: string) => string): unknown {
  if (typeof v === 'string') return redact(v);
  if (Array.isArray(v)) return v.map((x) => redactJson(x, redact));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[redact(k)] = redactJson(x, redact);
    return out;
  }
  return v;
}

export type AuditLog = ReturnType<typeof createAuditLog>;

/** The audit log service: `deps.services.get(AUDIT_LOG).record(q, ctx, entry)`. */
export const AUDIT_LOG = serviceKey<AuditLog>('audit.log');
