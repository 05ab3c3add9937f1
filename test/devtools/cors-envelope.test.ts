// CORS for the six sandbox operations only (public docs origin, the method itself, Authorization
// and Content-Type, no credentials), and the developer-tools error envelope on our operations.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { bearer, issueKey } from './helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let key: { auth: { authorization: string } };
const ORG = 'cors-org';
const SIX: [string, string][] = [
  ['GET', '/api/devtools/partner/v1/me'],
  ['GET', '/api/devtools/partner/v1/alerts'],
  ['GET', '/api/devtools/partner/v1/devices'],
  ['GET', '/api/devtools/partner/v1/telemetry/latest'],
  ['GET', '/api/devtools/partner/v1/sandbox/scenario'],
  ['POST', '/api/devtools/partner/v1/sandbox/webhooks/test'],
];

before(async () => {
  svc = await startTestService();
  await svc.createOrg(ORG);
  key = await issueKey(svc, ORG, { environment: 'sandbox' });
});
after(() => svc.stop());

const origin = () => svc.config.publicDocsOrigin;
const preflight = (url: string, o: string, method: string, headers = 'authorization, content-type') =>
  svc.request({
    method: 'OPTIONS',
    url,
    headers: { origin: o, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });

test('exactly the six sandbox operations are marked x-platform-sandbox', async () => {
  const doc = json(await svc.request({ method: 'GET', url: '/openapi.json' }));
  const marked: string[] = [];
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [m, op] of Object.entries<any>(methods)) if (op['x-platform-sandbox']) marked.push(`${m.toUpperCase()} ${path}`);
  }
  assert.deepEqual(marked.sort(), SIX.map(([m, p]) => `${m} ${p}`).sort());
});

test('preflight from the docs origin: allowed with the method itself, Authorization and Content-Type, no credentials', async () => {
  for (const [method, url] of SIX) {
    const res = await preflight(url, origin(), method);
    assert.equal(res.statusCode, 204, url);
    assert.equal(res.headers['access-control-allow-origin'], origin());
    assert.equal(res.headers['access-control-allow-methods'], method);
    assert.equal(res.headers['access-control-allow-headers'], 'Authorization, Content-Type');
    assert.equal(res.headers['access-control-allow-credentials'], undefined);
    assert.match(String(res.headers.vary), /Origin/);
  }
});

test('preflight refused (no CORS headers): another origin, another method, another request header', async () => {
  const [method, url] = SIX[5];
  for (const res of [
    await preflight(url, 'https://evil.example', method),
    await preflight(url, origin(), 'DELETE'),
    await preflight(url, origin(), method, 'authorization, idempotency-key'),
    await preflight(url, origin(), method, 'x-tenant-id'),
    await preflight(SIX[0][1], origin(), 'POST'),
  ]) {
    assert.equal(res.headers['access-control-allow-origin'], undefined);
    assert.equal(res.headers['access-control-allow-methods'], undefined);
  }
});

test('actual requests: the docs origin gets Access-Control-Allow-Origin (errors too), no credentials; other origins nothing', async () => {
  const ok = await svc.request({ method: 'GET', url: SIX[0][1], headers: { ...key.auth, origin: origin() } });
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.headers['access-control-allow-origin'], origin());
  assert.equal(ok.headers['access-control-allow-credentials'], undefined);
  const err = await svc.request({ method: 'GET', url: SIX[1][1], headers: { origin: origin() } });
  assertRefused(err, 401, { code: 'unauthorized', detail: 'Authorization header missing' });
  assert.equal(err.headers['access-control-allow-origin'], origin());
  const evil = await svc.request({ method: 'GET', url: SIX[0][1], headers: { ...key.auth, origin: 'https://evil.example' } });
  assert.equal(evil.statusCode, 200);
  assert.equal(evil.headers['access-control-allow-origin'], undefined);
  assert.match(String(evil.headers.vary), /Origin/, 'Vary: Origin whatever the caller, so caches key on it');
});

test('no CORS anywhere else: management operations and the status operation', async () => {
  const admin = await bearer(svc, ORG);
  for (const [method, url] of [
    ['GET', '/api/devtools/apikeys'],
    ['GET', '/api/devtools/webhooks'],
    ['GET', '/api/devtools/status'],
  ] as const) {
    const res = await svc.request({ method, url, headers: { ...admin, origin: origin() } });
    assert.equal(res.statusCode, 200, url);
    assert.equal(res.headers['access-control-allow-origin'], undefined, url);
    const pre = await preflight(url, origin(), method);
    assert.equal(pre.headers['access-control-allow-origin'], undefined, url);
  }
});

test('error envelope on devtools operations: X-Request-Id, error{code,message,request_id}, RFC 9457 members; problem+json on request', async () => {
  const admin = await bearer(svc, ORG);
  const cases = [
    await svc.request({ method: 'GET', url: '/api/devtools/apikeys' }),
    await svc.request({ method: 'POST', url: '/api/devtools/apikeys', headers: admin, payload: { name: '' } }),
    await svc.request({ method: 'POST', url: '/api/devtools/apikeys/missing/revoke', headers: admin }),
    await svc.request({ method: 'DELETE', url: '/api/devtools/webhooks/missing', headers: admin }),
    await svc.request({ method: 'GET', url: '/api/devtools/partner/v1/alerts?cursor=zzz', headers: key.auth }),
  ];
  const expected = [401, 422, 404, 404, 400];
  cases.forEach((res, i) => {
    assert.equal(res.statusCode, expected[i]);
    const body = json(res);
    const rid = res.headers['x-request-id'];
    assert.ok(rid);
    assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'request_id']);
    assert.equal(body.error.request_id, rid);
    assert.equal(body.request_id, rid);
    assert.equal(body.status, res.statusCode);
    assert.ok(body.type && body.title && body.instance && body.code && 'detail' in body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
  });
  const problem = await svc.request({
    method: 'POST',
    url: '/api/devtools/apikeys',
    headers: { ...admin, accept: 'application/problem+json' },
    payload: { name: '', scopes: [] },
  });
  assert.equal(problem.statusCode, 422);
  assert.match(String(problem.headers['content-type']), /^application\/problem\+json/);
  assert.equal(typeof json(problem).detail, 'string');
  assert.ok(Array.isArray(json(problem).errors));
  const status = await svc.request({ method: 'GET', url: '/api/devtools/status' });
  assert.ok(status.headers['x-request-id']);
});
