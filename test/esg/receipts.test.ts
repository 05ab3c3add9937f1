// Energy receipts signed with the service's Ed25519 key, verified with the published public keys.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, json, realServers, type TestService } from '../helpers/service.ts';
import { canonicalJson } from '../../src/kit/canonical-json.ts';
import type { Role } from '../../src/platform/roles.ts';
import { assertRefused } from '../helpers/refusal.ts';

const ORG = 'esg-org';
const OTHER = 'esg-other';
let svc: TestService;

before(async () => {
  svc = await startTestService();
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
});
after(() => svc.stop());

async function call(method: 'GET' | 'POST', url: string, opts: { payload?: unknown; role?: Role; org?: string; s?: TestService } = {}) {
  const s = opts.s ?? svc;
  const token = await s.token({ orgId: opts.org ?? ORG, roles: [opts.role ?? 'OPERATOR'] });
  return s.request({ method, url, headers: { authorization: `Bearer ${token}` }, ...(opts.payload !== undefined && { payload: opts.payload as object }) });
}

async function publicKeys(s = svc) {
  const r = await s.request({ method: 'GET', url: '/api/esg/keys' });
  assert.equal(r.statusCode, 200);
  return json(r).keys as { key_id: string; active: boolean; public_key_pem: string; public_key_base64: string; jwk: { x: string } }[];
}

function verifies(
  receipt: { signing_input: string; signature: string; key_id: string; content_hash: string; payload: unknown },
  keys: { key_id: string; public_key_pem: string }[],
) {
  const key = keys.find((k) => k.key_id === receipt.key_id);
  if (!key) return false;
  const signed = JSON.parse(receipt.signing_input);
  const hash = createHash('sha256').update(canonicalJson(receipt.payload)).digest('hex');
  return (
    signed.content_hash === receipt.content_hash &&
    hash === receipt.content_hash &&
    verify(null, Buffer.from(receipt.signing_input, 'utf8'), createPublicKey(key.public_key_pem), Buffer.from(receipt.signature, 'base64'))
  );
}

const payload = { site_id: 'site-1', period: { from: '2026-05-01T00:00:00Z', to: '2026-06-01T00:00:00Z' }, kwh: 1234.5, source: 'solar', tags: ['a', 'b'] };

test('receipts: a payload is stored as a signed receipt that verifies with the published key', async () => {
  const res = await call('POST', '/api/esg/', { payload: { payload } });
  assert.equal(res.statusCode, 201, res.body);
  const r = json(res);
  assert.deepEqual(r.payload, payload);
  assert.equal(r.hash_algorithm, 'sha256');
  assert.equal(r.signature_algorithm, 'Ed25519');
  assert.equal(r.content_hash, createHash('sha256').update(canonicalJson(payload)).digest('hex'));
  const signed = JSON.parse(r.signing_input);
  assert.deepEqual(Object.keys(signed), ['content_hash', 'issued_at', 'key_id', 'organisation_id', 'receipt_id', 'type', 'version']);
  assert.equal(signed.organisation_id, ORG);
  assert.equal(signed.receipt_id, r.receipt_id);
  const keys = await publicKeys();
  assert.ok(verifies(r, keys));
  // Any tampering breaks it.
  assert.equal(verifies({ ...r, payload: { ...payload, kwh: 9999 } }, keys), false);
  assert.equal(verifies({ ...r, signing_input: r.signing_input.replace(ORG, OTHER) }, keys), false);
  const audit = await svc.deps.db.query<{ action: string }>('select action from audit_log where org_id = $1 and target_id = $2', [ORG, r.receipt_id]);
  assert.deepEqual(
    audit.rows.map((x) => x.action),
    ['esg.receipt.create'],
  );
});

test('receipts: the content hash identifies the payload: the same payload (members in any order) returns the same receipt', async () => {
  const first = json(await call('POST', '/api/esg/', { payload: { payload: { b: 2, a: 1, nested: { y: [1, 2], x: 'é' } } } }));
  const again = await call('POST', '/api/esg/', { payload: { payload: { nested: { x: 'é', y: [1, 2] }, a: 1, b: 2 } } });
  assert.equal(again.statusCode, 200);
  assert.equal(json(again).receipt_id, first.receipt_id);
  const other = await call('POST', '/api/esg/', { payload: { payload: { a: 1, b: 3 } } });
  assert.equal(other.statusCode, 201);
  assert.notEqual(json(other).content_hash, first.content_hash);
  // Another organisation storing the same payload gets its own receipt.
  const theirs = await call('POST', '/api/esg/', { payload: { payload: { b: 2, a: 1, nested: { y: [1, 2], x: 'é' } } }, org: OTHER });
  assert.equal(theirs.statusCode, 201);
  assert.notEqual(json(theirs).receipt_id, first.receipt_id);
});

test('receipts: GET lists the organisation’s receipts, newest first, unpaginated; nobody else’s', async () => {
  const org = 'esg-list';
  await svc.createOrg(org);
  for (let i = 0; i < 3; i++) {
    await call('POST', '/api/esg/', { payload: { payload: { n: i } }, org });
    (svc.clock as unknown as { advance(ms: number): void }).advance(1000);
  }
  const res = await call('GET', '/api/esg/', { org, role: 'VIEWER' });
  assert.equal(res.statusCode, 200);
  const body = json(res);
  assert.equal(body.count, 3);
  assert.deepEqual(
    body.receipts.map((r: { payload: { n: number } }) => r.payload.n),
    [2, 1, 0],
  );
  const keys = await publicKeys();
  assert.ok(body.receipts.every((r: never) => verifies(r, keys)));
  assert.equal(json(await call('GET', '/api/esg', { org, role: 'VIEWER' })).count, 3, 'also without the trailing slash');
  const mine = json(await call('GET', '/api/esg/'));
  assert.ok(mine.receipts.every((r: { payload: { n?: number } }) => r.payload.n === undefined));
});

test('receipts: malformed bodies are 422; VIEWER and ANALYST may not create; no credential is 401', async () => {
  const deep: Record<string, unknown> = {};
  let cur = deep;
  for (let i = 0; i < 70; i++) cur = (cur.x = {}) as Record<string, unknown>;
  for (const body of [{}, { payload: [1, 2] }, { payload: 'text' }, { payload: null }, { payload: {}, extra: 1 }, { payload: deep }]) {
    const r = await call('POST', '/api/esg/', { payload: body });
    assert.equal(r.statusCode, 422, JSON.stringify(body).slice(0, 80));
    assert.ok(Array.isArray(json(r).detail));
  }
  for (const role of ['VIEWER', 'ANALYST'] as const) {
    const r = await call('POST', '/api/esg/', { payload: { payload: { a: 1 } }, role });
    assert.equal(r.statusCode, 403);
    assert.deepEqual(json(r), { detail: 'Insufficient permissions' });
  }
  for (const method of ['GET', 'POST'] as const) {
    const r = await svc.request({ method, url: '/api/esg/', payload: method === 'POST' ? { payload: {} } : undefined });
    assertRefused(r, 401, 'Authorization header missing');
  }
});

test('keys: published without a credential, as PEM, raw base64 and JWK, the signing one marked active', async () => {
  await call('POST', '/api/esg/', { payload: { payload: { k: 1 } } });
  const keys = await publicKeys();
  assert.equal(keys.filter((k) => k.active).length, 1);
  const k = keys.find((x) => x.active)!;
  assert.match(k.key_id, /^ed25519-[0-9a-f]{16}$/);
  assert.match(k.public_key_pem, /^-----BEGIN PUBLIC KEY-----/);
  assert.equal(Buffer.from(k.public_key_base64, 'base64').length, 32);
  assert.equal(Buffer.from(k.jwk.x, 'base64url').toString('base64'), k.public_key_base64);
  assert.doesNotMatch(JSON.stringify(keys), /PRIVATE/);
  // Publishing is read-only.
  const write = await svc.request({ method: 'POST', url: '/api/esg/keys', payload: {} });
  assertRefused(write, 405, 'Method Not Allowed');
});

test('keys: a generated key is kept in the store, so another instance (or a restart) signs with it and old receipts verify', async () => {
  if (realServers.database) {
    // Two instances on one store.
    const second = await startTestService({ shareWith: svc });
    try {
      const r1 = json(await call('POST', '/api/esg/', { payload: { payload: { restart: 1 } } }));
      const r2 = json(await call('POST', '/api/esg/', { payload: { payload: { restart: 2 } }, s: second }));
      assert.equal(r2.key_id, r1.key_id);
      assert.ok(verifies(r1, await publicKeys(second)));
    } finally {
      await second.stop();
    }
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'esg-restart-'));
  try {
    const first = await startTestService({ env: { DATA_DIR: dir } });
    await first.createOrg(ORG);
    const r1 = json(await call('POST', '/api/esg/', { payload: { payload: { restart: 1 } }, s: first }));
    await first.stop();
    const second = await startTestService({ env: { DATA_DIR: dir } });
    try {
      const r2 = json(await call('POST', '/api/esg/', { payload: { payload: { restart: 2 } }, s: second }));
      assert.equal(r2.key_id, r1.key_id, 'the same key signs after the restart');
      const keys = await publicKeys(second);
      assert.equal(keys.length, 1);
      assert.ok(verifies(r1, keys));
      const listed = json(await call('GET', '/api/esg/', { s: second }));
      assert.equal(listed.count, 2);
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('keys: ESG_SIGNING_KEY (base64 seed or PKCS8 PEM) signs; production without it answers 503 Signing key not configured', async () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32).toString('base64');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
  for (const value of [seed, privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()]) {
    const s = await startTestService({ env: { ESG_SIGNING_KEY: value } });
    try {
      await s.createOrg(ORG);
      const r = json(await call('POST', '/api/esg/', { payload: { payload: { configured: true } }, s }));
      const keys = await publicKeys(s);
      const active = keys.find((k) => k.active)!;
      assert.equal(active.key_id, r.key_id);
      assert.equal(active.public_key_base64, raw);
      assert.ok(verify(null, Buffer.from(r.signing_input), publicKey, Buffer.from(r.signature, 'base64')));
    } finally {
      await s.stop();
    }
  }
  const prod = await startTestService({ env: { NODE_ENV: 'production', HUB_OCPP_PUBLIC_URL: 'wss://hub.example.com' } });
  try {
    await prod.createOrg(ORG);
    const r = await call('POST', '/api/esg/', { payload: { payload: { a: 1 } }, s: prod });
    assert.equal(r.statusCode, 503);
    assert.deepEqual(json(r), { detail: 'Signing key not configured' });
    assert.deepEqual(await publicKeys(prod), []);
  } finally {
    await prod.stop();
  }
});
