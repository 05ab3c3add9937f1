import { PGlite } from '@electric-sql/pglite';
import type { Db, Queryable, QueryResult } from './index.ts';
import { withTimeout } from './index.ts';

/** Embedded PostgreSQL (WASM). dataDir undefined = in memory (tests). */
export async function openPglite(dataDir?: string): Promise<Db> {
  const pg = dataDir ? await PGlite.create(dataDir) : await PGlite.create();
  const wrap = (q: { query: PGlite['query'] }): Queryable => ({
    async query<T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> {
      const r = await q.query<T>(sql, params as unknown[]);
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
    },
  });
  const base = wrap(pg);
  let closed = false;
  return {
    kind: 'pglite',
    query: base.query,
    tx: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    exec: async (sql) => {
      await pg.exec(sql);
    },
    ping: async (timeoutMs = 1000) =>
      !closed && withTimeout(pg.query('select 1').then(() => true), timeoutMs, false),
    close: async () => {
      if (closed) return;
      closed = true;
      await pg.close();
    },
  };
}
