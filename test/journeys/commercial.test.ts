// Journey: a commercial site under EMS reporting lives Tuesday 24 November 2026 (GMT). Its site
// meter (import and export registers) and PV inverter (generation register) report half-hourly
// counters; the EMS settings carry a tariff, the PV nameplate, opening hours and a PPA. Each step
// checks the figures handed on against a hand-worked day:
//   counters → ledger → EMS report (every figure by hand) with lineage down to the readings → PPA
//   statement → carbon (Scope 2 and avoided) → exports (interval, energy summary, organisation
//   export) → an alert delivered as a signed alert.raised webhook to an HTTPS receiver; and a
//   second organisation sees none of it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { verifySignature } from '../devtools/helpers.ts';
import { client, clockOf, HH, iso, kwhText, LONG, mul, penniesToGbp, startHttpsReceiver, whOf, type Client, type HttpsReceiver } from './helpers.ts';

const ORG = 'journey-office';
const OTHER = 'journey-office-other';
const SITE = 'office';
const DAY = Date.parse('2026-11-24T00:00:00Z'); // a Tuesday, GMT
const METER = 'office-meter';
const PV = 'office-pv';

// The day by hand, per half hour (Wh). PV from 08:00 to 16:00; the building uses 1 000 Wh a half
// hour while open (Mon-Fri 08:00-18:00) and 600 otherwise; the meter imports what the PV does not
// cover and exports the rest.
const GEN = Array<number>(48).fill(0);
[200, 400, 600, 800, 1000, 1200, 1300, 1400, 1400, 1300, 1200, 1000, 800, 600, 400, 200].forEach((w, i) => (GEN[16 + i] = w));
const LOAD = Array.from({ length: 48 }, (_, i) => (i >= 16 && i < 36 ? 1000 : 600));
const IMP = LOAD.map((l, i) => Math.max(0, l - GEN[i]));
const EXP = LOAD.map((l, i) => Math.max(0, GEN[i] - l));
const sum = (a: number[]) => a.reduce((s, x) => s + x, 0);
// generation 13.800, consumption 36.800 (28 × 0.6 + 20 × 1.0), export 1.800 (0.2 + 0.3 + 0.4 + 0.4 +
// 0.3 + 0.2 at midday), import 36.8 − 13.8 + 1.8 = 24.800; self-consumed 13.8 − 1.8 = 12.000.

const SETTINGS = {
  agreed_capacity_kw: 5,
  pv_kwp: 10,
  pv_orientation: { azimuth_deg: 180, tilt_deg: 30 },
  expected_yield_kwh_per_kwp: 950,
  operating_hours: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '08:00', end: '18:00' }],
  tariff: { import_p_per_kwh: '24.50', export_p_per_kwh: '15' },
  battery_capacity_kwh: null,
  ppa_contracts: [
    { contract_id: 'ppa-roof', counterparty: 'Roof Energy Ltd', flow: 'generation', price_p_per_kwh: '9.8765', start_date: '2026-11-01', end_date: null },
  ],
};

let svc: TestService;
let hook: HttpsReceiver;
let me: Client;
let them: Client;
/** The pv_underperformance alert the journey raised (its figures are checked in the seam test below). */
let raisedPv: { evidence: { measured_kwh: number; shortfall_kwh: number }; impact_gbp_per_day: string; severity: string; title: string } | undefined;

before(async () => {
  hook = await startHttpsReceiver(200);
  svc = await startTestService({ clock: new ManualClock('2026-11-25T00:10:00.000Z') });
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  me = client(svc, await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: LONG }));
  them = client(svc, await svc.token({ orgId: OTHER, roles: ['ORG_ADMIN'], expiresIn: LONG }));
});
after(async () => {
  await svc?.stop();
  await hook?.close();
});

/** Register readings at every half hour of the day and the next midnight (49), from advances in Wh. */
function registers(start: number, advances: number[]) {
  const out = [start];
  for (const a of advances) out.push(out[out.length - 1] + a);
  return out;
}

async function seedDay() {
  await me.ok('POST', '/api/twin/registry/assets', { asset_id: METER, site_id: SITE, name: 'Incomer', type: 'meter', asset_class: 'site_meter' }, 201);
  await me.ok(
    'POST',
    '/api/twin/registry/assets',
    { asset_id: PV, site_id: SITE, name: 'Roof PV', type: 'solar_inverter', asset_class: 'inverter', parent_asset_id: METER, details: { capacity_kwp: 10 } },
    201,
  );
  await me.ok('PUT', `/api/hardware/ems/sites/${SITE}/settings`, SETTINGS);
  const imp = registers(5_000_000, IMP);
  const exp = registers(700_000, EXP);
  const gen = registers(9_000_000, GEN);
  const records = [];
  for (let i = 0; i <= 48; i++) {
    records.push({ device_id: METER, ts: iso(DAY + i * HH), import_kwh: imp[i] / 1000, export_kwh: exp[i] / 1000 });
    records.push({ device_id: PV, ts: iso(DAY + i * HH), generation_kwh: gen[i] / 1000 });
  }
  assert.equal((await me.ok('POST', '/api/telemetry/ingest', records)).stored, 98);
  clockOf(svc).advance(31_000);
  await svc.runDue();
}

test('a commercial site under EMS reporting: counters → ledger → report with lineage → PPA statement → carbon → exports → a signed webhook; another organisation sees none of it', async () => {
  const clock = clockOf(svc);
  const endpoint = await me.ok('POST', '/api/devtools/webhooks', { url: `${hook.url}/platform`, event_types: ['alert.raised'] }, 201);
  await seedDay();

  // ---- 1. The ledger: every half hour measured, consumption the balance.
  const ledger = await me.ok('GET', `/api/telemetry/sites/${SITE}/ledger?date=2026-11-24`);
  assert.deepEqual(
    ledger.half_hours.map((h: Record<string, string>) => [whOf(h.import_kwh), whOf(h.export_kwh), whOf(h.generation_kwh), whOf(h.consumption_kwh)]),
    LOAD.map((l, i) => [IMP[i], EXP[i], GEN[i], l]),
  );
  for (const h of ledger.half_hours) assert.deepEqual([h.basis.import, h.basis.export, h.basis.generation, h.gap], ['measured', 'measured', 'measured', false]);
  assert.deepEqual(
    [ledger.totals.import_kwh, ledger.totals.export_kwh, ledger.totals.generation_kwh, ledger.totals.consumption_kwh],
    ['24.800', '1.800', '13.800', '36.800'],
  );

  // ---- 2. The EMS report, every figure by hand, and its lineage down to the readings.
  const res = await me.call('GET', `/api/hardware/ems/report?site_id=${SITE}&date=2026-11-24`);
  assert.equal(res.statusCode, 200, res.body);
  const report = JSON.parse(res.body);
  const values = Object.fromEntries(report.figures.map((f: { key: string; value: unknown }) => [f.key, f.value]));
  assert.deepEqual(values, {
    import_kwh: '24.800',
    export_kwh: '1.800',
    generation_kwh: '13.800',
    consumption_kwh: '36.800',
    self_consumed_kwh: '12.000',
    self_consumption_ratio: 0.8696, // 12 / 13.8
    self_sufficiency_ratio: 0.3261, // 12 / 36.8
    data_completeness: 1,
    peak_demand_kw: 2, // 1.000 kWh in each of the four half hours 16:00-18:00, × 2
    capacity_utilisation: 0.4, // 2 / 5
    import_cost_gbp: penniesToGbp(mul('24.800', '24.50')), // 607.6p → £6.08
    export_income_gbp: penniesToGbp(mul('1.800', '15')), // 27p
    pv_expected_kwh: '9.183', // 10 kWp × 950 × 2.9 % ÷ 30 days
    pv_performance_ratio: 1.5028, // 13.8 / 9.183
    out_of_hours_consumption_kwh: '16.800', // 28 half hours × 0.6
    out_of_hours_share: 0.4565, // 16.8 / 36.8
  });
  assert.equal(values.import_cost_gbp, '6.08');
  const figure = Object.fromEntries(report.figures.map((f: { key: string }) => [f.key, f]));
  assert.equal(figure.import_kwh.basis, 'measured');
  assert.equal(figure.consumption_kwh.basis, 'calculated');
  // A one-day window: the figure's lineage goes straight to the day's half hours.
  const halfHours = await me.ok('GET', figure.import_cost_gbp.lineage_url);
  assert.equal(halfHours.figure.value, '6.08');
  assert.equal(halfHours.level, 'half_hour');
  assert.deepEqual(
    halfHours.settings.map((s: { name: string; value: string; source: string }) => [s.name, s.value, s.source]),
    [['tariff.import_p_per_kwh', '24.50', 'ems_site_settings']],
  );
  assert.deepEqual(
    halfHours.half_hours.map((h: { inputs: { import_kwh: string } }) => whOf(h.inputs.import_kwh)),
    IMP,
  );
  assert.ok(halfHours.half_hours.every((h: { present: boolean; gap: boolean }) => h.present && !h.gap));
  const noon = halfHours.half_hours[24];
  assert.equal(noon.period_start, '2026-11-24T12:00:00.000Z');
  const reading = await me.ok('GET', noon.reading_url);
  const meter = reading.assets.find((a: { asset_id: string }) => a.asset_id === METER);
  const flows = Object.fromEntries(meter.flows.map((f: { flow: string; kwh: string; basis: string; source: string }) => [f.flow, [f.kwh, f.basis, f.source]]));
  assert.deepEqual(flows.export, [kwhText(EXP[24]), 'measured', 'counter:export_kwh']);
  const inside = meter.readings.find((r: { position: string }) => r.position === 'inside');
  const afterR = meter.readings.find((r: { position: string }) => r.position === 'after');
  assert.equal(Math.round((afterR.counters.export_kwh - inside.counters.export_kwh) * 1000), EXP[24], 'the register difference is the half hour');
  const pvFlows = reading.assets.find((a: { asset_id: string }) => a.asset_id === PV).flows;
  assert.deepEqual(
    pvFlows.map((f: { flow: string; kwh: string }) => [f.flow, f.kwh]),
    [['generation', kwhText(GEN[24])]],
  );

  // ---- 3. The PPA statement: the generation of each UK day at the contract price, to the penny.
  const st = await me.ok('GET', `/api/telemetry/sites/${SITE}/ppa/statement?month=2026-11`);
  const ppa = st.statements.find((s: { contract: { contract_id: string } }) => s.contract.contract_id === 'ppa-roof');
  const line = ppa.lines.find((l: { date: string }) => l.date === '2026-11-24');
  assert.deepEqual(
    [line.energy_kwh, line.price_p_per_kwh, line.amount_gbp, line.data_basis],
    ['13.800', '9.8765', penniesToGbp(mul('13.800', '9.8765')), 'measured'],
  );
  assert.equal(line.amount_gbp, '1.36'); // 136.2957p
  assert.equal(ppa.total_energy_kwh, '13.800', 'the only day with data');
  assert.equal(ppa.total_amount_gbp, '1.36');

  // ---- 4. Carbon: the ledger's import and generation × the DESNZ factor in force (2025's for 2026: 0.17700).
  const scope2 = await me.ok('GET', `/api/hardware/ems/scope2?year=2026&site_id=${SITE}`);
  assert.equal(scope2.import_kwh, '24.800');
  assert.equal(scope2.location_based_kg, '4.390'); // 24.8 × 0.177 = 4.3896
  assert.equal(scope2.market_based_kg, '4.390', 'no instrument: the location factor stands in');
  const avoided = await me.ok('GET', `/api/hardware/ems/scope2/avoided?year=2026&site_id=${SITE}`);
  assert.deepEqual([avoided.generation_kwh, avoided.avoided_kg], ['13.800', '2.443']); // 13.8 × 0.177 = 2.4426
  const usage = await me.ok('GET', '/api/hardware/usage/carbon?period=day&from=2026-11-24&to=2026-11-24');
  assert.deepEqual(
    usage.buckets.map((b: Record<string, unknown>) => [b.label, b.import_kwh, b.consumption_kwh, b.generation_kwh, b.location_based_kg]),
    [['2026-11-24', '24.800', '36.800', '13.800', '4.390']],
  );

  // ---- 5. Exports: interval (CSV), energy summary and the organisation export (JSON Lines) equal the ledger.
  const csv = (await me.ok('GET', `/api/hardware/ems/exports/interval.csv?site_id=${SITE}&date=2026-11-24`)) as string;
  const [head, ...rows] = csv
    .split('\r\n')
    .filter(Boolean)
    .map((l) => l.split(','));
  const col = (r: string[], c: string) => r[head.indexOf(c)];
  assert.deepEqual(
    rows.map((r) => [whOf(col(r, 'import_kwh')), whOf(col(r, 'export_kwh')), whOf(col(r, 'generation_kwh')), whOf(col(r, 'consumption_kwh'))]),
    LOAD.map((l, i) => [IMP[i], EXP[i], GEN[i], l]),
  );
  const summary = await me.ok('GET', `/api/hardware/ems/exports/energy-summary?site_id=${SITE}&date=2026-11-24`);
  const s0 = summary.sites.find((x: { site_id: string }) => x.site_id === SITE);
  assert.deepEqual(
    [s0.import_kwh, s0.export_kwh, s0.generation_kwh, s0.consumption_kwh, s0.self_consumed_kwh],
    ['24.800', '1.800', '13.800', '36.800', '12.000'],
  );
  const job = await me.ok(
    'POST',
    '/api/organisations/export',
    { collections: ['energy.site_half_hours'], from: iso(DAY), to: iso(DAY + 86_400_000), format: 'jsonl' },
    202,
  );
  for (let i = 0; i < 5; i++) {
    await svc.runDue();
    if ((await me.ok('GET', `/api/organisations/export/jobs/${job.job_id}`)).status === 'completed') break;
    clock.advance(1_000);
  }
  const lines = String(await me.ok('GET', job.collection_paths['energy.site_half_hours'] + '?format=jsonl'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const exported = new Map(lines.filter((r) => r.site_id === SITE).map((r) => [new Date(r.slot).getTime(), r]));
  assert.equal(exported.size, 48);
  for (let i = 0; i < 48; i++) {
    const r = exported.get(DAY + i * HH);
    assert.deepEqual(
      [whOf(r.import_kwh), whOf(r.export_kwh), whOf(r.generation_kwh), whOf(r.consumption_kwh)],
      [IMP[i], EXP[i], GEN[i], LOAD[i]],
      `exported half hour ${i}`,
    );
  }
  assert.equal(sum(IMP), 24_800);

  // ---- 6. An alert on the site reaches the organisation's HTTPS endpoint as a signed alert.raised.
  const ev = await me.ok('POST', '/api/hardware/ems/alerts/evaluate');
  raisedPv = ev.raised.find((a: { source: string; asset_id: string }) => a.source === 'pv_underperformance' && a.asset_id === PV);
  const pvAlert = ev.raised.find((a: { source: string; asset_id: string }) => a.source === 'pv_underperformance' && a.asset_id === PV);
  assert.ok(pvAlert, '13.8 kWh against 10 kWp × 2.5 = 25 kWh expected');
  for (let i = 0; i < 4 && hook.requests.length === 0; i++) {
    await svc.runDue();
    clock.advance(15_000);
  }
  await hook.received(1, 'alert.raised at the HTTPS endpoint');
  const h = hook.requests[0];
  assert.ok(verifySignature(String(h.headers['platform-signature']), h.body, endpoint.secret, Math.floor(clock.now().getTime() / 1000)), 'signature verified');
  const event = JSON.parse(h.body);
  assert.deepEqual(
    [event.type, event.organisation_id, event.data.alert.id, event.data.alert.type, event.data.alert.source],
    ['alert.raised', ORG, pvAlert.id, 'pv_underperformance', 'ems'],
  );
  assert.equal(h.headers['platform-event-id'], event.id);

  // ---- 7. Another organisation sees none of it.
  const q = `site_id=${SITE}&date=2026-11-24`;
  for (const url of [
    `/api/telemetry/sites/${SITE}/ledger?date=2026-11-24`,
    `/api/hardware/ems/report?${q}`,
    `/api/hardware/ems/lineage?${q}&figure=import_cost_gbp`,
    `/api/hardware/ems/lineage/reading?site_id=${SITE}&period_start=2026-11-24T12:00:00.000Z`,
    `/api/telemetry/sites/${SITE}/ppa/statement?month=2026-11`,
    `/api/hardware/ems/scope2?year=2026&site_id=${SITE}`,
    `/api/hardware/ems/exports/interval.csv?${q}`,
    `/api/hardware/ems/sites/${SITE}/settings`,
  ])
    assertRefused(await them.call('GET', url), 404, 'Site not found', url);
  assertRefused(await them.call('GET', `/api/devtools/webhooks/${endpoint.id}/deliveries`), 404, /not found/i);
  const theirUsage = await them.ok('GET', '/api/hardware/usage/carbon?period=day&from=2026-11-24&to=2026-11-24');
  assert.ok(
    theirUsage.buckets.every((b: { import_kwh: string }) => b.import_kwh === '0.000'),
    'none of our import in their carbon',
  );
  assert.equal((await them.ok('GET', '/api/hardware/ems/alerts')).count, 0);
  assert.deepEqual((await them.ok('GET', '/api/devtools/webhooks')).endpoints ?? (await them.ok('GET', '/api/devtools/webhooks')).webhooks, []);
  const manifest = await them.ok('GET', '/api/organisations/export/manifest');
  for (const c of manifest.collections) assert.equal(c.row_count, 0, `${c.name} holds nothing of ours`);
});

// One figure, one source (issue 36): the pv_underperformance alert measures the inverter's
// generation as the energy module's ledger holds it (decision 0320), so a site metered by
// generation registers, as this one is, is measured at 13.800 kWh (the ledger, the EMS report and
// the PPA statement's figure), not 0 from power_kw means: 25 − 13.8 = 11.2 kWh short × 24.50p =
// 274.4p → £2.74/day, severity info (it said 0 kWh and £6.13/day, warning, before).
test('the pv_underperformance alert measures the generation the ledger shows (13.800 kWh), not 0', () => {
  assert.ok(raisedPv, 'the journey raised the alert');
  assert.equal(raisedPv.evidence.measured_kwh, 13.8);
  assert.equal(raisedPv.evidence.shortfall_kwh, 11.2);
  assert.equal(raisedPv.impact_gbp_per_day, penniesToGbp(mul('11.2', '24.50')));
  assert.equal(raisedPv.severity, 'info');
});
