// One contract for every bus adapter: in-process always, NATS JetStream when TEST_NATS_URL is set.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Bus } from '../../src/infra/bus/index.ts';
import { subjectMatches, BusUnavailableError } from '../../src/infra/bus/index.ts';
import { createMemoryBus } from '../../src/infra/bus/memory.ts';
import { openNatsBus } from '../../src/infra/bus/nats.ts';

const adapters: [string, () => Promise<Bus>][] = [['memory', async () => createMemoryBus()]];
if (process.env.TEST_NATS_URL) {
  adapters.push([
    'nats',
    () => openNatsBus({ url: process.env.TEST_NATS_URL!, namespace: `t${randomBytes(5).toString('hex')}`, deleteStreamOnClose: true }),
  ]);
}

function collect(bus: Bus, pattern: string) {
  const got: { subject: string; payload: unknown }[] = [];
  const ready = bus.subscribe(pattern, (payload, subject) => {
    got.push({ subject, payload });
  });
  return { got, ready };
}

async function until(cond: () => boolean, ms = 3000) {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

for (const [name, open] of adapters) {
  describe(`bus contract: ${name}`, () => {
    let bus: Bus;
    after(() => bus?.close());

    test('opens and answers ping', async () => {
      bus = await open();
      assert.equal(await bus.ping(), true);
    });

    test('a subscriber receives what is published after it subscribed, in order', async () => {
      const { got, ready } = collect(bus, 'telemetry.org1');
      const stop = await ready;
      for (let i = 0; i < 5; i++) await bus.publish('telemetry.org1', { i });
      await until(() => got.length === 5);
      assert.deepEqual(got.map((g) => (g.payload as { i: number }).i), [0, 1, 2, 3, 4]);
      assert.equal(got[0].subject, 'telemetry.org1');
      await stop();
    });

    test('wildcards select subjects; other subjects are not delivered', async () => {
      const all = collect(bus, 'telemetry.*');
      const one = collect(bus, 'telemetry.orgA');
      const stops = await Promise.all([all.ready, one.ready]);
      await bus.publish('telemetry.orgA', { a: 1 });
      await bus.publish('telemetry.orgB', { b: 1 });
      await bus.publish('other.orgA', { c: 1 });
      await until(() => all.got.length === 2 && one.got.length === 1);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(all.got.length, 2);
      assert.equal(one.got.length, 1);
      for (const s of stops) await s();
    });

    test('after unsubscribe nothing more arrives', async () => {
      const { got, ready } = collect(bus, 'events.x');
      const stop = await ready;
      await bus.publish('events.x', { n: 1 });
      await until(() => got.length === 1);
      await stop();
      await bus.publish('events.x', { n: 2 });
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(got.length, 1);
    });

    test('after close, ping is false and publish fails', async () => {
      const b = await open();
      await b.close();
      assert.equal(await b.ping(), false);
      if (b.kind === 'nats') await assert.rejects(b.publish('x.y', {}), BusUnavailableError);
    });
  });
}

describe('NATS bus with the server unreachable', () => {
  test('starts, reports ping false and refuses publishes', async () => {
    const bus = await openNatsBus({ url: 'nats://127.0.0.1:4299', namespace: 'tdown' });
    try {
      assert.equal(await bus.ping(200), false);
      await assert.rejects(bus.publish('a.b', {}), BusUnavailableError);
    } finally {
      await bus.close();
    }
  });
});

test('subject matching follows NATS rules', () => {
  assert.equal(subjectMatches('a.*', 'a.b'), true);
  assert.equal(subjectMatches('a.*', 'a.b.c'), false);
  assert.equal(subjectMatches('a.>', 'a.b.c'), true);
  assert.equal(subjectMatches('a.>', 'a'), false);
  assert.equal(subjectMatches('a.b', 'a.b'), true);
  assert.equal(subjectMatches('a.b', 'a.c'), false);
});
