import { PGlite } from '@electric-sql/pglite';
import type { Db, Queryable, QueryResult } from './index.ts';
import { withTimeout } from './index.ts';
import { currentOrgScope, scopeStatement } from './scope.ts';

const handles = new WeakMap<Db, PGlite>();

export interface PgliteOptions {
  /** Start from this dump (`dumpPglite`) instead of an empty cluster: no initdb, no migrations. */
  loadDataDir?: Blob;
}

/** Embedded PostgreSQL (WASM). dataDir undefined = in memory (tests). */
export async function openPglite(dataDir?: string, opts: PgliteOptions = {}): Promise<Db> {
  const pg = await PGlite.create({ ...(dataDir && { dataDir }), ...(opts.loadDataDir && { loadDataDir: opts.loadDataDir }) });
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
  const db: Db = {
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
  handles.set(db, pg);
  return db;
}

/** The whole cluster as an uncompressed tarball, to start other embedded stores from (`loadDataDir`). */
export async function dumpPglite(db: Db): Promise<Blob> {
  const pg = handles.get(db);
  if (!pg) throw new Error('not an embedded store');
  return pg.dumpDataDir('none');
}
