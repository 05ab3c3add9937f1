// COPY ... FROM STDIN for node-postgres without a new dependency: a minimal "submittable" query
// (the mechanism pg-copy-streams uses) that streams text-format rows with backpressure.
import type pg from 'pg';

interface Connection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  sendCopyFail(msg: string): void;
  stream: NodeJS.WritableStream & { writableLength: number };
}

/** Escapes a value for COPY text format (null = \N). */
export function copyText(v: string | number | null): string {
  if (v === null) return '\\N';
  if (typeof v === 'number') return String(v);
  return v.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

class CopyIn {
  private rows = 0;
  private failed?: Error;
  readonly done: Promise<number>;
  private settle!: { resolve: (n: number) => void; reject: (e: Error) => void };
  private readonly text: string;
  private readonly source: AsyncIterable<string> | Iterable<string>;
  constructor(text: string, source: AsyncIterable<string> | Iterable<string>) {
    this.text = text;
    this.source = source;
    this.done = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
  }
  submit(connection: Connection) {
    connection.query(this.text);
  }
  handleCopyInResponse(connection: Connection) {
    void (async () => {
      try {
        for await (const chunk of this.source) {
          connection.sendCopyFromChunk(Buffer.from(chunk, 'utf8'));
          if (connection.stream.writableLength > 4 * 1024 * 1024) {
            await new Promise((r) => connection.stream.once('drain', r));
          }
        }
        connection.endCopyFrom();
      } catch (e) {
        connection.sendCopyFail(String(e));
      }
    })();
  }
  handleCommandComplete(msg: { text: string }) {
    this.rows = Number(msg.text.split(' ').pop());
  }
  handleReadyForQuery() {
    if (this.failed) this.settle.reject(this.failed);
    else this.settle.resolve(this.rows);
  }
  handleError(err: Error) {
    this.failed = err;
  }
  handleRowDescription() {}
  handleDataRow() {}
  handleEmptyQuery() {}
  handlePortalSuspended() {}
  handleCopyData() {}
}

/** Runs `COPY ... FROM STDIN` with text chunks (lines ending in \n). Resolves to rows copied. */
export async function copyFrom(client: pg.Client | pg.PoolClient, sql: string, chunks: AsyncIterable<string> | Iterable<string>): Promise<number> {
  const q = new CopyIn(sql, chunks);
  (client as unknown as { query(q: unknown): void }).query(q);
  return q.done;
}
