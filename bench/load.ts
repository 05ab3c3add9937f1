// Load runs with the realistic mix (reliability plan T-3 soak, T-2 saturation; not tests).
//
// The service runs as production runs it (src/main.ts, pinned to core 0) on the shared PostgreSQL
// (a fresh database), Redis and NATS JetStream (a fresh namespace; its stream is deleted at the
// end). This process is the load generator (pinned to core 1): an open loop at a fixed arrival
// rate (latency counted from each request's scheduled time, so a slow service cannot slow the
// offered load), the kind of each request drawn from a seeded mix:
//   65% ingestion batches (LOAD_BATCH records, default 100; bearer tokens of OPERATOR users),
//   20% history reads (hourly / live / daily of the assets being ingested),
//   10% Partner API reads (telemetry/latest, devices, alerts, me) spread round-robin over enough
//       API keys to stay under 600/min each,
//    5% logins, spread over source addresses 127.0.0.2-127.0.0.254 (http.Agent localAddress) so
//       that no address passes the 5/min authentication limit.
// Organisation and users come from the provisioning CLI; the API keys from the API.
//
//   npm run bench:load                              # T-3 soak: LOAD_RATE req/s for LOAD_MINUTES
//   npm run bench:load -- --mode=saturation         # T-2: +20% every 30 s until p99 > 2 s or errors
//   npm run bench:load -- --mode=both               # T-2, then T-3 at 50% of the knee
//   LOAD_RATE=20 or --rate=20 (about half the knee measured here)  LOAD_MINUTES=4 or --minutes=4 (the plan's
//   soak is 30: --minutes=30)  LOAD_BATCH=100
//   LOAD_START_RATE=30  LOAD_STEP_S=30  LOAD_MAX_STEPS=20  LOAD_STEPS_PAST_KNEE=1 (overload kept up for
//   that many more steps, +20% each)  LOAD_SEED=1  LOAD_MIX=65,20,10,5
//   DATABASE_URL (admin, default postgres://postgres@127.0.0.1:5432/postgres)  REDIS_URL  NATS_URL
//
// Exact facts (PASS/FAIL): no 5xx (other than a 503 with Retry-After, the spec's shedding) and no
// unanswered request in the soak; every acknowledged ingestion record is in the table (row count =
// records the API said it stored). Everything timed is a printed figure with its target.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { makeRecord } from './lib/records.ts';
import { fmt, machine, mib, pinSelf, summary } from './lib/stats.ts';
import { connectionsTo, createDatabase, freePort, removeBusStreamAtEnd, runMain, sleep, tempDir } from './faults/lib/servers.ts';
import { baseEnv, serviceProcess, type ServiceProcess } from './faults/lib/service.ts';
import { cli, createApiKey, createReport, envInt, login, newSecret, request, rng, showTally, tally, type Answer } from './faults/lib/client.ts';

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'];
  }),
);
const MODE = (args.mode ?? process.env.LOAD_MODE ?? 'soak') as 'soak' | 'saturation' | 'both';
const RATE = Number(args.rate ?? envInt('LOAD_RATE', 20));
const MINUTES = Number(args.minutes ?? envInt('LOAD_MINUTES', 4));
const BATCH = envInt('LOAD_BATCH', 100);
const START_RATE = envInt('LOAD_START_RATE', 30);
const STEP_MS = envInt('LOAD_STEP_S', 30) * 1000;
const MAX_STEPS = envInt('LOAD_MAX_STEPS', 20);
const PAST_KNEE = envInt('LOAD_STEPS_PAST_KNEE', 1);
const SEED = envInt('LOAD_SEED', 1);
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const ORG = 'loadorg';
const USERS = 3;
const PASSWORD = 'load-run-user-password-1';
const MAX_INFLIGHT = 4000;
const TIMEOUT_MS = 30_000;
const log = (s = '') => console.log(s);
/** Records the API said it stored, over every phase (warm-ups included). */
let totalStored = 0;

type Kind = 'ingest' | 'history' | 'partner' | 'login';
// LOAD_MIX=65,20,10,5 (percent of ingest, history, partner, login) changes the mix.
const MIX: [Kind, number][] = (() => {
  const w = (process.env.LOAD_MIX ?? '65,20,10,5').split(',').map(Number);
  if (w.length !== 4 || w.some((x) => !(x >= 0)) || w.reduce((a, b) => a + b, 0) <= 0) throw new Error('LOAD_MIX must be four percentages');
  const sum = w.reduce((a, b) => a + b, 0);
  return (['ingest', 'history', 'partner', 'login'] as Kind[]).map((k, i) => [k, w[i] / sum] as [Kind, number]);
})();

interface Done {
  kind: Kind;
  due: number; // scheduled time (performance.now())
  lat: number; // ms from due to the end of the answer
  status: number;
  error?: string;
  retryAfter?: boolean;
  stored: number;
}

interface Env {
  svc: ServiceProcess;
  dbName: string;
  tokens: string[];
  keys: string[];
  emails: string[];
  t0Records: number;
}

// ---------------------------------------------------------------------------------------------
// Process figures read from /proc (the service's own RSS and open descriptors).

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}
function fdsOf(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return NaN;
  }
}
async function loopP99(url: string): Promise<number> {
  const a = await request(`${url}/api/telemetry/metrics`, { timeoutMs: 10_000 });
  const m = /^eps_nodejs_eventloop_lag_p99_seconds(?:\{[^}]*\})? ([0-9.e+-]+)$/m.exec(a.body);
  return m ? Number(m[1]) * 1000 : NaN;
}
/** Least-squares slope of (t minutes, bytes) in MiB per minute. */
function slopeMiBPerMin(samples: { t: number; rss: number }[]): number {
  const n = samples.length;
  if (n < 2) return NaN;
  const mx = samples.reduce((s, p) => s + p.t, 0) / n;
  const my = samples.reduce((s, p) => s + p.rss, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of samples) {
    num += (p.t - mx) * (p.rss - my);
    den += (p.t - mx) ** 2;
  }
  return num / den / 1024 / 1024;
}

// ---------------------------------------------------------------------------------------------
// The load generator.

function createGenerator(env: Env, seed: number) {
  const random = rng(seed);
  const base = env.svc.url;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const loginAgents = new Map<string, http.Agent>();
  const loginAgent = (ip: string) => {
    let a = loginAgents.get(ip);
    // A sign-in is a fresh connection from its address (as from a browser or a device).
    if (!a) loginAgents.set(ip, (a = new http.Agent({ keepAlive: false, localAddress: ip } as http.AgentOptions)));
    return a;
  };
  let recordSeq = 0;
  let ingestSeq = 0;
  let keySeq = 0;
  let ipSeq = 0;
  let loginSeq = 0;
  const T0 = Date.now() - 6 * 3600_000;
  let inflight = 0;
  let dropped = 0;

  const pick = (): Kind => {
    const r = random();
    let acc = 0;
    for (const [k, w] of MIX) if (r < (acc += w)) return k;
    return 'ingest';
  };

  function send(kind: Kind): Promise<Answer & { stored: number }> {
    const token = env.tokens[ingestSeq++ % env.tokens.length];
    switch (kind) {
      case 'ingest': {
        const first = recordSeq;
        recordSeq += BATCH;
        const body = JSON.stringify(Array.from({ length: BATCH }, (_, i) => makeRecord(first + i, T0, 'gateways', BATCH)));
        return request(`${base}/api/telemetry/ingest`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body,
          agent,
          timeoutMs: TIMEOUT_MS,
        }).then((a) => {
          let stored = 0;
          if (a.status === 200 || a.status === 207) stored = Number(JSON.parse(a.body).stored ?? 0);
          return { ...a, stored };
        });
      }
      case 'history': {
        const asset = `asset-${Math.floor(random() * 1000)}`;
        const r = random();
        const range = r < 0.6 ? 'hourly' : r < 0.8 ? 'live' : 'daily';
        const type = random() < 0.5 ? 'battery' : 'solar';
        return request(`${base}/api/telemetry/assets/${type}/${asset}/history?range=${range}`, {
          headers: { authorization: `Bearer ${token}` },
          agent,
          timeoutMs: TIMEOUT_MS,
        }).then((a) => ({ ...a, stored: 0 }));
      }
      case 'partner': {
        const key = env.keys[keySeq++ % env.keys.length];
        const r = random();
        const path = r < 0.5 ? 'telemetry/latest?limit=50' : r < 0.75 ? 'devices?limit=50' : r < 0.9 ? 'alerts?limit=50' : 'me';
        return request(`${base}/api/devtools/partner/v1/${path}`, { headers: { authorization: `Bearer ${key}` }, agent, timeoutMs: TIMEOUT_MS }).then((a) => ({
          ...a,
          stored: 0,
        }));
      }
      case 'login': {
        const ip = `127.0.0.${2 + (ipSeq++ % 253)}`;
        const email = env.emails[loginSeq++ % env.emails.length];
        return request(`${base}/api/auth/login`, {
          method: 'POST',
          body: JSON.stringify({ email, password: PASSWORD }),
          agent: loginAgent(ip),
          timeoutMs: TIMEOUT_MS,
        }).then((a) => ({ ...a, stored: 0 }));
      }
    }
  }

  /** Offers `rate` requests/s for `ms`; resolves when every request has finished. */
  async function run(rate: number, ms: number, onDone: (d: Done) => void): Promise<{ offered: number; dropped: number }> {
    const start = performance.now();
    const interval = 1000 / rate;
    const pending = new Set<Promise<void>>();
    let i = 0;
    const droppedBefore = dropped;
    for (; ; i++) {
      const due = start + i * interval;
      if (due - start >= ms) break;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const kind = pick();
      if (inflight >= MAX_INFLIGHT) {
        dropped++;
        onDone({ kind, due, lat: NaN, status: -1, error: 'client in-flight cap', stored: 0 });
        continue;
      }
      inflight++;
      const p = send(kind).then((a) => {
        inflight--;
        totalStored += a.stored;
        onDone({
          kind,
          due,
          lat: performance.now() - due,
          status: a.status,
          error: a.error,
          retryAfter: a.headers['retry-after'] !== undefined,
          stored: a.stored,
        });
      });
      pending.add(p);
      void p.finally(() => pending.delete(p));
    }
    await Promise.all([...pending]);
    return { offered: i, dropped: dropped - droppedBefore };
  }

  return {
    run,
    close() {
      agent.destroy();
      for (const a of loginAgents.values()) a.destroy();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Figures.

// Status -1: not sent, the generator's own cap on requests in flight (MAX_INFLIGHT) was reached;
// counted and printed apart, it says nothing about the service.
const isError = (d: Done) => d.status === 0 || (d.status >= 500 && !(d.status === 503 && d.retryAfter));
const notSent = (d: Done) => d.status === -1;
const isShed = (d: Done) => d.status === 429 || (d.status === 503 && !!d.retryAfter);

function kindTable(done: Done[], seconds: number) {
  const lines: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [kind] of MIX) {
    const list = done.filter((d) => d.kind === kind);
    const l = summary(list.filter((d) => !Number.isNaN(d.lat)).map((d) => d.lat));
    const statuses = tally(list, (d) => (d.status === 0 ? `no answer (${d.error})` : d.status === -1 ? 'not sent (client cap)' : String(d.status)));
    lines.push(
      `  ${kind.padEnd(8)} ${fmt(list.length).padStart(7)} requests, ${fmt(list.length / seconds, 1).padStart(6)}/s; p50 ${fmt(l.p50).padStart(5)} ms, p95 ${fmt(l.p95).padStart(5)} ms, ` +
        `p99 ${fmt(l.p99).padStart(6)} ms, max ${fmt(l.max).padStart(6)} ms; ${showTally(statuses)}`,
    );
    out[kind] = { n: list.length, p50: l.p50, p95: l.p95, p99: l.p99, max: l.max, statuses };
  }
  return { lines, out };
}

// ---------------------------------------------------------------------------------------------

async function setup(): Promise<Env & { databaseUrl: string; namespace: string }> {
  const dir = tempDir('load-run-');
  const dbName = `load_${randomBytes(4).toString('hex')}`;
  const databaseUrl = await createDatabase(ADMIN_URL, dbName);
  const namespace = `load${randomBytes(3).toString('hex')}`;
  const env = {
    ...baseEnv(newSecret(), namespace),
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    NATS_URL,
    // A few users send every batch and read: lift the 100/min per-user limit (written in the output).
    RATE_LIMIT_USER_PER_MIN: '10000000',
    RATE_LIMIT_DEVTOOLS_PER_MIN: '100000',
  };
  // The live stream of this namespace is removed at the end (main.ts keeps streams on shutdown).
  removeBusStreamAtEnd(NATS_URL, namespace);
  await cli(['org', 'create', '--id', ORG, '--name', 'Load'], env);
  const emails: string[] = [];
  for (let u = 0; u < USERS; u++) {
    const email = `user${u}@load.example`;
    emails.push(email);
    await cli(['user', 'create', '--org', ORG, '--email', email, '--password', PASSWORD, '--role', u === 0 ? 'ORG_ADMIN' : 'OPERATOR'], env);
  }
  const svc = serviceProcess({ name: 'service', port: await freePort(), env, logFile: join(dir, 'service.log') });
  svc.onUnexpectedExit = (code, signal) => log(`!! service exited by itself (${code ?? signal}):\n${svc.logTail(20)}`);
  await svc.start();
  // Sign-ins for the run's tokens come from 127.0.0.1, away from the addresses the mix rotates over.
  const tokens: string[] = [];
  for (const email of emails) tokens.push(await login(svc.url, email, PASSWORD, '127.0.0.1'));
  return { svc, dbName, tokens, keys: [], emails, t0Records: 0, databaseUrl, namespace };
}

async function issueKeys(env: Env, rate: number) {
  const perMinute = rate * MIX.find(([k]) => k === 'partner')![1] * 60;
  const need = Math.max(2, Math.ceil(perMinute / 500));
  while (env.keys.length < need) {
    const k = await createApiKey(env.svc.url, env.tokens[0], `load ${env.keys.length}`, ['telemetry:read', 'devices:read', 'alerts:read']);
    env.keys.push(k.secret);
  }
  return need;
}

async function soak(env: Env & { databaseUrl: string }, rate: number, minutes: number, report: ReturnType<typeof createReport>) {
  const keys = await issueKeys(env, rate);
  const pid = env.svc.pid()!;
  log(`\n## T-3 soak: ${rate} requests/s for ${minutes} min (plan: 30 min; --minutes=30 or LOAD_MINUTES=30), ${keys} API keys (<= 500/min each)`);
  const gen = createGenerator(env, SEED);
  // Warm-up: 15 s at the rate, not counted.
  await gen.run(rate, 15_000, () => {});
  const rss: { t: number; rss: number }[] = [];
  const loop: number[] = [];
  await loopP99(env.svc.url);
  const start = { rss: rssOf(pid), fds: fdsOf(pid), pg: await connectionsTo(ADMIN_URL, env.dbName) };
  log(`  start: RSS ${mib(start.rss)}, open descriptors ${start.fds}, PostgreSQL connections ${start.pg}`);
  const t0 = performance.now();
  const sampler = setInterval(() => {
    rss.push({ t: (performance.now() - t0) / 60_000, rss: rssOf(pid) });
    void loopP99(env.svc.url).then((v) => loop.push(v));
  }, 10_000);
  const done: Done[] = [];
  const r = await gen.run(rate, minutes * 60_000, (d) => done.push(d));
  clearInterval(sampler);
  const seconds = (performance.now() - t0) / 1000;
  // Measured like the start: the generator's keep-alive connections still open.
  const end = { rss: rssOf(pid), fds: fdsOf(pid), pg: await connectionsTo(ADMIN_URL, env.dbName) };
  gen.close();
  rss.push({ t: (performance.now() - t0) / 60_000, rss: end.rss });

  const completed = done.filter((d) => d.status > 0);
  log(`  offered ${fmt(r.offered)} requests in ${fmt(seconds, 0)} s; completed ${fmt(completed.length)} = ${fmt(completed.length / seconds, 1)}/s`);
  const table = kindTable(done, seconds);
  for (const l of table.lines) log(l);
  const all = summary(done.filter((d) => !Number.isNaN(d.lat)).map((d) => d.lat));
  log(`  all      p50 ${fmt(all.p50)} ms, p95 ${fmt(all.p95)} ms, p99 ${fmt(all.p99)} ms, max ${fmt(all.max)} ms`);
  log(
    `  errors by status: ${showTally(
      tally(
        done.filter((d) => d.status !== 200 && d.status !== 207),
        (d) => `${d.kind} ${d.status || d.error}`,
      ),
    )}`,
  );
  const slope = slopeMiBPerMin(rss);
  log(
    `  end:   RSS ${mib(end.rss)} (slope ${fmt(slope, 2)} MiB/min over ${rss.length} samples), open descriptors ${end.fds}, PostgreSQL connections ${end.pg}`,
  );
  const lp = loop.filter((v) => !Number.isNaN(v));
  if (lp.length) log(`  event-loop delay p99 per 10 s (from /api/telemetry/metrics): median ${fmt(summary(lp).p50, 1)} ms, max ${fmt(Math.max(...lp), 1)} ms`);
  // p99 drift: first vs last fifth of the run (the plan: first vs last 5 minutes of 30).
  const edge = Math.max(60_000, Math.min(300_000, (minutes * 60_000) / 5));
  const tStart = t0;
  const tEnd = t0 + minutes * 60_000;
  const first = summary(done.filter((d) => d.due < tStart + edge && !Number.isNaN(d.lat)).map((d) => d.lat));
  const last = summary(done.filter((d) => d.due >= tEnd - edge && !Number.isNaN(d.lat)).map((d) => d.lat));
  const drift = (last.p99 - first.p99) / first.p99;
  log(`  p99 first ${fmt(edge / 60_000, 1)} min ${fmt(first.p99)} ms, last ${fmt(edge / 60_000, 1)} min ${fmt(last.p99)} ms: drift ${fmt(drift * 100, 1)}%`);

  const errors = done.filter(isError);
  report.check(
    'T-3: no 5xx (other than 503 with Retry-After) and no unanswered request',
    errors.length === 0,
    `${errors.length}: ${showTally(tally(errors, (d) => `${d.kind} ${d.status || d.error}`))}`,
  );
  const stored = done.reduce((s, d) => s + d.stored, 0);
  report.target('T-3: 0 5xx of any kind', !done.some((d) => d.status >= 500), `${done.filter((d) => d.status >= 500).length}`);
  report.target('T-3: p99 drift first vs last < 20%', Math.abs(drift) < 0.2, `${fmt(drift * 100, 1)}%`);
  report.target('T-3: RSS slope < 1 MiB/min', slope < 1, `${fmt(slope, 2)} MiB/min`);
  report.target('T-3: open descriptors stable within +-5%', Math.abs(end.fds - start.fds) <= Math.max(1, 0.05 * start.fds), `${start.fds} -> ${end.fds}`);
  report.target('T-3: PostgreSQL connections stable within +-5%', Math.abs(end.pg - start.pg) <= Math.max(1, 0.05 * start.pg), `${start.pg} -> ${end.pg}`);
  return {
    rate,
    minutes,
    seconds,
    completed: completed.length,
    kinds: table.out,
    all,
    rss: { start: start.rss, end: end.rss, slopeMiBPerMin: slope },
    fds: [start.fds, end.fds],
    pg: [start.pg, end.pg],
    drift,
    stored,
  };
}

async function saturation(env: Env, report: ReturnType<typeof createReport>) {
  log(
    `\n## T-2 saturation: from ${START_RATE} requests/s, +20% every ${STEP_MS / 1000} s until p99 > 2 s or errors, then ${PAST_KNEE} step(s) more (at most ${MAX_STEPS} steps)`,
  );
  const pid = env.svc.pid()!;
  const steps: Record<string, unknown>[] = [];
  let rate = START_RATE;
  let knee: number | undefined;
  let firstIngestP99 = NaN;
  let stored = 0;
  let past = 0;
  const overloadErrors: Done[] = [];
  await loopP99(env.svc.url);
  for (let s = 0; s < MAX_STEPS; s++) {
    await issueKeys(env, rate);
    const gen = createGenerator(env, SEED + s);
    const done: Done[] = [];
    const t0 = performance.now();
    await gen.run(rate, STEP_MS, (d) => done.push(d));
    gen.close();
    const seconds = (performance.now() - t0) / 1000;
    stored += done.reduce((x, d) => x + d.stored, 0);
    const lat = summary(done.filter((d) => !Number.isNaN(d.lat)).map((d) => d.lat));
    const ing = summary(done.filter((d) => d.kind === 'ingest' && !Number.isNaN(d.lat)).map((d) => d.lat));
    const errors = done.filter(isError).length;
    const shed = done.filter((d) => isShed(d) && d.kind !== 'login').length;
    const capped = done.filter(notSent).length;
    const loop = await loopP99(env.svc.url);
    const completed = done.filter((d) => d.status > 0).length;
    if (s === 0) firstIngestP99 = ing.p99;
    log(
      `  step ${String(s + 1).padStart(2)}: offered ${fmt(rate, 1).padStart(6)}/s, completed ${fmt(completed / seconds, 1).padStart(6)}/s ` +
        `(${fmt(done.filter((d) => d.kind === 'ingest').reduce((x, d) => x + d.stored, 0) / seconds)} records/s); p50 ${fmt(lat.p50)} ms, p99 ${fmt(lat.p99)} ms ` +
        `(ingest p99 ${fmt(ing.p99)} ms); errors ${errors}, shed ${shed}${capped ? `, not sent (generator at ${MAX_INFLIGHT} in flight) ${capped}` : ''}; ` +
        `event-loop p99 ${fmt(loop, 1)} ms; RSS ${mib(rssOf(pid))}`,
    );
    steps.push({
      rate,
      completedPerSecond: completed / seconds,
      p50: lat.p50,
      p99: lat.p99,
      ingestP99: ing.p99,
      errors,
      shed,
      loopP99: loop,
      statuses: tally(done, (d) => `${d.kind} ${d.status || d.error}`),
    });
    overloadErrors.push(...done.filter(isError));
    if (past > 0 || lat.p99 > 2000 || errors > 0 || shed > 0.01 * done.length) {
      if (past === 0) {
        log(
          `  knee passed: ${lat.p99 > 2000 ? `p99 ${fmt(lat.p99)} ms > 2 s` : ''}${errors ? ` ${errors} errors (${showTally(tally(done.filter(isError), (d) => `${d.kind} ${d.status || d.error}`))})` : ''}${shed > 0.01 * done.length ? ` shed ${shed}` : ''}`,
        );
      }
      if (shed) log(`    shed: ${showTally(tally(done.filter(isShed), (d) => `${d.kind} ${d.status}`))}`);
      if (++past > PAST_KNEE) break;
    } else knee = rate;
    rate = Math.round(rate * 1.2 * 10) / 10;
  }
  report.check(
    'T-2: overload shows as 503/429 with Retry-After, never as a 500 or an unanswered request',
    overloadErrors.length === 0,
    `${overloadErrors.length}: ${showTally(tally(overloadErrors, (d) => `${d.kind} ${d.status || d.error}`))}`,
  );
  log(`  knee (last step with p99 <= 2 s and no errors): ${knee === undefined ? 'below the first step' : `${fmt(knee, 1)} requests/s`}`);
  const kneeStep = steps.find((x) => x.rate === knee) as { loopP99: number; p99: number } | undefined;
  if (kneeStep) {
    report.target('T-2: event-loop delay p99 < 200 ms at the knee', kneeStep.loopP99 < 200, `${fmt(kneeStep.loopP99, 1)} ms`);
    report.target('T-2: p99 latency < 1 s at the knee', kneeStep.p99 < 1000, `${fmt(kneeStep.p99)} ms`);
  }
  const maxLoop = Math.max(...steps.map((x) => x.loopP99 as number));
  log(`  event-loop delay p99, worst step (overload included): ${fmt(maxLoop, 1)} ms`);
  report.check('T-2: the service is still running after the saturation steps', env.svc.running());
  // Recovery: once the load stops, the first rate again; ingestion p99 (the T-1 figure) within 10%
  // of the first step's, over sliding 10 s windows.
  await sleep(5000);
  const gen = createGenerator(env, SEED + 100);
  const done: Done[] = [];
  const t0 = performance.now();
  await gen.run(START_RATE, 30_000, (d) => {
    d.due -= t0;
    done.push(d);
  });
  gen.close();
  stored += done.reduce((x, d) => x + d.stored, 0);
  const ingest = done.filter((d) => d.kind === 'ingest');
  let back: number | undefined;
  for (let w = 0; w + 10_000 <= 30_000; w += 2500) {
    const p = summary(ingest.filter((d) => d.due >= w && d.due < w + 10_000).map((d) => d.lat)).p99;
    if (p <= firstIngestP99 * 1.1) {
      back = w + 10_000;
      break;
    }
  }
  const rec = summary(ingest.map((d) => d.lat));
  log(
    `  after the load stops (5 s pause, then ${START_RATE}/s for 30 s): ingestion p99 ${fmt(rec.p99)} ms vs ${fmt(firstIngestP99)} ms at the first step; ` +
      `within 10% by ${back === undefined ? 'never in 30 s' : `the window ending at ${back / 1000} s`}`,
  );
  report.target('T-2: ingestion p99 back within 10% of the first step in <= 30 s', back !== undefined, back === undefined ? 'no' : `${back / 1000} s`);
  return { knee, steps, stored };
}

runMain(async () => {
  const pinned = await pinSelf(1);
  const report = createReport(log);
  log(`# load with the realistic mix (${MODE}), ${new Date().toISOString()}`);
  log(`machine: ${await machine()}`);
  const env = await setup();
  log(
    `service: src/main.ts pid ${env.svc.pid()}${pinned ? ' pinned to core 0' : ''}; PostgreSQL ${ADMIN_URL.replace(/\/[^/]*$/, '')} database ${env.dbName}, Redis ${REDIS_URL}, ` +
      `NATS ${NATS_URL} namespace ${env.namespace} (shared servers, not pinned); RATE_LIMIT_USER_PER_MIN=10000000 (${USERS} users send the bearer traffic)`,
  );
  log(
    `load generator: pid ${process.pid}${pinned ? ' pinned to core 1' : ''}; mix ${MIX.map(([k, w]) => `${k} ${w * 100}%`).join(', ')}; ingestion batches of ${BATCH}; open loop, latency from the scheduled time`,
  );
  const result: Record<string, unknown> = { mode: MODE, batch: BATCH };
  let soakRate = RATE;
  if (MODE === 'saturation' || MODE === 'both') {
    const s = await saturation(env, report);
    result.saturation = s;
    if (s.knee) soakRate = Math.max(1, Math.round(s.knee / 2));
  }
  if (MODE === 'soak' || MODE === 'both') {
    const s = await soak(env, soakRate, MINUTES, report);
    result.soak = s;
  }
  // Every acknowledged record is in the table, and nothing else is.
  await sleep(1000);
  const c = new pg.Client({ connectionString: env.databaseUrl });
  await c.connect();
  const rows = (await c.query<{ n: number }>('select count(*)::int as n from telemetry where org_id = $1', [ORG])).rows[0].n;
  await c.end();
  log(`\nrows in telemetry: ${fmt(rows)}; records the API said it stored (warm-ups included): ${fmt(totalStored)}`);
  report.check('row count = records acknowledged as stored', rows === totalStored, `${fmt(rows)} rows, ${fmt(totalStored)} acknowledged`);
  await env.svc.stop();
  log(`\nmachine after: ${await machine()}`);
  log('RESULT ' + JSON.stringify(result));
  log(report.failures ? `\n${report.failures} correctness check(s) FAILED` : '\nall correctness checks passed');
  return report.failures ? 1 : 0;
});
