// What a module is: a factory over narrow dependencies that returns its declared operations,
// and optionally what it provides to the platform (key and session checks) and background work.
import { fileURLToPath } from 'node:url';
import type { Tracing } from './tracing.ts';
import type { Server as HttpServer } from 'node:http';
import type { Config } from '../core/config.ts';
import type { ConfigSection } from '../core/config-section.ts';
import type { MigrationSource } from '../infra/db/migrate.ts';
import type { Db } from '../infra/db/index.ts';
import type { ReadDb } from '../infra/db/read-replica.ts';
import type { Cache } from '../infra/cache/index.ts';
import type { Bus } from '../infra/bus/index.ts';
import type { Clock } from './clock.ts';
import type { Metrics } from './metrics.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { Operation } from './operation.ts';
import type { ApiKeyAuthenticator, DeviceAuthenticator, SessionChecker } from './auth.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { CursorCodec } from './cursor.ts';
import type { ErrorDoc } from './error-docs.ts';
import type { ServiceRegistry } from './services.ts';
import type { JobQueue, ModuleBackground } from './jobs.ts';
import type { JobUnits } from './job-units.ts';
import type { EntryGuard } from './entry-guard.ts';
import type { FailedAuthLimit } from './auth-failures.ts';
import type { ExportableCollection } from './exportable.ts';
import type { ReadinessReports } from './readiness.ts';

export interface AppDeps {
  config: Config;
  /** The store for requests. */
  db: Db;
  /**
   * The store for background work (job handlers, maintenance): its own connections and a longer
   * statement timeout on PostgreSQL (decision 0018). Never used on a request's path.
   */
  backgroundDb: Db;
  /**
   * The store for reads that tolerate a little lag: history, reports, exports, listings (decision
   * 0250). A PostgreSQL hot standby when DATABASE_READ_URL is set and it keeps up, the primary
   * otherwise. Only plain reads go to it; a read that must see the caller's own latest write uses `db`.
   */
  readDb: ReadDb;
  cache: Cache;
  bus: Bus;
  clock: Clock;
  metrics: Metrics;
  limiter: RateLimiter;
  /**
   * The failed-authentication limit per source address (decision 0027), shared by the HTTP guard
   * and by a module that authenticates outside it (the hub's chargers at the WebSocket handshake).
   */
  failedAuth: FailedAuthLimit;
  /**
   * Wraps every entry that is not a Fastify route (upgrade, socket and emitter callbacks, timers,
   * unawaited promises): a failure is logged and counted, never the end of the process (decision 0270).
   */
  entries: EntryGuard;
  log: FastifyBaseLogger;
  /** Signed, operation-bound cursors for every paginated list. */
  cursors: CursorCodec;
  /** The services modules provide to each other (ModuleDefinition.provides). */
  services: ServiceRegistry;
  /**
   * The durable job queue (one per instance, started and stopped by the platform): `enqueue` work
   * for a handler a module declared in `background`, `waitingAge` for lag figures.
   */
  jobs: Pick<JobQueue, 'enqueue' | 'waitingAge'>;
  /**
   * Per-organisation units of cross-organisation background work (decision 0285): a recurring job
   * that works across organisations runs each organisation through `jobUnits.each`, so one
   * organisation's failure is retried, then quarantined, while the others proceed.
   */
  jobUnits: JobUnits;
  /** Traces (decision 0386): the platform's request spans; off unless OTEL_EXPORTER_OTLP_ENDPOINT is set. */
  tracing: Tracing;
  /** Every API key scope the modules declare (ModuleDefinition.scopes), with what each allows. */
  scopes: Readonly<Record<string, string>>;
  /**
   * Every collection the modules offer to the organisation's data export (ModuleDefinition.exportable),
   * in module-list order (decision 0355): the export module reads them here and names no module.
   */
  exportables: readonly ExportableCollection[];
  /** Informational members of the readiness answer that modules report (decision 0441); none sets `degraded`. */
  readiness: ReadinessReports;
}

/**
 * A limit an operation names in `rateLimit`: `limit` requests per window, counted per organisation
 * (after authentication), or per source address (`per: 'address'`, before any credential or body is
 * looked at: what a public form needs).
 */
export interface LimitClass {
  /** The policy name in 429 counts and cache keys. */
  policy: string;
  limit: number;
  windowMs: number;
  per?: 'organisation' | 'address';
}

export interface ModuleInstance {
  name: string;
  operations: Operation[];
  provides?: { apiKeys?: ApiKeyAuthenticator; devices?: DeviceAuthenticator; sessions?: SessionChecker };
  /** OpenAPI tags this module's operations use, each with its description. */
  tags?: Record<string, string>;
  /** The stable error codes this module answers with (the error reference page lists them). */
  errors?: readonly ErrorDoc[];
  /** Path prefixes under which errors use the envelope and answers carry X-Request-Id (platform/surface.ts). */
  envelopePrefixes?: readonly string[];
  /** Limit classes its operations may name in `rateLimit`, by name. */
  limitClasses?: Readonly<Record<string, LimitClass>>;
  /** Job handlers, recurring jobs and event subscriptions; the platform's queue runs them. */
  background?: ModuleBackground;
  /**
   * Other background work (timers, subscriptions); started after the server listens. `operations` is
   * every operation the app serves (e.g. to find deprecated ones).
   */
  start?(ctx: ModuleStartContext): Promise<void>;
  /**
   * Called when the service starts to stop, before the HTTP server waits for its connections to
   * end: a module that holds long-lived connections (WebSockets taken over from `ctx.server`)
   * closes them here, or the server's close would wait for them.
   */
  closing?(): Promise<void>;
  stop?(): Promise<void>;
}

export interface ModuleStartContext {
  operations: readonly Operation[];
  /**
   * The service's HTTP server (the one the API listens on): a module serving WebSockets handles
   * its `upgrade` events for its own paths and leaves the others alone.
   */
  server?: HttpServer;
}

export type ModuleFactory = (deps: AppDeps) => ModuleInstance;

/** What a module's own factory makes: an instance without its name, which its definition gives. */
export type ModuleParts = Omit<ModuleInstance, 'name'>;

/** A module's own factory (`ModuleDefinition.create`). */
export type ModuleCreate = (deps: AppDeps) => ModuleParts;

/**
 * A module as the module list names it: what it needs before it (for its migrations and the
 * services it receives), where its migrations are, and the factory for its operations and
 * background work (absent for a module that only provides services to others).
 */
export interface ModuleDefinition {
  name: string;
  dependsOn?: readonly string[];
  /** Absolute folder of this module's `NNNN_name.sql` migrations (`migrationsDir(import.meta.url)`). */
  migrations?: string;
  /**
   * API key scopes this module's operations require, with what each allows (a name ending in
   * `:read` is a read scope). Keys may hold any declared scope.
   */
  scopes?: Readonly<Record<string, string>>;
  /**
   * This module's settings: read from the environment with the rest at start (a bad value stops
   * it), documented in docs/configuration.md (a test checks every variable read is there). The
   * module reads them with `sectionOf(deps.config, section)`.
   */
  config?: ConfigSection<unknown>;
  /**
   * This module's data offered to the organisation's data export (decisions 0203, 0206, 0355): its
   * collections, each named `<module>.<collection>` and built from its store's declaration (most
   * with `sqlExportable`). The platform gathers them into `AppDeps.exportables`; a new module
   * declares its own here and edits no other module.
   */
  exportable?: readonly ExportableCollection[];
  /**
   * Services this module provides to others, registered before any module's factory runs, in
   * dependency order: a provider may `registry.get` the services of the modules it depends on.
   */
  provides?: (deps: Omit<AppDeps, 'services' | 'jobs'>, registry: ServiceRegistry) => void;
  /** Its operations and background work; the instance takes the definition's name. */
  create?: ModuleCreate;
}

/** The definitions in dependency order (a module after every module it depends on). */
export function dependencyOrder(defs: readonly ModuleDefinition[]): ModuleDefinition[] {
  const byName = new Map(defs.map((d) => [d.name, d]));
  const out: ModuleDefinition[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (d: ModuleDefinition, path: string[]) => {
    if (state.get(d.name) === 'done') return;
    if (state.get(d.name) === 'visiting') throw new Error(`module dependency cycle: ${[...path, d.name].join(' -> ')}`);
    state.set(d.name, 'visiting');
    for (const dep of d.dependsOn ?? []) {
      const target = byName.get(dep);
      if (!target) throw new Error(`module ${d.name} depends on unknown module ${dep}`);
      visit(target, [...path, d.name]);
    }
    state.set(d.name, 'done');
    out.push(d);
  };
  for (const d of defs) visit(d, []);
  return out;
}

/**
 * The module's factory, given the service registry as the module sees it (decision 0330): a service
 * of a module not in its dependsOn stops the start, naming both modules.
 */
export function moduleFactory(def: ModuleDefinition & { create: ModuleCreate }): ModuleFactory {
  return (deps) => ({ name: def.name, ...def.create({ ...deps, services: deps.services.forModule(def.name, def.dependsOn ?? []) }) });
}

/** Runs every module's `provides`, providers first, each seeing the registry as its module does. */
export function provideServices(defs: readonly ModuleDefinition[], deps: Omit<AppDeps, 'jobs'>): void {
  for (const d of dependencyOrder(defs)) d.provides?.(deps, deps.services.forModule(d.name, d.dependsOn ?? []));
}

/** The `migrations/` folder beside a module's index.ts. */
export function migrationsDir(moduleUrl: string): string {
  return fileURLToPath(new URL('./migrations/', moduleUrl));
}

/**
 * Migration sources in dependency order: a module's migrations run after those of every module it
 * depends on; otherwise in list order. Unknown dependencies and cycles are refused at start-up.
 */
export function declaredScopes(defs: readonly ModuleDefinition[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of defs) {
    for (const [name, description] of Object.entries(d.scopes ?? {})) {
      if (out[name] !== undefined) throw new Error(`scope ${name} is declared by two modules`);
      out[name] = description;
    }
  }
  return out;
}

/**
 * Every module's exportable collections, in module-list order (each module's in its own order). A
 * name not prefixed `<module>.` or declared twice stops the start.
 */
export function declaredExportables(defs: readonly ModuleDefinition[]): ExportableCollection[] {
  const out: ExportableCollection[] = [];
  const seen = new Set<string>();
  for (const d of defs) {
    for (const c of d.exportable ?? []) {
      if (!c.name.startsWith(`${d.name}.`)) throw new Error(`module ${d.name} offers export collection ${c.name}: name it ${d.name}.<collection>`);
      if (seen.has(c.name)) throw new Error(`export collection ${c.name} is declared twice`);
      seen.add(c.name);
      out.push(c);
    }
  }
  return out;
}

export function migrationOrder(defs: readonly ModuleDefinition[]): MigrationSource[] {
  return dependencyOrder(defs)
    .filter((d) => d.migrations)
    .map((d) => ({ owner: d.name, dir: d.migrations! }));
}
