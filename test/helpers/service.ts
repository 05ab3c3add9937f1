// Test harness: a whole service on a real store. PGlite in memory by default; with
// TEST_DATABASE_URL / TEST_REDIS_URL / TEST_NATS_URL the real servers, isolated by a fresh
// PostgreSQL database (a copy of the migrated template) and a fresh cache/bus namespace per service.
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import type { Config } from '../../src/core/config.ts';
import { startService, type Service } from '../../src/server.ts';
import { ManualClock, type Clock } from '../../src/platform/clock.ts';
import { defaultModules } from '../../src/modules/index.ts';
import type { ModuleFactory } from '../../src/platform/module.ts';
import { createProvisioning } from '../../src/cli/provisioning.ts';
import type { Role } from '../../src/platform/roles.ts';
import { clonePostgresTemplate, pgliteTemplate } from './template.ts';
import { replayed } from './replica.ts';

/** Random per test process (never a value written down: config.ts refuses published secrets). */
export const TEST_JWT_SECRET = randomBytes(32).toString('base64url');

export const realServers = {
  database: process.env.TEST_DATABASE_URL,
  redis: process.env.TEST_REDIS_URL,
  nats: process.env.TEST_NATS_URL,
};

export interface TestServiceOptions {
  clock?: Clock;
  env?: Record<string, string>;
  /** Extra modules (fixtures) on top of the default ones. */
  extraModules?: ModuleFactory[];
  /** Share the database and cache/bus namespace of another service (two instances on one store). */
  shareWith?: TestService;
  /**
   * On PostgreSQL: DATABASE_READ_URL for the service, given the name of its own database (a hot
   * standby replicates the whole cluster, so the copy appears there once replayed; the start waits
   * for that). test/helpers/replica.ts.
   */
  readUrl?: (database: string) => string;
  /** Where the service's log lines go (with env LOG_LEVEL set to see them). */
  logDestination?: import('pino').DestinationStream;
}

export interface TestService extends Service {
  config: Config;
  /** On PostgreSQL, the name of the service's own database (copied from the migrated template). */
  database?: string;
  clock: Clock;
  request(opts: InjectOptions): Promise<LightMyRequestResponse>;
  /** An access token as the identity module issues them, signed with the test secret. */
  token(claims: { orgId: string; roles?: Role[]; userId?: string; staff?: boolean; admin?: boolean; expiresIn?: string }): Promise<string>;
  createOrg(id: string, modules?: string[]): Promise<void>;
  createUser(orgId: string, email: string, role: Role, password?: string): Promise<{ id: string }>;
}

export async function startTestService(opts: TestServiceOptions = {}): Promise<TestService> {
  const shared = opts.shareWith;
  // On PostgreSQL each service gets its own database, copied from the run's migrated template;
  // a second instance (shareWith) runs on the first one's.
  const database = shared || !realServers.database ? undefined : await clonePostgresTemplate(realServers.database);
  const databaseUrl = shared ? shared.config.databaseUrl : database?.url;
  const readUrl = opts.readUrl && database ? opts.readUrl(database.name) : undefined;
  if (readUrl) await replayed(realServers.database!, readUrl);
  const namespace = shared ? shared.config.namespace : `t${randomBytes(5).toString('hex')}`;
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATA_DIR: ':memory:',
    JWT_SECRET: TEST_JWT_SECRET,
    NAMESPACE: namespace,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // The embedded store's engine in a worker thread (the default) or in the test's thread.
    ...(process.env.PGLITE_WORKER && { PGLITE_WORKER: process.env.PGLITE_WORKER }),
    ALLOW_PRIVATE_OUTBOUND: 'true',
    // No test may reach past this machine, whatever URL it registers.
    OUTBOUND_LOOPBACK_ONLY: 'true',
    ...(databaseUrl && { DATABASE_URL: databaseUrl }),
    ...(readUrl && { DATABASE_READ_URL: readUrl }),
    ...(realServers.redis && { REDIS_URL: realServers.redis }),
    ...(realServers.nats && { NATS_URL: realServers.nats }),
    ...opts.env,
  };
  const config = loadConfig(env);
  const clock = opts.clock ?? shared?.clock ?? new ManualClock();
  const service = await startService(config, {
    clock,
    // Rate-limit windows on a real Redis follow the test's clock, as the memory cache's do, so a
    // test moves a window on by moving the clock (a deployment counts on Redis's own TIME).
    cacheWindowClock: () => clock.now().getTime(),
    // An in-memory embedded store starts from the run's migrated template.
    pgliteTemplate: !config.databaseUrl && config.dataDir === ':memory:' && !shared ? await pgliteTemplate() : undefined,
    ephemeralBus: !shared,
    // Embedded stores live in one process: a second instance runs on the first one's store, cache
    // and bus, as two servers would on one PostgreSQL, Redis and NATS.
    sharedInfra: shared && !realServers.database ? { db: shared.deps.db, cache: shared.deps.cache, bus: shared.deps.bus } : undefined,
    modules: [...defaultModules, ...(opts.extraModules ?? [])],
    logDestination: opts.logDestination,
  });
  const key = new TextEncoder().encode(config.jwtSecret);
  const provisioning = createProvisioning(service.deps.db);
  let userSeq = 0;
  return {
    ...service,
    config,
    database: shared ? shared.database : database?.name,
    clock,
    request: (o) => service.app.inject(o),
    async token({ orgId, roles = ['ORG_ADMIN'], userId, staff, admin, expiresIn = '60m' }) {
      const now = Math.floor(clock.now().getTime() / 1000);
      return new SignJWT({
        tenant_id: orgId,
        org_id: orgId,
        roles,
        ...(staff && { platform_staff: true }),
        ...(admin && { platform_admin: true }),
      })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(userId ?? `user-${orgId}-${++userSeq}`)
        .setIssuedAt(now)
        .setExpirationTime(expiresIn === '60m' ? now + 3600 : expiresIn)
        .setJti(randomBytes(8).toString('hex'))
        .sign(key);
    },
    async createOrg(id, modules = []) {
      await provisioning.createOrg({ id, name: `Org ${id}`, modules });
    },
    async createUser(orgId, email, role, password = 'correct-horse-battery-staple') {
      const u = await provisioning.createUser({ orgId, email, password, role });
      return { id: u.id };
    },
    async stop() {
      await service.stop();
      await database?.drop();
    },
  };
}

/** Parses a JSON response body. */
export function json<T = any>(res: LightMyRequestResponse): T {
  return JSON.parse(res.body) as T;
}
