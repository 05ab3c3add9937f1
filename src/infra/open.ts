// Builds the infrastructure from configuration: PostgreSQL or embedded PGlite, Redis or memory,
// NATS JetStream or in-process. The only place adapters are chosen.
import { resolve } from 'node:path';
import type { Config } from '../core/config.ts';
import type { Db } from './db/index.ts';
import type { Cache } from './cache/index.ts';
import type { Bus } from './bus/index.ts';
import { openPglite } from './db/pglite.ts';
import { openPostgres } from './db/postgres.ts';
import { primaryOnly, readReplica, type ReadDb } from './db/read-replica.ts';
import { acquireStoreLock } from './db/lock.ts';
import { migrate, type MigrationSource } from './db/migrate.ts';
import { createMemoryCache } from './cache/memory.ts';
import { openRedisCache } from './cache/redis.ts';
import { createMemoryBus } from './bus/memory.ts';
import { openNatsBus } from './bus/nats.ts';

export interface Infra {
  /** The store for requests (PostgreSQL: 4.4 s statement timeout). */
  db: Db;
  /**
   * The store for background work (job handlers, maintenance): on PostgreSQL its own small pool
   * with BACKGROUND_STATEMENT_TIMEOUT_MS, so long maintenance neither takes a request's
   * connection nor runs into the request timeout; on PGlite the same single connection as `db`.
   */
  background: Db;
  /**
   * The store for reads that tolerate a little lag (decision 0250): the hot standby of
   * DATABASE_READ_URL while it answers within the allowed lag, the primary (`db`) otherwise.
   */
  read: ReadDb;
  cache: Cache;
  bus: Bus;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Who holds the embedded store's lock ('server', 'cli'). */
  holder: string;
  /** PostgreSQL search_path (tests use a schema per run). */
  schema?: string;
  /** Remove the bus stream on close (tests). */
  ephemeralBus?: boolean;
  migrate?: boolean;
  /** The modules' migrations in dependency order (the platform's own always run first). */
  migrations?: readonly MigrationSource[];
  /** Tests only: the shared cache's windows follow this clock instead of Redis's own (decision 0004). */
  cacheWindowClock?: () => number;
  /** In-memory embedded store only: start from this dump of an already migrated store (tests). */
  pgliteTemplate?: Blob;
  /** The service clock, so the embedded cache expires entries on the same time as everything else. */
  now?: () => number;
}

export const IN_MEMORY = ':memory:';

export async function openDb(config: Config, opts: OpenOptions): Promise<{ db: Db; release: () => void }> {
  if (config.databaseUrl) {
    return { db: await openPostgres({ url: config.databaseUrl, schema: opts.schema, requirePrimary: true }), release: () => {} };
  }
  const worker = config.pgliteWorker;
  const sharedBuffersMb = config.pgliteSharedBuffersMb;
  if (config.dataDir === IN_MEMORY)
    return { db: await openPglite(undefined, { loadDataDir: opts.pgliteTemplate, worker, sharedBuffersMb }), release: () => {} };
  const dir = resolve(config.dataDir);
  const release = acquireStoreLock(dir, opts.holder);
  try {
    return { db: await openPglite(dir, { worker, sharedBuffersMb }), release };
  } catch (e) {
    release();
    throw e;
  }
}

/** The background store beside `db` (see Infra.background); closed by its own close(). */
export async function openBackgroundDb(config: Config, opts: Pick<OpenOptions, 'schema'>, db: Db): Promise<Db> {
  if (!config.databaseUrl) return { ...db, close: async () => {} };
  return openPostgres({
    url: config.databaseUrl,
    schema: opts.schema,
    max: config.background.poolMax,
    statementTimeoutMs: config.background.statementTimeoutMs,
    connectTimeoutMs: 10_000,
    applicationName: `${config.namespace}-background`,
  });
}

/** The read store beside `db` (see Infra.read); closed by its own close(). */
export async function openReadDb(config: Config, opts: Pick<OpenOptions, 'schema'>, db: Db): Promise<ReadDb> {
  if (!config.databaseUrl || !config.databaseReadUrl) return primaryOnly(db);
  const replica = await openPostgres({
    url: config.databaseReadUrl,
    schema: opts.schema,
    // A standby that went away is noticed within a second, and its reads go to the primary.
    connectTimeoutMs: 1000,
    applicationName: `${config.namespace}-read`,
  });
  const read = readReplica({ primary: db, replica, maxLagSeconds: config.databaseReadMaxLagSeconds });
  await read.check();
  return read;
}

export async function openInfra(config: Config, opts: OpenOptions): Promise<Infra> {
  const { db, release } = await openDb(config, opts);
  let background: Db | undefined;
  let read: ReadDb | undefined;
  try {
    if (opts.migrate !== false) await migrate(db, opts.migrations ?? []);
    background = await openBackgroundDb(config, opts, db);
    read = await openReadDb(config, opts, db);
  } catch (e) {
    await background?.close().catch(() => {});
    await db.close();
    release();
    throw e;
  }
  const cache =
    config.redisUrl || config.redisSentinels
      ? await openRedisCache({
          url: config.redisUrl,
          sentinels: config.redisSentinels,
          sentinelName: config.redisSentinelName,
          // Only decides when a silent connection is replaced (request paths are bounded by the
          // budget, decision 0013). ioredis's timer runs before the socket is read, so a limit
          // shorter than the event loop's worst lag under load replaced healthy connections and
          // made readiness report the cache down: one second, well above that lag.
          commandTimeoutMs: Math.max(config.limits.limiterBudgetMs * 20, 1000),
          windowClock: opts.cacheWindowClock,
        })
      : createMemoryCache(opts.now);
  const bus = config.natsUrl
    ? await openNatsBus({
        url: config.natsUrl,
        namespace: config.namespace,
        replicas: config.natsStreamReplicas,
        deleteStreamOnClose: opts.ephemeralBus,
      })
    : createMemoryBus();
  return {
    db,
    background,
    read,
    cache,
    bus,
    async close() {
      await Promise.allSettled([bus.close(), cache.close()]);
      await background.close().catch(() => {});
      await read.close().catch(() => {});
      await db.close().catch(() => {});
      release();
    },
  };
}
