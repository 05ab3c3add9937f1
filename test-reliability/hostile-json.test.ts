// T-14: hostile JSON against every operation that takes a body. Pass: a 4xx in the spec's shape,
// the process stays up, Object.prototype unchanged, nothing stored from a refused request.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { startTestService, json, type TestService } from '../test/helpers/service.ts';
import { fixtureModule } from '../test/helpers/fixtures.ts';
import { fuzzEnv, prepareCredentials, type Credentials } from './helpers/world.ts';
import { assertRefused } from '../test/helpers/refusal.ts';

let svc: TestService;
let doc: any;
let creds: Credentials;

before(async () => {
  svc = await startTestService({ env: fuzzEnv(), extraModules: [fixtureModule] });
  doc = json(await svc.request({ method: 'GET', url: '/openapi.json' }));
  creds = await prepareCredentials(svc, doc);
});
after(() => svc?.stop());

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObj = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

const HOSTILE: [string, string | Buffer, string?][] = [
  ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d])],
  ['10,000-deep array nesting', deep(10_000)],
  ['10,000-deep object nesting', deepObj(10_000)],
  ['duplicate keys', '{"name":"a","name":"b","email":"x@y.z","email":{"nested":1}}'],
  ['prototype pollution', '{"__proto__":{"admin":true},"constructor":{"prototype":{"polluted":true}}}'],
  ['1e309 (overflows to Infinity)', '{"value":1e309,"power_kw":1e309,"price_gbp_per_mwh":-1e309}'],
  ['truncated', '{"a":[1,2,{"b":'],
  ['not JSON at all', "<?xml version='1.0'?><a/>"],
  ['wrong content type', '{"a":1}', 'text/plain'],
  ['form content type', 'a=1&b=2', 'application/x-www-form-urlencoded'],
];

function assertShape(path: string, res: { statusCode: number; body: string; headers: Record<string, unknown> }, label: string) {
  assert.ok(res.statusCode < 500, `${label} ${path}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  if (res.statusCode >= 400) {
    const body = JSON.parse(res.body);
    assert.ok('detail' in body, `${label} ${path}: no detail`);
    if (path.startsWith('/api/devtools/')) assert.ok(body.error?.code, `${label} ${path}: no envelope`);
  }
}

test('hostile JSON against every operation with a body', async () => {
  let sent = 0;
  let slowest = 0;
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      if (!op.requestBody) continue;
      const url = path.replace(/\{[^}]+\}/g, 'x1');
      for (const [label, payload, type] of HOSTILE) {
        const t0 = performance.now();
        const res = await svc.request({
          method: method.toUpperCase(),
          url,
          headers: { ...creds.headersFor(op), 'content-type': type ?? 'application/json' },
          payload,
        });
        slowest = Math.max(slowest, performance.now() - t0);
        sent++;
        assertShape(path, res, label);
      }
    }
  }
  assert.equal(({} as Record<string, unknown>).admin, undefined, 'Object.prototype unchanged');
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype unchanged');
  console.log(`hostile JSON: ${sent} requests, slowest ${slowest.toFixed(1)} ms`);
  const health = await svc.request({ method: 'GET', url: '/api/telemetry/healthz' });
  assert.equal(health.statusCode, 200, 'the process stays up');
});

test('a 5 MB single string: refused by size or handled, never a 500', async () => {
  const big = JSON.stringify({ name: 'x'.repeat(5 * 1024 * 1024) });
  const targets = ['/api/test-fixture/echo', ...(doc.paths['/api/telemetry/ingest'] ? ['/api/telemetry/ingest'] : [])];
  for (const url of targets) {
    const res = await svc.request({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${creds.adminToken}`, 'content-type': 'application/json' },
      payload: big,
    });
    assertShape(url, res, '5 MB string');
  }
  const small = await svc.request({
    method: 'POST',
    url: '/api/test-fixture/echo',
    headers: { authorization: `Bearer ${creds.adminToken}`, 'content-type': 'application/json' },
    payload: big,
  });
  assertRefused(small, 413, 'Request body too large: the limit is 1048576 bytes');
});

test('nothing from a refused ingestion request is stored', async () => {
  if (!doc.paths['/api/telemetry/ingest']) return;
  const headers = { authorization: `Bearer ${creds.adminToken}`, 'content-type': 'application/json' };
  for (const [, payload, type] of HOSTILE) {
    await svc.request({ method: 'POST', url: '/api/telemetry/ingest', headers: { ...headers, 'content-type': type ?? 'application/json' }, payload });
  }
  const { rows } = await svc.deps.db.query<{ n: number }>('select count(*)::int as n from telemetry where org_id = $1', [creds.orgId]);
  // Only the duplicate-keys and 1e309 payloads are objects that could be records; neither has an asset and a ts.
  assert.equal(rows[0].n, 0);
});
