// Data export through HTTP: the manifest from the owning modules, a job on the queue written in
// small chunks (EXPORT_CHUNK_ROWS=7, EXPORT_STEP_CHUNKS=2: many chunks and steps), progress,
// the whole export and one collection (JSON Lines and CSV) re-imported and compared row for row with
// the store, expiry, and a job whose instance stops midway finished by another instance.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { asset, call, ingest, json, tokenFor } from '../energy/helpers.ts';

const BASE = '/api/organisations/export';
const clock = new ManualClock('2026-11-20T12:00:00Z');
const ENV = { EXPORT_CHUNK_ROWS: '7', EXPORT_STEP_CHUNKS: '2', EXPORT_TTL_HOURS: '24', CARBON_API_BASE_URL: 'http://127.0.0.1:9', TARIFF_API_BASE_URL: 'http://127.0.0.1:9' };
let svc: TestService;
let admin: string;
let viewer: string;
let other: string;
let done: any;

/** Runs the job's steps (each queues the next 1 ms later) until it leaves queued/running. */
async function runToEnd(s: TestService, token: string, jobId: string) {
  for (let i = 0; i < 500; i++) {
    (s.clock as ManualClock).advance(1);
    await s.runDue();
    const j = json(await call(s, token, 'GET', `${BASE}/jobs/${jobId}`));
    if (j.status !== 'queued' && j.status !== 'running') return j;
  }
  throw new Error('export did not finish in 500 steps');
}

/** The store's rows of the organisation's telemetry, as the export writes them (a test-side reading). */
async function storedTelemetry(orgId: string) {
  const r = await svc.deps.db.query<any>(
    `select id::text as id, asset_id, ts, received_at, power_kw, soc_pct, voltage, "current", temp_c, status, run_id, intent_id, anomalies, raw
     from telemetry where org_id = $1 order by telemetry.received_at, telemetry.id`,
    [orgId],
  );
  return r.rows.map((x: any) => ({ ...x, ts: new Date(x.ts).toISOString(), received_at: new Date(x.received_at).toISOString() }));
}

function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let q = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (q) {
      if (ch === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') q = false;
      else cell += ch;
    } else if (ch === '"') q = true;
    else if (ch === ',') row.push(cell), (cell = '');
    else if (ch === '\r' && text[i + 1] === '\n') row.push(cell), rows.push(row), (row = []), (cell = ''), i++;
    else cell += ch;
  }
  return rows;
}

before(async () => {
  svc = await startTestService({ clock, env: ENV });
  await svc.createOrg('org-x');
  await svc.createOrg('org-y');
  admin = await tokenFor(svc, 'org-x');
  viewer = await tokenFor(svc, 'org-x', 'VIEWER');
  other = await tokenFor(svc, 'org-y');
  await asset(svc, admin, { asset_id: 'x-bat', site_id: 'x-site', asset_class: 'battery' });
  await asset(svc, other, { asset_id: 'y-bat', site_id: 'y-site', asset_class: 'battery' });
  const recs = [];
  for (let i = 0; i < 40; i++) recs.push({ device_id: 'x-bat', ts: new Date(Date.parse('2026-11-19T00:00:00Z') + i * 60_000).toISOString(), power_kw: i % 2 ? 1.5 : -2.25, soc_pct: 50 + i / 10 });
  // A device id a spreadsheet would run as a formula: defused in CSV.
  recs.push({ device_id: '=HYPERLINK("http://evil.example")', ts: '2026-11-18T12:00:00Z', power_kw: 1 });
  await ingest(svc, admin, recs);
  await ingest(svc, other, [{ device_id: 'y-bat', ts: '2026-11-19T00:00:00Z', power_kw: 9 }]);
});

after(async () => {
  await svc?.stop();
});

test('the manifest lists each owning module’s collections with the organisation’s row counts', async () => {
  const m = json(await call(svc, viewer, 'GET', `${BASE}/manifest`));
  const by = Object.fromEntries(m.collections.map((c: any) => [c.name, c]));
  assert.deepEqual(Object.keys(by).sort(), ['statements.baselines', 'statements.statements', 'telemetry.readings']);
  assert.equal(by['telemetry.readings'].row_count, 41);
  assert.equal(by['statements.baselines'].row_count, 0);
  assert.ok(by['telemetry.readings'].columns.includes('power_kw'));
  assert.ok(by['telemetry.readings'].description);
  assert.equal(m.expires_after_hours, 24);
  assert.equal(json(await call(svc, other, 'GET', `${BASE}/manifest`)).collections.find((c: any) => c.name === 'telemetry.readings').row_count, 1);
  assertRefused(await call(svc, null, 'GET', `${BASE}/manifest`), 401, 'Authorization header missing');
});

test('an export job is queued, written in chunks with progress, and downloaded whole as JSON Lines equal to the store', async () => {
  const res = await call(svc, admin, 'POST', BASE, {});
  assert.equal(res.statusCode, 202, res.body);
  const j = json(res);
  assert.equal(j.status, 'queued');
  assert.deepEqual(j.progress, { rows_written: 0, rows_expected: 41, percent: 0, collections_done: 0 });
  // One step: 2 chunks of 7 rows.
  clock.advance(1);
  await svc.runDue();
  const mid = json(await call(svc, admin, 'GET', `${BASE}/jobs/${j.job_id}`));
  assert.equal(mid.status, 'running');
  assert.deepEqual([mid.progress.rows_written, mid.progress.percent], [14, 34]);
  assertRefused(await call(svc, admin, 'GET', `${BASE}/jobs/${j.job_id}/download`), 409, 'Export is running: files are available once it is completed');
  done = await runToEnd(svc, admin, j.job_id);
  assert.equal(done.status, 'completed');
  assert.deepEqual([done.progress.rows_written, done.progress.percent], [41, 100]);
  assert.equal(done.expires_at, new Date(Date.parse(done.completed_at) + 24 * 3_600_000).toISOString());
  const dl = await call(svc, admin, 'GET', `${BASE}/jobs/${j.job_id}/download`);
  assert.equal(dl.statusCode, 200);
  assert.match(String(dl.headers['content-type']), /^application\/x-ndjson/);
  const lines = dl.body.split('\n').filter(Boolean).map((l: string) => JSON.parse(l));
  assert.deepEqual(new Set(lines.map((l: any) => l.collection)), new Set(['telemetry.readings']));
  // Re-imported and compared row for row with the store: no row missing, none twice, none foreign.
  assert.deepEqual(lines.map((l: any) => l.row), await storedTelemetry('org-x'));
});

test('one collection as JSON Lines and as CSV (RFC 4180, header row), both equal to the store', async () => {
  const stored = await storedTelemetry('org-x');
  const jl = await call(svc, admin, 'GET', `${BASE}/jobs/${done.job_id}/collections/telemetry.readings`);
  assert.equal(jl.statusCode, 200);
  assert.deepEqual(jl.body.split('\n').filter(Boolean).map((l: string) => JSON.parse(l)), stored);
  const csv = await call(svc, admin, 'GET', `${BASE}/jobs/${done.job_id}/collections/telemetry.readings?format=csv`);
  assert.equal(csv.statusCode, 200);
  assert.match(String(csv.headers['content-type']), /^text\/csv/);
  const rows = parseCsv(csv.body);
  const [header, ...data] = rows;
  assert.deepEqual(header.slice(0, 5), ['id', 'asset_id', 'ts', 'received_at', 'power_kw']);
  assert.equal(data.length, stored.length);
  const col = (n: string) => header.indexOf(n);
  assert.deepEqual(data.map((r) => [r[col('id')], r[col('ts')], r[col('power_kw')]]), stored.map((s: any) => [s.id, s.ts, String(s.power_kw)]));
  // Text a spreadsheet would run as a formula gets a leading quote, as the audit CSV does; numbers stay numbers.
  assert.deepEqual(data.map((r) => r[col('asset_id')]).filter((a) => a !== 'x-bat'), [`'=HYPERLINK("http://evil.example")`]);
  assert.ok(data.some((r) => r[col('power_kw')] === '-2.25'));
  assert.deepEqual(JSON.parse(data[0][col('raw')]), stored[0].raw);
  // A collection of the job with no rows: an empty file (CSV: the header alone).
  assert.equal((await call(svc, admin, 'GET', `${BASE}/jobs/${done.job_id}/collections/statements.baselines`)).body, '');
  assert.match((await call(svc, admin, 'GET', `${BASE}/jobs/${done.job_id}/collections/statements.baselines?format=csv`)).body, /^baseline_id,site_id,.*\r\n$/);
  assertRefused(await call(svc, admin, 'GET', `${BASE}/jobs/${done.job_id}/collections/nothing.here`), 404, 'Not Found');
  assertRefused(await call(svc, admin, 'GET', `${BASE}/jobs/${done.job_id}/collections/telemetry.readings?format=xml`), 422, { fields: ['query.format'] });
});

test('export refusals: roles, another organisation’s job, unknown collections, bad periods', async () => {
  assertRefused(await call(svc, viewer, 'POST', BASE, {}), 403, 'Insufficient permissions');
  assertRefused(await call(svc, admin, 'POST', BASE, { collections: ['nothing.here'] }), 422, { fields: ['body.collections'] });
  assertRefused(await call(svc, admin, 'POST', BASE, { from: '2026-11-19T00:00:00Z', to: '2026-11-18T00:00:00Z' }), 422, { fields: ['body.to'] });
  assertRefused(await call(svc, admin, 'POST', BASE, { format: 'xlsx' }), 422, { fields: ['body.format'] });
  for (const p of [`/jobs/${done.job_id}`, `/jobs/${done.job_id}/download`, `/jobs/${done.job_id}/collections/telemetry.readings`]) {
    assertRefused(await call(svc, other, 'GET', BASE + p), 404, 'Not Found');
    assertRefused(await call(svc, viewer, 'GET', BASE + p), 403, 'Insufficient permissions');
  }
  assertRefused(await call(svc, admin, 'GET', `${BASE}/jobs/nope`), 404, 'Not Found');
});

test('a period limits the rows; the other organisation’s export holds only its own row', async () => {
  const j = json(await call(svc, admin, 'POST', BASE, { collections: ['telemetry.readings'], from: '2026-11-19T00:10:00Z', to: '2026-11-19T00:20:00Z', format: 'csv' }));
  assert.equal(j.progress.rows_expected, 10);
  const end = await runToEnd(svc, admin, j.job_id);
  assert.equal(end.progress.rows_written, 10);
  const csv = parseCsv((await call(svc, admin, 'GET', `${BASE}/jobs/${j.job_id}/collections/telemetry.readings`)).body);
  assert.equal(csv.length, 11);
  const y = json(await call(svc, other, 'POST', BASE, {}));
  await runToEnd(svc, other, y.job_id);
  const lines = (await call(svc, other, 'GET', `${BASE}/jobs/${y.job_id}/download`)).body.split('\n').filter(Boolean).map((l: string) => JSON.parse(l));
  assert.deepEqual(lines.map((l: any) => l.row.asset_id), ['y-bat']);
});

test('files expire after the stated time and are deleted', async () => {
  clock.set(new Date(Date.parse(done.expires_at) + 1));
  clock.advance(10 * 60_000);
  await svc.runDue();
  const j = json(await call(svc, admin, 'GET', `${BASE}/jobs/${done.job_id}`));
  assert.equal(j.status, 'expired');
  assertRefused(await call(svc, admin, 'GET', `${BASE}/jobs/${done.job_id}/download`), 410, 'Export expired: its files were deleted');
  const left = await svc.deps.db.query<{ n: number }>(`select count(*)::int as n from export_chunks where job_id = $1`, [done.job_id]);
  assert.equal(left.rows[0].n, 0);
});

test('a job whose instance stops midway is finished by another instance: no row twice, none missing', async () => {
  const b = await startTestService({ clock, env: ENV, shareWith: svc });
  let jobId: string;
  try {
    const bAdmin = await tokenFor(b, 'org-x');
    jobId = json(await call(b, bAdmin, 'POST', BASE, { collections: ['telemetry.readings'] })).job_id;
    clock.advance(1);
    await b.runDue(); // one step on B, then B goes away with its next step queued
  } finally {
    await b.stop();
  }
  const mid = json(await call(svc, admin, 'GET', `${BASE}/jobs/${jobId!}`));
  assert.equal(mid.progress.rows_written, 14);
  const end = await runToEnd(svc, admin, jobId!);
  assert.equal(end.progress.rows_written, 41);
  const lines = (await call(svc, admin, 'GET', `${BASE}/jobs/${jobId!}/download`)).body.split('\n').filter(Boolean).map((l: string) => JSON.parse(l).row);
  assert.deepEqual(lines, await storedTelemetry('org-x'));
});
