// Commands to chargers (decision 0411), through HTTP and real OCPP chargers (ocpp-rpc clients): each
// command of the table sent to a 1.6 charger held by this instance and to a 2.0.1 charger held by a
// second one (over the bus), its CALL as the charger received it, its stored result; refusals: wrong
// role, other organisation, bad input, charger offline (stored as offline, 409), a CALLERROR
// (failed), no answer (timeout); every command audited.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { eventually } from '../helpers/eventually.ts';
import { auth, charger, listen, siteWithCharger, type Charger } from './helpers.ts';

const H = '/api/csms/api/hub';
const ORG = 'hub-commands';
const OTHER = 'hub-commands-other';
// A short timeout so the test of a charger that never answers is quick (the CALL's timer is ocpp-rpc's, in real time).
const env = { HUB_COMMAND_TIMEOUT_MS: '1500' };
let svc: TestService;
let svc2: TestService;
let base: string;
let base2: string;
let admin: string;
let operator: string;
let viewer: string;
let other: string;
const clock = new ManualClock(new Date('2026-05-01T09:00:00.000Z'));
const open: Charger[] = [];
const pw: Record<string, string> = {};
let stoppedTx = '';
const req = (method: 'GET' | 'POST', url: string, token: string, payload?: unknown) =>
  svc.request({ method, url, headers: auth(token), ...(payload !== undefined && { payload: payload as object }) });
const cmd = (cp: string, name: string, payload: unknown, token = operator) => req('POST', `${H}/charge-points/${cp}/commands/${name}`, token, payload);

before(async () => {
  svc = await startTestService({ clock, env });
  svc2 = await startTestService({ shareWith: svc, clock, env });
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  admin = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: '400d' });
  operator = await svc.token({ orgId: ORG, roles: ['OPERATOR'], expiresIn: '400d' });
  viewer = await svc.token({ orgId: ORG, roles: ['VIEWER'], expiresIn: '400d' });
  other = await svc.token({ orgId: OTHER, roles: ['ORG_ADMIN'], expiresIn: '400d' });
  base = await listen(svc);
  base2 = await listen(svc2);
  for (const id of ['C16', 'C201', 'COFF', 'CSLOW']) {
    pw[id] = (
      await siteWithCharger(svc, admin, { site_id: 'cmd', name: 'Commands', free_vend: true }, { charge_point_id: id, max_power_kw: 22, connectors: 2 })
    ).password;
  }
});
after(async () => {
  await Promise.allSettled(open.map((c) => c.close({ force: true })));
  await svc2?.stop();
  await svc?.stop();
});

/** Connects a charger to the given base and waits until the hub shows it connected. */
async function online(base: string, id: string, protocol: 'ocpp1.6' | 'ocpp2.0.1') {
  const c = charger({ base, orgId: ORG, id, password: pw[id], protocol });
  open.push(c);
  await c.connect();
  await eventually(async () => {
    const site = json(await req('GET', `${H}/sites/cmd`, viewer));
    return site.charge_points.find((x: any) => x.charge_point_id === id)?.connected === true;
  }, `${id} shown connected`);
  return c;
}

/** Records every CALL the charger receives and answers it as told. */
function answering(c: Charger, answers: Record<string, (params: any) => unknown>) {
  const got: [string, unknown][] = [];
  for (const [action, answer] of Object.entries(answers)) {
    c.handle(action, ({ params }) => {
      got.push([action, params]);
      return answer(params);
    });
  }
  return got;
}

describe('OCPP 1.6 charger on this instance', () => {
  test('every command: the CALL the charger gets, the stored status and answer; remote start then StartTransaction; remote stop', async () => {
    const c = await online(base, 'C16', 'ocpp1.6');
    const got = answering(c, {
      RemoteStartTransaction: () => ({ status: 'Accepted' }),
      RemoteStopTransaction: () => ({ status: 'Accepted' }),
      Reset: () => ({ status: 'Rejected' }),
      UnlockConnector: () => ({ status: 'Unlocked' }),
      ChangeAvailability: () => ({ status: 'Scheduled' }),
      TriggerMessage: () => ({ status: 'Accepted' }),
      GetConfiguration: () => ({ configurationKey: [{ key: 'HeartbeatInterval', readonly: false, value: '300' }], unknownKey: ['Nope'] }),
      ChangeConfiguration: () => ({ status: 'NotSupported' }),
      ClearCache: () => ({ status: 'Accepted' }),
    });

    const start = await cmd('C16', 'remote-start', { connector_id: 2, id_token: 'APP-42' });
    assert.equal(start.statusCode, 201, start.body);
    const s = json(start);
    assert.deepEqual(
      [s.action, s.status, s.ocpp_version, s.ocpp_action, s.request, s.response, s.error, s.parameters],
      [
        'remote-start',
        'accepted',
        'ocpp1.6',
        'RemoteStartTransaction',
        { idTag: 'APP-42', connectorId: 2 },
        { status: 'Accepted' },
        null,
        { connector_id: 2, id_token: 'APP-42' },
      ],
    );
    assert.deepEqual([s.created_at, s.completed_at], ['2026-05-01T09:00:00.000Z', '2026-05-01T09:00:00.000Z']);
    assert.deepEqual(json(await req('GET', `${H}/commands/${s.command_id}`, viewer)), s);
    // The charger starts the session it was asked to (free vend site: accepted).
    const tx = await c.call('StartTransaction', { connectorId: 2, idTag: 'APP-42', meterStart: 0, timestamp: '2026-05-01T09:00:00Z' });
    assert.equal(tx.idTagInfo.status, 'Accepted');
    const hubTx = json(await req('GET', `${H}/sites/cmd/transactions`, viewer)).transactions.find(
      (t: any) => t.ocpp_transaction_id === String(tx.transactionId),
    );

    const stop = json(await cmd('C16', 'remote-stop', { transaction_id: hubTx.transaction_id }));
    assert.deepEqual([stop.status, stop.request], ['accepted', { transactionId: tx.transactionId }]);
    const reset = json(await cmd('C16', 'reset', { type: 'soft' }, admin));
    assert.deepEqual([reset.status, reset.request, reset.response], ['rejected', { type: 'Soft' }, { status: 'Rejected' }]);
    const unlock = json(await cmd('C16', 'unlock-connector', { connector_id: 1 }));
    assert.deepEqual([unlock.status, unlock.request], ['accepted', { connectorId: 1 }]);
    const avail = json(await cmd('C16', 'change-availability', { availability: 'inoperative' }));
    assert.deepEqual([avail.status, avail.request], ['accepted', { connectorId: 0, type: 'Inoperative' }]);
    const trig = json(await cmd('C16', 'trigger-message', { message: 'StatusNotification', connector_id: 1 }));
    assert.deepEqual([trig.status, trig.request], ['accepted', { requestedMessage: 'StatusNotification', connectorId: 1 }]);
    const conf = json(await cmd('C16', 'get-configuration', { keys: ['HeartbeatInterval', 'Nope'] }));
    assert.deepEqual([conf.status, conf.request, conf.response.unknownKey], ['accepted', { key: ['HeartbeatInterval', 'Nope'] }, ['Nope']]);
    assert.deepEqual(json(await cmd('C16', 'get-configuration', {})).request, {});
    const change = json(await cmd('C16', 'change-configuration', { key: 'MeterValueSampleInterval', value: '60' }));
    assert.deepEqual(
      [change.status, change.request, change.response],
      ['rejected', { key: 'MeterValueSampleInterval', value: '60' }, { status: 'NotSupported' }],
    );
    const clear = json(await cmd('C16', 'clear-cache', {}));
    assert.deepEqual([clear.status, clear.ocpp_action, clear.request], ['accepted', 'ClearCache', {}]);
    assert.deepEqual(
      got.map(([a]) => a),
      [
        'RemoteStartTransaction',
        'RemoteStopTransaction',
        'Reset',
        'UnlockConnector',
        'ChangeAvailability',
        'TriggerMessage',
        'GetConfiguration',
        'GetConfiguration',
        'ChangeConfiguration',
        'ClearCache',
      ],
    );

    // Listed newest first (all at one instant: by id among equals), with paging.
    const list = json(await req('GET', `${H}/charge-points/C16/commands?limit=4`, viewer));
    assert.equal(list.commands.length, 4);
    const rest = json(await req('GET', `${H}/charge-points/C16/commands?limit=50&cursor=${encodeURIComponent(list.next_cursor)}`, viewer));
    assert.equal(list.commands.length + rest.commands.length, 10);
    assert.equal(rest.has_more, false);

    // Refusals of a remote stop: a stopped transaction, another charger's, not a uuid.
    await c.call('StopTransaction', { transactionId: tx.transactionId, meterStop: 10, timestamp: '2026-05-01T09:00:00Z', reason: 'Remote' });
    assertRefused(await cmd('C16', 'remote-stop', { transaction_id: hubTx.transaction_id }), 409, 'Transaction already stopped');
    stoppedTx = hubTx.transaction_id;
    assertRefused(await cmd('C16', 'remote-stop', { transaction_id: 'tx-1' }), 422, { fields: ['body.transaction_id'] });
    // 1.6 limits the schema of the API cannot know in advance: a 21-character tag, a 51-character key.
    assertRefused(await cmd('C16', 'remote-start', { id_token: 'A'.repeat(21) }), 422, { fields: ['body.id_token'] });
    assertRefused(await cmd('C16', 'change-configuration', { key: 'K'.repeat(51), value: '1' }), 422, { fields: ['body.key'] });

    // A CALLERROR from the charger: failed, with its code.
    c.handle('Reset', () => {
      throw Object.assign(new Error('nope'), { rpcErrorCode: 'NotSupported' });
    });
    const failed = json(await cmd('C16', 'reset', { type: 'hard' }));
    assert.equal(failed.status, 'failed');
    assert.match(failed.error, /^[A-Za-z]+Error|^NotSupported|^GenericError|^InternalError/);
  });
});

describe('OCPP 2.0.1 charger on another instance (routed over the bus)', () => {
  test('the 2.0.1 CALLs: RequestStart/StopTransaction, Reset OnIdle/Immediate, UnlockConnector, ChangeAvailability, GetVariables, SetVariables', async () => {
    const c = await online(base2, 'C201', 'ocpp2.0.1');
    const got = answering(c, {
      RequestStartTransaction: () => ({ status: 'Accepted' }),
      Reset: () => ({ status: 'Scheduled' }),
      UnlockConnector: () => ({ status: 'UnlockFailed' }),
      ChangeAvailability: () => ({ status: 'Accepted' }),
      TriggerMessage: () => ({ status: 'Accepted' }),
      GetVariables: ({ getVariableData }) => ({
        getVariableResult: getVariableData.map((d: any) => ({
          attributeStatus: 'Accepted',
          attributeValue: '60',
          component: d.component,
          variable: d.variable,
        })),
      }),
      SetVariables: ({ setVariableData }) => ({
        setVariableResult: setVariableData.map((d: any) => ({ attributeStatus: 'RebootRequired', component: d.component, variable: d.variable })),
      }),
      ClearCache: () => ({ status: 'Rejected' }),
    });
    const start = json(await cmd('C201', 'remote-start', { connector_id: 1, id_token: 'APP-43' }));
    assert.deepEqual([start.status, start.ocpp_version, start.ocpp_action], ['accepted', 'ocpp2.0.1', 'RequestStartTransaction']);
    assert.deepEqual([start.request.idToken, start.request.evseId, typeof start.request.remoteStartId], [{ idToken: 'APP-43', type: 'Central' }, 1, 'number']);
    assert.deepEqual(json(await cmd('C201', 'reset', { type: 'soft' })).request, { type: 'OnIdle' });
    const hard = json(await cmd('C201', 'reset', { type: 'hard' }));
    assert.deepEqual([hard.status, hard.request], ['accepted', { type: 'Immediate' }]);
    const unlock = json(await cmd('C201', 'unlock-connector', { connector_id: 2 }));
    assert.deepEqual([unlock.status, unlock.request], ['rejected', { evseId: 2, connectorId: 1 }]);
    assert.deepEqual(json(await cmd('C201', 'change-availability', { connector_id: 2, availability: 'operative' })).request, {
      operationalStatus: 'Operative',
      evse: { id: 2 },
    });
    assert.deepEqual(json(await cmd('C201', 'trigger-message', { message: 'Heartbeat' })).request, { requestedMessage: 'Heartbeat' });
    const vars = json(await cmd('C201', 'get-configuration', { keys: ['SampledDataCtrlr.TxUpdatedInterval'] }));
    assert.deepEqual(
      [vars.status, vars.ocpp_action, vars.request, vars.response.getVariableResult[0].attributeValue],
      ['accepted', 'GetVariables', { getVariableData: [{ component: { name: 'SampledDataCtrlr' }, variable: { name: 'TxUpdatedInterval' } }] }, '60'],
    );
    const set = json(await cmd('C201', 'change-configuration', { key: 'SampledDataCtrlr.TxUpdatedInterval', value: '30' }));
    assert.deepEqual(
      [set.status, set.ocpp_action, set.request],
      [
        'accepted',
        'SetVariables',
        { setVariableData: [{ component: { name: 'SampledDataCtrlr' }, variable: { name: 'TxUpdatedInterval' }, attributeValue: '30' }] },
      ],
    );
    assert.equal(json(await cmd('C201', 'clear-cache', {})).status, 'rejected');
    assert.equal(got.length, 9);
    // Another charger's transaction is not this one's to stop.
    assertRefused(await cmd('C201', 'remote-stop', { transaction_id: stoppedTx }), 404, 'Transaction not found');
    // 2.0.1 configuration is named Component.Variable, and read only by naming it.
    assertRefused(await cmd('C201', 'get-configuration', {}), 422, { fields: ['body.keys'] });
    assertRefused(await cmd('C201', 'change-configuration', { key: 'HeartbeatInterval', value: '1' }), 422, { fields: ['body.key'] });
  });
});

describe('local authorisation lists', () => {
  const cpView = async (id: string) => json(await req('GET', `${H}/sites/cmd`, viewer)).charge_points.find((x: any) => x.charge_point_id === id);

  test('SendLocalList full and differential with a version per charger; GetLocalListVersion reconciles it (1.6 here, 2.0.1 over the bus)', async () => {
    for (const t of [
      { id_token: 'CARD-1', group_id: 'STAFF', expires_at: '2027-01-01T00:00:00Z' },
      { id_token: 'CARD-2', status: 'blocked' },
      { id_token: 'CARD-3', group_id: 'STAFF', type: 'Central' },
    ]) {
      assert.equal((await req('POST', `${H}/id-tokens`, admin, t)).statusCode, 201);
    }
    const c16 = await online(base, 'C16', 'ocpp1.6');
    let answer = 'Accepted';
    const got = answering(c16, { SendLocalList: () => ({ status: answer }), GetLocalListVersion: () => ({ listVersion: 7 }) });
    assert.equal((await cpView('C16')).local_list_version, 0);

    const full = json(await cmd('C16', 'send-local-list', { update_type: 'full' }));
    assert.deepEqual([full.status, full.ocpp_action], ['accepted', 'SendLocalList']);
    assert.deepEqual(full.request, {
      listVersion: 1,
      updateType: 'Full',
      localAuthorizationList: [
        { idTag: 'CARD-1', idTagInfo: { status: 'Accepted', expiryDate: '2027-01-01T00:00:00.000Z', parentIdTag: 'STAFF' } },
        { idTag: 'CARD-2', idTagInfo: { status: 'Blocked' } },
        { idTag: 'CARD-3', idTagInfo: { status: 'Accepted', parentIdTag: 'STAFF' } },
      ],
    });
    assert.equal((await cpView('C16')).local_list_version, 1);
    // One group only.
    const staff = json(await cmd('C16', 'send-local-list', { update_type: 'full', group_id: 'STAFF' }));
    assert.deepEqual([staff.request.listVersion, staff.request.localAuthorizationList.map((e: any) => e.idTag)], [2, ['CARD-1', 'CARD-3']]);
    // Differential: a token not held is removed (sent without idTagInfo).
    const diff = json(await cmd('C16', 'send-local-list', { update_type: 'differential', id_tokens: ['card-2', 'GONE'] }));
    assert.deepEqual(diff.request, {
      listVersion: 3,
      updateType: 'Differential',
      localAuthorizationList: [{ idTag: 'CARD-2', idTagInfo: { status: 'Blocked' } }, { idTag: 'GONE' }],
    });
    assert.equal((await cpView('C16')).local_list_version, 3);
    // Refused by the charger: its version stays.
    answer = 'VersionMismatch';
    const refused = json(await cmd('C16', 'send-local-list', { update_type: 'full' }));
    assert.deepEqual([refused.status, refused.request.listVersion, refused.response], ['rejected', 4, { status: 'VersionMismatch' }]);
    assert.equal((await cpView('C16')).local_list_version, 3);
    // The charger says which version it holds: the hub takes it, and the next list follows on from it.
    const ver = json(await cmd('C16', 'get-local-list-version', {}));
    assert.deepEqual([ver.status, ver.response], ['accepted', { listVersion: 7 }]);
    assert.equal((await cpView('C16')).local_list_version, 7);
    answer = 'Accepted';
    assert.equal(json(await cmd('C16', 'send-local-list', { update_type: 'differential', id_tokens: ['CARD-1'] })).request.listVersion, 8);
    assert.equal(got.length, 6);

    const c201 = await online(base2, 'C201', 'ocpp2.0.1');
    answering(c201, { SendLocalList: () => ({ status: 'Accepted' }), GetLocalListVersion: () => ({ versionNumber: 1 }) });
    const f201 = json(await cmd('C201', 'send-local-list', { update_type: 'full', group_id: 'STAFF' }));
    assert.deepEqual(f201.request, {
      versionNumber: 1,
      updateType: 'Full',
      localAuthorizationList: [
        {
          idToken: { idToken: 'CARD-1', type: 'ISO14443' },
          idTokenInfo: { status: 'Accepted', cacheExpiryDateTime: '2027-01-01T00:00:00.000Z', groupIdToken: { idToken: 'STAFF', type: 'Central' } },
        },
        { idToken: { idToken: 'CARD-3', type: 'Central' }, idTokenInfo: { status: 'Accepted', groupIdToken: { idToken: 'STAFF', type: 'Central' } } },
      ],
    });
    assert.equal(json(await cmd('C201', 'get-local-list-version', {})).response.versionNumber, 1);
    assert.equal((await cpView('C201')).local_list_version, 1);

    assertRefused(await cmd('C16', 'send-local-list', { update_type: 'differential' }), 422, { fields: ['body.id_tokens'] });
    assertRefused(await cmd('C16', 'send-local-list', { update_type: 'full', id_tokens: ['CARD-1'] }), 422, { fields: ['body.id_tokens'] });
    assertRefused(await cmd('C16', 'send-local-list', { update_type: 'all' }), 422, { fields: ['body.update_type'] });
    assertRefused(await cmd('C16', 'send-local-list', { update_type: 'full' }, viewer), 403, 'Insufficient permissions');
  });
});

describe('reservations', () => {
  test('ReserveNow with a reservation id the hub numbers, CancelReservation of it; 1.6 here, 2.0.1 over the bus', async () => {
    clock.set('2026-05-01T10:00:00Z');
    const c16 = await online(base, 'C16', 'ocpp1.6');
    answering(c16, { ReserveNow: () => ({ status: 'Accepted' }), CancelReservation: () => ({ status: 'Accepted' }) });
    const r = json(await cmd('C16', 'reserve-now', { connector_id: 1, id_token: 'CARD-1', expires_at: '2026-05-01T10:30:00Z' }));
    assert.deepEqual([r.status, r.request.connectorId, r.request.idTag, r.request.expiryDate], ['accepted', 1, 'CARD-1', '2026-05-01T10:30:00.000Z']);
    assert.equal(typeof r.request.reservationId, 'number');
    const c = json(await cmd('C16', 'cancel-reservation', { reservation_id: r.request.reservationId }));
    assert.deepEqual([c.status, c.request], ['accepted', { reservationId: r.request.reservationId }]);

    const c201 = await online(base2, 'C201', 'ocpp2.0.1');
    answering(c201, { ReserveNow: () => ({ status: 'Occupied' }) });
    const r201 = json(await cmd('C201', 'reserve-now', { id_token: 'CARD-3', expires_at: '2026-05-01T11:00:00Z' }));
    assert.deepEqual(
      [r201.status, r201.request.idToken, r201.request.expiryDateTime, 'evseId' in r201.request, r201.response],
      ['rejected', { idToken: 'CARD-3', type: 'Central' }, '2026-05-01T11:00:00.000Z', false, { status: 'Occupied' }],
    );
    assertRefused(await cmd('C16', 'reserve-now', { id_token: 'CARD-1', expires_at: '2026-05-01T09:59:00Z' }), 422, { fields: ['body.expires_at'] });
    assertRefused(await cmd('C16', 'cancel-reservation', { reservation_id: 0 }), 422, { fields: ['body.reservation_id'] });
    assertRefused(await cmd('C16', 'reserve-now', { id_token: 'CARD-1', expires_at: '2026-05-01T11:00:00Z' }, viewer), 403, 'Insufficient permissions');
  });
});

describe('firmware and diagnostics', () => {
  const cpView = async (id: string) => json(await req('GET', `${H}/sites/cmd`, viewer)).charge_points.find((x: any) => x.charge_point_id === id);

  test('UpdateFirmware and GetDiagnostics / GetLog sent, their status notifications kept on the charge point; 1.6 here, 2.0.1 over the bus', async () => {
    clock.set('2026-05-02T08:00:00Z');
    const c16 = await online(base, 'C16', 'ocpp1.6');
    answering(c16, { UpdateFirmware: () => ({}), GetDiagnostics: () => ({ fileName: 'diag-C16.zip' }) });
    const fw = json(await cmd('C16', 'update-firmware', { location: 'https://firmware.example.com/wallbox/6.1.bin', retrieve_at: '2026-05-02T09:00:00Z' }));
    assert.deepEqual(
      [fw.status, fw.ocpp_action, fw.request, fw.response],
      ['accepted', 'UpdateFirmware', { location: 'https://firmware.example.com/wallbox/6.1.bin', retrieveDate: '2026-05-02T09:00:00.000Z' }, {}],
    );
    assert.equal((await cpView('C16')).firmware_status, null);
    await c16.call('FirmwareStatusNotification', { status: 'Downloading' });
    clock.set('2026-05-02T09:10:00Z');
    await c16.call('FirmwareStatusNotification', { status: 'Installed' });
    assert.deepEqual((await cpView('C16')).firmware_status, { status: 'Installed', at: '2026-05-02T09:10:00.000Z' });
    const diag = json(await cmd('C16', 'get-diagnostics', { location: 'ftp://logs.example.com/up/', since: '2026-05-01T00:00:00Z' }));
    assert.deepEqual(
      [diag.status, diag.request, diag.response],
      ['accepted', { location: 'ftp://logs.example.com/up/', startTime: '2026-05-01T00:00:00.000Z' }, { fileName: 'diag-C16.zip' }],
    );
    await c16.call('DiagnosticsStatusNotification', { status: 'Uploaded' });
    assert.deepEqual((await cpView('C16')).diagnostics_status, { status: 'Uploaded', at: '2026-05-02T09:10:00.000Z' });

    const c201 = await online(base2, 'C201', 'ocpp2.0.1');
    answering(c201, { UpdateFirmware: () => ({ status: 'Accepted' }), GetLog: () => ({ status: 'Rejected' }) });
    const fw201 = json(await cmd('C201', 'update-firmware', { location: 'https://firmware.example.com/abb/2.bin' }));
    assert.deepEqual(
      [fw201.status, fw201.request.firmware],
      ['accepted', { location: 'https://firmware.example.com/abb/2.bin', retrieveDateTime: '2026-05-02T09:10:00.000Z' }],
    );
    await c201.call('FirmwareStatusNotification', { status: 'Installing', requestId: fw201.request.requestId });
    assert.equal((await cpView('C201')).firmware_status.status, 'Installing');
    const log = json(await cmd('C201', 'get-diagnostics', { location: 'https://logs.example.com/up' }));
    assert.deepEqual(
      [log.status, log.ocpp_action, log.request.logType, log.request.log],
      ['rejected', 'GetLog', 'DiagnosticsLog', { remoteLocation: 'https://logs.example.com/up' }],
    );
    await c201.call('LogStatusNotification', { status: 'UploadFailure', requestId: log.request.requestId });
    assert.equal((await cpView('C201')).diagnostics_status.status, 'UploadFailure');

    assertRefused(await cmd('C16', 'update-firmware', { location: 'file:///etc/passwd' }), 422, { fields: ['body.location'] });
    assertRefused(
      await cmd('C16', 'get-diagnostics', { location: 'https://x.example.com', since: '2026-05-02T00:00:00Z', until: '2026-05-01T00:00:00Z' }),
      422,
      {
        fields: ['body.until'],
      },
    );
    assertRefused(await cmd('C16', 'update-firmware', { location: 'https://x.example.com/f.bin' }, viewer), 403, 'Insufficient permissions');
  });
});

describe('refusals, offline, timeout, audit', () => {
  test('wrong role, other organisation, unknown charger, bad input', async () => {
    assertRefused(await cmd('C16', 'reset', { type: 'soft' }, viewer), 403, 'Insufficient permissions');
    assertRefused(await cmd('C16', 'reset', { type: 'soft' }, other), 404, 'Charge point not found');
    assertRefused(await cmd('NOPE', 'reset', { type: 'soft' }), 404, 'Charge point not found');
    assertRefused(await cmd('C16', 'reset', { type: 'gentle' }), 422, { fields: ['body.type'] });
    assertRefused(await cmd('C16', 'trigger-message', { message: 'SignV2GCertificate', extra: 1 }), 422, {});
    assertRefused(await cmd('C16', 'unlock-connector', { connector_id: 0 }), 422, { fields: ['body.connector_id'] });
    assertRefused(await req('GET', `${H}/charge-points/C16/commands`, other), 404, 'Charge point not found');
    assertRefused(await req('GET', `${H}/charge-points/C16/commands?limit=0`, viewer), 422, { fields: ['query.limit'] });
    const anyCommand = json(await req('GET', `${H}/charge-points/C16/commands?limit=1`, viewer)).commands[0];
    assertRefused(await req('GET', `${H}/commands/${anyCommand.command_id}`, other), 404, 'Command not found');
    assertRefused(await req('GET', `${H}/commands/not-a-uuid`, viewer), 422, { fields: ['path.command_id'] });
  });

  test('a charger not connected: 409, the command stored as offline and not sent', async () => {
    assertRefused(await cmd('COFF', 'clear-cache', {}), 409, 'Charge point not connected');
    // It connected once and dropped: the same, with the version it last spoke.
    const c = await online(base, 'COFF', 'ocpp1.6');
    await c.close({ force: true });
    await eventually(async () => {
      const site = json(await req('GET', `${H}/sites/cmd`, viewer));
      return site.charge_points.find((x: any) => x.charge_point_id === 'COFF')?.connected === false;
    }, 'COFF shown not connected');
    clock.advance(1_000);
    assertRefused(await cmd('COFF', 'reset', { type: 'hard' }), 409, 'Charge point not connected');
    const list = json(await req('GET', `${H}/charge-points/COFF/commands`, viewer)).commands;
    assert.deepEqual(
      list.map((x: any) => [x.action, x.status, x.ocpp_action, x.request, x.completed_at !== null]),
      [
        ['reset', 'offline', 'Reset', { type: 'Hard' }, true],
        ['clear-cache', 'offline', null, null, true],
      ],
    );
  });

  test('a charger that does not answer: timeout after HUB_COMMAND_TIMEOUT_MS', async () => {
    const c = await online(base, 'CSLOW', 'ocpp1.6');
    c.handle('ClearCache', () => new Promise(() => {}));
    const r = json(await cmd('CSLOW', 'clear-cache', {}));
    assert.deepEqual([r.status, r.response, r.error], ['timeout', null, 'The charger did not answer in time']);
  });

  test('every command is audited', async () => {
    const audit = json(
      await svc.request({ method: 'GET', url: '/api/hardware/admin/audit-log?action=hub.command.send&limit=200', headers: auth(admin) }),
    ).entries;
    const stored = [];
    for (const cp of ['C16', 'C201', 'COFF', 'CSLOW']) stored.push(...json(await req('GET', `${H}/charge-points/${cp}/commands?limit=200`, viewer)).commands);
    assert.deepEqual(audit.map((e: any) => e.details.command_id).sort(), stored.map((x: any) => x.command_id).sort());
    assert.ok(audit.every((e: any) => e.target_type === 'hub_charge_point'));
  });
});
