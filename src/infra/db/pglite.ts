import { PGlite } from '@electric-sql/pglite';
import type { Db, Queryable, QueryResult } from './index.ts';
import { withTimeout } from './index.ts';
import { currentOrgScope, scopeStatement } from './scope.ts';

/** Embedded PostgreSQL (WASM). dataDir undefined = in memory (tests). */
export async function openPglite(dataDir?: string): Promise<Db> {
  const pg = dataDir ? await PGlite.create(dataDir) : await PGlite.create();
  const wrap = (q: { query: PGlite['query'] }): Queryable => ({
    async query<T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> {
      const r = await q.query<T>(sql, params as unknown[]);
      // As pg reports it: rows returned, else rows affected (PGlite says 0 affected for a SELECT).
      return { rows: r.rows, rowCount: r.rows.length || r.affectedRows || 0 };
    },
  });
  const base = wrap(pg);
  let closed = false;
  // One connection serves every request in turn, so a scope is set per transaction (local), never
  // per session: another request's query cannot run in between.
  const scoped = <T>(orgId: string, fn: (q: Queryable) => Promise<T>) =>
    pg.transaction(async (tx) => {
      const [sql, params] = scopeStatement(orgId, true);
      await tx.query(sql, params);
      return fn(wrap(tx));
    });
  return {
    kind: 'pglite',
    query<T>(sql: string, params?: unknown[]) {
      const orgId = currentOrgScope();
      return orgId ? scoped(orgId, (q) => q.query<T>(sql, params)) : base.query<T>(sql, params);
    },
    tx: (fn) => {
      const orgId = currentOrgScope();
      return orgId ? scoped(orgId, fn) : pg.transaction((tx) => fn(wrap(tx)));
    },
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
