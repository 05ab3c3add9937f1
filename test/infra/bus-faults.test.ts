// The NATS bus while its connection is down (found by the T-9 fault run, bench/faults/nats-faults.ts):
// every ingestion batch waited out the 2 s JetStream publish timeout although the client already
// knew it was disconnected. Publishing now fails at once while the client reconnects, and works
// again without a restart when the server is back. Needs a real NATS (TEST_NATS_URL); the fault
// proxy sits between the adapter and the server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { openNatsBus } from '../../src/infra/bus/nats.ts';
import { BusUnavailableError } from '../../src/infra/bus/index.ts';
import { startFaultProxy } from '../../bench/lib/fault-proxy.ts';
import { Inbox } from '../helpers/signal.ts';

const url = process.env.TEST_NATS_URL;

test('a disconnected bus refuses publishes at once, and publishes again once the server is back', { skip: !url, timeout: 60_000 }, async () => {
  const target = new URL(url!);
  const proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 4222) });
  const connection = new Inbox<boolean>();
  const bus = await openNatsBus({
    url: `nats://127.0.0.1:${new URL(proxy.url('nats')).port}`,
    namespace: `tbf${randomBytes(4).toString('hex')}`,
    deleteStreamOnClose: true,
    onConnectionChange: connection.push,
  });
  try {
    await bus.publish('telemetry.test', { n: 1 });

    proxy.set({ kind: 'reset' });
    await connection.until((c) => c.includes(false), 'the bus sees the disconnection');
    // Refused at once by the disconnected client (not after the 2 s publish timeout, whose error
    // says "bus publish failed"): told apart by the reason, not by timing the call.
    await assert.rejects(bus.publish('telemetry.test', { n: 2 }), (e: unknown) => e instanceof BusUnavailableError && e.message === 'bus not connected');

    const mark = connection.items.length;
    proxy.set({ kind: 'pass' });
    // The client reconnects on its own timer (reconnectTimeWait, real time: the behaviour).
    await connection.until((c) => c.slice(mark).includes(true), 'the bus reconnects', 15_000);
    await bus.publish('telemetry.test', { n: 3 });
  } finally {
    proxy.set({ kind: 'pass' });
    await bus.close();
    await proxy.close();
  }
});
