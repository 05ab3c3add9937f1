// The SSRF guard's edges as an administrator meets them (decision 0016): webhook URLs whose literal
// hides a private IPv4 address inside IPv6 are refused at registration, and the delivery log says
// the same thing for every attempt that got no HTTP answer, so it cannot be used to map ports.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { bearer, deliveries, registerEndpoint, runAt, startReceiver } from './helpers.ts';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.stop());

const GENERIC = 'connection failed: no HTTP answer within 10 s';

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

test('refused, reset and TLS-failed attempts all record the same generic error, no address, port or timing', async () => {
  const ORG = 'ssrf-log';
  await svc.createOrg(ORG);
  const rx = await startReceiver([200]); // plain HTTP: an https:// URL to it fails the TLS handshake
  const resetter = net.createServer((socket) => socket.destroy());
  await new Promise<void>((r) => resetter.listen(0, '127.0.0.1', () => r()));
  try {
    const port = await closedPort();
    const urls = [`http://127.0.0.1:${port}/h`, `http://127.0.0.1:${(resetter.address() as net.AddressInfo).port}/h`, `${rx.url.replace('http:', 'https:')}/h`];
    const eps = [];
    for (const u of urls) eps.push(await registerEndpoint(svc, ORG, u));
    const t0 = svc.clock.now().getTime();
    for (const ep of eps) {
      const res = await svc.request({ method: 'POST', url: `/api/devtools/webhooks/${ep.id}/test`, headers: await bearer(svc, ORG) });
      assert.equal(res.statusCode, 202, res.body);
    }
    await runAt(svc, t0 + 12_000);
    for (const [i, ep] of eps.entries()) {
      const log = (await deliveries(svc, ORG, ep.id)).deliveries[0];
      assert.equal(log.attempt_count, 1, urls[i]);
      const [a] = log.attempts;
      assert.deepEqual(
        { status_code: a.status_code, outcome: a.outcome, error: a.error, duration_ms: a.duration_ms },
        {
          status_code: null,
          outcome: 'failed',
          error: GENERIC,
          duration_ms: 0,
        },
        urls[i],
      );
      assert.equal(log.last_error, GENERIC, urls[i]);
      assert.doesNotMatch(JSON.stringify(log), /ECONN|EPROTO|127\.0\.0\.1:|socket|ssl|tls/i, urls[i]);
    }
    assert.equal(rx.requests.length, 0, 'no request reached the plain HTTP receiver');
  } finally {
    await rx.close();
    await new Promise((r) => resetter.close(r));
  }
});

test('registration refuses IPv6 literals that carry a private IPv4 address, in hexadecimal or translation form', async () => {
  // Private outbound not allowed, and no loopback-only switch (these literals are never called:
  // registration does not resolve or connect to a literal).
  const strict = await startTestService({ env: { ALLOW_PRIVATE_OUTBOUND: 'false', OUTBOUND_LOOPBACK_ONLY: 'false' } });
  try {
    await strict.createOrg('ssrf-reg');
    const headers = await bearer(strict, 'ssrf-reg');
    const urls = [
      'https://[::a00:5]/h', // IPv4-compatible, hex (10.0.0.5)
      'https://[::ffff:a9fe:a9fe]/h', // IPv4-mapped, hex (169.254.169.254)
      'https://[::ffff:0:0]/h', // IPv4-mapped 0.0.0.0
      'https://[64:ff9b::a00:5]/h', // NAT64 well-known prefix
      'https://[64:ff9b:1::808:808]/h', // NAT64 local-use prefix: refused whatever it embeds
      'https://[2002:a00:5::1]/h', // 6to4 of 10.0.0.5
      'https://[2001:0:4136:e378:8000:63bf:f5ff:fffa]/h', // Teredo, client 10.0.0.5
      'https://[100::1]/h', // discard-only
    ];
    for (const url of urls) {
      const res = await strict.request({ method: 'POST', url: '/api/devtools/webhooks', headers, payload: { url } });
      assert.equal(res.statusCode, 422, `${url}: ${res.body}`);
      const [e] = json(res).detail;
      assert.deepEqual(e.loc, ['body', 'url'], url);
      assert.match(e.msg, /URL refused: address is not a public address/, url);
    }
    const list = json(await strict.request({ method: 'GET', url: '/api/devtools/webhooks', headers }));
    assert.deepEqual(list.webhooks, []);
  } finally {
    await strict.stop();
  }
});
