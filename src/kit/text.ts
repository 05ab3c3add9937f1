// Text no store can hold and no JSON canonicaliser (RFC 8785) accepts: NUL characters (PostgreSQL
// text and jsonb cannot hold one) and unpaired UTF-16 surrogates (not Unicode scalar values:
// PostgreSQL jsonb refuses them, text would turn them into U+FFFD). Found anywhere in a parsed
// value (keys and values, at any depth): the platform refuses such requests (text-guard.ts), the
// charging hub such OCPP messages, the upstream client such answers.
export type Loc = (string | number)[];
export interface TextProblem {
  type: 'string_pattern_mismatch' | 'string_unicode';
  loc: Loc;
  msg: string;
}

const NUL = { type: 'string_pattern_mismatch', msg: 'Text may not contain NUL characters' } as const;
const SURROGATE = { type: 'string_unicode', msg: 'Text may not contain unpaired UTF-16 surrogates (not valid Unicode)' } as const;

/** No unpaired surrogate (String.prototype.isWellFormed, ES2024). */
export const isWellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed();

/**
 * The first string or key in `value` holding a NUL character or an unpaired surrogate. The walk
 * allocates nothing on the way down (a year of half hours is 35 000 strings); the location is built
 * only for the one it finds.
 */
export function findIllFormedText(value: unknown, loc: Loc): TextProblem | null {
  const hit = scan(value, 0);
  return hit ? { ...hit.problem, loc: [...loc, ...hit.path.reverse()] } : null;
}

type Problem = typeof NUL | typeof SURROGATE;
const checkText = (s: string): Problem | null => (s.includes('\u0000') ? NUL : isWellFormed(s) ? null : SURROGATE);

/** A member (array item or record value) at `key` of a value at `depth`: scanned when it can hold text, its key pushed on the way out. */
function member(v: unknown, key: string | number, depth: number): { problem: Problem; path: Loc } | null {
  if (v === null || (typeof v !== 'string' && typeof v !== 'object')) return null;
  const hit = scan(v, depth + 1);
  if (hit) hit.path.push(key);
  return hit;
}

/** The problem and its path, innermost step first (pushed while unwinding). */
function scan(value: unknown, depth: number): { problem: Problem; path: Loc } | null {
  if (typeof value === 'string') {
    const problem = checkText(value);
    return problem ? { problem, path: [] } : null;
  }
  if (value === null || typeof value !== 'object' || depth > 64) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = member(value[i], i, depth);
      if (hit) return hit;
    }
    return null;
  }
  const record = value as Record<string, unknown>;
  for (const k of Object.keys(record)) {
    const keyProblem = checkText(k);
    if (keyProblem) return { problem: keyProblem, path: [k] };
    const hit = member(record[k], k, depth);
    if (hit) return hit;
  }
  return null;
}
