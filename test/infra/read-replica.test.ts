// DATABASE_READ_URL (decision 0250): reads that tolerate a little lag (telemetry history, EMS report
// figures and interval exports) go to a PostgreSQL hot standby; writes and reads that must see the
// caller's own latest write (live events, everything else) go to the primary; when the standby goes
// away its reads go to the primary and readiness says so. Runs on a real streaming replica
// (ops/replica.sh, which .ci/run sets up) named by TEST_DATABASE_READ_URL; the fault proxy sits
// between the service and the standby, so the standby "goes away" for this service only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, realServers, type TestService } from '../helpers/service.ts';
import { onDatabase, pauseReplay, replayed, replicaUrl } from '../helpers/replica.ts';
import { startFaultProxy, type FaultProxy } from '../../bench/lib/fault-proxy.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { openPostgres } from '../../src/infra/db/postgres.ts';
import { readReplica } from '../../src/infra/db/read-replica.ts';
import { client } from '../telemetry/support.ts';

const skip =
  !(realServers.database && replicaUrl) && 'needs a PostgreSQL streaming replica: set TEST_DATABASE_READ_URL (ops/replica.sh makes one; .ci/run does both)';
const NOW = Date.parse('2026-10-15T12:34:00Z');
const ORG = 'replica-org';
let svc: TestService;
let proxy: FaultProxy;
let api: ReturnType<typeof client>;
let viaProxy: string;

before(async () => {
  if (skip) return;
  const standby = new URL(replicaUrl!);
  proxy = await startFaultProxy({ host: standby.hostname, port: Number(standby.port || 5432) });
  svc = await startTestService({
    clock: new ManualClock(NOW),
    // Long enough that a paused replay is still "a little lag" for the whole file.
    env: { DATABASE_READ_MAX_LAG_SECONDS: '3600' },
    readUrl: (db) => {
      const u = new URL(onDatabase(replicaUrl!, db));
      u.hostname = '127.0.0.1';
      u.port = String(proxy.port);
      return (viaProxy = u.toString());
    },
  });
  await svc.createOrg(ORG);
  api = client(svc, ORG);
});
after(async () => {
  if (skip) return;
  await pauseReplay(replicaUrl!, false).catch(() => {});
  await svc?.stop();
  await proxy?.close();
});

const mins = (m: number) => new Date(NOW - m * 60_000).toISOString();

async function ingest(id: string, minutesAgo: number, kw: number) {
  const res = await api.ingest([{ asset_id: id, ts: mins(minutesAgo), soc_pct: kw }]);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(json(res).stored, 1);
}
async function historyCount(id: string): Promise<number> {
  const res = await api.get(`/api/telemetry/assets/battery/${id}/history?range=hourly`);
  assert.equal(res.statusCode, 200, res.body);
  const h = json(res);
  assert.equal(h.source, 'timeseries');
  return h.summary.count;
}
async function readiness() {
  const res = await svc.request({ method: 'GET', url: '/api/telemetry/readyz' });
  return { status: res.statusCode, body: json(res) };
}
/** Everything written so far is on the standby (waits on its replay position, no fixed time). */
const caughtUp = () => replayed(svc.config.databaseUrl!, replicaUrl!);

/** While replay is paused, whatever the standby serves is as it was: a read that sees a newer write came from the primary. */
async function whilePaused<T>(fn: () => Promise<T>): Promise<T> {
  await pauseReplay(replicaUrl!, true);
  try {
    return await fn();
  } finally {
    await pauseReplay(replicaUrl!, false);
  }
}

test("history is read from the standby; live events (the caller's own latest write) and writes from the primary", { skip }, async () => {
  const ready = await readiness();
  assert.equal(ready.status, 200);
  assert.equal(ready.body.status, 'ready');
  assert.equal(ready.body.read_replica.in_use, true, JSON.stringify(ready.body));
  assert.equal(typeof ready.body.read_replica.lag_seconds, 'number');

  await ingest('bat-1', 30, 5);
  await caughtUp();
  assert.equal(await historyCount('bat-1'), 1);

  await whilePaused(async () => {
    await ingest('bat-1', 20, 7);
    // The primary has it: the caller sees its own write in the live window at once.
    const live = await api.live('?asset_id=bat-1');
    assert.equal(live.length, 2);
    // The standby has not replayed it yet: history (lag-tolerant) answers from there.
    assert.equal(await historyCount('bat-1'), 1);
  });
  await caughtUp();
  assert.equal(await historyCount('bat-1'), 2);
});

test('the standby going away: history answers from the primary, readiness stays ready and says reads are on the primary; they return when it is back', {
  skip,
}, async () => {
  await ingest('bat-2', 10, 3);
  proxy.set({ kind: 'reset' }); // every connection to the standby is cut and new ones refused
  // Nothing replayed or not: with the standby away the read goes to the primary and sees it all.
  assert.equal(await historyCount('bat-2'), 1);
  const away = await readiness();
  assert.equal(away.status, 200);
  assert.equal(away.body.status, 'ready');
  assert.deepEqual(away.body.read_replica, { in_use: false, lag_seconds: null, reason: 'the standby is unreachable' });
  assert.equal(away.body.checks.database, true);

  proxy.set({ kind: 'pass' });
  const back = await readiness();
  assert.equal(back.body.read_replica.in_use, true, JSON.stringify(back.body));
  await caughtUp();
  await whilePaused(async () => {
    await ingest('bat-2', 5, 4);
    // Back on the standby: the write it has not replayed is not in history yet.
    assert.equal(await historyCount('bat-2'), 1);
  });
  await caughtUp();
  assert.equal(await historyCount('bat-2'), 2);
});

test('a read URL that is not a standby (a promoted or mistyped server) is not used: reads stay on the primary', { skip }, async () => {
  const primary = await openPostgres({ url: svc.config.databaseUrl! });
  const notStandby = await openPostgres({ url: svc.config.databaseUrl! });
  const read = readReplica({ primary, replica: notStandby, maxLagSeconds: 30 });
  try {
    const state = await read.check();
    assert.deepEqual(state, { available: false, lagSeconds: null, reason: 'the read server is not a standby (promoted?)' });
    const r = await read.query<{ recovery: boolean }>('select pg_is_in_recovery() as recovery');
    assert.equal(r.rows[0]!.recovery, false);
    assert.deepEqual(read.counts(), { replica: 0, fallback: 1 });
  } finally {
    await read.close();
    await primary.close();
  }
  assert.ok(viaProxy.includes(svc.database!));
});
