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
import { eventually } from '../helpers/eventually.ts';

const url = process.env.TEST_NATS_URL;


test('a disconnected bus refuses publishes at once, and publishes again once the server is back', { skip: !url, timeout: 60_000 }, async () => {
  const target = new URL(url!);
  const proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 4222) });
  const bus = await openNatsBus({
    url: `nats://127.0.0.1:${new URL(proxy.url('nats')).port}`,
    namespace: `tbf${randomBytes(4).toString('hex')}`,
    deleteStreamOnClose: true,
  });
  try {
    await bus.publish('telemetry.test', { n: 1 });

    proxy.set({ kind: 'reset' });
    await eventually(async () => !(await bus.ping(300)), 'the bus sees the disconnection');
    const started = performance.now();
    await assert.rejects(bus.publish('telemetry.test', { n: 2 }), BusUnavailableError);
    const waited = performance.now() - started;
    assert.ok(waited < 1000, `refused without waiting for the 2 s publish timeout (took ${waited.toFixed(0)} ms)`);

    proxy.set({ kind: 'pass' });
    await eventually(async () => {
      await bus.publish('telemetry.test', { n: 3 });
      return true;
    }, 'publishing works again', 15_000);
  } finally {
    proxy.set({ kind: 'pass' });
    await bus.close();
    await proxy.close();
  }
});
