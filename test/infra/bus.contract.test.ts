// One contract for every bus adapter: in-process always, NATS JetStream when TEST_NATS_URL is set.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Bus } from '../../src/infra/bus/index.ts';
import { subjectMatches, BusUnavailableError, JsonText, payloadBytes } from '../../src/infra/bus/index.ts';
import { createMemoryBus } from '../../src/infra/bus/memory.ts';
import { openNatsBus } from '../../src/infra/bus/nats.ts';
import { Inbox } from '../helpers/signal.ts';

const adapters: [string, () => Promise<Bus>][] = [['memory', async () => createMemoryBus()]];
if (process.env.TEST_NATS_URL) {
  adapters.push(['nats', () => openNatsBus({ url: process.env.TEST_NATS_URL!, namespace: `t${randomBytes(5).toString('hex')}`, deleteStreamOnClose: true })]);
}

function collect(bus: Bus, pattern: string) {
  const inbox = new Inbox<{ subject: string; payload: unknown }>();
  const ready = bus.subscribe(pattern, (payload, subject) => inbox.push({ subject, payload }));
  return { got: inbox.items, inbox, ready };
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
      const { got, inbox, ready } = collect(bus, 'telemetry.org1');
      const stop = await ready;
      for (let i = 0; i < 5; i++) await bus.publish('telemetry.org1', { i });
      await inbox.count(5, 'five messages');
      assert.deepEqual(
        got.map((g) => (g.payload as { i: number }).i),
        [0, 1, 2, 3, 4],
      );
      assert.equal(got[0].subject, 'telemetry.org1');
      await stop();
    });

    test('a JsonText, whole or in parts, is delivered as what JSON.parse makes of its text', async () => {
      const { got, inbox, ready } = collect(bus, 'telemetry.parts');
      const stop = await ready;
      const records = JSON.stringify([{ s: 'é 😀 中文 \u2028 "q" \\' }, { n: -0.5 }]);
      await bus.publish('telemetry.parts', new JsonText(`{"org_id":"o1","records":${records}}`));
      await bus.publish('telemetry.parts', new JsonText('{"org_id":"o1","records":', records, '}'));
      await inbox.count(2, 'two messages');
      const expected = { org_id: 'o1', records: [{ s: 'é 😀 中文 \u2028 "q" \\' }, { n: -0.5 }] };
      assert.deepEqual(
        got.map((g) => g.payload),
        [expected, expected],
      );
      await stop();
    });

    test('wildcards select subjects; other subjects are not delivered', async () => {
      const all = collect(bus, 'telemetry.*');
      const one = collect(bus, 'telemetry.orgA');
      const stops = await Promise.all([all.ready, one.ready]);
      await bus.publish('telemetry.orgA', { a: 1 });
      await bus.publish('telemetry.orgB', { b: 1 });
      await bus.publish('other.orgA', { c: 1 });
      // Instead of waiting a while for what must not come: a last message both subscriptions
      // select. Each subscription delivers in order, so once it arrives nothing earlier is owed.
      await bus.publish('telemetry.orgA', { end: true });
      await all.inbox.until((g) => g.some((m) => (m.payload as { end?: boolean }).end === true), 'the end marker (wildcard)');
      await one.inbox.until((g) => g.some((m) => (m.payload as { end?: boolean }).end === true), 'the end marker (exact)');
      assert.deepEqual(
        all.got.map((g) => g.subject),
        ['telemetry.orgA', 'telemetry.orgB', 'telemetry.orgA'],
      );
      assert.deepEqual(
        one.got.map((g) => g.payload),
        [{ a: 1 }, { end: true }],
      );
      for (const s of stops) await s();
    });

    test('after unsubscribe nothing more arrives', async () => {
      const { got, inbox, ready } = collect(bus, 'events.x');
      const stop = await ready;
      await bus.publish('events.x', { n: 1 });
      await inbox.count(1, 'the first message');
      await stop();
      // A witness subscribed before the second message: once the witness has it, the bus has
      // delivered it, and the stopped subscription must not have (no waiting a while instead).
      const witness = collect(bus, 'events.x');
      const stopWitness = await witness.ready;
      await bus.publish('events.x', { n: 2 });
      await witness.inbox.count(1, 'the witness gets the second message');
      assert.deepEqual(
        got.map((g) => g.payload),
        [{ n: 1 }],
      );
      await stopWitness();
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

test('payloadBytes: the UTF-8 of the parts in turn, the same bytes as the joined text', () => {
  const parts = ['{"a":', JSON.stringify('é 😀 中文'), ',"b":[1,2]}'];
  assert.deepEqual(Buffer.from(payloadBytes(new JsonText(...parts))), Buffer.from(parts.join(''), 'utf8'));
  assert.deepEqual(Buffer.from(payloadBytes({ x: 'ü' })), Buffer.from('{"x":"ü"}', 'utf8'));
});

test('subject matching follows NATS rules', () => {
  assert.equal(subjectMatches('a.*', 'a.b'), true);
  assert.equal(subjectMatches('a.*', 'a.b.c'), false);
  assert.equal(subjectMatches('a.>', 'a.b.c'), true);
  assert.equal(subjectMatches('a.>', 'a'), false);
  assert.equal(subjectMatches('a.b', 'a.b'), true);
  assert.equal(subjectMatches('a.b', 'a.c'), false);
});
