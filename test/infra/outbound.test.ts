// The SSRF guard on every outbound call (reliability plan T-27), with a stub resolver.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { checkUrl, outboundRequest, OutboundRefusedError, OutboundFailedError } from '../../src/infra/outbound/http-client.ts';
import { isPublicAddress } from '../../src/infra/outbound/ip-guard.ts';
import { startFakeServer, sendJson, type FakeServer } from '../helpers/fake-server.ts';

let fake: FakeServer;
before(async () => {
  fake = await startFakeServer((req, res) => {
    if (req.url === '/redirect') {
      res.writeHead(302, { location: 'http://127.0.0.1:1/' });
      res.end();
    } else if (req.url === '/slow') {
      // Never answers (the socket goes when the fake closes): past the client's 100 ms deadline,
      // which is real socket time and the behaviour under test, however busy the box is.
    } else if (req.url === '/big') {
      res.writeHead(200);
      res.end('x'.repeat(2048));
    } else sendJson(res, 200, { ok: true, method: req.method, body: req.body });
  });
});
after(() => fake.close());

test('address classification', () => {
  for (const a of [
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '224.0.0.1',
  ]) {
    assert.equal(isPublicAddress(a), false, a);
  }
  for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(isPublicAddress(a), true, a);
});

test('refused at the URL: private literals in every spelling, bad schemes, http where https is required', () => {
  const urls = [
    'http://127.0.0.1/',
    'https://[::1]/',
    'http://169.254.169.254/latest/meta-data',
    'http://10.0.0.1/',
    'http://0x7f000001/',
    'http://2130706433/',
    'http://017700000001/',
    'http://[::ffff:127.0.0.1]/',
    'http://100.64.0.1/',
    'http://localhost/',
    'file:///etc/passwd',
    'gopher://example.com/',
    'http://user:pw@example.com/',
  ];
  for (const u of urls) assert.throws(() => checkUrl(u, { requireHttps: true }), OutboundRefusedError, u);
  assert.throws(() => checkUrl('http://example.com/', { requireHttps: true }), OutboundRefusedError);
  assert.doesNotThrow(() => checkUrl('https://example.com/hook', { requireHttps: true }));
});

test('a name resolving to a private address is refused before any connection', async () => {
  let looked = 0;
  const lookup = async () => {
    looked++;
    return ['10.1.2.3'];
  };
  await assert.rejects(outboundRequest('http://hooks.example.com/', {}, { lookup }), OutboundRefusedError);
  assert.equal(looked, 1);
});

test('rebinding: a name that resolved public at registration but private at delivery is refused', async () => {
  const answers = [['93.184.216.34'], ['127.0.0.1']];
  const lookup = async () => answers.shift()!;
  assert.doesNotThrow(() => checkUrl('http://rebind.example.com/', {}));
  await answers.shift(); // registration-time answer consumed
  await assert.rejects(outboundRequest('http://rebind.example.com/', {}, { lookup }), OutboundRefusedError);
});

test('with the operator allowance, loopback works; redirects are returned, never followed', async () => {
  const ok = await outboundRequest(
    `${fake.url}/x`,
    { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } },
    { allowPrivate: true },
  );
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.json(), { ok: true, method: 'POST', body: '{"a":1}' });
  const r = await outboundRequest(`${fake.url}/redirect`, {}, { allowPrivate: true });
  assert.equal(r.status, 302);
  await assert.rejects(outboundRequest(`${fake.url}/x`, {}, { allowPrivate: false }), OutboundRefusedError);
});

test('time and size are bounded', async () => {
  await assert.rejects(
    outboundRequest(`${fake.url}/slow`, {}, { allowPrivate: true, timeoutMs: 100 }),
    (e: unknown) => e instanceof OutboundFailedError && e.timedOut,
  );
  await assert.rejects(outboundRequest(`${fake.url}/big`, {}, { allowPrivate: true, maxResponseBytes: 1024 }), OutboundFailedError);
  await assert.rejects(outboundRequest('http://127.0.0.1:1/', {}, { allowPrivate: true }), OutboundFailedError);
});

test('loopback-only policy refuses every non-loopback target before resolving it', async () => {
  const { setOutboundPolicy } = await import('../../src/infra/outbound/http-client.ts');
  setOutboundPolicy({ loopbackOnly: true });
  try {
    let looked = 0;
    await assert.rejects(
      outboundRequest('https://hooks.example.com/x', {}, { allowPrivate: true, lookup: async () => (looked++, ['93.184.216.34']) }),
      OutboundRefusedError,
    );
    assert.equal(looked, 0);
    const ok = await outboundRequest(`${fake.url}/x`, {}, { allowPrivate: true });
    assert.equal(ok.status, 200);
  } finally {
    setOutboundPolicy({ loopbackOnly: false });
  }
});
