import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, ConfigError, KNOWN_SECRETS } from '../../src/config.ts';
import { sectionOf } from '../../src/core/config-section.ts';
import { devtoolsConfig } from '../../src/modules/devtools/config.ts';

const tmp = mkdtempSync(join(tmpdir(), 'eps-config-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const STRONG = 'o3Vh2PqX9sLm4Rt7Wy1Za6Bc8Dd0Ef5Gh';

test('defaults run on the embedded store', () => {
  const c = loadConfig({ DATA_DIR: join(tmp, 'defaults') });
  assert.equal(c.port, 8080);
  assert.equal(c.databaseUrl, undefined);
  assert.equal(c.redisUrl, undefined);
  assert.equal(c.natsUrl, undefined);
  assert.equal(c.limits.authPerMinutePerIp, 5);
  assert.equal(c.limits.partnerPerMinutePerKey, 600);
  assert.deepEqual(c.jobs, { concurrency: 8, orgConcurrency: 4, platformConcurrency: 2, pollMs: 1000, leaseMs: 60_000 });
  assert.equal(sectionOf(c, devtoolsConfig).webhookTimeoutMs, 10_000, 'the spec: success is a 2xx within 10 seconds');
  assert.equal(sectionOf(c, devtoolsConfig).sandboxMaxPendingDeliveries, 100);
  assert.equal(loadConfig({ JWT_SECRET: STRONG }).dataDir, './data');
});

test('clustered servers: NATS as a list of URLs with the stream replicas, Redis through its Sentinels', () => {
  const c = loadConfig({
    JWT_SECRET: STRONG,
    NATS_URL: 'nats://127.0.0.1:4231, nats://127.0.0.1:4232,nats://127.0.0.1:4233',
    NATS_STREAM_REPLICAS: '3',
    REDIS_SENTINELS: '127.0.0.1:26391, sentinel-b:26392,[::1]:26393',
    REDIS_SENTINEL_NAME: 'eps-cache',
  });
  assert.equal(c.natsUrl, 'nats://127.0.0.1:4231, nats://127.0.0.1:4232,nats://127.0.0.1:4233');
  assert.equal(c.natsStreamReplicas, 3);
  assert.deepEqual(c.redisSentinels, [
    { host: '127.0.0.1', port: 26391 },
    { host: 'sentinel-b', port: 26392 },
    { host: '::1', port: 26393 },
  ]);
  assert.equal(c.redisSentinelName, 'eps-cache');
  assert.equal(c.redisUrl, undefined);
  const plain = loadConfig({ JWT_SECRET: STRONG });
  assert.equal(plain.natsStreamReplicas, 1);
  assert.equal(plain.redisSentinels, undefined);
  assert.equal(plain.redisSentinelName, 'mymaster');
});

test('a bad variable fails at start with a message naming it', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ REDIS_URL: 'not a url' }, /REDIS_URL/],
    [{ NATS_URL: 'http://x' }, /NATS_URL/],
    [{ NATS_URL: 'nats://a:4222,http://b:4222' }, /NATS_URL/],
    [{ NATS_URL: 'nats://a:4222,' }, /NATS_URL/],
    [{ NATS_STREAM_REPLICAS: '0' }, /NATS_STREAM_REPLICAS/],
    [{ REDIS_SENTINELS: 'a:26379,b' }, /REDIS_SENTINELS/],
    [{ REDIS_SENTINELS: 'a:70000' }, /REDIS_SENTINELS/],
    [{ REDIS_SENTINEL_NAME: 'my master' }, /REDIS_SENTINEL_NAME/],
    [{ API_KEY_PREFIX: 'Bad_Prefix' }, /API_KEY_PREFIX/],
    [{ ALLOW_PRIVATE_OUTBOUND: 'maybe' }, /ALLOW_PRIVATE_OUTBOUND/],
    [{ RATE_LIMIT_USER_PER_MIN: '0' }, /RATE_LIMIT_USER_PER_MIN/],
    [{ JOBS_CONCURRENCY: '8', JOBS_ORG_CONCURRENCY: '8' }, /JOBS_ORG_CONCURRENCY must be below JOBS_CONCURRENCY/],
    [{ WEBHOOK_TIMEOUT_MS: '11000' }, /WEBHOOK_TIMEOUT_MS/],
    [{ JOBS_LEASE_MS: '5000' }, /JOBS_LEASE_MS/],
  ];
  for (const [env, re] of cases)
    assert.throws(
      () => loadConfig(env),
      (e: Error) => e instanceof ConfigError && re.test(e.message),
      JSON.stringify(env),
    );
});

test('without JWT_SECRET, a random secret is made on first start, kept in the data directory (0600) and read back', () => {
  const dir = join(tmp, 'first-start');
  const first = loadConfig({ DATA_DIR: dir });
  const file = join(dir, 'jwt-secret');
  assert.equal(readFileSync(file, 'utf8').trim(), first.jwtSecret);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.ok(Buffer.byteLength(first.jwtSecret) >= 32);
  assert.ok(![...KNOWN_SECRETS].includes(first.jwtSecret));
  assert.deepEqual(first.jwtSecretSource, { kind: 'data-dir', path: file, created: true });
  const again = loadConfig({ DATA_DIR: dir });
  assert.equal(again.jwtSecret, first.jwtSecret, 'tokens and webhook secrets survive a restart');
  assert.deepEqual(again.jwtSecretSource, { kind: 'data-dir', path: file, created: false });
  assert.notEqual(loadConfig({ DATA_DIR: join(tmp, 'other-install') }).jwtSecret, first.jwtSecret, 'each installation its own');
  assert.deepEqual(readdirSync(dir), ['jwt-secret'], 'no temporary file left');
});

test('a secret file others may read, or holding a weak secret, stops the start', () => {
  const loose = join(tmp, 'loose');
  loadConfig({ DATA_DIR: loose });
  chmodSync(join(loose, 'jwt-secret'), 0o644);
  assert.throws(
    () => loadConfig({ DATA_DIR: loose }),
    (e: Error) => e instanceof ConfigError && /chmod 600/.test(e.message),
  );
  const weak = join(tmp, 'weak');
  loadConfig({ DATA_DIR: weak });
  writeFileSync(join(weak, 'jwt-secret'), 'dev-only-insecure-jwt-secret-change-me\n');
  assert.throws(
    () => loadConfig({ DATA_DIR: weak }),
    (e: Error) => e instanceof ConfigError && /published/.test(e.message) && !e.message.includes('change-me'),
  );
});

test('in-memory stores without JWT_SECRET get a random secret per process; with one, it is used', () => {
  const a = loadConfig({ DATA_DIR: ':memory:' });
  const b = loadConfig({ DATA_DIR: ':memory:' });
  assert.notEqual(a.jwtSecret, b.jwtSecret);
  assert.ok(Buffer.byteLength(a.jwtSecret) >= 32);
  assert.deepEqual(a.jwtSecretSource, { kind: 'per-process' });
  const c = loadConfig({ DATA_DIR: ':memory:', JWT_SECRET: STRONG });
  assert.equal(c.jwtSecret, STRONG);
  assert.deepEqual(c.jwtSecretSource, { kind: 'environment' });
});

test('a known, short or trivial JWT_SECRET is refused in every mode, without echoing it', () => {
  const weak = [...KNOWN_SECRETS, 'tiny-1', 'y'.repeat(31), 'x'.repeat(40), 'abababababababababababababababab', 'é'.repeat(15)];
  for (const NODE_ENV of ['development', 'test', 'production']) {
    for (const JWT_SECRET of weak) {
      assert.throws(
        () => loadConfig({ NODE_ENV, JWT_SECRET, DATA_DIR: ':memory:', HUB_OCPP_PUBLIC_URL: 'wss://hub.example.com' }),
        (e: Error) => e instanceof ConfigError && /^JWT_SECRET /.test(e.message) && !e.message.includes(JWT_SECRET),
        `${NODE_ENV} ${JWT_SECRET}`,
      );
    }
  }
  const hub = { HUB_OCPP_PUBLIC_URL: 'wss://hub.example.com' };
  assert.throws(() => loadConfig({ NODE_ENV: 'production', ...hub }), /JWT_SECRET must be set in production/);
  assert.equal(loadConfig({ NODE_ENV: 'production', JWT_SECRET: STRONG, ...hub }).jwtSecret, STRONG);
  // Production names the URL chargers are given, over TLS (issue 35, finding 10; decision 0273).
  assert.throws(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: STRONG }), /HUB_OCPP_PUBLIC_URL must be set in production/);
  assert.throws(
    () => loadConfig({ NODE_ENV: 'production', JWT_SECRET: STRONG, HUB_OCPP_PUBLIC_URL: 'ws://hub.example.com' }),
    /HUB_OCPP_PUBLIC_URL must be set in production/,
  );
});

test('every secret written in this repository (source, tests, benches, docs, README) is refused', () => {
  const root = join(import.meta.dirname, '../..');
  const files: string[] = ['README.md'];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const rel = join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (/\.(ts|md|sh|ya?ml|json)$/.test(e.name) || dir === '.ci') files.push(rel);
    }
  };
  for (const d of ['src', 'test', 'test-reliability', 'bench', 'docs', '.ci']) walk(d);
  const found = new Set<string>();
  for (const f of files) {
    const text = readFileSync(join(root, f), 'utf8');
    // Quoted literals of 32 bytes or more that name themselves a secret, and JWT_SECRET=... values.
    for (const m of text.matchAll(/['"`]([^'"`\s$<>{}/\\]*secret[^'"`\s$<>{}/\\]*)['"`]/gi)) if (Buffer.byteLength(m[1]) >= 32) found.add(m[1]);
    for (const m of text.matchAll(/JWT_SECRET\s*[=:]\s*['"]?([^'"\s$.][^'"\s]*)/g)) found.add(m[1]);
  }
  for (const k of KNOWN_SECRETS) assert.ok(found.has(k), `the scan finds ${k}`);
  for (const s of found) {
    assert.throws(() => loadConfig({ JWT_SECRET: s, DATA_DIR: ':memory:' }), ConfigError, `a secret found in the repository is accepted: ${s}`);
  }
});

test('the process exits with a clear message on bad configuration', async () => {
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(process.execPath, ['src/main.ts'], { env: { ...process.env, PORT: 'nope' }, encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /Configuration error: PORT must be an integer/);
});
