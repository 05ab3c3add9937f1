// OCPP 2.0.1 parity (issue 39 item 5): one session script played by a 1.6 charger (Authorize,
// StartTransaction, MeterValues, StopTransaction) and by a 2.0.1 charger (Authorize, TransactionEvent
// Started/Updated/Ended with seqNo and id-token types) on the same site and price schedule, at the
// same instants; the stored sessions and their costs, read through the HTTP API, must be the same
// (energy, cost lines and totals, tariff version, authorisation and token status, free vend). The
// runs: a card at a paid site; a remote start and remote stop sent through the API
// (RemoteStart/StopTransaction, RequestStart/StopTransaction) at a free vend site; a 2.0.1 station
// that starts at the cable and is given the card in the next event (the finding: such a session was
// stored without its token); a session the charger ran while offline, reported when it is back
// (2.0.1: every event flagged offline); and the same status story giving the same PCPR figures.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { auth, charger, listen, siteWithCharger, type Charger } from './helpers.ts';

const H = '/api/csms/api/hub';
const ORG = 'hub-parity';
let svc: TestService;
let base: string;
let admin: string;
let operator: string;
const clock = new ManualClock(new Date('2026-07-01T14:00:00.000Z'));
const open: Charger[] = [];
const pw: Record<string, string> = {};
const get = async (url: string) => json(await svc.request({ method: 'GET', url, headers: auth(admin) }));

/** The same published schedule at both sites: a 16:00-19:00 band, time, connection, overstay, VAT. */
async function siteWithSchedule(site_id: string, free_vend: boolean) {
  for (const id of [`${site_id}-16`, `${site_id}-201`]) {
    pw[id] = (await siteWithCharger(svc, admin, { site_id, name: site_id, free_vend }, { charge_point_id: id, max_power_kw: 22, connectors: 2 })).password;
  }
  const sched = await svc.request({
    method: 'POST',
    url: `${H}/sites/${site_id}/price-schedules`,
    headers: auth(admin),
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
  const pub = await svc.request({ method: 'POST', url: `${H}/sites/${site_id}/price-schedules/1/publish`, headers: auth(admin) });
  assert.equal(pub.statusCode, 200, pub.body);
}

before(async () => {
  svc = await startTestService({ clock });
  await svc.createOrg(ORG);
  admin = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: '400d' });
  operator = await svc.token({ orgId: ORG, roles: ['OPERATOR'], expiresIn: '400d' });
  base = await listen(svc);
  await siteWithSchedule('par', false);
  await siteWithSchedule('parfree', true);
  const t = await svc.request({ method: 'POST', url: `${H}/id-tokens`, headers: auth(admin), payload: { id_token: 'PAR-CARD', group_id: 'FLEET' } });
  assert.equal(t.statusCode, 201, t.body);
});
after(async () => {
  await Promise.allSettled(open.map((c) => c.close({ force: true })));
  await svc?.stop();
});

async function connect(id: string, protocol: 'ocpp1.6' | 'ocpp2.0.1') {
  const c = charger({ base, orgId: ORG, id, password: pw[id], protocol });
  open.push(c);
  await c.connect();
  const boot =
    protocol === 'ocpp1.6'
      ? await c.call('BootNotification', { chargePointVendor: 'Parity', chargePointModel: 'P1' })
      : await c.call('BootNotification', { reason: 'PowerUp', chargingStation: { vendorName: 'Parity', model: 'P1' } });
  assert.equal(boot.status, 'Accepted');
  return c;
}

/** A session as a script: when it starts and stops, the register (Wh) at each instant. */
interface Script {
  token: string;
  /** [instant, register Wh]: the first is the start, the last the stop. */
  readings: [string, number][];
  stopReason: 'EVDisconnected' | 'Remote' | 'Local';
}

/** The 1.6 charger's half of a step: what it sends at each reading. */
function steps16(c: Charger, s: Script, connectorId: number) {
  let txId = 0;
  return {
    async start() {
      const [ts, wh] = s.readings[0];
      const r = await c.call('StartTransaction', { connectorId, idTag: s.token, meterStart: wh, timestamp: ts });
      txId = r.transactionId;
      return r.idTagInfo.status as string;
    },
    async meter(i: number) {
      const [ts, wh] = s.readings[i];
      await c.call('MeterValues', {
        connectorId,
        transactionId: txId,
        meterValue: [
          { timestamp: ts, sampledValue: [{ value: String(wh), measurand: 'Energy.Active.Import.Register', unit: 'Wh', context: 'Sample.Periodic' }] },
        ],
      });
    },
    async stop() {
      const [ts, wh] = s.readings[s.readings.length - 1];
      await c.call('StopTransaction', { transactionId: txId, meterStop: wh, timestamp: ts, reason: s.stopReason });
    },
    ocppId: () => String(txId),
  };
}

/** The 2.0.1 charger's half: TransactionEvents numbered by seqNo, the register in kWh where 1.6 says Wh. */
function steps201(
  c: Charger,
  s: Script,
  evseId: number,
  txId: string,
  opts: { tokenType: string; trigger: string; offline?: boolean; remoteStartId?: number; seqFrom?: number },
) {
  let seqNo = opts.seqFrom ?? 0;
  const reading = (i: number, context: string) => {
    const [ts, wh] = s.readings[i];
    return [{ timestamp: ts, sampledValue: [{ value: wh / 1000, measurand: 'Energy.Active.Import.Register', context, unitOfMeasure: { unit: 'kWh' } }] }];
  };
  const event = (eventType: string, i: number, triggerReason: string, extra: object) => ({
    eventType,
    timestamp: s.readings[i][0],
    triggerReason,
    seqNo: seqNo++,
    ...(opts.offline && { offline: true }),
    transactionInfo: { transactionId: txId, chargingState: eventType === 'Ended' ? 'Idle' : 'Charging', ...extra },
    ...(eventType === 'Started' && { evse: { id: evseId, connectorId: 1 } }),
    ...extra,
  });
  return {
    async start() {
      const r = await c.call('TransactionEvent', {
        ...event('Started', 0, opts.trigger, {}),
        transactionInfo: {
          transactionId: txId,
          chargingState: 'Charging',
          ...(opts.remoteStartId !== undefined && { remoteStartId: opts.remoteStartId }),
        },
        idToken: { idToken: s.token, type: opts.tokenType },
        meterValue: reading(0, 'Transaction.Begin'),
      });
      return r.idTokenInfo.status as string;
    },
    async meter(i: number) {
      await c.call('TransactionEvent', { ...event('Updated', i, 'MeterValuePeriodic', {}), meterValue: reading(i, 'Sample.Periodic') });
    },
    async stop() {
      const last = s.readings.length - 1;
      const e = event('Ended', last, s.stopReason === 'Remote' ? 'RemoteStop' : 'EVCommunicationLost', {});
      await c.call('TransactionEvent', {
        ...e,
        transactionInfo: { ...e.transactionInfo, stoppedReason: s.stopReason },
        meterValue: reading(last, 'Transaction.End'),
      });
    },
    ocppId: () => txId,
  };
}

/** A session as read through the API, less what names the charger and its link. */
async function stored(site: string, cp: string, ocppId: string) {
  const tx = (await get(`${H}/sites/${site}/transactions?limit=200`)).transactions.find(
    (t: any) => t.charge_point_id === cp && t.ocpp_transaction_id === ocppId,
  );
  assert.ok(tx, `${cp} ${ocppId} stored`);
  const cost = await get(`${H}/transactions/${tx.transaction_id}/cost`);
  const { transaction_id: _a, charge_point_id: _b, ocpp_transaction_id: _c, ocpp_version, ...session } = tx;
  const { transaction_id: _d, ...priced } = cost;
  const site_ = await get(`${H}/sites/${site}`);
  return { ocpp_version, session, cost: priced, free_vend: site_.free_vend };
}

function same(a: Awaited<ReturnType<typeof stored>>, b: Awaited<ReturnType<typeof stored>>) {
  assert.deepEqual([a.ocpp_version, b.ocpp_version], ['ocpp1.6', 'ocpp2.0.1']);
  assert.deepEqual(b.session, a.session, 'the sessions as stored');
  assert.deepEqual(b.cost, a.cost, 'their costs');
}

describe('the same session on 1.6 and 2.0.1: the same stored session and cost', () => {
  test('a card at a paid site: Authorize, start, meter values every 15 minutes across the 16:00 band, stop', async () => {
    clock.set('2026-07-01T15:30:00Z');
    const c16 = await connect('par-16', 'ocpp1.6');
    const c201 = await connect('par-201', 'ocpp2.0.1');
    assert.equal((await c16.call('Authorize', { idTag: 'PAR-CARD' })).idTagInfo.status, 'Accepted');
    assert.equal((await c201.call('Authorize', { idToken: { idToken: 'PAR-CARD', type: 'ISO14443' } })).idTokenInfo.status, 'Accepted');
    const script: Script = {
      token: 'PAR-CARD',
      readings: [
        ['2026-07-01T15:30:00Z', 100_000],
        ['2026-07-01T15:45:00Z', 105_000],
        ['2026-07-01T16:00:00Z', 110_000],
        ['2026-07-01T16:15:00Z', 114_000],
        ['2026-07-01T16:30:00Z', 118_000],
        ['2026-07-01T16:45:00Z', 118_000],
        ['2026-07-01T17:00:00Z', 118_000],
      ],
      stopReason: 'EVDisconnected',
    };
    const a = steps16(c16, script, 1);
    const b = steps201(c201, script, 1, 'PAR-A', { tokenType: 'ISO14443', trigger: 'Authorized' });
    for (const [i, [ts]] of script.readings.entries()) {
      clock.set(ts);
      if (i === 0) assert.deepEqual([await a.start(), await b.start()], ['Accepted', 'Accepted']);
      else if (i === script.readings.length - 1) await Promise.all([a.stop(), b.stop()]);
      else await Promise.all([a.meter(i), b.meter(i)]);
    }
    const s16 = await stored('par', 'par-16', a.ocppId());
    const s201 = await stored('par', 'par-201', b.ocppId());
    same(s16, s201);
    // And what they are: the band is UK time (16:00-19:00 BST is 15:00-18:00 UTC), so all 18 kWh at
    // 80 p; 90 minutes at 1 p, 30 p connection, 20 minutes' overstay past 10 minutes' grace at 10 p:
    // net 1760 p, VAT 352 p.
    assert.deepEqual(
      [s16.session.energy_kwh, s16.session.authorisation, s16.session.id_token_status, s16.session.schedule_version, s16.free_vend],
      ['18.000', 'id_token', 'Accepted', 1, false],
    );
    assert.deepEqual([s16.cost.net_gbp, s16.cost.vat_gbp, s16.cost.total_gbp], ['17.60', '3.52', '21.12']);
  });

  test('remote start and remote stop through the API at a free vend site (RemoteStart/StopTransaction; RequestStart/StopTransaction)', async () => {
    clock.set('2026-07-02T09:00:00Z');
    const c16 = await connect('parfree-16', 'ocpp1.6');
    const c201 = await connect('parfree-201', 'ocpp2.0.1');
    const calls: [string, any][] = [];
    for (const c of [c16, c201]) {
      for (const action of ['RemoteStartTransaction', 'RemoteStopTransaction', 'RequestStartTransaction', 'RequestStopTransaction']) {
        c.handle(action, ({ params }) => {
          calls.push([action, params]);
          return { status: 'Accepted' };
        });
      }
    }
    const cmd = async (cp: string, name: string, body: object) => {
      const r = await svc.request({ method: 'POST', url: `${H}/charge-points/${cp}/commands/${name}`, headers: auth(operator), payload: body });
      assert.equal(r.statusCode, 201, r.body);
      assert.equal(json(r).status, 'accepted');
      return json(r);
    };
    await cmd('parfree-16', 'remote-start', { connector_id: 2, id_token: 'APP-7' });
    const rs201 = await cmd('parfree-201', 'remote-start', { connector_id: 2, id_token: 'APP-7' });
    const script: Script = {
      token: 'APP-7',
      readings: [
        ['2026-07-02T09:00:00Z', 5_000],
        ['2026-07-02T09:20:00Z', 9_000],
        ['2026-07-02T09:40:00Z', 13_500],
      ],
      stopReason: 'Remote',
    };
    // The chargers start what they were asked to: the app's token (2.0.1: of type Central, with the remoteStartId).
    const a = steps16(c16, script, 2);
    const b = steps201(c201, script, 2, 'PARFREE-B', { tokenType: 'Central', trigger: 'RemoteStart', remoteStartId: rs201.request.remoteStartId });
    assert.deepEqual([await a.start(), await b.start()], ['Accepted', 'Accepted']);
    clock.set(script.readings[1][0]);
    await Promise.all([a.meter(1), b.meter(1)]);
    clock.set(script.readings[2][0]);
    const hubTx = async (cp: string, ocppId: string) =>
      (await get(`${H}/sites/parfree/transactions`)).transactions.find((t: any) => t.charge_point_id === cp && t.ocpp_transaction_id === ocppId);
    const stop16 = await cmd('parfree-16', 'remote-stop', { transaction_id: (await hubTx('parfree-16', a.ocppId())).transaction_id });
    const stop201 = await cmd('parfree-201', 'remote-stop', { transaction_id: (await hubTx('parfree-201', b.ocppId())).transaction_id });
    assert.deepEqual([stop16.request, stop201.request], [{ transactionId: Number(a.ocppId()) }, { transactionId: 'PARFREE-B' }]);
    await Promise.all([a.stop(), b.stop()]);
    assert.deepEqual(
      calls.map(([action]) => action),
      ['RemoteStartTransaction', 'RequestStartTransaction', 'RemoteStopTransaction', 'RequestStopTransaction'],
    );
    const s16 = await stored('parfree', 'parfree-16', a.ocppId());
    const s201 = await stored('parfree', 'parfree-201', b.ocppId());
    same(s16, s201);
    // 8.5 kWh at 50 p, 40 minutes at 1 p, 30 p connection: net 495 p; free vend recorded on the session.
    assert.deepEqual(
      [s16.session.energy_kwh, s16.session.authorisation, s16.session.id_token_status, s16.session.stop_reason, s16.free_vend],
      ['8.500', 'free_vend', 'Accepted', 'Remote', true],
    );
    assert.deepEqual([s16.cost.net_gbp, s16.cost.total_gbp], ['4.95', '5.94']);
  });

  test('cable first, card second: 2.0.1 Started without a token (CablePluggedIn), the card in the next event; 1.6 starts on the card', async () => {
    // The same moment at both chargers: the driver plugs in and presents the card at 14:00. A 1.6
    // charger starts the transaction with the card; a 2.0.1 station whose transaction starts at the
    // cable (TxStartPoint EVConnected) sends Started without a token, then Updated (Authorized) with it.
    clock.set('2026-07-04T14:00:00Z');
    const c16 = await connect('par-16', 'ocpp1.6');
    const c201 = await connect('par-201', 'ocpp2.0.1');
    const script: Script = {
      token: 'PAR-CARD',
      readings: [
        ['2026-07-04T14:00:00Z', 300_000],
        ['2026-07-04T14:30:00Z', 305_000],
        ['2026-07-04T14:45:00Z', 307_500],
      ],
      stopReason: 'EVDisconnected',
    };
    const a = steps16(c16, script, 1);
    assert.equal(await a.start(), 'Accepted');
    const ev = (eventType: string, seqNo: number, triggerReason: string, extra: object) => ({
      eventType,
      timestamp: '2026-07-04T14:00:00Z',
      triggerReason,
      seqNo,
      transactionInfo: { transactionId: 'PAR-CABLE', chargingState: 'EVConnected' },
      ...extra,
    });
    const plugged = await c201.call(
      'TransactionEvent',
      ev('Started', 0, 'CablePluggedIn', {
        evse: { id: 1, connectorId: 1 },
        meterValue: [
          { timestamp: '2026-07-04T14:00:00Z', sampledValue: [{ value: 300, measurand: 'Energy.Active.Import.Register', unitOfMeasure: { unit: 'kWh' } }] },
        ],
      }),
    );
    assert.deepEqual(plugged, {});
    const carded = await c201.call('TransactionEvent', ev('Updated', 1, 'Authorized', { idToken: { idToken: 'PAR-CARD', type: 'ISO14443' } }));
    assert.equal(carded.idTokenInfo.status, 'Accepted');
    const b = steps201(c201, script, 1, 'PAR-CABLE', { tokenType: 'ISO14443', trigger: 'Authorized', seqFrom: 2 });
    for (const i of [1, 2]) {
      clock.set(script.readings[i][0]);
      if (i === 1) await Promise.all([a.meter(1), b.meter(1)]);
      else await Promise.all([a.stop(), b.stop()]);
    }
    const s16 = await stored('par', 'par-16', a.ocppId());
    const s201 = await stored('par', 'par-201', 'PAR-CABLE');
    same(s16, s201);
    assert.deepEqual(
      [s16.session.id_tag, s16.session.authorisation, s16.session.id_token_status, s16.session.energy_kwh],
      ['PAR-CARD', 'id_token', 'Accepted', '7.500'],
    );
  });

  test('a session run while offline, reported when the charger is back (2.0.1: every event flagged offline)', async () => {
    // Both chargers lost their connection at 10:55 and charged a card from 11:00 to 12:00; back at
    // 12:30 they send what they queued, in order, with the instants it happened.
    clock.set('2026-07-03T12:30:00Z');
    const c16 = await connect('par-16', 'ocpp1.6');
    const c201 = await connect('par-201', 'ocpp2.0.1');
    const script: Script = {
      token: 'PAR-CARD',
      readings: [
        ['2026-07-03T11:00:00Z', 200_000],
        ['2026-07-03T11:30:00Z', 206_000],
        ['2026-07-03T12:00:00Z', 212_000],
      ],
      stopReason: 'Local',
    };
    const a = steps16(c16, script, 2);
    const b = steps201(c201, script, 2, 'PAR-OFF', { tokenType: 'ISO14443', trigger: 'Authorized', offline: true });
    assert.deepEqual([await a.start(), await b.start()], ['Accepted', 'Accepted']);
    await Promise.all([a.meter(1), b.meter(1)]);
    await Promise.all([a.stop(), b.stop()]);
    const s16 = await stored('par', 'par-16', a.ocppId());
    const s201 = await stored('par', 'par-201', b.ocppId());
    same(s16, s201);
    // 12 kWh at 50 p, 60 minutes at 1 p, 30 p connection: net 690 p.
    assert.deepEqual(
      [s16.session.energy_kwh, s16.session.started_at, s16.session.stopped_at, s16.session.authorisation, s16.cost.net_gbp],
      ['12.000', '2026-07-03T11:00:00.000Z', '2026-07-03T12:00:00.000Z', 'id_token', '6.90'],
    );
  });
  test('PCPR evidence: the same status story on both versions gives the same reliability figures', async () => {
    // From 2026-07-10 00:00: available 20 h, in use 3 h, faulted 1 h, then available again.
    clock.set('2026-07-10T00:00:00Z');
    const c16 = await connect('par-16', 'ocpp1.6');
    const c201 = await connect('par-201', 'ocpp2.0.1');
    const story: [number, string, string][] = [
      [0, 'Available', 'Available'],
      [20, 'Charging', 'Occupied'],
      [23, 'Faulted', 'Faulted'],
      [24, 'Available', 'Available'],
    ];
    for (const [h, s16, s201] of story) {
      clock.set(new Date(Date.parse('2026-07-10T00:00:00Z') + h * 3_600_000));
      const ts = clock.now().toISOString();
      await c16.call('StatusNotification', { connectorId: 1, errorCode: s16 === 'Faulted' ? 'GroundFailure' : 'NoError', status: s16, timestamp: ts });
      await c201.call('StatusNotification', { timestamp: ts, connectorStatus: s201, evseId: 1, connectorId: 1 });
    }
    clock.set('2026-07-11T02:00:00Z');
    const rel = await get(`${H}/sites/par/reliability?from=2026-07-10T00:00:00Z&to=2026-07-11T02:00:00Z`);
    const figure = (cp: string) => {
      const c = rel.connectors.find((x: any) => x.charge_point_id === cp && x.connector_id === 1);
      const { charge_point_id: _cp, ...rest } = c;
      return rest;
    };
    assert.deepEqual(figure('par-201'), figure('par-16'));
    assert.deepEqual([figure('par-16').reliable_hours, figure('par-16').unreliable_hours], [25, 1]);
  });
  test('2.0.1: an EVSE of two connectors shows the aggregate of theirs (decision 0436): in use while one is, available while any is', async () => {
    clock.set('2026-07-12T09:00:00Z');
    const c201 = await connect('par-201', 'ocpp2.0.1');
    const evse1 = async () => {
      const site = await get(`${H}/sites/par`);
      const cp = site.charge_points.find((c: any) => c.charge_point_id === 'par-201');
      const s = cp.connector_status.find((c: any) => c.connector_id === 1);
      return [s.status, s.ocpi_status];
    };
    const report = async (connectorId: number, connectorStatus: string, at: string) => {
      clock.set(at);
      await c201.call('StatusNotification', { timestamp: at, connectorStatus, evseId: 1, connectorId });
    };
    await report(1, 'Available', '2026-07-12T09:00:00.000Z');
    await report(2, 'Available', '2026-07-12T09:00:00.000Z');
    assert.deepEqual(await evse1(), ['Available', 'AVAILABLE']);
    // The CCS cable is plugged in; the station marks the EVSE's other connector Unavailable.
    await report(1, 'Occupied', '2026-07-12T09:05:00.000Z');
    await report(2, 'Unavailable', '2026-07-12T09:05:01.000Z');
    assert.deepEqual(await evse1(), ['Occupied', 'CHARGING'], 'the EVSE is in use, not unavailable');
    // A report older than the newest of a connector changes nothing.
    await report(1, 'Available', '2026-07-12T09:04:00.000Z');
    assert.deepEqual(await evse1(), ['Occupied', 'CHARGING']);
    // One connector faulted, the other free: the EVSE can still serve a car.
    await report(1, 'Faulted', '2026-07-12T10:00:00.000Z');
    await report(2, 'Available', '2026-07-12T10:00:01.000Z');
    assert.deepEqual(await evse1(), ['Available', 'AVAILABLE']);
    await report(2, 'Unavailable', '2026-07-12T10:01:00.000Z');
    assert.deepEqual(await evse1(), ['Faulted', 'OUTOFORDER'], 'a fault shows over an unavailable connector');
    // Evse 2 is its own connector of the hub, untouched by evse 1's reports.
    await report(1, 'Available', '2026-07-12T10:02:00.000Z');
    await c201.call('StatusNotification', { timestamp: '2026-07-12T10:02:00.000Z', connectorStatus: 'Reserved', evseId: 2, connectorId: 1 });
    const site = await get(`${H}/sites/par`);
    const cp = site.charge_points.find((c: any) => c.charge_point_id === 'par-201');
    assert.deepEqual(
      cp.connector_status.map((c: any) => [c.connector_id, c.status]),
      [
        [1, 'Available'],
        [2, 'Reserved'],
      ],
    );
  });
  test("heartbeats from several chargers at once: each answered with the time and recorded as the charger's last heartbeat (one group commit)", async () => {
    clock.set('2026-07-13T08:00:00Z');
    const a = await connect('par-16', 'ocpp1.6');
    const b = await connect('parfree-16', 'ocpp1.6');
    const c = await connect('par-201', 'ocpp2.0.1');
    // Booted at 08:00 (a boot counts as a heartbeat); the heartbeats come a minute later.
    clock.set('2026-07-13T08:01:00Z');
    const answers = await Promise.all([a.call('Heartbeat', {}), b.call('Heartbeat', {}), c.call('Heartbeat', {}), a.call('Heartbeat', {})]);
    assert.deepEqual(
      answers.map((x: any) => x.currentTime),
      Array(4).fill('2026-07-13T08:01:00.000Z'),
    );
    const last = async (site: string, cp: string) =>
      (await get(`${H}/sites/${site}`)).charge_points.find((x: any) => x.charge_point_id === cp).last_heartbeat_at;
    assert.deepEqual(
      [await last('par', 'par-16'), await last('parfree', 'parfree-16'), await last('par', 'par-201')],
      Array(3).fill('2026-07-13T08:01:00.000Z'),
    );
    clock.set('2026-07-13T08:05:00Z');
    await b.call('Heartbeat', {});
    assert.deepEqual([await last('par', 'par-16'), await last('parfree', 'parfree-16')], ['2026-07-13T08:01:00.000Z', '2026-07-13T08:05:00.000Z']);
  });
});
