// T-12 Webhook at-least-once across a restart (reliability plan; a run that prints figures, not a
// test). The service (src/main.ts, core 0; fresh database on the shared PostgreSQL; private
// outbound allowed so that a loopback receiver can be registered, and outbound limited to
// loopback) has one live webhook endpoint pointing at a receiver in this process (core 1) that
// records every event id it is sent and answers 200 after 0-50 ms. 1,000 test events are queued
// through the API (POST /api/devtools/webhooks/{id}/test, each 202 with its event id); while the
// deliveries are in flight the service is killed with kill -9 (when the receiver has seen 300 and
// again at 700 distinct events, FAULT_WEBHOOK_KILLS) and restarted at once. Then the queue drains
// (a crashed holder's claims are taken over when their 60 s lease runs out).
// Printed: events queued, delivered ids, lost (must be 0), duplicates, time to drain, and the
// delivery rows' final states.
//
//   npm run bench:faults -- webhook-restart     (or: node bench/faults/webhook-restart.ts)
//   FAULT_WEBHOOK_EVENTS=1000  FAULT_WEBHOOK_KILLS=300,700  FAULT_WEBHOOK_DRAIN_S=300
//   FAULT_ADMIN_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import http from 'node:http';
import pg from 'pg';
import { fmt, machine, pinSelf } from '../lib/stats.ts';
import { createDatabase, freePort, runMain, sleep, tempDir } from './lib/servers.ts';
import { baseEnv, serviceProcess } from './lib/service.ts';
import { cli, createReport, envInt, json, login, newSecret, request, secs, showTally, tally } from './lib/client.ts';
import { startWebhookReceiver } from './lib/webhook-receiver.ts';

const EVENTS = envInt('FAULT_WEBHOOK_EVENTS', 1000);
const KILLS = (process.env.FAULT_WEBHOOK_KILLS ?? '300,700')
  .split(',')
  .map(Number)
  .filter((n) => n > 0 && n < EVENTS);
const DRAIN_MS = envInt('FAULT_WEBHOOK_DRAIN_S', 300) * 1000;
const ADMIN_URL = process.env.FAULT_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ORG = 'hookfault';
const EMAIL = 'admin@hookfault.example';
const PASSWORD = 'fault-run-admin-password-1';
const log = (s = '') => console.log(s);

runMain(async () => {
  const pinned = await pinSelf(1);
  const report = createReport(log);
  log(`# T-12 webhook at-least-once across a restart, ${new Date().toISOString()}`);
  log(`machine: ${await machine()}`);

  // The receiver: records every event id, answers 200 after 0-50 ms.
  const { url: receiverUrl, receipts } = await startWebhookReceiver({ delayMs: () => Math.random() * 50 });

  const dir = tempDir('fault-hook-run-');
  const dbUrl = await createDatabase(ADMIN_URL, `fault_hook_${randomBytes(4).toString('hex')}`);
  const env = {
    ...baseEnv(newSecret(), `wh${randomBytes(3).toString('hex')}`),
    DATABASE_URL: dbUrl,
    ALLOW_PRIVATE_OUTBOUND: 'true',
    // 1,000 test events from one administrator: lift the management (60/min) and per-user (100/min) limits.
    RATE_LIMIT_DEVTOOLS_PER_MIN: '1000000',
    RATE_LIMIT_USER_PER_MIN: '1000000',
  };
  await cli(['org', 'create', '--id', ORG, '--name', 'Webhook faults'], env);
  await cli(['user', 'create', '--org', ORG, '--email', EMAIL, '--password', PASSWORD, '--role', 'ORG_ADMIN'], env);
  const svc = serviceProcess({ name: 'service', port: await freePort(), env, logFile: join(dir, 'service.log') });
  let unexpected = 0;
  svc.onUnexpectedExit = (code, signal) => {
    unexpected++;
    log(`!! service exited by itself (${code ?? signal}):\n${svc.logTail(20)}`);
  };
  await svc.start();
  log(
    `service: pid ${svc.pid()}${pinned ? ' (core 0)' : ''} on :${svc.port}, ALLOW_PRIVATE_OUTBOUND=true, OUTBOUND_LOOPBACK_ONLY=true, ` +
      `RATE_LIMIT_DEVTOOLS_PER_MIN and RATE_LIMIT_USER_PER_MIN lifted; receiver ${receiverUrl} (this process${pinned ? ', core 1' : ''})`,
  );
  const token = await login(svc.url, EMAIL, PASSWORD, '127.0.0.12');
  const auth = { authorization: `Bearer ${token}` };
  const ep = await request(`${svc.url}/api/devtools/webhooks`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ url: receiverUrl, description: 'T-12 receiver', event_types: ['webhook.test'] }),
  });
  if (ep.status !== 201) throw new Error(`register endpoint: ${ep.status} ${ep.body}`);
  const endpointId = json<{ id: string }>(ep)!.id;

  // Queue the events.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const queued = new Set<string>();
  const queueAnswers: string[] = [];
  let next = 0;
  const tq = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < EVENTS) {
        next++;
        const a = await request(`${svc.url}/api/devtools/webhooks/${endpointId}/test`, { method: 'POST', headers: auth, body: '{}', agent });
        queueAnswers.push(String(a.status));
        if (a.status === 202) queued.add(json<{ event_id: string }>(a)!.event_id);
      }
    }),
  );
  agent.destroy();
  const queuedIn = performance.now() - tq;
  log(
    `queued: ${fmt(queued.size)} events in ${secs(queuedIn)} (answers ${showTally(tally(queueAnswers, (x) => x))}); first attempts are due 10 s (+-10%) after queueing`,
  );

  // Kill -9 while deliveries are in flight, restart at once.
  const distinct = () => new Set(receipts.map((r) => r.id)).size;
  const kills: { at: number; seen: number; restartMs: number }[] = [];
  for (const threshold of KILLS) {
    const until = performance.now() + 120_000;
    while (distinct() < threshold && performance.now() < until) await sleep(20);
    const seen = distinct();
    await svc.kill9();
    const at = performance.now();
    const restartMs = await svc.start();
    kills.push({ at, seen, restartMs });
    log(`kill -9 at ${secs(at - tq)} with ${seen} distinct events received; restarted (healthy in ${secs(restartMs)}), new pid ${svc.pid()}`);
  }

  // Drain: every queued id received and no delivery left pending (a delivery that reached the
  // receiver just before a kill is sent again once its lease runs out: wait for those too, so the
  // duplicates are all counted).
  const watch = new pg.Client({ connectionString: dbUrl });
  await watch.connect();
  const pendingRows = async () =>
    (await watch.query<{ n: number }>(`select count(*)::int as n from webhook_deliveries where org_id = $1 and status = 'pending'`, [ORG])).rows[0].n;
  const deadline = performance.now() + DRAIN_MS;
  let allReceivedAt: number | undefined;
  while (performance.now() < deadline) {
    const seen = new Set(receipts.map((r) => r.id));
    if (allReceivedAt === undefined && [...queued].every((id) => seen.has(id))) allReceivedAt = performance.now();
    if (allReceivedAt !== undefined && (await pendingRows()) === 0) break;
    await sleep(500);
  }
  const drainedAt = performance.now();
  await watch.end();
  await sleep(2000); // late duplicates

  const counts = new Map<string, number>();
  for (const r of receipts) counts.set(r.id, (counts.get(r.id) ?? 0) + 1);
  const delivered = [...queued].filter((id) => counts.has(id)).length;
  const lost = queued.size - delivered;
  const duplicates = [...counts.values()].reduce((s, n) => s + n - 1, 0);
  const duplicatedEvents = [...counts.values()].filter((n) => n > 1).length;
  const unknown = [...counts.keys()].filter((id) => !queued.has(id)).length;

  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  const states = (
    await c.query<{ status: string; n: number }>(`select status, count(*)::int as n from webhook_deliveries where org_id = $1 group by 1 order by 1`, [ORG])
  ).rows;
  const attempts = (
    await c
      .query<{ n: number }>(`select count(*)::int as n from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.org_id = $1`, [ORG])
      .catch(() => ({ rows: [{ n: NaN }] }))
  ).rows[0].n;
  await c.end();

  log(
    `\ndelivered: ${fmt(delivered)} of ${fmt(queued.size)} queued event ids (${fmt(receipts.length)} requests received); lost ${lost}; ` +
      `duplicates ${duplicates} (${duplicatedEvents} events received more than once); unknown ids ${unknown}`,
  );
  const lastKill = kills.at(-1)?.at ?? tq;
  log(
    `every id received ${allReceivedAt === undefined ? 'never' : `${secs(allReceivedAt - lastKill)} after the last restart`}; ` +
      `queue drained (no delivery pending) ${secs(drainedAt - lastKill)} after it (${secs(drainedAt - tq)} after queueing began; a killed holder's claims wait out their 60 s lease)`,
  );
  log(`delivery rows: ${states.map((s) => `${s.status} ${s.n}`).join(', ')}; recorded attempts ${Number.isNaN(attempts) ? 'n/a' : fmt(attempts)}`);
  report.check('every queued event id delivered at least once (lost = 0)', lost === 0, `${lost} lost of ${queued.size}`);
  report.check(
    'no delivery left pending at the end',
    states.every((x) => x.status !== 'pending'),
    states.map((x) => `${x.status} ${x.n}`).join(', '),
  );
  report.check('every queue request was acknowledged (202)', queued.size === EVENTS, `${queued.size} of ${EVENTS}`);
  report.check('no delivery of an id that was never queued', unknown === 0, `${unknown}`);
  report.check('the service never exited by itself', unexpected === 0, `${unexpected}`);
  report.target(
    `the kills landed while deliveries were in flight`,
    kills.every((k) => k.seen > 0 && k.seen < queued.size),
    kills.map((k) => k.seen).join(', '),
  );
  await svc.stop();
  log(`\nmachine after: ${await machine()}`);
  log(
    'RESULT ' +
      JSON.stringify({
        run: 'T-12',
        queued: queued.size,
        delivered,
        lost,
        duplicates,
        duplicatedEvents,
        kills: kills.map((k) => k.seen),
        drainSeconds: (drainedAt - tq) / 1000,
        states,
      }),
  );
  log(report.failures ? `\n${report.failures} correctness check(s) FAILED` : '\nall correctness checks passed');
  return report.failures ? 1 : 0;
});
