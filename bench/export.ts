// Data export benchmark (issue 21; not a test). Loads telemetry rows of one organisation into a
// fresh PostgreSQL schema with COPY, starts the service in a child process (pinned to core 0 when
// taskset exists), then through HTTP: runs an export job of telemetry.readings (the queue writes it
// in chunks), downloads the whole export as JSON Lines and the collection as CSV, streaming and
// counting the bytes in this process. Prints rows per second of each phase and the service's peak
// RSS growth over its RSS at ready (target: >= 100,000 rows/s, growth < 100 MiB).
//
//   npm run bench:export                            # 200,000 rows
//   EXPORT_BENCH_ROWS=10000000 npm run bench:export  # 10 million rows (the figure)
//   options: DATABASE_URL=..., --keep (leave the schema), --schema=<a kept schema> (reuse its rows)
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { SignJWT } from 'jose';
import { openPostgres } from '../src/infra/db/postgres.ts';
import { migrate } from '../src/infra/db/migrate.ts';
import { moduleMigrations } from '../src/modules/index.ts';
import { copyFrom, copyText } from './lib/copy-in.ts';
import { fmt, machine, mib, pinSelf } from './lib/stats.ts';
import { startChild } from './lib/child.ts';

const ROWS = Number(process.env.EXPORT_BENCH_ROWS ?? 200_000);
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ORG = 'bench';
const ASSETS = 100;
const JWT_SECRET = randomBytes(32).toString('hex');
const log = (...a: unknown[]) => console.log(...a);

async function load(admin: pg.Client, start: number): Promise<number> {
  const cols = 'org_id, asset_id, ts, received_at, power_kw, soc_pct, voltage, "current", temp_c, status, run_id, intent_id, anomalies, raw';
  function* chunks() {
    let buf = '';
    for (let i = 0; i < ROWS; i++) {
      const a = i % ASSETS;
      const t = new Date(start + Math.floor(i / ASSETS) * 60_000).toISOString();
      const power = Math.round(Math.sin(i / 37) * 4000) / 1000;
      const raw = `{"asset_id":"asset-${a}","ts":"${t}","power_kw":${power}}`;
      buf += `${ORG}\tasset-${a}\t${t}\t${t}\t${power}\t${i % 101}\t\\N\t\\N\t\\N\tidle\t\\N\t\\N\t{}\t${copyText(raw)}\n`;
      if (buf.length > 512 * 1024) {
        yield buf;
        buf = '';
      }
    }
    if (buf) yield buf;
  }
  return copyFrom(admin, `copy telemetry (${cols}) from stdin`, chunks());
}

function call(method: string, url: URL, token: string, body?: object): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { authorization: `Bearer ${token}`, ...(body && { 'content-type': 'application/json' }) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

/** Streams a download, counting bytes and lines; nothing is kept. */
function stream(url: URL, token: string): Promise<{ status: number; bytes: number; lines: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
        let bytes = 0;
        let lines = 0;
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) lines++;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, lines }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function main() {
  const pinned = await pinSelf(1);
  log(`# export benchmark, ${new Date().toISOString()}`);
  log(`machine: ${await machine()}`);
  log(`client: pid ${process.pid}${pinned ? ' pinned to core 1' : ''}; ${fmt(ROWS)} telemetry rows of one organisation (${ASSETS} assets, 1-minute steps)`);
  const reuse = process.argv.find((a) => a.startsWith('--schema='))?.slice('--schema='.length);
  const schema = reuse ?? `benchx_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  let t = performance.now();
  if (reuse) {
    // A schema a run left with --keep: its rows are reused, its earlier exports removed.
    await admin.query(`set search_path = ${schema}`);
    await admin.query('delete from export_jobs');
    const n = Number((await admin.query(`select count(*)::int as n from telemetry where org_id = $1`, [ORG])).rows[0].n);
    if (n !== ROWS) throw new Error(`schema ${schema} holds ${n} rows, not ${ROWS} (set EXPORT_BENCH_ROWS)`);
    log(`reusing ${schema}: ${fmt(n)} rows`);
  } else {
    await admin.query(`create schema ${schema}`);
    await admin.query(`set search_path = ${schema}`);
    const db = await openPostgres({ url: DATABASE_URL, schema });
    await migrate(db, moduleMigrations);
    await db.close();
    const start = Date.UTC(2026, 0, 1);
    const end = start + Math.ceil(ROWS / ASSETS) * 60_000;
    await admin.query(`select telemetry_ensure_partitions($1, $2)`, [new Date(start - 86_400_000), new Date(end + 62 * 86_400_000)]);
    const rows = await load(admin, start);
    log(`loaded ${fmt(rows)} rows with COPY in ${fmt((performance.now() - t) / 1000, 1)} s`);
    await admin.query('vacuum analyze telemetry');
  }

  const child = await startChild(
    {
      NODE_ENV: 'production',
      HUB_OCPP_PUBLIC_URL: 'wss://hub.bench.invalid',
      JWT_SECRET,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_USER_PER_MIN: '10000000',
      NAMESPACE: `benchx${randomBytes(4).toString('hex')}`,
      DATABASE_URL,
      BENCH_SCHEMA: schema,
      BENCH_ORG: ORG,
    },
    log,
  );
  const ready = await child.request<{ rss: number; peakMem: Record<string, number> }>({ type: 'stats' }, 'stats');
  log(`service at ready: V8 heap ${mib(ready.peakMem.heapTotal)} (used ${mib(ready.peakMem.heapUsed)}), outside the heap ${mib(ready.peakMem.external)}`);
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ tenant_id: ORG, org_id: ORG, roles: ['ORG_ADMIN'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('bench-exporter')
    .setIssuedAt(now)
    .setExpirationTime(now + 6 * 3600)
    .sign(new TextEncoder().encode(JWT_SECRET));
  const base = child.address;
  const peak = async () => (await child.request<{ peakRss: number }>({ type: 'stats' }, 'stats')).peakRss;
  const cpu = async () => (await child.request<{ cpuMs: number }>({ type: 'stats' }, 'stats')).cpuMs;
  // The service's own CPU time per phase: on a shared machine, wall time also counts waiting for a core.
  let cpuAt = await cpu();
  const cpuPhase = async () => {
    const now = await cpu();
    const s = (now - cpuAt) / 1000;
    cpuAt = now;
    return `service CPU ${fmt(s, 1)} s (${fmt(ROWS / s)} rows per CPU-second)`;
  };

  t = performance.now();
  const job = await call('POST', new URL('/api/organisations/export', base), token, { collections: ['telemetry.readings'] });
  if (job.status !== 202) throw new Error(`POST export answered ${job.status} ${JSON.stringify(job.body)}`);
  let j = job.body;
  while (j.status === 'queued' || j.status === 'running') {
    await new Promise((r) => setTimeout(r, 500));
    j = (await call('GET', new URL(`/api/organisations/export/jobs/${job.body.job_id}`, base), token)).body;
  }
  const writeS = (performance.now() - t) / 1000;
  if (j.status !== 'completed' || j.progress.done !== ROWS) throw new Error(`job ended ${j.status} with ${j.progress.done} rows`);
  log(
    `job (count, queue, write ${fmt(ROWS)} rows in chunks): ${fmt(writeS, 1)} s, ${fmt(ROWS / writeS)} rows/s; ${await cpuPhase()}; peak RSS growth so far ${mib((await peak()) - ready.rss)}`,
  );

  for (const [label, path] of [
    ['download, JSON Lines (whole export)', `/api/organisations/export/jobs/${j.job_id}/download`],
    ['collection, CSV', `/api/organisations/export/jobs/${j.job_id}/collections/telemetry.readings?format=csv`],
    ['collection, JSON Lines', `/api/organisations/export/jobs/${j.job_id}/collections/telemetry.readings?format=jsonl`],
  ] as const) {
    t = performance.now();
    const r = await stream(new URL(path, base), token);
    const s = (performance.now() - t) / 1000;
    const dataLines = label.includes('CSV') ? r.lines - 1 : r.lines;
    if (r.status !== 200 || dataLines !== ROWS) throw new Error(`${label}: ${r.status}, ${r.lines} lines`);
    log(
      `${label.padEnd(36)}: ${fmt(r.bytes / 1024 / 1024, 1)} MiB in ${fmt(s, 1)} s, ${fmt(ROWS / s)} rows/s; ${await cpuPhase()}; peak RSS growth so far ${mib((await peak()) - ready.rss)}`,
    );
  }
  const mem = (await child.request<{ peakMem: Record<string, number> }>({ type: 'stats' }, 'stats')).peakMem;
  log(`service peaks: V8 heap ${mib(mem.heapTotal)} (used ${mib(mem.heapUsed)}), outside the heap ${mib(mem.external)} (Buffers ${mib(mem.arrayBuffers)})`);
  log(
    `service peak RSS ${mib(await peak())}, at ready ${mib(ready.rss)}: growth ${mib((await peak()) - ready.rss)} (target < 100 MiB); target >= 100,000 rows/s`,
  );
  log(
    `load average at the end: ${(await import('node:os'))
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' / ')}`,
  );
  await child.stop();
  if (!process.argv.includes('--keep')) await admin.query(`drop schema ${schema} cascade`);
  await admin.end();
}

await main();
