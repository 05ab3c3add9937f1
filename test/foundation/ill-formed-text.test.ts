// Ill-formed Unicode in any part of a request: unpaired UTF-16 surrogates (a `\ud800` escape in
// JSON, or %ED%A0%80 in a URL) and raw invalid UTF-8 bytes are refused with 422 before anything is
// stored; the canonicaliser behind settlement receipts gives such text no canonical form.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let admin: string;
const ORG = 'ill-formed';
const { privateKey } = generateKeyPairSync('ed25519');
const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32).toString('base64');

before(async () => {
  svc = await startTestService({ env: { ESG_SIGNING_KEY: seed } });
  await svc.createOrg(ORG);
  admin = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'] });
});
after(() => svc.stop());

const send = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: string | Buffer) =>
  svc.request({
    method,
    url,
    headers: { authorization: `Bearer ${admin}`, ...(payload !== undefined && { 'content-type': 'application/json' }) },
    ...(payload !== undefined && { payload }),
  });

/** JSON text whose string holds a lone surrogate as an escape (as any client library writes it). */
const withLone = (obj: object, marker: string, escape: string) => JSON.stringify(obj).replace(marker, escape);

function assertIllFormed(res: Parameters<typeof json>[0], loc: (string | number)[], type = 'string_unicode') {
  assert.equal(res.statusCode, 422, res.body);
  const [first] = json(res).detail;
  assert.deepEqual(first.loc, loc);
  assert.equal(first.type, type);
  assert.equal(first.input, null);
}

const asset = (over: Record<string, unknown> = {}) => ({ asset_id: 'bat-1', asset_class: 'battery', site_id: 'site-1', name: 'Battery', ...over });

test('registry: a lone surrogate in a value or in a key at depth is 422 at its location; nothing stored', async () => {
  assertIllFormed(await send('POST', '/api/twin/registry/assets', withLone(asset({ name: 'MARK' }), 'MARK', 'x\\ud800')), ['body', 'name']);
  const keyed = withLone(asset({ details: { model: { MARK: 1 } } }), 'MARK', 'k\\udc00');
  assertIllFormed(await send('POST', '/api/twin/registry/assets', keyed), ['body', 'details', 'model', 'k\udc00']);
  assertRefused(await send('GET', '/api/twin/registry/assets/bat-1'), 404, 'Not Found');
  // A surrogate pair (an emoji written as two escapes) is valid text and is kept.
  const pair = await send('POST', '/api/twin/registry/assets', withLone(asset({ name: 'MARK' }), 'MARK', 'Battery \\ud83d\\udd0b'));
  assert.equal(pair.statusCode, 201, pair.body);
  assert.equal(json(await send('GET', '/api/twin/registry/assets/bat-1')).name, 'Battery \u{1F50B}');
});

test('raw invalid UTF-8 bytes in a JSON body: 422 json_invalid, never stored as U+FFFD', async () => {
  const bytes = Buffer.concat([
    Buffer.from(JSON.stringify(asset({ asset_id: 'bat-2', name: 'x' })).slice(0, -2)),
    Buffer.from([0xff, 0xfe]),
    Buffer.from('"}'),
  ]);
  const res = await send('POST', '/api/twin/registry/assets', bytes);
  assertIllFormed(res, ['body'], 'json_invalid');
  assert.equal(json(res).detail[0].msg, 'Body is not valid UTF-8');
  // CESU-8 / WTF-8 bytes of a lone surrogate (ED A0 80) are invalid UTF-8 too.
  const cesu = Buffer.concat([
    Buffer.from('{"asset_id":"bat-2","asset_class":"battery","site_id":"site-1","name":"'),
    Buffer.from([0xed, 0xa0, 0x80]),
    Buffer.from('"}'),
  ]);
  assertIllFormed(await send('POST', '/api/twin/registry/assets', cesu), ['body'], 'json_invalid');
  assertRefused(await send('GET', '/api/twin/registry/assets/bat-2'), 404, 'Not Found');
});

test('SSO configuration: a lone surrogate is 422 at its location; the provider stays unset', async () => {
  const body = withLone(
    { tid: 'tenant-1', issuer: 'MARK', application_id: 'app', jwks_url: 'https://idp.example/keys' },
    'MARK',
    'https://idp.example/\\udfff',
  );
  assertIllFormed(await send('PUT', '/api/auth/sso/idp/provider', body), ['body', 'issuer']);
  assert.equal(json(await send('GET', '/api/auth/sso/idp/provider')).configured, false);
});

test('query and path: lone surrogates percent-encoded as invalid UTF-8 are refused, never a 500', async () => {
  assertIllFormed(await send('GET', '/api/twin/registry/assets?site_id=%ED%A0%80'), ['query', 'site_id']);
  assertIllFormed(await send('GET', '/api/twin/registry/assets?site_id=ok&class=%FF'), ['query', 'class']);
  const path = await send('GET', '/api/twin/registry/assets/%ED%A0%80');
  assert.equal(path.statusCode, 400, path.body);
  assert.deepEqual(json(path), { detail: 'Malformed URL' });
  // Valid percent-encoding still works.
  assert.equal((await send('GET', '/api/twin/registry/assets?site_id=site%2D1')).statusCode, 200);
});

test('devtools surface: the refusal comes in the envelope', async () => {
  const res = await send('POST', '/api/devtools/apikeys', withLone({ name: 'MARK', scopes: ['telemetry:read'] }, 'MARK', '\\ud800'));
  assert.equal(res.statusCode, 422, res.body);
  const body = json(res);
  assert.equal(body.error.code, 'validation_error');
  assert.deepEqual(body.detail[0].loc, ['body', 'name']);
});

const BASE = '/api/vpp/vpp/settle';
const issue = (reference: string) =>
  JSON.stringify({
    site_id: 'site-1',
    asset_id: 'bat-1',
    reference: 'MARK',
    direction: 'turn_down',
    delivered_wh: 1250,
    source_basis: 'measured',
    period_start: '2026-03-01T00:00:00Z',
    period_end: '2026-03-01T00:30:00Z',
  }).replace('MARK', reference);

test('settlement: no receipt is issued with a lone surrogate, and a presented one does not verify', async () => {
  assertIllFormed(await send('POST', `${BASE}/receipts/issue`, issue('dispatch-\\ud800')), ['body', 'reference']);
  assert.deepEqual(json(await send('GET', `${BASE}/receipts`)).receipts, []);

  // A receipt signed by the service's own key whose body carries a lone surrogate (as a JSON
  // escape): its signature is right, but RFC 8785 gives it no canonical form, so it is not valid.
  const ok = await send('POST', `${BASE}/receipts/issue`, issue('dispatch-1'));
  assert.equal(ok.statusCode, 201, ok.body);
  const signed_body = json(ok).signed_body.replace('"dispatch-1"', '"dispatch-\\ud800"');
  const signature = sign(null, Buffer.from(signed_body, 'utf8'), privateKey).toString('base64url');
  const res = await send('POST', `${BASE}/verify`, JSON.stringify({ receipts: [{ signed_body, signature }] }));
  assert.equal(res.statusCode, 200, res.body);
  const out = json(res);
  assert.equal(out.valid, false);
  const problem = out.problems.find((p: { code: string }) => p.code === 'non_canonical_body');
  assert.ok(problem, JSON.stringify(out.problems));
  assert.match(problem.message, /unpaired UTF-16 surrogate/);
});
