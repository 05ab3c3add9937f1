// Journey: a fleet depot with two chargers lives Tuesday 24 November 2026 (GMT). Real OCPP 1.6J
// chargers (ocpp-rpc clients) connect to the service's own HTTP server and run two sessions
// (StartTransaction with meterStart, MeterValues, StopTransaction); the gateway uploads the site
// meter's half-hourly register. Each step checks the figures handed on:
//   hub (charge points, sessions) → session energy and cost to the penny (hand-worked) → the same
//   energy in the site's energy ledger (one session, one energy everywhere) → an EMS alert opens a
//   field work order → a signed settlement receipt of the session's energy; and a second
//   organisation sees none of it (not even the chargers' handshake under its URL).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/service.ts';
import { eventually } from '../helpers/eventually.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { charger, listen, type Charger } from '../hub/helpers.ts';
import { client, clockOf, HH, iso, kwhText, LONG, whOf, type Client } from './helpers.ts';

const ORG = 'journey-depot';
const OTHER = 'journey-depot-other';
const SITE = 'depot';
const H = '/api/csms/api/hub';
const DAY = Date.parse('2026-11-24T00:00:00Z');
const END = DAY + 86_400_000;
const METER = 'depot-meter';

let svc: TestService;
let base: string;
let me: Client;
/** The depot's ledger totals as the journey read them (checked again in the seam test below). */
let depotTotals: { gap_half_hours: number } | undefined;
let them: Client;
const open: Charger[] = [];

before(async () => {
  // The chargers boot before the day starts; the hub asks each for its register every half hour
  // (decision 0489), so the ledger has a measured reading of an idle charger.
  svc = await startTestService({ clock: new ManualClock('2026-11-23T23:50:00.000Z'), env: { HUB_METER_ALIGNED_SECONDS: '1800' } });
  await svc.createOrg(ORG, ['field']);
  await svc.createOrg(OTHER, ['field']);
  me = client(svc, await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: LONG }));
  them = client(svc, await svc.token({ orgId: OTHER, roles: ['ORG_ADMIN'], expiresIn: LONG }));
  base = await listen(svc);
});
after(async () => {
  await Promise.allSettled(open.map((c) => c.close({ force: true })));
  await svc?.stop();
});

// The two sessions, in the charger's register (Wh):
//  A: CP-A 08:00 meterStart 100 000 → 08:30 105 000 → 09:00 110 500 → stop 09:10 at 111 650: 11.650 kWh.
//  B: CP-B 15:45 meterStart 50 000 → 16:15 53 600 → stop 16:45 at 57 200: 7.200 kWh, straddling the
//     16:00-19:00 band.
// The ledger spreads each register advance over its interval in proportion to time, so per half hour
// (Wh): 08:00 5 000, 08:30 5 500, 09:00 1 150; 15:30 1 800 (15:45-16:00 of the 3 600 to 16:15),
// 16:00 1 800 + 1 800, 16:30 1 800.
const CHARGING_WH = new Map<number, number>([
  [Date.parse('2026-11-24T08:00:00Z'), 5000],
  [Date.parse('2026-11-24T08:30:00Z'), 5500],
  [Date.parse('2026-11-24T09:00:00Z'), 1150],
  [Date.parse('2026-11-24T15:30:00Z'), 1800],
  [Date.parse('2026-11-24T16:00:00Z'), 3600],
  [Date.parse('2026-11-24T16:30:00Z'), 1800],
]);
/** The depot's own load (lights, workshop) besides the chargers: 0.5 kWh every half hour. */
const BUILDING_WH = 500;

const connect = async (id: string, password: string, orgId = ORG) => {
  const c = charger({ base, orgId, id, password, protocol: 'ocpp1.6' });
  open.push(c);
  await c.connect();
  return c;
};
/**
 * What the hub asked each charger to configure (ChangeConfiguration), and the charger's answer:
 * these chargers take it, and from then on send their register at every half hour of the clock
 * when no session is open (during one, its periodic readings above).
 */
const configured = new Map<string, Record<string, string>>();
const configure = (c: Charger, id: string) => {
  configured.set(id, {});
  c.handle('ChangeConfiguration', ({ params }) => {
    configured.get(id)![params.key] = params.value;
    return { status: 'Accepted' };
  });
};
const alignedReading = (ts: string, wh: number) => ({
  connectorId: 1,
  meterValue: [{ timestamp: ts, sampledValue: [{ value: String(wh), measurand: 'Energy.Active.Import.Register', unit: 'Wh', context: 'Sample.Clock' }] }],
});
const reading = (txId: number, ts: string, wh: number) => ({
  connectorId: 1,
  transactionId: txId,
  meterValue: [{ timestamp: ts, sampledValue: [{ value: String(wh), measurand: 'Energy.Active.Import.Register', unit: 'Wh', context: 'Sample.Periodic' }] }],
});

test('a depot with chargers: OCPP sessions → hub energy and cost to the penny → the same energy in the ledger → alert → work order → settlement receipt; another organisation sees none of it', async () => {
  const clock = clockOf(svc);

  // ---- 1. The hub: a site with a published price schedule, two charge points (each also a registry asset).
  await me.ok(
    'POST',
    `${H}/sites`,
    { site_id: SITE, name: 'Fleet depot', postcode: 'M17 1AA', capacity_kw: 100, helpline_phone: '0800 123 4567', helpline_24_7: true },
    201,
  );
  await me.ok(
    'POST',
    `${H}/sites/${SITE}/price-schedules`,
    {
      energy_p_per_kwh: '45',
      bands: [{ start: '16:00', end: '19:00', energy_p_per_kwh: '70' }],
      time_p_per_minute: '0.5',
      connection_fee_p: '30',
      overstay_p_per_minute: '10',
      overstay_grace_minutes: 10,
      vat_percent: '20',
    },
    201,
  );
  await me.ok('POST', `${H}/sites/${SITE}/price-schedules/1/publish`);
  const cpA = await me.ok('POST', `${H}/sites/${SITE}/charge-points`, { charge_point_id: 'CP-A', max_power_kw: 22, connectors: 1, contactless: true }, 201);
  const cpB = await me.ok('POST', `${H}/sites/${SITE}/charge-points`, { charge_point_id: 'CP-B', max_power_kw: 22, connectors: 1, contactless: true }, 201);
  // The site meter, registered through the registry; the chargers sit under it.
  await me.ok('POST', '/api/twin/registry/assets', { asset_id: METER, site_id: SITE, name: 'Depot meter', type: 'meter', asset_class: 'site_meter' }, 201);
  for (const cp of ['CP-A', 'CP-B']) {
    const a = await me.ok('GET', `/api/twin/registry/assets/${cp}`);
    assert.deepEqual([a.site_id, a.asset_class], [SITE, 'charger']);
    await me.ok('PATCH', `/api/twin/registry/assets/${cp}`, { parent_asset_id: METER });
  }

  // The vans' cards, as the hub answers Authorize from the organisation's id tokens.
  await me.ok('POST', `${H}/id-tokens`, { id_token: 'VAN-0007', note: 'Van 7' }, 201);

  // ---- 2. Real chargers, real sessions.
  const a = await connect('CP-A', cpA.password);
  const b = await connect('CP-B', cpB.password);
  configure(a, 'CP-A');
  configure(b, 'CP-B');
  for (const c of [a, b]) {
    assert.equal((await c.call('BootNotification', { chargePointVendor: 'Wallbox', chargePointModel: 'Commander 2' })).status, 'Accepted');
    await c.call('StatusNotification', { connectorId: 1, errorCode: 'NoError', status: 'Available', timestamp: clock.now().toISOString() });
  }
  // After the boot the hub sets clock-aligned metering: two change-configuration commands, its own.
  const aligned = { ClockAlignedDataInterval: '1800', MeterValuesAlignedData: 'Energy.Active.Import.Register' };
  for (const cp of ['CP-A', 'CP-B']) {
    let commands: Record<string, unknown>[] = [];
    await eventually(async () => {
      commands = (await me.ok('GET', `${H}/charge-points/${cp}/commands`)).commands;
      return commands.length === 2 && commands.every((c) => c.status !== 'pending');
    }, `the hub's two configuration commands to ${cp}`);
    assert.deepEqual(
      commands
        .map((c) => [c.action, c.parameters, c.status, c.requested_by])
        .sort((x, y) => String((x[1] as { key: string }).key).localeCompare((y[1] as { key: string }).key)),
      Object.entries(aligned).map(([key, value]) => ['change-configuration', { key, value }, 'accepted', 'hub']),
    );
    assert.deepEqual(configured.get(cp), aligned);
  }
  // Idle chargers' registers on the half hours, as the clock passes them (none during a session).
  const registers = new Map([
    [a, 100_000],
    [b, 50_000],
  ]);
  const charging = new Set<Charger>();
  let nextAligned = DAY;
  const alignedUntil = async (t: number) => {
    for (; nextAligned <= t; nextAligned += HH) {
      clock.set(nextAligned);
      for (const [c, wh] of registers) if (!charging.has(c)) await c.call('MeterValues', alignedReading(iso(nextAligned), wh));
    }
  };
  await alignedUntil(Date.parse('2026-11-24T08:00:00Z'));
  charging.add(a);
  clock.set('2026-11-24T08:00:00Z');
  assert.equal((await a.call('Authorize', { idTag: 'VAN-0007' })).idTagInfo.status, 'Accepted');
  const txA = await a.call('StartTransaction', { connectorId: 1, idTag: 'VAN-0007', meterStart: 100000, timestamp: '2026-11-24T08:00:00Z' });
  clock.set('2026-11-24T08:30:00Z');
  await a.call('MeterValues', reading(txA.transactionId, '2026-11-24T08:30:00Z', 105000));
  clock.set('2026-11-24T09:00:00Z');
  await a.call('MeterValues', reading(txA.transactionId, '2026-11-24T09:00:00Z', 110500));
  clock.set('2026-11-24T09:10:00Z');
  await a.call('StopTransaction', { transactionId: txA.transactionId, meterStop: 111650, timestamp: '2026-11-24T09:10:00Z', reason: 'EVDisconnected' });
  charging.delete(a);
  registers.set(a, 111_650);
  nextAligned = Date.parse('2026-11-24T09:30:00Z');
  await alignedUntil(Date.parse('2026-11-24T15:30:00Z'));
  charging.add(b);
  clock.set('2026-11-24T15:45:00Z');
  const txB = await b.call('StartTransaction', { connectorId: 1, idTag: 'VAN-0011', meterStart: 50000, timestamp: '2026-11-24T15:45:00Z' });
  await alignedUntil(Date.parse('2026-11-24T16:00:00Z')); // A is idle
  clock.set('2026-11-24T16:15:00Z');
  await b.call('MeterValues', reading(txB.transactionId, '2026-11-24T16:15:00Z', 53600));
  await alignedUntil(Date.parse('2026-11-24T16:30:00Z'));
  clock.set('2026-11-24T16:45:00Z');
  await b.call('StopTransaction', { transactionId: txB.transactionId, meterStop: 57200, timestamp: '2026-11-24T16:45:00Z', reason: 'EVDisconnected' });
  charging.delete(b);
  registers.set(b, 57_200);
  await alignedUntil(END);

  // ---- 3. Hub: energy and cost to the penny.
  const txs = (await me.ok('GET', `${H}/sites/${SITE}/transactions`)).transactions;
  const sessionA = txs.find((t: { ocpp_transaction_id: string }) => t.ocpp_transaction_id === String(txA.transactionId));
  const sessionB = txs.find((t: { ocpp_transaction_id: string }) => t.ocpp_transaction_id === String(txB.transactionId));
  assert.deepEqual([sessionA.energy_kwh, sessionA.started_at, sessionA.stopped_at], ['11.650', '2026-11-24T08:00:00.000Z', '2026-11-24T09:10:00.000Z']);
  assert.deepEqual([sessionB.energy_kwh, sessionB.started_at, sessionB.stopped_at], ['7.200', '2026-11-24T15:45:00.000Z', '2026-11-24T16:45:00.000Z']);
  const costA = await me.ok('GET', `${H}/transactions/${sessionA.transaction_id}/cost`);
  // A by hand: 11.650 kWh × 45p = 524.25p; 70 minutes × 0.5p = 35p; connection 30p; no overstay (the
  // register rose until the stop). Net 589.25p → £5.89; VAT 20 % of 589p = 117.8p → £1.18; total £7.07.
  assert.deepEqual(
    costA.lines.map((l: Record<string, string>) => [l.kind, l.quantity, l.rate_p, l.amount_p]),
    [
      ['energy', '11.650', '45.0000', '524.2500'],
      ['time', '70.00', '0.5000', '35.0000'],
      ['connection', '1', '30.0000', '30.0000'],
    ],
  );
  assert.deepEqual([costA.energy_kwh, costA.net_gbp, costA.vat_gbp, costA.total_gbp], ['11.650', '5.89', '1.18', '7.07']);
  const costB = await me.ok('GET', `${H}/transactions/${sessionB.transaction_id}/cost`);
  // B by hand: the 3.600 kWh from 15:45 to 16:15 is spread over the half hour: 1.800 before 16:00 at
  // 45p = 81p, 1.800 after at 70p; with the 3.600 to 16:45, 5.400 kWh at 70p = 378p; 60 minutes ×
  // 0.5p = 30p; connection 30p. Net 519p → £5.19; VAT 103.8p → £1.04; total £6.23.
  assert.deepEqual(
    costB.lines.map((l: Record<string, string>) => [l.kind, l.quantity, l.rate_p, l.amount_p]),
    [
      ['energy', '1.800', '45.0000', '81.0000'],
      ['energy', '5.400', '70.0000', '378.0000'],
      ['time', '60.00', '0.5000', '30.0000'],
      ['connection', '1', '30.0000', '30.0000'],
    ],
  );
  assert.deepEqual([costB.energy_kwh, costB.net_gbp, costB.vat_gbp, costB.total_gbp], ['7.200', '5.19', '1.04', '6.23']);

  // ---- 4. The site meter's day arrives from the gateway; the ledger shows the same session energy.
  clock.set(END + 10_000);
  const meterRecords = [];
  let register = 41_000_000; // Wh
  for (let s = DAY; s <= END; s += HH) {
    meterRecords.push({ device_id: METER, ts: iso(s), import_kwh: register / 1000, export_kwh: 0 });
    register += BUILDING_WH + (CHARGING_WH.get(s) ?? 0);
  }
  assert.equal((await me.ok('POST', '/api/telemetry/ingest', meterRecords)).stored, 49);
  clock.advance(31_000);
  await svc.runDue();
  const ledger = await me.ok('GET', `/api/telemetry/sites/${SITE}/ledger?date=2026-11-24`);
  assert.equal(ledger.pending_refresh, false);
  depotTotals = ledger.totals;
  const perHalfHour = ledger.half_hours.map((h: Record<string, string>) => [h.period_start, whOf(h.import_kwh), whOf(h.consumption_kwh)]);
  const expected = [];
  for (let s = DAY; s < END; s += HH) expected.push([iso(s), BUILDING_WH + (CHARGING_WH.get(s) ?? 0), CHARGING_WH.get(s) ?? 0]);
  // One session, one energy: the chargers' consumption in the ledger is the hub's 11.650 + 7.200 kWh,
  // half hour by half hour as the registers advanced (issue 36 item 2: the interval from meterStart
  // to the first MeterValues must be there too).
  assert.deepEqual(perHalfHour, expected);
  assert.equal(ledger.totals.consumption_kwh, kwhText(whOf(sessionA.energy_kwh) + whOf(sessionB.energy_kwh)));
  assert.equal(ledger.totals.import_kwh, kwhText(48 * BUILDING_WH + 11650 + 7200));
  assert.equal(ledger.totals.residual_kwh, kwhText(48 * BUILDING_WH), 'the residual is the unmetered building load');
  for (const [cp, session, slots] of [
    ['CP-A', sessionA, ['08:00', '08:30', '09:00']],
    ['CP-B', sessionB, ['15:30', '16:00', '16:30']],
  ] as const) {
    let sum = 0;
    for (const hm of slots) {
      const p = await me.ok('GET', `/api/telemetry/ledger/period/${SITE}/2026-11-24T${hm}:00.000Z`);
      const c = p.contributions.find((x: { asset_id: string; flow: string }) => x.asset_id === cp && x.flow === 'consumption');
      assert.ok(c, `${cp} contributes at ${hm}`);
      assert.equal(c.basis, 'measured');
      sum += whOf(c.kwh);
    }
    assert.equal(kwhText(sum), session.energy_kwh, `${cp}: the ledger's session energy is the hub's`);
  }

  // ---- 5. An alert opens a work order: CP-A's connection drops at midnight and it sends nothing
  // more, while CP-B goes on sending its half-hourly register.
  await a.close({ force: true });
  for (let t = END + HH; t <= END + 3 * HH; t += HH) {
    clock.set(t);
    await b.call('MeterValues', alignedReading(iso(t), 57_200));
  }
  clock.set(END + 3 * HH + 60_000);
  const ev = await me.ok('POST', '/api/hardware/ems/alerts/evaluate');
  const silentA = ev.raised.find((x: { source: string; asset_id: string }) => x.source === 'asset_silence' && x.asset_id === 'CP-A');
  assert.ok(silentA, 'CP-A silent since midnight');
  assert.equal(silentA.since, '2026-11-25T00:00:00.000Z');
  assert.ok(!ev.raised.some((x: { source: string; asset_id: string }) => x.source === 'asset_silence' && x.asset_id === 'CP-B'), 'CP-B reports');
  assert.equal(silentA.impact_gbp_per_day, '0.00', 'a charger neither generates nor stores');
  const wo = await me.ok('POST', `/api/hardware/field/work-orders/from-alert/${silentA.id}`, undefined, 201);
  assert.deepEqual([wo.source, wo.site_id, wo.asset_id, wo.priority, wo.kind], [{ type: 'alert', id: silentA.id }, SITE, 'CP-A', 'medium', 'corrective']);
  const fieldAlerts = (await me.ok('GET', '/api/hardware/field/alerts')).alerts;
  assert.equal(fieldAlerts.find((x: { id: string }) => x.id === silentA.id).work_order_id, wo.id);

  // ---- 6. Settlement: a signed receipt of session A's energy, as the hub measured it.
  const receipt = await me.ok(
    'POST',
    '/api/vpp/vpp/settle/receipts/issue',
    {
      site_id: SITE,
      asset_id: 'CP-A',
      reference: `hub-tx-${sessionA.transaction_id}`,
      period_start: sessionA.started_at,
      period_end: sessionA.stopped_at,
      direction: 'turn_up',
      delivered_wh: whOf(sessionA.energy_kwh),
      source_basis: 'measured',
    },
    201,
  );
  assert.equal(receipt.delivered_kwh, '11.650');
  assert.equal(receipt.receipt_hash, createHash('sha256').update(receipt.signed_body, 'utf8').digest('hex'));
  const keys = (await me.ok('GET', '/api/vpp/vpp/settle/keys')).keys;
  const key = keys.find((k: { key_id: string }) => k.key_id === receipt.kid);
  assert.ok(
    verify(null, Buffer.from(receipt.signed_body, 'utf8'), createPublicKey(key.public_key_pem), Buffer.from(receipt.signature, 'base64url')),
    'the receipt verifies with the published key',
  );
  assert.equal(JSON.parse(receipt.signed_body).delivered_wh, 11650);
  assert.equal((await me.ok('GET', `/api/vpp/vpp/settle/receipts/${receipt.receipt_id}/verify`)).valid, true);

  // The organisation export carries the same sessions: register start and stop, so the same energy.
  const job = await me.ok('POST', '/api/organisations/export', { collections: ['hub.transactions'], format: 'jsonl' }, 202);
  for (let i = 0; i < 5; i++) {
    await svc.runDue();
    if ((await me.ok('GET', `/api/organisations/export/jobs/${job.job_id}`)).status === 'completed') break;
    clock.advance(1_000);
  }
  const exported = String(await me.ok('GET', `${job.collection_paths['hub.transactions']}?format=jsonl`))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    exported.map((r) => [r.transaction_id, r.started_at, r.stopped_at, kwhText(Number(r.meter_stop_wh) - Number(r.meter_start_wh))]).sort(),
    [sessionA, sessionB].map((t) => [t.transaction_id, t.started_at, t.stopped_at, t.energy_kwh]).sort(),
  );

  // ---- 7. Another organisation sees none of it.
  // Under another organisation's path the charger is unknown: the one answer of a failed sign-in (decision 0272).
  await assert.rejects(
    charger({ base, orgId: OTHER, id: 'CP-A', password: cpA.password, protocol: 'ocpp1.6' }).connect(),
    (e: { response?: { statusCode: number } }) => {
      assert.equal(e.response?.statusCode, 401);
      return true;
    },
  );
  assertRefused(await them.call('GET', `${H}/sites/${SITE}/transactions`), 404, /not found/i);
  assertRefused(await them.call('GET', `${H}/transactions/${sessionA.transaction_id}/cost`), 404, /not found/i);
  assertRefused(await them.call('GET', `/api/telemetry/sites/${SITE}/ledger?date=2026-11-24`), 404, 'Site not found');
  assertRefused(await them.call('GET', `/api/twin/registry/assets/CP-A`), 404, /not found/i);
  assertRefused(await them.call('GET', `/api/hardware/field/work-orders/${wo.id}`), 404, /not found/i);
  assertRefused(await them.call('GET', `/api/vpp/vpp/settle/receipts/${receipt.receipt_id}`), 404, /not found/i);
  assertRefused(await them.call('GET', `/api/organisations/export/jobs/${job.job_id}`), 404, /not found/i);
  assert.equal((await them.ok('GET', '/api/hardware/ems/alerts')).count, 0);
  assert.deepEqual((await them.ok('GET', '/api/hardware/field/alerts')).alerts, []);
  assert.deepEqual((await them.ok('GET', '/api/hardware/field/work-orders')).work_orders, []);
  assert.deepEqual((await them.ok('GET', '/api/vpp/vpp/settle/receipts')).receipts, []);
});

// Seam: docs/charging-hub.md sends readers to the charger's telemetry history for its meter values.
// Its `sessions` metric (kWh) was the mean of the cumulative register in each bucket (105 kWh for
// 08:00 and 111.075 kWh for 09:00) for a session the hub (and the ledger) count as 11.650 kWh. A
// bucket shows the energy delivered in it (decision 0323): 10.500 kWh from 08:00 to 09:00
// (100 000 → 110 500 Wh) and 1.150 kWh after; the summary is over the buckets, so its count × avg
// is the session's energy. With the clock-aligned readings the hub asks for (decision 0489), an
// idle hour is a bucket of 0 kWh (the register did not move), not a missing one.
test("seam: the charger history shows the energy delivered per hour (10.500 + 1.150 = the session's 11.650 kWh), not the register", async () => {
  const h = await me.ok('GET', '/api/telemetry/assets/ev/CP-A/history?metric=sessions&range=hourly');
  const series: [string, number][] = h.series.map((p: { t: string; v: number }) => [p.t, p.v]);
  assert.deepEqual(
    series.filter(([, v]) => v !== 0),
    [
      ['2026-11-24T08:00:00Z', 10.5],
      ['2026-11-24T09:00:00Z', 1.15],
    ],
  );
  assert.ok(series.length > 12, 'the idle hours are there, at 0 kWh');
  assert.equal(h.summary.max, 10.5);
  assert.equal(Math.round(h.summary.count * h.summary.avg * 1000), 11_650, "count × avg is the session's energy");
});

// The seam of issue 36: an OCPP charger sends meter values only during a session unless asked for
// clock-aligned ones, so between sessions the ledger had no reading of an idle charger and marked
// every half hour of the depot's day a gap (48 of 48). The hub now asks each charger at boot for its
// register every HUB_METER_ALIGNED_SECONDS (decision 0489): an idle charger's zero is measured (its
// register did not move), and the day is complete.
test('idle chargers count as zero in the depot ledger, not as missing (no gap half hours): their clock-aligned registers, which the hub asked for at boot', () => {
  assert.ok(depotTotals, 'the journey read the ledger');
  assert.equal(depotTotals.gap_half_hours, 0);
});
