import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, ConfigError, DEV_JWT_SECRET } from '../../src/config.ts';

test('defaults run on the embedded store', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.dataDir, './data');
  assert.equal(c.databaseUrl, undefined);
  assert.equal(c.redisUrl, undefined);
  assert.equal(c.natsUrl, undefined);
  assert.equal(c.jwtSecret, DEV_JWT_SECRET);
  assert.equal(c.limits.authPerMinutePerIp, 5);
  assert.equal(c.limits.partnerPerMinutePerKey, 600);
  assert.deepEqual(c.jobs, { concurrency: 8, orgConcurrency: 4, platformConcurrency: 2, pollMs: 1000, leaseMs: 60_000 });
  assert.equal(c.webhookTimeoutMs, 10_000, 'the spec: success is a 2xx within 10 seconds');
  assert.equal(c.sandboxMaxPendingDeliveries, 100);
});

test('a bad variable fails at start with a message naming it', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ REDIS_URL: 'not a url' }, /REDIS_URL/],
    [{ NATS_URL: 'http://x' }, /NATS_URL/],
    [{ API_KEY_PREFIX: 'Bad_Prefix' }, /API_KEY_PREFIX/],
    [{ ALLOW_PRIVATE_OUTBOUND: 'maybe' }, /ALLOW_PRIVATE_OUTBOUND/],
    [{ RATE_LIMIT_USER_PER_MIN: '0' }, /RATE_LIMIT_USER_PER_MIN/],
    [{ JOBS_CONCURRENCY: '8', JOBS_ORG_CONCURRENCY: '8' }, /JOBS_ORG_CONCURRENCY must be below JOBS_CONCURRENCY/],
    [{ WEBHOOK_TIMEOUT_MS: '11000' }, /WEBHOOK_TIMEOUT_MS/],
    [{ JOBS_LEASE_MS: '5000' }, /JOBS_LEASE_MS/],
  ];
  for (const [env, re] of cases) assert.throws(() => loadConfig(env), (e: Error) => e instanceof ConfigError && re.test(e.message), JSON.stringify(env));
});

test('production refuses the default or a short JWT secret', () => {
  assert.throws(() => loadConfig({ NODE_ENV: 'production' }), /JWT_SECRET/);
  assert.throws(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'short' }), /JWT_SECRET/);
  const c = loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40) });
  assert.equal(c.jwtSecret.length, 40);
});

test('the process exits with a clear message on bad configuration', async () => {
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(process.execPath, ['src/main.ts'], { env: { ...process.env, PORT: 'nope' }, encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /Configuration error: PORT must be an integer/);
});
