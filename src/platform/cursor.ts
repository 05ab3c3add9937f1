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

/** What a cursor is bound to: the operation id, the organisation and the filters it was made with. */
export type Binding = { op: string; orgId: string; filters?: object };

/** A decoded position as the stores take it: the sort key and the row id, both as text. */
export interface After {
  t: string;
  id: string;
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
    encode(binding: Binding, pos: Position): string {
      const payload = Buffer.from(JSON.stringify({ t: pos.t, i: pos.id })).toString('base64url');
      const sig = mac(`${payload}.${canonicalJson(binding)}`)
        .subarray(0, 16)
        .toString('base64url');
      return `${payload}.${sig}`;
    },
    decode(cursor: string, binding: Binding): Position {
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
export function toPage<T>(rows: T[], limit: number, positionOf: (row: T) => Position, codec: CursorCodec, binding: Binding): Page<T> {
  const has_more = rows.length > limit;
  const items = has_more ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return { items, has_more, next_cursor: has_more && last ? codec.encode(binding, positionOf(last)) : null };
}

/**
 * A list read after a cursor, the one way: `cursor` decoded for `binding` (400 invalid_cursor
 * otherwise) into `after`, the position to read from as the stores take it (`undefined` on the first
 * page); the caller reads the `limit + 1` rows after it, newest first, and `page` builds the page
 * (toPage) with the same codec, binding and limit.
 */
export function pageAfter(codec: CursorCodec, binding: Binding, cursor: string | undefined, limit: number): PageAfter {
  const pos = cursor ? codec.decode(cursor, binding) : undefined;
  return {
    after: pos && { t: pos.t, id: String(pos.id) },
    page: (rows, positionOf) => toPage(rows, limit, positionOf, codec, binding),
  };
}

export interface PageAfter {
  after: After | undefined;
  page<T>(rows: T[], positionOf: (row: T) => Position): Page<T>;
}
