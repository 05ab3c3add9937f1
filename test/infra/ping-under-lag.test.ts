// Readiness under load (outside review, finding 7): an answer that arrived while the event loop was
// busy past the limit counts. Before, the limit's timer ran first (Node runs due timers before it
// reads sockets), and readiness said `cache: false` with Redis healthy.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { startTestService, json, realServers, type TestService } from '../helpers/service.ts';
import { withTimeout } from '../../src/core/timeout.ts';

let svc: TestService | undefined;
after(() => svc?.stop());

/** Keeps the event loop busy, as a large batch or a burst of sign-ins does. */
const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

test('withTimeout: a socket reply waiting when the loop comes back wins over the due limit; silence gets the fallback', async () => {
  // The echo runs in another process, as a real dependency does: it answers while this loop is busy.
  const echo = spawn(
    process.execPath,
    ['-e', "require('net').createServer((s) => s.pipe(s)).listen(0, '127.0.0.1', function () { console.log(this.address().port) })"],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [port] = await once(echo.stdout!, 'data');
  const socket = connect(Number(String(port).trim()), '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  try {
    for (let i = 0; i < 5; i++) {
      const reply = withTimeout(new Promise<string>((r) => socket.once('data', (d) => r(String(d)))), 20, 'timeout');
      socket.write(`ping ${i}`);
      busy(100); // the echo is in the socket's buffer; the 20 ms limit is long due
      assert.equal(await reply, `ping ${i}`, `round ${i}`);
    }
    assert.equal(await withTimeout(new Promise<string>(() => {}), 20, 'timeout'), 'timeout');
    assert.equal(await withTimeout(Promise.reject(new Error('x')), 20, 'failed'), 'failed');
  } finally {
    socket.destroy();
    echo.kill();
  }
});

test('cache and bus pings sent before a busy spell count their replies; readiness stays ready', {
  skip: !(realServers.redis && realServers.nats) && 'needs Redis and NATS (the embedded ones answer in process)',
}, async () => {
  svc = await startTestService();
  const { cache, bus } = svc.deps;
  for (let i = 0; i < 5; i++) {
    // Both adapters write the ping at once; the replies arrive while the loop is busy for longer
    // than the ping's limit and than the Redis client's old 200 ms command timeout.
    const pings = Promise.all([cache.ping(50), bus.ping(50)]);
    busy(300);
    assert.deepEqual(await pings, [true, true], `round ${i}`);
  }
  const ready = await svc.request({ method: 'GET', url: '/api/telemetry/readyz' });
  assert.equal(ready.statusCode, 200);
  assert.equal(json(ready).status, 'ready');
});
