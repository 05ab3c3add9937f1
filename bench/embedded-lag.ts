// Probes while a large batch is written to the embedded store (outside review, issue 12 finding 7;
// not a test). Starts the service on PGlite in a child process, sends one ingestion batch of about
// 4 MB at a time, and while it is in flight asks /api/telemetry/healthz every 50 ms (open loop:
// latency from the scheduled send) and /api/telemetry/readyz every 250 ms. Prints, per batch: its
// size and latency, the probes' latencies, readiness answers (status and `checks.database`), and
// the service's own event-loop delay over the batch (monitorEventLoopDelay in the child).
//
//   npm run bench:embedded-lag                       # file-backed data directory, worker as configured
//   options: --mb=4 --batches=3 --memory (DATA_DIR=:memory:) --pin (service on core 0 with taskset)
//            --worker=true|false (PGLITE_WORKER for the service)
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { makeRecord } from './lib/records.ts';
import { fmt, machine, summary } from './lib/stats.ts';
import { startChild } from './lib/child.ts';

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'];
  }),
);
const MB = Number(args.mb ?? 4);
const BATCHES = Number(args.batches ?? 3);
const MEMORY = args.memory === 'true';
const PIN = args.pin === 'true';
const ORG = 'bench';
const JWT_SECRET = randomBytes(32).toString('hex');
const log = (...a: unknown[]) => console.log(...a);

interface Answer {
  status: number;
  ms: number;
  body: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function request(url: URL, opts: { method?: string; token?: string; body?: string } = {}): Promise<Answer> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {};
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.body) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(opts.body) });
    const req = http.request(url, { method: opts.method ?? 'GET', agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A JSON array of records of about `mb` megabytes, records numbered from `offset`. */
function bigBody(mb: number, offset: number, t0: number): { body: string; records: number } {
  const parts: string[] = [];
  let size = 2;
  let k = 0;
  while (size < mb * 1024 * 1024) {
    const s = JSON.stringify(makeRecord(offset + k, t0));
    parts.push(s);
    size += s.length + 1;
    k++;
  }
  return { body: `[${parts.join(',')}]`, records: k };
}

async function main() {
  log(`# embedded store: probes during a ${MB} MB batch, ${new Date().toISOString()}`);
  log(`machine: ${await machine()}`);
  const dataDir = MEMORY ? ':memory:' : mkdtempSync(join(tmpdir(), 'bench-lag-'));
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    HUB_OCPP_PUBLIC_URL: 'wss://hub.bench.invalid',
    JWT_SECRET,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_USER_PER_MIN: '10000000',
    PORT: '0',
    BENCH_ORG: ORG,
    DATA_DIR: dataDir,
  };
  if (args.worker) env.PGLITE_WORKER = args.worker;
  log(`store: embedded PGlite (${MEMORY ? 'in memory' : `file-backed, ${dataDir}`}), PGLITE_WORKER=${env.PGLITE_WORKER ?? '(default)'}`);
  const child = await startChild(env, log, { pin: PIN });
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ tenant_id: ORG, org_id: ORG, roles: ['OPERATOR'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('bench-user')
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(new TextEncoder().encode(JWT_SECRET));
  const ingest = new URL('/api/telemetry/ingest', child.address);
  const healthz = new URL('/api/telemetry/healthz', child.address);
  const readyz = new URL('/api/telemetry/readyz', child.address);
  const t0 = Date.now() - 3 * 3600_000;

  // Warm-up: a small batch and a few probes.
  const warm = bigBody(0.1, 90_000_000, t0);
  await request(ingest, { method: 'POST', token, body: warm.body });
  for (let i = 0; i < 5; i++) await request(healthz);

  for (let b = 0; b < BATCHES; b++) {
    const { body, records } = bigBody(MB, b * 1_000_000, t0);
    await child.request({ type: 'reset-loop-delay' }, 'reset-loop-delay');
    const probes: Promise<Answer>[] = [];
    const ready: Promise<Answer>[] = [];
    const start = performance.now();
    const batch = request(ingest, { method: 'POST', token, body });
    let done = false;
    void batch.finally(() => (done = true));
    // Open loop: each probe's latency counts from its scheduled time, so a blocked service shows up
    // as long answers, not as fewer probes.
    let tick = 0;
    while (!done) {
      const scheduled = start + tick * 50;
      const wait = scheduled - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (done) break;
      const late = performance.now() - scheduled;
      probes.push(request(healthz).then((a) => ({ ...a, ms: a.ms + late })));
      if (tick % 5 === 0) ready.push(request(readyz));
      tick++;
    }
    const answer = await batch;
    const batchMs = performance.now() - start;
    const stats = await child.request<{ loopDelayMs: { p50: number; p99: number; max: number } }>({ type: 'stats' }, 'stats');
    const p = await Promise.all(probes);
    const r = await Promise.all(ready);
    const s = summary(p.map((x) => x.ms));
    const readyStates = r.map((x) => {
      const j = JSON.parse(x.body);
      return `${x.status}/${j.status}/db=${j.checks?.database}`;
    });
    const tally = Object.entries(readyStates.reduce<Record<string, number>>((m, k) => ((m[k] = (m[k] ?? 0) + 1), m), {}))
      .map(([k, n]) => `${n} x ${k}`)
      .join(', ');
    log(
      `batch ${b + 1}: ${fmt(Buffer.byteLength(body) / 1024 / 1024, 1)} MB, ${fmt(records)} records, ${answer.status} in ${fmt(batchMs)} ms` +
        ` (stored ${JSON.parse(answer.body).stored})`,
    );
    log(
      `  healthz (every 50 ms, ${s.n} probes): p50 ${fmt(s.p50)} ms, p95 ${fmt(s.p95)} ms, max ${fmt(s.max)} ms;` +
        ` answered within 250 ms: ${p.filter((x) => x.ms <= 250).length} of ${p.length}`,
    );
    log(`  readyz (every 250 ms, ${r.length}): ${tally}; slowest ${fmt(Math.max(0, ...r.map((x) => x.ms)))} ms`);
    log(
      `  service event-loop delay over the batch: p50 ${fmt(stats.loopDelayMs.p50, 1)} ms, p99 ${fmt(stats.loopDelayMs.p99, 1)} ms, max ${fmt(stats.loopDelayMs.max, 1)} ms`,
    );
  }
  agent.destroy();
  await child.stop();
  if (!MEMORY) rmSync(dataDir, { recursive: true, force: true });
}

await main();
