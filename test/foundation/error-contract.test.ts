// The error contract of concepts.md section 7, by mechanism: every route gets it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fieldError } from '../../src/platform/errors.ts';
import { dataBasisHeaders, headerText } from '../../src/platform/register.ts';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { fixtureModule } from '../helpers/fixtures.ts';

let svc: TestService;
let token: string;
const ORG = 'acme';

before(async () => {
  svc = await startTestService({ extraModules: [fixtureModule] });
  await svc.createOrg(ORG);
  token = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'] });
});
after(() => svc.stop());

const auth = () => ({ authorization: `Bearer ${token}` });

test('unknown route answers 404 {detail: "Not Found"}', async () => {
  const res = await svc.request({ method: 'GET', url: '/api/nothing/here' });
  assert.equal(res.statusCode, 404);
  assert.deepEqual(json(res), { detail: 'Not Found' });
  assert.equal(res.headers['x-request-id'], undefined, 'only devtools answers carry X-Request-Id');
});

test('a known path with another method answers 405 with Allow', async () => {
  const res = await svc.request({ method: 'DELETE', url: '/api/telemetry/healthz' });
  assert.equal(res.statusCode, 405);
  assert.deepEqual(json(res), { detail: 'Method Not Allowed' });
  assert.match(String(res.headers.allow), /GET/);
});

test('validation failure: 422 with detail as a list of {type, loc, msg, input}', async () => {
  const res = await svc.request({
    method: 'POST',
    url: '/api/test-fixture/echo?limit=900',
    headers: auth(),
    payload: { email: 'not-an-email', count: 'x', extra: 1 },
  });
  assert.equal(res.statusCode, 422);
  const body = json(res);
  assert.ok(Array.isArray(body.detail));
  for (const e of body.detail) assert.deepEqual(Object.keys(e).sort(), ['input', 'loc', 'msg', 'type']);
  const locs = body.detail.map((e: { loc: unknown[] }) => e.loc.join('.'));
  // The body is checked strictly; all problems are reported at once.
  assert.ok(locs.includes('body.email'), locs.join());
  assert.ok(locs.includes('body.count'), locs.join());
  assert.ok(locs.includes('body.extra'), locs.join());
  const email = body.detail.find((e: { loc: string[] }) => e.loc[1] === 'email');
  assert.equal(email.input, 'not-an-email');
});

test('query validation reports loc ["query", name]', async () => {
  const res = await svc.request({
    method: 'POST',
    url: '/api/test-fixture/echo?limit=900',
    headers: auth(),
    payload: { email: 'a@b.co', count: 2 },
  });
  assert.equal(res.statusCode, 422);
  assert.deepEqual(json(res).detail[0].loc, ['query', 'limit']);
  assert.equal(json(res).detail[0].type, 'less_than_equal');
});

test('a missing required field is type "missing" at its location', async () => {
  const res = await svc.request({ method: 'POST', url: '/api/test-fixture/echo', headers: auth(), payload: { count: 2 } });
  assert.equal(res.statusCode, 422);
  assert.deepEqual(json(res).detail, [{ type: 'missing', loc: ['body', 'email'], msg: 'Field required', input: { count: 2 } }]);
});

test('malformed JSON is a 422 of the same shape, never a 500', async () => {
  for (const payload of ['{"email": ', '{bad json}', '[1,2', '\u0000']) {
    const res = await svc.request({
      method: 'POST',
      url: '/api/test-fixture/echo',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload,
    });
    assert.equal(res.statusCode, 422, payload);
    const d = json(res).detail;
    assert.equal(d[0].type, 'json_invalid');
    assert.deepEqual(d[0].loc, ['body']);
  }
});

test('prototype-poisoning JSON is refused with a 4xx in the spec shape', async () => {
  const res = await svc.request({
    method: 'POST',
    url: '/api/test-fixture/echo',
    headers: { ...auth(), 'content-type': 'application/json' },
    payload: '{"__proto__":{"admin":true},"email":"a@b.co","count":1}',
  });
  assert.ok(res.statusCode >= 400 && res.statusCode < 500, String(res.statusCode));
  assert.ok('detail' in json(res));
  assert.equal(({} as Record<string, unknown>).admin, undefined);
});

test('an unsupported content type is 415 with a detail', async () => {
  const res = await svc.request({
    method: 'POST',
    url: '/api/test-fixture/echo',
    headers: { ...auth(), 'content-type': 'text/plain' },
    payload: 'hello',
  });
  assert.equal(res.statusCode, 415);
  assert.match(json(res).detail, /Unsupported media type/);
});

test('a body over the limit is 413 with a clear detail', async () => {
  const res = await svc.request({
    method: 'POST',
    url: '/api/test-fixture/echo',
    headers: { ...auth(), 'content-type': 'application/json' },
    payload: JSON.stringify({ email: 'a@b.co', count: 1, pad: 'x'.repeat(svc.config.bodyLimitBytes) }),
  });
  assert.equal(res.statusCode, 413);
  assert.match(json(res).detail, /too large/);
});

test('an unhandled error is a logged 500 with a generic detail and no stack trace', async () => {
  const res = await svc.request({ method: 'GET', url: '/api/test-fixture/crash', headers: auth() });
  assert.equal(res.statusCode, 500);
  assert.deepEqual(json(res), { detail: 'Internal Server Error' });
  assert.doesNotMatch(res.body, /secret internal|\.ts:|at /);
});

test('devtools surface: X-Request-Id on every answer and the error envelope', async () => {
  const res = await svc.request({
    method: 'POST',
    url: '/api/devtools/test-fixture/echo',
    headers: { ...auth(), 'x-request-id': 'req-abc-123' },
    payload: {},
  });
  assert.equal(res.statusCode, 422);
  assert.equal(res.headers['x-request-id'], 'req-abc-123', 'a well-formed incoming id is echoed');
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = json(res);
  assert.ok(Array.isArray(body.detail), 'JSON mode keeps the 422 list in detail');
  assert.deepEqual(body.error, { code: 'validation_error', message: 'Request validation failed', request_id: 'req-abc-123' });
  assert.equal(body.status, 422);
  assert.equal(body.code, 'validation_error');
  assert.equal(body.request_id, 'req-abc-123');
  assert.equal(body.instance, '/api/devtools/test-fixture/echo');
  assert.equal(typeof body.type, 'string');
  assert.equal(typeof body.title, 'string');
});

test('devtools surface: an ill-formed incoming X-Request-Id is replaced', async () => {
  const res = await svc.request({
    method: 'GET',
    url: '/api/devtools/nothing',
    headers: { 'x-request-id': 'bad id with spaces <script>' },
  });
  assert.equal(res.statusCode, 404);
  assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  assert.equal(json(res).request_id, res.headers['x-request-id']);
});

test('devtools surface: Accept problem+json switches media type; detail a string, errors extension', async () => {
  const res = await svc.request({
    method: 'POST',
    url: '/api/devtools/test-fixture/echo',
    headers: { ...auth(), accept: 'application/problem+json' },
    payload: { name: '' },
  });
  assert.equal(res.statusCode, 422);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = json(res);
  assert.equal(typeof body.detail, 'string');
  assert.ok(Array.isArray(body.errors));
  assert.deepEqual(body.errors[0].loc, ['body', 'name']);
  assert.equal(body.status, 422);
});

test('devtools surface: auth errors carry the envelope too', async () => {
  const res = await svc.request({ method: 'POST', url: '/api/devtools/test-fixture/echo', payload: { name: 'x' } });
  assert.equal(res.statusCode, 401);
  const body = json(res);
  assert.equal(body.detail, 'Authorization header missing');
  assert.equal(body.error.message, 'Authorization header missing');
  assert.ok(res.headers['x-request-id']);
});

test('trailing slash: the same path with or without it is one route', async () => {
  const a = await svc.request({ method: 'GET', url: '/api/telemetry/healthz/' });
  assert.equal(a.statusCode, 200);
});

test('router-level failures answer in the spec shape: malformed URL 400, over-long segment 414', async () => {
  const bad = await svc.request({ method: 'GET', url: '/api/test-fixture/deprecated/%ED%A0%80' });
  assert.equal(bad.statusCode, 400);
  assert.deepEqual(json(bad), { detail: 'Malformed URL' });
  const long = await svc.request({ method: 'GET', url: `/api/test-fixture/deprecated/${'x'.repeat(2000)}` });
  assert.equal(long.statusCode, 414);
  assert.deepEqual(json(long), { detail: 'URI Too Long' });
  const dev = await svc.request({ method: 'GET', url: '/api/devtools/x/%ED%A0%80' });
  assert.equal(dev.statusCode, 400);
  assert.equal(json(dev).code, 'malformed_url');
  assert.ok(dev.headers['x-request-id']);
});

test('JSON nested deeper than the cap is a 422, not a stack overflow', async () => {
  const res = await svc.request({
    method: 'POST',
    url: '/api/test-fixture/echo',
    headers: { ...auth(), 'content-type': 'application/json' },
    payload: '['.repeat(10_000) + ']'.repeat(10_000),
  });
  assert.equal(res.statusCode, 422);
  assert.equal(json(res).detail[0].type, 'json_invalid');
  // Brackets inside strings do not count.
  const ok = await svc.request({
    method: 'POST',
    url: '/api/test-fixture/echo',
    headers: auth(),
    payload: { email: 'a@b.co', count: 1, kind: 'a', note: '[[[['.repeat(100) } as never,
  });
  assert.notEqual(ok.statusCode, 500);
});

test('NUL characters in path, query or body are a 422 at their location, never a store failure', async () => {
  const path = await svc.request({ method: 'GET', url: '/api/test-fixture/deprecated/a%00b', headers: auth() });
  assert.equal(path.statusCode, 422);
  assert.deepEqual(json(path).detail[0].loc, ['path', 'id']);
  const query = await svc.request({ method: 'POST', url: '/api/test-fixture/echo?limit=1&x=%00', headers: auth(), payload: { email: 'a@b.co', count: 1 } });
  assert.equal(query.statusCode, 422);
  assert.deepEqual(json(query).detail[0].loc, ['query', 'x']);
  const body = await svc.request({
    method: 'POST',
    url: '/api/test-fixture/echo',
    headers: auth(),
    payload: { email: 'a@b.co', count: 1, kind: 'a\u0000' } as never,
  });
  assert.equal(body.statusCode, 422);
  assert.deepEqual(json(body).detail[0].loc, ['body', 'kind']);
});

test("a success carries the operation's data basis as x-platform-data-basis; a refusal carries none", async () => {
  const ok = await svc.request({ method: 'GET', url: '/api/hardware/admin/audit-log', headers: { authorization: `Bearer ${token}` } });
  assert.equal(ok.statusCode, 200, ok.body);
  assert.equal(ok.headers['x-platform-data-basis'], 'stored');
  assert.equal(ok.headers['x-platform-method'], undefined, 'stored figures state no method');
  const viewer = await svc.token({ orgId: ORG, roles: ['VIEWER'] });
  const refused = await svc.request({ method: 'GET', url: '/api/hardware/admin/audit-log', headers: { authorization: `Bearer ${viewer}` } });
  assert.equal(refused.statusCode, 403);
  assert.equal(refused.headers['x-platform-data-basis'], undefined);
  // A method sentence becomes header-safe text.
  assert.equal(headerText('Σ flows × price ÷ 1000 − losses’ share'), "sum of flows x price / 1000 - losses' share");
  assert.deepEqual(dataBasisHeaders({ dataBasis: { basis: 'calculated', method: 'Energy × price.' } }), [
    ['x-platform-data-basis', 'calculated'],
    ['x-platform-method', 'Energy x price.'],
  ]);
});

test('an empty body under a JSON content type is no body: refused as missing where one is needed, accepted where none is', async () => {
  const json = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const post = await svc.request({ method: 'POST', url: '/api/test-fixture/echo', headers: json, payload: '' });
  assertRefused(post, 422, { fields: ['body'] });
  assert.equal(JSON.parse(post.body).detail[0].type, 'missing');
  // A DELETE with the header and no body reaches the operation (here: an unknown invitation).
  const del = await svc.request({ method: 'DELETE', url: '/api/auth/invitations/inv-unknown', headers: json, payload: '' });
  assertRefused(del, 404, 'Not Found');
});

test('a value outside a union of constants names the allowed values', async () => {
  const res = await svc.request({
    method: 'POST',
    url: '/api/test-fixture/echo',
    headers: { authorization: `Bearer ${token}` },
    payload: { email: 'a@example.com', count: 1, kind: 'c' },
  });
  assertRefused(res, 422, { fields: ['body.kind'] });
  assert.deepEqual(JSON.parse(res.body).detail[0], { type: 'enum', loc: ['body', 'kind'], msg: 'Input should be "a", "b"', input: 'c' });
});

test('a field error about a value that was not sent says input null (every entry has type, loc, msg and input)', () => {
  assert.deepEqual(fieldError(['query', 'to'], 'must be after from', undefined), {
    type: 'value_error',
    loc: ['query', 'to'],
    msg: 'must be after from',
    input: null,
  });
});

test('error type links and the OpenAPI contact point at where the service listens, or at the configured public origin', async () => {
  const seen: Record<string, [string, string]> = {};
  for (const [name, env] of Object.entries<Record<string, string>>({
    port: { PORT: '9090' },
    host: { HOST: '10.1.2.3', PORT: '8443' },
    configured: { PORT: '9090', PUBLIC_DOCS_ORIGIN: 'https://api.example.org/' },
  })) {
    const one = await startTestService({ extraModules: [fixtureModule], env });
    try {
      await one.createOrg(ORG);
      const t = await one.token({ orgId: ORG, roles: ['ORG_ADMIN'] });
      const res = await one.request({ method: 'POST', url: '/api/devtools/test-fixture/echo', headers: { authorization: `Bearer ${t}` }, payload: {} });
      assert.equal(res.statusCode, 422);
      const doc = json(await one.request({ method: 'GET', url: '/openapi.json' }));
      seen[name] = [json(res).type, doc.info.contact.url];
    } finally {
      await one.stop();
    }
  }
  assert.deepEqual(seen, {
    port: ['http://localhost:9090/docs/errors#validation_error', 'http://localhost:9090/docs'],
    host: ['http://10.1.2.3:8443/docs/errors#validation_error', 'http://10.1.2.3:8443/docs'],
    configured: ['https://api.example.org/docs/errors#validation_error', 'https://api.example.org/docs'],
  });
});
