// The fault proxy used by the fault-injection runs in bench/ behaves as its modes say.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startFaultProxy, type ChunkEvent } from '../../bench/lib/fault-proxy.ts';
import { bounded } from '../helpers/signal.ts';

async function echoServer() {
  let received = 0;
  const s = net.createServer((c) => {
    c.on('data', (d) => (received += d.length));
    c.pipe(c);
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return { port: (s.address() as net.AddressInfo).port, received: () => received, close: () => new Promise<void>((r) => s.close(() => r())) };
}

function roundTrip(port: number, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = net.connect(port, '127.0.0.1', () => c.write('ping'));
    const t = setTimeout(() => {
      c.destroy();
      reject(new Error('timeout'));
    }, timeoutMs);
    c.on('data', (d) => {
      clearTimeout(t);
      c.destroy();
      resolve(d.toString());
    });
    c.on('error', (e) => {
      clearTimeout(t);
      reject(e);
    });
    c.on('close', () => {
      clearTimeout(t);
      reject(new Error('closed'));
    });
  });
}

test('pass, stall, reset and latency modes', async () => {
  const echo = await echoServer();
  const proxy = await startFaultProxy({ host: '127.0.0.1', port: echo.port });
  try {
    assert.equal(await roundTrip(proxy.port), 'ping');
    proxy.set({ kind: 'stall' });
    // Not a round trip that times out: the proxy says when it dropped the bytes, and the echo
    // server never got them.
    const dropped = new Promise<ChunkEvent>((r) => {
      const stop = proxy.watch((e) => {
        stop();
        r(e);
      });
    });
    const before = echo.received();
    const stalled = net.connect(proxy.port, '127.0.0.1', () => stalled.write('ping'));
    const seen = await bounded(dropped, 'the proxy sees the stalled bytes');
    assert.deepEqual([seen.from, seen.fate, String(seen.chunk)], ['client', 'dropped', 'ping']);
    assert.equal(echo.received(), before, 'nothing reached the target');
    stalled.destroy();
    proxy.set({ kind: 'reset' });
    await assert.rejects(roundTrip(proxy.port), /closed|ECONNRESET|EPIPE/);
    // Latency is real time by definition (the mode bench runs use); short, and the round trip's
    // bound (10 s, wide for a loaded machine) is not an assertion on time.
    proxy.set({ kind: 'latency', ms: 50 });
    assert.equal(await roundTrip(proxy.port), 'ping');
    proxy.set({ kind: 'pass' });
    assert.equal(await roundTrip(proxy.port), 'ping');
  } finally {
    await proxy.close();
    await echo.close();
  }
});
