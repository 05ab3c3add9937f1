// The shape of the service's configuration: below everything (no imports), so the platform, infra
// and modules can name it without importing the loader (src/config.ts), which reads the module list.

export interface Config {
  nodeEnv: string;
  port: number;
  host: string;
  dataDir: string;
  /** The embedded store's engine in a worker thread (true) or in the event loop's thread (decision 0034). */
  pgliteWorker: boolean;
  /** Compile every request and response schema once listening (true), or each on its first use (decision 0487). */
  warmSchemas: boolean;
  /** The embedded store's PostgreSQL shared_buffers, in MB (PostgreSQL's default 128; decision 0388). */
  pgliteSharedBuffersMb: number;
  databaseUrl?: string;
  /** A PostgreSQL hot standby for reads that tolerate a little lag (decision 0250); used with databaseUrl only. */
  databaseReadUrl?: string;
  /** Past this replay lag (seconds) the standby is skipped and its reads go to the primary. */
  databaseReadMaxLagSeconds: number;
  /** Redis: the server itself, or with redisSentinels the credentials and database of the primary they name. */
  redisUrl?: string;
  /** Redis Sentinels (host:port) that name the current primary of redisSentinelName; the client follows failovers. */
  redisSentinels?: { host: string; port: number }[];
  redisSentinelName: string;
  /** One NATS server's URL, or a comma-separated list of a cluster's servers. */
  natsUrl?: string;
  /** Replicas of the service's JetStream stream (3 on a three-node cluster). */
  natsStreamReplicas: number;
  /** HS256 key of access tokens; also derives cursor, sandbox and webhook-secret keys. */
  jwtSecret: string;
  /** Where jwtSecret came from: logged at start (never the secret itself). */
  jwtSecretSource: JwtSecretSource;
  apiKeyPrefix: string;
  publicDocsOrigin: string;
  logLevel: string;
  /** OpenTelemetry traces over OTLP/HTTP (decision 0386): off without an endpoint. */
  tracing: { endpoint?: string; serviceName: string };
  /** Prefix for cache keys and bus subjects, so several deployments (or test runs) can share servers. */
  namespace: string;
  limits: {
    authPerMinutePerIp: number;
    userPerMinute: number;
    anonPerMinutePerIp: number;
    partnerPerMinutePerKey: number;
    limiterBudgetMs: number;
  };
  bodyLimitBytes: number;
  /** Requests handled at once before new ones are shed with 503 (probes exempt). */
  maxInflightRequests: number;
  /** Of those, the most one organisation's requests may hold at once (decision 0505). */
  maxInflightPerOrg: number;
  ingestBodyLimitBytes: number;
  /** Every third-party call (providers, platforms, identity providers): timeout and retries. */
  upstreams: {
    timeoutMs: number;
    /** Extra attempts on idempotent provider reads, and the first backoff delay. */
    retries: number;
    retryBaseMs: number;
  };
  /** Allow outbound calls to loopback/private addresses (tests and local development only). */
  allowPrivateOutbound: boolean;
  /** Refuse every outbound call that is not to loopback (tests, machines without egress). */
  outboundLoopbackOnly: boolean;
  /** Background work (decision 0088): worker slots per instance and the per-organisation cap. */
  jobs: {
    /** Slots for organisations' work (webhook deliveries, alert fan-out) in each instance. */
    concurrency: number;
    /** Jobs of one organisation running at once, across every instance (below `concurrency`). */
    orgConcurrency: number;
    /** Slots for the service's own recurring work (health checks, watchdog, key alerts, retention). */
    platformConcurrency: number;
    pollMs: number;
    /** How long a claim holds a job before another instance may take it over (above the 10 s delivery deadline). */
    leaseMs: number;
  };
  /**
   * Background work (job handlers, maintenance) on PostgreSQL: its own pool, so it never takes a
   * request's connection, and its own statement timeout (requests keep 4.4 s). Decision 0018.
   */
  background: { statementTimeoutMs: number; poolMax: number };
  /** Seed the demo organisation at start (never in production). */
  seedDemo: boolean;
  /**
   * Proxies whose X-Forwarded-For is believed (addresses, CIDR ranges, or `loopback`, `linklocal`,
   * `uniquelocal`); empty = none, the peer's own address is the client's.
   */
  trustProxy: string[];
  /** Each module's own settings, by section name: read them with `sectionOf(config, section)`. */
  modules: Readonly<Record<string, unknown>>;
}

export type JwtSecretSource = { kind: 'environment' } | { kind: 'data-dir'; path: string; created: boolean } | { kind: 'per-process' };

export type Env = Record<string, string | undefined>;
