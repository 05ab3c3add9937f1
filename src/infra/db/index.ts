// The store interface every module uses. Two adapters: PGlite (embedded) and PostgreSQL.
// One SQL dialect: anything written here must run unchanged on both.

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

/** The first row a statement answers, or null when it answers none. */
export async function firstRow<T = Record<string, unknown>>(q: Queryable, sql: string, params?: unknown[]): Promise<T | null> {
  return (await q.query<T>(sql, params)).rows[0] ?? null;
}

/**
 * Statements the PostgreSQL adapter runs as named prepared statements (decision 0498): each pooled
 * connection plans one on its first use and PostgreSQL keeps the plan (a generic one once it costs
 * no more than its custom plans), instead of planning the text again at every call. For the hot
 * statements whose planning costs more than their execution (wide CTEs and aggregates over every
 * metric: 2-7 ms each to plan, a fraction of that to run on a few rows). The embedded store runs
 * them as it runs any statement.
 */
const preparedTexts = new Map<string, string>();
let preparedCount = 0;

/** Marks `sql` as one to run prepared (see preparedTexts); returns it unchanged, so a module writes `const X = prepared(`...`)`. */
export function prepared(sql: string): string {
  if (!preparedTexts.has(sql)) preparedTexts.set(sql, `eps_prepared_${++preparedCount}`);
  return sql;
}

/** The statement name `sql` runs under when it was marked prepared, else undefined. */
export function preparedName(sql: string): string | undefined {
  return preparedTexts.get(sql);
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs fn inside one transaction; commits when it resolves, rolls back when it throws. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /**
   * A read whose columns are all text, each row handed to `onRow` as it arrives as its fields' UTF-8
   * bytes (null for NULL), never decoded into JavaScript strings nor gathered: for bulk downloads
   * (decisions 0475, 0490). The bytes are valid only while onRow runs (on PostgreSQL they are the
   * connection's read buffer); what the caller keeps it copies. Resolves to the number of rows.
   * PostgreSQL: `COPY (sql) TO STDOUT` in binary format, the parameters (strings and numbers)
   * written into it as literals; the embedded store: the query, its fields encoded.
   */
  queryBytes(sql: string, params: unknown[], onRow: (fields: readonly (Buffer | null)[]) => void): Promise<number>;
  /** Runs several parameterless statements (migrations). */
  exec(sql: string): Promise<void>;
  /** True when the store answers within timeoutMs. */
  ping(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The store could not be reached or did not answer in time: no connection within the wait (pool
 * exhausted or server unreachable), a connection lost or gone silent, a statement past its timeout,
 * the server shutting down or out of connections. Transient: the request may be retried. The
 * platform answers it 503 with Retry-After (never a 500); modules may catch it first.
 */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`store unavailable: ${message}`, options);
    this.name = 'StoreUnavailableError';
  }
}

/** Seconds a client should wait before retrying after StoreUnavailableError. */
export const STORE_RETRY_AFTER_SECONDS = 5;

export { withTimeout } from '../../core/timeout.ts';
