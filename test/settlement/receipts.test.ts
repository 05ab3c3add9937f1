// Settlement receipts through HTTP: issue, read, list, CSV, share/unshare and the public lookup,
// and the refusals of each (role, other organisation, bad input, no credential).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { canonicalJson } from '../../src/kit/canonical-json.ts';
import { BASE, client, issueBody } from './client.ts';
import { assertRefused } from '../helpers/refusal.ts';

const ORG = 'settle-org';
const OTHER = 'settle-other';
let svc: TestService;
let call: ReturnType<typeof client>;

before(async () => {
  svc = await startTestService();
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  call = client(svc);
});
after(() => svc.stop());

async function issue(org = ORG, n = 0, over: Record<string, unknown> = {}) {
  const res = await call('POST', '/receipts/issue', { org, payload: issueBody(n, over) });
  assert.equal(res.statusCode, 201, res.body);
  return json(res);
}

test('issue: a signed receipt chained to the previous one, verifiable with the published key', async () => {
  const org = 'settle-issue';
  await svc.createOrg(org);
  const first = await issue(org, 0);
  const second = await issue(org, 1, { reference: undefined, source_basis: 'calculated', direction: 'turn_up' });
  assert.equal(first.seq, 1);
  assert.equal(first.prev_hash, '0'.repeat(64));
  assert.equal(second.seq, 2);
  assert.equal(second.prev_hash, first.receipt_hash);
  assert.equal(second.reference, null);
  assert.equal(first.delivered_wh, 1250);
  assert.equal(first.delivered_kwh, '1.250');
  assert.equal(first.period_start, '2026-03-01T00:00:00Z');
  assert.equal(first.shared, false);
  const body = JSON.parse(first.signed_body);
  assert.equal(canonicalJson(body), first.signed_body, 'signed_body is canonical');
  assert.deepEqual(Object.keys(body), [
    'asset_id',
    'delivered_wh',
    'direction',
    'issued_at',
    'kid',
    'organisation_id',
    'period_end',
    'period_start',
    'prev_hash',
    'receipt_id',
    'reference',
    'seq',
    'site_id',
    'source_basis',
    'type',
    'version',
  ]);
  assert.equal(body.type, 'settlement_receipt');
  assert.equal(body.organisation_id, org);
  assert.equal(createHash('sha256').update(first.signed_body).digest('hex'), first.receipt_hash);
  const keys = json(await call('GET', '/keys', { org, role: 'VIEWER' }));
  const key = keys.keys.find((k: { key_id: string }) => k.key_id === first.kid);
  assert.ok(key?.active);
  assert.ok(verify(null, Buffer.from(first.signed_body), createPublicKey(key.public_key_pem), Buffer.from(first.signature, 'base64url')));
  // The checkpoint names the head.
  assert.equal(keys.checkpoint.seq, 2);
  assert.equal(keys.checkpoint.head_hash, second.receipt_hash);
  assert.ok(verify(null, Buffer.from(keys.checkpoint.signed_body), createPublicKey(key.public_key_pem), Buffer.from(keys.checkpoint.signature, 'base64url')));
  // The same key is listed publicly for energy receipts.
  const esg = json(await svc.request({ method: 'GET', url: '/api/esg/keys' }));
  assert.ok(esg.keys.some((k: { key_id: string }) => k.key_id === first.kid));
  const audit = await svc.deps.db.query<{ action: string }>('select action from audit_log where org_id = $1 and target_id = $2', [org, first.receipt_id]);
  assert.deepEqual(
    audit.rows.map((x) => x.action),
    ['settlement.receipt.issue'],
  );
});

test('issue: bad input is 422 in the validation shape; nothing is written', async () => {
  const org = 'settle-bad';
  await svc.createOrg(org);
  const bad = [
    {},
    issueBody(0, { delivered_wh: -1 }),
    issueBody(0, { delivered_wh: 1.5 }),
    issueBody(0, { delivered_wh: '100' }),
    issueBody(0, { direction: 'sideways' }),
    issueBody(0, { source_basis: 'forecast' }),
    issueBody(0, { period_start: '2026-03-01 00:00' }),
    issueBody(0, { period_start: '2026-03-01T00:00:00+01:00' }),
    issueBody(0, { period_end: '2026-03-01T00:00:00Z' }), // not after the start
    issueBody(0, { period_end: '2026-04-15T00:00:00Z' }), // more than 31 days
    issueBody(0, { period_start: '2099-01-01T00:00:00Z', period_end: '2099-01-01T00:30:00Z' }), // future
    issueBody(0, { period_start: '2026-02-30T00:00:00Z' }),
    // A day the calendar lacks is refused, not rolled over into a signed 2 March; year 0 cannot be stored.
    issueBody(0, { period_start: '2026-02-30T00:00:00Z', period_end: '2026-03-03T00:00:00Z' }),
    issueBody(0, { period_start: '2026-02-28T00:00:00Z', period_end: '2026-02-29T00:00:00Z' }),
    issueBody(0, { period_start: '0000-01-01T00:00:00Z', period_end: '0000-01-01T00:30:00Z' }),
    issueBody(0, { period_start: '2026-02-28T23:30:00Z', period_end: '2026-02-28T24:00:00Z' }),
    issueBody(0, { site_id: '' }),
    issueBody(0, { extra: 1 }),
  ];
  for (const payload of bad) {
    const res = await call('POST', '/receipts/issue', { org, payload });
    assert.equal(res.statusCode, 422, JSON.stringify(payload));
    const detail = json(res).detail;
    assert.ok(Array.isArray(detail) && detail.every((d: object) => 'type' in d && 'loc' in d && 'msg' in d && 'input' in d), res.body);
  }
  const list = json(await call('GET', '/receipts', { org }));
  assert.deepEqual(list.receipts, []);
  assert.equal(json(await call('GET', '/keys', { org })).checkpoint, null);
});

test('issue: VIEWER and ANALYST may not issue; no credential is 401', async () => {
  for (const role of ['VIEWER', 'ANALYST'] as const) {
    const res = await call('POST', '/receipts/issue', { org: ORG, role, payload: issueBody() });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(json(res), { detail: 'Insufficient permissions' });
  }
  for (const [method, path] of [
    ['POST', '/receipts/issue'],
    ['GET', '/receipts'],
    ['GET', '/receipts.csv'],
    ['GET', '/receipts/x1'],
    ['GET', '/receipts/x1/verify'],
    ['POST', '/receipts/x1/share'],
    ['DELETE', '/receipts/x1/share'],
    ['GET', '/chain/verify'],
    ['POST', '/verify'],
    ['GET', '/reconciliation'],
    ['GET', '/reconciliation.csv'],
    ['GET', '/keys'],
  ] as const) {
    const res = await call(method, path, { org: ORG, auth: false, payload: method === 'POST' ? {} : undefined });
    assert.equal(res.statusCode, 401, `${method} ${path}`);
    assert.deepEqual(json(res), { detail: 'Authorization header missing' });
  }
});

test('get and list: own receipts only, newest first, paged with a cursor bound to the filters', async () => {
  const org = 'settle-list';
  await svc.createOrg(org);
  const issued = [];
  for (let i = 0; i < 5; i++) issued.push(await issue(org, i, i % 2 ? { asset_id: 'pv-1' } : {}));
  const one = await call('GET', `/receipts/${issued[2].receipt_id}`, { org, role: 'VIEWER' });
  assert.equal(one.statusCode, 200);
  assert.deepEqual(json(one), issued[2]);
  // Another organisation's id is 404, as is an unknown one.
  assertRefused(await call('GET', `/receipts/${issued[2].receipt_id}`, { org: OTHER }), 404, 'Not Found');
  assertRefused(await call('GET', '/receipts/no-such-receipt', { org }), 404, 'Not Found');

  const p1 = json(await call('GET', '/receipts?limit=2', { org, role: 'ANALYST' }));
  assert.deepEqual(
    p1.receipts.map((r: { seq: number }) => r.seq),
    [5, 4],
  );
  assert.equal(p1.has_more, true);
  const p2 = json(await call('GET', `/receipts?limit=2&cursor=${encodeURIComponent(p1.next_cursor)}`, { org }));
  assert.deepEqual(
    p2.receipts.map((r: { seq: number }) => r.seq),
    [3, 2],
  );
  const p3 = json(await call('GET', `/receipts?limit=2&cursor=${encodeURIComponent(p2.next_cursor)}`, { org }));
  assert.deepEqual(
    p3.receipts.map((r: { seq: number }) => r.seq),
    [1],
  );
  assert.equal(p3.next_cursor, null);
  // A cursor with other filters, or in another organisation, is invalid_cursor.
  const wrong = await call('GET', `/receipts?limit=2&asset_id=pv-1&cursor=${encodeURIComponent(p1.next_cursor)}`, { org });
  assert.equal(wrong.statusCode, 400);
  assert.deepEqual(json(wrong), { detail: 'invalid_cursor' });
  assertRefused(await call('GET', `/receipts?cursor=${encodeURIComponent(p1.next_cursor)}`, { org: OTHER }), 400, 'invalid_cursor');
  const pv = json(await call('GET', '/receipts?asset_id=pv-1', { org }));
  assert.deepEqual(
    pv.receipts.map((r: { seq: number }) => r.seq),
    [4, 2],
  );
  // Nobody else's receipts.
  const other = json(await call('GET', '/receipts', { org: OTHER }));
  assert.ok(other.receipts.every((r: { organisation_id: string }) => r.organisation_id === OTHER));
  for (const [q, field] of [
    ['limit=0', 'query.limit'],
    ['limit=501', 'query.limit'],
    ['shared=maybe', 'query.shared'],
    ['cursor=' + 'x'.repeat(600), 'query.cursor'],
  ]) {
    assertRefused(await call('GET', `/receipts?${q}`, { org }), 422, { fields: [field] }, q);
  }
  assertRefused(await call('GET', '/receipts?cursor=garbage', { org }), 400, 'invalid_cursor');
});

test('receipts.csv: RFC 4180 with a header row, formulas defused, own organisation only', async () => {
  const org = 'settle-csv';
  await svc.createOrg(org);
  await issue(org, 0, { reference: '=HYPERLINK("http://x")' });
  await issue(org, 1, { reference: 'plain, with comma' });
  await issue(OTHER, 0, { reference: 'not-yours' });
  const res = await call('GET', '/receipts.csv', { org, role: 'VIEWER' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/csv/);
  const lines = res.body.split('\r\n');
  assert.equal(
    lines[0],
    'seq,receipt_id,receipt_hash,prev_hash,issued_at,site_id,asset_id,reference,period_start,period_end,direction,delivered_wh,delivered_kwh,source_basis,kid,signature,shared',
  );
  assert.equal(lines.length, 4); // header, two rows, trailing empty
  assert.ok(lines[1].startsWith('2,'));
  assert.ok(lines[1].includes('"plain, with comma"'));
  assert.ok(lines[2].includes(`"'=HYPERLINK(""http://x"")"`));
  assert.ok(!res.body.includes('not-yours'));
  assertRefused(await call('GET', '/receipts.csv?shared=perhaps', { org }), 422, { fields: ['query.shared'] });
});

test('share and unshare: the public lookup serves only shared receipts; both audited; refusals', async () => {
  const org = 'settle-share';
  await svc.createOrg(org);
  const r = await issue(org, 0);
  const pub = () => svc.request({ method: 'GET', url: `${BASE}/public/receipts/${r.receipt_hash}` });
  assertRefused(await pub(), 404, 'Not Found', 'not shared yet');

  for (const role of ['VIEWER', 'ANALYST'] as const) {
    assertRefused(await call('POST', `/receipts/${r.receipt_id}/share`, { org, role }), 403, 'Insufficient permissions');
  }
  assertRefused(await call('POST', `/receipts/${r.receipt_id}/share`, { org: OTHER }), 404, 'Not Found', 'another organisation');
  assertRefused(await call('POST', '/receipts/unknown/share', { org }), 404, 'Not Found');

  const shared = await call('POST', `/receipts/${r.receipt_id}/share`, { org, role: 'ORG_ADMIN' });
  assert.equal(shared.statusCode, 200, shared.body);
  assert.equal(json(shared).shared, true);
  assert.equal(json(shared).public_path, `${BASE}/public/receipts/${r.receipt_hash}`);
  assert.equal((await call('POST', `/receipts/${r.receipt_id}/share`, { org })).statusCode, 200, 'sharing again changes nothing');

  const p = await pub();
  assert.equal(p.statusCode, 200);
  const body = json(p);
  assert.equal(body.receipt.signed_body, r.signed_body);
  assert.equal(body.key.key_id, r.kid);
  assert.ok(verify(null, Buffer.from(body.receipt.signed_body), createPublicKey(body.key.public_key_pem), Buffer.from(body.receipt.signature, 'base64url')));

  assertRefused(await call('DELETE', `/receipts/${r.receipt_id}/share`, { org: OTHER }), 404, 'Not Found');
  assertRefused(await call('DELETE', `/receipts/${r.receipt_id}/share`, { org, role: 'VIEWER' }), 403, 'Insufficient permissions');
  const unshared = await call('DELETE', `/receipts/${r.receipt_id}/share`, { org });
  assert.equal(unshared.statusCode, 200);
  assert.equal(json(unshared).shared, false);
  assertRefused(await pub(), 404, 'Not Found', 'withdrawn');
  assert.equal((await call('DELETE', `/receipts/${r.receipt_id}/share`, { org })).statusCode, 200, 'unsharing again changes nothing');

  const audit = await svc.deps.db.query<{ action: string }>('select action from audit_log where org_id = $1 and target_id = $2 order by created_at, id', [
    org,
    r.receipt_id,
  ]);
  assert.deepEqual(
    audit.rows.map((x) => x.action),
    ['settlement.receipt.issue', 'settlement.receipt.share', 'settlement.receipt.unshare'],
  );
  // The receipt itself is unchanged by sharing.
  assert.equal(json(await call('GET', `/receipts/${r.receipt_id}`, { org })).signed_body, r.signed_body);
});

test('public lookup: unknown hash 404, malformed hash 422, needs no credential', async () => {
  const unknown = await svc.request({ method: 'GET', url: `${BASE}/public/receipts/${'a'.repeat(64)}` });
  assert.equal(unknown.statusCode, 404);
  assert.deepEqual(json(unknown), { detail: 'Not Found' });
  for (const h of ['abc', 'A'.repeat(64), 'g'.repeat(64)]) {
    const res = await svc.request({ method: 'GET', url: `${BASE}/public/receipts/${h}` });
    assertRefused(res, 422, { fields: ['path.receipt_hash'] }, h);
  }
});

test('issue: production without ESG_SIGNING_KEY answers 503 Signing key not configured and writes nothing', async () => {
  const prod = await startTestService({ env: { NODE_ENV: 'production', HUB_OCPP_PUBLIC_URL: 'wss://hub.example.com' } });
  try {
    await prod.createOrg(ORG);
    const res = await client(prod)('POST', '/receipts/issue', { org: ORG, payload: issueBody() });
    assert.equal(res.statusCode, 503);
    assert.deepEqual(json(res), { detail: 'Signing key not configured' });
    assert.deepEqual(json(await client(prod)('GET', '/receipts', { org: ORG })).receipts, []);
  } finally {
    await prod.stop();
  }
});
