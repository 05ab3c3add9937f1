// API key SQL. Every function takes the organisation first and filters on it, except the two
// marked otherwise: the credential lookup (the organisation comes from the key row) and the
// list of organisations the scheduled alert job walks.
import type { Queryable } from '../../../infra/db/index.ts';
import type { Environment } from '../common.ts';

export interface KeyRow {
  id: string;
  org_id: string;
  name: string;
  environment: Environment;
  scopes: string[];
  secret_hash: Uint8Array;
  secret_hint: string;
  created_at: Date;
  created_by: string | null;
  expires_at: Date;
  revoked_at: Date | null;
  replaced_by: string | null;
  rotated_at: Date | null;
  overlap_until: Date | null;
  last_used_at: Date | null;
}

const COLS = `id, org_id, name, environment, scopes, secret_hash, secret_hint, created_at, created_by, expires_at,
  revoked_at, replaced_by, rotated_at, overlap_until, last_used_at`;

/** SQL condition: the key authenticates at $now. */
export const VALID_AT = (now: string) =>
  `revoked_at is null and expires_at > ${now} and (replaced_by is null or (overlap_until is not null and overlap_until > ${now}))`;

export const keyStore = {
  async insert(q: Queryable, orgId: string, k: Omit<KeyRow, 'org_id' | 'revoked_at' | 'replaced_by' | 'rotated_at' | 'overlap_until' | 'last_used_at'>) {
    const r = await q.query<KeyRow>(
      `insert into api_keys (id, org_id, name, environment, scopes, secret_hash, secret_hint, created_at, created_by, expires_at)
       values ($2, $1, $3, $4, $5, $6, $7, $8, $9, $10) returning ${COLS}`,
      [orgId, k.id, k.name, k.environment, k.scopes, k.secret_hash, k.secret_hint, k.created_at, k.created_by, k.expires_at],
    );
    return r.rows[0];
  },

  async get(q: Queryable, orgId: string, id: string, forUpdate = false): Promise<KeyRow | null> {
    const r = await q.query<KeyRow>(`select ${COLS} from api_keys where org_id = $1 and id = $2${forUpdate ? ' for update' : ''}`, [orgId, id]);
    return r.rows[0] ?? null;
  },

  async list(q: Queryable, orgId: string, env?: Environment): Promise<KeyRow[]> {
    const r = await q.query<KeyRow>(
      `select ${COLS} from api_keys where org_id = $1 and ($2::text is null or environment = $2) order by created_at desc, id desc`,
      [orgId, env ?? null],
    );
    return r.rows;
  },

  async countValid(q: Queryable, orgId: string, now: Date): Promise<number> {
    const r = await q.query<{ n: number }>(`select count(*)::int as n from api_keys where org_id = $1 and ${VALID_AT('$2')}`, [orgId, now]);
    return r.rows[0].n;
  },

  async validKeys(q: Queryable, orgId: string, now: Date): Promise<KeyRow[]> {
    return (await q.query<KeyRow>(`select ${COLS} from api_keys where org_id = $1 and ${VALID_AT('$2')}`, [orgId, now])).rows;
  },

  async revoke(q: Queryable, orgId: string, id: string, now: Date): Promise<KeyRow | null> {
    const r = await q.query<KeyRow>(`update api_keys set revoked_at = coalesce(revoked_at, $3) where org_id = $1 and id = $2 returning ${COLS}`, [
      orgId,
      id,
      now,
    ]);
    return r.rows[0] ?? null;
  },

  /**
   * Ends, at `now`, the running overlap of every key `id` replaced, directly or through earlier
   * rotations: once a successor is revoked none of the keys it replaced works either.
   */
  async endPredecessorOverlaps(q: Queryable, orgId: string, id: string, now: Date): Promise<string[]> {
    const r = await q.query<{ id: string }>(
      `with recursive chain(id) as (
         select id from api_keys where org_id = $1 and replaced_by = $2
         union
         select k.id from api_keys k join chain c on k.replaced_by = c.id where k.org_id = $1
       )
       update api_keys set overlap_until = $3
       where org_id = $1 and id in (select id from chain) and overlap_until > $3 and revoked_at is null
       returning id`,
      [orgId, id, now],
    );
    return r.rows.map((x) => x.id).sort();
  },

  async markRotated(q: Queryable, orgId: string, id: string, successor: string, now: Date, overlapUntil: Date | null) {
    const r = await q.query<KeyRow>(
      `update api_keys set replaced_by = $3, rotated_at = $4, overlap_until = $5
       where org_id = $1 and id = $2 and replaced_by is null returning ${COLS}`,
      [orgId, id, successor, now, overlapUntil],
    );
    return r.rows[0] ?? null;
  },

  async touch(q: Queryable, orgId: string, id: string, now: Date): Promise<void> {
    await q.query('update api_keys set last_used_at = $3 where org_id = $1 and id = $2 and (last_used_at is null or last_used_at < $3)', [orgId, id, now]);
  },

  /** Credential lookup by the key's embedded id. Not organisation-filtered: the row names it. */
  async byIdForAuth(q: Queryable, id: string): Promise<KeyRow | null> {
    const r = await q.query<KeyRow>(`select ${COLS} from api_keys where id = $1`, [id]);
    return r.rows[0] ?? null;
  },

  /** Organisations holding any key: what the scheduled alert job walks. Not organisation data. */
  async orgsWithKeys(q: Queryable): Promise<string[]> {
    return (await q.query<{ org_id: string }>('select distinct org_id from api_keys order by org_id')).rows.map((r) => r.org_id);
  },
};
