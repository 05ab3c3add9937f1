// Canonical JSON for hashing, signing and comparing: RFC 8785 (JCS) by the `canonicalize` package —
// object members sorted by UTF-16 code units, no whitespace, numbers and strings as ECMAScript
// serialises them, members whose value is undefined left out. Values outside I-JSON (a number that
// is not finite, a string with an unpaired UTF-16 surrogate) have no canonical form: CanonicalError,
// with the messages the ESG receipts answer with. Hashes stored before the kit (energy receipts,
// settlement receipts, the connect buffer's record hashes) and signed cursors are unchanged: every
// copy it replaced wrote the same text for the JSON values they were given (decision 0346).
import canonicalize from 'canonicalize';

export class CanonicalError extends Error {}

/** The nesting the ESG receipts accept (deeper payloads are refused by name). */
export const CANONICAL_MAX_DEPTH = 64;

const isWellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed();

const SURROGATE = 'strings must be valid Unicode (an unpaired UTF-16 surrogate was found)';

/**
 * Throws CanonicalError for the first part of `value` (in canonical order) with no canonical form:
 * nesting deeper than maxDepth, a number that is not finite, an unpaired surrogate.
 */
function check(value: unknown, maxDepth: number, depth: number): void {
  if (depth > maxDepth) throw new CanonicalError(`nested deeper than ${maxDepth} levels`);
  if (typeof value === 'string') {
    if (!isWellFormed(value)) throw new CanonicalError(SURROGATE);
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new CanonicalError('numbers must be finite');
  } else if (Array.isArray(value)) {
    for (const v of value) check(v, maxDepth, depth + 1);
  } else if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const o = value as Record<string, unknown>;
    for (const k of Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()) {
      if (!isWellFormed(k)) throw new CanonicalError(SURROGATE);
      check(o[k], maxDepth, depth + 1);
    }
  }
}

/**
 * The RFC 8785 text of a JSON value. `maxDepth` refuses deeper nesting (CanonicalError); without
 * it any depth is written. A top-level undefined is written `null`.
 */
export function canonicalJson(value: unknown, opts: { maxDepth?: number } = {}): string {
  check(value, opts.maxDepth ?? Number.POSITIVE_INFINITY, 0);
  return canonicalize(value) ?? 'null';
}
