// Starts a whole service from configuration: infrastructure, app, background work. Used by
// main.ts, and by tests and benchmarks that need a real listening server.
import { createReadinessReports } from './platform/readiness.ts';
import { pino, type DestinationStream } from 'pino';
import type { Config } from './core/config.ts';
import { openInfra, type Infra, type OpenOptions } from './infra/open.ts';
import { primaryOnly } from './infra/db/read-replica.ts';
import { buildApp, type BuiltApp } from './app.ts';
import { createMetrics } from './platform/metrics.ts';
import { createRateLimiter } from './platform/rate-limit.ts';
import { systemClock, type Clock } from './platform/clock.ts';
import type { AppDeps, ModuleFactory } from './platform/module.ts';
import { createCursorCodec } from './platform/cursor.ts';
import { setOutboundPolicy } from './infra/outbound/http-client.ts';
import { budgeted } from './infra/cache/budget.ts';
import { moduleMigrations, moduleList } from './modules/index.ts';
import { createServiceRegistry } from './platform/services.ts';
import { declaredExportables, declaredScopes, provideServices } from './platform/module.ts';
import { createEntryGuard } from './platform/entry-guard.ts';
import { createFailedAuthLimit } from './platform/auth-failures.ts';
import { reportingBus } from './infra/bus/index.ts';
import { createPlatformJobs, jobQueueMetrics, registerBackground } from './platform/jobs.ts';
import { createJobUnits } from './platform/job-units.ts';
import { startTracing, tracedBus, tracedCache, tracedDb } from './platform/tracing.ts';

export interface Service extends BuiltApp {
  deps: AppDeps;
  /** Runs every background job due by the clock (tests: after moving a ManualClock). */
  runDue(): Promise<number>;
  /** Stops accepting, finishes in-flight requests, stops background work, closes pools. */
  stop(): Promise<void>;
}

/** Where the access-token secret came from, for the start-up log (never the secret). */
export function describeSecretSource(config: Pick<Config, 'jwtSecretSource'>): string {
  const src = config.jwtSecretSource;
  if (src.kind === 'environment') return 'JWT_SECRET';
  if (src.kind === 'per-process') return 'generated for this process (DATA_DIR=:memory:; tokens end with it)';
  return `${src.created ? 'generated now and kept' : 'kept'} in ${src.path}`;
}

export async function startService(
  config: Config,
  opts: Partial<OpenOptions> & {
    clock?: Clock;
    modules?: ModuleFactory[];
    defaultMetrics?: boolean;
    /** Run on another service's store, cache and bus (a second instance in one process); not closed here. */
    sharedInfra?: Pick<Infra, 'db' | 'cache' | 'bus'> & Partial<Pick<Infra, 'background' | 'read'>>;
    /** Where log lines go (tests read them); standard output otherwise. */
    logDestination?: DestinationStream;
  } = {},
): Promise<Service> {
  setOutboundPolicy({ loopbackOnly: config.outboundLoopbackOnly });
  const clock = opts.clock ?? systemClock;
  const infra: Infra = opts.sharedInfra
    ? { background: opts.sharedInfra.db, read: primaryOnly(opts.sharedInfra.db), ...opts.sharedInfra, close: async () => {} }
    : await openInfra(config, { holder: 'server', migrations: moduleMigrations, ...opts, now: () => clock.now().getTime() });
  const log = pino({ level: config.logLevel, redact: ['req.headers.authorization', '*.password', '*.secret'] }, opts.logDestination);
  log.info({ jwt_secret_source: describeSecretSource(config) }, 'access-token secret source');
  // Traces (decision 0386): a span per statement, cache call and publish inside a traced request or job.
  const tracing = await startTracing(config.tracing);
  if (tracing.enabled) log.info({ endpoint: config.tracing.endpoint }, 'traces exported over OTLP/HTTP');
  const store = { db: tracedDb(tracing, infra.db), background: tracedDb(tracing, infra.background), read: tracedDb(tracing, infra.read) };
  const services = createServiceRegistry();
  const metrics = createMetrics({ defaults: opts.defaultMetrics });
  const jobs = createPlatformJobs({ db: store.db, backgroundDb: store.background, clock, log, config, metrics });
  const entries = createEntryGuard({ log, metrics });
  const limiter = createRateLimiter({ cache: tracedCache(tracing, infra.cache), clock, namespace: config.namespace, budgetMs: config.limits.limiterBudgetMs });
  // Cache calls on a request's path are bounded by the limiter's budget (reliability plan T-8).
  const cache = budgeted(tracedCache(tracing, infra.cache), config.limits.limiterBudgetMs);
  const deps: AppDeps = {
    config,
    db: store.db,
    backgroundDb: store.background,
    readDb: store.read,
    cache,
    // A subscriber's failure is logged and counted; it never ends the process nor the subscription.
    bus: reportingBus(tracedBus(tracing, infra.bus), (subject, err) => entries.failed('bus', err, { subject })),
    clock,
    metrics,
    limiter,
    failedAuth: createFailedAuthLimit({ cache, limiter, clock, namespace: config.namespace, limit: config.limits.anonPerMinutePerIp }),
    entries,
    log,
    cursors: createCursorCodec(config.jwtSecret),
    services,
    jobs,
    jobUnits: createJobUnits({ db: store.background, clock, metrics, log }),
    tracing,
    scopes: declaredScopes(moduleList),
    exportables: declaredExportables(moduleList),
    readiness: createReadinessReports(),
  };
  // Every module's services, providers before the modules that depend on them, before any factory.
  provideServices(moduleList, deps);
  let built: BuiltApp;
  try {
    built = await buildApp(deps, opts.modules);
    const kinds = registerBackground(jobs, built.modules);
    jobQueueMetrics(deps.metrics, { db: infra.db, clock, kinds: () => kinds });
    await built.app.ready();
    for (const m of built.modules) await m.start?.({ operations: built.operations, server: built.app.server });
    await jobs.start();
  } catch (e) {
    await infra.close();
    throw e;
  }
  let stopping: Promise<void> | undefined;
  return {
    ...built,
    deps,
    runDue: () => jobs.runDue(),
    stop() {
      stopping ??= (async () => {
        // Long-lived connections (a module's WebSockets) end first: the server's close waits for them.
        for (const m of built.modules) await m.closing?.().catch(() => {});
        await built.app.close();
        await jobs.stop().catch(() => {});
        for (const m of built.modules) await m.stop?.().catch(() => {});
        await deps.limiter.close();
        await tracing.flush().catch(() => {});
        await infra.close();
      })();
      return stopping;
    },
  };
}
