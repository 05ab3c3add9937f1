import pg from 'pg';
import type { Db, Queryable, QueryResult } from './index.ts';
import { withTimeout } from './index.ts';
import { currentOrgScope, scopeStatement } from './scope.ts';

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
  const wrap = (c: { query: pg.PoolClient['query'] }): Queryable => ({
    async query<T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> {
      const r = await c.query(sql, params as unknown[]);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
    },
  });

  // The organisation scope each pooled connection's session is in (see scope.ts); set only when
  // a checkout needs a different one, so a steady stream of one organisation costs nothing extra.
  const sessionScope = new WeakMap<pg.PoolClient, string>();
  async function withClient<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      const want = currentOrgScope() ?? '';
      if ((sessionScope.get(client) ?? '') !== want) {
        const [sql, params] = scopeStatement(want || undefined, false);
        await client.query(sql, params);
        sessionScope.set(client, want);
      }
      return await fn(client);
    } catch (err) {
      // A connection that failed at the socket level is discarded, not returned to the pool.
      if (err instanceof Error && !('severity' in err)) broken = err;
      throw err;
    } finally {
      client.release(broken);
    }
  }

  let closed = false;
  return {
    kind: 'postgres',
    query: (sql, params) => withClient((c) => wrap(c).query(sql, params)),
    tx: (fn) =>
      withClient(async (client) => {
        await client.query('BEGIN');
        try {
          const out = await fn(wrap(client));
          await client.query('COMMIT');
          return out;
        } catch (err) {
          await client.query('ROLLBACK').catch(() => {});
          throw err;
        }
      }),
    exec: async (sql) => {
      await withClient((c) => c.query(sql));
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
