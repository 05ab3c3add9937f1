// The charger side for real: ocpp-rpc clients as OCPP 1.6J and 2.0.1 chargers against the service's
// own HTTP server. Boot, heartbeat, status, authorise, full transactions with meter values and their
// cost against hand-worked figures, malformed frames, wrong password, unknown charger, a charger
// reconnecting mid-session, and load sharing seen at the chargers (demo realm, one charger held by
// a second instance so the command goes over the bus).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { deferred } from '../helpers/signal.ts';
import { eventually } from '../helpers/eventually.ts';
import { connect as netConnect } from 'node:net';
import { scrape, sample } from '../helpers/metrics.ts';
import { auth, charger, listen, siteWithCharger, type Charger } from './helpers.ts';

const ORG = 'demo-hub-ocpp';
const OTHER = 'hub-ocpp-other';
const H = '/api/csms/api/hub';
let svc: TestService;
let svc2: TestService;
let base: string;
let base2: string;
let token: string;
const clock = new ManualClock(new Date('2026-01-15T15:00:00.000Z'));
const open: Charger[] = [];
const connect = async (c: Charger) => {
  open.push(c);
  await c.connect();
  return c;
};

before(async () => {
  svc = await startTestService({ clock });
  svc2 = await startTestService({ shareWith: svc, clock });
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  token = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: '400d' });
  base = await listen(svc);
  base2 = await listen(svc2);
  await svc.request({ method: 'POST', url: `${H}/sites`, headers: auth(token), payload: { site_id: 'ws1', name: 'Motorway services', capacity_kw: 22 } });
  const sched = await svc.request({
    method: 'POST',
    url: `${H}/sites/ws1/price-schedules`,
    headers: auth(token),
    payload: {
      energy_p_per_kwh: '50',
      bands: [{ start: '16:00', end: '19:00', energy_p_per_kwh: '80' }],
      time_p_per_minute: '1',
      connection_fee_p: '30',
      overstay_p_per_minute: '10',
      overstay_grace_minutes: 10,
      vat_percent: '20',
    },
  });
  assert.equal(sched.statusCode, 201, sched.body);
  const pub = await svc.request({ method: 'POST', url: `${H}/sites/ws1/price-schedules/1/publish`, headers: auth(token) });
  assert.equal(pub.statusCode, 200, pub.body);
  // The cards these chargers present (every tag is checked against the organisation's id tokens).
  for (const id_token of ['04A1B2C3D4', 'TOKEN1']) {
    const t = await svc.request({ method: 'POST', url: `${H}/id-tokens`, headers: auth(token), payload: { id_token } });
    assert.equal(t.statusCode, 201, t.body);
  }
});

after(async () => {
  await Promise.allSettled(open.map((c) => c.close({ force: true })));
  await svc2?.stop();
  await svc?.stop();
});

describe('OCPP 1.6J', () => {
  let pw: string;
  before(async () => {
    pw = (await siteWithCharger(svc, token, { site_id: 'ws1', name: 'x' }, { charge_point_id: 'CP16', max_power_kw: 22, contactless: true })).password;
  });

  test('boot, heartbeat, status, authorise, a full transaction with meter values, its cost as worked by hand, telemetry of the charger asset', async () => {
    const cp = await connect(charger({ base, orgId: ORG, id: 'CP16', password: pw, protocol: 'ocpp1.6' }));
    assert.equal(cp.protocol, 'ocpp1.6');
    const boot = await cp.call('BootNotification', { chargePointVendor: 'VendorX', chargePointModel: 'Model7', firmwareVersion: '1.2.3' });
    assert.equal(boot.status, 'Accepted');
    assert.equal(boot.interval, 300);
    assert.equal(boot.currentTime, '2026-01-15T15:00:00.000Z');
    assert.equal((await cp.call('Heartbeat', {})).currentTime, '2026-01-15T15:00:00.000Z');
    assert.deepEqual(await cp.call('StatusNotification', { connectorId: 1, errorCode: 'NoError', status: 'Available', timestamp: '2026-01-15T15:00:00Z' }), {});
    assert.equal((await cp.call('Authorize', { idTag: '04A1B2C3D4' })).idTagInfo.status, 'Accepted');

    // 15:30 start at 100 000 Wh; 10 kWh by 16:00 (50 p; 20 kW, within the charger's 22), 8 kWh in the 16:00-19:00 band (80 p);
    // nothing after 16:30; stop at 17:00: 90 minutes at 1 p, 30 p connection, 20 minutes of
    // overstay beyond 10 minutes' grace at 10 p. Net 500 + 640 + 90 + 30 + 200 = 1460 p; VAT 292 p.
    clock.set('2026-01-15T15:30:00Z');
    const start = await cp.call('StartTransaction', { connectorId: 1, idTag: '04A1B2C3D4', meterStart: 100000, timestamp: '2026-01-15T15:30:00Z' });
    assert.equal(start.idTagInfo.status, 'Accepted');
    assert.equal(typeof start.transactionId, 'number');
    await cp.call('StatusNotification', { connectorId: 1, errorCode: 'NoError', status: 'Charging', timestamp: '2026-01-15T15:30:00Z' });
    clock.set('2026-01-15T16:00:00Z');
    const mv = (ts: string, wh: number) => ({
      connectorId: 1,
      transactionId: start.transactionId,
      meterValue: [
        {
          timestamp: ts,
          sampledValue: [
            { value: String(wh), measurand: 'Energy.Active.Import.Register', unit: 'Wh' },
            { value: '7.2', measurand: 'Power.Active.Import', unit: 'kW' },
          ],
        },
      ],
    });
    assert.deepEqual(await cp.call('MeterValues', mv('2026-01-15T16:00:00Z', 110000)), {});

    // The charger drops mid-session and comes back (a new WebSocket); the transaction carries on.
    await cp.close({ force: true });
    // The service notices the drop on its own (the connection's close event): nothing to await but its state.
    await eventually(async () => {
      const site = json(await svc.request({ method: 'GET', url: `${H}/sites/ws1`, headers: auth(token) }));
      const v = site.charge_points.find((c: any) => c.charge_point_id === 'CP16');
      return v.connected === false && v.connector_status[0]?.ocpi_status === 'UNKNOWN';
    }, 'the dropped charger shown not connected, its connector UNKNOWN');
    clock.set('2026-01-15T16:30:00Z');
    const again = await connect(charger({ base, orgId: ORG, id: 'CP16', password: pw, protocol: 'ocpp1.6' }));
    await again.call('BootNotification', { chargePointVendor: 'VendorX', chargePointModel: 'Model7' });
    await again.call('StatusNotification', { connectorId: 1, errorCode: 'NoError', status: 'Charging', timestamp: '2026-01-15T16:30:00Z' });
    await again.call('MeterValues', mv('2026-01-15T16:30:00Z', 118000));
    clock.set('2026-01-15T17:00:00Z');
    const stop = await again.call('StopTransaction', {
      transactionId: start.transactionId,
      meterStop: 118000,
      timestamp: '2026-01-15T17:00:00Z',
      reason: 'EVDisconnected',
    });
    assert.deepEqual(stop, {}); // stopped without a tag: no idTagInfo

    const txs = json(await svc.request({ method: 'GET', url: `${H}/sites/ws1/transactions`, headers: auth(token) }));
    const tx = txs.transactions.find((t: any) => t.ocpp_transaction_id === String(start.transactionId));
    assert.equal(tx.energy_kwh, '18.000');
    assert.equal(tx.stopped_at, '2026-01-15T17:00:00.000Z');
    assert.equal(tx.stop_reason, 'EVDisconnected');
    assert.equal(tx.schedule_version, 1);
    const cost = json(await svc.request({ method: 'GET', url: `${H}/transactions/${tx.transaction_id}/cost`, headers: auth(token) }));
    assert.equal(cost.status, 'stopped');
    assert.deepEqual(
      cost.lines.map((l: any) => [l.kind, l.quantity, l.rate_p, l.amount_p]),
      [
        ['energy', '10.000', '50.0000', '500.0000'],
        ['energy', '8.000', '80.0000', '640.0000'],
        ['time', '90.00', '1.0000', '90.0000'],
        ['connection', '1', '30.0000', '30.0000'],
        ['overstay', '20.00', '10.0000', '200.0000'],
      ],
    );
    assert.deepEqual([cost.net_gbp, cost.vat_gbp, cost.total_gbp, cost.vat_percent], ['14.60', '2.92', '17.52', '20.00']);
    assert.equal(cost.data_basis.basis, 'calculated');

    // Meter values are telemetry of the charger's registry asset.
    const asset = json(await svc.request({ method: 'GET', url: '/api/twin/registry/assets/CP16', headers: auth(token) }));
    assert.equal(asset.last_reported_at, '2026-01-15T17:00:00.000Z');
    // One session, one energy: the site's ledger counts the same 18 kWh as the hub, the first
    // interval from meterStart (100 000 Wh at 15:30) included (issue 36).
    clock.advance(31_000);
    await svc.runDue();
    const ledger = json(await svc.request({ method: 'GET', url: '/api/telemetry/sites/ws1/ledger?date=2026-01-15', headers: auth(token) }));
    assert.equal(ledger.totals.consumption_kwh, '18.000');
    assert.deepEqual(
      ledger.half_hours.filter((h: any) => h.consumption_kwh !== '0.000' && h.consumption_kwh !== null).map((h: any) => [h.period_start, h.consumption_kwh]),
      [
        ['2026-01-15T15:30:00.000Z', '10.000'],
        ['2026-01-15T16:00:00.000Z', '8.000'],
      ],
    );

    // The site shows the charger's boot and its connector's last status.
    const site = json(await svc.request({ method: 'GET', url: `${H}/sites/ws1`, headers: auth(token) }));
    const view = site.charge_points.find((c: any) => c.charge_point_id === 'CP16');
    assert.equal(view.vendor, 'VendorX');
    assert.equal(view.connected, true);
    assert.equal(view.ocpp_version, 'ocpp1.6');
    assert.deepEqual(
      view.connector_status.map((c: any) => [c.connector_id, c.status, c.ocpi_status]),
      [[1, 'Charging', 'CHARGING']],
    );
  });

  test('malformed frames get a CALLERROR and the connection stays; an unknown action is NotImplemented', async () => {
    const loose = await connect(charger({ base, orgId: ORG, id: 'CP16', password: pw, protocol: 'ocpp1.6', strict: false }));
    await assert.rejects(loose.call('StatusNotification', { connectorId: 'one', errorCode: 'NoError', status: 'Available' }), (e: any) => {
      assert.equal(e.rpcErrorCode, 'TypeConstraintViolation');
      return true;
    });
    await assert.rejects(loose.call('BootNotification', { chargePointModel: 'no vendor' }), (e: any) => {
      assert.equal(e.rpcErrorCode, 'OccurenceConstraintViolation'); // 1.6's spelling (decision 0435)
      return true;
    });
    await assert.rejects(loose.call('FooBar', {}), (e: any) => {
      assert.equal(e.rpcErrorCode, 'NotImplemented');
      return true;
    });
    // A frame that is not an RPC message at all: answered, not dropped.
    loose.sendRaw('[2, "x1"');
    assert.ok((await loose.call('Heartbeat', {})).currentTime, 'the connection still answers after malformed frames');
  });

  test('a wrong password, a charger unknown to the organisation and an unknown organisation get one answer (401)', async () => {
    const refusedWith = async (c: Charger) => {
      let status: number | undefined;
      await assert.rejects(c.connect(), (e: any) => ((status = e.response?.statusCode), true));
      return status;
    };
    const answers = [
      await refusedWith(charger({ base, orgId: ORG, id: 'CP16', password: 'not-the-password-xx', protocol: 'ocpp1.6' })),
      await refusedWith(charger({ base, orgId: ORG, id: 'NOPE', password: pw, protocol: 'ocpp1.6' })),
      // The same charge point id under another organisation's endpoint is unknown there.
      await refusedWith(charger({ base, orgId: OTHER, id: 'CP16', password: pw, protocol: 'ocpp1.6' })),
      await refusedWith(charger({ base, orgId: 'no-such-organisation', id: 'CP16', password: pw, protocol: 'ocpp1.6' })),
    ];
    assert.deepEqual(answers, [401, 401, 401, 401]);
  });
});

describe('OCPP 2.0.1', () => {
  let pw: string;
  before(async () => {
    pw = (await siteWithCharger(svc, token, { site_id: 'ws1', name: 'x' }, { charge_point_id: 'CP201', max_power_kw: 50, contactless: true })).password;
  });

  test('boot, heartbeat, status, authorise, TransactionEvent Started/Updated/Ended with meter values, its cost as worked by hand', async () => {
    clock.set('2026-01-16T10:00:00Z');
    const cp = await connect(charger({ base, orgId: ORG, id: 'CP201', password: pw, protocol: 'ocpp2.0.1' }));
    assert.equal(cp.protocol, 'ocpp2.0.1');
    const boot = await cp.call('BootNotification', { reason: 'PowerUp', chargingStation: { model: 'Rapid50', vendorName: 'VendorY' } });
    assert.deepEqual([boot.status, boot.interval], ['Accepted', 300]);
    assert.ok((await cp.call('Heartbeat', {})).currentTime);
    await cp.call('StatusNotification', { timestamp: '2026-01-16T10:00:00Z', connectorStatus: 'Occupied', evseId: 1, connectorId: 1 });
    assert.equal((await cp.call('Authorize', { idToken: { idToken: 'TOKEN1', type: 'ISO14443' } })).idTokenInfo.status, 'Accepted');
    const reg = (ts: string, wh: number) => [{ timestamp: ts, sampledValue: [{ value: wh, measurand: 'Energy.Active.Import.Register' }] }];
    const ev = (eventType: string, ts: string, seqNo: number, wh: number, extra: object = {}) => ({
      eventType,
      timestamp: ts,
      triggerReason: eventType === 'Started' ? 'Authorized' : eventType === 'Ended' ? 'EVDeparted' : 'MeterValuePeriodic',
      seqNo,
      transactionInfo: { transactionId: 'TX-201-A', ...(eventType === 'Ended' && { stoppedReason: 'EVDisconnected' }) },
      evse: { id: 1, connectorId: 1 },
      meterValue: reg(ts, wh),
      ...extra,
    });
    // 10:00-10:30, 5 000 -> 20 000 Wh, all outside the band: 15 kWh x 50 p = 750 p, 30 minutes at
    // 1 p = 30 p, connection 30 p; the energy rose to the end, so no overstay. Net 810 p, VAT 162 p.
    assert.equal(
      (await cp.call('TransactionEvent', ev('Started', '2026-01-16T10:00:00Z', 0, 5000, { idToken: { idToken: 'TOKEN1', type: 'ISO14443' } }))).idTokenInfo
        .status,
      'Accepted',
    );
    clock.set('2026-01-16T10:15:00Z');
    assert.deepEqual(await cp.call('TransactionEvent', ev('Updated', '2026-01-16T10:15:00Z', 1, 12000)), {});
    clock.set('2026-01-16T10:30:00Z');
    await cp.call('TransactionEvent', ev('Ended', '2026-01-16T10:30:00Z', 2, 20000));
    const txs = json(await svc.request({ method: 'GET', url: `${H}/sites/ws1/transactions`, headers: auth(token) }));
    const tx = txs.transactions.find((t: any) => t.ocpp_transaction_id === 'TX-201-A');
    assert.deepEqual([tx.ocpp_version, tx.energy_kwh, tx.stop_reason], ['ocpp2.0.1', '15.000', 'EVDisconnected']);
    const cost = json(await svc.request({ method: 'GET', url: `${H}/transactions/${tx.transaction_id}/cost`, headers: auth(token) }));
    assert.deepEqual([cost.net_gbp, cost.vat_gbp, cost.total_gbp, cost.overstay_minutes], ['8.10', '1.62', '9.72', '0.00']);
  });

  test('a schema-invalid 2.0.1 call gets a CALLERROR and the connection stays', async () => {
    const loose = await connect(charger({ base, orgId: ORG, id: 'CP201', password: pw, protocol: 'ocpp2.0.1', strict: false }));
    await assert.rejects(
      loose.call('StatusNotification', { timestamp: '2026-01-16T10:00:00Z', connectorStatus: 'Sleeping', evseId: 1, connectorId: 1 }),
      (e: any) => {
        assert.equal(e.rpcErrorCode, 'PropertyConstraintViolation'); // a value outside the enumeration (decision 0435)
        return true;
      },
    );
    assert.ok((await loose.call('Heartbeat', {})).currentTime);
  });
});

describe('load sharing', () => {
  test('splits the capacity across open sessions and the chargers receive SetChargingProfile, one through the instance that holds it', async () => {
    clock.set('2026-01-17T09:00:00Z');
    const a = await siteWithCharger(svc, token, { site_id: 'ls', name: 'Depot', capacity_kw: 22 }, { charge_point_id: 'LS16', max_power_kw: 7 });
    const b = await siteWithCharger(svc, token, { site_id: 'ls', name: 'Depot' }, { charge_point_id: 'LS201', max_power_kw: 50 });
    const got16 = deferred<any>();
    const got201 = deferred<any>();
    const c16 = await connect(charger({ base, orgId: ORG, id: 'LS16', password: a.password, protocol: 'ocpp1.6' }));
    c16.handle('SetChargingProfile', ({ params }: any) => {
      got16.resolve(params);
      return { status: 'Accepted' };
    });
    // This one is held by the second instance: the command goes over the bus.
    const c201 = await connect(charger({ base: base2, orgId: ORG, id: 'LS201', password: b.password, protocol: 'ocpp2.0.1' }));
    c201.handle('SetChargingProfile', ({ params }: any) => {
      got201.resolve(params);
      return { status: 'Accepted' };
    });
    const t16 = await c16.call('StartTransaction', { connectorId: 1, idTag: 'A', meterStart: 0, timestamp: '2026-01-17T09:00:00Z' });
    await c201.call('TransactionEvent', {
      eventType: 'Started',
      timestamp: '2026-01-17T09:00:00Z',
      triggerReason: 'Authorized',
      seqNo: 0,
      transactionInfo: { transactionId: 'LS-B' },
      evse: { id: 1, connectorId: 1 },
    });

    const res = await svc.request({ method: 'POST', url: `${H}/sites/ls/load-sharing`, headers: auth(token), payload: {} });
    assert.equal(res.statusCode, 200, res.body);
    const body = json(res);
    const by = Object.fromEntries(body.sessions.map((s: any) => [s.charge_point_id, s]));
    assert.deepEqual([by.LS16.limit_kw, by.LS16.delivery, by.LS16.charger_status], [7, 'local', 'Accepted']);
    assert.deepEqual([by.LS201.limit_kw, by.LS201.delivery, by.LS201.charger_status], [15, 'routed', 'Accepted']);
    const p16 = await got16.promise;
    assert.equal(p16.csChargingProfiles.transactionId, t16.transactionId);
    assert.deepEqual(p16.csChargingProfiles.chargingSchedule.chargingSchedulePeriod, [{ startPeriod: 0, limit: 7000 }]);
    const p201 = await got201.promise;
    assert.equal(p201.chargingProfile.transactionId, 'LS-B');
    assert.deepEqual(p201.chargingProfile.chargingSchedule[0].chargingSchedulePeriod, [{ startPeriod: 0, limit: 15000 }]);
  });

  test('outside the demo realm: 403 Demo realm only; a site without capacity: 409', async () => {
    const prodOrg = 'hub-prod-ls';
    await svc.createOrg(prodOrg);
    const prod = await svc.token({ orgId: prodOrg, roles: ['ORG_ADMIN'], expiresIn: '400d' });
    await svc.request({ method: 'POST', url: `${H}/sites`, headers: auth(prod), payload: { site_id: 'p1', name: 'Prod', capacity_kw: 10 } });
    assertRefused(await svc.request({ method: 'POST', url: `${H}/sites/p1/load-sharing`, headers: auth(prod), payload: {} }), 403, 'Demo realm only');
    await svc.request({ method: 'POST', url: `${H}/sites`, headers: auth(token), payload: { site_id: 'nocap', name: 'No capacity' } });
    assertRefused(
      await svc.request({ method: 'POST', url: `${H}/sites/nocap/load-sharing`, headers: auth(token), payload: {} }),
      409,
      "No capacity to share: set the site's capacity_kw or send capacity_kw",
    );
  });
});

describe('reliability from status history', () => {
  test("a rapid connector's reported statuses give its PCPR figure; offline time is excluded; compliance follows", async () => {
    clock.set('2026-02-01T00:00:00Z');
    const { password } = await siteWithCharger(
      svc,
      token,
      { site_id: 'rel', name: 'Rapid hub' },
      { charge_point_id: 'REL1', max_power_kw: 60, contactless: true },
    );
    const cp = await connect(charger({ base, orgId: ORG, id: 'REL1', password, protocol: 'ocpp2.0.1' }));
    const status = (s: string) => cp.call('StatusNotification', { timestamp: clock.now().toISOString(), connectorStatus: s, evseId: 1, connectorId: 1 });
    await status('Available');
    clock.advance(99 * 3_600_000);
    await status('Faulted');
    clock.advance(3_600_000);
    await status('Available');
    const rel = json(await svc.request({ method: 'GET', url: `${H}/sites/rel/reliability`, headers: auth(token) }));
    assert.deepEqual(
      rel.connectors.map((c: any) => [c.connector_id, c.reliability_percent, c.reliable_hours, c.unreliable_hours, c.meets_target]),
      [[1, 99, 99, 1, true]],
    );
    assert.deepEqual([rel.site.rapid_reliability_percent, rel.site.meets_target], [99, true]);

    // Two hours offline (excluded), then faulted for two hours: 99 / (99 + 3) = 97.05% (truncated).
    await cp.close({ force: true });
    await eventually(async () => {
      const site = json(await svc.request({ method: 'GET', url: `${H}/sites/rel`, headers: auth(token) }));
      return site.charge_points[0].connector_status[0]?.ocpi_status === 'UNKNOWN';
    }, "the dropped charger's connector UNKNOWN");
    clock.advance(2 * 3_600_000);
    const back = await connect(charger({ base, orgId: ORG, id: 'REL1', password, protocol: 'ocpp2.0.1' }));
    await back.call('StatusNotification', { timestamp: clock.now().toISOString(), connectorStatus: 'Faulted', evseId: 1, connectorId: 1 });
    clock.advance(2 * 3_600_000);
    const after = json(await svc.request({ method: 'GET', url: `${H}/sites/rel/reliability`, headers: auth(token) }));
    assert.deepEqual(
      after.connectors.map((c: any) => [c.reliability_percent, c.reliable_hours, c.unreliable_hours, c.excluded_hours, c.meets_target]),
      [[97.05, 99, 3, 2, false]],
    );
    const comp = json(await svc.request({ method: 'GET', url: `${H}/sites/rel/compliance`, headers: auth(token) }));
    const duty = comp.duties.find((d: any) => d.duty === 'reliability_99' && d.charge_point_id === 'REL1');
    assert.deepEqual([duty.applies, duty.result], [true, 'not_met']);
    assert.match(duty.evidence, /connector 1 97\.05%/);
  });
});

test('quote with overstay: connected for the duration plus the overstay, overstay charged beyond the grace period', async () => {
  // 10 kWh over 60 minutes at 50 p = 500 p; 85 minutes connected at 1 p = 85 p; connection 30 p;
  // 25 minutes' overstay less 10 grace = 15 at 10 p = 150 p. Net 765 p, VAT 153 p, total 918 p.
  const q = json(
    await svc.request({
      method: 'GET',
      url: `${H}/sites/ws1/quote?energy_kwh=10&duration_minutes=60&overstay_minutes=25&start=2026-01-20T10:00:00Z`,
      headers: auth(token),
    }),
  );
  assert.deepEqual(
    q.lines.map((l: any) => [l.kind, l.quantity, l.amount_p]),
    [
      ['energy', '10.000', '500.0000'],
      ['time', '85.00', '85.0000'],
      ['connection', '1', '30.0000'],
      ['overstay', '15.00', '150.0000'],
    ],
  );
  assert.deepEqual([q.net_gbp, q.vat_gbp, q.total_gbp, q.schedule_version], ['7.65', '1.53', '9.18', 1]);
});

test('a WebSocket upgrade to any other path is ended, not left hanging', async () => {
  // ocpp-rpc's client appends the identity: this asks to upgrade /api/csms/api/hub/sites.
  const stray = charger({ base: `${base}/api/csms/api/hub`, orgId: 'x', id: 'sites', password: 'whatever-password', protocol: 'ocpp1.6' });
  await assert.rejects(stray.connect());
});

describe('meter values from chargers: plausibility (issue 35)', () => {
  let pw: string;
  before(async () => {
    await svc.request({ method: 'POST', url: `${H}/sites`, headers: auth(token), payload: { site_id: 'plaus', name: 'Rapid plaza' } });
    await svc.request({
      method: 'POST',
      url: `${H}/sites/plaus/price-schedules`,
      headers: auth(token),
      payload: { energy_p_per_kwh: '50', bands: [{ start: '16:00', end: '19:00', energy_p_per_kwh: '80' }] },
    });
    await svc.request({ method: 'POST', url: `${H}/sites/plaus/price-schedules/1/publish`, headers: auth(token) });
    pw = (await siteWithCharger(svc, token, { site_id: 'plaus', name: 'x' }, { charge_point_id: 'P150', max_power_kw: 150 })).password;
  });
  const txOf = async (ocppId: string) =>
    json(await svc.request({ method: 'GET', url: `${H}/sites/plaus/transactions?limit=200`, headers: auth(token) })).transactions.find(
      (t: any) => t.ocpp_transaction_id === ocppId,
    );
  const costOf = async (txId: string) => {
    const r = await svc.request({ method: 'GET', url: `${H}/transactions/${txId}/cost`, headers: auth(token) });
    assert.equal(r.statusCode, 200, r.body);
    return json(r);
  };
  const reasons = (a: any[]) => Object.fromEntries(a.map((x) => [x.reason, x.samples]));

  test('a 90 s session on a 150 kW charger: an absurd register, a register going backwards, a sample before the start, one dated 2999 and a stop beyond rated power are refused or flagged; list and cost agree on the energy', async () => {
    clock.set('2026-03-02T10:00:00Z');
    const cp = await connect(charger({ base, orgId: ORG, id: 'P150', password: pw, protocol: 'ocpp1.6' }));
    const start = await cp.call('StartTransaction', { connectorId: 1, idTag: 'CARD', meterStart: 0, timestamp: '2026-03-02T10:00:00Z' });
    const reg = (ts: string, value: string) => ({ timestamp: ts, sampledValue: [{ value, measurand: 'Energy.Active.Import.Register', unit: 'Wh' }] });
    clock.set('2026-03-02T10:01:00Z');
    await cp.call('MeterValues', {
      connectorId: 1,
      transactionId: start.transactionId,
      meterValue: [
        reg('2026-03-02T10:00:30Z', '9000000000000000000'), // absurd register: refused
        reg('2026-03-02T09:59:00Z', '500'), // before the start: refused
        reg('2999-01-01T00:00:00Z', '700'), // ahead of the clock: refused
        reg('2026-03-02T10:00:45Z', '1500'), // 1.5 kWh in 45 s at 150 kW: accepted
        reg('2026-03-02T10:01:00Z', '1200'), // backwards: flagged
      ],
    });
    clock.set('2026-03-02T10:01:30Z');
    // 25 kWh at the stop, 45 s after the last accepted 1.5 kWh: beyond 150 kW; the stop keeps 1.5 kWh.
    await cp.call('StopTransaction', { transactionId: start.transactionId, meterStop: 25000, timestamp: '2026-03-02T10:01:30Z', reason: 'Local' });
    const tx = await txOf(String(start.transactionId));
    assert.deepEqual([tx.meter_start_wh, tx.meter_stop_wh, tx.energy_kwh], [0, 1500, '1.500']);
    assert.deepEqual(reasons(tx.meter_anomalies), {
      ahead_of_clock: 1,
      outside_transaction: 1,
      register_out_of_range: 1,
      register_backwards: 1,
      beyond_rated_power: 1,
    });
    assert.equal(tx.meter_anomalies[0].first_received_at, '2026-03-02T10:01:00.000Z');
    const cost = await costOf(tx.transaction_id);
    assert.equal(cost.energy_kwh, tx.energy_kwh);
    assert.deepEqual([cost.net_gbp, cost.vat_gbp, cost.total_gbp, cost.duration_minutes], ['0.75', '0.15', '0.90', '1.50']);
    assert.deepEqual(cost.meter_anomalies, tx.meter_anomalies);
  });

  test('a MeterValues sample dated 2999 in an open session: refused, and the cost covers the session as it is (not 973 years of hours)', async () => {
    clock.set('2026-03-03T15:00:00Z');
    const cp = await connect(charger({ base, orgId: ORG, id: 'P150', password: pw, protocol: 'ocpp1.6' }));
    const start = await cp.call('StartTransaction', { connectorId: 1, idTag: 'CARD', meterStart: 1000, timestamp: '2026-03-03T15:00:00Z' });
    clock.set('2026-03-03T16:00:00Z');
    const mv = (ts: string, wh: number) => ({
      connectorId: 1,
      transactionId: start.transactionId,
      meterValue: [{ timestamp: ts, sampledValue: [{ value: String(wh), measurand: 'Energy.Active.Import.Register', unit: 'Wh' }] }],
    });
    await cp.call('MeterValues', mv('2026-03-03T16:00:00Z', 51000));
    await cp.call('MeterValues', mv('2999-03-03T16:00:00Z', 52000));
    const tx = await txOf(String(start.transactionId));
    assert.deepEqual([tx.energy_kwh, reasons(tx.meter_anomalies)], ['50.000', { ahead_of_clock: 1 }]);
    const cost = await costOf(tx.transaction_id);
    assert.deepEqual([cost.status, cost.energy_kwh, cost.duration_minutes, cost.net_gbp], ['open', '50.000', '60.00', '25.00']);
  });

  test('the cost walks band edges, not hours: two samples five years apart, across ten clock changes, cost as worked by hand', async () => {
    clock.set('2026-03-04T12:00:00Z');
    const cp = await connect(charger({ base, orgId: ORG, id: 'P150', password: pw, protocol: 'ocpp2.0.1' }));
    const ev = (eventType: string, ts: string, seqNo: number, wh: number) => ({
      eventType,
      timestamp: ts,
      triggerReason: 'MeterValuePeriodic',
      seqNo,
      transactionInfo: { transactionId: 'LONG' },
      evse: { id: 1, connectorId: 1 },
      meterValue: [{ timestamp: ts, sampledValue: [{ value: wh, measurand: 'Energy.Active.Import.Register' }] }],
    });
    await cp.call('TransactionEvent', ev('Started', '2026-03-04T12:00:00Z', 0, 0));
    // Five years on (1826 days, 43 824 hours) the register reads 43 824 kWh (1 kW on average).
    clock.set('2031-03-04T12:00:00Z');
    await cp.call('TransactionEvent', ev('Updated', '2031-03-04T12:00:00Z', 1, 43_824_000));
    const reader = await svc.token({ orgId: ORG, roles: ['VIEWER'] });
    const tx = json(await svc.request({ method: 'GET', url: `${H}/sites/plaus/transactions?limit=200`, headers: auth(reader) })).transactions.find(
      (t: any) => t.ocpp_transaction_id === 'LONG',
    );
    assert.equal(tx.energy_kwh, '43824.000');
    const cost = json(await svc.request({ method: 'GET', url: `${H}/transactions/${tx.transaction_id}/cost`, headers: auth(reader) }));
    // 16:00-19:00 UK local on each of 1826 days (5 478 hours; the clock changes fall at night) at
    // 80 p, the other 38 346 hours at 50 p: 1 kWh an hour.
    assert.deepEqual(
      cost.lines.map((l: any) => [l.rate_p, l.quantity]),
      [
        ['50.0000', '38346.000'],
        ['80.0000', '5478.000'],
      ],
    );
  });

  test('a start reading stamped a little before its event, and a stop stamped before the last sample: one session, one energy figure, nothing flagged', async () => {
    clock.set('2026-03-04T18:00:00Z');
    const c201 = await connect(charger({ base, orgId: ORG, id: 'P150', password: pw, protocol: 'ocpp2.0.1' }));
    const reg = (ts: string, wh: number) => [{ timestamp: ts, sampledValue: [{ value: wh, measurand: 'Energy.Active.Import.Register' }] }];
    const ev = (eventType: string, ts: string, seqNo: number, meterValue: unknown) => ({
      eventType,
      timestamp: ts,
      triggerReason: 'Authorized',
      seqNo,
      transactionInfo: { transactionId: 'EARLY-READ' },
      evse: { id: 1, connectorId: 1 },
      meterValue,
    });
    await c201.call('TransactionEvent', ev('Started', '2026-03-04T18:00:05Z', 0, reg('2026-03-04T18:00:00Z', 2000)));
    clock.set('2026-03-04T18:10:00Z');
    await c201.call('TransactionEvent', ev('Updated', '2026-03-04T18:10:00Z', 1, reg('2026-03-04T18:10:00Z', 12000)));
    // Ended stamped two minutes before the sample of 18:10 (the charger's clock stepped back).
    await c201.call('TransactionEvent', ev('Ended', '2026-03-04T18:08:00Z', 2, undefined));
    const tx = await txOf('EARLY-READ');
    assert.deepEqual([tx.started_at, tx.stopped_at, tx.energy_kwh, tx.meter_anomalies], ['2026-03-04T18:00:00.000Z', '2026-03-04T18:10:00.000Z', '10.000', []]);
    const cost = await costOf(tx.transaction_id);
    assert.equal(cost.energy_kwh, '10.000');
  });

  test('connector and EVSE ids outside their range are PropertyConstraintViolation and nothing is stored (1.6 and 2.0.1)', async () => {
    clock.set('2026-03-05T09:00:00Z');
    const c16 = await connect(charger({ base, orgId: ORG, id: 'P150', password: pw, protocol: 'ocpp1.6' }));
    const refused = (p: Promise<unknown>) =>
      assert.rejects(p, (e: any) => {
        assert.equal(e.rpcErrorCode, 'PropertyConstraintViolation');
        assert.match(e.message, /must be a whole number from [01] to 2147483647/);
        return true;
      });
    await refused(c16.call('StatusNotification', { connectorId: -5, errorCode: 'NoError', status: 'Available', timestamp: '2026-03-05T09:00:00Z' }));
    await refused(c16.call('StatusNotification', { connectorId: 2 ** 40, errorCode: 'NoError', status: 'Available', timestamp: '2026-03-05T09:00:00Z' }));
    await refused(c16.call('StartTransaction', { connectorId: 0, idTag: 'CARD', meterStart: 0, timestamp: '2026-03-05T09:00:00Z' }));
    await refused(c16.call('StartTransaction', { connectorId: -5, idTag: 'CARD', meterStart: 0, timestamp: '2026-03-05T09:00:00Z' }));
    await refused(c16.call('MeterValues', { connectorId: -1, meterValue: [{ timestamp: '2026-03-05T09:00:00Z', sampledValue: [{ value: '1' }] }] }));
    await c16.close({ force: true });
    const c201 = await connect(charger({ base, orgId: ORG, id: 'P150', password: pw, protocol: 'ocpp2.0.1' }));
    await refused(c201.call('StatusNotification', { timestamp: '2026-03-05T09:00:00Z', connectorStatus: 'Available', evseId: -5, connectorId: 1 }));
    await refused(c201.call('MeterValues', { evseId: 2 ** 40, meterValue: [{ timestamp: '2026-03-05T09:00:00Z', sampledValue: [{ value: 1 }] }] }));
    await refused(
      c201.call('TransactionEvent', {
        eventType: 'Started',
        timestamp: '2026-03-05T09:00:00Z',
        triggerReason: 'Authorized',
        seqNo: 0,
        transactionInfo: { transactionId: 'EVSE-NEG' },
        evse: { id: -5, connectorId: 1 },
      }),
    );
    await refused(
      c201.call('TransactionEvent', {
        eventType: 'Started',
        timestamp: '2026-03-05T09:00:00Z',
        triggerReason: 'Authorized',
        seqNo: 0,
        transactionInfo: { transactionId: 'EVSE-HUGE' },
        evse: { id: 2 ** 40 },
      }),
    );
    assert.equal(await txOf('EVSE-NEG'), undefined);
    assert.equal(await txOf('EVSE-HUGE'), undefined);
    const site = json(await svc.request({ method: 'GET', url: `${H}/sites/plaus`, headers: auth(token) }));
    const ids = site.charge_points[0].connector_status.map((c: any) => c.connector_id);
    assert.ok(
      ids.every((id: number) => id >= 1 && id <= 2_147_483_647),
      `stored connector ids: ${ids}`,
    );
    const rel = json(await svc.request({ method: 'GET', url: `${H}/sites/plaus/reliability`, headers: auth(token) }));
    assert.deepEqual(
      rel.connectors.map((c: any) => c.connector_id),
      [1],
    );
  });
});

describe('one range of plausible values, OCPP intake to every derived figure (property, issue 35)', () => {
  // Extreme values through the OCPP intake (1.6 and 2.0.1, schema checks off at the charger so the
  // service sees them as sent), then every figure the hub derives from them read back: every call is
  // answered (a CALLRESULT, or a CALLERROR naming a constraint: never InternalError or GenericError,
  // which a store error would give) and every read answers without a 500.
  const registers = fc.oneof(
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 5_000 }).map(String) },
    fc.constantFrom('0', '-1', '-0', '0.5', '1e12', '1000000000001', '9000000000000000000', '9223372036854775808', '1e308', '1e400', 'NaN', 'abc', ''),
    fc.integer({ min: 0, max: 5_000_000 }).map(String),
    fc.double().map(String),
  );
  const powers = fc.constantFrom('0', '-5', '7000', '150000', '165000', '1e12', '1e308', 'Infinity', 'x');
  const times = fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: -60, max: 60 }).map((sec) => new Date(clock.now().getTime() + sec * 1000).toISOString()) },
    fc.constantFrom(
      '1970-01-01T00:00:00Z',
      '0001-01-01T00:00:00Z',
      '1999-12-31T23:59:59Z',
      '2999-01-01T00:00:00Z',
      '+275760-09-13T00:00:00.000Z',
      '-271821-04-20T00:00:00.000Z',
      'yesterday',
    ),
    fc.integer({ min: -7200, max: 7200 }).map((sec) => new Date(clock.now().getTime() + sec * 1000).toISOString()),
  );
  const ids = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(1, 2) },
    fc.constantFrom(-5, -1, 0, 1, 2, 8, 2 ** 31 - 1, 2 ** 31, 2 ** 40, 2 ** 53, Number.MAX_SAFE_INTEGER),
    fc.integer(),
  );
  const wrapUp = fc.record({
    register: registers,
    power: powers,
    at: times,
    connector: ids,
    txId: ids,
    evse: ids,
    meterStart: ids,
    meterStop: ids,
    txText: fc.string({ maxLength: 36 }),
    value201: fc.double(),
    multiplier: fc.integer({ min: -400, max: 400 }),
  });
  const answered = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e: any) {
      assert.ok(e.rpcErrorCode, `not an RPC answer: ${e}`);
      assert.ok(!['InternalError', 'GenericError'].includes(e.rpcErrorCode), `${e.rpcErrorCode}: ${e.message}`);
    }
  };
  let pw: string;
  let reader: string;
  before(async () => {
    clock.set('2026-03-06T12:00:00Z');
    await svc.request({ method: 'POST', url: `${H}/sites`, headers: auth(token), payload: { site_id: 'prop', name: 'Property' } });
    await svc.request({
      method: 'POST',
      url: `${H}/sites/prop/price-schedules`,
      headers: auth(token),
      payload: { energy_p_per_kwh: '50', bands: [{ start: '16:00', end: '19:00', energy_p_per_kwh: '80' }] },
    });
    await svc.request({ method: 'POST', url: `${H}/sites/prop/price-schedules/1/publish`, headers: auth(token) });
    pw = (await siteWithCharger(svc, token, { site_id: 'prop', name: 'x' }, { charge_point_id: 'PROP', max_power_kw: 150 })).password;
    reader = await svc.token({ orgId: ORG, roles: ['VIEWER'], expiresIn: '400d' });
  });
  const readAll = async () => {
    const reads = [
      `${H}/sites/prop`,
      `${H}/sites/prop/transactions?limit=200`,
      `${H}/sites/prop/reliability`,
      `${H}/sites/prop/compliance`,
      '/api/telemetry/assets/ev/PROP/history?range=daily&metric=sessions',
      '/api/telemetry/assets/ev/PROP/history?range=live&metric=sessions',
      '/api/twin/registry/assets/PROP',
      '/api/hardware/chargers',
    ];
    for (const url of reads) {
      const r = await svc.request({ method: 'GET', url, headers: auth(reader) });
      assert.ok(r.statusCode === 200 || (url.includes('/telemetry/') && r.statusCode === 404), `${url}: ${r.statusCode} ${r.body}`);
    }
    const list = await svc.request({ method: 'GET', url: `${H}/sites/prop/transactions?limit=200`, headers: auth(reader) });
    assert.equal(list.statusCode, 200, list.body);
    const txs = json(list).transactions;
    assert.ok(txs.length >= 5, `sessions made: ${txs.length}`);
    for (const t of txs) {
      assert.ok(Number(t.energy_kwh) >= 0 && Number(t.energy_kwh) <= 1e9, `energy ${t.energy_kwh}`);
      const r = await svc.request({ method: 'GET', url: `${H}/transactions/${t.transaction_id}/cost`, headers: auth(reader) });
      assert.ok(r.statusCode === 200 || r.statusCode === 409, `cost: ${r.statusCode} ${r.body}`);
      if (r.statusCode === 200) assert.equal(json(r).energy_kwh, t.energy_kwh, 'one energy figure in the list and the cost');
    }
  };

  test('OCPP 1.6', async () => {
    const cp = await connect(charger({ base, orgId: ORG, id: 'PROP', password: pw, protocol: 'ocpp1.6', strict: false }));
    await fc.assert(
      fc.asyncProperty(wrapUp, async (v) => {
        clock.advance(60_000);
        const mv = (txId: unknown) => ({
          connectorId: v.connector,
          transactionId: txId,
          meterValue: [
            {
              timestamp: v.at,
              sampledValue: [
                { value: v.register, measurand: 'Energy.Active.Import.Register', unit: 'Wh' },
                { value: v.power, measurand: 'Power.Active.Import', unit: 'W' },
              ],
            },
          ],
        });
        await answered(cp.call('StatusNotification', { connectorId: v.connector, errorCode: 'NoError', status: 'Charging', timestamp: v.at }));
        let txId: unknown = v.txId;
        try {
          txId = (await cp.call('StartTransaction', { connectorId: v.connector, idTag: 'PROP', meterStart: v.meterStart, timestamp: v.at })).transactionId;
        } catch (e: any) {
          assert.ok(!['InternalError', 'GenericError'].includes(e.rpcErrorCode), `${e.rpcErrorCode}: ${e.message}`);
        }
        await answered(cp.call('MeterValues', mv(txId)));
        clock.advance(15_000);
        await answered(
          cp.call('MeterValues', {
            ...mv(txId),
            meterValue: [
              {
                timestamp: clock.now().toISOString(),
                sampledValue: [{ value: String(Number(v.register) + 300), measurand: 'Energy.Active.Import.Register', unit: 'Wh' }],
              },
            ],
          }),
        );
        await answered(cp.call('MeterValues', mv(v.txId)));
        clock.advance(30_000);
        await answered(cp.call('StopTransaction', { transactionId: txId, meterStop: v.meterStop, timestamp: v.at, transactionData: mv(txId).meterValue }));
      }),
      { numRuns: 20, seed: 35 },
    );
    await readAll();
  });

  test('OCPP 2.0.1', async () => {
    const cp = await connect(charger({ base, orgId: ORG, id: 'PROP', password: pw, protocol: 'ocpp2.0.1', strict: false }));
    let seq = 0;
    await fc.assert(
      fc.asyncProperty(wrapUp, async (v) => {
        clock.advance(60_000);
        const meterValue = [
          {
            timestamp: v.at,
            sampledValue: [
              { value: v.value201, measurand: 'Energy.Active.Import.Register', unitOfMeasure: { unit: 'Wh', multiplier: v.multiplier } },
              { value: Number(v.power), measurand: 'Power.Active.Import' },
            ],
          },
        ];
        const run = seq;
        const ev = (eventType: string) => ({
          eventType,
          timestamp: v.at,
          triggerReason: 'MeterValuePeriodic',
          seqNo: seq++,
          transactionInfo: { transactionId: `${run}${v.txText}`.slice(0, 36) },
          evse: { id: v.evse, connectorId: v.connector },
          meterValue,
        });
        await answered(cp.call('StatusNotification', { timestamp: v.at, connectorStatus: 'Occupied', evseId: v.evse, connectorId: v.connector }));
        await answered(cp.call('TransactionEvent', ev('Started')));
        await answered(cp.call('MeterValues', { evseId: v.evse, meterValue }));
        clock.advance(30_000);
        await answered(cp.call('TransactionEvent', ev('Updated')));
        await answered(cp.call('TransactionEvent', ev('Ended')));
      }),
      { numRuns: 20, seed: 201 },
    );
    await readAll();
  });
});

/**
 * Writes a raw request on a fresh socket; resolves with the status it got once the answer's head is
 * in (or null when the server ends the socket without one). `halfClose` ends the client's side
 * after the request (for a request that is incomplete on purpose).
 */
function rawRequest(wsBase: string, head: string, opts: { localAddress?: string; halfClose?: boolean } = {}): Promise<{ status: number | null; text: string }> {
  const u = new URL(wsBase);
  return new Promise((resolve, reject) => {
    const sock = netConnect({ host: u.hostname, port: Number(u.port), ...(opts.localAddress && { localAddress: opts.localAddress }) });
    const chunks: Buffer[] = [];
    const done = () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : null, text });
      sock.destroy();
    };
    sock.on('data', (c) => {
      chunks.push(c);
      if (Buffer.concat(chunks).includes('\r\n\r\n')) done();
    });
    sock.on('error', () => {}); // a reset is one way of being refused
    sock.on('close', done);
    sock.on('connect', () => (opts.halfClose ? sock.end(head) : sock.write(head)));
    sock.setTimeout(10_000, () => reject(new Error(`no end to: ${head.slice(0, 120)}`)));
  });
}

const upgrade = (path: string, headers: Record<string, string> = {}, method = 'GET') => {
  const h: Record<string, string> = {
    Host: 'localhost',
    Connection: 'Upgrade',
    Upgrade: 'websocket',
    'Sec-WebSocket-Version': '13',
    'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
    'Sec-WebSocket-Protocol': 'ocpp1.6',
    ...headers,
  };
  return `${method} ${path} HTTP/1.1\r\n${Object.entries(h)
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
};
const basic = (user: string, pw: string) => `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`;

describe('hostile upgrades: nothing from outside stops the process', () => {
  const many = Array.from({ length: 2000 }, (_, i) => `p${i}`).join(', ');
  // [name, raw request, acceptable status lines (null: ended without an answer)]
  const table: [string, () => string, (number | null)[], { halfClose?: boolean }?][] = [
    ['bad percent-encoding in the identity', () => upgrade('/ocpp/x/%'), [400]],
    ['truncated UTF-8 escape in the identity', () => upgrade('/ocpp/acme/%E0%A4%A'), [400]],
    ['bad percent-encoding in the identity, with credentials', () => upgrade('/ocpp/x/%', { Authorization: basic('%', 'password-password') }), [400]],
    ['bad percent-encoding in the organisation', () => upgrade('/ocpp/%/CP1'), [400]],
    ['truncated escape in the organisation', () => upgrade('/ocpp/%E0%A4%A/CP1'), [400]],
    ['bad percent-encoding in the prefix', () => upgrade('/ocpp%/a/b'), [400, null]],
    ['bad percent-encoding in a first segment', () => upgrade('/%/a/b'), [400, null]],
    ['bad percent-encoding in the query', () => upgrade('/ocpp/a/b?x=%&%zz'), [400, 401]],
    ['lone surrogate escape', () => upgrade('/ocpp/a/%ED%A0%80'), [400]],
    ['NUL in the identity', () => upgrade('/ocpp/a/%00'), [400]],
    ['an encoded slash in the identity', () => upgrade(`/ocpp/${ORG}/a%2Fb`), [400, 401]],
    ['too many segments', () => upgrade(`/ocpp/${ORG}/a/b/c`), [400]],
    ['too few segments', () => upgrade(`/ocpp/${ORG}`), [400]],
    ['empty segments', () => upgrade('/ocpp//'), [400]],
    ['the OCPP prefix alone', () => upgrade('/ocpp'), [400, null]],
    ['a look-alike prefix', () => upgrade('/ocppx/a/b'), [400, null]],
    ['the root', () => upgrade('/'), [400, null]],
    ['an API path', () => upgrade('/api/telemetry/healthz'), [400, null]],
    ['an asterisk target', () => upgrade('*'), [400, null]],
    ['an absolute-form target', () => upgrade(`http://evil.example/ocpp/${ORG}/CP16`), [400, 401, null]],
    ['a very long identity', () => upgrade(`/ocpp/${ORG}/${'a'.repeat(12_000)}`), [400, 414, 431, null]],
    ['a very long path of many segments', () => upgrade(`/ocpp/${'a/'.repeat(5_000)}b`), [400, 414, 431, null]],
    ['headers beyond the size limit', () => upgrade(`/ocpp/${ORG}/CP16`, { 'X-Junk': 'j'.repeat(20_000) }), [431, 400, null]],
    ['a header just below the size limit', () => upgrade(`/ocpp/${ORG}/CP16`, { 'X-Junk': 'j'.repeat(15_000) }), [401]],
    ['garbage credentials', () => upgrade(`/ocpp/${ORG}/CP16`, { Authorization: 'Basic %%%%' }), [401]],
    ['credentials of another identity', () => upgrade(`/ocpp/${ORG}/CP16`, { Authorization: basic('CP201', 'xxxxxxxxxxxxxxxx') }), [401]],
    ['a huge credential', () => upgrade(`/ocpp/${ORG}/CP16`, { Authorization: basic('CP16', 'p'.repeat(9_000)) }), [401]],
    ['no subprotocol', () => upgrade(`/ocpp/${ORG}/CP16`, { 'Sec-WebSocket-Protocol': '' }), [401]],
    ['a wrong subprotocol', () => upgrade(`/ocpp/${ORG}/CP16`, { 'Sec-WebSocket-Protocol': 'soap' }), [401]],
    ['a duplicated subprotocol', () => upgrade(`/ocpp/${ORG}/CP16`, { 'Sec-WebSocket-Protocol': 'ocpp1.6, ocpp1.6' }), [400]],
    ['a malformed subprotocol list', () => upgrade(`/ocpp/${ORG}/CP16`, { 'Sec-WebSocket-Protocol': ',,;ocpp1.6;' }), [400]],
    ['two thousand subprotocols', () => upgrade(`/ocpp/${ORG}/CP16`, { 'Sec-WebSocket-Protocol': many }), [401]],
    ['an upgrade to something else', () => upgrade(`/ocpp/${ORG}/CP16`, { Upgrade: 'h2c' }), [400]],
    ['an empty Upgrade header', () => upgrade(`/ocpp/${ORG}/CP16`, { Upgrade: ' ' }), [400, 404, null]],
    ['Connection: Upgrade without an Upgrade header', () => upgrade(`/ocpp/${ORG}/CP16`, { Upgrade: '' }), [404, 400]],
    ['Upgrade without Connection: Upgrade', () => upgrade(`/ocpp/${ORG}/CP16`, { Connection: 'keep-alive' }), [404, 400]],
    ['no WebSocket key', () => upgrade(`/ocpp/${ORG}/CP16`, { 'Sec-WebSocket-Key': '' }), [400, 401]],
    ['a POST upgrade', () => upgrade(`/ocpp/${ORG}/CP16`, {}, 'POST'), [400, 401]],
    ['an HTTP/1.0 upgrade', () => upgrade(`/ocpp/${ORG}/CP16`).replace('HTTP/1.1', 'HTTP/1.0'), [400, 401, null]],
    ['a chunked body of garbage after the head', () => `${upgrade(`/ocpp/${ORG}/CP16`, { 'Transfer-Encoding': 'chunked' })}zz\r\nxx\r\n`, [400, 401, null]],
    ['a WebSocket version from another era', () => upgrade(`/ocpp/${ORG}/CP16`, { 'Sec-WebSocket-Version': '8' }), [400, 401]],
    ['well-formed escapes naming nobody', () => upgrade('/ocpp/%41%42/%43%44'), [401]],
    ['a CONNECT request', () => 'CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n', [400, null], { halfClose: true }],
    ['half a request head', () => 'GET /ocpp/x/% HTTP/1.1\r\nUpgrade: websocket\r\n', [400, 408, null], { halfClose: true }],
    ['a request head cut mid-line', () => 'GET /ocpp/x/%E0%A4%A HTT', [400, null], { halfClose: true }],
  ];

  // node:test reports an uncaught exception or unhandled rejection as a failure of the file; these
  // listeners also name the case that caused it (and a listener keeps the runner going to say so).
  const escaped: unknown[] = [];
  const onEscape = (err: unknown) => escaped.push(err);
  before(() => {
    process.on('uncaughtException', onEscape);
    process.on('unhandledRejection', onEscape);
  });
  after(() => {
    process.off('uncaughtException', onEscape);
    process.off('unhandledRejection', onEscape);
  });

  for (const [name, request, allowed, opts] of table) {
    test(`${name}: refused, and the service still answers its liveness probe`, async () => {
      // From an address of its own, so its failed authentications count against no other test's.
      const got = await rawRequest(base, request(), { localAddress: '127.0.0.3', ...opts });
      assert.deepEqual(escaped, [], `${name}: escaped every handler`);
      assert.ok(allowed.includes(got.status), `${name}: got ${got.status} (${got.text.slice(0, 200)}), expected one of ${allowed.join(', ')}`);
      const live = await fetch(`${base.replace('ws://', 'http://')}/api/telemetry/healthz`);
      assert.equal(live.status, 200);
      assert.deepEqual(await live.json(), { status: 'ok' });
    });
  }

  test('each refusal is counted (bad paths by reason) and none was an uncaught failure', async () => {
    const body = await scrape(svc);
    assert.ok(
      (sample(body, 'eps_hub_ocpp_refusals_total', 'reason="bad_path"') ?? 0) >= 10,
      body
        .split('\n')
        .filter((l) => l.includes('ocpp'))
        .join('\n'),
    );
    // Each was refused on purpose: none needed the entry guard's catch, let alone the process's.
    assert.deepEqual(
      body.split('\n').filter((l) => l.startsWith('eps_uncaught_entry_errors_total{')),
      [],
    );
  });
});

describe('the device edge: frames, errors, authentication, endpoint', () => {
  let pw: string;
  const closed = (c: Charger) => new Promise<{ code: number; reason: string }>((resolve) => c.on('close', resolve));
  const inbound = (c: Charger) => {
    const seen: string[] = [];
    c.on('message', (m: { message: string; outbound: boolean }) => !m.outbound && seen.push(m.message));
    return seen;
  };
  const live = async () => {
    const r = await fetch(`${base.replace('ws://', 'http://')}/api/telemetry/healthz`);
    assert.equal(r.status, 200);
  };
  before(async () => {
    pw = (await siteWithCharger(svc, token, { site_id: 'ws1', name: 'x' }, { charge_point_id: 'EDGE1', max_power_kw: 22 })).password;
  });

  test('a frame over the size limit closes the connection with 1009; the service lives and the charger reconnects', { timeout: 30_000 }, async () => {
    const cp = await connect(charger({ base, orgId: ORG, id: 'EDGE1', password: pw, protocol: 'ocpp1.6', strict: false }));
    const ended = closed(cp);
    cp.sendRaw(JSON.stringify([2, 'big', 'DataTransfer', { vendorId: 'x', data: 'a'.repeat(300 * 1024) }]));
    assert.equal((await ended).code, 1009);
    await live();
    const again = await connect(charger({ base, orgId: ORG, id: 'EDGE1', password: pw, protocol: 'ocpp1.6' }));
    assert.ok((await again.call('Heartbeat', {})).currentTime);
    // Just under the limit is a message like any other (here one the hub does not implement).
    await assert.rejects(again.call('DataTransfer', { vendorId: 'x', data: 'a'.repeat(200 * 1024) }), (e: any) => e.rpcErrorCode === 'NotImplemented');
    assert.ok((await again.call('Heartbeat', {})).currentTime);
    await again.close({ force: true });
  });

  test('more bad messages in a minute than the limit (20) disconnect the charger (1008)', { timeout: 30_000 }, async () => {
    const cp = await connect(charger({ base, orgId: ORG, id: 'EDGE1', password: pw, protocol: 'ocpp1.6', strict: false }));
    const ended = closed(cp);
    const answers = inbound(cp);
    for (let i = 0; i < 10; i++) cp.sendRaw('not json');
    // Schema-invalid calls count too, with good messages between them.
    for (let i = 0; i < 10; i++) {
      await assert.rejects(cp.call('StatusNotification', { connectorId: 'one', errorCode: 'NoError', status: 'Available' }));
      assert.ok((await cp.call('Heartbeat', {})).currentTime);
    }
    cp.sendRaw('[2, "x1"');
    const end = await ended;
    assert.equal(end.code, 1008);
    assert.ok(answers.filter((m) => m.startsWith('[4,')).length >= 20, 'each bad message before the limit was answered');
    await live();
  });

  test('a CALLERROR carries neither the data the charger sent nor more than 36 characters of its message id', async () => {
    const cp = await connect(charger({ base, orgId: ORG, id: 'EDGE1', password: pw, protocol: 'ocpp2.0.1', strict: false }));
    const answers = inbound(cp);
    const marker = `MARKER-${'z'.repeat(2000)}`;
    await assert.rejects(cp.call('StatusNotification', { timestamp: '2026-01-16T10:00:00Z', connectorStatus: marker, evseId: 1, connectorId: 1 }), (e: any) => {
      assert.equal(e.rpcErrorCode, 'PropertyConstraintViolation');
      assert.deepEqual(e.details, {});
      return true;
    });
    const longId = `id-${'9'.repeat(5000)}`;
    cp.sendRaw(JSON.stringify([2, longId, 'NoSuchAction', { marker }]));
    cp.sendRaw(JSON.stringify([2, 'x2', marker, {}]));
    assert.ok((await cp.call('Heartbeat', {})).currentTime);
    const errorsSent = answers.filter((m) => m.startsWith('[4,'));
    assert.equal(errorsSent.length, 3, answers.join('\n').slice(0, 500));
    for (const m of errorsSent) {
      assert.equal(m.includes('MARKER'), false, m.slice(0, 300));
      assert.ok(m.length < 300, `${m.length} characters`);
      assert.deepEqual(JSON.parse(m)[4], {});
    }
    assert.equal(JSON.parse(errorsSent[1])[1], longId.slice(0, 36));
    await cp.close({ force: true });
  });

  test('a charger that does not wait for its answers gets at most 8 calls handled at once; the rest a CALLERROR, the connection stays', async () => {
    const cp = await connect(charger({ base, orgId: ORG, id: 'EDGE1', password: pw, protocol: 'ocpp1.6', strict: false }));
    const answers = inbound(cp);
    const all = deferred<void>();
    cp.on('message', () => answers.length >= 16 && all.resolve());
    // 16 CALLs without waiting (each Heartbeat waits for a store write): within the bad-message limit.
    for (let i = 0; i < 16; i++) cp.sendRaw(JSON.stringify([2, `hb${i}`, 'Heartbeat', {}]));
    await all.promise;
    const refused = answers.filter((m) => m.startsWith('[4,'));
    const served = answers.filter((m) => m.startsWith('[3,'));
    assert.ok(refused.length >= 1, `some refused (${answers.length} answers)`);
    assert.ok(served.length >= 8, `the first 8 are served (${served.length})`);
    assert.equal(served.length + refused.length, 16);
    for (const m of refused) assert.deepEqual(JSON.parse(m).slice(2), ['GenericError', 'Too many calls in progress: wait for the answers', {}]);
    assert.ok((await cp.call('Heartbeat', {})).currentTime, 'the connection stays');
    await cp.close({ force: true });
  });

  test('values the store cannot hold get a CALLERROR with no store text; the connection stays', async () => {
    const sqlText = /out of range|integer|numeric|syntax|relation|column|violates|constraint "|postgres|sql|timestamp|invalid input/i;
    const c16 = await connect(charger({ base, orgId: ORG, id: 'EDGE1', password: pw, protocol: 'ocpp1.6' }));
    const huge = 2 ** 40;
    const calls: [string, unknown][] = [
      ['StatusNotification', { connectorId: huge, errorCode: 'NoError', status: 'Available', timestamp: '2026-01-15T15:00:00Z' }],
      ['StartTransaction', { connectorId: huge, idTag: 'A', meterStart: 0, timestamp: '2026-01-15T15:00:00Z' }],
    ];
    for (const [action, params] of calls) {
      await assert.rejects(c16.call(action, params), (e: any) => {
        assert.ok(e.rpcErrorCode, `${action}: a CALLERROR`);
        assert.doesNotMatch(String(e.message), sqlText, `${action}: ${e.message}`);
        assert.deepEqual(e.details, {});
        return true;
      });
    }
    assert.ok((await c16.call('Heartbeat', {})).currentTime, 'the connection stays');
    await c16.close({ force: true });
    const c201 = await connect(charger({ base, orgId: ORG, id: 'EDGE1', password: pw, protocol: 'ocpp2.0.1' }));
    await assert.rejects(
      c201.call('StatusNotification', { timestamp: '2026-01-16T10:00:00Z', connectorStatus: 'Available', evseId: huge, connectorId: 1 }),
      (e: any) => {
        assert.doesNotMatch(String(e.message), sqlText, e.message);
        return true;
      },
    );
    await assert.rejects(
      c201.call('TransactionEvent', {
        eventType: 'Started',
        timestamp: '2026-01-16T10:00:00Z',
        triggerReason: 'Authorized',
        seqNo: 0,
        transactionInfo: { transactionId: 'EDGE-HUGE' },
        evse: { id: huge, connectorId: 1 },
      }),
      (e: any) => {
        assert.doesNotMatch(String(e.message), sqlText, e.message);
        return true;
      },
    );
    await c201.close({ force: true });
  });

  test('a charger that sends CALLs and never reads the answers is disconnected once 1 MiB of them waits unread; the service lives', {
    timeout: 30_000,
  }, async () => {
    const slow = (await siteWithCharger(svc, token, { site_id: 'ws1', name: 'x' }, { charge_point_id: 'EDGE-SLOW', max_power_kw: 22 })).password;
    const shown = async () =>
      json(await svc.request({ method: 'GET', url: `${H}/sites/ws1`, headers: auth(token) })).charge_points.find((c: any) => c.charge_point_id === 'EDGE-SLOW')
        .connected;
    const cp = await connect(charger({ base, orgId: ORG, id: 'EDGE-SLOW', password: slow, protocol: 'ocpp1.6', strict: false }));
    await eventually(async () => (await shown()) === true, 'the charger shown connected');
    // The charger's socket reads nothing from here on; every CALL it sends is answered (NotImplemented:
    // no store work, not a bad message), so only the answers waiting for it grow.
    (cp as unknown as { _ws: { _socket: { pause(): void } } })._ws._socket.pause();
    for (let i = 0; i < 150_000; i++) cp.sendRaw(JSON.stringify([2, `unread-${i}`.padEnd(36, '-'), 'NoSuchAction', {}]));
    await eventually(async () => (await shown()) === false, 'the charger that reads nothing disconnected');
    assert.equal(sample(await scrape(svc), 'eps_hub_ocpp_refusals_total', 'reason="unread_answers"'), 1);
    await live();
    await cp.close({ force: true });
  });

  test('a charger that reported many connectors drops and comes straight back: what it reports on the new connection stands, not the Offline of its drop', async () => {
    const many = (await siteWithCharger(svc, token, { site_id: 'ws1', name: 'x' }, { charge_point_id: 'EDGE-MANY', max_power_kw: 22 })).password;
    const now = clock.now().toISOString();
    const N = 800;
    const first = await connect(charger({ base, orgId: ORG, id: 'EDGE-MANY', password: many, protocol: 'ocpp1.6' }));
    // Connector ids are the charger's to choose (1 to 2^31-1): it reports N of them.
    for (let i = 1; i <= N; i += 8) {
      await Promise.all(
        Array.from({ length: 8 }, (_, k) =>
          first.call('StatusNotification', { connectorId: i + k, errorCode: 'NoError', status: 'Available', timestamp: now }),
        ),
      );
    }
    const statuses = async () => {
      const site = json(await svc.request({ method: 'GET', url: `${H}/sites/ws1`, headers: auth(token) }));
      const cp = site.charge_points.find((c: any) => c.charge_point_id === 'EDGE-MANY');
      return new Map<number, string>(cp.connector_status.map((c: any) => [c.connector_id, c.ocpi_status]));
    };
    assert.equal((await statuses()).get(N), 'AVAILABLE');
    await first.close({ force: true });
    // The drop's work has begun (its first connector shows UNKNOWN); the charger is back at once and
    // reports one of its connectors as it is now.
    await eventually(async () => (await statuses()).get(1) === 'UNKNOWN', 'the drop seen: connector 1 UNKNOWN');
    const back = await connect(charger({ base, orgId: ORG, id: 'EDGE-MANY', password: many, protocol: 'ocpp1.6' }));
    await back.call('BootNotification', { chargePointVendor: 'VendorX', chargePointModel: 'Model7' });
    await back.call('StatusNotification', { connectorId: N / 2, errorCode: 'NoError', status: 'Charging', timestamp: now });
    // Once every connector of the drop is UNKNOWN (the last one too), the drop's work is over.
    await eventually(async () => (await statuses()).get(N) === 'UNKNOWN', 'the drop written for every connector');
    const after = await statuses();
    assert.equal(after.get(N / 2), 'CHARGING', 'the status the reconnected charger reported');
    const site = json(await svc.request({ method: 'GET', url: `${H}/sites/ws1`, headers: auth(token) }));
    assert.equal(site.charge_points.find((c: any) => c.charge_point_id === 'EDGE-MANY').connected, true);
    await back.close({ force: true });
  });

  test('the right password with a subprotocol the hub does not speak: 400', async () => {
    const got = await rawRequest(base, upgrade(`/ocpp/${ORG}/EDGE1`, { Authorization: basic('EDGE1', pw), 'Sec-WebSocket-Protocol': 'ocpp1.5' }));
    assert.equal(got.status, 400);
  });

  test('failed charger authentications count against the address limit shared with HTTP; past it, 429 before the password is checked', async () => {
    const from = '127.0.0.9';
    const attempt = (password: string) => rawRequest(base, upgrade(`/ocpp/${ORG}/EDGE1`, { Authorization: basic('EDGE1', password) }), { localAddress: from });
    // Half the allowance (20 a minute) spent on HTTP with tokens that do not verify, half on chargers.
    for (let i = 0; i < 10; i++) {
      const r = await svc.request({ method: 'GET', url: `${H}/sites`, headers: { authorization: `Bearer not-a-token-${i}` }, remoteAddress: from });
      assert.equal(r.statusCode, 401);
    }
    for (let i = 0; i < 10; i++) assert.equal((await attempt(`wrong-password-${i}`)).status, 401);
    // Now even the right password of a charger never authenticated waits for the window: 429
    // before the password is looked at.
    const fresh = (await siteWithCharger(svc, token, { site_id: 'ws1', name: 'x' }, { charge_point_id: 'EDGE2', max_power_kw: 7 })).password;
    assert.equal((await rawRequest(base, upgrade(`/ocpp/${ORG}/EDGE2`, { Authorization: basic('EDGE2', fresh) }), { localAddress: from })).status, 429);
    assert.equal((await attempt('wrong-password-again')).status, 429);
    assert.equal((await rawRequest(base, upgrade(`/ocpp/no-such-org/EDGE2`, { Authorization: basic('EDGE2', fresh) }), { localAddress: from })).status, 429);
    // A charger that authenticated before is still let in (its neighbours behind one address are not locked out).
    assert.equal((await attempt(pw)).status, 101);
    const http = await svc.request({ method: 'GET', url: `${H}/sites`, headers: { authorization: 'Bearer another-bad-token' }, remoteAddress: from });
    assert.equal(http.statusCode, 429);
    // Another address is not affected.
    const elsewhere = await rawRequest(base, upgrade(`/ocpp/${ORG}/EDGE1`, { Authorization: basic('EDGE1', pw) }), { localAddress: '127.0.0.10' });
    assert.equal(elsewhere.status, 101);
    // The window passes (the service clock): the address is served again.
    clock.advance(61_000);
    assert.equal((await attempt('wrong-password-later')).status, 401);
  });

  test('the endpoint a charger is given never reflects the Host header', async () => {
    const r = await svc.request({
      method: 'POST',
      url: `${H}/sites/ws1/charge-points`,
      headers: { ...auth(token), host: 'evil.example', 'x-forwarded-host': 'evil.example' },
      payload: { charge_point_id: 'EDGE-HOST', max_power_kw: 7 },
    });
    assert.equal(r.statusCode, 201, r.body);
    const b = json(r);
    assert.equal(b.ocpp_endpoint, `${base}/ocpp/${ORG}`, "this instance's own listening address (HUB_OCPP_PUBLIC_URL unset outside production)");
    assert.equal(b.ocpp_url, `${base}/ocpp/${ORG}/EDGE-HOST`);
    assert.equal(JSON.stringify(b).includes('evil'), false);
  });
});
