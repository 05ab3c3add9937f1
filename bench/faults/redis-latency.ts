// T-8 Redis latency (reliability plan; a run that prints figures, not a test).
// One service instance (src/main.ts, core 0) uses a PRIVATE Redis (port 6391 by default, started
// and stopped by this run) through the in-repo fault proxy, and a fresh database on the shared
// PostgreSQL. The proxy adds FAULT_REDIS_LATENCY_MS (200) to every Redis exchange for
// FAULT_REDIS_SLOW_S (30 s), between two normal phases of FAULT_PHASE_S (15 s).
// Load from this process (core 1), each kind at a fixed pace: Partner API reads with API keys
// (GET /partner/v1/me and /devices, two keys so that neither passes 600/min), signed-in reads
// (GET /api/auth/me with a token from a real sign-in, so the session-revocation check runs), and
// one key write (POST /partner/v1/sandbox/webhooks/test) a second.
// Pass (plan): the limiter call has its own budget (RATE_LIMIT_BUDGET_MS, 50) and then takes the
// Redis-down path of T-7 (key writes 503 service_unavailable, Retry-After: 30; reads limited per
// instance); Partner API p99 <= budget + 100 ms; nothing waits on Redis longer than the budget.
//
//   npm run bench:faults -- redis-latency       (or: node bench/faults/redis-latency.ts)
//   FAULT_REDIS_LATENCY_PORT=6391  FAULT_REDIS_LATENCY_MS=200  FAULT_REDIS_SLOW_S=30  FAULT_PHASE_S=15
//   FAULT_PARTNER_RATE=12 (reads/s)  FAULT_BEARER_RATE=1.5 (reads/s)
//   FAULT_ADMIN_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import http from 'node:http';
import { startFaultProxy } from '../lib/fault-proxy.ts';
import { fmt, machine, pinSelf, summary } from '../lib/stats.ts';
import { createDatabase, freePort, onCleanup, runMain, sleep, startRedis, tempDir } from './lib/servers.ts';
import { baseEnv, describeReadiness, serviceProcess, watchReadiness } from './lib/service.ts';
import { cli, createApiKey, createReport, detailOf, envInt, login, ms, newSecret, request, showTally, tally, type Answer } from './lib/client.ts';

const REDIS_PORT = envInt('FAULT_REDIS_LATENCY_PORT', 6391);
const LATENCY_MS = envInt('FAULT_REDIS_LATENCY_MS', 200);
const SLOW_MS = envInt('FAULT_REDIS_SLOW_S', 30) * 1000;
const PHASE_MS = envInt('FAULT_PHASE_S', 15) * 1000;
const PARTNER_RATE = envInt('FAULT_PARTNER_RATE', 12);
const BEARER_RATE = envInt('FAULT_BEARER_RATE', 1.5); // under the 100/min per-user limit
const BUDGET_MS = 50; // RATE_LIMIT_BUDGET_MS default
const ADMIN_URL = process.env.FAULT_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ORG = 'redislatency';
const ADMIN_EMAIL = 'admin@redislatency.example';
const ADMIN_PASSWORD = 'fault-run-admin-password-1';
const log = (s = '') => console.log(s);

type Kind = 'partner read' | 'signed-in read' | 'key write';
interface Hit {
  kind: Kind;
  at: number; // ms since the run's t0, when sent
  a: Answer;
}

runMain(async () => {
  const pinned = await pinSelf(1);
  const report = createReport(log);
  log(`# T-8 Redis latency, ${new Date().toISOString()}`);
  log(`machine: ${await machine()}`);
  const dir = tempDir('fault-redis-latency-run-');
  const redis = await startRedis(REDIS_PORT);
  const proxy = await startFaultProxy({ host: '127.0.0.1', port: REDIS_PORT });
  onCleanup('fault proxy', () => proxy.close());
  const dbUrl = await createDatabase(ADMIN_URL, `fault_rlat_${randomBytes(4).toString('hex')}`);
  const env = { ...baseEnv(newSecret(), `rl${randomBytes(3).toString('hex')}`), DATABASE_URL: dbUrl, REDIS_URL: proxy.url('redis') };
  await cli(['org', 'create', '--id', ORG, '--name', 'Redis latency'], env);
  await cli(['user', 'create', '--org', ORG, '--email', ADMIN_EMAIL, '--password', ADMIN_PASSWORD, '--role', 'ORG_ADMIN'], env);
  const svc = serviceProcess({ name: 'service', port: await freePort(), env, logFile: join(dir, 'service.log') });
  svc.onUnexpectedExit = (code, signal) => log(`!! service exited by itself (${code ?? signal}):\n${svc.logTail(20)}`);
  await svc.start();
  log(
    `service: pid ${svc.pid()}${pinned ? ' (core 0; this client core 1)' : ''} on :${svc.port}; Redis: private redis-server on :${REDIS_PORT} (pid ${redis.pid()}) ` +
      `behind the fault proxy :${proxy.port}; PostgreSQL: fresh database on the shared server; embedded bus`,
  );
  const token = await login(svc.url, ADMIN_EMAIL, ADMIN_PASSWORD, '127.0.0.9');
  const keys = [await createApiKey(svc.url, token, 'T-8 reader 1', ['devices:read']), await createApiKey(svc.url, token, 'T-8 reader 2', ['devices:read'])];
  const writer = await createApiKey(svc.url, token, 'T-8 writer', ['devices:read']);
  log(
    `load: partner reads ${PARTNER_RATE}/s over two keys, signed-in reads ${BEARER_RATE}/s, key writes 1/s; phases: normal ${PHASE_MS / 1000} s, +${LATENCY_MS} ms on Redis ${SLOW_MS / 1000} s, normal ${PHASE_MS / 1000} s`,
  );

  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const hits: Hit[] = [];
  const pending: Promise<void>[] = [];
  const t0 = performance.now();
  const end = 2 * PHASE_MS + SLOW_MS;
  const fire = (kind: Kind, path: string, secret: string, method = 'GET') => {
    const at = performance.now() - t0;
    pending.push(
      request(`${svc.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${secret}` },
        body: method === 'POST' ? '{}' : undefined,
        agent,
        timeoutMs: 15_000,
      }).then((a) => void hits.push({ kind, at, a })),
    );
  };
  const paced = async (perSecond: number, send: (i: number) => void) => {
    for (let i = 0; ; i++) {
      const due = (i / perSecond) * 1000;
      if (due >= end) return;
      const wait = t0 + due - performance.now();
      if (wait > 0) await sleep(wait);
      send(i);
    }
  };
  const ready = watchReadiness(svc.url, 250);
  const faults = (async () => {
    await sleep(PHASE_MS);
    proxy.set({ kind: 'latency', ms: LATENCY_MS });
    log(`  +${LATENCY_MS} ms on Redis from ${fmt(PHASE_MS / 1000)} s`);
    await sleep(SLOW_MS);
    proxy.set({ kind: 'pass' });
    log(`  Redis normal again from ${fmt((PHASE_MS + SLOW_MS) / 1000)} s`);
  })();
  await Promise.all([
    faults,
    paced(PARTNER_RATE, (i) => fire('partner read', i % 2 ? '/api/devtools/partner/v1/devices?limit=10' : '/api/devtools/partner/v1/me', keys[i % 2].secret)),
    paced(BEARER_RATE, () => fire('signed-in read', '/api/auth/me', token)),
    paced(1, () => fire('key write', '/api/devtools/partner/v1/sandbox/webhooks/test', writer.secret, 'POST')),
  ]);
  await Promise.all(pending);
  await ready.stop();

  const phases = [
    ['normal', 0, PHASE_MS],
    [`Redis +${LATENCY_MS} ms`, PHASE_MS, PHASE_MS + SLOW_MS],
    ['normal again', PHASE_MS + SLOW_MS, end],
  ] as const;
  const outcome = (a: Answer) => (a.status === 0 ? `no answer (${a.error})` : `${a.status} ${detailOf(a)}`.trim());
  log('\n| phase | kind | requests | p50 | p99 | max | answers |');
  log('|---|---|---|---|---|---|---|');
  const p99: Record<string, number> = {};
  for (const [name, from, to] of phases) {
    for (const kind of ['partner read', 'signed-in read', 'key write'] as const) {
      const h = hits.filter((x) => x.kind === kind && x.at >= from && x.at < to);
      const st = summary(h.map((x) => x.a.ms));
      p99[`${name}/${kind}`] = st.p99;
      log(`| ${name} | ${kind} | ${h.length} | ${ms(st.p50)} | ${ms(st.p99)} | ${ms(st.max)} | ${showTally(tally(h, (x) => outcome(x.a)))} |`);
    }
  }
  const slow = phases[1];
  const refusedNormal = hits.filter((x) => x.kind === 'key write' && x.a.status === 503 && (x.at < slow[1] || x.at >= slow[2] + 1000));
  if (refusedNormal.length)
    log(`key writes refused with Redis normal, sent at: ${refusedNormal.map((x) => `${fmt(x.at / 1000, 1)} s (${ms(x.a.ms)})`).join(', ')}`);
  // The first second of the slow phase may still see commands sent before the change.
  const inSlow = (x: Hit) => x.at >= slow[1] + 1000 && x.at < slow[2];
  const slowWrites = hits.filter((x) => x.kind === 'key write' && inSlow(x));
  const downPath = slowWrites.filter((x) => x.a.status === 503 && detailOf(x.a) === 'service_unavailable' && x.a.headers['retry-after'] === '30');
  report.check(
    'key writes while Redis is slow take the Redis-down path: 503 service_unavailable, Retry-After: 30',
    slowWrites.length > 0 && downPath.length === slowWrites.length,
    `${downPath.length} of ${slowWrites.length}`,
  );
  const slowReads = hits.filter((x) => x.kind !== 'key write' && inSlow(x));
  report.check(
    'reads while Redis is slow are answered 200',
    slowReads.every((x) => x.a.status === 200),
    showTally(tally(slowReads, (x) => outcome(x.a))),
  );
  report.check(
    'no 500s and no unanswered requests',
    hits.every((x) => (x.a.status > 0 && x.a.status < 500) || x.a.status === 503),
    showTally(
      tally(
        hits.filter((x) => x.a.status === 0 || (x.a.status >= 500 && x.a.status !== 503)),
        (x) => outcome(x.a),
      ),
    ),
  );
  const afterWrites = hits.filter((x) => x.kind === 'key write' && x.at >= slow[2]);
  const firstAdmitted = afterWrites.find((x) => x.a.status === 202);
  report.check(
    'key writes admitted again once Redis is normal (within 5 s)',
    !!firstAdmitted && firstAdmitted.at - slow[2] <= 5000,
    firstAdmitted ? `${ms(firstAdmitted.at - slow[2])} after` : 'never',
  );
  const partnerP99 = p99[`${slow[0]}/partner read`];
  report.target(`Partner API p99 while Redis is slow <= budget + 100 ms (${BUDGET_MS + 100} ms)`, partnerP99 <= BUDGET_MS + 100, ms(partnerP99));
  const bearerP99 = p99[`${slow[0]}/signed-in read`];
  report.target(`signed-in reads p99 while Redis is slow <= budget + 100 ms`, bearerP99 <= BUDGET_MS + 100, ms(bearerP99));
  log(`readiness changes: ${ready.changes.map((c) => `${fmt((c.at - t0) / 1000, 1)} s ${describeReadiness(c)}`).join('; ')}`);
  log(`machine after: ${await machine()}`);
  await svc.stop();
  return report.failures ? 1 : 0;
});
