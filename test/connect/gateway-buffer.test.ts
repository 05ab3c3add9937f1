// Gateway link and buffer replay through HTTP: production organisations record state and get no
// watchdog; thresholds; replay outcomes (207, 422, anomalies, gaps), rows in device and sequence
// order with cursors; the three rehearsals: demo realm only, production refused with nothing
// recorded; refusals by role, other organisation, unknown site and bad input.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { call, clockOf, tokenFor } from './helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
const PROD = 'gw-prod';
const DEMO = 'demo-gw';
const OTHER = 'gw-other';
let prod: string;
let prodViewer: string;
let prodAnalyst: string;
let demo: string;
let other: string;

before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-11-23T08:00:00.000Z') });
  for (const o of [PROD, DEMO, OTHER]) await svc.createOrg(o);
  prod = await tokenFor(svc, PROD);
  prodViewer = await tokenFor(svc, PROD, 'VIEWER');
  prodAnalyst = await tokenFor(svc, PROD, 'ANALYST');
  demo = await tokenFor(svc, DEMO);
  other = await tokenFor(svc, OTHER);
  for (const [token, site] of [
    [prod, 'plant'],
    [demo, 'demo-home'],
  ] as const) {
    const r = await call(svc, token, 'POST', '/api/twin/registry/assets', {
      asset_id: `${site}-meter`,
      asset_class: 'site_meter',
      site_id: site,
      name: 'Meter',
    });
    assert.equal(r.statusCode, 201, r.body);
  }
});
after(() => svc.stop());

const gw = (token: string, site: string, what: string, body?: object) =>
  call(svc, token, what === 'status' ? 'GET' : 'POST', `/api/hardware/ems/comms/${site}/${what}`, what === 'status' ? undefined : (body ?? {}));

test('production: heartbeat records state, status evaluates online → late → silent with reasons, no watchdog, no alert; check records', async () => {
  const hb = await gw(prodAnalyst, 'plant', 'heartbeat', {
    firmware: 'fw-1.2',
    buffer_depth: 42,
    gateway_id: 'gw-01',
    thresholds: { late_after_s: 60, silent_after_s: 300 },
  });
  assert.equal(hb.statusCode, 200, hb.body);
  assert.deepEqual([json(hb).state, json(hb).firmware, json(hb).buffer_depth, json(hb).heartbeat_count], ['online', 'fw-1.2', 42, 1]);
  assert.deepEqual(json(hb).thresholds, { late_after_s: 60, silent_after_s: 300 });
  assert.equal(json(hb).watchdog.active, false);
  clockOf(svc).advance(90_000);
  const late = json(await gw(prodViewer, 'plant', 'status'));
  assert.equal(late.state, 'late');
  assert.equal(late.reason, 'Last heartbeat 90 s ago: past late_after_s (60 s), within silent_after_s (300 s).');
  assert.equal(late.recorded_state.state, 'online', 'status records nothing');
  clockOf(svc).advance(300_000);
  await svc.runDue();
  const silent = json(await gw(prodViewer, 'plant', 'status'));
  assert.equal(silent.state, 'silent');
  assert.equal(silent.recorded_state.state, 'online', 'the watchdog does not walk production organisations');
  assert.equal(silent.alert, null);
  const checked = json(await gw(prod, 'plant', 'check'));
  assert.deepEqual([checked.state, checked.recorded_state.state, checked.alert], ['silent', 'silent', null]);
  const alerts = await svc.request({ method: 'GET', url: '/api/hardware/ems/comms/plant/status', headers: { authorization: `Bearer ${prod}` } });
  assert.equal(json(alerts).alert, null);
});

test('gateway refusals: viewer heartbeat, other organisation, unknown site, bad thresholds', async () => {
  assert.deepEqual([(await gw(prodViewer, 'plant', 'heartbeat')).statusCode], [403]);
  assertRefused(await gw(prodViewer, 'plant', 'check'), 403, 'Insufficient permissions');
  assertRefused(await gw(other, 'plant', 'status'), 404, 'Not Found');
  assertRefused(await gw(other, 'plant', 'heartbeat'), 404, 'Not Found');
  assertRefused(await gw(prod, 'nowhere', 'status'), 404, 'Not Found');
  const bad = await gw(prod, 'plant', 'heartbeat', { thresholds: { late_after_s: 600, silent_after_s: 300 } });
  assert.equal(bad.statusCode, 422);
  assert.deepEqual(json(bad).detail[0].loc, ['body', 'thresholds', 'silent_after_s']);
  assertRefused(await gw(prod, 'plant', 'heartbeat', { buffer_depth: -1 }), 422, { fields: ['body.buffer_depth'] });
});

test('rehearsals are demo-realm: a production organisation gets 403 Demo realm only and nothing is recorded', async () => {
  const before = json(await gw(prod, 'plant', 'status'));
  for (const url of [
    '/api/hardware/ems/comms/plant/rehearse/drop',
    '/api/hardware/ems/comms/plant/rehearse/restore',
    '/api/hardware/ems/buffer/plant/rehearse',
  ]) {
    const r = await call(svc, prod, 'POST', url, {});
    assert.deepEqual([r.statusCode, json(r).detail], [403, 'Demo realm only'], url);
  }
  const afterStatus = json(await gw(prod, 'plant', 'status'));
  assert.deepEqual(afterStatus.rehearsal, { dropped: false, dropped_at: null });
  assert.equal(afterStatus.heartbeat_count, before.heartbeat_count);
  const buffer = json(await call(svc, prod, 'GET', '/api/hardware/ems/buffer/plant/status'));
  assert.equal(buffer.replays, 0);
});

test('demo rehearsals: drop silences the link and raises asset_silence at once; heartbeats meanwhile do not bring it back; restore resolves', async () => {
  assert.equal(json(await gw(demo, 'demo-home', 'heartbeat')).state, 'online');
  const viewerDrop = await call(svc, await tokenFor(svc, DEMO, 'VIEWER'), 'POST', '/api/hardware/ems/comms/demo-home/rehearse/drop', {});
  assertRefused(viewerDrop, 403, 'Insufficient permissions');
  const drop = await call(svc, demo, 'POST', '/api/hardware/ems/comms/demo-home/rehearse/drop', {});
  assert.equal(drop.statusCode, 200, drop.body);
  assert.equal(json(drop).state, 'silent');
  assert.equal(json(drop).rehearsal.dropped, true);
  assert.equal(json(drop).alert.status, 'open');
  assert.match(json(drop).reason, /^Rehearsal: the link was dropped/);
  const during = json(await gw(demo, 'demo-home', 'heartbeat'));
  assert.equal(during.state, 'silent');
  assert.equal(during.alert.id, json(drop).alert.id, 'one open alert per condition');
  const restore = await call(svc, demo, 'POST', '/api/hardware/ems/comms/demo-home/rehearse/restore', {});
  assert.equal(restore.statusCode, 200, restore.body);
  assert.deepEqual([json(restore).state, json(restore).alert, json(restore).rehearsal.dropped], ['online', null, false]);
  assertRefused(await call(svc, demo, 'POST', '/api/hardware/ems/comms/nowhere/rehearse/drop', {}), 404, 'Not Found');
});

test('demo buffer rehearsal: an interrupted upload and its retry store each synthetic reading once; sequences continue on the next rehearsal', async () => {
  const r1 = await call(svc, demo, 'POST', '/api/hardware/ems/buffer/demo-home/rehearse', { readings_per_device: 8 });
  assert.equal(r1.statusCode, 200, r1.body);
  const b1 = json(r1);
  assert.deepEqual(
    [b1.devices, b1.generated, b1.interrupted_attempt.stored, b1.retry.stored, b1.retry.duplicates, b1.each_stored_once],
    [['demo-home-meter'], 8, 4, 4, 4, true],
  );
  const b2 = json(await call(svc, demo, 'POST', '/api/hardware/ems/buffer/demo-home/rehearse', { readings_per_device: 8 }));
  assert.equal(b2.stored_total, 8);
  const rows = json(await call(svc, demo, 'GET', '/api/hardware/ems/buffer/demo-home/rows?limit=1000')).rows;
  assert.deepEqual(
    rows.map((r: { sequence: number }) => r.sequence),
    Array.from({ length: 16 }, (_, i) => i),
  );
  assertRefused(await call(svc, demo, 'POST', '/api/hardware/ems/buffer/demo-home/rehearse', { readings_per_device: 1 }), 422, {
    fields: ['body.readings_per_device'],
  });
});

test('replay: per-record outcomes (207), anomalies kept, gaps reported; 422 when all rejected; rows paged in device and sequence order', async () => {
  const ts = (m: number) => new Date(Date.parse('2026-11-23T07:00:00Z') + m * 60_000).toISOString();
  const res = await call(svc, prodAnalyst, 'POST', '/api/hardware/ems/buffer/plant/replay', {
    replay_id: 'up-1',
    remaining: 20,
    records: [
      { device_id: 'bat-1', sequence: 0, ts: ts(0), soc_pct: 50 },
      { device_id: 'bat-1', sequence: 1, ts: ts(1), soc_pct: 150 },
      { device_id: 'bat-1', sequence: 5, ts: ts(5), soc_pct: 52 },
      { device_id: 'bat-1', ts: ts(6), soc_pct: 53 },
      { device_id: 'bat-1', sequence: 7, ts: 'yesterday', soc_pct: 53 },
      { device_id: 'inv-1', sequence: 3, ts: ts(0), power_kw: -3.2 },
      { device_id: 'inv-1', sequence: 3, ts: ts(0), power_kw: -3.2 },
    ],
  });
  assert.equal(res.statusCode, 207, res.body);
  const out = json(res);
  assert.deepEqual([out.count, out.stored, out.duplicates, out.rejected, out.replay_id], [7, 4, 1, 2, 'up-1']);
  assert.deepEqual(
    out.results.map((r: { status: string }) => r.status),
    ['stored', 'stored', 'stored', 'rejected', 'rejected', 'stored', 'duplicate'],
  );
  assert.equal(out.results[3].reason, 'missing_sequence');
  assert.equal(out.results[4].field, 'ts');
  assert.equal(out.results[6].duplicate_of, 5);
  assert.deepEqual(
    out.anomalies.map((a: { index: number; reasons: string[] }) => [a.index, a.reasons]),
    [[1, ['soc_out_of_range']]],
  );
  assert.deepEqual(out.gaps, [{ device_id: 'bat-1', from_sequence: 2, to_sequence: 4, missing: 3 }]);

  const none = await call(svc, prodAnalyst, 'POST', '/api/hardware/ems/buffer/plant/replay', { records: [{ device_id: 'x', ts: ts(0) }] });
  assert.deepEqual([none.statusCode, json(none).detail, json(none).stored], [422, 'all_records_rejected', 0]);

  const status = json(await call(svc, prodViewer, 'GET', '/api/hardware/ems/buffer/plant/status'));
  assert.deepEqual([status.stored, status.rejected, status.remaining, status.remaining_source], [4, 2, 20, 'replay'], 'an all-rejected replay records nothing');
  // 4 stored of 4 + 20 remaining = 16.7 %.
  assert.equal(status.progress_pct, 16.7);
  assert.equal(status.progress.percent, 16, 'the whole per cent, rounded down');
  assert.deepEqual(
    status.devices.map((d: { device_id: string; rows: number; missing: number }) => [d.device_id, d.rows, d.missing]),
    [
      ['bat-1', 3, 3],
      ['inv-1', 1, 0],
    ],
  );

  const p1 = json(await call(svc, prodViewer, 'GET', '/api/hardware/ems/buffer/plant/rows?limit=2'));
  const p2 = json(await call(svc, prodViewer, 'GET', `/api/hardware/ems/buffer/plant/rows?limit=2&cursor=${p1.next_cursor}`));
  assert.deepEqual(
    [...p1.rows, ...p2.rows].map((r: { device_id: string; sequence: number }) => `${r.device_id}#${r.sequence}`),
    ['bat-1#0', 'bat-1#1', 'bat-1#5', 'inv-1#3'],
  );
  assert.equal(p2.has_more, false);
  const byDevice = json(await call(svc, prodViewer, 'GET', '/api/hardware/ems/buffer/plant/rows?device_id=inv-1')).rows;
  assert.deepEqual(
    byDevice.map((r: { sequence: number }) => r.sequence),
    [3],
  );
  assertRefused(await call(svc, prodViewer, 'GET', `/api/hardware/ems/buffer/plant/rows?device_id=bat-1&cursor=${p1.next_cursor}`), 400, 'invalid_cursor');
});

test('replay refusals: viewer, other organisation, unknown site, bad body', async () => {
  const rec = { records: [{ device_id: 'bat-1', sequence: 99, ts: '2026-11-23T07:30:00Z' }] };
  assertRefused(await call(svc, prodViewer, 'POST', '/api/hardware/ems/buffer/plant/replay', rec), 403, 'Insufficient permissions');
  assertRefused(await call(svc, other, 'POST', '/api/hardware/ems/buffer/plant/replay', rec), 404, 'Not Found');
  assertRefused(await call(svc, other, 'GET', '/api/hardware/ems/buffer/plant/status'), 404, 'Not Found');
  assertRefused(await call(svc, other, 'GET', '/api/hardware/ems/buffer/plant/rows'), 404, 'Not Found');
  assertRefused(await call(svc, prod, 'POST', '/api/hardware/ems/buffer/nowhere/replay', rec), 404, 'Not Found');
  assertRefused(await call(svc, prod, 'POST', '/api/hardware/ems/buffer/plant/replay', { records: [] }), 422, { fields: ['body.records'] });
  const cross = await call(svc, prod, 'POST', '/api/hardware/ems/buffer/plant/replay', { records: [{ ...rec.records[0], tenant_id: OTHER }] });
  assert.deepEqual([cross.statusCode, json(cross).detail], [403, 'cross_tenant_record']);
  // `remaining` past what the store can hold is a field error, never a 500; nothing is stored.
  for (const remaining of [100_000_001, 2 ** 31, 1e20]) {
    const big = await call(svc, prod, 'POST', '/api/hardware/ems/buffer/plant/replay', { ...rec, remaining });
    assertRefused(big, 422, { fields: ['body.remaining'] }, `remaining ${remaining}`);
  }
  const rows = json(await call(svc, prod, 'GET', '/api/hardware/ems/buffer/plant/rows?device_id=bat-1&limit=500')).rows;
  assert.ok(!rows.some((r: { sequence: number }) => r.sequence === 99), 'the refused replays stored nothing');
});

test('replay: a device registered to another site of the organisation is refused per record; unregistered devices are stored', async () => {
  const r = await call(svc, prod, 'POST', '/api/twin/registry/assets', {
    asset_id: 'far-meter',
    asset_class: 'site_meter',
    site_id: 'far-site',
    name: 'Far meter',
  });
  assert.equal(r.statusCode, 201, r.body);
  const res = await call(svc, prodAnalyst, 'POST', '/api/hardware/ems/buffer/plant/replay', {
    records: [
      { device_id: 'far-meter', sequence: 0, ts: '2026-11-23T07:40:00Z', power_kw: 1 },
      { device_id: 'plant-meter', sequence: 0, ts: '2026-11-23T07:40:00Z', power_kw: 2 },
      { device_id: 'new-inv', sequence: 0, ts: '2026-11-23T07:40:00Z', power_kw: -1 },
    ],
  });
  assert.equal(res.statusCode, 207, res.body);
  const out = json(res);
  assert.deepEqual(
    out.results.map((x: { status: string }) => x.status),
    ['rejected', 'stored', 'stored'],
  );
  assert.deepEqual(
    [out.results[0].field, out.results[0].reason, out.results[0].message],
    ['device_id', 'device_on_another_site', 'far-meter is registered to site far-site, not plant'],
  );
  const rows = json(await call(svc, prodViewer, 'GET', '/api/hardware/ems/buffer/plant/rows?device_id=far-meter')).rows;
  assert.deepEqual(rows, [], 'nothing of the refused device was recorded for this site');
});

test('replay claims are per site: another site’s gateway with the same replay id and device sequences stores its own readings; reused ids or sequences with other content are conflicts', async () => {
  const r = await call(svc, prod, 'POST', '/api/twin/registry/assets', {
    asset_id: 'annex-meter',
    asset_class: 'site_meter',
    site_id: 'annex',
    name: 'Annex meter',
  });
  assert.equal(r.statusCode, 201, r.body);
  const recs = (kw: number) => [0, 1].map((s) => ({ device_id: 'local-inv', sequence: s, ts: `2026-11-23T07:5${s}:00.000Z`, power_kw: kw }));
  const replay = (site: string, body: object) => call(svc, prodAnalyst, 'POST', `/api/hardware/ems/buffer/${site}/replay`, body);
  const rowsOf = async (site: string) =>
    json(await call(svc, prodViewer, 'GET', `/api/hardware/ems/buffer/${site}/rows?device_id=local-inv`)).rows.map(
      (x: { sequence: number; replay_id: string }) => `${x.sequence}:${x.replay_id}`,
    );

  const a = await replay('plant', { replay_id: 'batch-7', records: recs(1) });
  assert.equal(a.statusCode, 200, a.body);
  assert.deepEqual([json(a).stored, json(a).duplicates], [2, 0]);
  // Site B's gateway numbers its own devices and batches: nothing of it is A's duplicate.
  const b = await replay('annex', { replay_id: 'batch-7', records: recs(2) });
  assert.equal(b.statusCode, 200, b.body);
  assert.deepEqual([json(b).stored, json(b).duplicates, json(b).results.map((x: { status: string }) => x.status)], [2, 0, ['stored', 'stored']]);
  assert.deepEqual(await rowsOf('annex'), ['0:batch-7', '1:batch-7']);

  // A retry of the same batch is a duplicate, as before.
  const again = await replay('plant', { replay_id: 'batch-7', records: recs(1) });
  assert.equal(again.statusCode, 200, again.body);
  assert.deepEqual(
    [json(again).stored, json(again).duplicates, json(again).results.map((x: { status: string }) => x.status)],
    [0, 2, ['duplicate', 'duplicate']],
  );

  // The same batch id with other readings is a conflict: 409, nothing stored or counted.
  const before = json(await call(svc, prodViewer, 'GET', '/api/hardware/ems/buffer/plant/status'));
  const changed = [...recs(1).slice(0, 1), { device_id: 'local-inv', sequence: 2, ts: '2026-11-23T07:52:00.000Z', power_kw: 1 }];
  assertRefused(
    await replay('plant', { replay_id: 'batch-7', records: changed }),
    409,
    'replay_id batch-7 was already used at this site with different records',
  );
  assertRefused(
    await replay('plant', { replay_id: 'batch-7', records: recs(5) }),
    409,
    'replay_id batch-7 was already used at this site with different records',
  );
  assert.deepEqual(await rowsOf('plant'), ['0:batch-7', '1:batch-7'], 'sequence 2 was not stored');
  const afterConflict = json(await call(svc, prodViewer, 'GET', '/api/hardware/ems/buffer/plant/status'));
  assert.deepEqual([afterConflict.replays, afterConflict.received, afterConflict.stored], [before.replays, before.received, before.stored]);

  // A new batch reusing a stored (device, sequence) with other content: that record is refused
  // by name (a conflict, not a duplicate); the rest of the batch is stored.
  const reused = await replay('plant', {
    replay_id: 'batch-8',
    records: [{ ...recs(9)[1] }, { device_id: 'local-inv', sequence: 2, ts: '2026-11-23T07:52:00.000Z', power_kw: 1 }],
  });
  assert.equal(reused.statusCode, 207, reused.body);
  const out = json(reused);
  assert.deepEqual([out.stored, out.duplicates, out.rejected], [1, 0, 1]);
  assert.deepEqual([out.results[0].status, out.results[0].field, out.results[0].reason], ['rejected', 'sequence', 'sequence_conflict']);
  assert.equal(out.results[0].message, 'sequence 1 of local-inv was stored at this site with a different record (replay batch-7)');
  // Every record a conflict: nothing stored, 422 as for any all-rejected replay.
  const allConflict = await replay('plant', { replay_id: 'batch-9', records: recs(7) });
  assert.deepEqual(
    [allConflict.statusCode, json(allConflict).detail, json(allConflict).results.map((x: { reason: string }) => x.reason)],
    [422, 'all_records_rejected', ['sequence_conflict', 'sequence_conflict']],
  );
  // A repeat within one upload with other content is a conflict too.
  const inBatch = await replay('annex', {
    records: [
      { device_id: 'local-inv', sequence: 5, ts: '2026-11-23T07:55:00.000Z', power_kw: 1 },
      { device_id: 'local-inv', sequence: 5, ts: '2026-11-23T07:55:00.000Z', power_kw: 3 },
    ],
  });
  assert.equal(inBatch.statusCode, 207, inBatch.body);
  assert.deepEqual(
    json(inBatch).results.map((x: { status: string; reason?: string }) => x.reason ?? x.status),
    ['stored', 'sequence_conflict'],
  );
  assert.deepEqual(await rowsOf('plant'), ['0:batch-7', '1:batch-7', '2:batch-8']);
});
