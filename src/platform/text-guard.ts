// Text no store can hold and no JSON canonicaliser (RFC 8785) accepts: NUL characters (PostgreSQL
// text cannot hold one) and unpaired UTF-16 surrogates (not Unicode scalar values: PostgreSQL jsonb
// refuses them, text would turn them into U+FFFD). Refused with 422 in every part of a request
// (path, query, body; keys and values, at any depth) before validation runs; the finding itself is
// the kit's (src/kit/text.ts), shared with the OCPP gateway and the upstream client.
import { errors, type AppError } from './errors.ts';
import type { TextProblem } from '../kit/text.ts';

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
