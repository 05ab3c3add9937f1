// Text no store can hold and no JSON canonicaliser (RFC 8785) accepts: NUL characters (PostgreSQL
// text cannot hold one) and unpaired UTF-16 surrogates (not Unicode scalar values: PostgreSQL jsonb
// refuses them, text would turn them into U+FFFD). Refused with 422 in every part of a request
// (path, query, body; keys and values, at any depth) before validation runs.
import { errors, type AppError } from './errors.ts';

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

/** The first string or key in `value` holding a NUL character or an unpaired surrogate. */
export function findIllFormedText(value: unknown, loc: Loc, depth = 0): TextProblem | null {
  const check = (s: string) => (s.includes('\u0000') ? NUL : isWellFormed(s) ? null : SURROGATE);
  if (typeof value === 'string') {
    const p = check(value);
    return p ? { ...p, loc } : null;
  }
  if (value === null || typeof value !== 'object' || depth > 64) return null;
  const isArray = Array.isArray(value);
  for (const [k, v] of Object.entries(value)) {
    const keyProblem = isArray ? null : check(k);
    if (keyProblem) return { ...keyProblem, loc: [...loc, k] };
    const hit = findIllFormedText(v, [...loc, isArray ? Number(k) : k], depth + 1);
    if (hit) return hit;
  }
  return null;
}

/**
 * The first query parameter whose percent-encoding is not valid UTF-8 (a lone surrogate arrives as
 * %ED%A0%80, which no decoder accepts). The query parser would otherwise keep the raw text.
 */
export function findMalformedQuery(url: string): TextProblem | null {
  const q = url.indexOf('?');
  if (q < 0) return null;
  for (const pair of url.slice(q + 1).split('&')) {
    if (!pair.includes('%')) continue;
    const eq = pair.indexOf('=');
    const rawKey = eq < 0 ? pair : pair.slice(0, eq);
    const key = decodeOrNull(rawKey);
    const valueOk = eq < 0 || decodeOrNull(pair.slice(eq + 1)) !== null;
    if (key === null || !valueOk) {
      return { type: 'string_unicode', loc: ['query', key ?? rawKey], msg: 'Percent-encoding is not valid UTF-8' };
    }
  }
  return null;
}

function decodeOrNull(s: string): string | null {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

export function illFormedTextError(p: TextProblem): AppError {
  return errors.validation([{ type: p.type, loc: p.loc, msg: p.msg, input: null }]);
}
