// The fault proxy used by the fault-injection runs in bench/ behaves as its modes say.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startFaultProxy } from '../../bench/lib/fault-proxy.ts';

async function echoServer() {
  const s = net.createServer((c) => c.pipe(c));
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return { port: (s.address() as net.AddressInfo).port, close: () => new Promise<void>((r) => s.close(() => r())) };
}

function roundTrip(port: number, timeoutMs = 500): Promise<string> {
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
    await assert.rejects(roundTrip(proxy.port, 200), /timeout/);
    proxy.set({ kind: 'reset' });
    await assert.rejects(roundTrip(proxy.port, 500), /closed|ECONNRESET|EPIPE/);
    proxy.set({ kind: 'latency', ms: 50 });
    assert.equal(await roundTrip(proxy.port, 1000), 'ping');
    proxy.set({ kind: 'pass' });
    assert.equal(await roundTrip(proxy.port), 'ping');
  } finally {
    await proxy.close();
    await echo.close();
  }
});
