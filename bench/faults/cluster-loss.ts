// Losing any one server (issue 43; a run that prints figures, not a test). Starts the highly
// available layout of ops/ha (three etcd members, Patroni with two PostgreSQL members in
// synchronous_mode behind HAProxy, a three-node NATS JetStream cluster with the stream at three
// replicas, Redis primary + replica + three Sentinels) in its own directory and ports, three
// service instances on it behind HAProxy, and drives ingestion, webhook test events, history reads
// and a live-stream subscriber on each instance at a steady rate. Then, in turn, kill -9: the
// PostgreSQL primary (its Patroni and its postmaster: the server is gone), one etcd member, one NATS
// node, the Redis primary and one service instance; each is brought back before the next.
//
// For each kill: the longest window of refused or failed requests, the p99 latency from the kill
// until it is back, and for PostgreSQL the time to a serving new primary. At the end: acknowledged
// records lost (must be 0), duplicates stored (0), answers other than 2xx/4xx/503-with-Retry-After
// (0), webhook events delivered exactly once, and for the live stream, per subscriber never cut off
// (instances 1 and 3): of the records of each batch, were they streamed by the time of the
// ingestion answer (its `streamed` against `stored`), received at once or later, or streamed and
// never received (a consumer made again after the wrong message). The NATS node killed is the one
// leading the service's stream, so its loss always makes the stream elect a new leader.
// Everything it started is stopped and its directory removed at the end (also on failure, Ctrl-C).
//
//   npm run bench:faults -- cluster-loss      (or: node bench/faults/cluster-loss.ts)
//   LOSS_RATE=5 (requests/s)  LOSS_BATCH=20  LOSS_DOWN_SECONDS=15 (a server stays down)
//   LOSS_SETTLE_SECONDS=15 (after it is back)  HA_PORT_BASE=25500 (ops/ha/env.sh)
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { connect as natsConnect } from 'nats';
import { makeRecord } from '../lib/records.ts';
import { liveKey, watchLive, type LiveWatch } from '../lib/live-watch.ts';
import { fmt, machine, summary } from '../lib/stats.ts';
import { startHaproxy } from '../lib/haproxy.ts';
import { createDatabase, freePort, onCleanup, runMain, sleep, tempDir } from './lib/servers.ts';
import { baseEnv, serviceProcess, type ServiceProcess } from './lib/service.ts';
import { cli, createReport, envInt, json, newSecret, request, accessToken, showTally, tally } from './lib/client.ts';
import { startWebhookReceiver } from './lib/webhook-receiver.ts';

const RATE = envInt('LOSS_RATE', 5);
const BATCH = envInt('LOSS_BATCH', 20);
const DOWN_S = envInt('LOSS_DOWN_SECONDS', 15);
const SETTLE_S = envInt('LOSS_SETTLE_SECONDS', 15);
const PORT_BASE = envInt('HA_PORT_BASE', 25500);
const OPS = fileURLToPath(new URL('../../ops/ha/', import.meta.url));
const ORG = 'lossorg';
const log = (s = '') => console.log(s);

const dir = tempDir('cluster-loss-');
// Patroni and PostgreSQL run as the postgres user: it must reach the members' directories inside.
chmodSync(dir, 0o755);
const haEnv = { ...process.env, HA_DIR: join(dir, 'ha'), HA_PORT_BASE: String(PORT_BASE) };
/** Runs an ops/ha script (synchronously: the load keeps its own timers, the script is short). */
function ops(script: string, ...args: string[]): string {
  const r = spawnSync('bash', [join(OPS, script), ...args], { env: haEnv, encoding: 'utf8', timeout: 180_000 });
  if (r.status !== 0) throw new Error(`ops/ha/${script} ${args.join(' ')}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  return r.stdout.trim();
}
const pidOf = (name: string) => Number(readFileSync(join(haEnv.HA_DIR, 'run', `${name}.pid`), 'utf8').trim());
const kill9 = (pid: number) => {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
};
const P = (n: number) => PORT_BASE + n;

type Kind = 'ingest' | 'webhook' | 'history';
interface Done {
  kind: Kind;
  sentAt: number;
  lat: number;
  status: number;
  retryAfter: boolean;
  error?: string;
}

runMain(async () => {
  const report = createReport(log);
  log(`# cluster-loss: losing any one server, ${new Date().toISOString()}`);
  log(`machine: ${await machine()} (shared: other work runs on it meanwhile)`);

  ops('install.sh');
  onCleanup('ops/ha down', () => {
    spawnSync('bash', [join(OPS, 'down.sh'), '--purge'], { env: haEnv, stdio: 'ignore', timeout: 120_000 });
  });
  const settings = Object.fromEntries(
    ops('up.sh')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  ) as Record<string, string>;
  log(`layout: ${JSON.stringify(settings)}`);

  // Webhook receiver: every delivery's event id.
  const { url: receiverUrl, ids: receipts } = await startWebhookReceiver();

  const dbName = `loss_${randomBytes(4).toString('hex')}`;
  const databaseUrl = await createDatabase(settings.DATABASE_URL!, dbName);
  const secret = newSecret();
  const env: Record<string, string> = {
    ...baseEnv(secret, `ls${randomBytes(3).toString('hex')}`),
    DATABASE_URL: databaseUrl,
    DATABASE_READ_URL: settings.DATABASE_READ_URL!.replace(/\/postgres$/, `/${dbName}`),
    NATS_URL: settings.NATS_URL!,
    NATS_STREAM_REPLICAS: '3',
    REDIS_SENTINELS: settings.REDIS_SENTINELS!,
    REDIS_SENTINEL_NAME: settings.REDIS_SENTINEL_NAME!,
    TRUST_PROXY: '127.0.0.1',
    ALLOW_PRIVATE_OUTBOUND: 'true',
    RATE_LIMIT_USER_PER_MIN: '10000000',
    RATE_LIMIT_DEVTOOLS_PER_MIN: '1000000',
  };
  await cli(['org', 'create', '--id', ORG, '--name', 'Loss'], env);
  const instances: ServiceProcess[] = [];
  for (let i = 0; i < 3; i++) {
    const s = serviceProcess({ name: `instance ${i + 1}`, port: await freePort(), env, logFile: join(dir, `instance-${i + 1}.log`), core: i % 2 });
    s.onUnexpectedExit = (code, signal) => log(`!! instance ${i + 1} exited by itself (${code ?? signal}):\n${s.logTail(20)}`);
    instances.push(s);
  }
  await instances[0].start();
  await Promise.all(instances.slice(1).map((s) => s.start()));
  onCleanup('instances', async () => {
    for (const s of instances) if (s.running()) await s.kill9();
  });
  const lbPort = await freePort();
  await startHaproxy(dir, lbPort, instances);
  const lb = `http://127.0.0.1:${lbPort}`;
  const token = await accessToken(secret, ORG, ['ORG_ADMIN']);
  const auth = { authorization: `Bearer ${token}` };
  const ep = await request(`${lb}/api/devtools/webhooks`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ url: receiverUrl, description: 'loss receiver', event_types: ['webhook.test'] }),
  });
  if (ep.status !== 201) throw new Error(`register endpoint: ${ep.status} ${ep.body}`);
  const endpointId = json<{ id: string }>(ep)!.id;
  const watches: LiveWatch[] = instances.map((s, i) => watchLive(`instance ${i + 1}`, s.url, token));
  onCleanup('live subscribers', () => watches.forEach((w) => w.close()));
  for (let t = 0; t < 150 && watches.some((w) => w.readyAt.length === 0); t++) await sleep(100);

  // --- the load ---------------------------------------------------------------------------------
  const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
  const done: Done[] = [];
  const ackedKeys: string[] = [];
  /** Each acknowledged batch: when sent (performance.now()), its stored records' keys, and how many the answer said were streamed. */
  const sentBatches: { sentAt: number; keys: string[]; streamed: number }[] = [];
  const queued = new Set<string>();
  let recordSeq = 0;
  let stop = false;
  const start = performance.now();
  const now = () => (performance.now() - start) / 1000;
  const T0 = Date.now() - 6 * 3600_000;
  const MIX: [Kind, number][] = [
    ['ingest', 0.7],
    ['webhook', 0.15],
    ['history', 0.15],
  ];
  let r = 0x9e3779b9;
  const random = () => (r = (r * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const pick = (): Kind => {
    const x = random();
    let acc = 0;
    for (const [k, w] of MIX) if (x < (acc += w)) return k;
    return 'ingest';
  };
  const loadLoop = (async () => {
    const pending = new Set<Promise<void>>();
    for (let i = 0; !stop; i++) {
      const due = start + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const kind = pick();
      const sentAt = (due - start) / 1000;
      let p;
      if (kind === 'ingest') {
        const first = recordSeq;
        recordSeq += BATCH;
        const records = Array.from({ length: BATCH }, (_, k) => makeRecord(first + k, T0, 'gateways', BATCH));
        p = request(`${lb}/api/telemetry/ingest`, { method: 'POST', headers: auth, body: JSON.stringify(records), agent, timeoutMs: 60_000 }).then((a) => {
          if (a.status === 200 || a.status === 207) {
            const body = JSON.parse(a.body) as { stored?: number; streamed?: number; errors?: { index: number }[] };
            const refused = new Set((body.errors ?? []).map((e) => e.index));
            const keys = records.filter((_, k) => !refused.has(k)).map(liveKey);
            if (keys.length !== Number(body.stored ?? 0)) log(`  (batch at ${fmt(sentAt, 1)} s: stored ${body.stored}, ${keys.length} not refused)`);
            ackedKeys.push(...keys);
            sentBatches.push({ sentAt: due, keys, streamed: Number(body.streamed ?? 0) });
          }
          return a;
        });
      } else if (kind === 'webhook') {
        p = request(`${lb}/api/devtools/webhooks/${endpointId}/test`, { method: 'POST', headers: auth, body: '{}', agent, timeoutMs: 60_000 }).then((a) => {
          if (a.status === 202) queued.add(json<{ event_id: string }>(a)!.event_id);
          return a;
        });
      } else {
        p = request(`${lb}/api/telemetry/assets/battery/asset-${Math.floor(random() * 1000)}/history?range=hourly`, {
          headers: auth,
          agent,
          timeoutMs: 60_000,
        });
      }
      const q = p.then((a) => {
        done.push({ kind, sentAt, lat: performance.now() - due, status: a.status, retryAfter: a.headers['retry-after'] !== undefined, error: a.error });
      });
      pending.add(q);
      void q.finally(() => pending.delete(q));
    }
    await Promise.all([...pending]);
  })();

  // --- the kills ----------------------------------------------------------------------------------
  interface Phase {
    name: string;
    killedAt: number;
    backAt: number;
    endAt: number;
    detail: string;
  }
  const phases: Phase[] = [];
  const entryIsPrimary = async () => {
    const c = new pg.Client({ connectionString: settings.DATABASE_URL, connectionTimeoutMillis: 1000, query_timeout: 1000 });
    try {
      await c.connect();
      return (await c.query('select not pg_is_in_recovery() as p')).rows[0].p === true;
    } catch {
      return false;
    } finally {
      await c.end().catch(() => {});
    }
  };
  async function phase(name: string, kill: () => Promise<string>, back: () => Promise<string>) {
    await sleep(3000);
    const killedAt = now();
    log(`  t=${fmt(killedAt, 1)} s: kill -9 ${name}`);
    let detail = await kill();
    await sleep(DOWN_S * 1000);
    detail += await back();
    const backAt = now();
    log(`  t=${fmt(backAt, 1)} s: ${name} back${detail ? ` (${detail})` : ''}`);
    await sleep(SETTLE_S * 1000);
    phases.push({ name, killedAt, backAt, endAt: now(), detail });
  }
  log(`\n## load: ${RATE} requests/s through HAProxy (ingest 70% in batches of ${BATCH}, webhook test 15%, history 15%)`);
  await sleep(5000);

  let pgKilled = 0;
  await phase(
    'the PostgreSQL primary (Patroni and postmaster)',
    async () => {
      const m = Number(ops('patroni.sh', 'leader'));
      const postmaster = Number(readFileSync(join(haEnv.HA_DIR, `pg${m}`, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const t = performance.now();
      kill9(pidOf(`patroni${m}`));
      kill9(postmaster);
      // The failover: until the entry answers from a primary again.
      let servedAfter = NaN;
      for (let i = 0; i < 600; i++) {
        await sleep(100);
        if (await entryIsPrimary()) {
          servedAfter = performance.now() - t;
          break;
        }
      }
      pgKilled = m;
      return `pg${m} killed; a primary serves through the entry after ${fmt(servedAfter)} ms; `;
    },
    async () => {
      ops('patroni.sh', 'start', String(pgKilled));
      return `pg${pgKilled} rejoined; leader now pg${ops('patroni.sh', 'leader')}`;
    },
  );
  await phase(
    'one etcd member',
    async () => {
      kill9(pidOf('etcd1'));
      return 'etcd1 killed; ';
    },
    async () => {
      ops('etcd.sh', 'start', '1');
      return 'etcd1 rejoined';
    },
  );
  // The node leading the service's stream (server names n1..n3, ops/ha/nats.sh): its loss makes the
  // stream elect a leader again, the case where live publishes are refused for a while.
  const streamLeader = async (): Promise<string> => {
    const nc = await natsConnect({ servers: settings.NATS_URL!.split(',').map((u) => u.replace(/^nats:\/\//, '')), timeout: 2000 }).catch(() => undefined);
    if (!nc) return '?';
    try {
      const jsm = await nc.jetstreamManager({ timeout: 2000 });
      return (await jsm.streams.info(`${env.NAMESPACE}_BUS`)).cluster?.leader ?? '?';
    } catch {
      return '?';
    } finally {
      await nc.close().catch(() => {});
    }
  };
  let natsKilled = 1;
  let natsKilledAt = NaN;
  await phase(
    "one NATS node (the live stream's leader)",
    async () => {
      const leader = await streamLeader();
      natsKilled = /^n[123]$/.test(leader) ? Number(leader.slice(1)) : 1;
      kill9(pidOf(`nats${natsKilled}`));
      natsKilledAt = now();
      return `nats${natsKilled} killed (the stream's leader: ${leader}); new leader ${await streamLeader()}; `;
    },
    async () => {
      ops('nats.sh', 'start', String(natsKilled));
      return `nats${natsKilled} rejoined; stream leader now ${await streamLeader()}`;
    },
  );
  let redisKilled = '';
  await phase(
    'the Redis primary',
    async () => {
      const port = Number(ops('redis.sh', 'primary'));
      redisKilled = port === P(71) ? 'redis1' : 'redis2';
      kill9(pidOf(redisKilled));
      return `${redisKilled} (:${port}) killed; `;
    },
    async () => {
      ops('redis.sh', 'start', redisKilled);
      return `${redisKilled} rejoined; primary now :${ops('redis.sh', 'primary')}`;
    },
  );
  await phase(
    'one service instance',
    async () => {
      await instances[1].kill9();
      return 'instance 2 killed; ';
    },
    async () => {
      const ms = await instances[1].start();
      return `instance 2 healthy again in ${fmt(ms)} ms`;
    },
  );
  stop = true;
  await loadLoop;
  log(`  t=${fmt(now(), 1)} s: load ends`);

  // --- figures ------------------------------------------------------------------------------------
  const ok = (d: Done) => d.status >= 200 && d.status < 500;
  const bad = done.filter((d) => d.status === 0 || (d.status >= 500 && !(d.status === 503 && d.retryAfter)));
  log('');
  log('| kill | requests | refused or failed | longest refusal window | p99 from kill to back | detail |');
  log('|---|---|---|---|---|---|');
  const rows: Record<string, unknown>[] = [];
  for (const p of phases) {
    const inWindow = done.filter((d) => d.sentAt >= p.killedAt && d.sentAt < p.endAt).sort((a, b) => a.sentAt - b.sentAt);
    const failed = inWindow.filter((d) => !ok(d));
    // The longest stretch of send times with no answered request between the first and last failure.
    let longest = 0;
    let from: number | undefined;
    let last = 0;
    for (const d of inWindow) {
      if (!ok(d)) {
        from ??= d.sentAt;
        last = d.sentAt;
        longest = Math.max(longest, last - from + 1 / RATE);
      } else from = undefined;
    }
    const recovering = inWindow.filter((d) => d.sentAt < p.backAt).map((d) => d.lat);
    const p99 = recovering.length ? summary(recovering).p99 : NaN;
    log(
      `| ${p.name} | ${inWindow.length} | ${failed.length} (${showTally(tally(failed, (d) => (d.status ? String(d.status) : `no answer: ${d.error}`)))}) | ${fmt(longest, 1)} s | ${fmt(p99)} ms | ${p.detail} |`,
    );
    rows.push({ name: p.name, requests: inWindow.length, failed: failed.length, longestRefusalS: longest, p99Ms: p99, detail: p.detail });
  }
  const all = summary(done.map((d) => d.lat));
  log(
    `\n  ${done.length} requests; p50 ${fmt(all.p50)} ms, p99 ${fmt(all.p99)} ms; ${showTally(tally(done, (d) => (d.status ? String(d.status) : 'no answer')))}`,
  );
  report.check(
    'no 5xx other than 503 with Retry-After, no unanswered request',
    bad.length === 0,
    `${bad.length}: ${showTally(tally(bad, (d) => `${d.kind} ${d.status || d.error} at ${Math.floor(d.sentAt)} s`))}`,
  );

  // Records: every acknowledged one stored, none twice.
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  const stored = await c.query<{ asset_id: string; ts: Date; n: number }>(
    'select asset_id, ts, count(*)::int as n from telemetry where org_id = $1 group by 1, 2',
    [ORG],
  );
  await c.end();
  const have = new Map(stored.rows.map((row) => [liveKey({ asset_id: row.asset_id, ts: row.ts.toISOString() }), row.n]));
  const lost = ackedKeys.filter((k) => !have.has(k)).length;
  const duplicates = stored.rows.reduce((n, row) => n + row.n - 1, 0);
  log(`  records acknowledged ${fmt(ackedKeys.length)}; distinct stored ${fmt(have.size)}; lost ${lost}; stored more than once ${duplicates}`);
  report.check('no acknowledged record lost', lost === 0, `${lost} lost`);
  report.target('no record stored twice', duplicates === 0, `${duplicates} duplicates`);

  // Webhooks: each queued event delivered, once.
  const deadline = performance.now() + 120_000;
  while (performance.now() < deadline && [...queued].some((id) => !receipts.includes(id))) await sleep(500);
  const delivered = new Set(receipts.filter((id) => queued.has(id)));
  const missing = queued.size - delivered.size;
  const twice = receipts.filter((id) => queued.has(id)).length - delivered.size;
  log(`  webhook test events: ${queued.size} queued, ${delivered.size} delivered, ${missing} missing, ${twice} deliveries more than once`);
  report.check('every queued webhook event delivered', missing === 0, `${missing} missing`);
  report.target('each webhook event delivered exactly once', twice === 0, `${twice} extra deliveries`);

  // Live stream. A subscriber never cut off (one subscription: instances 1 and 3, whose instance is
  // never killed) is owed every record of every batch acknowledged after it subscribed. Per batch the
  // answer's `streamed` against its stored records tells a live publish not accepted by the time of
  // the answer (then tried again in the background: received later, or never) from a batch
  // streamed and not received (a subscriber's consumer skipped it).
  const owedBatches = (w: LiveWatch) => {
    const since = w.readyAt.at(-1) ?? Infinity;
    return sentBatches.filter((b) => b.sentAt > since);
  };
  const neverCut = watches.filter((w) => w.readyAt.length === 1);
  const anyMissing = () => neverCut.some((w) => owedBatches(w).some((b) => b.keys.some((k) => !w.keys.has(k))));
  // Tries go on for 30 s after ingestion (LIVE_RETRY_MS): wait that long for late ones.
  const liveUntil = performance.now() + 35_000;
  while (anyMissing() && performance.now() < liveUntil) await sleep(200);
  const phaseOf = (b: { sentAt: number }) =>
    phases.find((p) => (b.sentAt - start) / 1000 >= p.killedAt && (b.sentAt - start) / 1000 < p.endAt)?.name ?? 'no kill';
  const notStreamed = sentBatches.filter((b) => b.streamed < b.keys.length);
  log(
    `  batches whose answer said not all streamed: ${notStreamed.length} of ${sentBatches.length} (${fmt(notStreamed.reduce((n, b) => n + b.keys.length - b.streamed, 0))} records); by kill: ${showTally(tally(notStreamed, phaseOf)) || 'none'}`,
  );
  const live: Record<string, unknown>[] = [];
  let liveMissing = 0;
  let skipped = 0;
  for (const w of watches) {
    const bs = owedBatches(w);
    const missingOf = (b: (typeof bs)[number]) => b.keys.filter((k) => !w.keys.has(k)).length;
    const streamedAtAnswer = bs.filter((b) => b.streamed >= b.keys.length);
    const late = bs.filter((b) => b.streamed < b.keys.length);
    const lateRecords = late.reduce((n, b) => n + b.keys.length, 0);
    const lateMissing = late.reduce((n, b) => n + missingOf(b), 0);
    const streamedMissing = streamedAtAnswer.reduce((n, b) => n + missingOf(b), 0);
    const owed = bs.reduce((n, b) => n + b.keys.length, 0);
    const cut = w.readyAt.length > 1;
    log(
      `  live subscriber on ${w.name}: ${w.readyAt.length} subscription(s)${cut ? ' (cut off: owed what was sent after the last)' : ''}; owed ${fmt(owed)} records of ${bs.length} batches, ${fmt(lateMissing + streamedMissing)} missing: ` +
        `streamed at the answer and not received (consumer) ${fmt(streamedMissing)}; not streamed at the answer ${fmt(lateRecords)} (${late.length} batches), of which received later ${fmt(lateRecords - lateMissing)}, never ${fmt(lateMissing)}`,
    );
    if (!cut) {
      liveMissing += lateMissing + streamedMissing;
      skipped += streamedMissing;
    }
    live.push({ name: w.name, subscriptions: w.readyAt.length, owed, streamedMissing, lateRecords, lateMissing });
    const missed = bs.filter((b) => missingOf(b) > 0);
    for (const b of missed.slice(0, 30))
      log(
        `    missing on ${w.name}: batch sent at ${fmt((b.sentAt - start) / 1000, 1)} s (${phaseOf(b)}${Number.isNaN(natsKilledAt) ? '' : `, ${fmt((b.sentAt - start) / 1000 - natsKilledAt, 1)} s after the NATS kill`}): streamed ${b.streamed} of ${b.keys.length} at the answer, ${missingOf(b)} not received`,
      );
  }
  report.target(
    'every subscriber never cut off received every acknowledged record',
    liveMissing === 0,
    `${liveMissing} missing (${skipped} of them streamed at the answer and not received)`,
  );

  for (const s of instances) await s.stop();
  agent.destroy();
  log(`\nmachine after: ${await machine()}`);
  const result = {
    rate: RATE,
    batch: BATCH,
    downS: DOWN_S,
    settleS: SETTLE_S,
    requests: done.length,
    acked: ackedKeys.length,
    lost,
    duplicates,
    bad: bad.length,
    webhooks: { queued: queued.size, delivered: delivered.size, missing, twice },
    liveMissing,
    liveSkipped: skipped,
    notStreamedAtAnswer: { batches: notStreamed.length, records: notStreamed.reduce((n, b) => n + b.keys.length - b.streamed, 0) },
    live,
    phases: rows,
  };
  writeFileSync(join(dir, 'result.json'), JSON.stringify(result));
  log(`RESULT ${JSON.stringify(result)}`);
  log(report.failures ? `\n${report.failures} correctness check(s) FAILED` : '\nall correctness checks passed');
  return report.failures ? 1 : 0;
});
