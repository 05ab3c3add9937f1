// The store for reads that tolerate a little lag (decision 0250): a PostgreSQL hot standby when
// DATABASE_READ_URL is set, the primary otherwise, and the primary whenever the standby is
// unreachable or further behind than the allowed lag. Callers see one Db; which server answered is
// the adapter's business. Nothing written goes through it: a standby refuses writes.
import type { Db, Queryable, QueryResult } from './index.ts';
import { StoreUnavailableError, withTimeout } from './index.ts';

export interface ReplicaState {
  /** The standby answers, is in recovery and within the allowed lag: reads go to it. */
  available: boolean;
  /** Seconds the standby's replay is behind the primary (0 when caught up); null when unknown. */
  lagSeconds: number | null;
  /** Why reads are on the primary, when they are. */
  reason?: string;
}

export interface ReadDb extends Db {
  /** Whether a standby is configured at all. */
  readonly replicated: boolean;
  state(): ReplicaState;
  /** Checks the standby now (readiness) and returns the state it leaves. */
  check(timeoutMs?: number): Promise<ReplicaState>;
  /** Reads answered by the standby and by the primary in its place (metrics, tests). */
  counts(): { replica: number; fallback: number };
}

/** The primary as the read store: no standby configured, or the embedded store. */
export function primaryOnly(db: Db): ReadDb {
  return {
    ...db,
    close: async () => {},
    replicated: false,
    state: () => ({ available: false, lagSeconds: null, reason: 'no read replica configured' }),
    check: async () => ({ available: false, lagSeconds: null, reason: 'no read replica configured' }),
    counts: () => ({ replica: 0, fallback: 0 }),
  };
}

/**
 * Errors after which the same read is run again on the primary: the standby could not be reached
 * or dropped the connection (StoreUnavailableError other than a statement timeout), or cancelled the
 * query for a conflict with recovery (40001 on a standby, a cleanup it had to replay). A statement
 * timeout is not retried (the primary would take as long), nor is anything PostgreSQL refused.
 */
function shouldFallBack(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return (err.cause as { code?: unknown } | undefined)?.code !== '57014';
  const code = (err as { code?: unknown }).code;
  return code === '40001' || code === '25006';
}

export interface ReadReplicaOptions {
  primary: Db;
  replica: Db;
  /** Past this replay lag the standby is skipped until it catches up. */
  maxLagSeconds: number;
  /** How often the standby is checked while it is in use (and while it is away). */
  checkEveryMs?: number;
  onChange?: (state: ReplicaState) => void;
}

export function readReplica(opts: ReadReplicaOptions): ReadDb {
  const { primary, replica, maxLagSeconds } = opts;
  let current: ReplicaState = { available: true, lagSeconds: null };
  let replicaReads = 0;
  let fallbacks = 0;
  let closed = false;

  const set = (next: ReplicaState) => {
    const changed = next.available !== current.available;
    current = next;
    if (changed) opts.onChange?.(next);
  };

  async function measure(timeoutMs: number): Promise<ReplicaState> {
    // The lag in seconds: 0 when the standby has replayed everything the primary has written,
    // otherwise the age of the last transaction it replayed.
    const probe = async (): Promise<ReplicaState> => {
      const [p, r] = await Promise.all([
        primary.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn').catch(() => undefined),
        replica.query<{ recovery: boolean; lsn: string | null; age: number | null }>(
          `select pg_is_in_recovery() as recovery, pg_last_wal_replay_lsn()::text as lsn,
                  extract(epoch from now() - pg_last_xact_replay_timestamp())::float8 as age`,
        ),
      ]);
      const row = r.rows[0]!;
      if (!row.recovery) return { available: false, lagSeconds: null, reason: 'the read server is not a standby (promoted?)' };
      let lag: number | null = null;
      if (p && row.lsn) {
        const behind = await primary.query<{ bytes: number }>('select pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::float8 as bytes', [p.rows[0]!.lsn, row.lsn]);
        lag = behind.rows[0]!.bytes <= 0 ? 0 : Math.max(0, row.age ?? 0);
      }
      if (lag !== null && lag > maxLagSeconds) return { available: false, lagSeconds: lag, reason: `the standby is ${lag.toFixed(1)} s behind` };
      return { available: true, lagSeconds: lag };
    };
    return withTimeout(
      probe().catch(() => ({ available: false, lagSeconds: null, reason: 'the standby is unreachable' })),
      timeoutMs,
      { available: false, lagSeconds: null, reason: 'the standby did not answer in time' },
    );
  }

  let checking: Promise<ReplicaState> | undefined;
  const check = (timeoutMs = 1000) => {
    if (closed) return Promise.resolve(current);
    checking ??= measure(timeoutMs).then((s) => {
      checking = undefined;
      set(s);
      return s;
    });
    return checking;
  };
  const timer = setInterval(() => void check(), opts.checkEveryMs ?? 5000);
  timer.unref();

  // The reason is shown on the public readiness probe: no address or server message in it.
  function lost() {
    set({ available: false, lagSeconds: null, reason: 'the standby is unreachable' });
  }

  async function route<T>(onReplica: () => Promise<T>, onPrimary: () => Promise<T>): Promise<T> {
    if (!current.available) {
      fallbacks++;
      return onPrimary();
    }
    try {
      const out = await onReplica();
      replicaReads++;
      return out;
    } catch (err) {
      if (!shouldFallBack(err)) throw err;
      if (err instanceof StoreUnavailableError) lost();
      fallbacks++;
      return onPrimary();
    }
  }

  return {
    kind: 'postgres',
    replicated: true,
    query: <T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> =>
      route(
        () => replica.query<T>(sql, params),
        () => primary.query<T>(sql, params),
      ),
    // Re-run on the primary only when the replica failed before its first row (a row already handed on cannot be taken back).
    queryBytes: (sql: string, params: unknown[], onRow: (fields: readonly (Buffer | null)[]) => void) => {
      let rows = 0;
      return route(
        () =>
          replica.queryBytes(sql, params, (f) => {
            rows++;
            onRow(f);
          }),
        () => {
          if (rows > 0) throw new StoreUnavailableError('the read store failed during a read already under way');
          return primary.queryBytes(sql, params, onRow);
        },
      );
    },
    // Read-only work only (a standby refuses anything else); re-run whole on the primary.
    tx: <T>(fn: (q: Queryable) => Promise<T>) =>
      route(
        () => replica.tx(fn),
        () => primary.tx(fn),
      ),
    exec: async () => {
      throw new Error('the read store runs no statements of its own');
    },
    ping: (timeoutMs) => replica.ping(timeoutMs),
    state: () => current,
    check,
    counts: () => ({ replica: replicaReads, fallback: fallbacks }),
    close: async () => {
      closed = true;
      clearInterval(timer);
      await replica.close();
    },
  };
}
