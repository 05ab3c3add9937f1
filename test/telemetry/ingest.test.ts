// POST /api/telemetry/ingest: every rule of endpoints.md 4.2 and the telemetry record table of
// concepts.md, through HTTP on a real store.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { client, INGEST } from './support.ts';
import { Inbox } from '../helpers/signal.ts';

let svc: TestService;
const ORG = 'acme';
const OTHER = 'globex';
const NOW = '2026-10-15T12:00:00.000Z';
let api: ReturnType<typeof client>;

before(async () => {
  svc = await startTestService({ clock: new ManualClock(NOW) });
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  api = client(svc, ORG);
});
after(() => svc.stop());

let assetSeq = 0;
/** A fresh asset id per test, so reads see only that test's records. */
const asset = (name = 'a') => `${name}-${++assetSeq}`;

async function storedFor(assetId: string) {
  return api.live(`?limit=500&asset_id=${encodeURIComponent(assetId)}`);
}

test('a batch where every record is stored answers 200 with the counts, X-Request-Id and no results', async () => {
  const a = asset('bat');
  const res = await api.ingest([
    { asset_id: a, ts: '2026-10-15T11:00:00Z', power_kw: 2.5, soc_pct: 50 },
    { asset_id: a, ts: '2026-10-15T11:05:00Z', power_kw: -1.25, soc_pct: 49 },
  ]);
  assert.equal(res.statusCode, 200);
  assert.ok(res.headers['x-request-id'], 'X-Request-Id on the answer');
  const body = json(res);
  assert.deepEqual(body, { count: 2, stored: 2, streamed: 2, accepted: 2, rejected: 0, duplicates: 0, anomalies: [] });
  assert.equal((await storedFor(a)).length, 2);
});

test('a well-formed incoming X-Request-Id is echoed', async () => {
  const res = await api.ingest({ asset_id: asset(), ts: '2026-10-15T11:00:00Z' }, { 'x-request-id': 'ingest-req-42' });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['x-request-id'], 'ingest-req-42');
});

test('a single object is one record (index 0) and device_id maps to asset_id', async () => {
  const d = asset('inv');
  const ok = await api.ingest({ device_id: d, ts: '2026-10-15T11:00:00Z', power_kw: -4 });
  assert.equal(ok.statusCode, 200);
  assert.equal(json(ok).count, 1);
  const rows = await storedFor(d);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].asset_id, d);

  const bad = await api.ingest({ ts: '2026-10-15T11:00:00Z' });
  assert.equal(bad.statusCode, 422);
  assert.equal(json(bad).results[0].index, 0);
});

test('canonical fields are stored; status defaults to unknown; raw keeps the whole original object', async () => {
  const a = asset('ev');
  const full = {
    asset_id: a,
    ts: '2026-10-15T11:00:00Z',
    power_kw: 7.2,
    soc_pct: 64.5,
    voltage: 231.4,
    current: 31.1,
    temp_c: 21.5,
    status: 'charging',
    run_id: 'run-9',
    intent_id: 'intent-3',
    tenant_id: ORG,
    site_ref: 'leeds-2',
    nested: { cumulative_kwh: 1234.5, tags: ['a', 'b'], none: null },
  };
  const minimal = { asset_id: a, ts: '2026-10-15T11:01:00Z', vendor_field: true };
  const res = await api.ingest([full, minimal]);
  assert.equal(res.statusCode, 200);
  const [second, first] = await storedFor(a);
  assert.deepEqual(
    {
      asset_id: first.asset_id,
      ts: first.ts,
      power_kw: first.power_kw,
      soc_pct: first.soc_pct,
      voltage: first.voltage,
      current: first.current,
      temp_c: first.temp_c,
      status: first.status,
      run_id: first.run_id,
      intent_id: first.intent_id,
      anomalies: first.anomalies,
    },
    {
      asset_id: a,
      ts: '2026-10-15T11:00:00Z',
      power_kw: 7.2,
      soc_pct: 64.5,
      voltage: 231.4,
      current: 31.1,
      temp_c: 21.5,
      status: 'charging',
      run_id: 'run-9',
      intent_id: 'intent-3',
      anomalies: [],
    },
  );
  assert.deepEqual(first.raw, full, 'raw is the whole original object');
  assert.equal(second.status, 'unknown');
  assert.equal(second.power_kw, null);
  assert.equal(second.run_id, null);
  assert.deepEqual(second.raw, minimal);
});

test('records are written in array order: ids ascend with the index', async () => {
  const a = asset();
  const batch = Array.from({ length: 20 }, (_, i) => ({ asset_id: a, ts: `2026-10-15T10:${String(59 - i).padStart(2, '0')}:00Z`, seq: i }));
  assert.equal((await api.ingest(batch)).statusCode, 200);
  const rows = await storedFor(a);
  // Live events are newest first (by arrival): the last record of the array comes first.
  assert.deepEqual(
    rows.map((r) => r.raw.seq),
    batch.map((b) => b.seq).reverse(),
  );
  const ids = rows.map((r) => r.id).reverse();
  assert.deepEqual(
    ids,
    [...ids].sort((x, y) => x - y),
  );
});

test('each rejection rule names the record, field and reason; the rest of the batch is stored (207)', async () => {
  const a = asset('mix');
  const ts = '2026-10-15T11:00:00Z';
  const cases: [unknown, string | null, string][] = [
    [{ ts, power_kw: 1 }, 'asset_id', 'missing_asset_id'],
    [{ asset_id: '', ts }, 'asset_id', 'missing_asset_id'],
    [{ asset_id: 42, ts }, 'asset_id', 'invalid_asset_id'],
    [{ device_id: { id: 1 }, ts }, 'device_id', 'invalid_asset_id'],
    [{ asset_id: a }, 'ts', 'missing_ts'],
    [{ asset_id: a, ts: 'yesterday at noon' }, 'ts', 'unparseable_ts'],
    [{ asset_id: a, ts: '15/10/2026 11:00' }, 'ts', 'unparseable_ts'],
    [{ asset_id: a, ts: '2026-02-30T10:00:00Z' }, 'ts', 'unparseable_ts'],
    [{ asset_id: a, ts: '2026-10-15' }, 'ts', 'unparseable_ts'],
    [{ asset_id: a, ts: 1760526000 }, 'ts', 'epoch_ts_not_accepted'],
    [{ asset_id: a, ts: 1760526000000 }, 'ts', 'epoch_ts_not_accepted'],
    [{ asset_id: a, ts: '1760526000' }, 'ts', 'unparseable_ts'],
    [{ asset_id: a, ts, power_kw: '3.2' }, 'power_kw', 'not_a_number'],
    [{ asset_id: a, ts, soc_pct: true }, 'soc_pct', 'not_a_number'],
    [{ asset_id: a, ts, voltage: [230] }, 'voltage', 'not_a_number'],
    [{ asset_id: a, ts, current: { a: 1 } }, 'current', 'not_a_number'],
    [{ asset_id: a, ts, temp_c: 'warm' }, 'temp_c', 'not_a_number'],
    [{ asset_id: a, ts, status: 3 }, 'status', 'not_a_string'],
    [{ asset_id: a, ts, status: { s: 'ok' } }, 'status', 'not_a_string'],
    [{ asset_id: a, ts, run_id: 7 }, 'run_id', 'not_a_string'],
    [{ asset_id: a, ts, intent_id: false }, 'intent_id', 'not_a_string'],
    ['just text', null, 'not_an_object'],
    [[{ asset_id: a, ts }], null, 'not_an_object'],
    [null, null, 'not_an_object'],
  ];
  const good = { asset_id: a, ts, power_kw: 1.5, note: 'the good one' };
  const res = await api.ingest([good, ...cases.map((c) => c[0])]);
  assert.equal(res.statusCode, 207);
  const body = json(res);
  assert.equal(body.count, cases.length + 1);
  assert.equal(body.stored, 1);
  assert.equal(body.rejected, cases.length);
  assert.equal(body.duplicates, 0);
  assert.equal(body.count, body.stored + body.rejected + body.duplicates);
  assert.equal(body.results.length, cases.length + 1);
  assert.deepEqual(body.results[0], { index: 0, status: 'stored' });
  cases.forEach(([, field, reason], i) => {
    const r = body.results[i + 1];
    assert.equal(r.index, i + 1);
    assert.equal(r.status, 'rejected', JSON.stringify(cases[i][0]));
    assert.equal(r.field, field, JSON.stringify(cases[i][0]));
    assert.equal(r.reason, reason, JSON.stringify(cases[i][0]));
    assert.equal(typeof r.message, 'string');
  });
  const rows = await storedFor(a);
  assert.deepEqual(
    rows.map((r) => r.raw),
    [good],
    'only the good record is stored',
  );
});

test('every problem of a rejected record is listed in errors; the first is its field and reason', async () => {
  const res = await api.ingest([
    { device_id: asset(), ts: '2026-10-15T11:00:00Z' },
    { ts: 'soon', power_kw: 'x', status: 1 },
  ]);
  assert.equal(res.statusCode, 207);
  const r = json(res).results[1];
  assert.equal(r.field, 'asset_id');
  assert.equal(r.reason, 'missing_asset_id');
  assert.deepEqual(
    r.errors.map((e: { field: string; reason: string }) => [e.field, e.reason]),
    [
      ['asset_id', 'missing_asset_id'],
      ['ts', 'unparseable_ts'],
      ['power_kw', 'not_a_number'],
      ['status', 'not_a_string'],
    ],
  );
});

test('ts forms: Z and explicit offsets name the same instant; fractional seconds are kept', async () => {
  const a = asset();
  const res = await api.ingest([
    { asset_id: a, ts: '2026-10-15T09:00:00Z', n: 1 },
    { asset_id: a, ts: '2026-10-15T10:00:00+01:00', n: 2 },
    { asset_id: a, ts: '2026-10-15T04:30:00-04:30', n: 3 },
    { asset_id: a, ts: '2026-10-15T09:00:00.123456Z', n: 4 },
    { asset_id: a, ts: '2026-10-15T11:00:00.5+0200', n: 5 },
  ]);
  assert.equal(res.statusCode, 200);
  assert.deepEqual(json(res).anomalies, []);
  const byN = Object.fromEntries((await storedFor(a)).map((r) => [r.raw.n, r.ts]));
  assert.deepEqual(byN, {
    1: '2026-10-15T09:00:00Z',
    2: '2026-10-15T09:00:00Z',
    3: '2026-10-15T09:00:00Z',
    4: '2026-10-15T09:00:00.123456Z',
    5: '2026-10-15T09:00:00.5Z',
  });
});

test('a ts without an offset is read as UTC, stored, and flagged ts_without_offset', async () => {
  const a = asset();
  const res = await api.ingest([{ asset_id: a, ts: '2026-10-15T09:15:00' }]);
  assert.equal(res.statusCode, 200, 'a flag does not make the answer partial');
  const body = json(res);
  assert.equal(body.stored, 1);
  assert.deepEqual(body.anomalies, [{ index: 0, asset_id: a, reasons: ['ts_without_offset'], record: { asset_id: a, ts: '2026-10-15T09:15:00' } }]);
  const [row] = await storedFor(a);
  assert.equal(row.ts, '2026-10-15T09:15:00Z');
  assert.deepEqual(row.anomalies, ['ts_without_offset']);
});

test('out-of-range values are stored and flagged; values at the limits are not', async () => {
  const a = asset('flag');
  const ts = (m: number) => `2026-10-15T11:${String(m).padStart(2, '0')}:00Z`;
  const records = [
    { asset_id: a, ts: ts(0), soc_pct: 101 },
    { asset_id: a, ts: ts(1), soc_pct: -0.5 },
    { asset_id: a, ts: ts(2), power_kw: 5000.1 },
    { asset_id: a, ts: ts(3), power_kw: -7000 },
    { asset_id: a, ts: ts(4), voltage: -1 },
    { asset_id: a, ts: '2026-10-16T12:00:01Z' }, // more than 24 h ahead of the clock
    { asset_id: a, ts: ts(6), soc_pct: 120, power_kw: 9999, voltage: -230 },
    // at the limits: no flag
    { asset_id: a, ts: ts(7), soc_pct: 0, power_kw: 5000, voltage: 0 },
    { asset_id: a, ts: ts(8), soc_pct: 100, power_kw: -5000 },
    { asset_id: a, ts: '2026-10-16T12:00:00Z' }, // exactly 24 h ahead
  ];
  const res = await api.ingest(records);
  assert.equal(res.statusCode, 200);
  const body = json(res);
  assert.equal(body.stored, records.length);
  assert.deepEqual(
    body.anomalies.map((x: { index: number; reasons: string[] }) => [x.index, x.reasons]),
    [
      [0, ['soc_out_of_range']],
      [1, ['soc_out_of_range']],
      [2, ['power_out_of_range']],
      [3, ['power_out_of_range']],
      [4, ['voltage_out_of_range']],
      [5, ['ts_in_future']],
      [6, ['soc_out_of_range', 'power_out_of_range', 'voltage_out_of_range']],
    ],
  );
  for (const x of body.anomalies) {
    assert.equal(x.asset_id, a);
    assert.deepEqual(x.record, records[x.index], 'the anomaly entry holds the record');
  }
  const stored = await storedFor(a);
  assert.equal(stored.length, records.length, 'flagged records are stored');
  const flagged = stored.find((r) => r.raw.ts === ts(6));
  assert.deepEqual(flagged.anomalies, ['soc_out_of_range', 'power_out_of_range', 'voltage_out_of_range']);
});

test('an exact copy within a batch is stored once and counted in duplicates (207); key order does not matter', async () => {
  const a = asset('dup');
  const rec = { asset_id: a, ts: '2026-10-15T11:00:00Z', power_kw: 1, meta: { x: 1, y: [1, 2] } };
  const reordered = { meta: { y: [1, 2], x: 1 }, power_kw: 1, ts: '2026-10-15T11:00:00Z', asset_id: a };
  const other = { asset_id: a, ts: '2026-10-15T11:05:00Z', power_kw: 2 };
  const res = await api.ingest([rec, other, { ...rec }, reordered]);
  assert.equal(res.statusCode, 207);
  const body = json(res);
  assert.equal(body.count, 4);
  assert.equal(body.stored, 2);
  assert.equal(body.duplicates, 2);
  assert.equal(body.rejected, 0);
  assert.deepEqual(body.results, [
    { index: 0, status: 'stored' },
    { index: 1, status: 'stored' },
    { index: 2, status: 'duplicate', duplicate_of: 0 },
    { index: 3, status: 'duplicate', duplicate_of: 0 },
  ]);
  assert.equal((await storedFor(a)).length, 2);
});

test('same asset_id and ts with other values is not a copy; the same record in two requests persists twice', async () => {
  const a = asset();
  const first = await api.ingest([
    { asset_id: a, ts: '2026-10-15T11:00:00Z', power_kw: 1 },
    { asset_id: a, ts: '2026-10-15T11:00:00Z', power_kw: 2 },
  ]);
  assert.equal(first.statusCode, 200);
  assert.equal(json(first).duplicates, 0);
  const again = await api.ingest([{ asset_id: a, ts: '2026-10-15T11:00:00Z', power_kw: 1 }]);
  assert.equal(again.statusCode, 200, 'no cross-request deduplication');
  assert.equal((await storedFor(a)).length, 3);
});

test('every record rejected: 422 all_records_rejected with the counts, nothing stored', async () => {
  const a = asset();
  const res = await api.ingest([{ asset_id: a }, { asset_id: a, ts: 1760526000 }, { asset_id: a, ts: '2026-10-15T11:00:00Z', power_kw: 'high' }]);
  assert.equal(res.statusCode, 422);
  assert.ok(res.headers['x-request-id']);
  const body = json(res);
  assert.equal(body.detail, 'all_records_rejected');
  assert.equal(body.count, 3);
  assert.equal(body.stored, 0);
  assert.equal(body.rejected, 3);
  assert.deepEqual(
    body.results.map((r: { reason: string }) => r.reason),
    ['missing_ts', 'epoch_ts_not_accepted', 'not_a_number'],
  );
  assert.equal((await storedFor(a)).length, 0);
});

test('a record naming another organisation: 403 cross_tenant_record with index and field; nothing of the batch is stored', async () => {
  const a = asset();
  const res = await api.ingest([
    { asset_id: a, ts: '2026-10-15T11:00:00Z' },
    { asset_id: a, ts: '2026-10-15T11:01:00Z', tenant_id: ORG },
    { asset_id: a, ts: '2026-10-15T11:02:00Z', tenant_id: OTHER },
  ]);
  assert.equal(res.statusCode, 403);
  assert.ok(res.headers['x-request-id']);
  assert.deepEqual(json(res), { detail: 'cross_tenant_record', index: 2, field: 'tenant_id' });
  assert.doesNotMatch(res.body, new RegExp(OTHER), 'the named organisation is not repeated');
  assert.equal((await storedFor(a)).length, 0);

  // A tenant_id of another type names no organisation of ours either.
  const odd = await api.ingest([{ asset_id: a, ts: '2026-10-15T11:00:00Z', tenant_id: 12 }]);
  assert.equal(odd.statusCode, 403);
  assert.equal(json(odd).index, 0);
});

test('tenant_id equal to the organisation and a matching X-Tenant-ID are accepted; a disagreeing header is 403 Tenant mismatch', async () => {
  const a = asset();
  const ok = await api.ingest([{ asset_id: a, ts: '2026-10-15T11:00:00Z', tenant_id: ORG }], { 'x-tenant-id': ORG });
  assert.equal(ok.statusCode, 200);
  const mismatch = await api.ingest([{ asset_id: a, ts: '2026-10-15T11:00:00Z' }], { 'x-tenant-id': OTHER });
  assert.equal(mismatch.statusCode, 403);
  assert.equal(json(mismatch).detail, 'Tenant mismatch');
  assert.ok(mismatch.headers['x-request-id']);
  assert.equal((await storedFor(a)).length, 1);
});

test('telemetry_latest holds the newest record per asset, written with the batch (only when ts >= stored ts)', async () => {
  const a = asset('lat');
  const b = asset('lat');
  const latest = async (id: string) =>
    (
      await svc.deps.db.query<{ ts: Date; power_kw: number; raw: { n: number } }>(
        'select ts, power_kw, raw from telemetry_latest where org_id = $1 and asset_id = $2',
        [ORG, id],
      )
    ).rows[0];
  await api.ingest([
    { asset_id: a, ts: '2026-10-15T11:00:00Z', power_kw: 1, n: 1 },
    { asset_id: a, ts: '2026-10-15T11:10:00Z', power_kw: 3, n: 2 },
    { asset_id: a, ts: '2026-10-15T11:05:00Z', power_kw: 2, n: 3 },
    { asset_id: b, ts: '2026-10-15T11:00:00Z', power_kw: 9, n: 4 },
  ]);
  assert.equal((await latest(a)).raw.n, 2, 'newest ts of the batch, not the last element');
  assert.equal((await latest(b)).raw.n, 4);
  await api.ingest([{ asset_id: a, ts: '2026-10-15T10:00:00Z', power_kw: 0, n: 5 }]);
  assert.equal((await latest(a)).raw.n, 2, 'an older record does not replace it');
  await api.ingest([{ asset_id: a, ts: '2026-10-15T11:10:00Z', power_kw: 4, n: 6 }]);
  assert.equal((await latest(a)).raw.n, 6, 'an equal ts replaces it');
  assert.equal((await latest(a)).power_kw, 4);
  const other = await svc.deps.db.query('select 1 from telemetry_latest where org_id = $1 and asset_id = $2', [OTHER, a]);
  assert.equal(other.rows.length, 0);
});

test('the newest reading of a batch: ties go to the later element, microseconds count, a future-flagged record never wins', async () => {
  const [c, d, e, f, g] = [asset('nw'), asset('nw'), asset('nw'), asset('nw'), asset('nw')];
  const latest = async (id: string) =>
    (await svc.deps.db.query<{ raw: { n: number } }>('select raw from telemetry_latest where org_id = $1 and asset_id = $2', [ORG, id])).rows[0]?.raw.n;
  const res = await api.ingest([
    { asset_id: c, ts: '2026-10-15T11:20:00Z', n: 1 },
    { asset_id: c, ts: '2026-10-15T11:20:00Z', n: 2 },
    // the same millisecond: the record a few microseconds later wins though it comes first
    { asset_id: d, ts: '2026-10-15T11:20:00.000900Z', n: 3 },
    { asset_id: d, ts: '2026-10-15T11:20:00.000100Z', n: 4 },
    // stored to the microsecond, .0009996 is .001000: equal ts, so the later element wins, either way round
    { asset_id: e, ts: '2026-10-15T11:20:00.001Z', n: 5 },
    { asset_id: e, ts: '2026-10-15T11:20:00.0009996Z', n: 6 },
    { asset_id: g, ts: '2026-10-15T11:20:00.0009996Z', n: 9 },
    { asset_id: g, ts: '2026-10-15T11:20:00.001Z', n: 10 },
    // dated two days after its arrival: stored and flagged, never the newest reading
    { asset_id: f, ts: '2026-10-15T11:00:00Z', n: 7 },
    { asset_id: f, ts: '2026-10-17T12:00:00Z', n: 8 },
  ]);
  assert.equal(res.statusCode, 200, res.body);
  const body = json(res);
  assert.equal(body.stored, 10);
  assert.deepEqual(
    body.anomalies.map((x: { index: number; reasons: string[] }) => [x.index, x.reasons]),
    [[9, ['ts_in_future']]],
  );
  assert.equal(await latest(c), 2);
  assert.equal(await latest(d), 3);
  assert.equal(await latest(e), 6);
  assert.equal(await latest(g), 10);
  assert.equal(await latest(f), 7);
  // a batch of only a future-flagged record leaves the newest reading as it was
  const only = await api.ingest([{ asset_id: f, ts: '2026-10-17T13:00:00Z', n: 11 }]);
  assert.equal(only.statusCode, 200, only.body);
  assert.equal(json(only).stored, 1);
  assert.equal(await latest(f), 7);
});

test('stored records are published to the live stream after commit; telemetry_ingest_total counts them', async () => {
  const a = asset('bus');
  const stream = new Inbox<any>();
  const got = stream.items;
  const unsubscribe = await svc.deps.bus.subscribe(`telemetry.${ORG}`, stream.push);
  const metric = async () => {
    const res = await svc.request({ method: 'GET', url: '/api/telemetry/metrics' });
    return Number(/^telemetry_ingest_total (\d+)/m.exec(res.body)?.[1] ?? 0);
  };
  try {
    const before = await metric();
    const res = await api.ingest([
      { asset_id: a, ts: '2026-10-15T11:00:00Z', power_kw: 1 },
      { asset_id: a, ts: '2026-10-15T11:01:00Z', power_kw: 2 },
      { ts: 'rejected' },
    ]);
    assert.equal(res.statusCode, 207);
    assert.equal(json(res).streamed, 2);
    await stream.until((ms) => ms.flatMap((m) => m.records).filter((r: any) => r.asset_id === a).length === 2, 'two records on the bus');
    const msg = got.find((m) => m.records.some((r: any) => r.asset_id === a));
    assert.equal(msg.org_id, ORG);
    assert.equal(msg.stored, true);
    assert.deepEqual(
      msg.records.map((r: any) => [r.ts, r.power_kw]),
      [
        ['2026-10-15T11:00:00Z', 1],
        ['2026-10-15T11:01:00Z', 2],
      ],
    );
    assert.equal((await metric()) - before, 2);
  } finally {
    await unsubscribe();
  }
});

test('a 5 MB body is accepted; a body over the limit is 413 with a clear detail and X-Request-Id', async () => {
  const a = asset('big');
  const records = Array.from({ length: 10 }, (_, i) => ({
    asset_id: a,
    ts: `2026-10-15T11:0${i}:00Z`,
    blob: 'x'.repeat(499_900),
  }));
  const payload = JSON.stringify(records);
  assert.ok(payload.length >= 4_999_000 && payload.length <= 5_000_000, String(payload.length));
  const token = await svc.token({ orgId: ORG, roles: ['OPERATOR'] });
  const ok = await svc.request({ method: 'POST', url: INGEST, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload });
  assert.equal(ok.statusCode, 200);
  assert.equal(json(ok).stored, 10);

  const tooBig = JSON.stringify([{ asset_id: a, ts: '2026-10-15T11:00:00Z', blob: 'y'.repeat(svc.config.ingestBodyLimitBytes) }]);
  const res = await svc.request({
    method: 'POST',
    url: INGEST,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: tooBig,
  });
  assert.equal(res.statusCode, 413);
  assert.match(json(res).detail, /too large.*\d+ bytes/);
  assert.ok(res.headers['x-request-id']);
  assert.equal((await storedFor(a)).length, 10);
});

test('bodies that are not a record or a list answer 422 in the validation shape', async () => {
  const token = await svc.token({ orgId: ORG, roles: ['OPERATOR'] });
  const send = (payload: string) =>
    svc.request({ method: 'POST', url: INGEST, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload });
  for (const payload of ['42', '"text"', 'null', 'true', '[]', '{"asset_id": ', '']) {
    const res = await send(payload);
    assert.equal(res.statusCode, 422, payload);
    const detail = json(res).detail;
    assert.ok(Array.isArray(detail), payload);
    assert.deepEqual(detail[0].loc, ['body'], payload);
    assert.ok(res.headers['x-request-id']);
  }
});

test('values the store cannot hold reject that record, not the batch', async () => {
  const a = asset();
  const ts = '2026-10-15T11:00:00Z';
  const res = await svc.request({
    method: 'POST',
    url: INGEST,
    headers: { authorization: `Bearer ${await svc.token({ orgId: ORG, roles: ['ANALYST'] })}`, 'content-type': 'application/json' },
    // Written by hand: a NUL, an unpaired surrogate and a number JSON.parse makes Infinity.
    payload: `[{"asset_id":"${a}","ts":"${ts}","ok":1},
               {"asset_id":"${a}","ts":"${ts}","note":"a\\u0000b"},
               {"asset_id":"${a}","ts":"${ts}","note":"\\ud800"},
               {"asset_id":"${a}","ts":"${ts}","huge":1e309},
               {"asset_id":"${a}","ts":"${ts}","power_kw":1e309},
               {"asset_id":"${'z'.repeat(300)}","ts":"${ts}"}]`,
  });
  assert.equal(res.statusCode, 207);
  const body = json(res);
  assert.equal(body.stored, 1);
  assert.deepEqual(
    body.results.map((r: { status: string; reason?: string }) => r.reason ?? r.status),
    ['stored', 'unsupported_value', 'unsupported_value', 'unsupported_value', 'not_a_number', 'invalid_asset_id'],
  );
  assert.equal((await storedFor(a)).length, 1);
});

test("a value beyond its field's bound is refused per record (beyond_bound: the energy and aggregate columns are sized for it, decision 0280); at the bound it is stored and flagged, and reads of the asset still answer", async () => {
  const a = asset('bat');
  const res = await api.ingest([
    { asset_id: a, ts: '2026-10-15T11:00:00Z', power_kw: 2 },
    { asset_id: a, ts: '2026-10-15T11:01:00Z', power_kw: 1e308 },
    { asset_id: a, ts: '2026-10-15T11:02:00Z', voltage: -1e300 },
    { asset_id: a, ts: '2026-10-15T11:03:00Z', power_kw: 1e8 },
    { asset_id: a, ts: '2026-10-15T11:04:00Z', power_kw: -1e8 },
    { asset_id: a, ts: '2026-10-15T11:05:00Z', power_kw: 1e12 },
    { asset_id: a, ts: '2026-10-15T11:06:00Z', power_kw: 99999999.99999999 },
    { asset_id: a, ts: '2026-10-15T11:07:00Z', power_kw: -100000000.00000001 }, // the double after -1e8
    { asset_id: a, ts: '2026-10-15T11:08:00Z', soc_pct: 1e7, temp_c: -1e7, current: 1e7 },
    { asset_id: a, ts: '2026-10-15T11:09:00Z', soc_pct: 10000001 },
    { asset_id: a, ts: '2026-10-15T11:10:00Z', temp_c: 1e99 },
    { asset_id: a, ts: '2026-10-15T11:11:00Z', current: -9e18 },
    { asset_id: a, ts: '2026-10-15T11:12:00Z', energy_kwh: 1e15, import_kwh: -1e15 },
    { asset_id: a, ts: '2026-10-15T11:13:00Z', energy_kwh: 9e15 },
    { asset_id: a, ts: '2026-10-15T11:14:00Z', other_kwh: 9e18, energy_kwh: '9e18' }, // not a counter the energy model reads as a number: kept in raw
    // Non-zero magnitudes below 1e-100: their products underflow in PostgreSQL's float8 arithmetic.
    { asset_id: a, ts: '2026-10-15T11:15:00Z', power_kw: 5e-324 },
    { asset_id: a, ts: '2026-10-15T11:16:00Z', power_kw: -1e-100, voltage: 0, import_kwh: 1e-100 },
    { asset_id: a, ts: '2026-10-15T11:17:00Z', import_kwh: -1e-300 },
  ]);
  assert.equal(res.statusCode, 207, res.body);
  const body = json(res);
  assert.deepEqual(
    body.results.map((r: { status: string; reason?: string; field?: string }) => (r.reason ? `${r.field}:${r.reason}` : r.status)),
    [
      'stored',
      'power_kw:beyond_bound',
      'voltage:beyond_bound',
      'stored',
      'stored',
      'power_kw:beyond_bound',
      'stored',
      'power_kw:beyond_bound',
      'stored',
      'soc_pct:beyond_bound',
      'temp_c:beyond_bound',
      'current:beyond_bound',
      'stored',
      'energy_kwh:beyond_bound',
      'stored',
      'power_kw:beyond_bound',
      'stored',
      'import_kwh:beyond_bound',
    ],
  );
  assert.equal(body.stored, 8);
  assert.equal(
    body.results[1].message,
    "power_kw must be 0 or of magnitude from 1e-100 to 1e8 kW (what the store's energy and aggregate figures are sized for), got 1e+308",
  );
  assert.match(
    body.results[13].message,
    /energy_kwh is read as a cumulative kWh register and must be 0 or of magnitude from 1e-100 to 1e15, got 9000000000000000/,
  );
  assert.deepEqual(
    body.anomalies.map((x: { index: number; reasons: string[] }) => [x.index, x.reasons]),
    [
      [3, ['power_out_of_range']],
      [4, ['power_out_of_range']],
      [6, ['power_out_of_range']],
      [8, ['soc_out_of_range']],
    ],
  );
  // The half-hour and window aggregates over the stored ones (sums of squares included) do not overflow.
  const hist = await svc.request({
    method: 'GET',
    url: `/api/telemetry/assets/battery/${a}/history?range=daily&metric=charge`,
    headers: { authorization: `Bearer ${await svc.token({ orgId: ORG, roles: ['ANALYST'] })}` },
  });
  assert.equal(hist.statusCode, 200, hist.body);
  assert.equal(json(hist).summary.max, 1e8);
});

test('a number a double cannot hold is stored as the value judged, so reads that take raw keys as numbers still answer (decision 0516)', async () => {
  const a = asset('tiny');
  // Text no JavaScript literal can write: 1e-400 parses to 0, and 22 significant digits round to a double.
  const text = `[{"asset_id":"${a}","ts":"2026-10-15T11:00:00Z","charge_kw":1e-400,"energy_kwh":0.1000000000000000000001}]`;
  const res = await svc.request({
    method: 'POST',
    url: INGEST,
    headers: { authorization: `Bearer ${await svc.token({ orgId: ORG, roles: ['OPERATOR'] })}`, 'content-type': 'application/json' },
    payload: text,
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(json(res).stored, 1);
  const [row] = await storedFor(a);
  assert.equal(Object.is(row.raw.charge_kw, 0), true);
  assert.equal(row.raw.energy_kwh, 0.1);
  // Both reads cast the stored raw key (float8 for charge, numeric for the kWh register). Had the
  // body's text been stored, 1e-400 would stop the first ("out of range for type double precision"),
  // answered as `timeseries_unavailable` with no series, for every read of the asset's day.
  for (const [kind, metric, count] of [
    ['battery', 'charge', 1],
    ['heat-pump', 'kwh', 0], // one reading of a register advances nothing
  ] as const) {
    const hist = await svc.request({
      method: 'GET',
      url: `/api/telemetry/assets/${kind}/${a}/history?range=live&metric=${metric}`,
      headers: { authorization: `Bearer ${await svc.token({ orgId: ORG, roles: ['ANALYST'] })}` },
    });
    assert.equal(hist.statusCode, 200, `${metric}: ${hist.body}`);
    assert.equal(json(hist).source, 'timeseries', metric);
    assert.equal(json(hist).summary.count, count, metric);
  }
});

test('roles: ORG_ADMIN, OPERATOR and ANALYST may ingest; VIEWER is 403 Insufficient permissions; no token is 401', async () => {
  for (const role of ['ORG_ADMIN', 'OPERATOR', 'ANALYST'] as const) {
    const res = await client(svc, ORG, role).ingest({ asset_id: asset(), ts: '2026-10-15T11:00:00Z' });
    assert.equal(res.statusCode, 200, role);
  }
  const a = asset();
  const viewer = await client(svc, ORG, 'VIEWER').ingest({ asset_id: a, ts: '2026-10-15T11:00:00Z' });
  assert.equal(viewer.statusCode, 403);
  assert.equal(json(viewer).detail, 'Insufficient permissions');
  assert.ok(viewer.headers['x-request-id']);
  const anon = await svc.request({ method: 'POST', url: INGEST, payload: { asset_id: a, ts: '2026-10-15T11:00:00Z' } });
  assert.equal(anon.statusCode, 401);
  assert.equal(json(anon).detail, 'Authorization header missing');
  assert.ok(anon.headers['x-request-id']);
  assert.equal((await storedFor(a)).length, 0);
});

test('another organisation never sees the records', async () => {
  const a = asset('iso');
  assert.equal((await api.ingest({ asset_id: a, ts: '2026-10-15T11:00:00Z', power_kw: -3 })).statusCode, 200);
  const other = client(svc, OTHER, 'ORG_ADMIN');
  assert.deepEqual(await other.live(`?asset_id=${a}`), []);
  assert.ok((await other.live('?limit=500')).every((r) => r.asset_id !== a));
  const hist = json(await other.get(`/api/telemetry/assets/solar/${a}/history?range=live`));
  assert.deepEqual(hist.series, []);
  assert.equal(hist.summary.count, 0);
  assert.equal(hist.source, 'timeseries');
});
