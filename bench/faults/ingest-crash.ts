// T-5 "No acknowledged write lost across crashes" (reliability plan; a Jepsen-style set test, not a
// test in `npm test`). For each seed: a fresh database on the shared PostgreSQL (only the service is
// killed here, never the server), the service as production runs it (src/main.ts, pinned to core
// 0), and 16 concurrent clients (this process, pinned to core 1) sending ingestion batches whose
// records each carry a unique id in raw (`rid`). A client retries a batch on no answer and on any
// 5xx. A seeded chaos loop kill -9's the service every 5-15 s and restarts it at once. At the end
// every stored rid is read back from PostgreSQL and compared with what was acknowledged.
//
//   npm run bench:faults -- ingest-crash        (or: node bench/faults/ingest-crash.ts)
//   FAULT_SEEDS=1,2,3  FAULT_BATCHES=3000  FAULT_BATCH_SIZE=50  FAULT_CONCURRENCY=16
//   FAULT_RATE=60 (batches/s offered; 0 = back to back)  FAULT_KILL_MIN_S=5  FAULT_KILL_MAX_S=15
//   FAULT_ADMIN_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres
//
// Exact facts (PASS/FAIL, exit 1 on FAIL): lost = |rids acknowledged in a 200/207 - rids stored| = 0;
// no batch half-written (every record of a batch stored the same number of times); a batch stored
// more than once only if earlier attempts got no answer or an ambiguous 5xx (no cross-request
// deduplication in the spec), never more often than attempts that could have committed.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import http from 'node:http';
import pg from 'pg';
import { makeRecord } from '../lib/records.ts';
import { fmt, machine, pinSelf, summary } from '../lib/stats.ts';
import { createDatabase, freePort, runMain, sleep, tempDir } from './lib/servers.ts';
import { baseEnv, serviceProcess } from './lib/service.ts';
import { accessToken, cli, createReport, envInt, newSecret, request, rng, secs, showTally, tally } from './lib/client.ts';

const SEEDS = (process.env.FAULT_SEEDS ?? '1,2,3')
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isFinite(n));
const BATCHES = envInt('FAULT_BATCHES', 3000);
const SIZE = envInt('FAULT_BATCH_SIZE', 50);
const CONCURRENCY = envInt('FAULT_CONCURRENCY', 16);
const RATE = envInt('FAULT_RATE', 60);
const KILL_MIN = envInt('FAULT_KILL_MIN_S', 5) * 1000;
const KILL_MAX = envInt('FAULT_KILL_MAX_S', 15) * 1000;
const ADMIN_URL = process.env.FAULT_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REQUEST_TIMEOUT_MS = 15_000;
const GIVE_UP_MS = 10 * 60_000;
const ORG = 'crash';
const log = (s = '') => console.log(s);

interface BatchState {
  attempts: number;
  /** Attempts that may have committed: no answer, or a 5xx other than the spec's 503 writer_error. */
  ambiguous: number;
  /** 503 writer_error answers (the store says it did not persist). */
  writerErrors: number;
  acked: boolean;
  gaveUp: boolean;
}

async function runSeed(seed: number, report: ReturnType<typeof createReport>) {
  const random = rng(seed);
  const dir = tempDir(`fault-crash-${seed}-`);
  const dbName = `fault_crash_${randomBytes(4).toString('hex')}`;
  const dbUrl = await createDatabase(ADMIN_URL, dbName);
  const secret = newSecret();
  const port = await freePort();
  const env = {
    ...baseEnv(secret, `crash${randomBytes(3).toString('hex')}`),
    DATABASE_URL: dbUrl,
    // One benchmark user sends every batch: lift the 100/min per-user limit (written in the output).
    RATE_LIMIT_USER_PER_MIN: '10000000',
  };
  await cli(['org', 'create', '--id', ORG, '--name', 'Crash test'], env);
  const svc = serviceProcess({ name: 'service', port, env, logFile: join(dir, 'service.log') });
  let unexpectedExits = 0;
  svc.onUnexpectedExit = (code, signal) => {
    unexpectedExits++;
    log(`  !! service exited by itself (${code ?? signal}); log tail:\n${svc.logTail(15)}`);
  };
  const firstStart = await svc.start();
  log(`\n## seed ${seed}: database ${dbName} on the shared PostgreSQL, service pid ${svc.pid()} on :${port} (started in ${secs(firstStart)})`);

  const token = await accessToken(secret, ORG, ['OPERATOR']);
  const url = `${svc.url}/api/telemetry/ingest`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const T0 = Date.now() - 3 * 3600_000;
  const state: BatchState[] = Array.from({ length: BATCHES }, () => ({ attempts: 0, ambiguous: 0, writerErrors: 0, acked: false, gaveUp: false }));
  const answers: string[] = [];
  const ackLatency: number[] = [];

  // Chaos loop: kill -9 every 5-15 s (seeded), restart at once.
  let done = false;
  const kills: { at: number; restartMs: number }[] = [];
  let unexpectedRestarts = 0;
  const chaos = (async () => {
    while (!done) {
      const wait = KILL_MIN + random() * (KILL_MAX - KILL_MIN);
      const until = performance.now() + wait;
      while (!done && performance.now() < until) {
        await sleep(100);
        if (!done && !svc.running()) {
          unexpectedRestarts++;
          await svc.start();
        }
      }
      if (done) break;
      const at = performance.now();
      await svc.kill9();
      const restartMs = await svc.start();
      kills.push({ at, restartMs });
    }
  })();

  const t0 = performance.now();
  let next = 0;
  const bodies = (b: number) =>
    JSON.stringify(Array.from({ length: SIZE }, (_, i) => ({ ...makeRecord(b * SIZE + i, T0, 'gateways', SIZE), rid: `${b}:${i}` })));
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < BATCHES) {
        const b = next++;
        if (RATE > 0) {
          const wait = t0 + (b / RATE) * 1000 - performance.now();
          if (wait > 0) await sleep(wait);
        }
        const body = bodies(b);
        const st = state[b];
        const first = performance.now();
        while (!st.acked) {
          if (performance.now() - first > GIVE_UP_MS) {
            st.gaveUp = true;
            break;
          }
          st.attempts++;
          const a = await request(url, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}` },
            body,
            agent,
            timeoutMs: REQUEST_TIMEOUT_MS,
          });
          answers.push(a.status === 0 ? `no answer (${a.error})` : String(a.status));
          if (a.status === 200 || a.status === 207) {
            const stored = Number(JSON.parse(a.body).stored);
            if (stored !== SIZE) {
              report.check(`seed ${seed}: batch ${b} acknowledged with stored = count`, false, `stored ${stored} of ${SIZE}`);
            }
            st.acked = true;
            ackLatency.push(performance.now() - first);
            break;
          }
          if (a.status === 503 && a.body.includes('writer_error')) st.writerErrors++;
          else if (a.status === 0 || a.status >= 500) st.ambiguous++;
          else {
            // A 4xx is not retried: the batch is refused (it should never happen here).
            st.gaveUp = true;
            break;
          }
          await sleep(Math.min(2000, 100 * st.attempts) + random() * 100);
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  done = true;
  await chaos;
  agent.destroy();
  if (!svc.running()) await svc.start();
  await svc.stop();

  // Read back every stored rid.
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  const rows = (await c.query<{ rid: string; n: number }>(`select raw->>'rid' as rid, count(*)::int as n from telemetry where org_id = $1 group by 1`, [ORG]))
    .rows;
  const total = (await c.query<{ n: number }>('select count(*)::int as n from telemetry where org_id = $1', [ORG])).rows[0].n;
  await c.end();
  const copies = new Map<string, number>(rows.map((r) => [r.rid, r.n]));

  let ackedBatches = 0;
  let lostRecords = 0;
  let halfWritten = 0;
  let duplicateBatches = 0;
  let duplicateRows = 0;
  let unexplained = 0;
  let storedNotAcked = 0;
  let gaveUp = 0;
  let retriedBatches = 0;
  for (let b = 0; b < BATCHES; b++) {
    const st = state[b];
    if (st.acked) ackedBatches++;
    if (st.gaveUp) gaveUp++;
    if (st.attempts > 1) retriedBatches++;
    const counts = Array.from({ length: SIZE }, (_, i) => copies.get(`${b}:${i}`) ?? 0);
    const n = counts[0];
    if (counts.some((x) => x !== n)) halfWritten++;
    if (st.acked) lostRecords += counts.filter((x) => x === 0).length;
    if (!st.acked && n > 0) storedNotAcked++;
    if (n > 1) {
      duplicateBatches++;
      duplicateRows += counts.reduce((s, x) => s + x - 1, 0);
    }
    const couldHaveCommitted = st.ambiguous + (st.acked ? 1 : 0);
    if (n > couldHaveCommitted) unexplained++;
  }
  const ackedRecords = ackedBatches * SIZE;
  const lat = summary(ackLatency);
  const restarts = summary(kills.map((k) => k.restartMs));
  log(
    `  ${fmt(BATCHES)} batches of ${SIZE} (${fmt(BATCHES * SIZE)} records) in ${fmt(seconds, 1)} s from ${CONCURRENCY} clients` +
      `${RATE > 0 ? ` offered at ${RATE} batches/s` : ' back to back'}; ${kills.length} kill -9 + restart` +
      ` (restart to healthy p50 ${fmt(restarts.p50 / 1000, 1)} s, max ${fmt(restarts.max / 1000, 1)} s)` +
      `${unexpectedRestarts ? `; ${unexpectedRestarts} restarts after an exit the run did not cause` : ''}`,
  );
  log(`  answers: ${showTally(tally(answers, (x) => x))}`);
  log(
    `  batches retried: ${fmt(retriedBatches)}; batch time to acknowledgement (retries included) p50 ${fmt(lat.p50)} ms, p99 ${fmt(lat.p99)} ms, max ${fmt(lat.max)} ms`,
  );
  log(
    `  acknowledged: ${fmt(ackedBatches)} batches = ${fmt(ackedRecords)} records; stored: ${fmt(copies.size)} distinct rids in ${fmt(total)} rows; ` +
      `lost ${fmt(lostRecords)}; duplicates ${fmt(duplicateRows)} rows in ${fmt(duplicateBatches)} batches (all from retried batches: ${unexplained === 0 ? 'yes' : 'NO'}); ` +
      `half-written batches ${halfWritten}; stored but never acknowledged ${storedNotAcked}; given up ${gaveUp}`,
  );
  report.check(`seed ${seed}: lost acknowledged records = 0`, lostRecords === 0, `${lostRecords} lost of ${fmt(ackedRecords)}`);
  report.check(`seed ${seed}: half-written batches = 0`, halfWritten === 0, `${halfWritten}`);
  report.check(
    `seed ${seed}: duplicates only from attempts that got no answer or an ambiguous 5xx`,
    unexplained === 0,
    `${duplicateBatches} duplicated batches, ${unexplained} stored more often than attempts that could have committed`,
  );
  report.check(`seed ${seed}: every batch acknowledged in the end`, ackedBatches === BATCHES, `${fmt(ackedBatches)} of ${fmt(BATCHES)}`);
  report.check(`seed ${seed}: the service never exited by itself`, unexpectedExits === 0, `${unexpectedExits}`);
  report.target(`seed ${seed}: at least one kill -9 landed during the run`, kills.length > 0, `${kills.length}`);
  return {
    seed,
    kills: kills.length,
    ackedRecords,
    stored: copies.size,
    rows: total,
    lost: lostRecords,
    duplicateRows,
    duplicateBatches,
    halfWritten,
    seconds,
  };
}

runMain(async () => {
  const pinned = await pinSelf(1);
  log(`# T-5 no acknowledged write lost across crashes, ${new Date().toISOString()}`);
  log(`machine: ${await machine()}`);
  log(
    `clients: pid ${process.pid}${pinned ? ' pinned to core 1' : ''}; service: src/main.ts${pinned ? ' pinned to core 0' : ''}, PostgreSQL (shared server, ` +
      `fresh database per seed), embedded cache and bus; RATE_LIMIT_USER_PER_MIN=10000000 (one user sends every batch)`,
  );
  log(
    `seeds ${SEEDS.join(', ')}; kill -9 every ${KILL_MIN / 1000}-${KILL_MAX / 1000} s; retry on no answer and on 5xx; request timeout ${REQUEST_TIMEOUT_MS / 1000} s`,
  );
  const report = createReport(log);
  const results = [];
  for (const seed of SEEDS) results.push(await runSeed(seed, report));
  log(`\nmachine after: ${await machine()}`);
  log('RESULT ' + JSON.stringify({ run: 'T-5', batchSize: SIZE, batches: BATCHES, concurrency: CONCURRENCY, rate: RATE, seeds: results }));
  log(report.failures ? `\n${report.failures} correctness check(s) FAILED` : '\nall correctness checks passed');
  return report.failures ? 1 : 0;
});
