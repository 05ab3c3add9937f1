// Typed configuration, read once from the environment and validated at start.
// Nothing else in the service reads process.env. The service-wide settings are read here; each
// module's own settings are a section its definition declares (ModuleDefinition.config), read
// through the same reader and validated at the same time, so a bad value stops the start.
import { createPrivateKey, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { readOrCreateSecret, SecretFileError } from './infra/secret-file.ts';
import { configSections } from './modules/index.ts';

import type { Config, Env, JwtSecretSource } from './core/config.ts';

export { sectionOf, type ConfigReader, type ConfigSection } from './core/config-section.ts';
import type { ConfigReader, ConfigSection } from './core/config-section.ts';

export function configReader(env: Env, nodeEnv: string): ConfigReader {
  return {
    nodeEnv,
    str: (name, def) => str(env, name, def),
    optional: (name) => env[name] || undefined,
    int: (name, def, min, max) => int(env, name, def, min, max),
    bool: (name, def) => bool(env, name, def),
    url: (name, protocols, def) => url(env, name, protocols, def),
    pattern: (name, def, re, what) => pattern(env, name, def, re, what),
    ed25519Key: (name) => ed25519Key(env, name),
    fail: (message) => {
      throw new ConfigError(message);
    },
  };
}

export class ConfigError extends Error {}

/**
 * Secrets that were ever published with this repository (source, docs, README, earlier defaults):
 * anyone can sign tokens with them, so they are refused everywhere (decision 0017).
 */
export const KNOWN_SECRETS: ReadonlySet<string> = new Set([
  'dev-only-insecure-jwt-secret-change-me',
  'test-secret-that-is-long-enough-for-hs256-0123456789',
  'another-secret-another-secret-another',
  'secret-for-tests-secret-for-tests',
]);
export const MIN_SECRET_BYTES = 32;
export const JWT_SECRET_FILE = 'jwt-secret';

/** Why a secret must not be used, or null. Never says what the secret is. */
export function weakSecret(secret: string): string | null {
  if (Buffer.byteLength(secret, 'utf8') < MIN_SECRET_BYTES) return `is shorter than ${MIN_SECRET_BYTES} bytes`;
  if (KNOWN_SECRETS.has(secret.trim())) return 'is a value published with this software';
  if (new Set(secret).size < 8) return 'has fewer than 8 different characters';
  return null;
}

const HOW = 'use a random value of 32 bytes or more (e.g. `openssl rand -base64 48`)';

/**
 * JWT_SECRET when set; otherwise (not in production) a random secret kept in the data directory,
 * created on first start, or one per process when there is no data directory (DATA_DIR=:memory:).
 */
function jwtSecretOf(env: Env, nodeEnv: string, dataDir: string): { secret: string; source: JwtSecretSource } {
  const given = env.JWT_SECRET;
  if (given !== undefined && given !== '') {
    const weak = weakSecret(given);
    if (weak) throw new ConfigError(`JWT_SECRET ${weak}: ${HOW}, or leave it unset outside production`);
    return { secret: given, source: { kind: 'environment' } };
  }
  if (nodeEnv === 'production') throw new ConfigError(`JWT_SECRET must be set in production: ${HOW}`);
  if (dataDir === ':memory:') return { secret: randomBytes(48).toString('base64url'), source: { kind: 'per-process' } };
  let file;
  try {
    file = readOrCreateSecret(dataDir, JWT_SECRET_FILE);
  } catch (e) {
    if (e instanceof SecretFileError) throw new ConfigError(`JWT_SECRET is unset and ${e.message}`);
    throw e;
  }
  const weak = weakSecret(file.secret);
  if (weak) throw new ConfigError(`the secret in ${file.path} ${weak}: delete the file to have a new one made, or set JWT_SECRET`);
  return { secret: file.secret, source: { kind: 'data-dir', path: file.path, created: file.created } };
}

function sentinelName(env: Env): string {
  const name = str(env, 'REDIS_SENTINEL_NAME', 'mymaster');
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(name)) throw new ConfigError('REDIS_SENTINEL_NAME must be 1-64 letters, digits, ".", "_" or "-"');
  return name;
}

function str(env: Env, name: string, def: string): string {
  const v = env[name];
  return v === undefined || v === '' ? def : v;
}

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer (got "${raw}")`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max} (got ${n})`);
  return n;
}

function bool(env: Env, name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false (got "${raw}")`);
}

function url(env: Env, name: string, protocols: string[], def?: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (got an unparseable value)`);
  }
  if (!protocols.includes(u.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')} (got ${u.protocol})`);
  }
  return raw;
}

/** A comma-separated list of URLs (servers of one cluster); each must parse and use one of `protocols`. */
function urls(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  for (const one of raw.split(',')) url({ [name]: one.trim() }, name, protocols);
  if (raw.split(',').some((one) => one.trim() === '')) throw new ConfigError(`${name} has an empty entry in its list`);
  return raw;
}

/** A comma-separated list of `host:port` (e.g. Redis Sentinels). */
function hostPorts(env: Env, name: string): { host: string; port: number }[] | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  return raw.split(',').map((entry) => {
    const m = /^\s*\[?([A-Za-z0-9.:_-]+?)\]?:(\d{1,5})\s*$/.exec(entry);
    const port = m ? Number(m[2]) : 0;
    if (!m || port < 1 || port > 65535) throw new ConfigError(`${name} must be host:port entries separated by commas (got "${entry.trim()}")`);
    return { host: m[1], port };
  });
}

/**
 * Where this service answers when no public origin is configured: its own listen address and port
 * (loopback and wildcard addresses as `localhost`), so error `type` links and the OpenAPI contact
 * point at the running service, not at a fixed port.
 */
function listenOrigin(env: Env): string {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = str(env, 'HOST', '127.0.0.1');
  const local = ['127.0.0.1', '::1', '0.0.0.0', '::', 'localhost', ''].includes(host);
  const name = local ? 'localhost' : isIP(host) === 6 ? `[${host}]` : host;
  return `http://${name}${port === 0 || port === 80 ? '' : `:${port}`}`;
}

function pattern(env: Env, name: string, def: string, re: RegExp, what: string): string {
  const v = str(env, name, def);
  if (!re.test(v)) throw new ConfigError(`${name} must be ${what} (got "${v}")`);
  return v;
}

/** An Ed25519 private key as PKCS8 PEM, or the base64 of its 32-byte seed; returned as PKCS8 PEM. */
function ed25519Key(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  try {
    const text = raw.trim();
    let key;
    if (text.includes('-----BEGIN')) key = createPrivateKey(text.replace(/\\n/g, '\n'));
    else {
      const seed = Buffer.from(text, 'base64');
      if (seed.length !== 32) throw new Error('seed length');
      key = createPrivateKey({
        key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
        format: 'der',
        type: 'pkcs8',
      });
    }
    if (key.asymmetricKeyType !== 'ed25519') throw new Error('not ed25519');
    return key.export({ format: 'pem', type: 'pkcs8' }).toString();
  } catch {
    throw new ConfigError(`${name} must be an Ed25519 private key: PKCS8 PEM, or the base64 of a 32-byte seed`);
  }
}

function jobsConfig(env: Env): Config['jobs'] {
  const concurrency = int(env, 'JOBS_CONCURRENCY', 8, 2, 256);
  const orgConcurrency = int(env, 'JOBS_ORG_CONCURRENCY', Math.max(1, Math.floor(concurrency / 2)), 1, 256);
  if (orgConcurrency >= concurrency) {
    throw new ConfigError(`JOBS_ORG_CONCURRENCY must be below JOBS_CONCURRENCY (${concurrency}), so one organisation never holds every worker`);
  }
  return {
    concurrency,
    orgConcurrency,
    platformConcurrency: int(env, 'JOBS_PLATFORM_CONCURRENCY', 2, 1, 64),
    pollMs: int(env, 'JOBS_POLL_MS', 1000, 10, 60_000),
    leaseMs: int(env, 'JOBS_LEASE_MS', 60_000, 15_000, 3_600_000),
  };
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** A comma-separated list of trusted proxy addresses or ranges; never "trust everyone". */
function proxyList(env: Env, name: string): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  for (const e of entries) {
    const [addr, bits, ...rest] = e.split('/');
    const family = isIP(addr);
    const prefixOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (PROXY_NAMES.includes(e)) continue;
    if (family === 0 || rest.length > 0 || !prefixOk) {
      throw new ConfigError(`${name} must list proxy addresses or CIDR ranges (or ${PROXY_NAMES.join(', ')}), comma-separated (got "${e}")`);
    }
  }
  return entries;
}

function moduleSections(env: Env, nodeEnv: string, sections: readonly ConfigSection<unknown>[]): Record<string, unknown> {
  const reader = configReader(env, nodeEnv);
  const out: Record<string, unknown> = {};
  for (const section of sections) {
    if (section.name in out) throw new Error(`configuration section ${section.name} is declared twice`);
    out[section.name] = section.read(reader);
  }
  return out;
}

export function loadConfig(env: Env = process.env, sections: readonly ConfigSection<unknown>[] = configSections): Config {
  const nodeEnv = str(env, 'NODE_ENV', 'development');
  const apiKeyPrefix = str(env, 'API_KEY_PREFIX', 'plat');
  if (!/^[a-z][a-z0-9]{1,15}$/.test(apiKeyPrefix)) {
    throw new ConfigError('API_KEY_PREFIX must be 2-16 lowercase letters or digits, starting with a letter');
  }
  const namespace = str(env, 'NAMESPACE', 'eps');
  if (!/^[A-Za-z0-9_]{1,40}$/.test(namespace)) throw new ConfigError('NAMESPACE must be 1-40 letters, digits or _');
  const dataDir = str(env, 'DATA_DIR', './data');
  const config = {
    nodeEnv,
    port: int(env, 'PORT', 8080, 0, 65535),
    host: str(env, 'HOST', '127.0.0.1'),
    dataDir,
    pgliteWorker: bool(env, 'PGLITE_WORKER', true),
    warmSchemas: bool(env, 'WARM_SCHEMAS', true),
    pgliteSharedBuffersMb: int(env, 'PGLITE_SHARED_BUFFERS_MB', 128, 1, 4096),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databaseReadUrl: url(env, 'DATABASE_READ_URL', ['postgres:', 'postgresql:']),
    databaseReadMaxLagSeconds: int(env, 'DATABASE_READ_MAX_LAG_SECONDS', 30, 1, 86_400),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisSentinels: hostPorts(env, 'REDIS_SENTINELS'),
    redisSentinelName: sentinelName(env),
    natsUrl: urls(env, 'NATS_URL', ['nats:', 'tls:']),
    natsStreamReplicas: int(env, 'NATS_STREAM_REPLICAS', 1, 1, 5),
    apiKeyPrefix,
    publicDocsOrigin: url(env, 'PUBLIC_DOCS_ORIGIN', ['http:', 'https:'], listenOrigin(env))!.replace(/\/$/, ''),
    logLevel: str(env, 'LOG_LEVEL', nodeEnv === 'test' ? 'silent' : 'info'),
    tracing: {
      endpoint: url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']),
      serviceName: pattern(env, 'OTEL_SERVICE_NAME', 'energy-platform', /^[A-Za-z0-9._-]{1,64}$/, '1-64 letters, digits, dots, dashes or underscores'),
    },
    namespace,
    limits: {
      authPerMinutePerIp: int(env, 'RATE_LIMIT_AUTH_PER_MIN', 5, 1, 1_000_000),
      userPerMinute: int(env, 'RATE_LIMIT_USER_PER_MIN', 100, 1, 10_000_000),
      anonPerMinutePerIp: int(env, 'RATE_LIMIT_ANON_PER_MIN', 20, 1, 1_000_000),
      partnerPerMinutePerKey: int(env, 'RATE_LIMIT_PARTNER_PER_MIN', 600, 1, 10_000_000),
      limiterBudgetMs: int(env, 'RATE_LIMIT_BUDGET_MS', 50, 1, 10_000),
    },
    maxInflightRequests: int(env, 'MAX_INFLIGHT_REQUESTS', 128, 1, 1_000_000),
    maxInflightPerOrg: int(env, 'MAX_INFLIGHT_PER_ORG', 64, 1, 1_000_000),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    ingestBodyLimitBytes: int(env, 'INGEST_BODY_LIMIT_BYTES', 6 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    upstreams: {
      timeoutMs: int(env, 'UPSTREAM_TIMEOUT_MS', 5000, 100, 60_000),
      retries: int(env, 'UPSTREAM_RETRIES', 2, 0, 5),
      retryBaseMs: int(env, 'UPSTREAM_RETRY_BASE_MS', 200, 1, 10_000),
    },
    allowPrivateOutbound: bool(env, 'ALLOW_PRIVATE_OUTBOUND', false),
    outboundLoopbackOnly: bool(env, 'OUTBOUND_LOOPBACK_ONLY', false),
    jobs: jobsConfig(env),
    background: {
      statementTimeoutMs: int(env, 'BACKGROUND_STATEMENT_TIMEOUT_MS', 60_000, 1000, 3_600_000),
      poolMax: int(env, 'BACKGROUND_DB_POOL_MAX', 3, 1, 100),
    },
    seedDemo: nodeEnv !== 'production' && bool(env, 'SEED_DEMO', true),
    trustProxy: proxyList(env, 'TRUST_PROXY'),
    modules: moduleSections(env, nodeEnv, sections),
  };
  // Last, so that a configuration refused for another reason leaves no secret file behind.
  const { secret, source } = jwtSecretOf(env, nodeEnv, dataDir);
  return { ...config, jwtSecret: secret, jwtSecretSource: source };
}

/**
 * The names of every setting the loader reads (the service's own and each module section's), in
 * order: what `npm start -- --help` lists. Found by loading an embedded, in-memory configuration
 * through an environment that records each name asked for.
 */
export function settingNames(): string[] {
  const seen = new Set<string>();
  const base: Env = { DATA_DIR: ':memory:' };
  const env = new Proxy(base, {
    get(target, key) {
      if (typeof key === 'string') seen.add(key);
      return target[key as string];
    },
  });
  loadConfig(env);
  return [...seen].sort();
}
