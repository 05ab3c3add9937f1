// Fleet savings statements through HTTP: a site meter's import from the energy model, worked by hand.
//   Reference 1-2 Oct 2026: 10.000 + 12.000 = 22.000 kWh over 2 days → mean 11.000 kWh a day.
//   Period 1-2 Nov 2026: 8.500 + 7.250 = 15.750 kWh; expected 22.000; saved 6.250 kWh.
//   Money at 24.5 p/kWh: 6.250 × 24.5 / 100 = £1.53125 → 1.53.
//   CO2e: no 2026 DESNZ set, the 2025 one (0.17700) stands: (2.500 + 3.750) × 0.177 = 1.10625 → 1.106 kg.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { asset, call, ingest, json, refresh, tokenFor } from '../energy/helpers.ts';

const BASE = '/api/vpp/vpp/fleet-statements';
const clock = new ManualClock('2026-11-20T12:00:00Z');
let svc: TestService;
let admin: string;
/** A second administrator of the same organisation: the party that agrees what admin proposed. */
let agreer: string;
let viewer: string;
let other: string;
let baselineId: string;
let statement: any;

function day(d: string, v: number, kwh: number) {
  return [
    { device_id: 's-meter', ts: `${d}T10:00:00Z`, import_kwh: v, export_kwh: 0 },
    { device_id: 's-meter', ts: `${d}T10:30:00Z`, import_kwh: Math.round((v + kwh) * 1000) / 1000, export_kwh: 0 },
  ];
}

before(async () => {
  svc = await startTestService({ clock, env: { CARBON_API_BASE_URL: 'http://127.0.0.1:9', TARIFF_API_BASE_URL: 'http://127.0.0.1:9' } });
  await svc.createOrg('org-s');
  await svc.createOrg('org-t');
  admin = await tokenFor(svc, 'org-s');
  agreer = await tokenFor(svc, 'org-s', 'OPERATOR');
  viewer = await tokenFor(svc, 'org-s', 'VIEWER');
  other = await tokenFor(svc, 'org-t');
  await asset(svc, admin, { asset_id: 's-meter', site_id: 'depot-a', asset_class: 'site_meter' });
  await asset(svc, other, { asset_id: 't-meter', site_id: 'depot-t', asset_class: 'site_meter' });
  await ingest(svc, admin, [...day('2026-10-01', 100, 10), ...day('2026-10-02', 110, 12), ...day('2026-11-01', 122, 8.5), ...day('2026-11-02', 130.5, 7.25)]);
  await refresh(svc);
});

after(async () => {
  await svc?.stop();
});

const propose = (token: string, site: string, body: object) => call(svc, token, 'POST', `${BASE}/sites/${site}/baselines`, body);
const REF = { reference_from: '2026-10-01', reference_to: '2026-10-02', tariff_pence_per_kwh: '24.5', note: 'October before the chargers were rescheduled' };

test('a baseline is proposed from the site’s own import over the reference period', async () => {
  const res = await propose(admin, 'depot-a', REF);
  assert.equal(res.statusCode, 201, res.body);
  const b = json(res);
  baselineId = b.baseline_id;
  assert.equal(b.status, 'proposed');
  assert.equal(b.method, 'reference_period_mean_daily_import');
  assert.equal(b.tariff_pence_per_kwh, '24.5000');
  assert.deepEqual(
    [b.figures.reference_days, b.figures.days_with_data, b.figures.reference_import_kwh, b.figures.mean_daily_import_kwh],
    [2, 2, '22.000', '11.000'],
  );
  assert.equal(b.agreed_at, null);
  assert.ok(b.proposed_by);
  // Re-read: the same.
  assert.deepEqual(json(await call(svc, viewer, 'GET', `${BASE}/baselines/${baselineId}`)), b);
});

test('proposing is refused for a viewer, another organisation’s site, bad periods and a period without data', async () => {
  assertRefused(await propose(viewer, 'depot-a', REF), 403, 'Insufficient permissions');
  assertRefused(await propose(other, 'depot-a', REF), 404, 'Site not found');
  assertRefused(await propose(admin, 'depot-a', { ...REF, reference_to: '2026-09-30' }), 422, { fields: ['body.reference_to'] });
  assertRefused(await propose(admin, 'depot-a', { ...REF, reference_to: '2026-11-20' }), 422, { fields: ['body.reference_to'] });
  assertRefused(await propose(admin, 'depot-a', { ...REF, tariff_pence_per_kwh: '24.12345' }), 422, { fields: ['body.tariff_pence_per_kwh'] });
  // A day the calendar does not have is a field error, not a 500 from the store's date column.
  assertRefused(await propose(admin, 'depot-a', { ...REF, reference_from: '2026-09-31' }), 422, { fields: ['body.reference_from'] });
  assertRefused(await propose(admin, 'depot-a', { ...REF, reference_to: '2026-02-29' }), 422, { fields: ['body.reference_to'] });
  assertRefused(
    await propose(admin, 'depot-a', { ...REF, reference_from: '2026-09-01', reference_to: '2026-09-02' }),
    409,
    'No energy figures for the site in the reference period',
  );
  assertRefused(await call(svc, null, 'POST', `${BASE}/sites/depot-a/baselines`, REF), 401, 'Authorization header missing');
});

test('a site’s baselines are listed newest first; another organisation sees none of them', async () => {
  const l = json(await call(svc, viewer, 'GET', `${BASE}/sites/depot-a/baselines`));
  assert.equal(l.site_id, 'depot-a');
  assert.ok(l.baselines.some((b: any) => b.baseline_id === baselineId));
  assertRefused(await call(svc, other, 'GET', `${BASE}/sites/depot-a/baselines`), 404, 'Site not found');
  assertRefused(await call(svc, other, 'GET', `${BASE}/baselines/${baselineId}`), 404, 'Not Found');
});

test('withdraw: a withdrawn baseline can no longer be agreed, and cannot carry a statement', async () => {
  const w = json(await propose(admin, 'depot-a', REF));
  assertRefused(await call(svc, viewer, 'POST', `${BASE}/baselines/${w.baseline_id}/withdraw`, {}), 403, 'Insufficient permissions');
  assertRefused(await call(svc, other, 'POST', `${BASE}/baselines/${w.baseline_id}/withdraw`, {}), 404, 'Not Found');
  const res = await call(svc, admin, 'POST', `${BASE}/baselines/${w.baseline_id}/withdraw`, { reason: 'wrong tariff' });
  assert.equal(res.statusCode, 200, res.body);
  const wd = json(res);
  assert.equal(wd.status, 'withdrawn');
  assert.equal(wd.withdrawn_reason, 'wrong tariff');
  assert.equal(wd.withdrawn_at, '2026-11-20T12:00:31.000Z');
  assertRefused(
    await call(svc, admin, 'POST', `${BASE}/baselines/${w.baseline_id}/agree`),
    409,
    'Baseline is withdrawn: only a proposed baseline can be agreed or withdrawn',
  );
  assertRefused(
    await call(svc, admin, 'POST', `${BASE}/sites/depot-a/statements`, { baseline_id: w.baseline_id, period_from: '2026-11-01', period_to: '2026-11-02' }),
    409,
    'Baseline is withdrawn: a statement needs an agreed baseline',
  );
});

test('agree: who and when are recorded and the baseline is frozen', async () => {
  assertRefused(
    await call(svc, admin, 'POST', `${BASE}/sites/depot-a/statements`, { baseline_id: baselineId, period_from: '2026-11-01', period_to: '2026-11-02' }),
    409,
    'Baseline is proposed: a statement needs an agreed baseline',
  );
  assertRefused(await call(svc, viewer, 'POST', `${BASE}/baselines/${baselineId}/agree`), 403, 'Insufficient permissions');
  assertRefused(await call(svc, other, 'POST', `${BASE}/baselines/${baselineId}/agree`), 404, 'Not Found');
  // The proposer cannot agree their own proposal, whatever their role; it stays proposed.
  const sameUser = await svc.token({
    orgId: 'org-s',
    roles: ['ORG_ADMIN'],
    userId: json(await call(svc, admin, 'GET', `${BASE}/baselines/${baselineId}`)).proposed_by,
  });
  for (const t of [admin, sameUser]) {
    assertRefused(await call(svc, t, 'POST', `${BASE}/baselines/${baselineId}/agree`), 403, 'A baseline must be agreed by someone other than its proposer');
  }
  assert.equal(json(await call(svc, viewer, 'GET', `${BASE}/baselines/${baselineId}`)).status, 'proposed');
  const res = await call(svc, agreer, 'POST', `${BASE}/baselines/${baselineId}/agree`);
  assert.equal(res.statusCode, 200, res.body);
  const a = json(res);
  assert.equal(a.status, 'agreed');
  assert.equal(a.agreed_at, '2026-11-20T12:00:31.000Z');
  assert.ok(a.agreed_by);
  assert.notEqual(a.agreed_by, a.proposed_by);
  assertRefused(
    await call(svc, admin, 'POST', `${BASE}/baselines/${baselineId}/agree`),
    409,
    'Baseline is agreed: only a proposed baseline can be agreed or withdrawn',
  );
  assertRefused(
    await call(svc, admin, 'POST', `${BASE}/baselines/${baselineId}/withdraw`, {}),
    409,
    'Baseline is agreed: only a proposed baseline can be agreed or withdrawn',
  );
});

test('a statement is issued against the agreed baseline: savings in kWh, pounds and CO2e, signed', async () => {
  const res = await call(svc, admin, 'POST', `${BASE}/sites/depot-a/statements`, {
    baseline_id: baselineId,
    period_from: '2026-11-01',
    period_to: '2026-11-02',
  });
  assert.equal(res.statusCode, 201, res.body);
  statement = json(res);
  assert.deepEqual([statement.expected_import_kwh, statement.actual_import_kwh, statement.days, statement.days_with_data], ['22.000', '15.750', 2, 2]);
  assert.equal(statement.savings.kwh.value, '6.250');
  assert.equal(statement.savings.gbp.value, '1.53');
  assert.equal(statement.savings.co2e_kg.value, '1.106');
  assert.deepEqual(
    statement.savings.co2e_kg.factors.map((f: any) => [f.year, f.kg_per_kwh]),
    [[2025, '0.17700']],
  );
  for (const f of ['kwh', 'gbp', 'co2e_kg']) assert.ok(statement.savings[f].data_basis && statement.savings[f].method, f);
  assert.equal(statement.baseline.baseline_id, baselineId);
  assert.equal(statement.baseline.mean_daily_import_kwh, '11.000');
  // Signed as settlement receipts are: SHA-256 of the signed body, Ed25519 with the published key.
  assert.equal(statement.statement_hash, createHash('sha256').update(statement.signed_body).digest('hex'));
  const keys = json(await call(svc, null, 'GET', '/api/esg/keys')).keys;
  const key = keys.find((k: any) => k.key_id === statement.kid);
  assert.ok(key, 'the signing key is published');
  assert.ok(verify(null, Buffer.from(statement.signed_body), createPublicKey(key.public_key_pem), Buffer.from(statement.signature, 'base64url')));
  assert.equal(JSON.parse(statement.signed_body).savings.gbp.value, '1.53');
});

test('issuing is refused for a viewer, another organisation, a bad period and a period without data', async () => {
  const body = { baseline_id: baselineId, period_from: '2026-11-01', period_to: '2026-11-02' };
  assertRefused(await call(svc, viewer, 'POST', `${BASE}/sites/depot-a/statements`, body), 403, 'Insufficient permissions');
  assertRefused(await call(svc, other, 'POST', `${BASE}/sites/depot-a/statements`, body), 404, 'Site not found');
  assertRefused(await call(svc, other, 'POST', `${BASE}/sites/depot-t/statements`, body), 422, { fields: ['body.baseline_id'] });
  assertRefused(await call(svc, admin, 'POST', `${BASE}/sites/depot-a/statements`, { ...body, period_from: '2026-11-03' }), 422, {
    fields: ['body.period_to'],
  });
  assertRefused(await call(svc, admin, 'POST', `${BASE}/sites/depot-a/statements`, { ...body, period_from: '2026-10-31', period_to: '2026-11-31' }), 422, {
    fields: ['body.period_to'],
  });
  assertRefused(await call(svc, admin, 'POST', `${BASE}/sites/depot-a/statements`, { ...body, period_from: '2026-09-31' }), 422, {
    fields: ['body.period_from'],
  });
  assertRefused(
    await call(svc, admin, 'POST', `${BASE}/sites/depot-a/statements`, { ...body, period_from: '2026-11-05', period_to: '2026-11-06' }),
    409,
    'No energy figures for the site in the statement period',
  );
});

test('statements are listed in cursor pages and read one by one; never another organisation’s', async () => {
  const second = json(
    await call(svc, admin, 'POST', `${BASE}/sites/depot-a/statements`, { baseline_id: baselineId, period_from: '2026-11-01', period_to: '2026-11-01' }),
  );
  assert.equal(second.savings.kwh.value, '2.500');
  const p1 = json(await call(svc, viewer, 'GET', `${BASE}/statements?limit=1`));
  assert.equal(p1.statements.length, 1);
  assert.equal(p1.has_more, true);
  const p2 = json(await call(svc, viewer, 'GET', `${BASE}/statements?limit=1&cursor=${encodeURIComponent(p1.next_cursor)}`));
  assert.deepEqual(new Set([p1.statements[0].statement_id, p2.statements[0].statement_id]), new Set([statement.statement_id, second.statement_id]));
  assert.equal(p2.has_more, false);
  assert.deepEqual(json(await call(svc, other, 'GET', `${BASE}/statements`)).statements, []);
  assertRefused(await call(svc, viewer, 'GET', `${BASE}/statements?limit=0`), 422, { fields: ['query.limit'] });
  assert.deepEqual(json(await call(svc, viewer, 'GET', `${BASE}/statements/${statement.statement_id}`)), statement);
  assertRefused(await call(svc, other, 'GET', `${BASE}/statements/${statement.statement_id}`), 404, 'Not Found');
});

test('print: an HTML page with the figures, baseline, signature, hash and how to verify', async () => {
  const res = await call(svc, viewer, 'GET', `${BASE}/statements/${statement.statement_id}/print`);
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/html/);
  for (const s of [
    statement.statement_hash,
    statement.signature,
    '6.250 kWh',
    '1.53 GBP',
    '1.106 kg CO2e',
    '24.5000 p/kWh',
    '2026-10-01 to 2026-10-02',
    `/public/verify/${statement.statement_hash}`,
  ]) {
    assert.ok(res.body.includes(s), s);
  }
  assertRefused(await call(svc, other, 'GET', `${BASE}/statements/${statement.statement_id}/print`), 404, 'Not Found');
});

test('public verification by hash, with no credential, shows only what the statement says', async () => {
  const res = await call(svc, null, 'GET', `${BASE}/public/verify/${statement.statement_hash}`);
  assert.equal(res.statusCode, 200, res.body);
  const v = json(res);
  assert.equal(v.valid, true);
  assert.deepEqual(v.problems, []);
  assert.deepEqual(v.statement, JSON.parse(statement.signed_body));
  assert.equal(v.key.key_id, statement.kid);
  assert.deepEqual(Object.keys(v).sort(), [
    'key',
    'problems',
    'recorded',
    'signature',
    'signature_algorithm',
    'signed_body',
    'statement',
    'statement_hash',
    'valid',
    'verified_at',
  ]);
  assertRefused(await call(svc, null, 'GET', `${BASE}/public/verify/${'0'.repeat(64)}`), 404, 'Not Found');
  assertRefused(await call(svc, null, 'GET', `${BASE}/public/verify/NOT-A-HASH`), 422, { fields: ['path.statement_hash'] });
});

test('public verification of a presented copy: the intact copy passes, a tampered one is refused with what failed', async () => {
  const ok = await call(svc, null, 'POST', `${BASE}/public/verify`, {
    signed_body: statement.signed_body,
    signature: statement.signature,
    statement_hash: statement.statement_hash,
  });
  assert.equal(ok.statusCode, 200, ok.body);
  assert.deepEqual([json(ok).valid, json(ok).recorded, json(ok).problems], [true, true, []]);
  // The pounds raised, the body kept canonical: the signature no longer verifies and no such statement was issued.
  const tampered = statement.signed_body.replace('"value":"1.53"', '"value":"15.30"');
  assert.notEqual(tampered, statement.signed_body);
  const bad = await call(svc, null, 'POST', `${BASE}/public/verify`, {
    signed_body: tampered,
    signature: statement.signature,
    statement_hash: statement.statement_hash,
  });
  assert.equal(bad.statusCode, 422);
  const b = json(bad);
  assert.equal(b.detail, 'Statement does not verify: bad_signature, hash_mismatch, not_recorded');
  assert.equal(b.valid, false);
  assert.equal(b.recorded, false);
  assert.deepEqual(
    b.problems.map((p: any) => p.code),
    ['bad_signature', 'hash_mismatch', 'not_recorded'],
  );
  // Re-spaced: not canonical.
  const spaced = json(
    await call(svc, null, 'POST', `${BASE}/public/verify`, {
      signed_body: JSON.stringify(JSON.parse(statement.signed_body), null, 1),
      signature: statement.signature,
    }),
  );
  assert.ok(spaced.problems.some((p: any) => p.code === 'non_canonical_body'));
  assertRefused(await call(svc, null, 'POST', `${BASE}/public/verify`, { signed_body: statement.signed_body }), 422, { fields: ['body.signature'] });
});

test('the statements collections are exported and re-imported equal, row for row, to the store', async () => {
  const res = await call(svc, admin, 'POST', '/api/organisations/export', { collections: ['statements.baselines', 'statements.statements'] });
  assert.equal(res.statusCode, 202, res.body);
  const job = json(res);
  for (let i = 0; i < 50 && json(await call(svc, admin, 'GET', `/api/organisations/export/jobs/${job.job_id}`)).status !== 'completed'; i++) {
    clock.advance(1);
    await svc.runDue();
  }
  const lines = (await call(svc, admin, 'GET', `/api/organisations/export/jobs/${job.job_id}/download`)).body
    .split('\n')
    .filter(Boolean)
    .map((l: string) => JSON.parse(l));
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v);
  const norm = (rows: any[]) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, iso(v)])));
  const db = svc.deps.db;
  const baselines = await db.query<any>(
    `select baseline_id, site_id, method, to_char(reference_from, 'YYYY-MM-DD') as reference_from, to_char(reference_to, 'YYYY-MM-DD') as reference_to,
            figures, tariff_pence_per_kwh::text as tariff_pence_per_kwh, note, status, proposed_by, proposed_at, agreed_by, agreed_at,
            withdrawn_by, withdrawn_at, withdrawn_reason
     from statement_baselines where org_id = 'org-s' order by baseline_id`,
  );
  const statements = await db.query<any>(
    `select statement_id, site_id, baseline_id, statement_hash, signed_body, signature, kid, issued_at,
            to_char(period_from, 'YYYY-MM-DD') as period_from, to_char(period_to, 'YYYY-MM-DD') as period_to, issued_by
     from statement_statements where org_id = 'org-s' order by statement_id`,
  );
  assert.equal(baselines.rows.length, 2);
  assert.equal(statements.rows.length, 2);
  assert.deepEqual(
    lines.filter((l: any) => l.collection === 'statements.baselines').map((l: any) => l.row),
    norm(baselines.rows),
  );
  assert.deepEqual(
    lines.filter((l: any) => l.collection === 'statements.statements').map((l: any) => l.row),
    norm(statements.rows),
  );
  // The exported statement still verifies publicly.
  const s = lines.find((l: any) => l.collection === 'statements.statements').row;
  assert.equal(json(await call(svc, null, 'POST', `${BASE}/public/verify`, { signed_body: s.signed_body, signature: s.signature })).valid, true);
});
