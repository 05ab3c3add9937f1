// API key material: `<prefix>_<environment>_<id>_<secret>`. The id (16 hex) is the non-secret
// lookup id; the secret is 256 random bits (43 base64url characters) and only its SHA-256 is kept.
import type { Environment } from '../common.ts';
import { hashSecret, newLookupId, newSecret } from '../../../platform/secrets.ts';

export { hashSecret, secretMatches } from '../../../platform/secrets.ts';

export interface IssuedKey {
  id: string;
  /** The whole key, shown once. */
  key: string;
  hash: Buffer;
  hint: string;
}

export function issueKey(prefix: string, env: Environment): IssuedKey {
  const id = newLookupId();
  const secret = newSecret();
  return { id, key: `${prefix}_${env}_${id}_${secret}`, hash: hashSecret(secret), hint: secret.slice(-4) };
}

export function parseKey(prefix: string, presented: string): { env: Environment; id: string; secret: string } | null {
  const m = /^([a-z][a-z0-9]*)_(live|sandbox)_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/.exec(presented);
  if (!m || m[1] !== prefix) return null;
  return { env: m[2] as Environment, id: m[3], secret: m[4] };
}

export const displayKey = (prefix: string, env: string, id: string, hint: string) => `${prefix}_${env}_${id}_…${hint}`;
