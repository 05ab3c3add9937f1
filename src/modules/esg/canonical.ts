// Canonical JSON for hashing and signing: object members sorted by UTF-16 code units, no
// whitespace, numbers and strings as ECMAScript serialises them (the JCS rules, RFC 8785, for
// values a JSON parser produced). The content hash built on it identifies a receipt on the
// service side; it is not promised as a cross-language content commitment.

import { isWellFormed } from '../../platform/text-guard.ts';

export const MAX_DEPTH = 64;

export class CanonicalError extends Error {}

export function canonicalJson(value: unknown, depth = 0): string {
  if (depth > MAX_DEPTH) throw new CanonicalError(`nested deeper than ${MAX_DEPTH} levels`);
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'string') return str(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new CanonicalError('numbers must be finite');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v, depth + 1)).join(',')}]`;
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${str(k)}:${canonicalJson(o[k], depth + 1)}`).join(',')}}`;
  }
  throw new CanonicalError(`cannot encode ${typeof value}`);
}

/** RFC 8785 works on I-JSON (RFC 7493): an unpaired surrogate has no canonical form, so none is made. */
function str(s: string): string {
  if (!isWellFormed(s)) throw new CanonicalError('strings must be valid Unicode (an unpaired UTF-16 surrogate was found)');
  return JSON.stringify(s);
}
