// Charging hub benchmark (issues 18 and 39; not a test): N simulated OCPP 1.6J chargers (ocpp-rpc
// clients, two connectors each) connected at once to one service instance. At the real cadence
// (the default) each sends a Heartbeat every 60 s and MeterValues every 60 s per charging connector:
// connector 1 charges from the start (a transaction authorised by an id token of the organisation).
// `--meter-seconds=10` keeps issue 18's cadence. The service runs in its own process; the chargers
// run here. By default both are pinned (service to core 0, chargers to core 1, where taskset
// exists); `--unpinned` runs them as on an ordinary machine, wherever the kernel puts them (issue 39).
//
// Command phase (issue 39): while all N are connected and the steady load runs, COMMANDS remote
// starts (default N, one per charger, spread evenly over `--command-seconds`, starting a third of the
// way into the run) go through the HTTP API (POST .../charge-points/{id}/commands/remote-start,
// connector 2). Each charger answers RemoteStartTransaction Accepted and then sends StartTransaction
// for connector 2, which from then on meters too. Measured: the round trip from the HTTP request to
// the charger's StartTransaction being acknowledged (target p99 under 200 ms), and the HTTP answer.
//
// Prints: messages per second sustained, CALL round trip (p50, p99, max; target p99 under 50 ms),
// the service's memory per connection (RSS after connecting and booting every charger, less RSS
// before, divided by N), its event-loop delay and CPU, the command figures, and the machine's load:
// load averages and the CPU the whole machine was busy for over the phase, less the service's and
// this generator's (the other work on a shared box). The service gets RATE_LIMIT_USER_PER_MIN=10000000:
// registering 1,000 charge points as one user would hit the per-user limit.
//
//   npm run bench:hub                                   # 200 chargers, 60 s, embedded PGlite
//   HUB_BENCH_CHARGERS=1000 npm run bench:hub           # the issue's full load
//   HUB_BENCH_SECONDS=120 npm run bench:hub -- --store=pg   # PostgreSQL (DATABASE_URL or local), Redis, NATS
//   npm run bench:hub -- --chargers=1000 --seconds=150 --unpinned --store=pg   # issue 39's run
//   options: --meter-seconds=10 (issue 18's cadence), --heartbeat-seconds=60, --commands=0 (no
//   command phase), --command-seconds=S (default half the run)
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { SignJWT } from 'jose';
import ocppRpc from 'ocpp-rpc';
import { fmt, machine, mib, pinSelf, summary } from './lib/stats.ts';
import { startChild } from './lib/child.ts';

const { RPCClient } = ocppRpc;
/** The parts of ocpp-rpc's client used here (its typings make every option required). */
interface Charger {
  connect(): Promise<unknown>;
  call(method: string, params?: unknown): Promise<any>;
  close(opts?: { force?: boolean }): Promise<unknown>;
  handle(method: string, fn: (call: { params: any }) => unknown): void;
}
const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'];
  }),
);
const STORE = (args.store ?? 'pglite') as 'pg' | 'pglite';
const N = Number(process.env.HUB_BENCH_CHARGERS ?? args.chargers ?? 200);
const SECONDS = Number(process.env.HUB_BENCH_SECONDS ?? args.seconds ?? 60);
const HEARTBEAT_MS = Number(args['heartbeat-seconds'] ?? 60) * 1000;
const METER_MS = Number(args['meter-seconds'] ?? 60) * 1000;
const PIN = args.unpinned !== 'true' && process.env.HUB_BENCH_UNPINNED !== '1';
const COMMANDS = Math.min(N, Number(args.commands ?? N));
const COMMAND_SECONDS = Number(args['command-seconds'] ?? SECONDS / 2);
const COMMAND_START_S = SECONDS / 3;
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ORG = 'bench';
const JWT_SECRET = randomBytes(32).toString('hex');
const log = (s: string) => console.log(s);

/** The machine's CPU time so far (all cores), busy and total, in ms, from /proc/stat (null elsewhere). */
function machineCpu(): { busyMs: number; totalMs: number } | null {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const tick = 10; // USER_HZ 100
    const idle = (f[3] ?? 0) + (f[4] ?? 0);
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busyMs: (total - idle) * tick, totalMs: total * tick };
  } catch {
    return null;
  }
}
/**
 * CPU time and time spent runnable but waiting for a core (the run queue), in ms, summed over the
 * threads of the processes (/proc/<pid>/task/<tid>/schedstat; zeros elsewhere). On a shared machine
 * the second is what other work costs a process's latency.
 */
function sched(pids: number[]): Map<number, { cpuMs: number; waitMs: number }> {
  const out = new Map<number, { cpuMs: number; waitMs: number }>();
  for (const pid of pids) {
    try {
      let cpuMs = 0;
      let waitMs = 0;
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
        cpuMs += run / 1e6;
        waitMs += wait / 1e6;
      }
      out.set(pid, { cpuMs, waitMs });
    } catch {
      // gone, or not Linux
    }
  }
  return out;
}
/** What the processes spent between two snapshots (a process only in the second counts whole). */
function schedDelta(a: Map<number, { cpuMs: number; waitMs: number }>, b: Map<number, { cpuMs: number; waitMs: number }>) {
  let cpuMs = 0;
  let waitMs = 0;
  for (const [pid, v] of b) {
    const w = a.get(pid) ?? { cpuMs: 0, waitMs: 0 };
    cpuMs += v.cpuMs - w.cpuMs;
    waitMs += v.waitMs - w.waitMs;
  }
  return { cpuMs, waitMs };
}
const loads = () =>
  loadavg()
    .map((l) => fmt(l, 2))
    .join(' / ');

async function pool<T>(items: T[], width: number, fn: (t: T, i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

async function main() {
  const pinned = PIN ? await pinSelf(1) : false;
  log(await machine());
  log(
    `load generator: pid ${process.pid}${pinned ? ' pinned to core 1' : ' unpinned'}; ${N} chargers (OCPP 1.6J, 2 connectors); ${SECONDS} s; ` +
      `heartbeat every ${HEARTBEAT_MS / 1000} s, meter values every ${METER_MS / 1000} s per charging connector; ` +
      `${COMMANDS} remote starts over ${fmt(COMMAND_SECONDS, 0)} s from ${fmt(COMMAND_START_S, 0)} s`,
  );
  const namespace = `bench${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    JWT_SECRET,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_USER_PER_MIN: '10000000',
    NAMESPACE: namespace,
    // The service's PostgreSQL connections carry the namespace (the read and background pools name
    // themselves after it too), so the benchmark can find their backends.
    PGAPPNAME: namespace,
    PORT: '0',
    BENCH_ORG: ORG,
    HUB_HEARTBEAT_INTERVAL_SECONDS: '60',
    HUB_OCPP_PUBLIC_URL: 'wss://hub.bench.invalid',
  };
  let dataDir: string | undefined;
  let admin: pg.Client | undefined;
  let schema: string | undefined;
  if (STORE === 'pg') {
    schema = `bench_${randomBytes(4).toString('hex')}`;
    admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    Object.assign(env, {
      DATABASE_URL,
      BENCH_SCHEMA: schema,
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    });
    log(`store: PostgreSQL schema ${schema}`);
  } else {
    dataDir = mkdtempSync(join(tmpdir(), 'bench-hub-'));
    env.DATA_DIR = dataDir;
    log(`store: embedded PGlite (${dataDir}), memory cache, in-process bus`);
  }
  const child = await startChild(env, log, { pin: PIN });
  try {
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ tenant_id: ORG, org_id: ORG, roles: ['ORG_ADMIN'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('bench')
      .setIssuedAt(now)
      .setExpirationTime(now + 4 * 3600)
      .sign(new TextEncoder().encode(JWT_SECRET));
    const api = (path: string, body: unknown) =>
      fetch(new URL(path, child.address), {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await api('/api/csms/api/hub/sites', { site_id: 'bench', name: 'Bench', capacity_kw: 10_000 });
    // Real authorisation (not free vend): the chargers' own token and the app's, for remote starts.
    for (const id_token of ['BENCH', 'APP-BENCH']) {
      const r = await api('/api/csms/api/hub/id-tokens', { id_token });
      if (r.status !== 201) throw new Error(`id token ${id_token}: ${r.status} ${await r.text()}`);
    }
    const creds: { id: string; password: string; endpoint: string }[] = [];
    const t0 = performance.now();
    await pool(
      Array.from({ length: N }, (_, i) => `CP${String(i).padStart(5, '0')}`),
      8,
      async (id) => {
        const r = await api('/api/csms/api/hub/sites/bench/charge-points', { charge_point_id: id, max_power_kw: 22, connectors: 2 });
        if (r.status !== 201) throw new Error(`register ${id}: ${r.status} ${await r.text()}`);
        const b = (await r.json()) as { password: string; ocpp_endpoint: string };
        // The endpoint as given names HUB_OCPP_PUBLIC_URL (required in production); the bench dials the child directly.
        creds.push({ id, password: b.password, endpoint: b.ocpp_endpoint.replace('wss://hub.bench.invalid', child.address.replace('http', 'ws')) });
      },
    );
    log(`registered ${N} charge points in ${fmt((performance.now() - t0) / 1000, 1)} s`);

    const before = await child.request<{ rss: number }>({ type: 'stats' }, 'stats');
    const rtts: number[] = [];
    let messages = 0;
    let failures = 0;
    let measuring = false;
    const timed = async (c: Charger, method: string, params: unknown) => {
      const s = performance.now();
      try {
        const r = await c.call(method, params);
        if (measuring) {
          rtts.push(performance.now() - s);
          messages++;
        }
        return r;
      } catch (e) {
        failures++;
        throw e;
      }
    };
    const clients: Charger[] = [];
    const txs: number[] = [];
    // Command phase: what each charger's remote start waits for, and the figures.
    const waiting = new Map<number, { sent: number; resolve: () => void }>();
    const cmdRtts: number[] = [];
    const httpRtts: number[] = [];
    const startAcks: number[] = [];
    const cmdFailures: string[] = [];
    let meterConnector: (i: number, connectorId: number, transactionId: number) => void = () => {};
    const remoteStarted = async (i: number, params: { connectorId?: number; idTag: string }) => {
      const w = waiting.get(i);
      const connectorId = params.connectorId ?? 2;
      const s = performance.now();
      try {
        const tx = await clients[i].call('StartTransaction', { connectorId, idTag: params.idTag, meterStart: 0, timestamp: new Date().toISOString() });
        const end = performance.now();
        startAcks.push(end - s);
        if (tx.idTagInfo?.status !== 'Accepted') cmdFailures.push(`StartTransaction ${i}: ${tx.idTagInfo?.status}`);
        if (w) {
          cmdRtts.push(end - w.sent);
          w.resolve();
        }
        meterConnector(i, connectorId, tx.transactionId);
      } catch (e) {
        cmdFailures.push(`StartTransaction ${i}: ${(e as Error).message}`);
        w?.resolve();
      }
    };
    const t1 = performance.now();
    await pool(creds, 50, async (c, i) => {
      const options = {
        endpoint: c.endpoint.replace('localhost', '127.0.0.1'),
        identity: c.id,
        password: c.password,
        protocols: ['ocpp1.6'],
        strictMode: true,
        reconnect: false,
        callTimeoutMs: 30_000,
        pingIntervalMs: 0,
      };
      const cli = new RPCClient(options as never) as unknown as Charger;
      cli.handle('RemoteStartTransaction', ({ params }) => {
        // Answer first; the StartTransaction leaves after the CALLRESULT (setImmediate runs after
        // ocpp-rpc has sent the answer), as a charger would once the cable is in.
        setImmediate(() => remoteStarted(i, params));
        return { status: 'Accepted' };
      });
      await cli.connect();
      clients[i] = cli;
      await timed(cli, 'BootNotification', { chargePointVendor: 'Bench', chargePointModel: 'Sim' });
      await timed(cli, 'StatusNotification', { connectorId: 1, errorCode: 'NoError', status: 'Charging' });
      const tx = await timed(cli, 'StartTransaction', { connectorId: 1, idTag: 'BENCH', meterStart: 0, timestamp: new Date().toISOString() });
      if (tx.idTagInfo?.status !== 'Accepted') throw new Error(`StartTransaction ${c.id}: ${JSON.stringify(tx)}`);
      txs[i] = tx.transactionId;
    });
    log(`connected, booted and started a transaction on ${N} chargers in ${fmt((performance.now() - t1) / 1000, 1)} s`);
    const connected = await child.request<{ rss: number; cpuMs: number }>({ type: 'stats' }, 'stats');

    // Steady load: each charger on its own phase (spread over the period), heartbeat 60 s, meter values 10 s.
    await child.request({ type: 'reset-loop-delay' }, 'reset-loop-delay');
    measuring = true;
    const timers: NodeJS.Timeout[] = [];
    let stopped = false;
    // Round trips before the command phase and while it runs, apart.
    let cmdWindow: [number, number] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
    const rttsAt: { t: number; ms: number }[] = [];
    const meterEvery = (i: number, connectorId: number, transactionId: number, firstIn: number) => {
      const cli = clients[i];
      // 11 kW for the period: Wh added per sample.
      const step = Math.round((11_000 * METER_MS) / 3_600_000);
      let wh = 0;
      const meter = () => {
        if (stopped) return;
        wh += step;
        const s = performance.now();
        void timed(cli, 'MeterValues', {
          connectorId,
          transactionId,
          meterValue: [
            {
              timestamp: new Date().toISOString(),
              sampledValue: [
                { value: String(wh), measurand: 'Energy.Active.Import.Register', unit: 'Wh' },
                { value: '11000', measurand: 'Power.Active.Import', unit: 'W' },
              ],
            },
          ],
        })
          .then(() => measuring && rttsAt.push({ t: s, ms: performance.now() - s }))
          .catch(() => {});
      };
      timers.push(
        setTimeout(() => {
          meter();
          timers.push(setInterval(meter, METER_MS));
        }, firstIn),
      );
    };
    meterConnector = (i, connectorId, transactionId) => meterEvery(i, connectorId, transactionId, METER_MS);
    const pgPids = async () =>
      admin
        ? (await admin.query<{ pid: number }>(`select pid from pg_stat_activity where application_name like $1`, [`${namespace}%`])).rows.map((r) => r.pid)
        : [];
    // `--pg-sample`: what the service's backends are running, sampled every 100 ms (a poor man's
    // profile of PostgreSQL's share; pg_stat_statements is not assumed).
    const pgSamples = new Map<string, number>();
    let pgSampleTimer: NodeJS.Timeout | undefined;
    if (admin && args['pg-sample'] === 'true') {
      let busy = false;
      pgSampleTimer = setInterval(async () => {
        if (busy) return;
        busy = true;
        try {
          const r = await admin!.query<{ app: string; q: string }>(
            `select application_name as app, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) as q from pg_stat_activity where application_name like $1 and state = 'active'`,
            [`${namespace}%`],
          );
          for (const row of r.rows) {
            const k = `${row.app.slice(namespace.length) || '(requests)'} ${row.q}`;
            pgSamples.set(k, (pgSamples.get(k) ?? 0) + 1);
          }
        } finally {
          busy = false;
        }
      }, 100);
    }
    const svc0 = sched([child.proc.pid!]);
    const gen0s = sched([process.pid]);
    const pg0 = sched(await pgPids());
    const cpu0 = machineCpu();
    const gen0 = process.cpuUsage();
    const start = performance.now();
    clients.forEach((cli, i) => {
      meterEvery(i, 1, txs[i], Math.random() * METER_MS);
      const beat = () => {
        if (stopped) return;
        const s = performance.now();
        void timed(cli, 'Heartbeat', {})
          .then(() => measuring && rttsAt.push({ t: s, ms: performance.now() - s }))
          .catch(() => {});
      };
      timers.push(
        setTimeout(() => {
          beat();
          timers.push(setInterval(beat, HEARTBEAT_MS));
        }, Math.random() * HEARTBEAT_MS),
      );
    });
    // The command phase: COMMANDS remote starts at a fixed rate (open loop: one leaves on time
    // whether or not the last has been answered), to chargers 0, 1, 2, ... in turn.
    const loadsAt: string[] = [];
    const loadTimer = setInterval(() => loadsAt.push(fmt(loadavg()[0], 2)), 30_000);
    const commandsDone: Promise<void>[] = [];
    if (COMMANDS > 0) {
      await new Promise((r) => setTimeout(r, COMMAND_START_S * 1000));
      cmdWindow = [performance.now(), Number.POSITIVE_INFINITY];
      const gap = (COMMAND_SECONDS * 1000) / COMMANDS;
      const t0c = performance.now();
      for (let k = 0; k < COMMANDS; k++) {
        const due = t0c + k * gap;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const i = k;
        commandsDone.push(
          (async () => {
            const sent = performance.now();
            const started = new Promise<void>((resolve) => waiting.set(i, { sent, resolve }));
            const r = await fetch(new URL(`/api/csms/api/hub/charge-points/${creds[i].id}/commands/remote-start`, child.address), {
              method: 'POST',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body: JSON.stringify({ connector_id: 2, id_token: 'APP-BENCH' }),
            });
            const body = (await r.json()) as { status?: string };
            httpRtts.push(performance.now() - sent);
            if (r.status !== 201 || body.status !== 'accepted') {
              cmdFailures.push(`remote-start ${creds[i].id}: ${r.status} ${JSON.stringify(body)}`);
              waiting.get(i)?.resolve();
            }
            await Promise.race([started, new Promise((res) => setTimeout(res, 30_000))]);
          })().catch((e) => {
            cmdFailures.push(`remote-start ${creds[i].id}: ${(e as Error).message}`);
          }),
        );
      }
      await Promise.all(commandsDone);
      cmdWindow[1] = performance.now();
    }
    const left = SECONDS * 1000 - (performance.now() - start);
    if (left > 0) await new Promise((r) => setTimeout(r, left));
    measuring = false;
    stopped = true;
    const elapsed = (performance.now() - start) / 1000;
    const gen = process.cpuUsage(gen0);
    const cpu1 = machineCpu();
    const svcSched = schedDelta(svc0, sched([child.proc.pid!]));
    const genSched = schedDelta(gen0s, sched([process.pid]));
    const pg1Pids = await pgPids();
    const pgSched = schedDelta(pg0, sched(pg1Pids));
    clearInterval(loadTimer);
    if (pgSampleTimer) clearInterval(pgSampleTimer);
    for (const t of timers) clearTimeout(t);
    const stats = await child.request<{ rss: number; peakRss: number; cpuMs: number; loopDelayMs: { p50: number; p99: number; max: number } }>(
      { type: 'stats' },
      'stats',
    );
    const s = summary(rtts);
    const beforeCmd = summary(rttsAt.filter((r) => r.t < cmdWindow[0]).map((r) => r.ms));
    const during = summary(rttsAt.filter((r) => r.t >= cmdWindow[0] && r.t <= cmdWindow[1]).map((r) => r.ms));
    const offered = N / (METER_MS / 1000) + N / (HEARTBEAT_MS / 1000);
    log('');
    log(`steady phase: ${fmt(elapsed, 1)} s, ${fmt(messages)} CALLs answered, ${failures} failed`);
    log(
      `  messages/s sustained: ${fmt(messages / elapsed, 1)} (offered ${fmt(offered, 1)}/s by connector 1 and heartbeats: ${fmt((messages / elapsed / offered) * 100, 1)}%; remote-started connectors meter too)`,
    );
    log(`  CALL round trip: p50 ${fmt(s.p50, 1)} ms, p99 ${fmt(s.p99, 1)} ms, max ${fmt(s.max, 1)} ms (target p99 < 50 ms: ${s.p99 < 50 ? 'met' : 'NOT met'})`);
    const line = (x: ReturnType<typeof summary>) => `${fmt(x.n)} CALLs, p50 ${fmt(x.p50, 1)} ms, p99 ${fmt(x.p99, 1)} ms, max ${fmt(x.max, 1)} ms`;
    if (COMMANDS > 0) {
      log(`    before the command phase: ${line(beforeCmd)}`);
      log(`    while the remote starts ran: ${line(during)}`);
    }
    log(
      `  service RSS: ${mib(before.rss)} before connecting, ${mib(connected.rss)} with ${N} connections: ${fmt((connected.rss - before.rss) / N / 1024, 1)} KiB per connection; peak ${mib(stats.peakRss)}`,
    );
    log(`  service event-loop delay: p50 ${fmt(stats.loopDelayMs.p50, 1)} ms, p99 ${fmt(stats.loopDelayMs.p99, 1)} ms`);
    // CPU per message is what the load costs whatever else the machine runs (round trips are not).
    const cpu = stats.cpuMs - connected.cpuMs;
    log(
      `  service process CPU (all threads): ${fmt(cpu / 1000, 1)} s over the phase (${fmt((cpu / (elapsed * 1000)) * 100, 1)}% of one core), ${fmt(cpu / Math.max(1, messages), 2)} ms per message`,
    );
    if (COMMANDS > 0) {
      const c = summary(cmdRtts);
      const h = summary(httpRtts);
      const a = summary(startAcks);
      log('');
      log(
        `command phase: ${COMMANDS} remote starts over ${fmt((cmdWindow[1] - cmdWindow[0]) / 1000, 1)} s with ${N} connected, ${cmdRtts.length} StartTransactions acknowledged, ${cmdFailures.length} failures`,
      );
      for (const f of cmdFailures.slice(0, 5)) log(`  failure: ${f}`);
      log(
        `  HTTP request to StartTransaction acknowledged: p50 ${fmt(c.p50, 1)} ms, p99 ${fmt(c.p99, 1)} ms, max ${fmt(c.max, 1)} ms (target p99 < 200 ms: ${c.p99 < 200 ? 'met' : 'NOT met'})`,
      );
      log(`  HTTP answer (201, the charger's Accepted stored): p50 ${fmt(h.p50, 1)} ms, p99 ${fmt(h.p99, 1)} ms, max ${fmt(h.max, 1)} ms`);
      log(`  StartTransaction CALL alone: p50 ${fmt(a.p50, 1)} ms, p99 ${fmt(a.p99, 1)} ms, max ${fmt(a.max, 1)} ms`);
      // What the hub stored of them: a command left `pending` would be one the hub lost track of.
      const stored = await child.request<{ rows: { status: string; n: number }[] }>(
        { type: 'sql', sql: `select status, count(*)::int as n from hub_commands group by status order by status` },
        'sql',
      );
      log(`  commands stored: ${stored.rows.map((r) => `${r.status} ${r.n}`).join(', ') || 'none'}`);
    }
    log('');
    const genMs = (gen.user + gen.system) / 1000;
    if (cpu0 && cpu1) {
      const busy = cpu1.busyMs - cpu0.busyMs;
      const cores = cpus().length;
      const other = busy - cpu - genMs;
      log(
        `machine over the phase: ${fmt(busy / (elapsed * 1000), 2)} of ${cores} cores busy: the service ${fmt(cpu / (elapsed * 1000), 2)}, ` +
          `this load generator ${fmt(genMs / (elapsed * 1000), 2)}, everything else (stores, other work) ${fmt(Math.max(0, other) / (elapsed * 1000), 2)}`,
      );
    }
    if (svcSched.cpuMs > 0) {
      const w = (x: { cpuMs: number; waitMs: number }, who: string) =>
        `${who} ran ${fmt(x.cpuMs / 1000, 1)} s and waited ${fmt(x.waitMs / 1000, 1)} s for a core (${fmt((x.waitMs / Math.max(1, x.cpuMs)) * 100, 0)}% of its run time)`;
      log(`run queue over the phase (all threads): ${w(svcSched, 'the service')}; ${w(genSched, 'this load generator')}`);
      if (admin) log(`  ${w(pgSched, `the service's PostgreSQL backends (${pg1Pids.length} at the end)`)}`);
    }
    if (pgSamples.size) {
      const total = [...pgSamples.values()].reduce((a, b) => a + b, 0);
      log(`PostgreSQL active statements of the service, ${total} samples at 100 ms (top 8):`);
      for (const [k, n] of [...pgSamples].sort((a, b) => b[1] - a[1]).slice(0, 8)) log(`  ${fmt((n / total) * 100, 1)}%  ${k}`);
    }
    log(`machine load average (1 min) every 30 s: ${loadsAt.join(', ')}; at the end ${loads()} on ${cpus().length} cores`);
    await Promise.allSettled(clients.map((c) => c.close({ force: true })));
  } finally {
    await child.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (admin && schema) {
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    }
  }
}

await main();
