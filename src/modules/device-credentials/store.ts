// Device credential SQL. Every function takes the organisation first and filters on it, except the
// one marked otherwise (validAll, for the broker's clients); the lifecycle's own (get, revoke, rotate, touch, the credential lookup) is the platform's, shared with
// API keys (platform/rotating-credentials.ts).
import type { Queryable } from '../../infra/db/index.ts';
import { rotatingStore, VALID_AT, type RotatingRow } from '../../platform/rotating-credentials.ts';

export interface CredentialRow extends RotatingRow {
  name: string;
  site_id: string;
  device_ids: string[] | null;
  scopes: string[];
  secret_hash: Uint8Array;
  secret_hint: string;
  created_by: string | null;
}

const COLS = `id, org_id, name, site_id, device_ids, scopes, secret_hash, secret_hint, created_at, created_by, expires_at,
  revoked_at, replaced_by, rotated_at, overlap_until, last_used_at`;

export type NewCredential = Omit<CredentialRow, 'org_id' | 'revoked_at' | 'replaced_by' | 'rotated_at' | 'overlap_until' | 'last_used_at'>;

export const credentialStore = {
  ...rotatingStore<CredentialRow, 'name' | 'site_id' | 'device_ids' | 'scopes'>(
    'device_credentials',
    COLS,
    ['name', 'site_id', 'device_ids', 'scopes'],
    'site_id',
  ),

  /** Every organisation's credentials valid at `now`, for the broker's clients (background store, no organisation scope). */
  async validAll(q: Queryable, now: Date): Promise<Pick<CredentialRow, 'id' | 'org_id' | 'site_id' | 'device_ids' | 'scopes'>[]> {
    const r = await q.query<Pick<CredentialRow, 'id' | 'org_id' | 'site_id' | 'device_ids' | 'scopes'>>(
      `select id, org_id, site_id, device_ids, scopes from device_credentials where ${VALID_AT('$1')} order by id`,
      [now],
    );
    return r.rows;
  },
};
