// GET /api/telemetry/live/events: a recency window of stored records, newest first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { client, LIVE } from './support.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
const clock = new ManualClock('2026-10-15T12:00:00Z');
const ORG = 'acme';
const OTHER = 'globex';

before(async () => {
  svc = await startTestService({ clock });
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  const api = client(svc, ORG);
  // 60 records of one asset and 5 of another, in two batches received a minute apart.
  const first = Array.from({ length: 60 }, (_, i) => ({ asset_id: 'meter-1', ts: new Date(Date.UTC(2026, 9, 15, 10, i)).toISOString(), n: i }));
  assert.equal((await api.ingest(first)).statusCode, 200);
  clock.advance(60_000);
  const second = Array.from({ length: 5 }, (_, i) => ({ asset_id: 'bat-1', ts: new Date(Date.UTC(2026, 9, 15, 9, i)).toISOString(), n: 100 + i }));
  assert.equal((await api.ingest(second)).statusCode, 200);
  assert.equal((await client(svc, OTHER).ingest({ asset_id: 'meter-1', ts: '2026-10-15T11:00:00Z', n: 999 })).statusCode, 200);
});
after(() => svc.stop());

test('newest received first, default limit 50, in the documented shape', async () => {
  const res = await client(svc, ORG, 'VIEWER').get(LIVE);
  assert.equal(res.statusCode, 200);
  const body = json(res);
  assert.equal(body.count, 50);
  assert.equal(body.limit, 50);
  assert.equal(body.window_hours, 24);
  // The later batch first (arrival order, not ts order), then the earlier one from its last record.
  assert.deepEqual(
    body.events.slice(0, 7).map((e: any) => e.raw.n),
    [104, 103, 102, 101, 100, 59, 58],
  );
  const e = body.events[0];
  assert.deepEqual(Object.keys(e).sort(), [
    'anomalies',
    'asset_id',
    'current',
    'id',
    'intent_id',
    'power_kw',
    'raw',
    'received_at',
    'run_id',
    'soc_pct',
    'status',
    'temp_c',
    'ts',
    'voltage',
  ]);
  assert.equal(e.asset_id, 'bat-1');
  assert.equal(e.ts, '2026-10-15T09:04:00Z');
  assert.equal(e.received_at, '2026-10-15T12:01:00Z');
});

test('limit 1 to 500; asset_id narrows to one asset', async () => {
  const api = client(svc, ORG, 'ANALYST');
  assert.equal((await api.live('?limit=1')).length, 1);
  assert.equal((await api.live('?limit=500')).length, 65);
  const bat = await api.live('?asset_id=bat-1&limit=500');
  assert.deepEqual(
    bat.map((e) => e.raw.n),
    [104, 103, 102, 101, 100],
  );
  assert.deepEqual(await api.live('?asset_id=nothing-here'), []);
});

test('limit outside 1..500 or not an integer: 422 with the field located', async () => {
  const api = client(svc, ORG);
  for (const q of ['limit=0', 'limit=501', 'limit=abc', 'limit=2.5', 'asset_id=']) {
    const res = await api.get(`${LIVE}?${q}`);
    assert.equal(res.statusCode, 422, q);
    assert.equal(json(res).detail[0].loc[0], 'query', q);
  }
});

test('organisation-scoped: another organisation sees only its own records', async () => {
  const events = await client(svc, OTHER, 'VIEWER').live('?limit=500');
  assert.deepEqual(
    events.map((e) => e.raw.n),
    [999],
  );
});

test('refusals: no token 401, a key-less bad token 401, X-Tenant-ID of another organisation 403', async () => {
  const anon = await svc.request({ method: 'GET', url: LIVE });
  assertRefused(anon, 401, 'Authorization header missing');
  const bad = await svc.request({ method: 'GET', url: LIVE, headers: { authorization: 'Bearer nope' } });
  assertRefused(bad, 401, 'Invalid or expired token');
  const mismatch = await client(svc, ORG).get(LIVE, { 'x-tenant-id': OTHER });
  assert.equal(mismatch.statusCode, 403);
  assert.equal(json(mismatch).detail, 'Tenant mismatch');
});

test('a recency window: records received more than 24 hours ago are no longer listed', async () => {
  clock.advance(24 * 3600_000); // the second batch is now exactly 24 h old, the first older
  const api = client(svc, ORG);
  assert.deepEqual(
    (await api.live('?limit=500')).map((e) => e.raw.n),
    [104, 103, 102, 101, 100],
  );
  clock.advance(1);
  assert.deepEqual(await client(svc, ORG).live('?limit=500'), []);
});
