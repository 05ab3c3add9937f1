// T-9 NATS stop and restart (reliability plan; a run that prints figures, not a test).
// The service (src/main.ts, core 0) publishes its live stream to a PRIVATE NATS JetStream server
// (port 4223 by default, file store in a temp dir; started, stopped and removed by this run) and
// stores in a fresh database on the shared PostgreSQL. This process (core 1) sends ingestion
// batches at a fixed rate (each once, every record with a unique `rid`), reads
// GET /api/telemetry/live/events every 500 ms, listens to the live stream on the bus itself (a
// NATS subscriber that reconnects), and polls readiness every 250 ms. NATS is stopped for 30 s
// (FAULT_NATS_DOWN_S) and started again; the service is never restarted.
// Printed: readiness truth (bus false within 5 s of the stop, true within 5 s of the start),
// ingestion answers per phase (stored and acknowledged, or the spec's 503; never 500, never a
// hang), every acknowledged record in PostgreSQL, the stream resuming, and whether `streamed`
// told the truth.
//
//   npm run bench:faults -- nats-faults         (or: node bench/faults/nats-faults.ts)
//   FAULT_NATS_PORT=4223  FAULT_NATS_DOWN_S=30  FAULT_NATS_RATE=10 (batches/s)  FAULT_BATCH_SIZE=100
//   FAULT_PHASE_S=15  FAULT_ADMIN_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import http from 'node:http';
import pg from 'pg';
import { connect, JSONCodec, type NatsConnection } from 'nats';
import { makeRecord } from '../lib/records.ts';
import { fmt, machine, pinSelf, summary } from '../lib/stats.ts';
import { createDatabase, freePort, runMain, sleep, startNats, tempDir, onCleanup } from './lib/servers.ts';
import { baseEnv, describeReadiness, serviceProcess, watchReadiness } from './lib/service.ts';
import { accessToken, cli, createReport, detailOf, envInt, json, newSecret, request, showTally, tally, type Answer } from './lib/client.ts';

const NATS_PORT = envInt('FAULT_NATS_PORT', 4223);
const DOWN_MS = envInt('FAULT_NATS_DOWN_S', 30) * 1000;
const RATE = envInt('FAULT_NATS_RATE', 10);
const SIZE = envInt('FAULT_BATCH_SIZE', 100);
const PHASE_MS = envInt('FAULT_PHASE_S', 15) * 1000;
const ADMIN_URL = process.env.FAULT_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CUTOFF_MS = 30_000;
const ORG = 'natsfault';
const log = (s = '') => console.log(s);

interface Sent {
  b: number;
  sentAt: number;
  doneAt?: number;
  a?: Answer;
}

runMain(async () => {
  const pinned = await pinSelf(1);
  const report = createReport(log);
  log(`# T-9 NATS stop and restart, ${new Date().toISOString()}`);
  log(`machine: ${await machine()}`);
  const dir = tempDir('fault-nats-run-');
  const nats = await startNats(NATS_PORT);
  const dbUrl = await createDatabase(ADMIN_URL, `fault_nats_${randomBytes(4).toString('hex')}`);
  const secret = newSecret();
  const namespace = `nf${randomBytes(3).toString('hex')}`;
  const env = {
    ...baseEnv(secret, namespace),
    DATABASE_URL: dbUrl,
    NATS_URL: `nats://127.0.0.1:${NATS_PORT}`,
    RATE_LIMIT_USER_PER_MIN: '10000000',
  };
  await cli(['org', 'create', '--id', ORG, '--name', 'NATS faults'], env);
  const svc = serviceProcess({ name: 'service', port: await freePort(), env, logFile: join(dir, 'service.log') });
  let unexpected = false;
  svc.onUnexpectedExit = (code, signal) => {
    unexpected = true;
    log(`!! service exited by itself (${code ?? signal}):\n${svc.logTail(20)}`);
  };
  await svc.start();
  const servicePid = svc.pid();
  log(
    `service: pid ${servicePid}${pinned ? ' (core 0)' : ''} on :${svc.port}; NATS JetStream: private nats-server on :${NATS_PORT} (pid ${nats.pid()}, store ${nats.dir}); ` +
      `PostgreSQL: fresh database on the shared server; embedded cache (readiness here is about the bus and the database)`,
  );
  log(`load: ${RATE} batches/s of ${SIZE} records, each sent once; live/events read every 500 ms; a NATS subscriber on the live stream`);

  // The live stream, heard on the bus by a subscriber of our own (reconnects by itself).
  const codec = JSONCodec<{ stored: boolean; records: { raw: { rid?: string } }[] }>();
  const heard: { at: number; batch: number; stored: boolean }[] = [];
  const sub = await connect({ servers: `127.0.0.1:${NATS_PORT}`, reconnect: true, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  onCleanup('nats subscriber', () => sub.close());
  void (async (nc: NatsConnection) => {
    for await (const m of nc.subscribe(`${namespace}.telemetry.${ORG}`)) {
      const msg = codec.decode(m.data);
      const batches = new Set(msg.records.map((r) => Number(String(r.raw.rid).split(':')[0])));
      for (const b of batches) heard.push({ at: performance.now(), batch: b, stored: msg.stored });
    }
  })(sub);

  const writer = await accessToken(secret, ORG, ['OPERATOR']);
  const viewer = await accessToken(secret, ORG, ['VIEWER'], 'bench-viewer');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const ready = watchReadiness(svc.url, 250);
  const T0 = Date.now() - 3600_000;
  const t0 = performance.now();
  const sent: Sent[] = [];
  const inflight = new Set<Promise<void>>();
  let on = true;
  const load = (async () => {
    for (let b = 0; on; b++) {
      const wait = t0 + (b / RATE) * 1000 - performance.now();
      if (wait > 0) await sleep(wait);
      const body = JSON.stringify(Array.from({ length: SIZE }, (_, i) => ({ ...makeRecord(b * SIZE + i, T0, 'gateways', SIZE), rid: `${b}:${i}` })));
      const s: Sent = { b, sentAt: performance.now() };
      sent.push(s);
      const p = request(`${svc.url}/api/telemetry/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${writer}` },
        body,
        agent,
        timeoutMs: CUTOFF_MS,
      }).then((a) => {
        s.a = a;
        s.doneAt = performance.now();
      });
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    }
  })();
  const liveReads: { at: number; a: Answer; newest?: string }[] = [];
  const reader = (async () => {
    while (on) {
      const at = performance.now();
      const a = await request(`${svc.url}/api/telemetry/live/events?limit=5`, { headers: { authorization: `Bearer ${viewer}` }, agent, timeoutMs: 10_000 });
      liveReads.push({ at, a, newest: json<{ events: { raw: { rid?: string } }[] }>(a)?.events?.[0]?.raw?.rid });
      await sleep(Math.max(0, 500 - (performance.now() - at)));
    }
  })();

  await sleep(PHASE_MS);
  const stopAt = performance.now();
  await nats.stop();
  log(`\nNATS stopped at ${fmt((stopAt - t0) / 1000, 1)} s for ${DOWN_MS / 1000} s`);
  await sleep(DOWN_MS - (performance.now() - stopAt));
  await nats.start();
  const startAt = performance.now();
  log(`NATS started at ${fmt((startAt - t0) / 1000, 1)} s`);
  await sleep(PHASE_MS + 5000);
  on = false;
  await Promise.all([load, reader]);
  await Promise.all([...inflight]);
  await ready.stop();
  await sleep(1000); // late stream messages
  agent.destroy();

  // ------------------------------------------------------------------------------------------
  const ok = (s: Sent) => s.a!.status === 200 || s.a!.status === 207;
  const outcome = (s: Sent) => {
    if (s.a!.status === 0) return `no answer (${s.a!.error})`;
    const body = json<{ streamed?: number; count?: number }>(s.a!);
    const streamed =
      body?.streamed === undefined ? '' : body.streamed === body.count ? ' streamed all' : body.streamed === 0 ? ' streamed 0' : ' streamed some';
    return `${s.a!.status} ${detailOf(s.a!)}${streamed}`.replace(/\s+/g, ' ').trim();
  };
  const phases: [string, number, number][] = [
    ['before the stop', 0, stopAt],
    [`NATS down (${DOWN_MS / 1000} s)`, stopAt, startAt],
    ['after the start', startAt, Infinity],
  ];
  for (const [name, from, to] of phases) {
    const list = sent.filter((s) => s.sentAt >= from && s.sentAt < to);
    const l = summary(list.map((s) => s.a!.ms));
    log(
      `  ingestion sent ${name}: ${list.length}: ${showTally(tally(list, outcome))}; latency p50 ${fmt(l.p50)} ms, p99 ${fmt(l.p99)} ms, max ${fmt(l.max)} ms`,
    );
    const reads = liveReads.filter((r) => r.at >= from && r.at < to);
    log(`  live/events reads ${name}: ${reads.length}: ${showTally(tally(reads, (r) => String(r.a.status)))}`);
    const h = heard.filter((x) => x.at >= from && x.at < to);
    log(`  live stream heard on the bus ${name}: ${h.length} batch messages`);
  }

  const down = ready.firstAfter(stopAt, (r) => r.checks?.bus === false);
  const up = ready.firstAfter(startAt, (r) => r.checks?.bus === true);
  log(
    `\nreadiness: bus=false ${down === undefined ? 'never' : `${fmt((down - stopAt) / 1000, 1)} s after the stop`}; bus=true ` +
      `${up === undefined ? 'never' : `${fmt((up - startAt) / 1000, 1)} s after the start`}`,
  );
  for (const c of ready.changes) log(`  ${fmt((c.at - t0) / 1000, 1).padStart(6)} s  ${describeReadiness(c)}`);
  report.target(
    'readiness shows bus=false within 5 s of the stop',
    down !== undefined && down - stopAt <= 5000,
    down === undefined ? 'never' : `${fmt(down - stopAt)} ms`,
  );
  report.target(
    'readiness shows bus=true within 5 s of the start',
    up !== undefined && up - startAt <= 5000,
    up === undefined ? 'never' : `${fmt(up - startAt)} ms`,
  );
  // The state in force at the stop counts: a poll sent just before the stop may carry its answer.
  const degradedAt = ready.firstAfter(stopAt, (c) => c.status === 503 && c.checks?.bus === false);
  const degradedWhileDown = degradedAt !== undefined && degradedAt < startAt + 5000;
  report.check('readiness answers 503 degraded while the bus is down (spec: a false bus gives 503)', degradedWhileDown);
  const lastReady = ready.changes.at(-1);
  report.check(
    'readiness is ready again at the end, without a service restart',
    lastReady?.status === 200 && lastReady.checks?.bus === true && svc.pid() === servicePid,
  );

  const firstHeard = heard.find((x) => x.at > startAt && x.stored);
  log(
    `live stream: first stored batch heard on the bus ${firstHeard ? `${fmt((firstHeard.at - startAt) / 1000, 1)} s after NATS started` : 'never after the start'}`,
  );
  report.check('the live stream resumes after NATS returns, without a service restart', !!firstHeard && svc.pid() === servicePid);
  const liveOk = liveReads.filter((r) => r.a.status === 200).length;
  report.check('live/events reads answered 200 throughout (they read the store, not the bus)', liveOk === liveReads.length, `${liveOk} of ${liveReads.length}`);

  const hung = sent.filter((s) => s.a!.status === 0);
  report.check('no ingestion request hangs or goes unanswered', hung.length === 0, `${hung.length}`);
  const notSpec = sent.filter((s) => !ok(s) && !(s.a!.status === 503));
  report.check("ingestion answers are 200/207 (stored) or the spec's 503, never 500", notSpec.length === 0, showTally(tally(notSpec, outcome)));
  const slowest = Math.max(...sent.map((s) => s.a!.ms));
  report.target('no ingestion answer slower than 5 s', slowest <= 5000, `slowest ${fmt(slowest)} ms`);

  // `streamed` tells the truth: a batch answered `streamed: 0` should not be heard on the bus.
  const heardBatches = new Set(heard.map((x) => x.batch));
  const said0 = sent.filter((s) => ok(s) && json<{ streamed: number }>(s.a!)?.streamed === 0);
  const said0ButHeard = said0.filter((s) => heardBatches.has(s.b)).length;
  const saidAll = sent.filter((s) => ok(s) && json<{ streamed: number }>(s.a!)?.streamed === SIZE);
  const saidAllNotHeard = saidAll.filter((s) => !heardBatches.has(s.b)).length;
  log(
    `streamed: ${said0.length} acknowledged batches answered streamed 0, of which ${said0ButHeard} reached the stream later anyway ` +
      `(the NATS client buffers publishes while it reconnects); ${saidAll.length} answered streamed = count, of which ${saidAllNotHeard} were not heard`,
  );
  report.check('every batch answered streamed = count was heard on the live stream', saidAllNotHeard === 0, `${saidAllNotHeard} not heard`);

  await svc.stop();
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  const rows = (await c.query<{ rid: string; n: number }>(`select raw->>'rid' as rid, count(*)::int as n from telemetry where org_id = $1 group by 1`, [ORG]))
    .rows;
  await c.end();
  const copies = new Map(rows.map((r) => [r.rid, r.n]));
  let lost = 0;
  let acked = 0;
  for (const s of sent.filter(ok)) {
    acked += SIZE;
    for (let i = 0; i < SIZE; i++) if (!copies.has(`${s.b}:${i}`)) lost++;
  }
  log(`records: ${fmt(sent.length * SIZE)} sent, ${fmt(acked)} acknowledged, ${fmt(copies.size)} stored, lost ${lost}`);
  report.check('every acknowledged record is in PostgreSQL (lost = 0)', lost === 0, `${lost} of ${fmt(acked)}`);
  report.check('the service never exited by itself', !unexpected);
  log(`\nmachine after: ${await machine()}`);
  log(
    'RESULT ' +
      JSON.stringify({
        run: 'T-9',
        downMs: DOWN_MS,
        busFalseAfterMs: down === undefined ? null : Math.round(down - stopAt),
        busTrueAfterMs: up === undefined ? null : Math.round(up - startAt),
        outcomes: tally(sent, outcome),
        acked,
        lost,
        said0ButHeard,
      }),
  );
  log(report.failures ? `\n${report.failures} correctness check(s) FAILED` : '\nall correctness checks passed');
  return report.failures ? 1 : 0;
});
