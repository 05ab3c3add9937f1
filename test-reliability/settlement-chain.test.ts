// T-29: settlement receipt chain. 10 000 receipts for one organisation and 1 000 for another are
// issued through the API, fetched through the API, and checked by a verifier written here from the
// published format only (docs/settlement.md): node:crypto Ed25519, the `canonicalize` JCS library,
// the published keys and the signed checkpoint. Every tamper case must be found at its first bad
// index, by this verifier and by POST /verify. Counts: T29_RECEIPTS (default 10000), T29_OTHER
// (default 1000). The two JCS libraries must agree with the service's canonical JSON.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import canonicalize from 'canonicalize';
import { canonicalize as jsonCanonicalize } from 'json-canonicalize';
import { startTestService, json, type TestService } from '../test/helpers/service.ts';
import { canonicalJson } from '../src/kit/canonical-json.ts';
import { fuzzEnv, settlementIssueBody } from './helpers/world.ts';

const N = Number(process.env.T29_RECEIPTS ?? 10_000);
const M = Number(process.env.T29_OTHER ?? 1_000);
const A = 'demo-t29-a';
const B = 'demo-t29-b';
const BASE = '/api/vpp/vpp/settle';
const ZERO = '0'.repeat(64);
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

interface Served {
  signed_body: string;
  signature: string;
  receipt_hash?: string;
}

let svc: TestService;
const tokens: Record<string, string> = {};
let chainA: Served[] = [];
let chainB: Served[] = [];
let checkpointA: Served;
let keys: Map<string, KeyObject>;

async function api(method: 'GET' | 'POST', url: string, org: string, payload?: unknown) {
  return svc.request({
    method,
    url: BASE + url,
    headers: { authorization: `Bearer ${tokens[org]}` },
    ...(payload !== undefined && { payload: payload as object }),
  });
}

async function issueAll(org: string, n: number) {
  const width = 8;
  for (let i = 0; i < n; i += width) {
    const batch = Array.from({ length: Math.min(width, n - i) }, (_, j) => api('POST', '/receipts/issue', org, settlementIssueBody(i + j)));
    for (const res of await Promise.all(batch)) assert.equal(res.statusCode, 201, res.body);
  }
}

/** Every receipt through the list operation, put in seq order (pages are newest first). */
async function fetchChain(org: string): Promise<Served[]> {
  const out: Served[] = [];
  let cursor: string | null = null;
  do {
    const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const page = json(await api('GET', `/receipts?limit=500${q}`, org));
    out.push(...page.receipts.map((r: Served) => ({ signed_body: r.signed_body, signature: r.signature, receipt_hash: r.receipt_hash })));
    cursor = page.next_cursor;
  } while (cursor);
  return out.reverse();
}

before(async () => {
  svc = await startTestService({ env: fuzzEnv() });
  for (const org of [A, B]) {
    await svc.createOrg(org);
    tokens[org] = await svc.token({ orgId: org, roles: ['OPERATOR'], expiresIn: '4h' });
  }
  const t0 = performance.now();
  await issueAll(A, N);
  await issueAll(B, M);
  console.log(`T-29: issued ${N} + ${M} receipts through the API in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  chainA = await fetchChain(A);
  chainB = await fetchChain(B);
  const published = json(await api('GET', '/keys', A));
  checkpointA = published.checkpoint;
  keys = new Map(published.keys.map((k: { key_id: string; jwk: object }) => [k.key_id, createPublicKey({ key: k.jwk as never, format: 'jwk' })]));
});
after(() => svc?.stop());

// ---- The verifier, from the published format only ----------------------------------------

type Verdict = { ok: true } | { ok: false; index: number; reason: string };

/** One signed object: canonical bytes, published kid, canonical signature that verifies. */
function checkSigned(s: Served, type: string): { body: any; hash: string } | string {
  let body: any;
  try {
    body = JSON.parse(s.signed_body);
  } catch {
    return 'not JSON';
  }
  // The signed bytes must be exactly their JCS form: this also refuses duplicate members.
  if (canonicalize(body) !== s.signed_body) return 'not canonical';
  if (body?.type !== type || body.version !== 1) return 'wrong type';
  const key = keys.get(body.kid);
  if (!key) return 'unpublished kid';
  const sig = Buffer.from(s.signature, 'base64url');
  if (sig.length !== 64 || sig.toString('base64url') !== s.signature) return 'signature encoding';
  if (BigInt(`0x${Buffer.from(sig.subarray(32)).reverse().toString('hex')}`) >= L) return 'S not below L';
  if (!verify(null, Buffer.from(s.signed_body, 'utf8'), key, sig)) return 'bad signature';
  const hash = createHash('sha256').update(s.signed_body, 'utf8').digest('hex');
  if (s.receipt_hash !== undefined && s.receipt_hash !== hash) return 'receipt_hash';
  return { body, hash };
}

function verifyChain(chain: Served[], checkpoint: Served, org: string): Verdict {
  const cp = checkSigned(checkpoint, 'settlement_checkpoint');
  if (typeof cp === 'string') return { ok: false, index: -1, reason: `checkpoint: ${cp}` };
  if (cp.body.organisation_id !== org) return { ok: false, index: -1, reason: 'checkpoint of another organisation' };
  let prev = ZERO;
  for (let i = 0; i < chain.length; i++) {
    const r = checkSigned(chain[i], 'settlement_receipt');
    if (typeof r === 'string') return { ok: false, index: i, reason: r };
    if (r.body.organisation_id !== org) return { ok: false, index: i, reason: 'another organisation' };
    if (r.body.seq !== i + 1) return { ok: false, index: i, reason: `seq ${r.body.seq} at position ${i + 1}` };
    if (r.body.prev_hash !== prev) return { ok: false, index: i, reason: 'prev_hash' };
    prev = r.hash;
  }
  if (chain.length !== cp.body.seq)
    return { ok: false, index: Math.min(chain.length, cp.body.seq), reason: `length ${chain.length}, checkpoint seq ${cp.body.seq}` };
  if (prev !== cp.body.head_hash) return { ok: false, index: chain.length - 1, reason: 'head hash' };
  return { ok: true };
}

// ---- Tamper cases ------------------------------------------------------------------------

function sPlusL(signature: string): string {
  const sig = Buffer.from(signature, 'base64url');
  const s = BigInt(`0x${Buffer.from(sig.subarray(32)).reverse().toString('hex')}`) + L;
  return Buffer.concat([sig.subarray(0, 32), Buffer.from(s.toString(16).padStart(64, '0'), 'hex').reverse()]).toString('base64url');
}

function resign(r: Served, withPublishedKid: boolean): Served {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const body = JSON.parse(r.signed_body);
  body.delivered_wh += 1_000_000;
  if (!withPublishedKid) {
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    body.kid = `ed25519-${createHash('sha256').update(raw).digest('hex').slice(0, 16)}`;
  }
  const signed_body = canonicalJson(body);
  return { signed_body, signature: sign(null, Buffer.from(signed_body), privateKey).toString('base64url') };
}

function flipByte(r: Served, at: number): Served {
  const bytes = Buffer.from(r.signed_body, 'utf8');
  bytes[at % bytes.length] ^= 0x01;
  return { ...r, signed_body: bytes.toString('utf8') };
}

/** name -> (chain, k) -> tampered chain and the index where the first bad receipt must be found. */
const CASES: Record<string, (c: Served[], k: number) => [Served[], number]> = {
  'flip a byte in the body': (c, k) => [c.map((r, i) => (i === k ? flipByte(r, 40 + k) : r)), k],
  'flip a byte in the signature': (c, k) => [
    c.map((r, i) => (i === k ? { ...r, signature: (r.signature[0] === 'A' ? 'B' : 'A') + r.signature.slice(1) } : r)),
    k,
  ],
  'delete k': (c, k) => [c.filter((_, i) => i !== k), k],
  'swap k and k+1': (c, k) => [c.map((r, i) => (i === k ? c[k + 1] : i === k + 1 ? c[k] : r)), k],
  'drop the last 10': (c) => [c.slice(0, -10), c.length - 10],
  'splice in the other organisation’s receipt': (c, k) => [[...c.slice(0, k), chainB[Math.min(k, chainB.length - 1)], ...c.slice(k)], k],
  'replace k by the other organisation’s receipt': (c, k) => [c.map((r, i) => (i === k ? chainB[Math.min(k, chainB.length - 1)] : r)), k],
  'duplicate JSON key (same value)': (c, k) => [c.map((r, i) => (i === k ? { ...r, signed_body: r.signed_body.replace('{', `{"seq":${k + 1},`) } : r)), k],
  're-sign with an unpublished key': (c, k) => [c.map((r, i) => (i === k ? resign(r, false) : r)), k],
  're-sign with another key under the published kid': (c, k) => [c.map((r, i) => (i === k ? resign(r, true) : r)), k],
  'non-canonical signature S+L': (c, k) => [c.map((r, i) => (i === k ? { ...r, signature: sPlusL(r.signature) } : r)), k],
};

test('T-29: the untouched chains verify from the published format; rate printed', () => {
  assert.equal(chainA.length, N);
  assert.equal(chainB.length, M);
  const t0 = performance.now();
  const verdict = verifyChain(chainA, checkpointA, A);
  const seconds = (performance.now() - t0) / 1000;
  assert.deepEqual(verdict, { ok: true });
  console.log(`T-29: untouched chain of ${N} verified in ${seconds.toFixed(2)} s: ${Math.round(N / seconds)} receipts/s (one core)`);
});

test('T-29: every tamper case is found at its first bad index by the independent verifier', () => {
  const positions = [0, 1, Math.floor(N / 2), N - 2];
  let detected = 0;
  let total = 0;
  const misses: string[] = [];
  for (const [name, make] of Object.entries(CASES)) {
    for (const k of name === 'drop the last 10' ? [N - 10] : positions) {
      total++;
      const [chain, expected] = make(chainA, k);
      const v = verifyChain(chain, checkpointA, A);
      if (!v.ok && v.index === expected) detected++;
      else misses.push(`${name} at ${k}: ${JSON.stringify(v)} (expected index ${expected})`);
    }
  }
  console.log(`T-29: independent verifier detected ${detected}/${total} tampered chains at the first bad index`);
  assert.deepEqual(misses, []);
});

test('T-29: POST /verify finds the same tampering on the service side', async () => {
  const k = Math.floor(N / 2);
  const misses: string[] = [];
  for (const [name, make] of Object.entries(CASES)) {
    const [chain, expected] = make(chainA, name === 'drop the last 10' ? N - 10 : k);
    // A run of the chain around the first bad index (at most 1000 receipts per call).
    const from = name === 'drop the last 10' ? Math.max(0, chain.length - 990) : Math.max(0, expected - 5);
    const run = chain.slice(from, from + 11 + (name === 'drop the last 10' ? 990 : 0));
    const res = await api('POST', '/verify', A, { receipts: run, ...(name === 'drop the last 10' && { checkpoint: checkpointA }) });
    assert.equal(res.statusCode, 200, res.body);
    const r = json(res);
    if (r.valid !== false || r.first_bad_index !== expected - from)
      misses.push(`${name}: ${JSON.stringify(r.problems.slice(0, 2))}, first ${r.first_bad_index}, expected ${expected - from}`);
  }
  const clean = json(await api('POST', '/verify', A, { receipts: chainA.slice(-1000), checkpoint: checkpointA }));
  assert.equal(clean.valid, true, JSON.stringify(clean.problems));
  assert.deepEqual(misses, []);
  const chain = json(await api('GET', '/chain/verify', A));
  assert.equal(chain.valid, true);
  assert.equal(chain.checked, N);
});

test('T-29: canonicalize and json-canonicalize give the service’s bytes for 10 000 random I-JSON values', () => {
  let n = 0;
  fc.assert(
    fc.property(fc.jsonValue({ stringUnit: 'grapheme', maxDepth: 4 }), (v) => {
      n++;
      const ours = Buffer.from(canonicalJson(v), 'utf8');
      assert.deepEqual(Buffer.from(canonicalize(v) as string, 'utf8'), ours);
      assert.deepEqual(Buffer.from(jsonCanonicalize(v), 'utf8'), ours);
    }),
    { numRuns: 10_000, seed: 29 },
  );
  assert.equal(n, 10_000);
});

test('T-29: RFC 8785 number vectors and the worked example', () => {
  const vectors: [string, string][] = [
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ];
  for (const [hex, expected] of vectors) {
    const value = Buffer.from(hex, 'hex').readDoubleBE(0);
    for (const [name, f] of [
      ['service', canonicalJson],
      ['canonicalize', canonicalize],
      ['json-canonicalize', jsonCanonicalize],
    ] as const) {
      assert.equal((f as (v: unknown) => string)(value), expected, `${name}: ${hex}`);
    }
  }
  for (const hex of ['7fffffffffffffff', '7ff0000000000000']) {
    assert.throws(() => canonicalJson(Buffer.from(hex, 'hex').readDoubleBE(0)), `${hex} has no JSON form`);
  }
  const input = JSON.parse(
    '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
      ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
  );
  const expected = '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}';
  assert.equal(canonicalJson(input), expected);
  assert.equal(canonicalize(input), expected);
  assert.equal(jsonCanonicalize(input), expected);
});
