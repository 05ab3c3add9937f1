// Charging hub benchmark (issue 18; not a test): N simulated OCPP 1.6J chargers (ocpp-rpc clients)
// connected at once to one service instance, each sending a Heartbeat every 60 s and MeterValues
// every 10 s inside an open transaction. The service runs in its own process (pinned to core 0
// where taskset exists, so its RSS and CPU are its own); the chargers run here.
// Prints: messages per second sustained, CALL round trip (p50, p99, max), the service's memory per
// connection (RSS after connecting and booting every charger, less RSS before, divided by N), and
// the service's event-loop delay. Target: p99 under 50 ms at 1,000 chargers. The service gets
// RATE_LIMIT_USER_PER_MIN=10000000: registering 1,000 charge points as one user would hit the per-user limit.
//
//   npm run bench:hub                                   # 200 chargers, 60 s, embedded PGlite
//   HUB_BENCH_CHARGERS=1000 npm run bench:hub           # the full load
//   HUB_BENCH_SECONDS=120 npm run bench:hub -- --store=pg   # PostgreSQL (DATABASE_URL or local), Redis, NATS
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
const HEARTBEAT_MS = 60_000;
const METER_MS = 10_000;
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ORG = 'bench';
const JWT_SECRET = randomBytes(32).toString('hex');
const log = (s: string) => console.log(s);

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
  const pinned = await pinSelf(1);
  log(await machine());
  log(
    `load generator: pid ${process.pid}${pinned ? ' pinned to core 1' : ''}; ${N} chargers (OCPP 1.6J); ${SECONDS} s; heartbeat every 60 s, meter values every 10 s`,
  );
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    JWT_SECRET,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_USER_PER_MIN: '10000000',
    NAMESPACE: `bench${randomBytes(4).toString('hex')}`,
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
  const child = await startChild(env, log);
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
    const creds: { id: string; password: string; endpoint: string }[] = [];
    const t0 = performance.now();
    await pool(
      Array.from({ length: N }, (_, i) => `CP${String(i).padStart(5, '0')}`),
      8,
      async (id) => {
        const r = await api('/api/csms/api/hub/sites/bench/charge-points', { charge_point_id: id, max_power_kw: 22 });
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
      await cli.connect();
      clients[i] = cli;
      await timed(cli, 'BootNotification', { chargePointVendor: 'Bench', chargePointModel: 'Sim' });
      await timed(cli, 'StatusNotification', { connectorId: 1, errorCode: 'NoError', status: 'Charging' });
      const tx = await timed(cli, 'StartTransaction', { connectorId: 1, idTag: 'BENCH', meterStart: 0, timestamp: new Date().toISOString() });
      txs[i] = tx.transactionId;
    });
    log(`connected, booted and started a transaction on ${N} chargers in ${fmt((performance.now() - t1) / 1000, 1)} s`);
    const connected = await child.request<{ rss: number; cpuMs: number }>({ type: 'stats' }, 'stats');

    // Steady load: each charger on its own phase (spread over the period), heartbeat 60 s, meter values 10 s.
    await child.request({ type: 'reset-loop-delay' }, 'reset-loop-delay');
    measuring = true;
    const wh = new Array(N).fill(0);
    const timers: NodeJS.Timeout[] = [];
    const start = performance.now();
    clients.forEach((cli, i) => {
      const meter = () => {
        wh[i] += 30;
        void timed(cli, 'MeterValues', {
          connectorId: 1,
          transactionId: txs[i],
          meterValue: [
            {
              timestamp: new Date().toISOString(),
              sampledValue: [
                { value: String(wh[i]), measurand: 'Energy.Active.Import.Register', unit: 'Wh' },
                { value: '11000', measurand: 'Power.Active.Import', unit: 'W' },
              ],
            },
          ],
        }).catch(() => {});
      };
      const beat = () => void timed(cli, 'Heartbeat', {}).catch(() => {});
      timers.push(
        setTimeout(() => {
          meter();
          timers.push(setInterval(meter, METER_MS));
        }, Math.random() * METER_MS),
      );
      timers.push(
        setTimeout(() => {
          beat();
          timers.push(setInterval(beat, HEARTBEAT_MS));
        }, Math.random() * HEARTBEAT_MS),
      );
    });
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    measuring = false;
    const elapsed = (performance.now() - start) / 1000;
    for (const t of timers) clearTimeout(t);
    const stats = await child.request<{ rss: number; peakRss: number; cpuMs: number; loopDelayMs: { p50: number; p99: number; max: number } }>(
      { type: 'stats' },
      'stats',
    );
    const s = summary(rtts);
    const offered = N / (METER_MS / 1000) + N / (HEARTBEAT_MS / 1000);
    log('');
    log(`steady phase: ${fmt(elapsed, 1)} s, ${fmt(messages)} CALLs answered, ${failures} failed`);
    log(`  messages/s sustained: ${fmt(messages / elapsed, 1)} (offered ${fmt(offered, 1)}/s: ${fmt((messages / elapsed / offered) * 100, 1)}%)`);
    log(`  CALL round trip: p50 ${fmt(s.p50, 1)} ms, p99 ${fmt(s.p99, 1)} ms, max ${fmt(s.max, 1)} ms (target p99 < 50 ms: ${s.p99 < 50 ? 'met' : 'NOT met'})`);
    log(
      `  service RSS: ${mib(before.rss)} before connecting, ${mib(connected.rss)} with ${N} connections: ${fmt((connected.rss - before.rss) / N / 1024, 1)} KiB per connection; peak ${mib(stats.peakRss)}`,
    );
    log(`  service event-loop delay: p50 ${fmt(stats.loopDelayMs.p50, 1)} ms, p99 ${fmt(stats.loopDelayMs.p99, 1)} ms`);
    // CPU per message is what the load costs whatever else the machine runs (round trips are not).
    const cpu = stats.cpuMs - connected.cpuMs;
    log(
      `  service process CPU (all threads): ${fmt(cpu / 1000, 1)} s over the phase (${fmt((cpu / (elapsed * 1000)) * 100, 1)}% of one core), ${fmt(cpu / Math.max(1, messages), 2)} ms per message`,
    );
    log(
      `  machine load average at the end: ${(await import('node:os'))
        .loadavg()
        .map((l) => fmt(l, 2))
        .join(' / ')} on ${(await import('node:os')).cpus().length} cores`,
    );
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
