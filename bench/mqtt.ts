// Device MQTT benchmark (issue 40; not a test). A Mosquitto of its own (ops/mosquitto.sh on
// --port, a fresh data directory), the service in a child process pinned to core 0 (bench/lib/child.ts),
// and this process (the devices) on core 1:
//   1. N device clients connect (mqtt.js, MQTT 5, each its own connection and client id), in sites
//      of --per-site devices, one device credential per site listing its devices: each device
//      publishes on its own device topic, as decision 0377 has it.
//   2. Steady: every device publishes one reading every --interval s (spread over the interval) for
//      --seconds; publish-to-stored latency is the time from the publish to the service's answer on
//      the results topic, which it sends after the batch committed (a watcher as the dynamic
//      security administrator reads every answer; MQTT 5 correlation data pairs them).
//   3. Saturation: --sat-clients devices publish --sat-messages messages of --sat-batch records back
//      to back (QoS 1): records/s stored from the first publish to the last answer; then the same
//      records (timestamps half a second later) over HTTP, POST /api/telemetry/ingest with the same device
//      credentials from --sat-clients concurrent clients.
//   4. Open loop at --rate-fraction (0.7) of the MQTT saturation rate for --open-seconds: latency p50/p99,
//      beside the CPU of the load generator (this process: all N clients on one core) and of the
//      service over the phase, as % of a core; above 90 % the generator, not the service, set the latencies.
// Memory: the broker's RSS (ps) and the service's RSS before and after the clients connect,
// divided by N.
//
//   npm run bench:mqtt                                   # 10,000 devices, PostgreSQL, Redis, NATS
//   npm run bench:mqtt -- --devices=1000 --seconds=60    # what a 2-core box holds
//   options: --devices=10000 --per-site=10 --interval=10 --seconds=60 --sat-messages=3000 --sat-batch=1
//            --sat-clients=16 --rate-fraction=0.7 --open-seconds=20 --port=1889 --store=pg|pglite --connections=1
//            --in-flight=1000 --open-ts=now|late --open-rate=<messages/s>
import { execFileSync, spawnSync } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SignJWT } from 'jose';
import mqtt, { type MqttClient } from 'mqtt';
import { fmt, machine, mib, pinSelf, summary } from './lib/stats.ts';
import { startChild } from './lib/child.ts';
import { vacuumHeldBack } from './lib/pg-cpu.ts';

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'];
  }),
);
const N = Number(args.devices ?? 10_000);
const PER_SITE = Number(args['per-site'] ?? 10);
const INTERVAL_S = Number(args.interval ?? 10);
const SECONDS = Number(args.seconds ?? 60);
const SAT_MESSAGES = Number(args['sat-messages'] ?? 3000);
const SAT_BATCH = Number(args['sat-batch'] ?? 1);
const SAT_CLIENTS = Number(args['sat-clients'] ?? 16);
const RATE_FRACTION = Number(args['rate-fraction'] ?? 0.7);
const OPEN_SECONDS = Number(args['open-seconds'] ?? 20);
/** The service's garbage collections so far (bench/lib/service-child.ts answers them with its CPU time). */
interface ServiceGc {
  full: number;
  fullPauseMs: number;
  fullMaxPauseMs: number;
  young: number;
  youngPausesMs: number[];
}

/** The open loop's rate in messages/s when given (else --rate-fraction of the MQTT saturation). */
const OPEN_RATE = Number(args['open-rate'] ?? 0);
/** The open loop's readings: `now` (current, the default) or `late` (two days old: days already sealed into rollups). */
const OPEN_LATE = (args['open-ts'] ?? 'now') === 'late';
const PORT = String(args.port ?? 1889);
/** MQTT_CONSUMER_CONNECTIONS of the service (decision 0443). */
const CONNECTIONS = String(args.connections ?? 1);
/** MQTT_CONSUMER_IN_FLIGHT of the service (decision 0480): messages a consumer connection works on at once. */
const IN_FLIGHT = String(args['in-flight'] ?? 1000);
const STORE = (args.store ?? 'pg') as 'pg' | 'pglite';
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ADMIN = 'eps-admin';
const ADMIN_PASSWORD = 'eps-dev-admin-password';
const ORG = 'bench';
const JWT_SECRET = randomBytes(32).toString('hex');
const ROOT = `b${randomBytes(3).toString('hex')}`;
const URL_ = `mqtt://127.0.0.1:${PORT}`;
const SITES = Math.ceil(N / PER_SITE);
const log = (s: string) => console.log(s);
const results: Record<string, unknown> = { devices: N, perSite: PER_SITE, sites: SITES, intervalS: INTERVAL_S, store: STORE };

async function pool<T>(items: T[], width: number, fn: (t: T, i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

const rssOf = (pid: number) => Number(spawnSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim()) * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const site = (k: number) => `s${Math.floor(k / PER_SITE)}`;
const device = (k: number) => `${site(k)}.d${k % PER_SITE}`;
const topicOf = (k: number) => `${ROOT}/${ORG}/${site(k)}/devices/${device(k)}/telemetry`;

async function main() {
  const pinned = await pinSelf(1);
  log(`machine: ${await machine()}`);
  log(`uptime: ${spawnSync('uptime', { encoding: 'utf8' }).stdout.trim()}`);
  log(
    `load generator: pid ${process.pid}${pinned ? ' pinned to core 1' : ''}; ${fmt(N)} devices in ${fmt(SITES)} sites; one reading per ${INTERVAL_S} s; topic root ${ROOT}; ${CONNECTIONS} consumer connection(s), ${IN_FLIGHT} messages in flight each`,
  );

  // The broker: ops/mosquitto.sh on a port and directory of its own. A broker still on the port (a
  // run before this one still stopping its 10,000 clients) would leave no pid file: say so instead.
  const taken = await new Promise<boolean>((resolve) => {
    const s = net.connect(Number(PORT), '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true))).once('error', () => resolve(false));
  });
  if (taken) throw new Error(`port ${PORT} is in use (another bench:mqtt still stopping?): wait for it, or pass --port=<free port>`);
  const mqttDir = mkdtempSync(join(tmpdir(), 'bench-mosquitto-'));
  const script = fileURLToPath(new URL('../ops/mosquitto.sh', import.meta.url));
  const brokerEnv = { ...process.env, MQTT_PORT: PORT, MQTT_DIR: mqttDir, MQTT_ADMIN_PASSWORD: ADMIN_PASSWORD };
  execFileSync(script, { env: brokerEnv, stdio: 'inherit' });
  const brokerPid = Number(readFileSync(join(mqttDir, 'mosquitto.pid'), 'utf8').trim());
  const brokerLimit = readFileSync(`/proc/${brokerPid}/limits`, 'utf8').match(/Max open files\s+(\d+)/)?.[1];
  log(
    `broker: mosquitto pid ${brokerPid} on ${URL_}, open files limit ${brokerLimit}; ${spawnSync('mosquitto', ['-h'], { encoding: 'utf8' }).stdout.split('\n')[0]}`,
  );

  const env: Record<string, string> = {
    NODE_ENV: 'production',
    HUB_OCPP_PUBLIC_URL: 'wss://hub.bench.invalid',
    JWT_SECRET,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_USER_PER_MIN: '10000000',
    NAMESPACE: `bench${randomBytes(4).toString('hex')}`,
    PORT: '0',
    BENCH_ORG: ORG,
    MQTT_URL: URL_,
    MQTT_ADMIN_PASSWORD: ADMIN_PASSWORD,
    MQTT_TOPIC_ROOT: ROOT,
    MQTT_CLIENT_ID: `bench-${ROOT}`,
    MQTT_PUBLISHER_PER_MIN: '10000000',
    MQTT_CONSUMER_CONNECTIONS: CONNECTIONS,
    MQTT_CONSUMER_IN_FLIGHT: IN_FLIGHT,
  };
  let admin: pg.Client | undefined;
  let schema: string | undefined;
  let dataDir: string | undefined;
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
    log(`store: PostgreSQL schema ${schema} (server not pinned: it shares both cores), Redis, NATS`);
    const held = await vacuumHeldBack(admin);
    if (held) log(`WARNING: ${held}`);
  } else {
    dataDir = mkdtempSync(join(tmpdir(), 'bench-mqtt-pglite-'));
    env.DATA_DIR = dataDir;
    log(`store: embedded PGlite (${dataDir}), memory cache, in-process bus`);
  }
  const clients: MqttClient[] = [];
  let watcher: MqttClient | undefined;
  let child: Awaited<ReturnType<typeof startChild>> | undefined;
  try {
    child = await startChild(env, log);
    const address = child.address;
    const svc = child;
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ tenant_id: ORG, org_id: ORG, roles: ['ORG_ADMIN'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('bench')
      .setIssuedAt(now)
      .setExpirationTime(now + 4 * 3600)
      .sign(new TextEncoder().encode(JWT_SECRET));
    const api = async (path: string, body: unknown, bearer = token) => {
      const r = await fetch(new URL(path, address), {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };

    // ---- Sites and credentials ----
    const creds: { id: string; secret: string }[] = new Array(SITES);
    let t0 = performance.now();
    await pool(
      Array.from({ length: SITES }, (_, i) => i),
      8,
      async (i) => {
        const a = await api('/api/twin/registry/assets', { asset_id: `s${i}.d0`, site_id: `s${i}`, asset_class: 'battery', name: `s${i}.d0` });
        if (a.status !== 201) throw new Error(`asset s${i}: ${a.status} ${JSON.stringify(a.body)}`);
        const devices = Array.from({ length: Math.min(PER_SITE, N - i * PER_SITE) }, (_, j) => `s${i}.d${j}`);
        const c = await api('/api/hardware/device-credentials', { name: `site ${i}`, site_id: `s${i}`, scopes: ['telemetry:write'], device_ids: devices });
        if (c.status !== 201) throw new Error(`credential s${i}: ${c.status} ${JSON.stringify(c.body)}`);
        creds[i] = c.body as { id: string; secret: string };
      },
    );
    log(`setup: ${fmt(SITES)} sites and device credentials (broker clients) in ${fmt((performance.now() - t0) / 1000, 1)} s`);

    // ---- Connect N devices ----
    await sleep(1000);
    const before = { broker: rssOf(brokerPid), service: (await svc.request<{ rss: number }>({ type: 'stats' }, 'stats')).rss };
    t0 = performance.now();
    let failed = 0;
    await pool(
      Array.from({ length: N }, (_, k) => k),
      100,
      async (k) => {
        const cred = creds[Math.floor(k / PER_SITE)];
        try {
          clients[k] = await mqtt.connectAsync(URL_, {
            username: cred.id,
            password: cred.secret,
            clientId: `${ROOT}-d${k}`,
            protocolVersion: 5,
            reconnectPeriod: 0,
            keepalive: 60,
            connectTimeout: 30_000,
          });
        } catch (e) {
          failed++;
          if (failed <= 3) log(`connect ${k}: ${(e as Error).message}`);
        }
      },
    );
    const connectS = (performance.now() - t0) / 1000;
    await sleep(2000);
    const after = { broker: rssOf(brokerPid), service: (await svc.request<{ rss: number }>({ type: 'stats' }, 'stats')).rss };
    const connected = clients.filter((c) => c?.connected).length;
    const perDevice = { broker: (after.broker - before.broker) / connected, service: (after.service - before.service) / connected };
    log(
      `connect: ${fmt(connected)} of ${fmt(N)} devices connected in ${fmt(connectS, 1)} s (${failed} failed); broker RSS ${mib(before.broker)} -> ${mib(after.broker)} ` +
        `= ${fmt(perDevice.broker / 1024, 1)} KiB per device; service RSS ${mib(before.service)} -> ${mib(after.service)} = ${fmt(perDevice.service / 1024, 2)} KiB per device; ` +
        `load generator RSS ${mib(process.memoryUsage.rss())}`,
    );
    results.connect = { connected, failed, seconds: connectS, rss: { before, after }, bytesPerDevice: perDevice };

    // ---- The watcher: every answer, paired with its publish by correlation data ----
    const sentAt = new Map<string, number>();
    let latencies: number[] = [];
    let stored = 0;
    let answered = 0;
    watcher = await mqtt.connectAsync(URL_, { username: ADMIN, password: ADMIN_PASSWORD, clientId: `${ROOT}-watcher`, protocolVersion: 5, reconnectPeriod: 0 });
    // Answers to messages answered before (a redelivery) or to no message of the current phase.
    const seen = new Set<string>();
    const odd = { again: 0, unpaired: 0 };
    watcher.on('message', (_t, payload, packet) => {
      const key = packet.properties?.correlationData?.toString();
      if (key !== undefined && seen.has(key)) {
        odd.again++;
        return;
      }
      if (key !== undefined) seen.add(key);
      const t = key === undefined ? undefined : sentAt.get(key);
      if (t === undefined) {
        odd.unpaired++;
        return;
      }
      latencies.push(performance.now() - t);
      sentAt.delete(key!);
      answered++;
      const m = /"stored":(\d+)/.exec(payload.toString('utf8'));
      if (m) stored += Number(m[1]);
    });
    await watcher.subscribeAsync(`${ROOT}/+/+/results/#`, { qos: 0 });
    const reset = () => {
      latencies = [];
      stored = 0;
      answered = 0;
      sentAt.clear();
    };
    const drain = async (expected: number, maxMs: number) => {
      const end = performance.now() + maxMs;
      while (answered < expected && performance.now() < end) await sleep(50);
    };
    let seq = 0;
    const reading = (k: number, tsMs: number) => ({ device_id: device(k), ts: new Date(tsMs).toISOString(), power_kw: 1.5, soc_pct: (k % 100) + 0.5 });
    const publish = (k: number, records: unknown, at = performance.now()) => {
      const key = `${k}:${seq++}`;
      sentAt.set(key, at);
      return clients[k].publishAsync(topicOf(k), JSON.stringify(records), { qos: 1, properties: { correlationData: Buffer.from(key) } });
    };

    /** The consumer's telemetry transactions so far (eps_device_mqtt_telemetry_transactions): messages that arrived together share one. */
    const transactions = async () => {
      const r = await fetch(new URL('/api/telemetry/metrics', address));
      const m = /^eps_device_mqtt_telemetry_transactions(?:\{[^}]*\})? ([0-9.e+-]+)$/m.exec(await r.text());
      return m ? Number(m[1]) : NaN;
    };
    const together = (messages: number, tx: number) => `${fmt(tx)} transactions (${fmt(messages / tx, 1)} messages each)`;
    /** The service's part of each telemetry message's wait (eps_device_mqtt_message_duration_seconds): cumulative bucket counts by upper bound (s). */
    const inService = async () => {
      const text = await (await fetch(new URL('/api/telemetry/metrics', address))).text();
      const buckets: [number, number][] = [];
      for (const m of text.matchAll(/^eps_device_mqtt_message_duration_seconds_bucket\{([^}]*)\} ([0-9.e+-]+)$/gm)) {
        if (!m[1].includes('kind="telemetry"')) continue;
        const le = /le="([^"]+)"/.exec(m[1])?.[1];
        buckets.push([le === '+Inf' ? Infinity : Number(le), Number(m[2])]);
      }
      return buckets.sort((a, b) => a[0] - b[0]);
    };
    /** The energy refresh's runs so far (eps_job_run_duration_seconds, kind energy.refresh): how many, and their seconds in all. */
    const refreshRuns = async () => {
      const text = await (await fetch(new URL('/api/telemetry/metrics', address))).text();
      const of = (part: string, outcome = 'done') =>
        Number(new RegExp(`^eps_job_run_duration_seconds_${part}\\{kind="energy.refresh",outcome="${outcome}"\\} ([0-9.e+-]+)$`, 'm').exec(text)?.[1] ?? 0);
      return { runs: of('count'), seconds: of('sum'), failed: of('count', 'failed') };
    };
    const refreshPart = (before: { runs: number; seconds: number; failed: number }, after: { runs: number; seconds: number; failed: number }) => {
      const runs = after.runs - before.runs;
      const seconds = after.seconds - before.seconds;
      const failed = after.failed - before.failed;
      return {
        runs,
        seconds,
        text: `energy refresh ${runs} run(s), ${fmt(seconds, 1)} s in all${runs ? ` (${fmt(seconds / runs, 1)} s each)` : ''}${failed ? `, ${failed} failed` : ''}`,
      };
    };
    /** Quantiles of the service's part over a phase, from the histogram's bucket counts (linear within a bucket). */
    const servicePart = (before: [number, number][], after: [number, number][]) => {
      const counts = after.map(([le, n], i) => [le, n - (before[i]?.[1] ?? 0)] as [number, number]);
      const total = counts.at(-1)?.[1] ?? 0;
      const q = (f: number) => {
        const want = f * total;
        let lo = 0;
        let below = 0;
        for (const [le, n] of counts) {
          if (n >= want) return le === Infinity ? lo : lo + ((le - lo) * (want - below)) / Math.max(1, n - below);
          lo = le;
          below = n;
        }
        return lo;
      };
      return total
        ? `in the service (arrival at the consumer to answer, from its histogram) p50 ${fmt(q(0.5) * 1000, 1)} ms, p99 ${fmt(q(0.99) * 1000, 1)} ms`
        : 'in the service: no histogram';
    };

    // ---- Steady: one reading per device per interval ----
    reset();
    let tx0 = await transactions();
    let h0 = await inService();
    await svc.request({ type: 'cpu' }, 'cpu');
    const cpu0 = (await svc.request<{ cpuMs: number }>({ type: 'cpu' }, 'cpu')).cpuMs;
    let sent = 0;
    let publishErrors = 0;
    t0 = performance.now();
    const live = clients.map((c, k) => (c?.connected ? k : -1)).filter((k) => k >= 0);
    const steadyStart = t0;
    let steadyOver = false;
    for (const [i, k] of live.entries()) {
      const offset = (i / live.length) * INTERVAL_S * 1000;
      setTimeout(function tick() {
        if (steadyOver || performance.now() - steadyStart >= SECONDS * 1000) return;
        sent++;
        publish(k, reading(k, Date.now())).catch(() => publishErrors++);
        setTimeout(tick, INTERVAL_S * 1000);
      }, offset);
    }
    await sleep(SECONDS * 1000);
    steadyOver = true;
    await drain(sent, 60_000);
    const steadyS = (performance.now() - t0) / 1000;
    const cpu1 = (await svc.request<{ cpuMs: number }>({ type: 'cpu' }, 'cpu')).cpuMs;
    const sl = summary(latencies);
    log(
      `steady: ${fmt(sent)} readings sent in ${SECONDS} s (${fmt(sent / SECONDS)} messages/s offered), ${fmt(answered)} answered, ${fmt(stored)} stored, ` +
        `${publishErrors} publish errors; publish-to-stored p50 ${fmt(sl.p50, 1)} ms, p99 ${fmt(sl.p99, 1)} ms, max ${fmt(sl.max, 1)} ms; ` +
        `all answered after ${fmt(steadyS, 1)} s; ${servicePart(h0, await inService())}; ${together(answered, (await transactions()) - tx0)}; service CPU ${fmt(((cpu1 - cpu0) / 1000 / steadyS) * 100)} % of a core; ${await machine()}`,
    );
    results.steady = { sent, answered, stored, publishErrors, offeredPerSecond: sent / SECONDS, latencyMs: sl, drainedAfterS: steadyS };

    // ---- Saturation over MQTT ----
    const satDevices = live.slice(0, SAT_CLIENTS);
    const perClient = Math.ceil(SAT_MESSAGES / satDevices.length);
    const base = Date.now() - 3600_000;
    const batchOf = (k: number, m: number, shift: number) => Array.from({ length: SAT_BATCH }, (_, r) => reading(k, base + shift + (m * SAT_BATCH + r) * 1000));
    reset();
    tx0 = await transactions();
    t0 = performance.now();
    await Promise.all(
      satDevices.map(async (k) => {
        // At most 20 unacknowledged publishes per device (the broker acknowledges on receipt).
        const inflight = new Set<Promise<unknown>>();
        for (let m = 0; m < perClient; m++) {
          const p = publish(k, batchOf(k, m, 0)).finally(() => inflight.delete(p));
          inflight.add(p);
          if (inflight.size >= 20) await Promise.race(inflight);
        }
        await Promise.all(inflight);
      }),
    );
    const satSent = perClient * satDevices.length;
    await drain(satSent, 600_000);
    const mqttS = (performance.now() - t0) / 1000;
    const mqttStored = stored;
    const mqttRate = mqttStored / mqttS;
    const ml = summary(latencies);
    log(
      `saturation MQTT: ${fmt(satSent)} messages of ${SAT_BATCH} record(s) from ${satDevices.length} devices; ${fmt(answered)} answered, ${fmt(mqttStored)} stored in ${fmt(mqttS, 1)} s = ` +
        `${fmt(mqttRate)} records/s (${fmt(answered / mqttS)} messages/s) in ${together(answered, (await transactions()) - tx0)}; publish-to-stored p50 ${fmt(ml.p50)} ms, p99 ${fmt(ml.p99)} ms (queued behind the flood)`,
    );

    // ---- The same records over HTTP ----
    const agent = new http.Agent({ keepAlive: true, maxSockets: satDevices.length });
    const post = (bearer: string, body: string) =>
      new Promise<{ status: number; stored: number }>((resolve, reject) => {
        const req = http.request(
          new URL('/api/telemetry/ingest', address),
          {
            method: 'POST',
            agent,
            headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () => {
              const m = /"stored":(\d+)/.exec(Buffer.concat(chunks).toString());
              resolve({ status: res.statusCode ?? 0, stored: m ? Number(m[1]) : 0 });
            });
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    let httpStored = 0;
    const statuses: Record<number, number> = {};
    const httpLat: number[] = [];
    t0 = performance.now();
    await Promise.all(
      satDevices.map(async (k) => {
        const cred = creds[Math.floor(k / PER_SITE)];
        for (let m = 0; m < perClient; m++) {
          const s = performance.now();
          // Timestamps half a second after the MQTT phase's (which are whole seconds apart): new
          // readings, not duplicates, in the same hours, so both phases take the same path. (Shifted
          // by a day, as until decision 0498, they fell in a day already sealed into rollups, and
          // every HTTP batch paid the late-rollup statement the MQTT phase did not.)
          const r = await post(cred.secret, JSON.stringify(batchOf(k, m, 500)));
          httpLat.push(performance.now() - s);
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
          httpStored += r.stored;
        }
      }),
    );
    const httpS = (performance.now() - t0) / 1000;
    agent.destroy();
    const httpRate = httpStored / httpS;
    const hl = summary(httpLat);
    log(
      `saturation HTTP: the same ${fmt(satSent)} batches from ${satDevices.length} clients (device credentials); ${fmt(httpStored)} stored in ${fmt(httpS, 1)} s = ` +
        `${fmt(httpRate)} records/s; request p50 ${fmt(hl.p50, 1)} ms, p99 ${fmt(hl.p99, 1)} ms; statuses ${JSON.stringify(statuses)}`,
    );
    log(`ratio MQTT / HTTP at saturation: ${fmt(mqttRate / httpRate, 2)}`);
    results.saturation = {
      batch: SAT_BATCH,
      clients: satDevices.length,
      messages: satSent,
      mqtt: { stored: mqttStored, seconds: mqttS, recordsPerSecond: mqttRate, latencyMs: ml },
      http: { stored: httpStored, seconds: httpS, recordsPerSecond: httpRate, latencyMs: hl, statuses },
      ratio: mqttRate / httpRate,
    };

    // ---- Open loop at a fraction of the MQTT saturation rate ----
    // --open-rate fixes the rate (messages/s), so runs of two versions compare at one load.
    const rate = OPEN_RATE > 0 ? OPEN_RATE : (mqttRate / SAT_BATCH) * RATE_FRACTION;
    const total = Math.max(1, Math.round(rate * OPEN_SECONDS));
    reset();
    tx0 = await transactions();
    h0 = await inService();
    const refresh0 = await refreshRuns();
    // CPU of both sides over the phase (process.cpuUsage, as % of one core): the generator's 1,000
    // clients share one pinned core, and above 90 % of it the latencies measure the generator.
    const svcCpu0 = (await svc.request<{ cpuMs: number }>({ type: 'cpu' }, 'cpu')).cpuMs;
    // The service's event-loop delay and garbage collections over the phase: what of its own part of
    // the latency is the loop being busy rather than waiting on the store.
    const gc0 = (await svc.request<{ gc: ServiceGc }>({ type: 'cpu' }, 'cpu')).gc;
    await svc.request({ type: 'reset-loop-delay' }, 'reset-loop-delay');
    const genCpu0 = process.cpuUsage();
    t0 = performance.now();
    let oe = 0;
    for (let i = 0; i < total; i++) {
      const due = t0 + (i / rate) * 1000;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const k = live[i % live.length];
      // Current readings (the devices' real case), each message's records a millisecond apart and
      // before now; --open-ts=late sends them two days old instead, into days already sealed, which
      // takes the ingest statement's late-rollup path (decision 0498).
      const records = OPEN_LATE ? batchOf(k, i, -2 * 86_400_000) : Array.from({ length: SAT_BATCH }, (_, r) => reading(k, Date.now() - (SAT_BATCH - 1 - r)));
      publish(k, records, due).catch(() => oe++);
    }
    // The sending part (the schedule's length when the generator keeps up), then the rest of the phase.
    const sendMs = performance.now() - t0;
    const genCpuSend = process.cpuUsage(genCpu0);
    await drain(total, 120_000);
    const phaseMs = performance.now() - t0;
    const genCpuPhase = process.cpuUsage(genCpu0);
    const svcCpu1 = (await svc.request<{ cpuMs: number }>({ type: 'cpu' }, 'cpu')).cpuMs;
    const loop = (await svc.request<{ loopDelayMs: { p50: number; p99: number; max: number } }>({ type: 'stats' }, 'stats')).loopDelayMs;
    const gc1 = (await svc.request<{ gc: ServiceGc }>({ type: 'cpu' }, 'cpu')).gc;
    const young = gc1.youngPausesMs.slice(gc0.youngPausesMs.length);
    const gcPhase = {
      full: gc1.full - gc0.full,
      fullPauseMs: gc1.fullPauseMs - gc0.fullPauseMs,
      fullMaxPauseMs: gc1.fullMaxPauseMs,
      young: young.length,
      youngPauseMs: young.reduce((a, b) => a + b, 0),
      youngMaxPauseMs: Math.max(0, ...young),
    };
    const pctOfCore = (cpuMs: number, ms: number) => (cpuMs / ms) * 100;
    const cpuMsOf = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
    const gen = { sending: pctOfCore(cpuMsOf(genCpuSend), sendMs), phase: pctOfCore(cpuMsOf(genCpuPhase), phaseMs) };
    const service = pctOfCore(svcCpu1 - svcCpu0, phaseMs);
    const generatorBound = Math.max(gen.sending, gen.phase) > 90;
    const ol = summary(latencies);
    const refresh = refreshPart(refresh0, await refreshRuns());
    // How far the ledger lags at the phase's end: the pending spans not yet folded in (PostgreSQL only).
    const backlog = admin
      ? (
          await admin.query<{ rows: number; assets: number; oldest_s: number | null }>(
            `select count(*)::int as rows, count(distinct asset_id)::int as assets, extract(epoch from now() - min(to_ts))::float8 as oldest_s from ${schema}.energy_pending`,
          )
        ).rows[0]!
      : undefined;
    const backlogText = backlog
      ? `; energy pending at the end: ${fmt(backlog.rows)} rows of ${fmt(backlog.assets)} assets${backlog.oldest_s === null ? '' : `, the oldest ending ${fmt(backlog.oldest_s, 1)} s ago`}`
      : '';
    log(
      `open loop at ${OPEN_RATE > 0 ? 'a fixed rate' : `${Math.round(RATE_FRACTION * 100)} % of MQTT saturation`} (${fmt(rate, 1)} messages/s, ${fmt(rate * SAT_BATCH)} records/s) for ${OPEN_SECONDS} s, ${OPEN_LATE ? 'readings two days old (late: sealed days)' : 'current readings'}, over ${fmt(live.length)} devices: ` +
        `${fmt(answered)} of ${fmt(total)} answered, ${fmt(stored)} stored; publish-to-stored p50 ${fmt(ol.p50, 1)} ms, p99 ${fmt(ol.p99, 1)} ms, max ${fmt(ol.max, 1)} ms; ${servicePart(h0, await inService())}; ${together(answered, (await transactions()) - tx0)}; ${refresh.text}${backlogText}; ${oe} errors; ` +
        `sending took ${fmt(sendMs / 1000, 1)} s (${OPEN_SECONDS} s planned), all answered after ${fmt(phaseMs / 1000, 1)} s; ` +
        `CPU: load generator ${fmt(gen.sending)} % of its core while sending, ${fmt(gen.phase)} % over the phase${pinned ? ' (pinned to core 1)' : ' (not pinned)'}; service ${fmt(service)} % of a core over the phase; ` +
        `the service's event-loop delay p50 ${fmt(loop.p50, 1)} ms, p99 ${fmt(loop.p99, 1)} ms, max ${fmt(loop.max, 1)} ms; its garbage collections: ${gcPhase.full} full (${fmt(gcPhase.fullPauseMs)} ms, the longest of the run ${fmt(gcPhase.fullMaxPauseMs)} ms), ` +
        `${fmt(gcPhase.young)} young (${fmt(gcPhase.youngPauseMs)} ms, the longest ${fmt(gcPhase.youngMaxPauseMs, 1)} ms); ${await machine()}`,
    );
    if (generatorBound)
      log(
        `open loop: the load generator was above 90 % of its core (${fmt(Math.max(gen.sending, gen.phase))} %): the latencies above are the generator's (its publishes queued and answers read late on its own core), not the service's`,
      );
    results.openLoop = {
      fraction: RATE_FRACTION,
      messagesPerSecond: rate,
      sent: total,
      answered,
      stored,
      latencyMs: ol,
      sendSeconds: sendMs / 1000,
      phaseSeconds: phaseMs / 1000,
      cpuPercentOfCore: { generatorSending: gen.sending, generatorPhase: gen.phase, service },
      serviceLoopDelayMs: loop,
      serviceGc: gcPhase,
      generatorBound,
      energyRefresh: { runs: refresh.runs, seconds: refresh.seconds, pendingAtEnd: backlog ?? null },
    };
    log(`answers to a message answered before: ${odd.again}; to no message of the phase: ${odd.unpaired}`);
    results.oddAnswers = odd;
    log(`uptime: ${spawnSync('uptime', { encoding: 'utf8' }).stdout.trim()}`);
    console.log(JSON.stringify(results));
  } finally {
    await watcher?.endAsync(true).catch(() => {});
    await Promise.all(clients.map((c) => c?.endAsync(true).catch(() => {})));
    await child?.stop().catch(() => {});
    spawnSync(script, ['stop'], { env: brokerEnv, stdio: 'inherit' });
    // The broker may still be writing its persistence file as it stops (ENOTEMPTY): rmSync retries.
    rmSync(mqttDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (admin && schema) {
      await admin.query(`drop schema ${schema} cascade`).catch(() => {});
      await admin.end();
    }
  }
}

await main();
process.exit(0);
