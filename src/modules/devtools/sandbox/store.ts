// Idempotency-Key records (POST /api/devtools/partner/v1/sandbox/webhooks/test). Organisation first.
import type { Queryable } from '../../../infra/db/index.ts';

export interface IdempotencyRow {
  request_hash: string;
  status_code: number | null;
  response_body: string | null;
  created_at: Date;
}

export const idempotencyStore = {
  /** Claims the key in the caller's transaction: true when this request is the first (blocks behind a concurrent first). */
  async claim(q: Queryable, orgId: string, operation: string, key: string, hash: string, now: Date, expiredBefore: Date): Promise<boolean> {
    await q.query('delete from idempotency_keys where org_id = $1 and operation = $2 and key = $3 and created_at < $4', [orgId, operation, key, expiredBefore]);
    const r = await q.query(
      `insert into idempotency_keys (org_id, operation, key, request_hash, created_at) values ($1, $2, $3, $4, $5)
       on conflict do nothing`,
      [orgId, operation, key, hash, now],
    );
    return r.rowCount === 1;
  },

  async get(q: Queryable, orgId: string, operation: string, key: string): Promise<IdempotencyRow | null> {
    const r = await q.query<IdempotencyRow>(
      'select request_hash, status_code, response_body, created_at from idempotency_keys where org_id = $1 and operation = $2 and key = $3',
      [orgId, operation, key],
    );
    return r.rows[0] ?? null;
  },

  async complete(q: Queryable, orgId: string, operation: string, key: string, status: number, body: string): Promise<void> {
    await q.query('update idempotency_keys set status_code = $4, response_body = $5 where org_id = $1 and operation = $2 and key = $3', [
      orgId,
      operation,
      key,
      status,
      body,
    ]);
  },

  /** Retention: records older than `before`, every organisation. */
  async purge(q: Queryable, before: Date): Promise<number> {
    return (await q.query('delete from idempotency_keys where created_at < $1', [before])).rowCount;
  },
};
