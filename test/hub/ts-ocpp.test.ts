// A second, independent OCPP 1.6 implementation drives the hub (issue 39 item 6): @voltbras/ts-ocpp's
// ChargePoint (its own framing over ws 7 and its own JSON schemas, checked with jsonschema), not
// ocpp-rpc, which the service uses. Boot, heartbeat, Authorize with a blocked and an accepted token,
// StartTransaction, MeterValues, StopTransaction, the stored session and its cost through HTTP, a
// remote start and stop from the hub answered by the charger (ts-ocpp checks the hub's CALLs against
// its schemas before its handler sees them), and every answer of the hub checked against ts-ocpp's
// response schemas. What ts-ocpp cannot do (documented in docs/charging-hub.md): it takes no headers,
// so the Basic credentials go in the URL's userinfo (ws sends them as the Authorization header); its
// connect() settles only when the socket opens (a refused handshake is never reported), so refusals
// stay with the ocpp-rpc tests; it speaks 1.6 only.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ChargePoint } from '@voltbras/ts-ocpp';
import validation from '@voltbras/ts-ocpp/dist/messages/validation.js';
import cpMessages from '@voltbras/ts-ocpp/dist/messages/cp/index.js';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { auth, listen, siteWithCharger } from './helpers.ts';

const H = '/api/csms/api/hub';
const ORG = 'hub-ts-ocpp';
let svc: TestService;
let base: string;
let admin: string;
let operator: string;
let password: string;
const clock = new ManualClock(new Date('2026-01-20T10:00:00.000Z'));
const chargers: ChargePoint[] = [];
const req = (method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
  svc.request({ method, url, headers: auth(token), ...(payload && { payload }) });

before(async () => {
  svc = await startTestService({ clock });
  await svc.createOrg(ORG);
  admin = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: '400d' });
  operator = await svc.token({ orgId: ORG, roles: ['OPERATOR'], expiresIn: '400d' });
  base = await listen(svc);
  password = (await siteWithCharger(svc, admin, { site_id: 'vb', name: 'Voltbras' }, { charge_point_id: 'VB1', max_power_kw: 22, connectors: 2 })).password;
  const sched = await req('POST', `${H}/sites/vb/price-schedules`, admin, {
    energy_p_per_kwh: '40',
    bands: [],
    time_p_per_minute: '2',
    connection_fee_p: '50',
    overstay_p_per_minute: '10',
    overstay_grace_minutes: 10,
    vat_percent: '20',
  });
  assert.equal(sched.statusCode, 201, sched.body);
  assert.equal((await req('POST', `${H}/sites/vb/price-schedules/1/publish`, admin)).statusCode, 200);
  for (const t of [{ id_token: 'VB-OK' }, { id_token: 'VB-BLOCKED', status: 'blocked' }, { id_token: 'VB-APP', type: 'Central' }]) {
    assert.equal((await req('POST', `${H}/id-tokens`, admin, t)).statusCode, 201);
  }
});
after(async () => {
  for (const c of chargers) c.close();
  await svc?.stop();
});

/** What the hub answered, checked against ts-ocpp's own response schema of the action. */
async function send(cp: ChargePoint, action: string, payload: object): Promise<any> {
  const either = await cp.sendRequest({ action, ocppVersion: 'v1.6-json', payload } as never).run();
  if (either.isLeft()) {
    const e = either.extract() as { message: string; errorCode?: string; errorDescription?: string };
    throw Object.assign(new Error(`${action}: ${e.message}`), { errorCode: e.errorCode, errorDescription: e.errorDescription });
  }
  const answer = either.extract() as object;
  const checked = validation.validateMessageResponse(action, answer, cpMessages.chargePointActions);
  assert.ok(checked.isRight(), `${action}: the hub's answer passes ts-ocpp's schema: ${String(checked.extract())}`);
  return answer;
}

test('ts-ocpp 1.6 charge point: boot, heartbeat, Authorize blocked and accepted, a metered transaction costed, remote start and stop from the hub', async () => {
  const received: [string, any][] = [];
  const cp = new ChargePoint(
    'VB1',
    (request: any) => {
      received.push([request.action, request]);
      if (request.action === 'RemoteStartTransaction' || request.action === 'RemoteStopTransaction') {
        return { action: request.action, ocppVersion: request.ocppVersion, status: 'Accepted' } as never;
      }
      throw new Error(`not handled: ${request.action}`);
    },
    // Basic credentials as the URL's userinfo: ts-ocpp has no option for headers.
    `${base.replace('ws://', `ws://VB1:${encodeURIComponent(password)}@`)}/ocpp/${ORG}`,
  );
  chargers.push(cp);
  await cp.connect();

  const boot = await send(cp, 'BootNotification', { chargePointVendor: 'Voltbras', chargePointModel: 'TS-OCPP', firmwareVersion: '2.7.3' });
  assert.deepEqual(boot, { status: 'Accepted', currentTime: '2026-01-20T10:00:00.000Z', interval: 300 });
  assert.deepEqual(await send(cp, 'Heartbeat', {}), { currentTime: '2026-01-20T10:00:00.000Z' });
  assert.deepEqual(await send(cp, 'StatusNotification', { connectorId: 1, errorCode: 'NoError', status: 'Available', timestamp: '2026-01-20T10:00:00Z' }), {});
  assert.deepEqual(await send(cp, 'Authorize', { idTag: 'VB-BLOCKED' }), { idTagInfo: { status: 'Blocked' } });
  assert.deepEqual(await send(cp, 'Authorize', { idTag: 'VB-NOBODY' }), { idTagInfo: { status: 'Invalid' } });
  assert.deepEqual(await send(cp, 'Authorize', { idTag: 'VB-OK' }), { idTagInfo: { status: 'Accepted' } });
  // An action the hub does not implement: ts-ocpp reads the CALLERROR.
  await assert.rejects(send(cp, 'DataTransfer', { vendorId: 'com.voltbras' }), (e: any) => {
    assert.deepEqual([e.errorCode, e.errorDescription], ['NotImplemented', 'The action is not implemented']);
    return true;
  });

  // 10:00 start at 50 000 Wh; 4 kWh by 10:15, 7.5 kWh by 10:30, stop there: 7.5 kWh at 40 p = 300 p,
  // 30 minutes at 2 p = 60 p, 50 p connection; net 410 p, VAT 82 p.
  const start = await send(cp, 'StartTransaction', { connectorId: 1, idTag: 'VB-OK', meterStart: 50_000, timestamp: '2026-01-20T10:00:00Z' });
  assert.equal(start.idTagInfo.status, 'Accepted');
  const meter = (ts: string, wh: number) =>
    send(cp, 'MeterValues', {
      connectorId: 1,
      transactionId: start.transactionId,
      meterValue: [
        {
          timestamp: ts,
          sampledValue: [
            { value: String(wh), measurand: 'Energy.Active.Import.Register', unit: 'Wh', context: 'Sample.Periodic' },
            { value: '15.5', measurand: 'Power.Active.Import', unit: 'kW' },
          ],
        },
      ],
    });
  clock.set('2026-01-20T10:15:00Z');
  assert.deepEqual(await meter('2026-01-20T10:15:00Z', 54_000), {});
  clock.set('2026-01-20T10:30:00Z');
  const stop = await send(cp, 'StopTransaction', {
    transactionId: start.transactionId,
    idTag: 'VB-OK',
    meterStop: 57_500,
    timestamp: '2026-01-20T10:30:00Z',
    reason: 'Local',
  });
  assert.deepEqual(stop, { idTagInfo: { status: 'Accepted' } });
  const txs = json(await req('GET', `${H}/sites/vb/transactions`, admin)).transactions;
  const tx = txs.find((t: any) => t.ocpp_transaction_id === String(start.transactionId));
  assert.deepEqual(
    [tx.ocpp_version, tx.id_tag, tx.authorisation, tx.id_token_status, tx.energy_kwh, tx.started_at, tx.stopped_at, tx.stop_reason],
    ['ocpp1.6', 'VB-OK', 'id_token', 'Accepted', '7.500', '2026-01-20T10:00:00.000Z', '2026-01-20T10:30:00.000Z', 'Local'],
  );
  const cost = json(await req('GET', `${H}/transactions/${tx.transaction_id}/cost`, admin));
  assert.deepEqual([cost.net_gbp, cost.vat_gbp, cost.total_gbp], ['4.10', '0.82', '4.92']);

  // The hub asks the charger to start a session; ts-ocpp checks the CALL against its schema, then answers.
  clock.set('2026-01-20T11:00:00Z');
  const rs = await req('POST', `${H}/charge-points/VB1/commands/remote-start`, operator, { connector_id: 2, id_token: 'VB-APP' });
  assert.equal(rs.statusCode, 201, rs.body);
  assert.deepEqual([json(rs).status, json(rs).response], ['accepted', { status: 'Accepted' }]);
  assert.deepEqual(received[0], ['RemoteStartTransaction', { action: 'RemoteStartTransaction', ocppVersion: 'v1.6-json', idTag: 'VB-APP', connectorId: 2 }]);
  const remote = await send(cp, 'StartTransaction', { connectorId: 2, idTag: 'VB-APP', meterStart: 0, timestamp: '2026-01-20T11:00:00Z' });
  assert.equal(remote.idTagInfo.status, 'Accepted');
  const hubTx = json(await req('GET', `${H}/sites/vb/transactions`, admin)).transactions.find(
    (t: any) => t.ocpp_transaction_id === String(remote.transactionId),
  );
  const stopCmd = await req('POST', `${H}/charge-points/VB1/commands/remote-stop`, operator, { transaction_id: hubTx.transaction_id });
  assert.deepEqual([json(stopCmd).status, received[1]?.[1]?.transactionId], ['accepted', remote.transactionId]);
  clock.set('2026-01-20T11:05:00Z');
  await send(cp, 'StopTransaction', { transactionId: remote.transactionId, meterStop: 1_000, timestamp: '2026-01-20T11:05:00Z', reason: 'Remote' });
  const after = json(await req('GET', `${H}/transactions/${hubTx.transaction_id}/cost`, admin));
  assert.equal(after.status, 'stopped');
});
