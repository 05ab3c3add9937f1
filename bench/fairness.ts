// Fairness benchmark (decision 0088, reliability plan T-30; prints figures, never pass/fail).
// Organisation B asks for test deliveries to a receiver that answers at once, on a service whose
// job queue is idle, then on one where organisation A has 1,000 deliveries queued to 20 sandbox
// endpoints on a receiver that accepts and never answers. Figure: B's first-attempt delay, from
// the time the attempt was due (the delivery log's next_attempt_at) to the time B's receiver got
// the request. Real time and the system clock (the in-process poller runs, as in production),
// with the spec's 10 s delivery deadline unless --timeout-ms says otherwise.
//
//   npm run bench:fairness                       # embedded PGlite
//   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:fairness
//   options: --samples=5 --timeout-ms=10000 --poll-ms=1000 --wait-s=120
import { startTestService, json, type TestService } from '../test/helpers/service.ts';
import { startFakeServer, startSilentServer } from '../test/helpers/fake-server.ts';
import { systemClock } from '../src/platform/clock.ts';
import { fmt, machine, summary } from './lib/stats.ts';

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'];
  }),
);
const SAMPLES = Number(args.samples ?? 5);
const TIMEOUT_MS = String(args['timeout-ms'] ?? 10_000);
const POLL_MS = String(args['poll-ms'] ?? 1000);
const WAIT_MS = Number(args['wait-s'] ?? 120) * 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (...a: unknown[]) => console.log(...a);

async function bearer(svc: TestService, orgId: string) {
  return { authorization: `Bearer ${await svc.token({ orgId, roles: ['ORG_ADMIN'] })}` };
}

async function post(svc: TestService, orgId: string, url: string, payload?: object, headers?: Record<string, string>) {
  const res = await svc.request({ method: 'POST', url, headers: headers ?? (await bearer(svc, orgId)), ...(payload && { payload }) });
  if (res.statusCode >= 300) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return json(res);
}

/** One run: returns B's first-attempt delays (ms), or null for a delivery that had not arrived within --wait-s. */
async function run(withBacklog: boolean) {
  const arrivals = new Map<string, number>();
  const rx = await startFakeServer((req, res) => {
    arrivals.set(JSON.parse(req.body).id, Date.now());
    res.writeHead(200).end();
  });
  const dead = await startSilentServer();
  const svc = await startTestService({
    clock: systemClock,
    env: { WEBHOOK_TIMEOUT_MS: TIMEOUT_MS, JOBS_POLL_MS: POLL_MS, SANDBOX_MAX_PENDING_DELIVERIES: '1000', RATE_LIMIT_DEVTOOLS_PER_MIN: '1000' },
  });
  try {
    if (withBacklog) {
      await svc.createOrg('bench-a');
      for (let i = 0; i < 20; i++) await post(svc, 'bench-a', '/api/devtools/webhooks?environment=sandbox', { url: `${dead.url}/a${i}` });
      const key = await post(svc, 'bench-a', '/api/devtools/apikeys?environment=sandbox', { name: 'bench', scopes: ['alerts:read'] });
      for (let i = 0; i < 50; i++)
        await post(svc, 'bench-a', '/api/devtools/partner/v1/sandbox/webhooks/test', undefined, { authorization: `Bearer ${key.secret}` });
      // A's first attempts fall due 9 to 11 s after queueing: wait until they hold the dead receiver.
      while (dead.accepted() < 4) await sleep(100);
    }
    await svc.createOrg('bench-b');
    const ep = await post(svc, 'bench-b', '/api/devtools/webhooks', { url: `${rx.url}/b` });
    const due = new Map<string, number>();
    for (let i = 0; i < SAMPLES; i++) {
      const sent = await post(svc, 'bench-b', `/api/devtools/webhooks/${ep.id}/test`);
      const page = await svc.request({ method: 'GET', url: `/api/devtools/webhooks/${ep.id}/deliveries`, headers: await bearer(svc, 'bench-b') });
      const d = json(page).deliveries.find((x: { id: string }) => x.id === sent.delivery_id);
      due.set(sent.event_id, new Date(d.next_attempt_at).getTime());
      await sleep(1500);
    }
    const last = Math.max(...due.values());
    while (arrivals.size < SAMPLES && Date.now() < last + WAIT_MS) await sleep(100);
    const delays = [...due].map(([id, at]) => (arrivals.has(id) ? arrivals.get(id)! - at : null));
    return { delays, deadAccepted: dead.accepted(), deadPeak: dead.peak() };
  } finally {
    await dead.close();
    await svc.stop();
    await rx.close();
  }
}

function report(name: string, r: Awaited<ReturnType<typeof run>>) {
  const got = r.delays.filter((d): d is number => d !== null);
  const s = summary(got);
  const late = r.delays.length - got.length;
  const figures = s.n ? `n=${s.n} p50 ${fmt(s.p50)} ms, max ${fmt(s.max)} ms` : 'none arrived';
  log(
    `${name.padEnd(28)} B first-attempt delay after due: ${figures}` +
      (late ? `; ${late} of ${r.delays.length} not arrived ${WAIT_MS / 1000} s after due` : '') +
      `  (A: ${r.deadAccepted} attempts on the dead receiver, at most ${r.deadPeak} at once)`,
  );
}

log(`fairness bench: ${await machine()}`);
log(
  `store ${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite (embedded)'}; delivery deadline ${TIMEOUT_MS} ms; poll every ${POLL_MS} ms; ${SAMPLES} B deliveries per run`,
);
report('idle queue', await run(false));
report('A: 1,000 to a dead receiver', await run(true));
log(`after: ${await machine()}`);
