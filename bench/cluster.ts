// Several instances behind a real load balancer (issue 26 part 1; a run that prints figures, not a
// test). Three `node src/main.ts` instances on one PostgreSQL (a fresh database; reads that
// tolerate lag on the hot standby of ops/replica.sh when it is up), one Redis and one NATS
// JetStream (a fresh namespace), behind HAProxy from Debian's packages (installed when missing)
// that health-checks each instance's readiness probe. Under a steady mixed load through HAProxy
// (ingestion, history, Partner API reads, webhook test events, logins), instance 2 is killed with
// SIGKILL and restarted, then instance 3 is drained with SIGTERM (and started again).
//
// Exact facts (PASS/FAIL):
//   - no acknowledged record lost: rows in telemetry >= records the API said it stored (a batch
//     committed by an instance killed before it answered is stored but not acknowledged);
//   - no 5xx other than 503 with Retry-After, no unanswered request;
//   - the authentication limit (5/min per address) and the account lockout (5 failures) exact
//     across instances: requests spread round-robin, counted once;
//   - each webhook test event delivered once (duplicates counted; a delivery in flight on the
//     killed instance is retried when its lease runs out: at least once, said so);
//   - live events reach subscribers on every instance: a server-sent-events subscriber on each
//     instance (GET /api/live/events on its own port, reconnecting when its instance is killed or
//     drained) receives every record stored by any instance in a batch sent after its current
//     subscription began (instance 1 is never stopped, so its subscriber must see all of them).
//
//   npm run bench:cluster
//   CLUSTER_RATE=8 (requests/s offered)  CLUSTER_SECONDS=150  CLUSTER_BATCH=50
//   DATABASE_URL (admin, default postgres://postgres@127.0.0.1:5432/postgres)  REDIS_URL  NATS_URL
//   DATABASE_READ_URL_BASE (default postgres://postgres@127.0.0.1:5433; used when it answers)
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { makeRecord } from './lib/records.ts';
import { liveKey, watchLive, type LiveWatch } from './lib/live-watch.ts';
import { fmt, machine, summary } from './lib/stats.ts';
import { startHaproxy } from './lib/haproxy.ts';
import { createDatabase, freePort, onCleanup, removeBusStreamAtEnd, runMain, sleep, tempDir } from './faults/lib/servers.ts';
import { baseEnv, serviceProcess, type ServiceProcess } from './faults/lib/service.ts';
import { cli, createApiKey, createReport, envInt, json, login, newSecret, request, showTally, tally, type Answer } from './faults/lib/client.ts';
import { startWebhookReceiver } from './faults/lib/webhook-receiver.ts';

const RATE = envInt('CLUSTER_RATE', 8);
const SECONDS = envInt('CLUSTER_SECONDS', 150);
const BATCH = envInt('CLUSTER_BATCH', 50);
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const READ_BASE = process.env.DATABASE_READ_URL_BASE ?? 'postgres://postgres@127.0.0.1:5433';
const ORG = 'clusterorg';
const PASSWORD = 'cluster-run-user-password-1';
const USERS = 3;
const log = (s = '') => console.log(s);
/** A client waits as long as HAProxy waits for an instance (`timeout server`). */
const TIMEOUT_MS = 60_000;

type Kind = 'ingest' | 'history' | 'partner' | 'webhook' | 'login';
const MIX: [Kind, number][] = [
  ['ingest', 0.55],
  ['history', 0.2],
  ['partner', 0.12],
  ['webhook', 0.08],
  ['login', 0.05],
];

interface Done {
  kind: Kind;
  at: number;
  lat: number;
  status: number;
  error?: string;
  retryAfter: boolean;
  stored: number;
  instance?: string;
}

runMain(async () => {
  const report = createReport(log);
  log(`# cluster: 3 instances behind HAProxy, ${new Date().toISOString()}`);
  log(`machine: ${await machine()} (shared: other work runs on it meanwhile)`);

  // Webhook receiver: records every event id.
  const { url: receiverUrl, ids: receipts } = await startWebhookReceiver();

  const dir = tempDir('cluster-run-');
  const dbName = `cluster_${randomBytes(4).toString('hex')}`;
  const databaseUrl = await createDatabase(ADMIN_URL, dbName);
  const namespace = `cl${randomBytes(3).toString('hex')}`;
  let readUrl: string | undefined;
  {
    const c = new pg.Client({ connectionString: `${READ_BASE}/postgres`, connectionTimeoutMillis: 1000 });
    const standby = await c
      .connect()
      .then(() => c.query('select pg_is_in_recovery() as r'))
      .then((r) => r.rows[0].r === true)
      .catch(() => false);
    await c.end().catch(() => {});
    if (standby) readUrl = `${READ_BASE}/${dbName}`;
  }
  const env: Record<string, string> = {
    ...baseEnv(newSecret(), namespace),
    DATABASE_URL: databaseUrl,
    ...(readUrl && { DATABASE_READ_URL: readUrl }),
    REDIS_URL,
    NATS_URL,
    // Behind HAProxy: the client address comes from X-Forwarded-For, set by the proxy on loopback.
    TRUST_PROXY: '127.0.0.1',
    ALLOW_PRIVATE_OUTBOUND: 'true',
    RATE_LIMIT_USER_PER_MIN: '10000000',
    RATE_LIMIT_DEVTOOLS_PER_MIN: '1000000',
  };
  removeBusStreamAtEnd(NATS_URL, namespace);
  await cli(['org', 'create', '--id', ORG, '--name', 'Cluster'], env);
  const emails: string[] = [];
  for (let u = 0; u < USERS; u++) {
    emails.push(`user${u}@cluster.example`);
    await cli(['user', 'create', '--org', ORG, '--email', emails[u], '--password', PASSWORD, '--role', u === 0 ? 'ORG_ADMIN' : 'OPERATOR'], env);
  }
  const LOCK_EMAIL = 'locked@cluster.example';
  await cli(['user', 'create', '--org', ORG, '--email', LOCK_EMAIL, '--password', PASSWORD, '--role', 'VIEWER'], env);

  const instances: ServiceProcess[] = [];
  for (let i = 0; i < 3; i++) {
    const s = serviceProcess({ name: `instance ${i + 1}`, port: await freePort(), env, logFile: join(dir, `instance-${i + 1}.log`), core: i % 2 });
    s.onUnexpectedExit = (code, signal) => log(`!! instance ${i + 1} exited by itself (${code ?? signal}):\n${s.logTail(20)}`);
    instances.push(s);
  }
  // The first applies the migrations; the others start on a migrated store.
  await instances[0].start();
  await Promise.all(instances.slice(1).map((s) => s.start()));
  const lbPort = await freePort();
  await startHaproxy(dir, lbPort, instances);
  const lb = `http://127.0.0.1:${lbPort}`;
  log(
    `instances: ${instances.map((s, i) => `${i + 1} pid ${s.pid()} :${s.port}`).join(', ')}; HAProxy ${lb} (health check GET /api/telemetry/readyz every 2 s, fall 3, rise 2; L7 retries on connection failure or empty answer)`,
  );
  log(
    `PostgreSQL database ${dbName}${readUrl ? `, read replica ${readUrl}` : ' (no standby answering: reads on the primary)'}; Redis ${REDIS_URL}; NATS ${NATS_URL} namespace ${namespace}`,
  );

  const tokens: string[] = [];
  for (const email of emails) tokens.push(await login(lb, email, PASSWORD, '127.0.0.1'));
  const keys: string[] = [];
  for (let k = 0; k < 3; k++) keys.push((await createApiKey(lb, tokens[0], `cluster ${k}`, ['telemetry:read', 'devices:read', 'alerts:read'])).secret);
  const ep = await request(`${lb}/api/devtools/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens[0]}` },
    body: JSON.stringify({ url: receiverUrl, description: 'cluster receiver', event_types: ['webhook.test'] }),
  });
  if (ep.status !== 201) throw new Error(`register endpoint: ${ep.status} ${ep.body}`);
  const endpointId = json<{ id: string }>(ep)!.id;

  // A live-stream subscriber (server-sent events) on each instance, straight to its port: every
  // record stored by whichever instance took the batch must reach all of them.
  const watches: LiveWatch[] = instances.map((s, i) => watchLive(`instance ${i + 1}`, s.url, tokens[0]!));
  onCleanup('live subscribers', () => watches.forEach((w) => w.close()));
  const liveUntilReady = performance.now() + 15_000;
  while (watches.some((w) => w.readyAt.length === 0) && performance.now() < liveUntilReady) await sleep(100);
  // Each ingestion batch: when it was sent and, when the API stored all of it, its records' keys.
  const sentBatches: { sentAt: number; keys: string[] | null }[] = [];

  // --- the load -------------------------------------------------------------------------------
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const loginAgents = new Map<string, http.Agent>();
  const loginAgent = (ip: string) => {
    let a = loginAgents.get(ip);
    if (!a) loginAgents.set(ip, (a = new http.Agent({ keepAlive: false, localAddress: ip } as http.AgentOptions)));
    return a;
  };
  let seq = 0;
  let recordSeq = 0;
  let ipSeq = 0;
  const queued = new Set<string>();
  let acked = 0;
  const T0 = Date.now() - 6 * 3600_000;
  let r = 0x9e3779b9;
  const random = () => (r = (r * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const pick = (): Kind => {
    const x = random();
    let acc = 0;
    for (const [k, w] of MIX) if (x < (acc += w)) return k;
    return 'ingest';
  };
  function send(kind: Kind): Promise<Answer> {
    const auth = { authorization: `Bearer ${tokens[seq++ % tokens.length]}` };
    switch (kind) {
      case 'ingest': {
        const first = recordSeq;
        recordSeq += BATCH;
        const records = Array.from({ length: BATCH }, (_, i) => makeRecord(first + i, T0, 'gateways', BATCH));
        const sentAt = performance.now();
        return request(`${lb}/api/telemetry/ingest`, { method: 'POST', headers: auth, body: JSON.stringify(records), agent, timeoutMs: TIMEOUT_MS }).then(
          (a) => {
            const stored = a.status === 200 || a.status === 207 ? Number(JSON.parse(a.body).stored ?? 0) : 0;
            if (stored > 0) sentBatches.push({ sentAt, keys: stored === BATCH ? records.map(liveKey) : null });
            return a;
          },
        );
      }
      case 'history': {
        const asset = `asset-${Math.floor(random() * 1000)}`;
        return request(`${lb}/api/telemetry/assets/battery/${asset}/history?range=hourly`, { headers: auth, agent, timeoutMs: TIMEOUT_MS });
      }
      case 'partner': {
        const path = random() < 0.5 ? 'telemetry/latest?limit=50' : 'devices?limit=50';
        return request(`${lb}/api/devtools/partner/v1/${path}`, {
          headers: { authorization: `Bearer ${keys[seq % keys.length]}` },
          agent,
          timeoutMs: TIMEOUT_MS,
        });
      }
      case 'webhook':
        return request(`${lb}/api/devtools/webhooks/${endpointId}/test`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tokens[0]}` },
          body: '{}',
          agent,
          timeoutMs: TIMEOUT_MS,
        });
      case 'login': {
        // Spread over 127.0.0.2-127.0.0.200, each address well under the 5/min limit.
        const ip = `127.0.0.${2 + (ipSeq++ % 199)}`;
        return request(`${lb}/api/auth/login`, {
          method: 'POST',
          body: JSON.stringify({ email: emails[ipSeq % USERS], password: PASSWORD }),
          agent: loginAgent(ip),
          timeoutMs: TIMEOUT_MS,
        });
      }
    }
  }
  const done: Done[] = [];
  const events: { at: number; what: string }[] = [];
  const start = performance.now();
  const mark = (what: string) => {
    events.push({ at: (performance.now() - start) / 1000, what });
    log(`  t=${fmt((performance.now() - start) / 1000, 1)} s: ${what}`);
  };
  let loadDone = false;
  const loadLoop = (async () => {
    const pending = new Set<Promise<void>>();
    for (let i = 0; ; i++) {
      const due = start + (i * 1000) / RATE;
      if (due - start >= SECONDS * 1000) break;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const kind = pick();
      const p = send(kind).then((a) => {
        let stored = 0;
        if (kind === 'ingest' && (a.status === 200 || a.status === 207)) stored = Number(JSON.parse(a.body).stored ?? 0);
        if (kind === 'webhook' && a.status === 202) queued.add(json<{ event_id: string }>(a)!.event_id);
        acked += stored;
        done.push({
          kind,
          at: (due - start) / 1000,
          lat: performance.now() - due,
          status: a.status,
          error: a.error,
          retryAfter: a.headers['retry-after'] !== undefined,
          stored,
        });
      });
      pending.add(p);
      void p.finally(() => pending.delete(p));
    }
    await Promise.all([...pending]);
    loadDone = true;
  })();

  log(
    `\n## load: ${RATE} requests/s for ${SECONDS} s through HAProxy (${MIX.map(([k, w]) => `${k} ${Math.round(w * 100)}%`).join(', ')}; batches of ${BATCH})`,
  );
  const at = async (s: number) => {
    const wait = start + s * 1000 - performance.now();
    if (wait > 0) await sleep(wait);
  };
  await at(SECONDS * 0.2);
  mark(`SIGKILL instance 2 (pid ${instances[1].pid()})`);
  await instances[1].kill9();
  await at(SECONDS * 0.35);
  const restartMs = await instances[1].start();
  mark(`instance 2 restarted (pid ${instances[1].pid()}, healthy in ${fmt(restartMs)} ms)`);
  await at(SECONDS * 0.55);
  mark(`SIGTERM instance 3 (pid ${instances[2].pid()}): drains`);
  const td = performance.now();
  await instances[2].stop();
  mark(`instance 3 exited after ${fmt(performance.now() - td)} ms`);
  await at(SECONDS * 0.75);
  const r3 = await instances[2].start();
  mark(`instance 3 started again (healthy in ${fmt(r3)} ms)`);
  await loadLoop;
  if (!loadDone) throw new Error('load loop');
  mark('load ends');

  // --- figures --------------------------------------------------------------------------------
  const seconds = SECONDS;
  log('');
  for (const [kind] of MIX) {
    const list = done.filter((d) => d.kind === kind);
    const l = summary(list.map((d) => d.lat));
    log(
      `  ${kind.padEnd(8)} ${String(list.length).padStart(6)} requests; p50 ${fmt(l.p50)} ms, p99 ${fmt(l.p99)} ms, max ${fmt(l.max)} ms; ${showTally(tally(list, (d) => (d.status === 0 ? `no answer (${d.error})` : String(d.status))))}`,
    );
  }
  log(`  offered ${done.length} in ${seconds} s`);
  const bad = done.filter((d) => d.status === 0 || (d.status >= 500 && !(d.status === 503 && d.retryAfter)));
  report.check(
    'no 5xx other than 503 with Retry-After, no unanswered request',
    bad.length === 0,
    `${bad.length}: ${showTally(tally(bad, (d) => `${d.kind} ${d.status || d.error} at ${Math.floor(d.at)} s`))}`,
  );
  const shed = done.filter((d) => d.status === 503).length;
  log(`  503 with Retry-After: ${shed}`);

  // Rate limit across instances: 8 wrong sign-ins from one fresh address, spread round-robin by HAProxy.
  const limitStatuses: number[] = [];
  for (let i = 0; i < 8; i++) {
    const a = await request(`${lb}/api/auth/login`, {
      method: 'POST',
      body: JSON.stringify({ email: 'nobody@cluster.example', password: 'wrong-password-xx' }),
      agent: loginAgent('127.0.0.250'),
    });
    limitStatuses.push(a.status);
  }
  log(`  8 sign-ins from one address across the instances: ${limitStatuses.join(' ')}`);
  report.check(
    'authentication limit exact across instances: 5 answered, then 429',
    limitStatuses.slice(0, 5).every((s) => s === 401) && limitStatuses.slice(5).every((s) => s === 429),
    limitStatuses.join(' '),
  );
  // Lockout across instances: 5 wrong passwords from 5 addresses, then the right one is refused.
  const lockStatuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    const a = await request(`${lb}/api/auth/login`, {
      method: 'POST',
      body: JSON.stringify({ email: LOCK_EMAIL, password: 'wrong-password-xx' }),
      agent: loginAgent(`127.0.0.${230 + i}`),
    });
    lockStatuses.push(a.status);
  }
  const right = await request(`${lb}/api/auth/login`, {
    method: 'POST',
    body: JSON.stringify({ email: LOCK_EMAIL, password: PASSWORD }),
    agent: loginAgent('127.0.0.240'),
  });
  lockStatuses.push(right.status);
  log(`  lockout: 5 wrong passwords from 5 addresses, then the right one: ${lockStatuses.join(' ')}`);
  report.check(
    'account lockout exact across instances: locked after the 5th failure (423)',
    lockStatuses.slice(0, 5).every((s) => s === 401) && right.status === 423,
    lockStatuses.join(' '),
  );

  // Webhook deliveries: wait for every queued event (a claim held by the killed instance waits out its lease).
  const deadline = performance.now() + 180_000;
  const distinct = () => new Set(receipts).size;
  while (performance.now() < deadline && [...queued].some((id) => !receipts.includes(id))) await sleep(500);
  const missing = [...queued].filter((id) => !receipts.includes(id)).length;
  const dup = receipts.length - distinct();
  log(`  webhook test events: ${queued.size} queued, ${distinct()} delivered, ${missing} missing, ${dup} delivered more than once`);
  report.check('every queued webhook event delivered', missing === 0, `${missing} missing`);
  report.target('each webhook event delivered once', dup === 0, `${dup} duplicates`);

  // Live events on every instance: each subscriber must hold every record of each fully stored batch
  // sent after its current subscription began.
  const partial = sentBatches.filter((b) => b.keys === null).length;
  const owed = (w: LiveWatch) => {
    const since = w.readyAt.at(-1) ?? Infinity;
    return sentBatches.filter((b) => b.keys && b.sentAt > since).flatMap((b) => b.keys!);
  };
  const liveUntil = performance.now() + 15_000;
  while (watches.some((w) => owed(w).some((k) => !w.keys.has(k))) && performance.now() < liveUntil) await sleep(200);
  for (const w of watches) {
    const want = owed(w);
    const missing = want.filter((k) => !w.keys.has(k)).length;
    log(
      `  live subscriber on ${w.name}: ${w.readyAt.length} subscription(s); ${fmt(w.keys.size)} stored records received; ${fmt(want.length)} owed since its last subscription, ${fmt(missing)} missing`,
    );
    report.check(
      `live events reach the subscriber on ${w.name} (stored by any instance)`,
      missing === 0 && want.length > 0,
      `${fmt(missing)} of ${fmt(want.length)} missing`,
    );
  }
  report.check(
    'the subscriber on instance 1 (never stopped) received every acknowledged record',
    watches[0]!.readyAt.length === 1 && watches[0]!.keys.size >= acked,
    `${fmt(watches[0]!.keys.size)} of ${fmt(acked)}`,
  );
  if (partial) log(`  (${partial} batches stored only in part are left out of the per-record check)`);
  watches.forEach((w) => w.close());

  // Every acknowledged record is stored.
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  const rows = (await c.query<{ n: number }>('select count(*)::int as n from telemetry where org_id = $1', [ORG])).rows[0].n;
  // Done jobs leave the table: what is left is waiting (not yet due or retrying) or failed for good.
  const jobs = await c.query<{ kind: string; waiting: number; failed: number }>(
    `select kind, count(*) filter (where failed_at is null)::int as waiting, count(*) filter (where failed_at is not null)::int as failed from jobs group by 1 order by 1`,
  );
  await c.end();
  log(`  rows in telemetry ${fmt(rows)}; records acknowledged as stored ${fmt(acked)}`);
  report.check('no acknowledged record lost (rows >= acknowledged)', rows >= acked, `${fmt(rows)} rows, ${fmt(acked)} acknowledged`);
  log(`  jobs left in the queue (kind: waiting/failed): ${jobs.rows.map((j) => `${j.kind} ${j.waiting}/${j.failed}`).join(', ') || 'none'}`);
  report.check(
    'no job failed for good',
    jobs.rows.every((j) => j.failed === 0),
    jobs.rows
      .filter((j) => j.failed)
      .map((j) => j.kind)
      .join(', '),
  );

  for (const s of instances) await s.stop();
  agent.destroy();
  for (const a of loginAgents.values()) a.destroy();
  log(`\nmachine after: ${await machine()}`);
  log(
    'RESULT ' +
      JSON.stringify({
        rate: RATE,
        seconds,
        batch: BATCH,
        offered: done.length,
        acked,
        rows,
        bad: bad.length,
        shed,
        limitStatuses,
        lockStatuses,
        webhooks: { queued: queued.size, delivered: distinct(), missing, dup },
        events,
      }),
  );
  log(report.failures ? `\n${report.failures} correctness check(s) FAILED` : '\nall correctness checks passed');
  return report.failures ? 1 : 0;
});
