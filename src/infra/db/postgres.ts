import net from 'node:net';
import pg from 'pg';
import type { Db, QueryResult } from './index.ts';
import { StoreUnavailableError, preparedName, withTimeout } from './index.ts';
import { currentOrgScope, scopeStatement } from './scope.ts';
import { CopyOutStream } from './copy-out.ts';
import { reusedBufferSocket } from './socket-reads.ts';

// int8 (counts, sums of integers) as JS numbers, as PGlite returns them.
pg.types.setTypeParser(20, (v) => Number(v));

export interface PostgresOptions {
  url: string;
  /** search_path for every connection (tests use a schema per run). */
  schema?: string;
  max?: number;
  /** Server-side statement timeout, so a slow statement never holds a request past it. */
  statementTimeoutMs?: number;
  /**
   * Client-side cut-off for one query (default: the statement timeout + 500 ms). It covers what the
   * server-side timeout cannot: a connection that went silent (network stall, blackholed or dead
   * server), whose query would otherwise wait for ever and hold its pooled connection.
   */
  queryTimeoutMs?: number;
  /** Waiting for a connection (new or from a full pool). */
  connectTimeoutMs?: number;
  /** Shown in pg_stat_activity, so request and background connections can be told apart. */
  applicationName?: string;
  /**
   * This pool is for writes: ping answers true only from a primary (not in recovery), so readiness
   * reports the store unavailable while a failover has left no primary (a standby still answers).
   */
  requirePrimary?: boolean;
}

/** An error of the connection itself (socket, timeout), not one PostgreSQL answered. */
const isConnectionError = (err: unknown) => err instanceof Error && !('severity' in err);

const sqlState = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
};

/**
 * Answers that say this connection's server is not (or no longer) a primary: shutting down or
 * starting up (57P01-57P03, a server stopped, restarted or demoted by a failover) and a write
 * refused as read-only (25006: the server was demoted to a standby under a live connection, or the
 * entry sent it to a standby). The connection is discarded, so the next checkout connects again
 * through the cluster's entry and finds the new primary.
 */
const isNotPrimaryError = (err: unknown) => /^57P0[123]$/.test(sqlState(err)) || sqlState(err) === '25006';

/**
 * Answers of PostgreSQL that say "not now" rather than "not this": connection exceptions (08),
 * statement timeout or cancel (57014), too many connections (53300), and a server that is not a
 * primary (see isNotPrimaryError): during a failover every one of them is a 503 with Retry-After.
 */
const isTransientServerError = (err: unknown) => {
  const code = sqlState(err);
  return code.startsWith('08') || code === '57014' || code === '53300' || isNotPrimaryError(err);
};

/** The error callers see: transient failures become StoreUnavailableError, the rest pass as they are. */
const surfaced = (err: unknown) =>
  isConnectionError(err) || isTransientServerError(err) ? new StoreUnavailableError((err as Error).message, { cause: err }) : err;

export async function openPostgres(opts: PostgresOptions): Promise<Db> {
  const options: string[] = [];
  if (opts.schema) options.push(`-c search_path=${opts.schema}`);
  // Requests: 4.4 s on the server and 0.5 s more on the client: a request stuck on a silent
  // connection is answered within 5 s, its own handling included (reliability plan T-6; with 4.5 s
  // the slowest took 5,012 ms). Background work opens its own pool with a longer timeout (open.ts).
  const statementTimeoutMs = opts.statementTimeoutMs ?? 4400;
  options.push(`-c statement_timeout=${statementTimeoutMs}`);
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.max ?? 10,
    options: options.join(' '),
    application_name: opts.applicationName,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 3000,
    idleTimeoutMillis: 30_000,
    query_timeout: opts.queryTimeoutMs ?? statementTimeoutMs + 500,
    // Reads into one buffer per connection, not a new Buffer per read (decision 0490); TLS
    // connections keep pg's own socket (TLS reads its socket itself).
    // (pg calls it with the connection's settings; its types declare no argument.)
    stream: ((c: { ssl?: unknown }) => (c.ssl ? new net.Socket() : reusedBufferSocket())) as unknown as () => net.Socket,
  });
  // A client losing its connection must not crash the process: pg emits 'error' on the client
  // (checked out or idle) when the server or the network drops it. The query in progress gets the
  // error, and the client is discarded when it is released (see withClient).
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  // The organisation scope each pooled connection's session is in (see scope.ts); set only when
  // a checkout needs a different one, so a steady stream of one organisation costs nothing extra.
  const sessionScope = new WeakMap<pg.PoolClient, string>();

  /** A checked-out connection; `dead` once one of its queries failed at the connection level. */
  interface Checkout {
    query<T>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
    queryBytes: Db['queryBytes'];
    dead?: Error;
  }
  async function withClient<T>(fn: (c: Checkout) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      // No connection within the wait: the pool is exhausted or the server unreachable.
      throw new StoreUnavailableError((err as Error).message, { cause: err });
    }
    const c: Checkout = {
      async query<R>(sql: string, params?: unknown[]): Promise<QueryResult<R>> {
        try {
          const name = preparedName(sql);
          const got = name === undefined ? await client.query(sql, params as unknown[]) : await client.query({ name, text: sql, values: params as unknown[] });
          // Several statements without parameters (exec) answer one result each: the last one counts.
          const r = Array.isArray(got) ? (got.at(-1) as typeof got) : got;
          return { rows: (r?.rows ?? []) as R[], rowCount: r?.rowCount ?? r?.rows?.length ?? 0 };
        } catch (err) {
          if (isConnectionError(err) || isNotPrimaryError(err)) c.dead = err as Error;
          throw surfaced(err);
        }
      },
      async queryBytes(sql, params, onRow) {
        try {
          return await new Promise<number>((resolve, reject) => {
            const q = new CopyOutStream(sql, params, onRow);
            q.callback = (err, rows) => (err ? reject(err) : resolve(rows!));
            client.query(q as unknown as pg.QueryConfig);
          });
        } catch (err) {
          if (isConnectionError(err) || isNotPrimaryError(err)) c.dead = err as Error;
          throw surfaced(err);
        }
      },
    };
    try {
      const want = currentOrgScope() ?? '';
      if ((sessionScope.get(client) ?? '') !== want) {
        const [sql, params] = scopeStatement(want || undefined, false);
        await c.query(sql, params);
        sessionScope.set(client, want);
      }
      return await fn(c);
    } finally {
      // A connection that failed at the socket level (or timed out) is discarded, not returned to the pool.
      client.release(c.dead);
    }
  }

  let closed = false;
  return {
    kind: 'postgres',
    query: (sql, params) => withClient((c) => c.query(sql, params)),
    queryBytes: (sql, params, onRow) => withClient((c) => c.queryBytes(sql, params, onRow)),
    tx: (fn) =>
      withClient(async (c) => {
        await c.query('BEGIN');
        try {
          const out = await fn({ query: (sql, params) => c.query(sql, params) });
          await c.query('COMMIT');
          return out;
        } catch (err) {
          // On a dead or silent connection a ROLLBACK would only wait out another timeout: the
          // connection is discarded instead, and the server aborts the transaction when it goes.
          if (!c.dead) await c.query('ROLLBACK').catch(() => {});
          throw err;
        }
      }),
    exec: async (sql) => {
      await withClient((c) => c.query(sql));
    },
    // The query itself gives up after at least 5 s, so probes never pile up stuck queries on a silent
    // store, and pg's own timer (which runs before the socket is read) cannot cut off a reply that
    // arrived while the event loop was busy; the ping's verdict is the lag-tolerant withTimeout.
    ping: async (timeoutMs = 1000) =>
      !closed &&
      withTimeout(
        pool
          .query<{ ok: boolean }>({
            text: opts.requirePrimary ? 'select not pg_is_in_recovery() as ok' : 'select true as ok',
            query_timeout: Math.max(2 * timeoutMs, 5000),
          } as pg.QueryConfig)
          .then((r) => r.rows[0]?.ok === true),
        timeoutMs,
        false,
      ),
    close: async () => {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
