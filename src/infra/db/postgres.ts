import pg from 'pg';
import type { Db, Queryable, QueryResult } from './index.ts';
import { withTimeout } from './index.ts';

// int8 (counts, sums of integers) as JS numbers, as PGlite returns them.
pg.types.setTypeParser(20, (v) => Number(v));

export interface PostgresOptions {
  url: string;
  /** search_path for every connection (tests use a schema per run). */
  schema?: string;
  max?: number;
  /** Server-side statement timeout, so a stalled store never holds a request past it. */
  statementTimeoutMs?: number;
}

export async function openPostgres(opts: PostgresOptions): Promise<Db> {
  const options: string[] = [];
  if (opts.schema) options.push(`-c search_path=${opts.schema}`);
  options.push(`-c statement_timeout=${opts.statementTimeoutMs ?? 5000}`);
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.max ?? 10,
    options: options.join(' '),
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection must not crash the process.
  pool.on('error', () => {});
  const wrap = (c: { query: pg.Pool['query'] }): Queryable => ({
    async query<T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> {
      const r = await c.query(sql, params as unknown[]);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
    },
  });
  const base = wrap(pool);
  let closed = false;
  return {
    kind: 'postgres',
    query: base.query,
    async tx(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn(wrap(client));
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    exec: async (sql) => {
      await pool.query(sql);
    },
    ping: async (timeoutMs = 1000) =>
      !closed && withTimeout(pool.query('select 1').then(() => true), timeoutMs, false),
    close: async () => {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
