// Reconciliation of receipts with each other: sums per site, asset and direction, gaps and
// overlaps in the periods, as JSON and CSV; own organisation only; bad windows are 422.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { client, issueBody } from './client.ts';
import { assertRefused } from '../helpers/refusal.ts';

const ORG = 'recon-org';
const OTHER = 'recon-other';
let svc: TestService;
let call: ReturnType<typeof client>;
const WINDOW = 'from=2026-03-01T00:00:00Z&to=2026-03-02T00:00:00Z';

before(async () => {
  svc = await startTestService();
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  call = client(svc);
  // battery-1: half hours 0, 1, 3 (a gap at 2) and half hour 1 again (an overlap); pv-1: one.
  for (const [n, over] of [
    [0, {}],
    [1, {}],
    [3, {}],
    [1, { delivered_wh: 7 }],
    [4, { asset_id: 'pv-1', direction: 'turn_up' }],
  ] as const) {
    const res = await call('POST', '/receipts/issue', { org: ORG, payload: issueBody(n, over) });
    assert.equal(res.statusCode, 201, res.body);
  }
  await call('POST', '/receipts/issue', { org: OTHER, payload: issueBody(0, { asset_id: 'theirs' }) });
});
after(() => svc.stop());

test('reconciliation: receipted energy, gaps and overlaps per site, asset and direction', async () => {
  const res = await call('GET', `/reconciliation?${WINDOW}`, { org: ORG, role: 'VIEWER' });
  assert.equal(res.statusCode, 200, res.body);
  const r = json(res);
  assert.equal(r.telemetry_compared, false);
  assert.equal(r.lines.length, 2);
  const battery = r.lines.find((l: { asset_id: string }) => l.asset_id === 'battery-1');
  assert.equal(battery.receipts, 4);
  assert.equal(battery.receipted_wh, String(1250 + 1251 + 1253 + 7));
  assert.equal(battery.receipted_kwh, '3.761');
  assert.equal(battery.first_period_start, '2026-03-01T00:00:00.000Z');
  assert.equal(battery.last_period_end, '2026-03-01T02:00:00.000Z');
  assert.equal(battery.covered_seconds, 3 * 1800);
  assert.equal(battery.uncovered_seconds, 1800);
  assert.equal(battery.overlapping_receipts, 1);
  assert.deepEqual(battery.findings, ['overlap', 'gap']);
  const pv = r.lines.find((l: { asset_id: string }) => l.asset_id === 'pv-1');
  assert.deepEqual(pv.findings, []);
  assert.equal(r.totals.receipts, 5);
  assert.ok(!res.body.includes('theirs'));
  // Filters and windows.
  assert.equal(json(await call('GET', `/reconciliation?${WINDOW}&asset_id=pv-1`, { org: ORG })).lines.length, 1);
  assert.equal(json(await call('GET', '/reconciliation?from=2026-04-01T00:00:00Z&to=2026-04-02T00:00:00Z', { org: ORG })).lines.length, 0);
});

test('reconciliation: bad windows are 422; other organisations see only their own', async () => {
  const cases = [
    ['from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z', 'query.to'], // to must be after from
    ['from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'query.from'], // at most 366 days
    ['from=yesterday', 'query.from'],
    ['from=0000-01-01T00:00:00Z&to=0000-06-01T00:00:00Z', 'query.from'], // no year 0 in the store
  ];
  for (const [q, field] of cases) {
    assertRefused(await call('GET', `/reconciliation?${q}`, { org: ORG }), 422, { fields: [field] }, q);
    assertRefused(await call('GET', `/reconciliation.csv?${q}`, { org: ORG }), 422, { fields: [field] }, `${q} (csv)`);
  }
  const theirs = json(await call('GET', `/reconciliation?${WINDOW}`, { org: OTHER }));
  assert.deepEqual(
    theirs.lines.map((l: { asset_id: string }) => l.asset_id),
    ['theirs'],
  );
});

test('reconciliation.csv: the same lines as CSV', async () => {
  const res = await call('GET', `/reconciliation.csv?${WINDOW}`, { org: ORG, role: 'ANALYST' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/csv/);
  const lines = res.body.split('\r\n');
  assert.equal(
    lines[0],
    'site_id,asset_id,direction,receipts,receipted_wh,receipted_kwh,first_period_start,last_period_end,covered_seconds,uncovered_seconds,overlapping_receipts,shared_receipts,findings',
  );
  assert.equal(lines[1], 'site-1,battery-1,turn_down,4,3761,3.761,2026-03-01T00:00:00.000Z,2026-03-01T02:00:00.000Z,5400,1800,1,0,overlap gap');
  assert.equal(lines.length, 4);
});
