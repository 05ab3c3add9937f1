// The lifecycle API keys (decision 0081) and device credentials (decision 0375) share, written once:
// a credential is issued with an expiry, rotated to a successor with a bounded overlap, revoked at
// once (ending the overlap of every credential it replaced), and touched when used. Each owner keeps
// its own table (and the columns of its own), created by its own migrations; the lifecycle's
// columns, SQL and rules are these. The secret itself is platform/secrets.ts's.
import type { Queryable } from '../infra/db/index.ts';
import { errors } from './errors.ts';
import type { RequestContext } from './operation.ts';

/** The lifecycle's columns of a credential row. */
export interface RotatingRow {
  id: string;
  org_id: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  replaced_by: string | null;
  rotated_at: Date | null;
  overlap_until: Date | null;
  last_used_at: Date | null;
}

export type RotatingStatus = 'active' | 'rotating' | 'rotated' | 'revoked' | 'expired';

export function rotatingStatus(c: Pick<RotatingRow, 'revoked_at' | 'expires_at' | 'replaced_by' | 'overlap_until'>, now: Date): RotatingStatus {
  if (c.revoked_at) return 'revoked';
  if (c.expires_at <= now) return 'expired';
  if (c.replaced_by) return c.overlap_until && c.overlap_until > now ? 'rotating' : 'rotated';
  return 'active';
}

/** SQL condition: the credential authenticates at $now. */
export const VALID_AT = (now: string) =>
  `revoked_at is null and expires_at > ${now} and (replaced_by is null or (overlap_until is not null and overlap_until > ${now}))`;

/** A successor's expiry: the one asked for, else the predecessor's lifetime (at most `maxLifetimeMs`) from now. */
export function successorExpiry(old: Pick<RotatingRow, 'created_at' | 'expires_at'>, now: Date, maxLifetimeMs: number, asked?: string): Date {
  const lifetime = Math.min(old.expires_at.getTime() - old.created_at.getTime(), maxLifetimeMs);
  return asked ? new Date(asked) : new Date(now.getTime() + lifetime);
}

/** The predecessor stops at once unless an overlap was asked for; never beyond its own expiry. */
export function overlapUntil(old: Pick<RotatingRow, 'expires_at'>, now: Date, overlapSeconds: number): Date | null {
  return overlapSeconds > 0 ? new Date(Math.min(now.getTime() + overlapSeconds * 1000, old.expires_at.getTime())) : null;
}

/**
 * The lifecycle's SQL on one owner's table, `cols` its column list and `own` the columns the owner
 * adds that a successor copies from its predecessor (in the insert's order), `listedBy` the one of
 * them the list may be filtered on. Every function takes the
 * organisation first and filters on it, except the credential lookup (the row names it).
 */
export function rotatingStore<Row extends RotatingRow & Successor, Own extends keyof Row & string>(
  table: string,
  cols: string,
  own: readonly Own[],
  listedBy: Own,
) {
  const made = ['secret_hash', 'secret_hint', 'created_at', 'created_by', 'expires_at'] as const;
  const sql = {
    /** A new credential: its id, the owner's own columns, its secret, when and by whom made, its expiry. */
    async insert(q: Queryable, orgId: string, c: Successor & Pick<Row, Own>): Promise<Row> {
      const names = ['id', 'org_id', ...own, ...made];
      const r = await q.query<Row>(`insert into ${table} (${names.join(', ')}) values (${names.map((_, i) => `$${i + 1}`).join(', ')}) returning ${cols}`, [
        c.id,
        orgId,
        ...own.map((k) => c[k]),
        ...made.map((k) => c[k]),
      ]);
      return r.rows[0];
    },

    /** The organisation's credentials, newest first: those whose `listedBy` column holds `value`, all without one. */
    async list(q: Queryable, orgId: string, value?: string): Promise<Row[]> {
      const r = await q.query<Row>(
        `select ${cols} from ${table} where org_id = $1 and ($2::text is null or ${listedBy} = $2) order by created_at desc, id desc`,
        [orgId, value ?? null],
      );
      return r.rows;
    },

    async get(q: Queryable, orgId: string, id: string, forUpdate = false): Promise<Row | null> {
      const r = await q.query<Row>(`select ${cols} from ${table} where org_id = $1 and id = $2${forUpdate ? ' for update' : ''}`, [orgId, id]);
      return r.rows[0] ?? null;
    },

    async countValid(q: Queryable, orgId: string, now: Date): Promise<number> {
      const r = await q.query<{ n: number }>(`select count(*)::int as n from ${table} where org_id = $1 and ${VALID_AT('$2')}`, [orgId, now]);
      return r.rows[0].n;
    },

    async revoke(q: Queryable, orgId: string, id: string, now: Date): Promise<Row | null> {
      const r = await q.query<Row>(`update ${table} set revoked_at = coalesce(revoked_at, $3) where org_id = $1 and id = $2 returning ${cols}`, [
        orgId,
        id,
        now,
      ]);
      return r.rows[0] ?? null;
    },

    /**
     * Ends, at `now`, the running overlap of every credential `id` replaced, directly or through
     * earlier rotations: once a successor is revoked none of those it replaced works either.
     */
    async endPredecessorOverlaps(q: Queryable, orgId: string, id: string, now: Date): Promise<string[]> {
      const r = await q.query<{ id: string }>(
        `with recursive chain(id) as (
           select id from ${table} where org_id = $1 and replaced_by = $2
           union
           select c.id from ${table} c join chain on c.replaced_by = chain.id where c.org_id = $1
         )
         update ${table} set overlap_until = $3
         where org_id = $1 and id in (select id from chain) and overlap_until > $3 and revoked_at is null
         returning id`,
        [orgId, id, now],
      );
      return r.rows.map((x) => x.id).sort();
    },

    async markRotated(q: Queryable, orgId: string, id: string, successor: string, now: Date, overlapUntil: Date | null): Promise<Row | null> {
      const r = await q.query<Row>(
        `update ${table} set replaced_by = $3, rotated_at = $4, overlap_until = $5
         where org_id = $1 and id = $2 and replaced_by is null returning ${cols}`,
        [orgId, id, successor, now, overlapUntil],
      );
      return r.rows[0] ?? null;
    },

    async touch(q: Queryable, orgId: string, id: string, now: Date): Promise<void> {
      await q.query(`update ${table} set last_used_at = $3 where org_id = $1 and id = $2 and (last_used_at is null or last_used_at < $3)`, [orgId, id, now]);
    },

    /** Credential lookup by the embedded id. Not organisation-filtered: the row names it. */
    async byIdForAuth(q: Queryable, id: string): Promise<Row | null> {
      const r = await q.query<Row>(`select ${cols} from ${table} where id = $1`, [id]);
      return r.rows[0] ?? null;
    },
  };
  return {
    ...sql,

    /** The successor of `old`: the made columns given, the owner's own copied from `old`. */
    insertSuccessor(q: Queryable, orgId: string, old: Row, successor: Successor): Promise<Row> {
      const copied = Object.fromEntries(own.map((k) => [k, old[k]])) as Pick<Row, Own>;
      return sql.insert(q, orgId, { ...successor, ...copied });
    },

    /** The credential to rotate, locked for the transaction: 404 when the organisation has none, `notActive` unless it is active. */
    async lockForRotation(q: Queryable, orgId: string, id: string, now: Date, notActive: (status: RotatingStatus) => Error): Promise<Row> {
      const old = await sql.get(q, orgId, id, true);
      if (!old) throw errors.notFound();
      const status = rotatingStatus(old, now);
      if (status !== 'active') throw notActive(status);
      return old;
    },

    /**
     * Revokes the credential at `now` (a second revoke keeps the first time) and ends the running
     * overlap of every one it replaced: a predecessor still inside its rotation overlap stops with
     * its successor. 404 when the organisation has none; `changed` says whether anything did (what
     * the owner audits).
     */
    async revokeWithPredecessors(q: Queryable, orgId: string, id: string, now: Date): Promise<{ row: Row; ended: string[]; changed: boolean }> {
      const before = await sql.get(q, orgId, id, true);
      if (!before) throw errors.notFound();
      const row = await sql.revoke(q, orgId, id, now);
      const ended = await sql.endPredecessorOverlaps(q, orgId, id, now);
      return { row: row!, ended, changed: !before.revoked_at || ended.length > 0 };
    },
  };
}

/** The actor a credential records as its maker: the user, or none for a key or a system actor. */
export function madeBy(ctx: RequestContext): string | null {
  return ctx.actor.kind === 'user' ? ctx.actor.userId : null;
}

/** The columns of a successor credential the rotation makes (the owner adds its own). */
export interface Successor {
  id: string;
  secret_hash: Uint8Array;
  secret_hint: string;
  created_at: Date;
  created_by: string | null;
  expires_at: Date;
}

/**
 * A rotation's steps in the caller's transaction, written once: the active credential is locked,
 * the successor's expiry worked out (`check` refuses one out of bounds), its secret issued and its
 * lifecycle columns made, the successor inserted (the owner's own columns copied from the
 * predecessor), the predecessor marked rotated with its overlap, and the owner told what to
 * audit (`successor`, `overlap_seconds`, `expires_at`).
 */
export async function rotateCredential<Row extends RotatingRow & Successor>(
  q: Queryable,
  orgId: string,
  id: string,
  o: {
    store: {
      lockForRotation(q: Queryable, orgId: string, id: string, now: Date, notActive: (status: RotatingStatus) => Error): Promise<Row>;
      insertSuccessor(q: Queryable, orgId: string, old: Row, successor: Successor): Promise<Row>;
      markRotated(q: Queryable, orgId: string, id: string, successor: string, now: Date, overlapUntil: Date | null): Promise<Row | null>;
    };
    now: Date;
    maxLifetimeMs: number;
    overlapSeconds: number;
    expiresAt?: string;
    notActive: (status: RotatingStatus) => Error;
    check: (expiresAt: Date) => void;
    createdBy: string | null;
    issue: (old: Row) => { id: string; hash: Uint8Array; hint: string };
    audit: (old: Row, details: { successor: string; overlap_seconds: number; expires_at: string }) => Promise<void>;
  },
): Promise<{ next: Row; prev: Row }> {
  const old = await o.store.lockForRotation(q, orgId, id, o.now, o.notActive);
  const expiresAt = successorExpiry(old, o.now, o.maxLifetimeMs, o.expiresAt);
  o.check(expiresAt);
  const k = o.issue(old);
  const next = await o.store.insertSuccessor(q, orgId, old, {
    id: k.id,
    secret_hash: k.hash,
    secret_hint: k.hint,
    created_at: o.now,
    created_by: o.createdBy,
    expires_at: expiresAt,
  });
  const prev = await o.store.markRotated(q, orgId, old.id, next.id, o.now, overlapUntil(old, o.now, o.overlapSeconds));
  await o.audit(old, { successor: next.id, overlap_seconds: o.overlapSeconds, expires_at: expiresAt.toISOString() });
  // The row was locked active and unreplaced, so the update found it.
  return { next, prev: prev! };
}

/**
 * A revocation in the caller's transaction, written once: the credential revoked with the running
 * overlaps of those it replaced, and, when anything changed, the owner told what to audit (the
 * overlaps it ended, when any).
 */
export async function revokeCredential<Row extends RotatingRow & Successor>(
  q: Queryable,
  orgId: string,
  id: string,
  o: {
    store: { revokeWithPredecessors(q: Queryable, orgId: string, id: string, now: Date): Promise<{ row: Row; ended: string[]; changed: boolean }> };
    now: Date;
    audit: (details: { details?: { ended_overlap: string[] } }) => Promise<void>;
  },
): Promise<{ row: Row; ended: string[] }> {
  // A predecessor still inside its rotation overlap stops with its successor (decision 0081).
  const { row, ended, changed } = await o.store.revokeWithPredecessors(q, orgId, id, o.now);
  if (changed) await o.audit(ended.length ? { details: { ended_overlap: ended } } : {});
  return { row, ended };
}
