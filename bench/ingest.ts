// Ingestion benchmark (reliability plan T-1; not a test). Starts the service in a child process
// pinned to core 0 (so its RSS and CPU are its own), pins itself (the load generator) to core 1,
// and pushes batches of 500 records over real HTTP from several concurrent clients:
//   1. at saturation (closed loop, N clients back to back)      -> records/s, batch latency
//   2. at a fixed arrival rate (open loop, default 70% of 1)     -> batch latency from the
//      scheduled send time (no coordinated omission)
// then, on PostgreSQL, loads the same rows into the same table with COPY FROM STDIN and through
// the service's own insert function without HTTP, and prints the rates and ratios; then (issue 26)
// COPY of the same rows into a plain table with only the (org, asset, ts) index, the physical
// reference, and with the telemetry table's design added part by part, each as a ratio of it
// (--no-design skips it). After each
// phase the row count is checked against the records the API said it stored, then truncated.
//
//   npm run bench:ingest                      # PostgreSQL (DATABASE_URL or local), Redis, NATS
//   npm run bench:ingest -- --store=pglite    # embedded PGlite (file-backed), memory cache/bus
//   options: --records=1000000 --rate-records=500000 --batch=500 --clients=16 --rate-fraction=0.7
//            --rate=<records/s> --mix=gateways|interleaved --bus=memory --no-copy --no-design --no-direct --keep --late
//   --otlp: tracing on (issue 42): the service exports its spans over OTLP/HTTP to a sink on loopback
//   in this process, which counts the requests and bytes it receives; compare with a run without.
//   --mix=gateways (default): each batch is one gateway's 50 assets x 10 readings, consecutive
//   batches from different gateways; --mix=interleaved: every batch spans all 1,000 assets, so
//   concurrent batches contend for the same telemetry_latest rows (worst case).
//
// The service gets RATE_LIMIT_USER_PER_MIN=10000000: the per-user limit of 100 requests a minute
// would otherwise throttle a single benchmark user after 100 batches.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { SignJWT } from 'jose';
import { openPostgres } from '../src/infra/db/postgres.ts';
import { openPglite } from '../src/infra/db/pglite.ts';
import { migrate } from '../src/infra/db/migrate.ts';
import { moduleMigrations } from '../src/modules/index.ts';
import type { Db } from '../src/infra/db/index.ts';
import { createTelemetryStore } from '../src/modules/telemetry/store.ts';
import { createTelemetryService } from '../src/modules/telemetry/index.ts';
import { normaliseRecord, type CanonicalRow } from '../src/modules/telemetry/normalise.ts';
import { createMemoryBus } from '../src/infra/bus/memory.ts';
import { SEAL_GRACE_MS } from '../src/modules/telemetry/maintenance.ts';
import { pino } from 'pino';
import { batchBody, makeRecord, type Mix } from './lib/records.ts';
import { copyFrom, copyText } from './lib/copy-in.ts';
import { fmt, machine, mib, pinSelf, summary } from './lib/stats.ts';
import { startChild } from './lib/child.ts';
import { pgCpu, pgCpuUsPerRecord, vacuumHeldBack, type CpuSnapshot } from './lib/pg-cpu.ts';

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'];
  }),
);
const STORE = (args.store ?? 'pg') as 'pg' | 'pglite';
const RECORDS = Number(args.records ?? 1_000_000);
const RATE_RECORDS = Number(args['rate-records'] ?? 500_000);
const BATCH = Number(args.batch ?? 500);
const CLIENTS = Number(args.clients ?? 16);
const RATE_FRACTION = Number(args['rate-fraction'] ?? 0.7);
const DATABASE_URL = args['database-url'] ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const MIX = (args.mix ?? 'gateways') as Mix;
const ORG = 'bench';
const JWT_SECRET = randomBytes(32).toString('hex');
// The rows' readings span about 5 s per 1,000 records (1,000 assets, one reading each 5 s). They
// end five minutes before the start, so none is in the future, and none is in a day the sealing
// has closed (a day is sealed two hours after it ends, SEAL_GRACE_MS): such a row takes the
// late-rollup path. Dated three hours back, as they were, every batch of a run begun between 02:00
// and about 03:15 UTC did. --late dates them on purpose from noon of the day before yesterday (UTC),
// a day always sealed: every batch takes the late path (a gateway replaying an old buffer).
const T0 = args.late
  ? Math.floor(Date.now() / 86_400_000) * 86_400_000 - 36 * 3600_000
  : Date.now() - Math.min((Math.max(RECORDS, RATE_RECORDS) / 1000) * 5000 + 5 * 60_000, SEAL_GRACE_MS - 5 * 60_000);
const WARMUP_BATCHES = 40;

const log = (...a: unknown[]) => console.log(...a);
const results: Record<string, unknown> = {};

// ---------------------------------------------------------------------------------------------
// HTTP load.

interface Outcome {
  latencies: number[];
  stored: number;
  statuses: Record<number, number>;
  seconds: number;
}

function post(agent: http.Agent, url: URL, token: string, body: string): Promise<{ status: number; stored: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          let stored = 0;
          try {
            stored = Number(JSON.parse(Buffer.concat(chunks).toString()).stored ?? 0);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, stored });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Closed loop: `clients` workers send batches back to back. */
async function saturate(url: URL, token: string, batches: number, offset: number): Promise<Outcome> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let stored = 0;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < batches) {
        const b = next++;
        const body = batchBody(b, BATCH, T0, offset, MIX);
        const s = performance.now();
        const r = await post(agent, url, token, body);
        latencies.push(performance.now() - s);
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        stored += r.stored;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  return { latencies, stored, statuses, seconds };
}

/** Open loop: batch i is due at t0 + i/rate; latency counts from the due time. */
async function fixedRate(url: URL, token: string, batches: number, offset: number, recordsPerSecond: number): Promise<Outcome> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const interval = (BATCH / recordsPerSecond) * 1000;
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let stored = 0;
  const inflight: Promise<void>[] = [];
  const t0 = performance.now();
  for (let i = 0; i < batches; i++) {
    const due = t0 + i * interval;
    const body = batchBody(i, BATCH, T0, offset, MIX);
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inflight.push(
      post(agent, url, token, body).then((r) => {
        latencies.push(performance.now() - due);
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        stored += r.stored;
      }),
    );
  }
  await Promise.all(inflight);
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  return { latencies, stored, statuses, seconds };
}

function report(name: string, o: Outcome, records: number) {
  const l = summary(o.latencies);
  const rate = o.stored / o.seconds;
  log(
    `${name}: ${fmt(records)} records in ${fmt(o.seconds, 1)} s = ${fmt(rate)} records/s stored; ` +
      `batch latency p50 ${fmt(l.p50, 1)} ms, p95 ${fmt(l.p95, 1)} ms, p99 ${fmt(l.p99, 1)} ms, max ${fmt(l.max, 1)} ms; ` +
      `statuses ${JSON.stringify(o.statuses)}`,
  );
  return { records, seconds: o.seconds, recordsPerSecond: Math.round(rate), stored: o.stored, latencyMs: l, statuses: o.statuses };
}

// ---------------------------------------------------------------------------------------------
// COPY and the direct insert (PostgreSQL).

async function copyPhase(client: pg.Client, records: number, table = 'telemetry'): Promise<number> {
  const cols = 'org_id, asset_id, ts, received_at, power_kw, soc_pct, voltage, "current", temp_c, status, run_id, intent_id, anomalies, raw';
  const receivedAt = new Date().toISOString();
  function* chunks() {
    let buf = '';
    for (let k = 0; k < records; k++) {
      const r = makeRecord(k, T0, MIX, BATCH);
      buf +=
        [ORG, r.asset_id, r.ts, receivedAt, r.power_kw, r.soc_pct, r.voltage, null, null, r.status, null, null, '{}', JSON.stringify(r)]
          .map((v) => copyText(v as string | number | null))
          .join('\t') + '\n';
      if (buf.length > 256 * 1024) {
        yield buf;
        buf = '';
      }
    }
    if (buf) yield buf;
  }
  const t0 = performance.now();
  const n = await copyFrom(client, `copy ${table} (${cols}) from stdin`, chunks());
  const seconds = (performance.now() - t0) / 1000;
  if (n !== records) throw new Error(`COPY wrote ${n} rows, expected ${records}`);
  return records / seconds;
}

/**
 * The physical reference and what each part of the telemetry table's design costs (issue 26): COPY
 * of the same rows into a plain table with only the (org, asset, ts) index, then with each part of
 * the real design added one at a time, and the real (partitioned) table. Each as a ratio of the
 * plain table's rate.
 */
const DESIGN_STEPS: { name: string; ddl: (t: string) => string[]; alone?: boolean }[] = [
  { name: 'plain table, (org, asset, ts) B-tree only (the physical reference)', ddl: () => [] },
  { name: '+ id from a sequence', ddl: (t) => [`create sequence ${t}_seq`, `alter table ${t} add column id bigint not null default nextval('${t}_seq')`] },
  { name: '+ (org, received_at, id) B-tree (live events backwards, export)', ddl: (t) => [`create index on ${t} (org_id, received_at, id)`] },
  { name: '+ (org, ts, id) B-tree (Partner API newest first, backwards)', ddl: (t) => [`create index on ${t} (org_id, ts, id)`] },
  { name: '+ BRIN on ts (rollup sealing)', ddl: (t) => [`create index on ${t} using brin (ts)`] },
  // Before decision 0252 the two B-trees were newest-first (desc): the same design with those.
  {
    name: 'the same with both B-trees descending (before decision 0252)',
    alone: true,
    ddl: (t) => [
      `create sequence ${t}_seq`,
      `alter table ${t} add column id bigint not null default nextval('${t}_seq')`,
      `create index on ${t} (org_id, received_at desc, id desc)`,
      `create index on ${t} (org_id, ts desc, id desc)`,
      `create index on ${t} using brin (ts)`,
    ],
  },
];
/** Each design as its own table; two rounds over all of them, the better of each kept (a shared machine is noisy). */
async function designPhase(
  client: pg.Client,
  records: number,
  rounds = 2,
): Promise<{ name: string; rate: number; runs: number[]; pgCpuUs: (number | null)[] }[]> {
  const tables = DESIGN_STEPS.map((_, i) => `t_design_${i}`);
  for (let i = 0; i < tables.length; i++) {
    const t = tables[i];
    await client.query(`create table ${t} (org_id text not null, asset_id text not null, ts timestamptz not null, received_at timestamptz not null,
      power_kw double precision, soc_pct double precision, voltage double precision, "current" double precision, temp_c double precision,
      status text not null default 'unknown', run_id text, intent_id text, anomalies text[] not null default '{}', raw jsonb not null)`);
    await client.query(`create index on ${t} (org_id, asset_id, ts)`);
    if (DESIGN_STEPS[i].alone) for (const d of DESIGN_STEPS[i].ddl(t)) await client.query(d);
    else for (let j = 1; j <= i; j++) for (const d of DESIGN_STEPS[j].ddl(t)) await client.query(d);
  }
  const runs: number[][] = tables.map(() => []);
  const cpu: (number | null)[][] = tables.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < tables.length; i++) {
      await client.query(`truncate ${tables[i]}`);
      const c0 = await pgCpu(client);
      runs[i].push(await copyPhase(client, records, tables[i]));
      cpu[i].push(pgCpuUsPerRecord(c0, await pgCpu(client), records));
    }
  }
  for (let i = 0; i < tables.length; i++) {
    await client.query(`drop table ${tables[i]}`);
    if (i > 0) await client.query(`drop sequence ${tables[i]}_seq`);
  }
  return DESIGN_STEPS.map((st, i) => ({ name: st.name, rate: Math.max(...runs[i]), runs: runs[i], pgCpuUs: cpu[i] }));
}

function prepareBatches(records: number): { raw: unknown[]; rows: CanonicalRow[] }[] {
  const now = Date.now();
  const out = [];
  for (let b = 0; b < records / BATCH; b++) {
    const raw = Array.from({ length: BATCH }, (_, i) => JSON.parse(JSON.stringify(makeRecord(b * BATCH + i, T0, MIX, BATCH))));
    const rows = raw.map((r) => {
      const n = normaliseRecord(r, now);
      if (!n.ok) throw new Error('bench record rejected');
      return n.row;
    });
    out.push({ raw, rows });
  }
  return out;
}

async function directPhase(db: Db, records: number, concurrency: number) {
  const batches = prepareBatches(records);
  // (a) The store's insert function alone: rows already normalised.
  let next = 0;
  let t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < batches.length) {
        const b = batches[next++];
        await db.tx((q) => createTelemetryStore(q).insertBatch(ORG, new Date(), b.rows));
      }
    }),
  );
  const storeRate = records / ((performance.now() - t0) / 1000);
  await db.query('truncate telemetry');
  // (b) The service's ingest (record rules, dedup, insert, publish to an in-process bus), no HTTP.
  const bus = createMemoryBus();
  const svc = createTelemetryService({ db, bus, clock: { now: () => new Date() }, onStored: () => {}, log: pino({ level: 'warn' }) });
  const ctx = { orgId: ORG, actor: { kind: 'anonymous' as const }, requestId: 'bench', ip: '127.0.0.1' };
  next = 0;
  t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < batches.length) {
        const b = batches[next++];
        const r = await svc.ingest(ctx, b.raw);
        if (r.stored !== BATCH) throw new Error('direct ingest did not store the batch');
      }
    }),
  );
  const serviceRate = records / ((performance.now() - t0) / 1000);
  await bus.close();
  return { storeRate, serviceRate };
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const pinned = await pinSelf(1);
  log(`# ingestion benchmark, ${new Date().toISOString()}`);
  log(`machine: ${await machine()}`);
  log(`load generator: pid ${process.pid}${pinned ? ' pinned to core 1' : ''}; ${CLIENTS} clients; batches of ${BATCH}; record mix ${MIX}`);

  let schema: string | undefined;
  let admin: pg.Client | undefined;
  let dataDir: string | undefined;
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    HUB_OCPP_PUBLIC_URL: 'wss://hub.bench.invalid',
    JWT_SECRET,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_USER_PER_MIN: '10000000',
    NAMESPACE: `bench${randomBytes(4).toString('hex')}`,
    PORT: '0',
    BENCH_ORG: ORG,
  };
  if (STORE === 'pg') {
    schema = `bench_${randomBytes(4).toString('hex')}`;
    admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.query(`set search_path = ${schema}`);
    Object.assign(env, { DATABASE_URL, BENCH_SCHEMA: schema, REDIS_URL });
    if (args.bus !== 'memory') env.NATS_URL = NATS_URL;
    log(`store: PostgreSQL ${DATABASE_URL} schema ${schema} (server not pinned: it shares both cores)`);
    const held = await vacuumHeldBack(admin);
    if (held) log(`WARNING: ${held}`);
  } else {
    dataDir = mkdtempSync(join(tmpdir(), 'bench-pglite-'));
    Object.assign(env, { DATA_DIR: dataDir });
    log(`store: embedded PGlite (file-backed, ${dataDir}), memory cache, in-process bus`);
  }

  let otlp: { requests: number; bytes: number; close: () => Promise<void> } | undefined;
  if (args.otlp !== undefined) {
    const sink = { requests: 0, bytes: 0 };
    const server = http.createServer((req, res) => {
      sink.requests++;
      req.on('data', (c: Buffer) => {
        sink.bytes += c.length;
      });
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    otlp = Object.assign(sink, { close: () => new Promise<void>((r) => server.close(() => r())) });
    log(`tracing: on, spans exported over OTLP/HTTP to a sink at ${env.OTEL_EXPORTER_OTLP_ENDPOINT}`);
  } else {
    log('tracing: off (OTEL_EXPORTER_OTLP_ENDPOINT not set)');
  }

  const child = await startChild(env, log);
  const sql = <T = Record<string, unknown>>(text: string) =>
    STORE === 'pg' ? admin!.query(text).then((r) => r.rows as T[]) : child.request<{ rows: T[] }>({ type: 'sql', sql: text }, 'sql').then((r) => r.rows);
  const count = async () => Number((await sql<{ n: number }>(`select count(*)::int as n from telemetry where org_id = '${ORG}'`))[0].n);
  const truncate = () => sql('truncate telemetry');

  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ tenant_id: ORG, org_id: ORG, roles: ['OPERATOR'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('bench-user')
    .setIssuedAt(now)
    .setExpirationTime(now + 4 * 3600)
    .sign(new TextEncoder().encode(JWT_SECRET));
  const url = new URL('/api/telemetry/ingest', child.address);

  await saturate(url, token, WARMUP_BATCHES, 50_000_000);
  await truncate();

  interface GcCounts {
    full: number;
    fullPauseMs: number;
    fullMaxPauseMs: number;
    young: number;
    youngPausesMs: number[];
  }
  let gcAt: GcCounts = { full: 0, fullPauseMs: 0, fullMaxPauseMs: 0, young: 0, youngPausesMs: [] };
  /** The service's CPU so far (ms); also notes its garbage collections for gcSince(). */
  const cpuMs = () =>
    child.request<{ cpuMs: number; gc: GcCounts }>({ type: 'cpu' }, 'cpu').then((r) => {
      gcAt = r.gc;
      return r.cpuMs;
    });
  /** Full collections in the service since the last cpuMs() before this phase: their pauses make the latency tail. */
  const gcSince = async (from: GcCounts) => {
    await cpuMs();
    const full = gcAt.full - from.full;
    const young = gcAt.youngPausesMs.slice(from.young);
    const youngSum = young.reduce((a, b) => a + b, 0);
    log(
      `  service garbage collection in the phase: ${full} full (${fmt(gcAt.fullPauseMs - from.fullPauseMs, 1)} ms of pauses, longest ${fmt(gcAt.fullMaxPauseMs, 1)} ms so far), ` +
        `${young.length} young (${fmt(youngSum, 1)} ms of pauses, longest ${fmt(Math.max(0, ...young), 1)} ms)`,
    );
    return full;
  };
  /** A process's CPU per stored record in a phase (µs): what it costs, less noisy than rates on a shared machine. */
  const perRecord = (who: string, name: string, ms: number, stored: number) => {
    const us = (ms * 1000) / Math.max(stored, 1);
    log(`  ${who} CPU in the phase: ${fmt(ms / 1000, 2)} s = ${fmt(us, 1)} µs per stored record (${name})`);
    return us;
  };
  /** The service's CPU per stored record in a phase (µs). */
  const cpuPerRecord = (name: string, ms: number, stored: number) => perRecord('service', name, ms, stored);

  const satBatches = Math.ceil(RECORDS / BATCH);
  // PostgreSQL's CPU per stored record in a phase (its backends of this database: bench/lib/pg-cpu.ts).
  const noPg: CpuSnapshot = new Map();
  const pgSnap = () => (admin ? pgCpu(admin) : Promise.resolve(noPg));
  const pgPerRecord = (name: string, from: CpuSnapshot, to: CpuSnapshot, stored: number) => {
    const us = pgCpuUsPerRecord(from, to, stored);
    if (us !== null) log(`  PostgreSQL CPU in the phase: ${fmt(us, 1)} µs per stored record (${name}; backends of this database)`);
    return us;
  };
  /** This process's CPU (the load generator: HTTP clients, JSON of the batches), user and system, in ms. */
  const genMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  /** The load generator's CPU per stored record (µs): on a shared machine it competes with the service and PostgreSQL. */
  const genPerRecord = (name: string, ms: number, stored: number) => perRecord('load generator', name, ms, stored);
  let cpu0 = await cpuMs();
  let pg0 = await pgSnap();
  let gen0 = genMs();
  const gcSat = gcAt;
  const sat = await saturate(url, token, satBatches, 0);
  const satGen = genMs() - gen0;
  const satCpu = (await cpuMs()) - cpu0;
  const satPg = pgPerRecord('saturation', pg0, await pgSnap(), sat.stored);
  results.saturation = report(`API at saturation (${CLIENTS} clients)`, sat, satBatches * BATCH);
  results.saturationCpuUsPerRecord = cpuPerRecord('saturation', satCpu, sat.stored);
  const generatorCpuUsPerRecord: Record<string, number> = { saturation: genPerRecord('saturation', satGen, sat.stored) };
  results.generatorCpuUsPerRecord = generatorCpuUsPerRecord;
  results.saturationFullGcs = await gcSince(gcSat);
  const satRows = await count();
  log(`  row count after the run: ${fmt(satRows)} (API said stored ${fmt(sat.stored)}) ${satRows === sat.stored ? 'OK' : 'MISMATCH'}`);
  await truncate();

  const rate = Number(args.rate ?? Math.round((sat.stored / sat.seconds) * RATE_FRACTION));
  const rateBatches = Math.ceil(RATE_RECORDS / BATCH);
  await child.request({ type: 'reset-loop-delay' }, 'reset-loop-delay');
  cpu0 = await cpuMs();
  pg0 = await pgSnap();
  gen0 = genMs();
  const gcFixed = gcAt;
  const fixed = await fixedRate(url, token, rateBatches, 0, rate);
  const fixedGen = genMs() - gen0;
  const fixedCpu = (await cpuMs()) - cpu0;
  results.fixedRatePostgresCpuUsPerRecord = pgPerRecord('fixed rate', pg0, await pgSnap(), fixed.stored);
  results.fixedRate = { targetRecordsPerSecond: rate, ...report(`API at a fixed ${fmt(rate)} records/s`, fixed, rateBatches * BATCH) };
  results.fixedRateCpuUsPerRecord = cpuPerRecord('fixed rate', fixedCpu, fixed.stored);
  generatorCpuUsPerRecord.fixedRate = genPerRecord('fixed rate', fixedGen, fixed.stored);
  results.fixedRateFullGcs = await gcSince(gcFixed);
  const fixedRows = await count();
  log(`  row count after the run: ${fmt(fixedRows)} (API said stored ${fmt(fixed.stored)}) ${fixedRows === fixed.stored ? 'OK' : 'MISMATCH'}`);
  await truncate();

  const stats = await child.request<{ peakRss: number; cpuMs: number; loopDelayMs: { p50: number; p99: number; max: number } }>({ type: 'stats' }, 'stats');
  results.service = { peakRssBytes: stats.peakRss, cpuSeconds: stats.cpuMs / 1000, loopDelayMsAtFixedRate: stats.loopDelayMs };
  log(
    `service: peak RSS ${mib(stats.peakRss)}, CPU ${fmt(stats.cpuMs / 1000, 1)} s over the run; event-loop delay at the fixed rate ` +
      `p50 ${fmt(stats.loopDelayMs.p50, 1)} ms, p99 ${fmt(stats.loopDelayMs.p99, 1)} ms, max ${fmt(stats.loopDelayMs.max, 1)} ms`,
  );
  await child.stop();
  if (otlp) {
    results.otlp = { requests: otlp.requests, bytes: otlp.bytes };
    log(`tracing: the sink received ${fmt(otlp.requests)} OTLP requests, ${mib(otlp.bytes)} of spans`);
    await otlp.close();
  }

  if (STORE === 'pg') {
    const api = sat.stored / sat.seconds;
    if (args['no-copy'] === undefined) {
      const pgCopy0 = await pgSnap();
      const copyRate = await copyPhase(admin!, satBatches * BATCH);
      const copyPg = pgCpuUsPerRecord(pgCopy0, await pgSnap(), satBatches * BATCH);
      results.copy = Math.round(copyRate);
      log(`COPY FROM STDIN (one connection, text format, same rows, same table): ${fmt(copyRate)} records/s; API / COPY = ${fmt(api / copyRate, 2)}`);
      await truncate();
      if (args['no-design'] === undefined) {
        const steps = await designPhase(admin!, satBatches * BATCH);
        const ref = steps[0].rate;
        log(`\nCOPY of the same rows, the table's design added part by part (the better of two rounds; ratio to the plain table):`);
        for (const st of steps)
          log(`  ${st.name.padEnd(72)} ${fmt(st.rate).padStart(9)} records/s  ${fmt(st.rate / ref, 2)}  (runs ${st.runs.map((x) => fmt(x)).join(', ')})`);
        log(`  ${'the telemetry table (monthly partitions, all of the above)'.padEnd(72)} ${fmt(copyRate).padStart(9)} records/s  ${fmt(copyRate / ref, 2)}`);
        log(
          `  ${'the API at saturation (HTTP, rules, one transaction per batch, newest-reading upsert, live stream)'.padEnd(72)} ${fmt(api).padStart(9)} records/s  ${fmt(api / ref, 2)} (target >= 0.5)`,
        );
        const refPg = steps[0].pgCpuUs.filter((x): x is number => x !== null);
        if (refPg.length && satPg !== null) {
          const refUs = Math.min(...refPg);
          log(
            `\nPostgreSQL CPU per record: API at saturation ${fmt(satPg, 1)} µs, COPY into the telemetry table ${fmt(copyPg ?? 0, 1)} µs, ` +
              `the plain-table reference ${fmt(refUs, 1)} µs (runs ${refPg.map((x) => fmt(x, 1)).join(', ')}); API / reference ${fmt(satPg / refUs, 2)} (target <= 1.5); ` +
              `by PostgreSQL's CPU the API reaches ${fmt(refUs / satPg, 2)} of the reference` +
              `\nCPU per record at saturation, each process: PostgreSQL ${fmt(satPg, 1)} µs, the service ${fmt(results.saturationCpuUsPerRecord as number, 1)} µs, ` +
              `the load generator ${fmt(generatorCpuUsPerRecord.saturation, 1)} µs`,
          );
          results.postgresCpuUsPerRecord = { api: satPg, reference: refUs, telemetryCopy: copyPg };
        }
        results.design = {
          reference: Math.round(ref),
          steps: steps.map((st) => ({ name: st.name, rate: Math.round(st.rate), ratio: st.rate / ref })),
          apiRatio: api / ref,
        };
      }
    }
    if (args['no-direct'] === undefined) {
      const db = await openPostgres({ url: DATABASE_URL, schema });
      const d = await directPhase(db, satBatches * BATCH, 8);
      await db.close();
      results.direct = { store: Math.round(d.storeRate), service: Math.round(d.serviceRate) };
      log(`insertBatch without HTTP (8 concurrent transactions, same rows): ${fmt(d.storeRate)} records/s; API / insert = ${fmt(api / d.storeRate, 2)}`);
      log(`service.ingest without HTTP (rules + insert + in-process bus): ${fmt(d.serviceRate)} records/s; API / service = ${fmt(api / d.serviceRate, 2)}`);
    }
    if (args.keep === undefined) await admin!.query(`drop schema ${schema} cascade`);
    await admin!.end();
  } else {
    if (args['no-direct'] === undefined) {
      const db = await openPglite(); // fresh in-memory store in this process, same migrations
      await migrate(db, moduleMigrations);
      await db.query(`select telemetry_ensure_partitions(now() - interval '1 month', now() + interval '2 months')`);
      const d = await directPhase(db, Math.min(satBatches * BATCH, 200_000), 1);
      await db.close();
      results.direct = { store: Math.round(d.storeRate), service: Math.round(d.serviceRate) };
      log(`PGlite in-memory insertBatch without HTTP: ${fmt(d.storeRate)} records/s; service.ingest without HTTP: ${fmt(d.serviceRate)} records/s`);
    }
    rmSync(dataDir!, { recursive: true, force: true });
  }
  log(`machine after: ${await machine()}`);
  log('RESULT ' + JSON.stringify({ store: STORE, mix: MIX, clients: CLIENTS, batch: BATCH, ...results }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
