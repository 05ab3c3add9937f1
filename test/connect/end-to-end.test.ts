// The whole story through HTTP on a real store: a site from a template, devices already reporting
// without a record, the proposal and its confirmation (the onboarding clock stops); a demo gateway
// falls silent, the watchdog raises asset_silence, the alert.raised webhook reaches a loopback
// receiver, a heartbeat resolves it (alert.resolved delivered); a replay interrupted and retried
// stores each reading exactly once, also when two retries race.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, realServers, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { registerEndpoint, startReceiver, verifySignature, type Receiver } from '../devtools/helpers.ts';
import { call, clockOf, ingest, tokenFor } from './helpers.ts';

let svc: TestService;
let rx: Receiver;
const ORG = 'demo-connect-e2e';
const SITE = 'home-1';
let admin: string;

before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-11-23T10:00:00.000Z') });
  await svc.createOrg(ORG);
  admin = await tokenFor(svc, ORG);
  rx = await startReceiver([200]);
});
after(async () => {
  await rx.close();
  await svc.stop();
});

const now = () => svc.clock.now();
const liveCount = async (assetId: string) => {
  const res = await call(svc, admin, 'GET', `/api/telemetry/live/events?limit=500&asset_id=${encodeURIComponent(assetId)}`);
  assert.equal(res.statusCode, 200, res.body);
  return (json(res).events ?? json(res).records ?? json(res)).length as number;
};

/** Runs due jobs, moving 15 s on between rounds (a delivery's first attempt is due seconds after its event), until `done`. */
async function drain(done: () => boolean = () => false, rounds = 4) {
  for (let i = 0; i < rounds; i++) {
    await svc.runDue();
    if (done()) return;
    clockOf(svc).advance(15_000);
  }
}
const got = (type: string) => () => rx.requests.some((r) => JSON.parse(r.body).type === type);

test('template → site → unmapped devices → proposal → confirm → clock stopped; silence → alert → webhook → heartbeat → resolved; replay retried stores once', async () => {
  // 1. Devices already report for the site, without registry records.
  const t0 = now();
  await ingest(svc, admin, [
    { device_id: 'EM-0042', site_ref: SITE, asset_type: 'smart_meter', ts: t0.toISOString(), power_kw: 0.31 },
    { device_id: 'SE-INV-7731', site_ref: SITE, asset_type: 'solar_inverter', name: 'Roof PV', ts: t0.toISOString(), power_kw: -2.1 },
    { device_id: 'GIV-BATT-22', site_ref: SITE, asset_type: 'battery', ts: t0.toISOString(), power_kw: 0.5, soc_pct: 54 },
    { device_id: 'NEIGHBOUR-BATT', site_ref: 'home-2', asset_type: 'battery', ts: t0.toISOString(), soc_pct: 80 },
  ]);

  // 2. From the template: three placeholder assets and a proposal with reasons.
  const created = await call(svc, admin, 'POST', '/api/hardware/sites/from-template', { template_id: 'gb-home-pv-battery', site_id: SITE });
  assert.equal(created.statusCode, 201, created.body);
  const run = json(created).run;
  assert.equal(run.status, 'proposed');
  assert.equal(run.elapsed_seconds, null);
  assert.deepEqual(
    json(created).assets.map((a: { asset_id: string }) => a.asset_id),
    ['home-1.meter', 'home-1.pv_inverter', 'home-1.battery'],
  );
  const bySlot = Object.fromEntries(run.proposal.entries.map((e: { slot: string }) => [e.slot, e]));
  assert.equal(bySlot.meter.device_id, 'EM-0042');
  assert.equal(bySlot.pv_inverter.device_id, 'SE-INV-7731');
  assert.equal(bySlot.battery.device_id, 'GIV-BATT-22');
  // site_ref 0.5 + declared type 0.35 + 'inv' in the id 0.15 = 1.0
  assert.equal(bySlot.pv_inverter.confidence, 1);
  assert.equal(bySlot.pv_inverter.confidence_level, 'high');
  assert.ok(bySlot.pv_inverter.reasons.includes("raw site_ref 'home-1' names this site"));
  assert.ok(bySlot.pv_inverter.reasons.includes("declared type 'solar_inverter' is a inverter"));
  assert.ok(!JSON.stringify(run.proposal).includes('NEIGHBOUR-BATT'), 'a device naming another site is never proposed');

  // 3. Confirm 90 s later: the clock stops at 90 s; the placeholders take the device ids.
  clockOf(svc).advance(90_000);
  const confirmed = await call(svc, admin, 'POST', `/api/hardware/sites/${SITE}/confirm-mapping`, {});
  assert.equal(confirmed.statusCode, 200, confirmed.body);
  assert.equal(json(confirmed).status, 'confirmed');
  assert.equal(json(confirmed).elapsed_seconds, 90);
  assert.deepEqual(
    json(confirmed).mapping.map((m: { asset_id: string }) => m.asset_id),
    ['EM-0042', 'SE-INV-7731', 'GIV-BATT-22'],
  );
  const again = await call(svc, admin, 'POST', `/api/hardware/sites/${SITE}/confirm-mapping`, {});
  assert.deepEqual([again.statusCode, json(again).detail], [409, 'Mapping already confirmed']);
  const assets = json(await call(svc, admin, 'GET', `/api/twin/registry/assets?site_id=${SITE}`)).assets;
  const inv = assets.find((a: { asset_id: string }) => a.asset_id === 'SE-INV-7731');
  assert.equal(inv.origin, 'onboarding');
  assert.equal(inv.parent_asset_id, 'EM-0042', 'children follow the renamed parent');
  assert.notEqual(inv.freshness, 'never', "the device's telemetry joins the asset");
  const runs = json(await call(svc, admin, 'GET', '/api/hardware/sites/onboarding/runs'));
  assert.deepEqual([runs.summary.runs, runs.summary.confirmed, runs.summary.median_seconds, runs.summary.p90_seconds], [1, 1, 90, 90]);

  // 4. The gateway goes silent: the watchdog raises asset_silence; alert.raised reaches the receiver.
  const ep = await registerEndpoint(svc, ORG, `${rx.url}/hooks`);
  const hb = await call(svc, admin, 'POST', `/api/hardware/ems/comms/${SITE}/heartbeat`, { firmware: '2.4.1', buffer_depth: 0 });
  assert.equal(hb.statusCode, 200, hb.body);
  assert.equal(json(hb).state, 'online');
  assert.equal(json(hb).watchdog.active, true);
  await drain(() => false, 1);
  assert.equal(rx.requests.length, 0);
  clockOf(svc).advance(601_000);
  await drain(got('alert.raised'));
  const raised = rx.requests.map((r) => ({ r, body: JSON.parse(r.body) })).find((x) => x.body.type === 'alert.raised');
  assert.ok(raised, 'alert.raised delivered');
  assert.equal(raised.body.data.alert.type, 'asset_silence');
  assert.deepEqual(raised.body.data.alert.subject, { type: 'site', id: SITE });
  assert.ok(verifySignature(String(raised.r.headers['platform-signature']), raised.r.body, ep.secret, Math.floor(now().getTime() / 1000)));
  const silent = json(await call(svc, admin, 'GET', `/api/hardware/ems/comms/${SITE}/status`));
  assert.equal(silent.state, 'silent');
  assert.equal(silent.alert.status, 'open');

  // 5. A heartbeat: the alert resolves; alert.resolved is delivered.
  const back = await call(svc, admin, 'POST', `/api/hardware/ems/comms/${SITE}/heartbeat`, { buffer_depth: 10 });
  assert.equal(json(back).state, 'online');
  assert.equal(json(back).alert, null);
  await drain(got('alert.resolved'));
  const resolved = rx.requests.map((r) => JSON.parse(r.body)).find((b) => b.type === 'alert.resolved');
  assert.ok(resolved, 'alert.resolved delivered');
  assert.equal(resolved.data.alert.id, raised.body.data.alert.id);
  assert.equal(resolved.data.alert.status, 'resolved');

  // 6. Replay: the first upload is cut off after sequences 0..5; the retry sends 0..9.
  const before = await liveCount('SE-INV-7731');
  const readings = Array.from({ length: 10 }, (_, k) => ({
    device_id: 'SE-INV-7731',
    sequence: k,
    ts: new Date(t0.getTime() + k * 60_000).toISOString(),
    power_kw: -1 - k / 10,
  }));
  const first = await call(svc, admin, 'POST', `/api/hardware/ems/buffer/${SITE}/replay`, { records: readings.slice(0, 6), remaining: 4 });
  assert.equal(first.statusCode, 200, first.body);
  assert.equal(json(first).stored, 6);
  const retry = await call(svc, admin, 'POST', `/api/hardware/ems/buffer/${SITE}/replay`, { records: readings, remaining: 0 });
  assert.equal(retry.statusCode, 200, retry.body);
  assert.deepEqual([json(retry).stored, json(retry).duplicates, json(retry).rejected], [4, 6, 0]);
  assert.deepEqual(
    json(retry)
      .results.slice(0, 6)
      .map((r: { status: string }) => r.status),
    Array(6).fill('duplicate'),
  );
  assert.deepEqual(json(retry).gaps, []);
  assert.equal((await liveCount('SE-INV-7731')) - before, 10, 'each reading stored exactly once');
  const rows = json(await call(svc, admin, 'GET', `/api/hardware/ems/buffer/${SITE}/rows`)).rows;
  assert.deepEqual(
    rows.map((r: { sequence: number }) => r.sequence),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
  const status = json(await call(svc, admin, 'GET', `/api/hardware/ems/buffer/${SITE}/status`));
  assert.deepEqual([status.stored, status.duplicates, status.remaining, status.progress_pct], [10, 6, 0, 100]);
  assert.deepEqual(status.progress, { done: 10, total: 10, unit: 'readings', percent: 100 });
});

test('two retries of the same replay racing store each reading once (the (device, sequence) key decides)', {
  skip:
    !realServers.database &&
    'needs PostgreSQL: the retries race for the unique (device, sequence) key in concurrent transactions on their own pooled connections; PGlite runs one at a time',
}, async () => {
  const t0 = now();
  const readings = Array.from({ length: 50 }, (_, k) => ({
    device_id: 'EM-0042',
    sequence: 1000 + k,
    ts: new Date(t0.getTime() + k * 1000).toISOString(),
    power_kw: 0.2,
  }));
  const before = await liveCount('EM-0042');
  const [a, b, c] = await Promise.all([0, 1, 2].map(() => call(svc, admin, 'POST', `/api/hardware/ems/buffer/${SITE}/replay`, { records: readings })));
  for (const r of [a, b, c]) assert.equal(r.statusCode, 200, r.body);
  assert.equal(json(a).stored + json(b).stored + json(c).stored, 50);
  assert.equal(json(a).duplicates + json(b).duplicates + json(c).duplicates, 100);
  assert.equal((await liveCount('EM-0042')) - before, 50);
});
