// T-7 Redis unreachable for the Partner API, then T-10 the cross-server rate limit is exact
// (reliability plan; a run that prints figures, not a test).
//
// Two service instances A and B (src/main.ts, both on core 0) share a PRIVATE Redis (port 6390 by
// default, started and stopped by this run) through the in-repo fault proxy, and a fresh database
// on the shared PostgreSQL. The organisation and its administrator are made with the provisioning
// CLI, the administrator signs in through the API and issues the API keys through the API.
//
// T-7: the proxy blackholes Redis for 30 s (FAULT_REDIS_OUTAGE_S), aligned to the start of a
// rate-limit window when it fits in one. Meanwhile key-authenticated writes (POST
// /api/devtools/partner/v1/sandbox/webhooks/test) go to A and B every 250 ms, and reads
// (GET /api/devtools/partner/v1/me) go to each instance at a pace that passes the 600/min limit
// (FAULT_REDIS_READS per instance, default 700). Then Redis is restored and writes probe each
// instance every 100 ms until one is admitted: the time until counting is shared again.
// T-10: in a fresh window, 1,800 reads with one key in under 10 s, split at random between A and
// B by 16 sequential clients, plus 100 with a wrong secret (401) and 100 to an operation outside
// the key's scopes (403); then the same again in the next window.
//
//   npm run bench:faults -- redis-partner       (or: node bench/faults/redis-partner.ts)
//   FAULT_REDIS_PORT=6390  FAULT_REDIS_OUTAGE_S=30  FAULT_REDIS_READS=700  FAULT_T10_REQUESTS=1800
//   FAULT_T10_SECONDS=7 (spread of the 1,800)  FAULT_T10_ROUNDS=2  FAULT_SEED=1
//   FAULT_ADMIN_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import http from 'node:http';
import { startFaultProxy } from '../lib/fault-proxy.ts';
import { fmt, machine, pinSelf, summary } from '../lib/stats.ts';
import { createDatabase, freePort, onCleanup, runMain, sleep, startRedis, tempDir } from './lib/servers.ts';
import { baseEnv, describeReadiness, serviceProcess, watchReadiness, type ServiceProcess } from './lib/service.ts';
import { cli, createApiKey, createReport, detailOf, envInt, login, newSecret, request, rng, showTally, tally, type Answer } from './lib/client.ts';

const REDIS_PORT = envInt('FAULT_REDIS_PORT', 6390);
const OUTAGE_MS = envInt('FAULT_REDIS_OUTAGE_S', 30) * 1000;
const READS = envInt('FAULT_REDIS_READS', 700);
const T10_REQUESTS = envInt('FAULT_T10_REQUESTS', 1800);
const T10_MS = envInt('FAULT_T10_SECONDS', 7) * 1000;
const T10_ROUNDS = envInt('FAULT_T10_ROUNDS', 2);
const SEED = envInt('FAULT_SEED', 1);
const ADMIN_URL = process.env.FAULT_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const LIMIT = 600;
const WINDOW_MS = 60_000;
const ORG = 'partnerfault';
const ADMIN_EMAIL = 'admin@partnerfault.example';
const ADMIN_PASSWORD = 'fault-run-admin-password-1';
const log = (s = '') => console.log(s);

const ME = '/api/devtools/partner/v1/me';
const WRITE = '/api/devtools/partner/v1/sandbox/webhooks/test';
const ALERTS = '/api/devtools/partner/v1/alerts';

interface Hit {
  instance: 'A' | 'B';
  worker: number;
  kind: 'read' | 'write' | 'bad-key' | 'no-scope';
  sentAt: number; // Date.now() at send
  a: Answer;
}

const header = (a: Answer, name: string) => {
  const v = a.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};
const windowOf = (t: number) => Math.floor(t / WINDOW_MS);
const outcome = (a: Answer) => (a.status === 0 ? `no answer (${a.error})` : `${a.status} ${detailOf(a)}`.trim());

/** Waits until `offsetMs` into the next window (or this one when it is still ahead). */
async function alignToWindow(offsetMs: number, needMs: number) {
  const now = Date.now();
  const start = windowOf(now) * WINDOW_MS;
  const target = now - start <= offsetMs && start + WINDOW_MS - now > needMs ? start + offsetMs : start + WINDOW_MS + offsetMs;
  log(`  waiting ${fmt((target - now) / 1000, 1)} s for a fresh rate-limit window`);
  await sleep(target - now);
}

runMain(async () => {
  const pinned = await pinSelf(1);
  const report = createReport(log);
  const random = rng(SEED);
  log(`# T-7 Redis unreachable for the Partner API, T-10 cross-server rate limit, ${new Date().toISOString()}`);
  log(`machine: ${await machine()}`);
  const dir = tempDir('fault-redis-run-');
  const redis = await startRedis(REDIS_PORT);
  const proxy = await startFaultProxy({ host: '127.0.0.1', port: REDIS_PORT });
  onCleanup('fault proxy', () => proxy.close());
  const dbUrl = await createDatabase(ADMIN_URL, `fault_partner_${randomBytes(4).toString('hex')}`);
  const secret = newSecret();
  const env = { ...baseEnv(secret, `rp${randomBytes(3).toString('hex')}`), DATABASE_URL: dbUrl, REDIS_URL: proxy.url('redis') };
  await cli(['org', 'create', '--id', ORG, '--name', 'Partner faults'], env);
  await cli(['user', 'create', '--org', ORG, '--email', ADMIN_EMAIL, '--password', ADMIN_PASSWORD, '--role', 'ORG_ADMIN'], env);
  const A = serviceProcess({ name: 'instance A', port: await freePort(), env, logFile: join(dir, 'a.log') });
  await A.start();
  const B = serviceProcess({ name: 'instance B', port: await freePort(), env, logFile: join(dir, 'b.log') });
  await B.start();
  let unexpected = 0;
  for (const s of [A, B]) s.onUnexpectedExit = () => void unexpected++;
  const inst = { A, B } as Record<'A' | 'B', ServiceProcess>;
  log(
    `instances: A pid ${A.pid()} on :${A.port}, B pid ${B.pid()} on :${B.port}${pinned ? ' (both core 0; this client core 1)' : ''}; ` +
      `Redis: private redis-server on :${REDIS_PORT} (pid ${redis.pid()}) behind the fault proxy :${proxy.port}; PostgreSQL: fresh database on the shared server; embedded bus`,
  );

  const adminToken = await login(A.url, ADMIN_EMAIL, ADMIN_PASSWORD, '127.0.0.9');
  const k7 = await createApiKey(A.url, adminToken, 'T-7 partner', ['devices:read', 'telemetry:read', 'alerts:read']);
  const k10 = await createApiKey(B.url, adminToken, 'T-10 victim', ['devices:read', 'telemetry:read']);
  log(`provisioning: org and ORG_ADMIN via the CLI; login via the API from 127.0.0.9; two live API keys issued via the API (${k7.id}, ${k10.id})`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const call = (s: ServiceProcess, path: string, keySecret: string, method = 'GET') =>
    request(`${s.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${keySecret}`, ...(method === 'POST' && { 'content-type': 'application/json' }) },
      body: method === 'POST' ? '{}' : undefined,
      agent,
      timeoutMs: 15_000,
    });

  // ------------------------------------------------------------------------------------------
  // T-7.
  log('\n## T-7 Redis blackholed');
  const before = [await call(A, ME, k7.secret), await call(B, ME, k7.secret), await call(A, WRITE, k7.secret, 'POST')];
  log(
    `  before: read A ${before[0].status} Remaining ${header(before[0], 'RateLimit-Remaining')}, read B ${before[1].status} Remaining ` +
      `${header(before[1], 'RateLimit-Remaining')} (shared counter), write ${before[2].status}`,
  );
  const remA = Number(header(before[0], 'RateLimit-Remaining'));
  const remB = Number(header(before[1], 'RateLimit-Remaining'));
  // B's count follows A's (one shared counter), unless a window boundary fell between the two.
  report.check(
    'before the outage: key reads answered and counted across A and B',
    before[0].status === 200 && before[1].status === 200 && (remB === remA - 1 || remB === LIMIT - 1),
    `A ${remA}, B ${remB}`,
  );
  report.check('before the outage: a key write is admitted', before[2].status === 202, `${before[2].status}`);
  if (OUTAGE_MS <= 50_000) await alignToWindow(1000, OUTAGE_MS + 5000);
  const readyA = watchReadiness(A.url, 250);
  const hits: Hit[] = [];
  const outStart = Date.now();
  const outStartPerf = performance.now();
  proxy.set({ kind: 'blackhole' });
  log(`  blackhole at ${new Date(outStart).toISOString()} for ${OUTAGE_MS / 1000} s`);
  const pending: Promise<void>[] = [];
  const fire = (instance: 'A' | 'B', kind: Hit['kind'], path: string, keySecret: string, method = 'GET', worker = 0) => {
    const sentAt = Date.now();
    const p = call(inst[instance], path, keySecret, method).then((a) => void hits.push({ instance, worker, kind, sentAt, a }));
    pending.push(p);
    return p;
  };
  const span = OUTAGE_MS - 2000;
  const writes = (async () => {
    for (let i = 0; Date.now() - outStart < span; i++) {
      void fire(i % 2 ? 'B' : 'A', 'write', WRITE, k7.secret, 'POST');
      await sleep(250);
    }
  })();
  const reads = (['A', 'B'] as const).map(async (instance) => {
    for (let i = 0; i < READS; i++) {
      const due = outStart + 500 + (i * (span - 500)) / READS;
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
      void fire(instance, 'read', ME, k7.secret);
    }
  });
  await Promise.all([writes, ...reads]);
  await sleep(Math.max(0, outStart + OUTAGE_MS - Date.now()));
  await Promise.all(pending);
  proxy.set({ kind: 'pass' });
  const restored = Date.now();
  const restoredPerf = performance.now();
  log(`  restored at ${new Date(restored).toISOString()}`);

  // Until counting is shared again: a key write is admitted only with the shared counter.
  const sharedAgain: Partial<Record<'A' | 'B', number>> = {};
  const probes: Answer[] = [];
  while ((!sharedAgain.A || !sharedAgain.B) && Date.now() - restored < 60_000) {
    for (const name of ['A', 'B'] as const) {
      if (sharedAgain[name]) continue;
      const a = await call(inst[name], WRITE, k7.secret, 'POST');
      probes.push(a);
      if (a.status === 202) sharedAgain[name] = Date.now() - restored;
    }
    await sleep(100);
  }
  await sleep(1500);
  await readyA.stop();

  const outWrites = hits.filter((h) => h.kind === 'write');
  const spec503 = outWrites.filter((h) => h.a.status === 503 && detailOf(h.a) === 'service_unavailable' && header(h.a, 'Retry-After') === '30');
  log(
    `  key writes during the outage: ${outWrites.length}: ${showTally(tally(outWrites, (h) => outcome(h.a) + ` Retry-After ${header(h.a, 'Retry-After') ?? '-'}`))}`,
  );
  const wl = summary(outWrites.map((h) => h.a.ms));
  log(`    latency p50 ${fmt(wl.p50)} ms, p99 ${fmt(wl.p99)} ms, max ${fmt(wl.max)} ms`);
  report.check(
    'T-7: key writes during the outage -> 503 service_unavailable with Retry-After: 30 (100%)',
    spec503.length === outWrites.length && outWrites.length > 0,
    `${spec503.length} of ${outWrites.length}`,
  );
  for (const name of ['A', 'B'] as const) {
    const r = hits.filter((h) => h.kind === 'read' && h.instance === name);
    const byWindow = tally(
      r.filter((h) => h.a.status === 200),
      (h) => String(windowOf(h.sentAt)),
    );
    const rl = summary(r.map((h) => h.a.ms));
    log(
      `  reads on ${name} during the outage: ${r.length}: ${showTally(tally(r, (h) => outcome(h.a)))}; admitted per window ${JSON.stringify(Object.values(byWindow))}; ` +
        `latency p50 ${fmt(rl.p50)} ms, p99 ${fmt(rl.p99)} ms, max ${fmt(rl.max)} ms`,
    );
    const answered = r.filter((h) => h.a.status === 200 || h.a.status === 429).length;
    report.check(`T-7: reads on ${name} answered (200 or 429) during the outage`, answered === r.length, `${answered} of ${r.length}`);
    const maxAdmitted = Math.max(0, ...Object.values(byWindow));
    report.check(`T-7: reads on ${name} limited per instance (<= ${LIMIT} admitted per window)`, maxAdmitted <= LIMIT, `${maxAdmitted}`);
    if (Object.keys(byWindow).length === 1 && r.length > LIMIT) {
      // Refused key writes spend a unit of the local count too (the limiter counts before the
      // write is refused), so the reads admitted plus those writes make the local limit.
      const w = outWrites.filter((h) => h.instance === name).length;
      report.check(
        `T-7: reads on ${name}: the local count admits up to the limit while more kept coming (reads admitted + key writes counted >= ${LIMIT})`,
        maxAdmitted + w >= LIMIT,
        `${maxAdmitted} reads + ${w} refused writes`,
      );
    }
  }
  const all500 = [...hits, ...probes.map((a) => ({ a }))].filter((h) => h.a.status >= 500 && h.a.status !== 503);
  report.check('T-7: no 500s', all500.length === 0, `${all500.length}`);
  const cacheDown = readyA.firstAfter(outStartPerf, (s) => s.checks?.cache === false);
  const cacheUp = readyA.firstAfter(restoredPerf, (s) => s.checks?.cache === true);
  log(
    `  readiness on A: cache=false ${cacheDown === undefined ? 'never' : `${fmt((cacheDown - outStartPerf) / 1000, 1)} s`} after the blackhole; ` +
      `cache=true ${cacheUp === undefined ? 'never' : `${fmt((cacheUp - restoredPerf) / 1000, 1)} s`} after the restore; transitions: ` +
      readyA.changes.map((c) => `${fmt((c.at - outStartPerf) / 1000, 1)} s ${describeReadiness(c)}`).join('; '),
  );
  log(
    `  counting shared again (first key write admitted) after the restore: A ${sharedAgain.A ?? 'never'} ms, B ${sharedAgain.B ?? 'never'} ms; probes ${showTally(tally(probes, outcome))}`,
  );
  const worst = Math.max(sharedAgain.A ?? Infinity, sharedAgain.B ?? Infinity);
  report.target('T-7: counting shared again <= 5 s after Redis returns', worst <= 5000, `${Number.isFinite(worst) ? fmt(worst) + ' ms' : 'never'}`);

  // ------------------------------------------------------------------------------------------
  // T-10.
  const rounds = [];
  for (let round = 1; round <= T10_ROUNDS; round++) {
    log(
      `\n## T-10 round ${round}: ${fmt(T10_REQUESTS)} reads with one key over ${T10_MS / 1000} s, split at random between A and B (+100 wrong secret, +100 missing scope)`,
    );
    await alignToWindow(300, T10_MS + 3000);
    const t10: Hit[] = [];
    const t0 = Date.now();
    const schedule: { kind: Hit['kind']; path: string; keySecret: string }[] = [];
    for (let i = 0; i < T10_REQUESTS; i++) schedule.push({ kind: 'read', path: ME, keySecret: k10.secret });
    const wrong = k10.secret.slice(0, -4) + (k10.secret.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    for (let i = 0; i < 100; i++) schedule.push({ kind: 'bad-key', path: ME, keySecret: wrong });
    for (let i = 0; i < 100; i++) schedule.push({ kind: 'no-scope', path: ALERTS, keySecret: k10.secret });
    for (let i = schedule.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [schedule[i], schedule[j]] = [schedule[j], schedule[i]];
    }
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async (_, worker) => {
        while (next < schedule.length) {
          const i = next++;
          const due = t0 + (i * T10_MS) / schedule.length;
          const wait = due - Date.now();
          if (wait > 0) await sleep(wait);
          const instance = random() < 0.5 ? 'A' : 'B';
          const s = schedule[i];
          const sentAt = Date.now();
          const a = await call(inst[instance], s.path, s.keySecret);
          t10.push({ instance, worker, kind: s.kind, sentAt, a });
        }
      }),
    );
    const elapsed = Date.now() - t0;
    const reads = t10.filter((h) => h.kind === 'read');
    const windows = new Set(t10.map((h) => windowOf(h.sentAt)));
    const admitted = reads.filter((h) => h.a.status === 200);
    const limited = reads.filter((h) => h.a.status === 429);
    log(
      `  ${fmt(t10.length)} requests in ${fmt(elapsed / 1000, 1)} s (${windows.size} window${windows.size > 1 ? 's' : ''}); reads: ${showTally(tally(reads, (h) => `${h.instance} ${outcome(h.a)}`))}; ` +
        `wrong secret: ${showTally(
          tally(
            t10.filter((h) => h.kind === 'bad-key'),
            (h) => outcome(h.a),
          ),
        )}; missing scope: ${showTally(
          tally(
            t10.filter((h) => h.kind === 'no-scope'),
            (h) => outcome(h.a),
          ),
        )}`,
    );
    const lat = summary(reads.map((h) => h.a.ms));
    log(`  read latency p50 ${fmt(lat.p50)} ms, p95 ${fmt(lat.p95)} ms, p99 ${fmt(lat.p99)} ms, max ${fmt(lat.max)} ms`);
    report.check(
      `T-10 round ${round}: the requests fit in one window`,
      windows.size === 1 && elapsed < 10_000,
      `${fmt(elapsed)} ms, ${windows.size} window(s)`,
    );
    report.check(
      `T-10 round ${round}: exactly ${LIMIT} admitted`,
      admitted.length === LIMIT,
      `${admitted.length} (${limited.length} answered 429, ${reads.length - admitted.length - limited.length} other)`,
    );
    const rem = (h: Hit) => Number(header(h.a, 'RateLimit-Remaining'));
    const remaining = admitted.map(rem).sort((x, y) => x - y);
    const permutation = remaining.length === LIMIT && remaining.every((v, i) => v === i);
    const repeated = [...new Set(remaining.filter((v, i) => i > 0 && remaining[i - 1] === v))];
    report.check(
      `T-10 round ${round}: the admitted requests' RateLimit-Remaining are ${LIMIT - 1}..0, each once (one shared counter)`,
      permutation,
      permutation
        ? ''
        : `distinct ${new Set(remaining).size}, min ${remaining[0]}, max ${remaining.at(-1)}; repeated ${repeated.join(', ')} ` +
            `(a Remaining near ${LIMIT - 1} repeated is a count taken in process memory: that check went past the ${process.env.RATE_LIMIT_BUDGET_MS ?? 50} ms limiter budget)`,
    );
    let rises = 0;
    for (let w = 0; w < 16; w++) {
      const seq = reads.filter((h) => h.worker === w && !Number.isNaN(rem(h))).sort((x, y) => x.sentAt - y.sentAt);
      for (let k = 1; k < seq.length; k++) if (rem(seq[k]) > rem(seq[k - 1])) rises++;
    }
    report.check(`T-10 round ${round}: RateLimit-Remaining never rises along any client's sequence`, rises === 0, `${rises} rises`);
    const negative = reads.filter((h) => rem(h) < 0).length;
    report.check(`T-10 round ${round}: RateLimit-Remaining never negative`, negative === 0, `${negative}`);
    const badLimit = reads.filter((h) => header(h.a, 'RateLimit-Limit') !== String(LIMIT) || header(h.a, 'RateLimit-Policy') !== `${LIMIT};w=60`);
    report.check(
      `T-10 round ${round}: RateLimit-Limit: ${LIMIT} and RateLimit-Policy: ${LIMIT};w=60 on every read answer`,
      badLimit.length === 0,
      `${badLimit.length} without`,
    );
    const bad429 = limited.filter((h) => {
      const ra = header(h.a, 'Retry-After');
      const reset = header(h.a, 'RateLimit-Reset');
      if (!ra || !/^\d+$/.test(ra) || Number(ra) < 1) return true;
      if (reset !== undefined && Number(ra) < Number(reset)) return true;
      // Not earlier than the window end: sent at sentAt, the window ends at (window + 1) * 60 s.
      const end = (windowOf(h.sentAt) + 1) * WINDOW_MS;
      return h.sentAt + Number(ra) * 1000 < end - 1000;
    });
    report.check(
      `T-10 round ${round}: every 429 has an integer Retry-After >= 1, not before the window end (RateLimit-Reset)`,
      bad429.length === 0,
      `${bad429.length} of ${limited.length} not`,
    );
    const noReset429 = limited.filter((h) => header(h.a, 'RateLimit-Reset') === undefined).length;
    if (noReset429) log(`  note: ${noReset429} of ${limited.length} 429 answers carry no RateLimit-Reset`);
    const bad = t10.filter((h) => h.kind === 'bad-key');
    const noScope = t10.filter((h) => h.kind === 'no-scope');
    report.check(
      `T-10 round ${round}: wrong-secret requests answered 401`,
      bad.every((h) => h.a.status === 401),
      showTally(tally(bad, (h) => String(h.a.status))),
    );
    report.check(
      `T-10 round ${round}: missing-scope requests answered 403 (or 429 once the key's window is spent)`,
      noScope.every((h) => h.a.status === 403 || h.a.status === 429),
      showTally(tally(noScope, (h) => String(h.a.status))),
    );
    const five = t10.filter((h) => h.a.status >= 500 || h.a.status === 0);
    report.check(`T-10 round ${round}: no 5xx and no unanswered request`, five.length === 0, `${five.length}`);
    rounds.push({
      round,
      elapsedMs: elapsed,
      admitted: admitted.length,
      limited: limited.length,
      byInstance: tally(admitted, (h) => h.instance),
      latency: lat,
    });
  }

  agent.destroy();
  report.check('neither instance exited by itself', unexpected === 0, `${unexpected}`);
  log(`\nmachine after: ${await machine()}`);
  log(
    'RESULT ' +
      JSON.stringify({
        run: 'T-7+T-10',
        outageMs: OUTAGE_MS,
        writes: tally(outWrites, (h) => outcome(h.a)),
        readsA: tally(
          hits.filter((h) => h.kind === 'read' && h.instance === 'A'),
          (h) => outcome(h.a),
        ),
        readsB: tally(
          hits.filter((h) => h.kind === 'read' && h.instance === 'B'),
          (h) => outcome(h.a),
        ),
        sharedAgainMs: sharedAgain,
        t10: rounds,
      }),
  );
  log(report.failures ? `\n${report.failures} correctness check(s) FAILED` : '\nall correctness checks passed');
  return report.failures ? 1 : 0;
});
