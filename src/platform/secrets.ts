// Credential secrets the service issues and checks (API keys, device credentials): 256 random bits,
// only their SHA-256 is kept, and a presented secret is compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const hashSecret = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();

/** A fresh secret: 256 random bits as 43 base64url characters. */
export const newSecret = (): string => randomBytes(32).toString('base64url');

/** A fresh non-secret lookup id: 16 hex characters. */
export const newLookupId = (): string => randomBytes(8).toString('hex');

const DUMMY = hashSecret('no-such-secret');

/**
 * Constant-time comparison of the presented secret's hash with the stored one. With nothing stored
 * (an unknown id) a dummy hash is compared, so both paths cost the same.
 */
export function secretMatches(secret: string, stored: Uint8Array | null): boolean {
  const given = hashSecret(secret);
  const expected = stored ? Buffer.from(stored) : DUMMY;
  const same = expected.length === given.length && timingSafeEqual(given, expected);
  return same && stored !== null;
}
