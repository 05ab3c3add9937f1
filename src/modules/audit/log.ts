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
  actorType: 'user' | 'api_key' | 'system' | 'anonymous';
  actorId: string | null;
  requestId?: string | null;
  ip?: string | null;
}

export function actorOf(ctx: RequestContext): AuditActor {
  const a = ctx.actor;
  return {
    orgId: ctx.orgId || null,
    actorType: a.kind === 'user' ? 'user' : a.kind === 'key' ? 'api_key' : 'anonymous',
    actorId: a.kind === 'user' ? a.userId : a.kind === 'key' ? a.keyId : null,
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
     * Erasure (a data subject's request, decision 0221): replaces each term (a name, an email
     * address, a phone number) wherever it appears in the organisation's entries' details with
     * `[erased]`. Answers how many entries changed. Run in the erasing transaction.
     */
    async redact(q: Queryable, orgId: string, terms: string[]): Promise<number> {
      let changed = 0;
      for (const term of new Set(terms.filter((t) => t.trim().length >= 3))) {
        const inJson = JSON.stringify(term).slice(1, -1);
        const r = await q.query<{ n: number }>(
          `with u as (update audit_log set details = replace(details::text, $2, '[erased]')::jsonb
             where org_id = $1 and strpos(details::text, $2) > 0 returning 1) select count(*)::int as n from u`,
          [orgId, inJson],
        );
        changed += r.rows[0]?.n ?? 0;
      }
      return changed;
    },
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;

/** The audit log service: `deps.services.get(AUDIT_LOG).record(q, ctx, entry)`. */
export const AUDIT_LOG = serviceKey<AuditLog>('audit.log');
