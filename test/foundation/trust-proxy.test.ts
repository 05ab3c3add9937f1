// TRUST_PROXY (decision 0028): behind the configured proxies the limits key on the client named by
// X-Forwarded-For; from any other peer the header is ignored, so a forged one buys nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, ConfigError } from '../../src/config.ts';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { assertRefused } from '../helpers/refusal.ts';

const PROXY = '10.1.2.3';
let svc: TestService;

before(async () => {
  svc = await startTestService({ env: { TRUST_PROXY: '10.0.0.0/8, 2001:db8::/32' } });
});
after(() => svc.stop());

/** One refresh with a worthless token: counts against the authentication limit (5 a minute). */
async function refresh(remoteAddress: string, forwardedFor?: string) {
  const res = await svc.request({
    method: 'POST',
    url: '/api/auth/token/refresh',
    remoteAddress,
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    payload: { refresh_token: 'not-a-token' },
  });
  return { status: res.statusCode, detail: json(res).detail, retryAfter: res.headers['retry-after'] };
}

test('through a trusted proxy each client behind it has its own limit', async () => {
  for (let i = 0; i < 5; i++) assertRefused(await refresh(PROXY, '203.0.113.7'), 401, 'Invalid or expired refresh token');
  const sixth = await refresh(PROXY, '203.0.113.7');
  assert.deepEqual([sixth.status, sixth.detail], [429, 'Rate limit exceeded']);
  assert.ok(Number(sixth.retryAfter) >= 1);
  // Another client through the same proxy is not limited by the first one's requests.
  const other = await refresh(PROXY, '203.0.113.8');
  assert.deepEqual([other.status, other.detail], [401, 'Invalid or expired refresh token']);
});

test('forged X-Forwarded-For from an untrusted peer is ignored: the peer is the client', async () => {
  const peer = '198.51.100.9';
  for (let i = 0; i < 5; i++) assertRefused(await refresh(peer, `203.0.113.${100 + i}`), 401, 'Invalid or expired refresh token');
  assertRefused(await refresh(peer, '203.0.113.200'), 429, 'Rate limit exceeded');
  assertRefused(await refresh(peer), 429, 'Rate limit exceeded');
});

test('entries a client prepends before the trusted proxy do not change who it is', async () => {
  // The proxy appends the address it saw; whatever the client wrote before it is not believed.
  for (let i = 0; i < 5; i++) assertRefused(await refresh(PROXY, `192.0.2.${i + 1}, 203.0.113.50`), 401, 'Invalid or expired refresh token');
  assertRefused(await refresh(PROXY, '192.0.2.99, 203.0.113.50'), 429, 'Rate limit exceeded');
});

test('without TRUST_PROXY the header is never believed', async () => {
  const plain = await startTestService();
  try {
    const call = (xff: string) =>
      plain.request({
        method: 'POST',
        url: '/api/auth/token/refresh',
        remoteAddress: PROXY,
        headers: { 'x-forwarded-for': xff },
        payload: { refresh_token: 'x' },
      });
    for (let i = 0; i < 5; i++) assertRefused(await call(`203.0.113.${i + 1}`), 401, 'Invalid or expired refresh token');
    assertRefused(await call('203.0.113.77'), 429, 'Rate limit exceeded');
  } finally {
    await plain.stop();
  }
});

test('TRUST_PROXY takes addresses, ranges and the named ranges; anything else stops the start', () => {
  assert.deepEqual(loadConfig({}).trustProxy, []);
  assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.1, 172.16.0.0/12,::1,fd00::/8,loopback' }).trustProxy, [
    '10.0.0.1',
    '172.16.0.0/12',
    '::1',
    'fd00::/8',
    'loopback',
  ]);
  for (const bad of ['true', '*', '10.0.0.0/33', 'proxy.example.com', '10.0.0.1/8/1', '::1/129']) {
    assert.throws(
      () => loadConfig({ TRUST_PROXY: bad }),
      (e: Error) => e instanceof ConfigError && /TRUST_PROXY/.test(e.message),
      bad,
    );
  }
});

test('the address a WebSocket handshake is counted under is the one Fastify gives req.ip (platform/client-address.ts)', async () => {
  const { default: Fastify } = await import('fastify');
  const { clientAddressResolver } = await import('../../src/platform/client-address.ts');
  const cases: [string, string | undefined][] = [
    ['10.1.2.3', '203.0.113.7'],
    ['10.1.2.3', '203.0.113.7, 10.9.9.9'],
    ['10.1.2.3', '198.51.100.1, 203.0.113.7'],
    ['10.1.2.3', '10.4.4.4, 10.5.5.5'],
    ['10.1.2.3', undefined],
    ['198.51.100.9', '203.0.113.7'],
    ['127.0.0.1', '203.0.113.7'],
    ['2001:db8::1', '203.0.113.7'],
    ['::ffff:10.1.2.3', '203.0.113.7'],
    ['2001:db9::1', '203.0.113.7'],
  ];
  for (const trust of [['10.0.0.0/8', '2001:db8::/32'], ['loopback'], ['10.1.2.3'], []]) {
    const app = Fastify({ trustProxy: trust.length ? trust : false });
    app.get('/ip', async (req) => req.ip);
    const resolve = clientAddressResolver(trust);
    for (const [remoteAddress, xff] of cases) {
      const headers = xff === undefined ? {} : { 'x-forwarded-for': xff };
      const fastify = (await app.inject({ method: 'GET', url: '/ip', remoteAddress, headers })).body;
      const ours = resolve({ socket: { remoteAddress }, headers } as never);
      assert.equal(ours, fastify, `TRUST_PROXY=${trust.join(',')} peer ${remoteAddress} X-Forwarded-For ${xff}`);
    }
    await app.close();
  }
});
