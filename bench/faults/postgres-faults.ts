// T-6 PostgreSQL stall, reset, stop (reliability plan; a run that prints figures, not a test).
// The service (src/main.ts, core 0) reaches a PRIVATE PostgreSQL cluster (port 5433 by default,
// started and removed by this run) through the in-repo fault proxy; this process (core 1) sends
// ingestion batches at a fixed moderate rate, each once, every record carrying a unique `rid`, and
// polls /api/telemetry/readyz every 250 ms. Faults, one after another with recovery in between:
//   stall 10 s (connections held, nothing forwarded), reset (every connection destroyed, new ones
//   refused for FAULT_RESET_S), and the server itself stopped (pg_ctl -m immediate) and started.
// Printed: every request's outcome and latency per phase (in flight at the fault start, during,
// after), readiness transitions of the `database` check with timings, recovery time, throughput
// back to >= 90% of before, and the T-5 loss count from reading every rid back.
//
//   npm run bench:faults -- postgres-faults     (or: node bench/faults/postgres-faults.ts)
//   FAULT_PG_PORT=5433  FAULT_PG_RATE=20 (batches/s)  FAULT_BATCH_SIZE=100  FAULT_STALL_S=10
//   FAULT_RESET_S=5  FAULT_PG_DOWN_S=10  FAULT_PG_STOP_MODE=immediate|fast  FAULT_PHASE_S=15 (each
//   quiet phase)  FAULT_REQUEST_BOUND_MS=5000 (the plan's bound on an in-flight request)
//
// Exact facts (PASS/FAIL): no request hangs (every request answered before the client's 30 s
// cut-off); no 200/207 without a commit (every acknowledged rid is stored: lost = 0); no 500;
// every failure answer is the spec's 503 writer_error; readiness never reports degraded for a
// false `database` (spec: data is still accepted and streamed). Timed targets are printed.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import http from 'node:http';
import pg from 'pg';
import { startFaultProxy, type FaultMode } from '../lib/fault-proxy.ts';
import { makeRecord } from '../lib/records.ts';
import { fmt, machine, pinSelf, summary } from '../lib/stats.ts';
import { freePort, onCleanup, runMain, sleep, startPostgres, tempDir } from './lib/servers.ts';
import { baseEnv, describeReadiness, serviceProcess, watchReadiness } from './lib/service.ts';
import { accessToken, cli, createReport, detailOf, envInt, newSecret, request, showTally, tally, type Answer } from './lib/client.ts';

const PG_PORT = envInt('FAULT_PG_PORT', 5433);
const RATE = envInt('FAULT_PG_RATE', 20);
const SIZE = envInt('FAULT_BATCH_SIZE', 100);
const STALL_MS = envInt('FAULT_STALL_S', 10) * 1000;
const RESET_MS = envInt('FAULT_RESET_S', 5) * 1000;
const DOWN_MS = envInt('FAULT_PG_DOWN_S', 10) * 1000;
const PHASE_MS = envInt('FAULT_PHASE_S', 15) * 1000;
const STOP_MODE = (process.env.FAULT_PG_STOP_MODE ?? 'immediate') as 'fast' | 'immediate';
const BOUND_MS = envInt('FAULT_REQUEST_BOUND_MS', 5000);
const CUTOFF_MS = 30_000;
const ORG = 'pgfault';
const log = (s = '') => console.log(s);

interface Sent {
  b: number;
  sentAt: number;
  doneAt?: number;
  answer?: Answer;
}

interface Fault {
  name: string;
  start: number;
  end: number;
}

runMain(async () => {
  const pinned = await pinSelf(1);
  const report = createReport(log);
  log(`# T-6 PostgreSQL stall, reset, stop, ${new Date().toISOString()}`);
  log(`machine: ${await machine()}`);
  const dir = tempDir('fault-pg-run-');
  const server = await startPostgres(PG_PORT);
  const admin = new pg.Client({ connectionString: server.url() });
  await admin.connect();
  await admin.query('create database fault');
  await admin.end();
  const proxy = await startFaultProxy({ host: '127.0.0.1', port: PG_PORT });
  onCleanup('fault proxy', () => proxy.close());
  const secret = newSecret();
  const port = await freePort();
  const env = {
    ...baseEnv(secret, `pgf${randomBytes(3).toString('hex')}`),
    DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port}/fault`,
    RATE_LIMIT_USER_PER_MIN: '10000000',
  };
  await cli(['org', 'create', '--id', ORG, '--name', 'PostgreSQL faults'], { ...env, DATABASE_URL: server.url('fault') });
  const svc = serviceProcess({ name: 'service', port, env, logFile: join(dir, 'service.log') });
  let unexpectedExit = false;
  svc.onUnexpectedExit = (code, signal) => {
    unexpectedExit = true;
    log(`!! service exited by itself (${code ?? signal}):\n${svc.logTail(20)}`);
  };
  await svc.start();
  log(
    `service: pid ${svc.pid()}${pinned ? ' (core 0)' : ''} on :${port} -> fault proxy :${proxy.port} -> private PostgreSQL 15 on :${PG_PORT} ` +
      `(${server.dir}); embedded cache and bus (readiness here is about the database alone)`,
  );
  log(
    `load: pid ${process.pid}${pinned ? ' (core 1)' : ''}, ${RATE} batches/s of ${SIZE} records (${fmt(RATE * SIZE)} records/s), each batch sent once; client cut-off ${CUTOFF_MS / 1000} s`,
  );

  const token = await accessToken(secret, ORG, ['OPERATOR']);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const ready = watchReadiness(svc.url, 250);
  const T0 = Date.now() - 3600_000;
  const sent: Sent[] = [];
  const inflight = new Set<Promise<void>>();
  let loadOn = true;
  const t0 = performance.now();
  const load = (async () => {
    for (let b = 0; loadOn; b++) {
      const due = t0 + (b / RATE) * 1000;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const body = JSON.stringify(Array.from({ length: SIZE }, (_, i) => ({ ...makeRecord(b * SIZE + i, T0, 'gateways', SIZE), rid: `${b}:${i}` })));
      const s: Sent = { b, sentAt: performance.now() };
      sent.push(s);
      const p = request(`${svc.url}/api/telemetry/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body,
        agent,
        timeoutMs: CUTOFF_MS,
      }).then((a) => {
        s.answer = a;
        s.doneAt = performance.now();
      });
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    }
  })();

  const faults: Fault[] = [];
  const phase = async (name: string, ms: number, apply?: () => Promise<void> | void, undo?: () => Promise<void> | void) => {
    const start = performance.now();
    await apply?.();
    await sleep(Math.max(0, ms - (performance.now() - start)));
    await undo?.();
    const end = performance.now();
    if (apply) faults.push({ name, start, end });
    return { start, end };
  };
  const mode = (m: FaultMode) => () => proxy.set(m);

  log('phases: baseline, stall, recovery, reset, recovery, server stop/start, recovery');
  const baseline = await phase('baseline', PHASE_MS);
  await phase(`stall ${STALL_MS / 1000} s`, STALL_MS, mode({ kind: 'stall' }), mode({ kind: 'pass' }));
  await phase('recovery', PHASE_MS);
  await phase(`reset (${RESET_MS / 1000} s refusing)`, RESET_MS, mode({ kind: 'reset' }), mode({ kind: 'pass' }));
  await phase('recovery', PHASE_MS);
  await phase(
    `server stop -m ${STOP_MODE} ${DOWN_MS / 1000} s, start`,
    DOWN_MS,
    () => server.stopMode(STOP_MODE),
    () => server.start(),
  );
  await phase('recovery', PHASE_MS + 5000);
  loadOn = false;
  await load;
  await Promise.all([...inflight]);
  await ready.stop();
  agent.destroy();
  const runEnd = performance.now();

  // ------------------------------------------------------------------------------------------
  const rel = (t: number) => `${((t - t0) / 1000).toFixed(1)} s`;
  const ok = (s: Sent) => s.answer!.status === 200 || s.answer!.status === 207;
  const outcome = (s: Sent) => (s.answer!.status === 0 ? `no answer (${s.answer!.error})` : `${s.answer!.status} ${detailOf(s.answer!)}`.trim());
  const describe = (list: Sent[]) => {
    if (list.length === 0) return 'none';
    const l = summary(list.map((s) => s.answer!.ms));
    return `${list.length} requests: ${showTally(tally(list, outcome))}; latency p50 ${fmt(l.p50)} ms, p99 ${fmt(l.p99)} ms, max ${fmt(l.max)} ms`;
  };
  const storedPerSecond = (from: number, to: number) => (sent.filter((s) => ok(s) && s.doneAt! >= from && s.doneAt! < to).length * SIZE) / ((to - from) / 1000);
  const baseRate = storedPerSecond(baseline.start + 2000, baseline.end);
  log(`\nbaseline: ${describe(sent.filter((s) => s.sentAt >= baseline.start && s.sentAt < baseline.end))}; ${fmt(baseRate)} records/s stored`);

  for (const [i, f] of faults.entries()) {
    const nextStart = faults[i + 1]?.start ?? runEnd;
    log(`\n## ${f.name}: from ${rel(f.start)} to ${rel(f.end)}`);
    const atStart = sent.filter((s) => s.sentAt < f.start && s.doneAt! > f.start);
    const during = sent.filter((s) => s.sentAt >= f.start && s.sentAt < f.end);
    const after = sent.filter((s) => s.sentAt >= f.end && s.sentAt < nextStart);
    log(`  in flight when the fault began: ${describe(atStart)}`);
    log(`  sent during the fault:          ${describe(during)}`);
    log(`  sent after it, until the next:  ${describe(after)}`);
    const affected = [...atStart, ...during];
    const slowest = Math.max(0, ...affected.map((s) => s.answer!.ms));
    report.target(
      `${f.name}: requests in flight or sent during the fault finish within ${BOUND_MS / 1000} s`,
      slowest <= BOUND_MS,
      `slowest ${fmt(slowest)} ms`,
    );

    const down = ready.firstAfter(f.start, (r) => r.checks?.database === false);
    const up = ready.firstAfter(f.end, (r) => r.checks?.database === true);
    log(
      `  readiness: database=false ${down === undefined ? 'never seen' : `${fmt((down - f.start) / 1000, 1)} s after the fault began`}; ` +
        `database=true ${up === undefined ? 'never seen' : `${fmt((up - f.end) / 1000, 1)} s after it ended`}`,
    );
    if (down !== undefined)
      report.target(`${f.name}: readiness shows database=false within 5 s`, down - f.start <= 5000, `${fmt((down - f.start) / 1000, 1)} s`);
    report.target(
      `${f.name}: readiness shows database=true within 5 s of recovery`,
      up !== undefined && up - f.end <= 5000,
      up === undefined ? 'never' : `${fmt((up - f.end) / 1000, 1)} s`,
    );

    // Recovery: the first send time after the fault from which every batch was acknowledged.
    let recoveredAt: number | undefined;
    for (let k = after.length - 1; k >= 0 && ok(after[k]); k--) recoveredAt = after[k].sentAt;
    const rec = recoveredAt === undefined ? undefined : recoveredAt - f.end;
    log(`  recovery: every batch acknowledged from ${rec === undefined ? 'never' : `${fmt(rec / 1000, 1)} s after the fault ended`}`);
    let back: number | undefined;
    for (let t = f.end; t + 1000 <= nextStart; t += 500) {
      if (storedPerSecond(t, t + 1000) >= 0.9 * baseRate) {
        back = t + 1000 - f.end;
        break;
      }
    }
    report.target(
      `${f.name}: throughput back to >= 90% of before within 10 s`,
      back !== undefined && back <= 10_000,
      back === undefined ? 'not in this phase' : `${fmt(back / 1000, 1)} s`,
    );
  }

  log('\nreadiness transitions (status, checks):');
  for (const c of ready.changes) log(`  ${rel(c.at).padStart(7)}  ${describeReadiness(c)}`);

  // ------------------------------------------------------------------------------------------
  // Correctness.
  const hung = sent.filter((s) => s.answer!.status === 0 && s.answer!.error === 'timeout');
  report.check(`no request hangs (all answered within the ${CUTOFF_MS / 1000} s cut-off)`, hung.length === 0, `${hung.length} cut off`);
  const fivehundreds = sent.filter((s) => s.answer!.status === 500);
  report.check('no 500 answers', fivehundreds.length === 0, `${fivehundreds.length}`);
  const failures = sent.filter((s) => !ok(s));
  const notSpec = failures.filter((s) => !(s.answer!.status === 503 && detailOf(s.answer!) === 'writer_error'));
  report.check(
    "every failed batch answered the spec's 503 writer_error",
    notSpec.length === 0,
    `${failures.length} failed, other answers: ${showTally(tally(notSpec, outcome))}`,
  );
  report.check(
    'readiness never reported degraded for a false database (cache and bus up)',
    !ready.changes.some((c) => c.status === 503),
    showTally(tally(ready.changes, (c) => String(c.status))),
  );
  report.check('the service never exited by itself', !unexpectedExit);

  await svc.stop();
  const c = new pg.Client({ connectionString: server.url('fault') });
  await c.connect();
  const rows = (await c.query<{ rid: string; n: number }>(`select raw->>'rid' as rid, count(*)::int as n from telemetry where org_id = $1 group by 1`, [ORG]))
    .rows;
  await c.end();
  const copies = new Map(rows.map((r) => [r.rid, r.n]));
  let lost = 0;
  let half = 0;
  let storedAfter503 = 0;
  let storedAfterNoAnswer = 0;
  let acked = 0;
  for (const s of sent) {
    const counts = Array.from({ length: SIZE }, (_, i) => copies.get(`${s.b}:${i}`) ?? 0);
    if (counts.some((x) => x !== counts[0])) half++;
    if (ok(s)) {
      acked++;
      lost += counts.filter((x) => x === 0).length;
    } else if (counts[0] > 0) {
      if (s.answer!.status === 0) storedAfterNoAnswer++;
      else storedAfter503++;
    }
  }
  log(
    `\nrecords: ${fmt(sent.length)} batches sent = ${fmt(sent.length * SIZE)} records; acknowledged ${fmt(acked * SIZE)}; ` +
      `stored ${fmt(copies.size)}; lost ${lost}; half-written batches ${half}; batches stored although answered 503: ${storedAfter503}` +
      ` (a commit whose answer was lost between PostgreSQL and the service: the spec's "retry it" then makes a duplicate);` +
      ` stored with no answer: ${storedAfterNoAnswer}`,
  );
  report.check('no 200/207 without a commit: lost acknowledged records = 0', lost === 0, `${lost} lost of ${fmt(acked * SIZE)}`);
  report.check('no half-written batch', half === 0, `${half}`);
  log(`\nmachine after: ${await machine()}`);
  log(
    'RESULT ' +
      JSON.stringify({
        run: 'T-6',
        rate: RATE,
        batchSize: SIZE,
        sent: sent.length,
        acked,
        lost,
        storedAfter503,
        outcomes: tally(sent, outcome),
        readiness: ready.changes.map((c) => ({ t: Math.round(c.at - t0), status: c.status, checks: c.checks })),
      }),
  );
  log(report.failures ? `\n${report.failures} correctness check(s) FAILED` : '\nall correctness checks passed');
  return report.failures ? 1 : 0;
});
