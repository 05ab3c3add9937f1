// Cursor pagination, one way for every list: newest first, ties broken by row id, opaque cursors
// signed with the service key and bound to the operation, the organisation and the filters they
// were made with. Anything else is 400 invalid_cursor.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from './errors.ts';
import { canonicalJson } from '../kit/canonical-json.ts';

export interface Position {
  /** ISO timestamp (or any sortable text) of the last row on the page. */
  t: string;
  /** Its row id. */
  id: string | number;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
  has_more: boolean;
}

export const invalidCursor = () => new AppError(400, 'invalid_cursor', { code: 'invalid_cursor', message: 'The cursor is not valid for this request' });

export function createCursorCodec(secret: string) {
  const key = createHmac('sha256', secret).update('cursor-v1').digest();
  const mac = (s: string) => createHmac('sha256', key).update(s).digest();
  return {
    /** binding: operation id, organisation and filters; a cursor only works with the same. */
    encode(binding: { op: string; orgId: string; filters?: object }, pos: Position): string {
      const payload = Buffer.from(JSON.stringify({ t: pos.t, i: pos.id })).toString('base64url');
      const sig = mac(`${payload}.${canonicalJson(binding)}`)
        .subarray(0, 16)
        .toString('base64url');
      return `${payload}.${sig}`;
    },
    decode(cursor: string, binding: { op: string; orgId: string; filters?: object }): Position {
      const [payload, sig, extra] = cursor.split('.');
      if (!payload || !sig || extra !== undefined || cursor.length > 512) throw invalidCursor();
      const expected = mac(`${payload}.${canonicalJson(binding)}`).subarray(0, 16);
      const given = Buffer.from(sig, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor();
      try {
        const p = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { t: unknown; i: unknown };
        if (typeof p.t !== 'string' || (typeof p.i !== 'string' && typeof p.i !== 'number')) throw new Error();
        return { t: p.t, id: p.i };
      } catch {
        throw invalidCursor();
      }
    },
  };
}

export type CursorCodec = ReturnType<typeof createCursorCodec>;

/**
 * Builds a page from rows fetched with `limit + 1` (newest first): the extra row only says
 * whether there is more.
 */
export function toPage<T>(
  rows: T[],
  limit: number,
  positionOf: (row: T) => Position,
  codec: CursorCodec,
  binding: { op: string; orgId: string; filters?: object },
): Page<T> {
  const has_more = rows.length > limit;
  const items = has_more ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return { items, has_more, next_cursor: has_more && last ? codec.encode(binding, positionOf(last)) : null };
}
