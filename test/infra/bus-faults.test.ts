// The NATS bus while its connection is down (found by the T-9 fault run, bench/faults/nats-faults.ts):
// every ingestion batch waited out the 2 s JetStream publish timeout although the client already
// knew it was disconnected. Publishing now fails at once while the client reconnects, and works
// again without a restart when the server is back. Needs a real NATS (TEST_NATS_URL); the fault
// proxy sits between the adapter and the server.
//
// A live publish across a failover (issue 43, decision 0488): on a three-node cluster a stream whose
// leader died answers "no responders" until another is elected, and the live records of those
// seconds were stored but never streamed. `publishRetrying` tries again: here the stream is made to
// have no leader by deleting it (the same answer) and making it again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { openNatsBus } from '../../src/infra/bus/nats.ts';
import { BusUnavailableError } from '../../src/infra/bus/index.ts';
import { startFaultProxy } from '../../bench/lib/fault-proxy.ts';
import { Inbox, bounded } from '../helpers/signal.ts';
import { connect, JSONCodec } from 'nats';

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

test('a live publish the stream refuses while it has no leader is accepted once it has one, stored once; past its bound or its room it is dropped', {
  skip: !url,
  timeout: 60_000,
}, async () => {
  const namespace = `tbr${randomBytes(4).toString('hex')}`;
  const stream = `${namespace}_BUS`;
  const bus = await openNatsBus({ url: url!, namespace, deleteStreamOnClose: true, retryBudgetBytes: 1000 });
  const nc = await connect({ servers: new URL(url!).host });
  const jsm = await nc.jetstreamManager();
  const codec = JSONCodec();
  const remake = () => jsm.streams.add({ name: stream, subjects: [`${namespace}.>`] });
  const stored = async () => {
    const n = (await jsm.streams.info(stream)).state.messages;
    const out: unknown[] = [];
    for (let seq = 1; seq <= n; seq++) out.push(codec.decode((await jsm.streams.getMessage(stream, { seq })).data));
    return out;
  };
  try {
    // No leader: refused, the caller not kept past its wait, tries going on; accepted once there is one.
    await jsm.streams.delete(stream);
    const held = await bus.publishRetrying('telemetry.o1', { n: 1 }, { waitMs: 100, retryForMs: 30_000 });
    assert.equal(held.accepted, false, 'not accepted within the wait');
    await remake();
    assert.equal(await bounded(held.settled, 'the held message accepted once the stream is back'), true);
    assert.deepEqual(await stored(), [{ n: 1 }], 'stored once');

    // Past its bound: given up, and never stored later.
    await jsm.streams.delete(stream);
    const late = await bus.publishRetrying('telemetry.o1', { n: 2 }, { waitMs: 0, retryForMs: 600 });
    assert.equal(late.accepted, false);
    assert.equal(await bounded(late.settled, 'given up after its bound'), false);
    // No room (retryBudgetBytes 1000): a message that cannot be held is dropped at once, however long its bound.
    const big = await bus.publishRetrying('telemetry.o1', { pad: 'x'.repeat(2000) }, { waitMs: 0, retryForMs: 60_000 });
    assert.equal(await bounded(big.settled, 'dropped for want of room'), false);
    await remake();
    await bus.publish('telemetry.o1', { n: 3 });
    assert.deepEqual(await stored(), [{ n: 3 }], 'neither dropped message reached the stream');

    // Accepted at the first try: at once, nothing held.
    const now = await bus.publishRetrying('telemetry.o1', { n: 4 }, { waitMs: 2000, retryForMs: 30_000 });
    assert.equal(now.accepted, true);
    assert.equal(await now.settled, true);
    assert.deepEqual(await stored(), [{ n: 3 }, { n: 4 }]);
  } finally {
    await nc.close();
    await bus.close();
  }
});
