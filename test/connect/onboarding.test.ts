// Site onboarding through HTTP: templates (built-in and the organisation's own), from-template,
// the site's run, confirm with edits, run timings with hand-worked median and p90; refusals.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { call, clockOf, ingest, tokenFor } from './helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
const ORG = 'onb-org';
const OTHER = 'onb-other';
let admin: string;
let operator: string;
let analyst: string;
let viewer: string;
let other: string;

before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-11-23T09:00:00.000Z') });
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  admin = await tokenFor(svc, ORG);
  operator = await tokenFor(svc, ORG, 'OPERATOR');
  analyst = await tokenFor(svc, ORG, 'ANALYST');
  viewer = await tokenFor(svc, ORG, 'VIEWER');
  other = await tokenFor(svc, OTHER);
});
after(() => svc.stop());

const fromTemplate = (token: string, body: object) => call(svc, token, 'POST', '/api/hardware/sites/from-template', body);
const confirm = (token: string, site: string, body: object = {}) => call(svc, token, 'POST', `/api/hardware/sites/${site}/confirm-mapping`, body);

test('GET templates: the four built-in GB shapes with slots; any role; 401 without a token', async () => {
  const res = await call(svc, viewer, 'GET', '/api/hardware/sites/templates');
  assert.equal(res.statusCode, 200);
  const ids = json(res).templates.map((t: { template_id: string }) => t.template_id);
  assert.deepEqual(ids, ['gb-home-pv-battery', 'gb-home-heat-pump', 'gb-small-commercial-pv', 'gb-depot-chargers']);
  const depot = json(res).templates[3];
  assert.deepEqual(
    depot.slots.map((s: { slot: string; required: boolean }) => [s.slot, s.required]),
    [
      ['meter', true],
      ['charger_1', true],
      ['charger_2', false],
      ['charger_3', false],
      ['charger_4', false],
    ],
  );
  assertRefused(await call(svc, null, 'GET', '/api/hardware/sites/templates'), 401, 'Authorization header missing');
});

test('POST templates: an organisation template (201, listed for it only); reserved ids, bad parents, duplicates and roles refused', async () => {
  const body = {
    template_id: 'farm-shed',
    name: 'Farm shed',
    slots: [
      { slot: 'meter', asset_class: 'site_meter', name: 'Meter' },
      { slot: 'pv', asset_class: 'inverter', name: 'Shed PV', parent_slot: 'meter', keywords: ['shed'] },
    ],
  };
  const res = await call(svc, operator, 'POST', '/api/hardware/sites/templates', body);
  assert.equal(res.statusCode, 201, res.body);
  assert.deepEqual(json(res).slots[1], {
    slot: 'pv',
    asset_class: 'inverter',
    type: 'inverter',
    name: 'Shed PV',
    parent_slot: 'meter',
    required: true,
    keywords: ['shed'],
  });
  assert.equal(json(res).built_in, false);
  assert.ok(
    json(await call(svc, viewer, 'GET', '/api/hardware/sites/templates')).templates.some((t: { template_id: string }) => t.template_id === 'farm-shed'),
  );
  assert.ok(
    !json(await call(svc, other, 'GET', '/api/hardware/sites/templates')).templates.some((t: { template_id: string }) => t.template_id === 'farm-shed'),
  );
  const dup = await call(svc, admin, 'POST', '/api/hardware/sites/templates', body);
  assert.deepEqual([dup.statusCode, json(dup).detail], [409, 'Template already exists']);
  const reserved = await call(svc, admin, 'POST', '/api/hardware/sites/templates', { ...body, template_id: 'gb-mine' });
  assertRefused(reserved, 422, { fields: ['body.template_id'] });
  const badParent = await call(svc, admin, 'POST', '/api/hardware/sites/templates', {
    template_id: 'bad',
    name: 'Bad',
    slots: [
      { slot: 'batt', asset_class: 'battery', name: 'B' },
      { slot: 'meter', asset_class: 'site_meter', name: 'M', parent_slot: 'batt' },
    ],
  });
  assert.equal(badParent.statusCode, 422);
  assert.deepEqual(json(badParent).detail[0].loc, ['body', 'slots', 1, 'parent_slot']);
  assert.equal(json(badParent).detail[0].msg, 'A site_meter is the top of the tree and takes no parent');
  const analystRes = await call(svc, analyst, 'POST', '/api/hardware/sites/templates', { ...body, template_id: 'x1' });
  assert.deepEqual([analystRes.statusCode, json(analystRes).detail], [403, 'Insufficient permissions']);
});

test('from-template with omitted optional slots; edited confirmation; required slots and duplicate devices refused', async () => {
  const t0 = svc.clock.now();
  await ingest(svc, admin, [
    { device_id: 'CP-A1', site_ref: 'depot-1', asset_type: 'charger', ts: t0.toISOString(), power_kw: 7 },
    { device_id: 'CP-A2', site_ref: 'depot-1', asset_type: 'charger', ts: t0.toISOString(), power_kw: 0 },
    { device_id: 'loose-meter', asset_type: 'meter', ts: t0.toISOString(), power_kw: 3 },
  ]);
  const bad = await fromTemplate(admin, { template_id: 'gb-depot-chargers', site_id: 'depot-1', omit_slots: ['charger_1'] });
  assert.equal(bad.statusCode, 422);
  assert.equal(json(bad).detail[0].msg, "Slot 'charger_1' is required by the template");
  assertRefused(await fromTemplate(admin, { template_id: 'no-such', site_id: 'depot-1' }), 422, { fields: ['body.template_id'] });
  assert.deepEqual([(await fromTemplate(analyst, { template_id: 'gb-depot-chargers', site_id: 'depot-1' })).statusCode], [403]);

  const res = await fromTemplate(admin, { template_id: 'gb-depot-chargers', site_id: 'depot-1', omit_slots: ['charger_3', 'charger_4'] });
  assert.equal(res.statusCode, 201, res.body);
  const entries = json(res).run.proposal.entries;
  assert.deepEqual(
    entries.map((e: { slot: string; device_id: string | null }) => [e.slot, e.device_id]),
    [
      ['meter', 'loose-meter'],
      ['charger_1', 'CP-A1'],
      ['charger_2', 'CP-A2'],
    ],
  );
  // loose-meter names no site: declared type 'meter' (0.35) + 'meter' in the id (0.15) = 0.5, low.
  assert.deepEqual([entries[0].confidence, entries[0].confidence_level], [0.5, 'low']);
  assert.deepEqual([entries[1].confidence, entries[1].confidence_level], [1, 'high'], "site_ref 0.5 + type 0.35 + 'cp' in the id 0.15");
  assert.ok(entries[0].reasons.includes('no site_ref in raw: the device names no site'));
  const again = await fromTemplate(admin, { template_id: 'gb-depot-chargers', site_id: 'depot-1' });
  assert.deepEqual([again.statusCode, json(again).detail], [409, 'Site already has registered assets']);

  // The installer knows better: no meter device yet (the meter slot is required, so that is refused), chargers swapped.
  const noMeter = await confirm(admin, 'depot-1', { mapping: [{ slot: 'meter', device_id: null }] });
  assert.equal(noMeter.statusCode, 422);
  assert.equal(json(noMeter).detail[0].msg, "Slot 'meter' is required: map a device to it");
  const twice = await confirm(admin, 'depot-1', { mapping: [{ slot: 'charger_1', device_id: 'CP-A2' }] });
  assertRefused(twice, 422, { fields: ['body.mapping'] });
  assertRefused(await confirm(viewer, 'depot-1'), 403, 'Insufficient permissions');
  assertRefused(await confirm(other, 'depot-1'), 404, 'Not Found', "another organisation's site is not found");
  clockOf(svc).advance(60_000);
  const ok = await confirm(operator, 'depot-1', {
    mapping: [
      { slot: 'meter', device_id: 'GRID-9' },
      { slot: 'charger_1', device_id: 'CP-A2' },
      { slot: 'charger_2', device_id: 'CP-A1' },
    ],
  });
  assert.equal(ok.statusCode, 200, ok.body);
  assert.deepEqual(
    json(ok).mapping.map((m: { asset_id: string; source: string }) => [m.asset_id, m.source]),
    [
      ['GRID-9', 'edited'],
      ['CP-A2', 'edited'],
      ['CP-A1', 'edited'],
    ],
  );
  assert.equal(json(ok).elapsed_seconds, 60);

  const site = await call(svc, viewer, 'GET', '/api/hardware/sites/depot-1/onboarding');
  assert.equal(site.statusCode, 200);
  assert.equal(json(site).run.status, 'confirmed');
  assert.deepEqual(
    json(site).assets.map((a: { asset_id: string }) => a.asset_id),
    ['CP-A1', 'CP-A2', 'GRID-9'],
  );
  assert.equal(json(site).assets.find((a: { asset_id: string }) => a.asset_id === 'CP-A1').parent_asset_id, 'GRID-9');
  assertRefused(await call(svc, other, 'GET', '/api/hardware/sites/depot-1/onboarding'), 404, 'Not Found');
  assertRefused(await call(svc, viewer, 'GET', '/api/hardware/sites/never-onboarded/onboarding'), 404, 'Not Found');
});

test('runs: timings summary (median, nearest-rank p90) worked by hand; cursor paging; invalid cursor', async () => {
  // Confirmations after 120 s, 300 s and 30 s join the 60 s above: sorted 30, 60, 120, 300.
  // Median = (60 + 120) / 2 = 90; p90 rank = ceil(0.9 × 4) = 4 → 300.
  for (const [site, secs] of [
    ['h-a', 120],
    ['h-b', 300],
    ['h-c', 30],
  ] as const) {
    assert.equal((await fromTemplate(admin, { template_id: 'gb-home-heat-pump', site_id: site })).statusCode, 201);
    clockOf(svc).advance(secs * 1000);
    const r = await confirm(admin, site, {
      mapping: [
        { slot: 'meter', device_id: `${site}-meter` },
        { slot: 'heat_pump', device_id: `${site}-hp` },
      ],
    });
    assert.equal(r.statusCode, 200, r.body);
  }
  assert.equal((await fromTemplate(admin, { template_id: 'gb-home-heat-pump', site_id: 'h-open' })).statusCode, 201);
  const all = json(await call(svc, viewer, 'GET', '/api/hardware/sites/onboarding/runs'));
  assert.deepEqual([all.summary.runs, all.summary.confirmed, all.summary.open, all.summary.median_seconds, all.summary.p90_seconds], [5, 4, 1, 90, 300]);
  assert.equal(all.runs[0].site_id, 'h-open');
  assert.equal(all.runs[0].elapsed_seconds, null);
  const p1 = json(await call(svc, viewer, 'GET', '/api/hardware/sites/onboarding/runs?limit=2'));
  assert.equal(p1.runs.length, 2);
  assert.equal(p1.has_more, true);
  const p2 = json(await call(svc, viewer, 'GET', `/api/hardware/sites/onboarding/runs?limit=2&cursor=${p1.next_cursor}`));
  const p3 = json(await call(svc, viewer, 'GET', `/api/hardware/sites/onboarding/runs?limit=2&cursor=${p2.next_cursor}`));
  assert.deepEqual(
    [...p1.runs, ...p2.runs, ...p3.runs].map((r: { run_id: string }) => r.run_id),
    all.runs.map((r: { run_id: string }) => r.run_id),
  );
  assert.equal(p3.has_more, false);
  const wrong = await call(svc, viewer, 'GET', `/api/hardware/sites/onboarding/runs?limit=2&site_id=h-a&cursor=${p1.next_cursor}`);
  assert.deepEqual([wrong.statusCode, json(wrong).detail], [400, 'invalid_cursor']);
  const otherRuns = json(await call(svc, other, 'GET', '/api/hardware/sites/onboarding/runs'));
  assert.deepEqual([otherRuns.runs, otherRuns.summary.median_seconds], [[], null]);
});

test('confirm-mapping with no body at all (or an empty JSON body) confirms the proposal as is, as docs/connect.md says', async () => {
  const t0 = svc.clock.now().toISOString();
  for (const site of ['nb-1', 'nb-2']) {
    await ingest(svc, admin, [
      { device_id: `${site}-meter`, site_ref: site, asset_type: 'meter', ts: t0, power_kw: 1 },
      { device_id: `${site}-hp`, site_ref: site, asset_type: 'heat_pump', ts: t0, power_kw: 2 },
    ]);
    assert.equal((await fromTemplate(admin, { template_id: 'gb-home-heat-pump', site_id: site })).statusCode, 201);
  }
  const bare = await svc.request({ method: 'POST', url: '/api/hardware/sites/nb-1/confirm-mapping', headers: { authorization: `Bearer ${admin}` } });
  assert.equal(bare.statusCode, 200, bare.body);
  assert.deepEqual(
    json(bare).mapping.map((m: { asset_id: string; source: string }) => [m.asset_id, m.source]),
    [
      ['nb-1-meter', 'proposed'],
      ['nb-1-hp', 'proposed'],
    ],
  );
  const empty = await svc.request({
    method: 'POST',
    url: '/api/hardware/sites/nb-2/confirm-mapping',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    payload: '',
  });
  assert.equal(empty.statusCode, 200, empty.body);
  // A body that is there is still checked.
  assertRefused(
    await svc.request({
      method: 'POST',
      url: '/api/hardware/sites/nb-2/confirm-mapping',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      payload: '[]',
    }),
    422,
    { fields: ['body'] },
  );
});
