// What a module is: a factory over narrow dependencies that returns its declared operations,
// and optionally what it provides to the platform (key and session checks) and background work.
import type { Config } from '../config.ts';
import type { Db } from '../infra/db/index.ts';
import type { Cache } from '../infra/cache/index.ts';
import type { Bus } from '../infra/bus/index.ts';
import type { Clock } from './clock.ts';
import type { Metrics } from './metrics.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { Operation } from './operation.ts';
import type { ApiKeyAuthenticator, SessionChecker } from './auth.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { CursorCodec } from './cursor.ts';
import type { AuditLog } from '../modules/audit/index.ts';

export interface AppDeps {
  config: Config;
  /** The store for requests. */
  db: Db;
  /**
   * The store for background work (job handlers, maintenance): its own connections and a longer
   * statement timeout on PostgreSQL (decision 0018). Never used on a request's path.
   */
  backgroundDb: Db;
  cache: Cache;
  bus: Bus;
  clock: Clock;
  metrics: Metrics;
  limiter: RateLimiter;
  log: FastifyBaseLogger;
  /** Signed, operation-bound cursors for every paginated list. */
  cursors: CursorCodec;
  /** Records sign-ins, refusals that matter and every configuration write. */
  audit: AuditLog;
}

export interface ModuleInstance {
  name: string;
  operations: Operation[];
  provides?: { apiKeys?: ApiKeyAuthenticator; sessions?: SessionChecker };
  /**
   * Background work (timers, subscriptions); started after the server listens. `operations` is
   * every operation the app serves (e.g. to find deprecated ones).
   */
  start?(ctx: ModuleStartContext): Promise<void>;
  stop?(): Promise<void>;
}

export interface ModuleStartContext {
  operations: readonly Operation[];
}

export type ModuleFactory = (deps: AppDeps) => ModuleInstance;
