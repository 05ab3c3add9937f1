// The embedded store: PostgreSQL compiled to WASM (PGlite). By default the engine runs in a worker
// thread (pglite-client.ts, decision 0034), so a long statement does not stop the event loop; with
// `worker: false` (PGLITE_WORKER=false) in this thread, as before.
import { PGlite } from '@electric-sql/pglite';
import type { Db, Queryable, QueryResult } from './index.ts';
import { withTimeout } from './index.ts';
import { currentOrgScope, scopeStatement } from './scope.ts';
import { openWorkerEngine } from './pglite-client.ts';
import { startOptions, type PgliteEngine } from './pglite-protocol.ts';

const engines = new WeakMap<Db, PgliteEngine>();

export interface PgliteOptions {
  /** Start from this dump (`dumpPglite`) instead of an empty cluster: no initdb, no migrations. */
  loadDataDir?: Blob;
  /** Run the engine in a worker thread (default) or in this one. */
  worker?: boolean;
  /** PostgreSQL's shared_buffers in MB (default PostgreSQL's 128; decision 0388). */
  sharedBuffersMb?: number;
  /** Worker only: told when the worker stops, when a restart is scheduled and when one is running (tests). */
  onWorkerEvent?: (event: WorkerEvent) => void;
}

export type WorkerEvent = 'stopped' | 'restart-scheduled' | 'restarted';

/** Embedded PostgreSQL (WASM). dataDir undefined = in memory (tests). */
export async function openPglite(dataDir?: string, opts: PgliteOptions = {}): Promise<Db> {
  const engine =
    opts.worker === false
      ? await openInlineEngine(dataDir, opts.loadDataDir, opts.sharedBuffersMb)
      : await openWorkerEngine({ dataDir, loadDataDir: opts.loadDataDir, sharedBuffersMb: opts.sharedBuffersMb, onEvent: opts.onWorkerEvent });
  const db: Db = {
    kind: 'pglite',
    query: (sql, params) => engine.query(sql, params, currentOrgScope() || undefined),
    queryBytes: async (sql, params, onRow) => {
      const rows = (await engine.query<Record<string, unknown>>(sql, params, currentOrgScope() || undefined)).rows;
      for (const r of rows) onRow(Object.values(r).map((v) => (v === null || v === undefined ? null : Buffer.from(String(v)))));
      return rows.length;
    },
    tx: (fn) => engine.transaction(currentOrgScope() || undefined, fn),
    exec: (sql) => engine.exec(sql),
    ping: (timeoutMs = 1000) => engine.ping(timeoutMs),
    close: () => engine.close(),
  };
  engines.set(db, engine);
  return db;
}

/** The whole cluster as an uncompressed tarball, to start other embedded stores from (`loadDataDir`). */
export async function dumpPglite(db: Db): Promise<Blob> {
  const engine = engines.get(db);
  if (!engine) throw new Error('not an embedded store');
  return engine.dump();
}

/** Ends the embedded store's worker thread as a crash would (tests and fault runs). */
export async function terminatePgliteWorker(db: Db): Promise<void> {
  const engine = engines.get(db);
  if (!engine?.terminate) throw new Error('not an embedded store in a worker');
  await engine.terminate();
}

/** PGlite in this thread: a long statement holds the event loop for its whole length. */
async function openInlineEngine(dataDir: string | undefined, loadDataDir: Blob | undefined, sharedBuffersMb?: number): Promise<PgliteEngine> {
  const pg = await PGlite.create({ ...(dataDir && { dataDir }), ...(loadDataDir && { loadDataDir }), ...startOptions(sharedBuffersMb) });
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
  const transaction = <T>(scope: string | undefined, fn: (q: Queryable) => Promise<T>) =>
    pg.transaction(async (tx) => {
      if (scope !== undefined) {
        const [sql, params] = scopeStatement(scope, true);
        await tx.query(sql, params);
      }
      return fn(wrap(tx));
    });
  return {
    query: <T>(sql: string, params: unknown[] | undefined, scope: string | undefined) =>
      scope !== undefined ? transaction(scope, (q) => q.query<T>(sql, params)) : base.query<T>(sql, params),
    transaction,
    exec: async (sql) => {
      await pg.exec(sql);
    },
    ping: async (timeoutMs) =>
      !closed &&
      withTimeout(
        pg.query('select 1').then(() => true),
        timeoutMs,
        false,
      ),
    dump: () => pg.dumpDataDir('none'),
    close: async () => {
      if (closed) return;
      closed = true;
      await pg.close();
    },
  };
}
