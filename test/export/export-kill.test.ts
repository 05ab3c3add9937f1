// An export job whose process is killed in the middle of a step (SIGKILL: no shutdown, its lease
// still held) is finished by another instance once the lease has passed on that instance's clock;
// the download is compared row for row with the store: no row twice, none missing. The killed
// instance is a whole service in a child process (bench/lib/service-child.ts) on the test's
// PostgreSQL database and namespace; the survivor is the test's in-process service.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, realServers, TEST_JWT_SECRET, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { startChild, type Child } from '../../bench/lib/child.ts';

const BASE = '/api/organisations/export';
const ROWS = 60_000;
const LEASE_MS = 15_000;
const ENV = { EXPORT_CHUNK_ROWS: '500', EXPORT_STEP_CHUNKS: '10000', JOBS_LEASE_MS: String(LEASE_MS) };
let svc: TestService | undefined;
let child: Child | undefined;

after(async () => {
  if (child && child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill('SIGKILL');
  await svc?.stop();
});

test('a job killed mid-step in another process is finished by a second instance after its lease: every row once', {
  skip: realServers.database ? false : 'needs PostgreSQL: the embedded store lives inside one process, so a second process cannot share it',
}, async () => {
  // The survivor's clock stands at the real time now, so the job (due by the child's real clock) is not due for it yet.
  const clock = new ManualClock(new Date());
  svc = await startTestService({ clock, env: ENV });
  await svc.createOrg('org-k');
  // Fixture rows, written straight to the store (an ingestion of 60,000 records through HTTP would only slow the test).
  await svc.deps.db.query(
    `insert into telemetry (org_id, asset_id, ts, received_at, power_kw, soc_pct, status, raw)
     select 'org-k', 'a-' || (i % 7), timestamptz '2026-11-01T00:00:00Z' + i * interval '1 minute', timestamptz '2026-11-01T00:00:00Z' + i * interval '1 minute',
            (i % 13) * 0.25 - 1, i % 101, 'idle', jsonb_build_object('i', i)
     from generate_series(1, $1::int) as i`,
    [ROWS],
  );
  child = await startChild(
    {
      ...process.env,
      ...ENV,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      JWT_SECRET: TEST_JWT_SECRET,
      DATABASE_URL: svc.config.databaseUrl!,
      NAMESPACE: svc.config.namespace,
      JOBS_POLL_MS: '20',
      BENCH_ORG: 'child-own',
    } as Record<string, string>,
    () => {},
    { pin: false },
  );
  const token = await svc.token({ orgId: 'org-k' });
  const res = await fetch(new URL(BASE, child.address), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ collections: ['telemetry.readings'] }),
  });
  assert.equal(res.status, 202);
  const jobId = ((await res.json()) as { job_id: string }).job_id;
  // Wait (on the store, no timer) until the child is in the middle of its step: chunks written, not all.
  let seen = 0;
  for (let i = 0; i < 100_000 && seen === 0; i++) {
    const r = await svc.deps.db.query<{ n: string }>(`select rows_written::text as n from export_jobs where job_id = $1`, [jobId]);
    seen = Number(r.rows[0].n);
  }
  child.proc.kill('SIGKILL');
  await new Promise((r) => child!.proc.once('exit', r));
  const killed = json(await svc.request({ method: 'GET', url: `${BASE}/jobs/${jobId}`, headers: { authorization: `Bearer ${token}` } }));
  assert.equal(killed.status, 'running');
  assert.ok(killed.progress.done > 0 && killed.progress.done < ROWS, `killed at ${killed.progress.done} of ${ROWS}`);
  // The step's job is still held under the dead child's lease: not due for the survivor until the lease passes.
  const held = await svc.deps.db.query<{ n: number }>(`select count(*)::int as n from jobs where kind = 'export.write' and locked_until > now()`);
  assert.equal(held.rows[0].n, 1);
  clock.set(new Date(Date.now() + LEASE_MS / 2));
  await svc.runDue();
  assert.equal(
    json(await svc.request({ method: 'GET', url: `${BASE}/jobs/${jobId}`, headers: { authorization: `Bearer ${token}` } })).progress.done,
    killed.progress.done,
  );
  // Past the lease, the survivor takes the step over and carries on from the last chunk written.
  let end: any;
  for (let i = 0; i < 100; i++) {
    clock.set(new Date(Math.max(Date.now(), clock.now().getTime()) + LEASE_MS + 1_000));
    await svc.runDue();
    end = json(await svc.request({ method: 'GET', url: `${BASE}/jobs/${jobId}`, headers: { authorization: `Bearer ${token}` } }));
    if (end.status !== 'running' && end.status !== 'queued') break;
  }
  assert.equal(end.status, 'completed');
  assert.equal(end.progress.done, ROWS);
  const dl = await svc.request({ method: 'GET', url: `${BASE}/jobs/${jobId}/download`, headers: { authorization: `Bearer ${token}` } });
  assert.equal(dl.statusCode, 200);
  const got = dl.body
    .split('\n')
    .filter(Boolean)
    .map((l: string) => JSON.parse(l).row);
  const stored = await svc.deps.db.query<{ id: string; ts: Date; raw: object; power_kw: number }>(
    `select id::text as id, ts, raw, power_kw from telemetry where org_id = 'org-k' order by received_at, id`,
  );
  assert.equal(got.length, ROWS);
  assert.equal(new Set(got.map((r: any) => r.id)).size, ROWS, 'no row twice');
  assert.deepEqual(
    got.map((r: any) => [r.id, r.ts, r.power_kw, r.raw]),
    stored.rows.map((r) => [r.id, r.ts.toISOString(), r.power_kw, r.raw]),
  );
});
