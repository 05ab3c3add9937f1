// T-4 slow and hostile clients (reliability plan; a run that prints figures, not a test).
// The service (src/main.ts, core 0) on a fresh database on the shared PostgreSQL, embedded cache
// and bus. This process (core 1) sends ingestion batches of 500 records at half the T-1 target
// (FAULT_SLOW_RATE records/s, default 20,000) for a baseline phase, then keeps that load while
// 200 sockets send request headers at 1 byte/s and 50 sockets send a 5 MB ingestion body at
// 10 KB/s, then a recovery phase. Also: a body above the ingestion cap, announced by
// Content-Length and sent chunked without one, each sent slowly, to see when the 413 comes and how
// much was sent by then.
// Printed: when the server closed each slow socket (bounds: headers 10 s, whole request 60 s,
// checked every second), what it answered, ingestion p50/p99 per phase (target: p99 under attack
// <= 2x baseline), service RSS, and PASS/FAIL lines.
//
//   npm run bench:faults -- slow-clients        (or: node bench/faults/slow-clients.ts)
//   FAULT_SLOW_RATE=20000 (records/s)  FAULT_SLOW_HEADERS=200  FAULT_SLOW_BODIES=50
//   FAULT_SLOW_PHASE_S=20 (baseline and recovery)  FAULT_SLOW_ATTACK_S=75
//   FAULT_ADMIN_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import http from 'node:http';
import { batchBody } from '../lib/records.ts';
import { fmt, machine, mib, pinSelf, summary } from '../lib/stats.ts';
import { createDatabase, freePort, runMain, sleep, tempDir } from './lib/servers.ts';
import { baseEnv, serviceProcess } from './lib/service.ts';
import { accessToken, cli, createReport, envInt, ms, newSecret, request, secs, showTally, tally, type Answer } from './lib/client.ts';

const RATE = envInt('FAULT_SLOW_RATE', 20_000);
const BATCH = 500;
const HEADERS = envInt('FAULT_SLOW_HEADERS', 200);
const BODIES = envInt('FAULT_SLOW_BODIES', 50);
const PHASE_MS = envInt('FAULT_SLOW_PHASE_S', 20) * 1000;
const ATTACK_MS = envInt('FAULT_SLOW_ATTACK_S', 75) * 1000;
const ADMIN_URL = process.env.FAULT_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 60_000;
const CHECK_INTERVAL_MS = 1_000;
const CAP = 6 * 1024 * 1024; // INGEST_BODY_LIMIT_BYTES default
const ORG = 'slowclients';
const log = (s = '') => console.log(s);

const FILLER = Buffer.alloc(64 * 1024, 0x20);

interface SlowSocket {
  kind: 'headers' | 'body';
  openedAt: number;
  closedAt?: number;
  bytesSent: number;
  answer: string; // first line the server sent, or '' if it only closed
}

/** A socket that trickles `bytes` at `bytesPerSecond`, recording when the server gives up on it. */
function trickle(port: number, kind: SlowSocket['kind'], head: string, bodyBytes: number, bytesPerSecond: number, chunk: number): SlowSocket {
  const s: SlowSocket = { kind, openedAt: performance.now(), bytesSent: 0, answer: '' };
  const sock = net.connect(port, '127.0.0.1');
  // The body is cut from one shared filler buffer: allocating 50 x 5 MB here would stall this
  // process (and so the load it drives) when the attack starts.
  const headBytes = Buffer.from(head);
  const length = headBytes.length + bodyBytes;
  let timer: NodeJS.Timeout | undefined;
  sock.on('connect', () => {
    timer = setInterval(
      () => {
        if (s.bytesSent >= length || sock.destroyed) return clearInterval(timer);
        const next =
          s.bytesSent < headBytes.length ? headBytes.subarray(s.bytesSent, s.bytesSent + chunk) : FILLER.subarray(0, Math.min(chunk, length - s.bytesSent));
        s.bytesSent += next.length;
        sock.write(next);
      },
      (chunk / bytesPerSecond) * 1000,
    );
  });
  sock.on('data', (d) => {
    if (!s.answer) s.answer = d.toString('latin1').split('\r\n')[0];
  });
  const closed = () => {
    clearInterval(timer);
    s.closedAt ??= performance.now();
  };
  sock.on('close', closed);
  sock.on('error', closed);
  return s;
}

/** Sends an over-cap ingestion body slowly (64 KB every 20 ms); stops at the first answer. */
function overCap(port: number, token: string, announced: boolean): Promise<{ status: string; sentBytes: number; ms: number; body: string }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    let sent = 0;
    const total = CAP + 1024 * 1024;
    const headers: Record<string, string | number> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    if (announced) headers['content-length'] = total;
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/telemetry/ingest', headers }, (res) => {
      clearInterval(timer);
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: String(res.statusCode), sentBytes: sent, ms: performance.now() - t0, body: Buffer.concat(chunks).toString() });
        req.destroy();
      });
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      clearInterval(timer);
      resolve({ status: e.code ?? 'error', sentBytes: sent, ms: performance.now() - t0, body: '' });
    });
    const timer = setInterval(() => {
      if (sent >= total) {
        clearInterval(timer);
        req.end();
        return;
      }
      const n = Math.min(64 * 1024, total - sent);
      sent += n;
      req.write(FILLER.subarray(0, n));
    }, 20);
  });
}

function rssOf(pid: number | undefined): number {
  if (!pid) return NaN;
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

runMain(async () => {
  const pinned = await pinSelf(1);
  const report = createReport(log);
  log(`# T-4 slow and hostile clients, ${new Date().toISOString()}`);
  log(`machine: ${await machine()}`);
  const dir = tempDir('fault-slow-run-');
  const dbUrl = await createDatabase(ADMIN_URL, `fault_slow_${randomBytes(4).toString('hex')}`);
  const secret = newSecret();
  const env = { ...baseEnv(secret, `sc${randomBytes(3).toString('hex')}`), DATABASE_URL: dbUrl, RATE_LIMIT_USER_PER_MIN: '10000000' };
  await cli(['org', 'create', '--id', ORG, '--name', 'Slow clients'], env);
  const svc = serviceProcess({ name: 'service', port: await freePort(), env, logFile: join(dir, 'service.log') });
  svc.onUnexpectedExit = (code, signal) => log(`!! service exited by itself (${code ?? signal}):\n${svc.logTail(20)}`);
  await svc.start();
  log(`service: pid ${svc.pid()}${pinned ? ' (core 0)' : ''} on :${svc.port}; fresh database on the shared PostgreSQL; embedded cache and bus`);
  const token = await accessToken(secret, ORG, ['OPERATOR']);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const batchesPerSecond = RATE / BATCH;
  log(
    `load: ${fmt(RATE)} records/s = ${fmt(batchesPerSecond, 1)} batches/s of ${BATCH} (half the T-1 target); phases: baseline ${secs(PHASE_MS)}, attack ${secs(ATTACK_MS)}, recovery ${secs(PHASE_MS)}`,
  );

  // Open-loop ingestion: latency counted from each batch's scheduled time.
  const T0 = Date.now() - 3600_000;
  const t0 = performance.now();
  const total = (2 * PHASE_MS + ATTACK_MS) / 1000;
  const results: { at: number; a: Answer; lateMs: number }[] = [];
  const pending: Promise<void>[] = [];
  let peakRss = 0;
  const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, rssOf(svc.pid()))), 500);
  const load = (async () => {
    for (let b = 0; b < total * batchesPerSecond; b++) {
      const due = t0 + (b / batchesPerSecond) * 1000;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const body = batchBody(b, BATCH, T0);
      pending.push(
        request(`${svc.url}/api/telemetry/ingest`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body, agent, timeoutMs: 30_000 }).then(
          (a) => {
            results.push({ at: due - t0, a, lateMs: performance.now() - due });
          },
        ),
      );
    }
  })();

  await sleep(PHASE_MS);
  const rssBefore = rssOf(svc.pid());
  log(
    `attack begins at ${secs(performance.now() - t0)}: ${HEADERS} slow-header sockets (1 byte/s), ${BODIES} slow 5 MB bodies (10 KB/s); service RSS ${mib(rssBefore)}`,
  );
  const head = (len: number) =>
    `POST /api/telemetry/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${len}\r\n\r\n`;
  const slow: SlowSocket[] = [];
  for (let i = 0; i < HEADERS; i++) slow.push(trickle(svc.port, 'headers', head(2), 0, 1, 1));
  for (let i = 0; i < BODIES; i++) slow.push(trickle(svc.port, 'body', head(5 * 1024 * 1024), 5 * 1024 * 1024, 10 * 1024, 1024));
  const caps = await Promise.all([overCap(svc.port, token, true), overCap(svc.port, token, false)]);
  await sleep(Math.max(0, ATTACK_MS - (performance.now() - t0 - PHASE_MS)));
  log(`attack ends at ${secs(performance.now() - t0)}`);
  await load;
  await Promise.all(pending);
  clearInterval(rssTimer);

  // Slow sockets.
  for (const kind of ['headers', 'body'] as const) {
    const set = slow.filter((s) => s.kind === kind);
    const lived = set.filter((s) => s.closedAt !== undefined).map((s) => s.closedAt! - s.openedAt);
    const open = set.length - lived.length;
    // The timeout, plus up to one checking interval, the second before a trickling socket's first
    // byte, and a second of scheduling slack on a shared box.
    const bound = (kind === 'headers' ? HEADERS_TIMEOUT_MS : REQUEST_TIMEOUT_MS) + 3 * CHECK_INTERVAL_MS;
    const st = summary(lived);
    log(
      `${kind === 'headers' ? 'slow headers' : 'slow bodies '}: ${set.length} sockets; closed by the server after p50 ${secs(st.p50)}, max ${secs(st.max)}; still open ${open}; ` +
        `answers: ${showTally(tally(set, (s) => s.answer || 'closed without an answer'))}; bytes sent per socket p50 ${fmt(summary(set.map((s) => s.bytesSent)).p50)}`,
    );
    report.check(`every slow-${kind} socket closed within ${secs(bound)} of opening`, open === 0 && st.max <= bound, `max ${secs(st.max)}`);
  }
  // Over-cap bodies.
  for (const [i, c] of caps.entries()) {
    const what = i === 0 ? 'over-cap body with Content-Length' : 'over-cap body, chunked';
    log(`${what}: answered ${c.status} after ${ms(c.ms)}, ${fmt(c.sentBytes / 1024)} KiB sent by then; body ${c.body.slice(0, 120)}`);
    report.check(`${what} refused with 413 in the spec's shape`, c.status === '413' && /"detail"/.test(c.body));
    report.check(
      `${what}: no more than the cap buffered`,
      c.sentBytes <= CAP + 512 * 1024,
      `${fmt(c.sentBytes / 1024 / 1024, 1)} MiB sent, cap ${fmt(CAP / 1024 / 1024, 1)} MiB`,
    );
  }

  // Ingestion per phase.
  const phases = [
    ['baseline', 0, PHASE_MS],
    ['attack', PHASE_MS, PHASE_MS + ATTACK_MS],
    ['recovery', PHASE_MS + ATTACK_MS, 2 * PHASE_MS + ATTACK_MS],
  ] as const;
  const p99: Record<string, number> = {};
  log('| phase | batches | p50 | p95 | p99 | max | answers |');
  log('|---|---|---|---|---|---|---|');
  for (const [name, from, to] of phases) {
    const inPhase = results.filter((r) => r.at >= from && r.at < to);
    const st = summary(inPhase.map((r) => r.lateMs));
    p99[name] = st.p99;
    log(
      `| ${name} | ${inPhase.length} | ${ms(st.p50)} | ${ms(st.p95)} | ${ms(st.p99)} | ${ms(st.max)} | ${showTally(tally(inPhase, (r) => String(r.a.status || r.a.error)))} |`,
    );
  }
  // Where in time the slow answers fell (p99 per 10 s of scheduled time).
  const buckets = new Map<number, number[]>();
  for (const r of results) {
    const k = Math.floor(r.at / 10_000);
    if (!buckets.has(k)) buckets.set(k, []);
    buckets.get(k)!.push(r.lateMs);
  }
  log(
    `p99 per 10 s: ${[...buckets.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([k, v]) => `${k * 10}s ${ms(summary(v).p99)}`)
      .join(', ')}`,
  );
  log(`service RSS: before the attack ${mib(rssBefore)}, peak ${mib(peakRss)}, after ${mib(rssOf(svc.pid()))}`);
  report.check(
    'every ingestion batch answered, no 5xx',
    results.every((r) => r.a.status > 0 && r.a.status < 500),
    showTally(tally(results, (r) => String(r.a.status || r.a.error))),
  );
  report.target('ingestion p99 under attack <= 2x baseline', p99.attack <= 2 * p99.baseline, `${ms(p99.attack)} vs ${ms(p99.baseline)}`);
  log(`machine after: ${await machine()}`);
  await svc.stop();
  return report.failures ? 1 : 0;
});
