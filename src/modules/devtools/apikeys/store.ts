// API key SQL. Every function takes the organisation first and filters on it, except the list of
// organisations the scheduled alert job walks; the lifecycle's own (get, revoke, rotate, touch, the
// credential lookup) is the platform's, shared with device credentials (platform/rotating-credentials.ts).
import type { Queryable } from '../../../infra/db/index.ts';
import { rotatingStore, VALID_AT, type RotatingRow } from '../../../platform/rotating-credentials.ts';
import type { Environment } from '../common.ts';

export interface KeyRow extends RotatingRow {
  name: string;
  environment: Environment;
  scopes: string[];
  secret_hash: Uint8Array;
  secret_hint: string;
  created_by: string | null;
}

const COLS = `id, org_id, name, environment, scopes, secret_hash, secret_hint, created_at, created_by, expires_at,
  revoked_at, replaced_by, rotated_at, overlap_until, last_used_at`;

export const keyStore = {
  ...rotatingStore<KeyRow, 'name' | 'environment' | 'scopes'>('api_keys', COLS, ['name', 'environment', 'scopes'], 'environment'),

  async validKeys(q: Queryable, orgId: string, now: Date): Promise<KeyRow[]> {
    return (await q.query<KeyRow>(`select ${COLS} from api_keys where org_id = $1 and ${VALID_AT('$2')}`, [orgId, now])).rows;
  },

  /** Organisations holding any key: what the scheduled alert job walks. Not organisation data. */
  async orgsWithKeys(q: Queryable): Promise<string[]> {
    return (await q.query<{ org_id: string }>('select distinct org_id from api_keys order by org_id')).rows.map((r) => r.org_id);
  },
};
