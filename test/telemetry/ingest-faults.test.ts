// Ingestion when a dependency is down: the store (503 writer_error, streamed but not stored; reads
// degrade as specified) and the bus (stored and answered honestly with streamed 0; a batch stored
// while the bus is away reaches the live stream once it is back within 30 s, decision 0488).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { client } from './support.ts';
import { Inbox } from '../helpers/signal.ts';
import { openStream } from '../helpers/sse.ts';
import { eventually } from '../helpers/eventually.ts';
import { startFaultProxy } from '../../bench/lib/fault-proxy.ts';

const ORG = 'acme';
const services: TestService[] = [];
after(() => Promise.all(services.map((s) => s.stop())));

async function service(env: Record<string, string> = {}) {
  const svc = await startTestService({ clock: new ManualClock('2026-10-15T12:00:00Z'), env });
  services.push(svc);
  await svc.createOrg(ORG);
  return svc;
}

test('store down: 503 writer_error with stored 0 and streamed n, Retry-After, X-Request-Id; the records reach the live stream; reads degrade', async () => {
  const svc = await service();
  const api = client(svc, ORG);
  const viewer = client(svc, ORG, 'VIEWER');
  assert.equal((await api.ingest({ asset_id: 'inv-1', ts: '2026-10-15T11:00:00Z', power_kw: -1 })).statusCode, 200);
  const stream = new Inbox<any>();
  const got = stream.items;
  await svc.deps.bus.subscribe(`telemetry.${ORG}`, stream.push);

  await svc.deps.db.close();

  const res = await api.ingest([
    { asset_id: 'inv-1', ts: '2026-10-15T11:05:00Z', power_kw: -2 },
    { asset_id: 'inv-1', ts: '2026-10-15T11:10:00Z', power_kw: -3, soc_pct: 140 },
    { asset_id: 'inv-1', ts: '2026-10-15T11:10:00Z', power_kw: -3, soc_pct: 140 },
    { ts: 'no asset' },
  ]);
  assert.equal(res.statusCode, 503);
  assert.ok(res.headers['x-request-id']);
  assert.ok(Number(res.headers['retry-after']) >= 1, 'retryable');
  const body = json(res);
  assert.equal(body.detail, 'writer_error');
  assert.equal(body.count, 4);
  assert.equal(body.stored, 0);
  assert.equal(body.accepted, 2);
  assert.equal(body.streamed, 2);
  assert.equal(body.rejected, 1);
  assert.equal(body.duplicates, 1);
  assert.equal(body.anomalies.length, 1);

  await stream.until((ms) => ms.some((m) => m.stored === false), 'the batch on the live stream');
  const msg = got.find((m) => m.stored === false);
  assert.deepEqual(
    msg.records.map((r: any) => r.ts),
    ['2026-10-15T11:05:00Z', '2026-10-15T11:10:00Z'],
  );

  // Readiness stays ready while bus and cache are up: data is accepted and streamed, not stored.
  const ready = await svc.request({ method: 'GET', url: '/api/telemetry/readyz' });
  assert.equal(json(ready).checks.database, false);
  assert.equal(ready.statusCode, 200);

  const hist = await viewer.get('/api/telemetry/assets/solar/inv-1/history?range=live');
  assert.equal(hist.statusCode, 200);
  assert.deepEqual(json(hist).series, []);
  assert.equal(json(hist).source, 'timeseries_unavailable');
  assert.deepEqual(json(hist).summary, { count: 0, min: null, max: null, avg: null, latest: null });

  const live = await viewer.get('/api/telemetry/live/events');
  assert.equal(live.statusCode, 503);
  assert.equal(json(live).detail, 'Telemetry store unavailable');
  assert.ok(Number(live.headers['retry-after']) >= 1);
});

test('bus unreachable after commit: the records are stored and the answer says streamed 0', async () => {
  // A real NATS adapter pointed at a port where nothing listens: publish fails as in an outage.
  const svc = await service({ NATS_URL: 'nats://127.0.0.1:1' });
  const api = client(svc, ORG);
  const res = await api.ingest([
    { asset_id: 'bat-1', ts: '2026-10-15T11:00:00Z', soc_pct: 50 },
    { asset_id: 'bat-1', ts: '2026-10-15T11:05:00Z', soc_pct: 51 },
  ]);
  assert.equal(res.statusCode, 200, 'every record was stored');
  assert.deepEqual(json(res), { count: 2, stored: 2, streamed: 0, accepted: 2, rejected: 0, duplicates: 0, anomalies: [] });
  assert.equal((await api.live('?asset_id=bat-1')).length, 2);
  const ready = await svc.request({ method: 'GET', url: '/api/telemetry/readyz' });
  assert.equal(ready.statusCode, 503, 'readiness reports the bus');
  assert.equal(json(ready).status, 'degraded');
  assert.equal(json(ready).checks.bus, false);
});

test('the bus cut off under an open live stream: a batch stored meanwhile is answered streamed 0, then reaches the stream once the bus is back, once and in order', {
  skip: !process.env.TEST_NATS_URL,
  timeout: 60_000,
}, async () => {
  const target = new URL(process.env.TEST_NATS_URL!);
  const proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 4222) });
  const svc = await startTestService({ clock: new ManualClock('2026-10-15T12:00:00Z'), env: { NATS_URL: proxy.url('nats') } });
  try {
    await svc.createOrg(ORG);
    const base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
    const live = await openStream(base, await svc.token({ orgId: ORG }));
    const api = client(svc, ORG);
    const telemetryAt = (ts: string) => (e: { event: string; data: any }) => e.event === 'telemetry' && Date.parse(e.data.records[0].ts) === Date.parse(ts);
    try {
      const before = await api.ingest([{ asset_id: 'bat-1', ts: '2026-10-15T11:00:00Z', soc_pct: 50 }]);
      assert.equal(json(before).streamed, 1);
      await live.next('the batch sent before the cut', telemetryAt('2026-10-15T11:00:00.000Z'));

      proxy.set({ kind: 'reset' });
      const readiness = async () => json(await svc.request({ method: 'GET', url: '/api/telemetry/readyz' })).checks.bus;
      await eventually(async () => (await readiness()) === false, 'the service sees the bus gone');
      const during = await api.ingest([{ asset_id: 'bat-1', ts: '2026-10-15T11:05:00Z', soc_pct: 51 }]);
      assert.equal(during.statusCode, 200, 'stored whatever the bus does');
      assert.deepEqual(json(during), { count: 1, stored: 1, streamed: 0, accepted: 1, rejected: 0, duplicates: 0, anomalies: [] });
      assert.equal(live.events.filter(telemetryAt('2026-10-15T11:05:00.000Z')).length, 0, 'not streamed while the bus is away');

      proxy.set({ kind: 'pass' });
      // The client reconnects on its own timer (real time); the held batch is published then.
      const late = await live.next('the batch stored while the bus was away', telemetryAt('2026-10-15T11:05:00.000Z'));
      assert.deepEqual(
        { stored: late.data.stored, asset_id: late.data.records[0].asset_id, soc_pct: late.data.records[0].soc_pct },
        { stored: true, asset_id: 'bat-1', soc_pct: 51 },
      );
      assert.equal(await readiness(), true);

      const after = await api.ingest([{ asset_id: 'bat-1', ts: '2026-10-15T11:10:00Z', soc_pct: 52 }]);
      assert.equal(json(after).streamed, 1);
      await live.next('a batch after the bus came back', telemetryAt('2026-10-15T11:10:00.000Z'));
      assert.deepEqual(
        live.events.filter((e) => e.event === 'telemetry').map((e) => e.data.records[0].soc_pct),
        [50, 51, 52],
        'each batch once, in order',
      );
    } finally {
      await live.close();
    }
  } finally {
    proxy.set({ kind: 'pass' });
    await svc.stop();
    await proxy.close();
  }
});
