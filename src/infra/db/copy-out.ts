// A read answered as bytes, for node-postgres (decision 0475): `COPY (query) TO STDOUT (FORMAT
// binary)` through a minimal "submittable" (the mechanism bench/lib/copy-in.ts uses the other way).
// node-pg decodes every field of a result row into a JavaScript string; a bulk download of such
// strings fills V8's young generation, promotes what is in flight and grows the old one. Here each
// field arrives as the server's bytes (a text column in binary COPY is its UTF-8 text), handed to
// the caller as it arrives (decision 0490), never gathered.
import { escapeLiteral } from 'pg';

interface CopyConnection {
  query(text: string): void;
}

/** Parameters of a COPY statement are written into it as literals (COPY takes no bind parameters). */
function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`not a finite number: ${v}`);
    return String(v);
  }
  if (typeof v === 'string') return escapeLiteral(v);
  throw new Error(`unsupported parameter type for a COPY read: ${typeof v}`);
}

/** The statement with $1, $2, … replaced by the parameters as literals. */
export function inlineParams(sql: string, params: readonly unknown[] = []): string {
  return sql.replace(/\$(\d+)/g, (_, i: string) => {
    const n = Number(i);
    if (n < 1 || n > params.length) throw new Error(`no parameter $${n}`);
    return literal(params[n - 1]);
  });
}

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/**
 * Runs `COPY (sql) TO STDOUT (FORMAT binary)` and hands each row to `onRow` as it arrives: each
 * field's bytes (null for NULL) are views of the connection's read buffer, valid only while onRow
 * runs (decision 0490): what the caller keeps it copies. Resolves to the number of rows.
 */
export class CopyOutStream {
  readonly text: string;
  /** Set by pg's Client: the query's end (and its read timeout). */
  callback?: (err: Error | null, rows?: number) => void;
  private rows = 0;
  private failed?: Error;
  private headerRead = false;
  private settled = false;
  private readonly fields: (Buffer | null)[] = [];
  private readonly onRow: (fields: readonly (Buffer | null)[]) => void;

  constructor(sql: string, params: readonly unknown[] | undefined, onRow: (fields: readonly (Buffer | null)[]) => void) {
    this.onRow = onRow;
    this.text = `COPY (${inlineParams(sql, params)}) TO STDOUT (FORMAT binary)`;
  }
  submit(connection: CopyConnection) {
    connection.query(this.text);
  }
  /** One CopyData message: PostgreSQL sends one a row (the header before the first, the trailer alone). */
  handleCopyData(msg: { chunk: Buffer }) {
    if (this.failed) return;
    try {
      const b = msg.chunk;
      let at = 0;
      if (!this.headerRead) {
        if (b.length < 19 || !b.subarray(0, 11).equals(SIGNATURE)) throw new Error('not a binary COPY stream');
        at = 19 + b.readInt32BE(15);
        this.headerRead = true;
      }
      while (at < b.length) {
        const n = b.readInt16BE(at);
        at += 2;
        if (n === -1) return; // the trailer
        const row = this.fields;
        row.length = n;
        for (let i = 0; i < n; i++) {
          const len = b.readInt32BE(at);
          at += 4;
          if (len < 0) row[i] = null;
          else {
            row[i] = b.subarray(at, at + len);
            at += len;
          }
        }
        this.rows++;
        this.onRow(row);
      }
    } catch (e) {
      this.failed = e as Error;
    }
  }
  handleError(err: Error) {
    this.failed ??= err;
    this.settle();
  }
  handleReadyForQuery() {
    this.settle();
  }
  private settle() {
    if (this.settled) return;
    this.settled = true;
    if (this.failed) this.callback?.(this.failed);
    else this.callback?.(null, this.rows);
  }
  handleCommandComplete() {}
  handleRowDescription() {}
  handleDataRow() {}
  handleEmptyQuery() {}
  handlePortalSuspended() {}
  handleCopyInResponse() {}
}
