// The receipt chain through HTTP: concurrent issues never fork it, the stored chain and single
// receipts verify (and stop verifying when the store is tampered with), and presented copies are
// checked from their published form.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { startTestService, json, realServers, type TestService } from '../helpers/service.ts';
import { client, issueBody } from './client.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let call: ReturnType<typeof client>;
const OTHER = 'chain-other';

before(async () => {
  svc = await startTestService();
  await svc.createOrg(OTHER);
  call = client(svc);
});
after(() => svc.stop());

async function issueMany(org: string, n: number) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const res = await call('POST', '/receipts/issue', { org, payload: issueBody(i) });
    assert.equal(res.statusCode, 201, res.body);
    out.push(json(res));
  }
  return out;
}

const present = (r: { signed_body: string; signature: string; receipt_hash: string }) => ({
  signed_body: r.signed_body,
  signature: r.signature,
  receipt_hash: r.receipt_hash,
});

test('50 parallel issues from two instances: seq 1..50, no gaps, no fork, every link right', {
  skip:
    !realServers.database &&
    'needs PostgreSQL: appends serialise on a row lock of the chain head, and PGlite runs one transaction at a time, so no two issues ever race there',
}, async () => {
  const org = 'chain-parallel';
  await svc.createOrg(org);
  // Two instances with their own connection pools on one schema: 50 issues in concurrent transactions.
  const second = await startTestService({ shareWith: svc });
  const calls = [call, client(second)];
  let results;
  try {
    results = await Promise.all(Array.from({ length: 50 }, (_, i) => calls[i % 2]('POST', '/receipts/issue', { org, payload: issueBody(i) })));
  } finally {
    await second.stop();
  }
  assert.deepEqual(
    results.map((r) => r.statusCode),
    Array(50).fill(201),
  );
  const bySeq = results.map((r) => json(r)).sort((a, b) => a.seq - b.seq);
  assert.deepEqual(
    bySeq.map((r) => r.seq),
    Array.from({ length: 50 }, (_, i) => i + 1),
  );
  for (let i = 1; i < 50; i++) assert.equal(bySeq[i].prev_hash, bySeq[i - 1].receipt_hash, `link at seq ${i + 1}`);
  const chain = json(await call('GET', '/chain/verify', { org, role: 'VIEWER' }));
  assert.equal(chain.valid, true, JSON.stringify(chain.problems));
  assert.equal(chain.checked, 50);
  assert.equal(chain.checkpoint.seq, 50);
  assert.equal(chain.checkpoint.head_hash, bySeq[49].receipt_hash);
  assert.equal(chain.checkpoint_valid, true);
});

test('chain/verify: a tampered, removed or reordered stored receipt is found at its seq; other organisations unaffected', async () => {
  const org = 'chain-tamper';
  await svc.createOrg(org);
  const rs = await issueMany(org, 6);
  await issueMany(OTHER, 2);
  const db = svc.deps.db;
  assert.equal(json(await call('GET', '/chain/verify', { org })).valid, true);

  // More energy written into receipt 3 after signing.
  await db.query('update settlement_receipts set signed_body = replace(signed_body, $3, $4) where org_id = $1 and seq = $2', [
    org,
    3,
    '"delivered_wh":1252',
    '"delivered_wh":9252',
  ]);
  let chain = json(await call('GET', '/chain/verify', { org }));
  assert.equal(chain.valid, false);
  assert.equal(chain.first_bad_seq, 3);
  assert.deepEqual(chain.problems.map((p: { code: string }) => p.code).slice(0, 2), ['bad_signature', 'hash_mismatch']);
  const one = json(await call('GET', `/receipts/${rs[2].receipt_id}/verify`, { org, role: 'VIEWER' }));
  assert.equal(one.valid, false);
  assert.ok(one.problems.some((p: { code: string }) => p.code === 'bad_signature'));
  assert.equal(json(await call('GET', `/receipts/${rs[1].receipt_id}/verify`, { org })).valid, true);
  await db.query('update settlement_receipts set signed_body = $3 where org_id = $1 and seq = $2', [org, 3, rs[2].signed_body]);

  // The last receipt removed: the checkpoint still names seq 6.
  await db.query('delete from settlement_receipts where org_id = $1 and seq = 6', [org]);
  chain = json(await call('GET', '/chain/verify', { org }));
  assert.equal(chain.valid, false);
  assert.equal(chain.first_bad_index, 5);
  assert.equal(chain.problems[0].code, 'truncated');
  assert.equal(json(await call('GET', '/chain/verify', { org: OTHER })).valid, true);
});

test('receipts/{id}/verify: 404 for another organisation’s receipt or an unknown id', async () => {
  const org = 'chain-one';
  await svc.createOrg(org);
  const [r] = await issueMany(org, 1);
  const ok = json(await call('GET', `/receipts/${r.receipt_id}/verify`, { org, role: 'ANALYST' }));
  assert.deepEqual({ valid: ok.valid, problems: ok.problems, seq: ok.seq }, { valid: true, problems: [], seq: 1 });
  assertRefused(await call('GET', `/receipts/${r.receipt_id}/verify`, { org: OTHER }), 404, 'Not Found');
  assertRefused(await call('GET', '/receipts/nope/verify', { org }), 404, 'Not Found');
});

test('POST /verify: a presented copy is checked from its published form; every tamper found at its index', async () => {
  const org = 'chain-present';
  await svc.createOrg(org);
  const rs = await issueMany(org, 8);
  const theirs = (await issueMany(OTHER, 1))[0];
  const cp = json(await call('GET', '/keys', { org })).checkpoint;
  const copy = rs.map(present);
  const check = async (receipts: unknown[], checkpoint?: unknown, asOrg = org) => {
    const res = await call('POST', '/verify', { org: asOrg, role: 'VIEWER', payload: { receipts, ...(checkpoint ? { checkpoint } : {}) } });
    assert.equal(res.statusCode, 200, res.body);
    return json(res);
  };
  const good = await check(copy, cp);
  assert.equal(good.valid, true, JSON.stringify(good.problems));
  assert.ok(good.receipts.every((r: { recorded: boolean; valid: boolean }) => r.recorded && r.valid));
  // Another organisation verifies the same copy: valid, but not recorded as theirs.
  const elsewhere = await check(copy, undefined, OTHER);
  assert.equal(elsewhere.valid, true);
  assert.ok(elsewhere.receipts.every((r: { recorded: boolean }) => !r.recorded));

  const k = 3;
  const stranger = generateKeyPairSync('ed25519').privateKey;
  const body = JSON.parse(rs[k].signed_body);
  const L = 2n ** 252n + 27742317777372353535851937790883648493n;
  const sig = Buffer.from(rs[k].signature, 'base64url');
  const s = BigInt(`0x${Buffer.from(sig.subarray(32)).reverse().toString('hex')}`) + L;
  const sPlusL = Buffer.concat([sig.subarray(0, 32), Buffer.from(s.toString(16).padStart(64, '0'), 'hex').reverse()]).toString('base64url');
  const resigned = JSON.stringify({ ...body, delivered_wh: 99999 }, Object.keys(body).sort());
  const cases: [string, unknown[], number, unknown?][] = [
    ['flipped byte', copy.map((r, i) => (i === k ? { ...r, signed_body: r.signed_body.replace('"turn_down"', '"turn_dowm"') } : r)), k],
    ['deleted', copy.filter((_, i) => i !== k), k],
    ['swapped', copy.map((r, i) => (i === k ? copy[k + 1] : i === k + 1 ? copy[k] : r)), k],
    ['dropped the last 2', copy.slice(0, -2), 6, cp],
    ['spliced in another organisation’s', [...copy.slice(0, k), present(theirs), ...copy.slice(k)], k],
    ['duplicate key', copy.map((r, i) => (i === k ? { ...r, signed_body: r.signed_body.replace('{', '{"asset_id":"x",') } : r)), k],
    [
      're-signed with an unpublished key',
      copy.map((r, i) => (i === k ? { signed_body: resigned, signature: sign(null, Buffer.from(resigned), stranger).toString('base64url') } : r)),
      k,
    ],
    ['S + L', copy.map((r, i) => (i === k ? { ...r, signature: sPlusL } : r)), k],
  ];
  for (const [name, receipts, index, checkpoint] of cases) {
    const r = await check(receipts, checkpoint);
    assert.equal(r.valid, false, name);
    assert.equal(r.first_bad_index, index, `${name}: ${JSON.stringify(r.problems)}`);
  }
});

test('POST /verify: malformed presentations are 422; a bad checkpoint is reported', async () => {
  const org = 'chain-present-bad';
  await svc.createOrg(org);
  const [r] = await issueMany(org, 1);
  const cases: [object, string][] = [
    [{}, 'body.receipts'],
    [{ receipts: [] }, 'body.receipts'],
    [{ receipts: [{ signed_body: 'x' }] }, 'body.receipts.0.signature'],
    [{ receipts: 'x' }, 'body.receipts'],
    [{ receipts: [present(r)], other: 1 }, 'body.other'],
  ];
  for (const [payload, field] of cases) {
    assertRefused(await call('POST', '/verify', { org, payload }), 422, { fields: [field] }, JSON.stringify(payload));
  }
  const notJson = json(await call('POST', '/verify', { org, payload: { receipts: [{ signed_body: '{', signature: 'x' }] } }));
  assert.equal(notJson.valid, false);
  assert.equal(notJson.problems[0].code, 'malformed_body');
  const cp = json(await call('GET', '/keys', { org })).checkpoint;
  const forged = json(await call('POST', '/verify', { org, payload: { receipts: [present(r)], checkpoint: { ...cp, signature: r.signature } } }));
  assert.equal(forged.valid, false);
  assert.equal(forged.checkpoint_valid, false);
});

test('keys: each organisation sees its own checkpoint', async () => {
  const org = 'chain-keys';
  await svc.createOrg(org);
  assert.equal(json(await call('GET', '/keys', { org, role: 'VIEWER' })).checkpoint, null);
  await issueMany(org, 2);
  const mine = json(await call('GET', '/keys', { org }));
  assert.equal(mine.checkpoint.organisation_id, org);
  assert.equal(mine.checkpoint.seq, 2);
  const other = json(await call('GET', '/keys', { org: OTHER }));
  assert.notEqual(other.checkpoint?.organisation_id, org);
  assert.doesNotMatch(JSON.stringify(mine), /PRIVATE/);
});
