// Official schemas both ways (issue 39 item 4, decision 0435): every CALL a charger sends is checked
// against its version's official JSON schema (ocpp-rpc strict mode) and a malformed one gets the
// CALLERROR of that version's OCPP-J table, in its spelling (1.6: FormationViolation,
// OccurenceConstraintViolation; 2.0.1: FormatViolation, OccurrenceConstraintViolation), chosen by
// the rule the payload breaks, with a description naming the field and the rule and nothing else
// (no library or runtime text, nothing the charger sent, empty details). What the hub sends is
// checked too: a charger's answer to a command that breaks the schema fails the command, and a CALL
// of the hub's that breaks it is never sent.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createOcppGateway, type OcppCall } from '../../src/modules/hub/ocpp.ts';
import type { ChargePointRow } from '../../src/modules/hub/store.ts';
import { TELEMETRY_WRITER } from '../../src/modules/telemetry/index.ts';
import { auth, charger, listen, siteWithCharger, type Charger } from './helpers.ts';

const H = '/api/csms/api/hub';
const ORG = 'hub-schemas';
let svc: TestService;
let base: string;
let admin: string;
let operator: string;
const clock = new ManualClock(new Date('2026-06-01T09:00:00.000Z'));
const open: Charger[] = [];
const pw: Record<string, string> = {};

before(async () => {
  svc = await startTestService({ clock });
  await svc.createOrg(ORG);
  admin = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: '400d' });
  operator = await svc.token({ orgId: ORG, roles: ['OPERATOR'], expiresIn: '400d' });
  base = await listen(svc);
  for (const id of ['S16', 'S201', 'SOUT']) {
    pw[id] = (await siteWithCharger(svc, admin, { site_id: 'schemas', name: 'Schemas', free_vend: true }, { charge_point_id: id, max_power_kw: 22 })).password;
  }
});
after(async () => {
  await Promise.allSettled(open.map((c) => c.close({ force: true })));
  await svc?.stop();
});

/** A charger that does not check what it sends (so it can send what the schemas refuse). */
async function loose(id: string, protocol: 'ocpp1.6' | 'ocpp2.0.1', on = base) {
  const c = charger({ base: on, orgId: ORG, id, password: pw[id], protocol, strict: false });
  open.push(c);
  await c.connect();
  return c;
}

/** Sends raw frames and resolves with the CALLERROR frame answering each, as it came over the wire. */
function rawCalls(c: Charger) {
  const waiting = new Map<string, (f: unknown[]) => void>();
  c.on('message', (m: { message: string; outbound: boolean }) => {
    if (m.outbound) return;
    let f: unknown;
    try {
      f = JSON.parse(m.message);
    } catch {
      return;
    }
    if (Array.isArray(f) && f[0] === 4) waiting.get(String(f[1]))?.(f);
  });
  return (id: string, frame: string) =>
    new Promise<unknown[]>((resolve) => {
      waiting.set(id, resolve);
      c.sendRaw(frame);
    });
}

/** Text a CALLERROR must never carry: runtime or library words, code locations, what the charger sent. */
const INTERNAL = /Error:|error:|\bat \S+ \(|node_modules|\.ts\b|\.js\b|ocpp-rpc|ajv|urn:|\bdata\b|JSON at position|Unexpected token|Unable to handle|MARK/;

type Case = [name: string, frame: (id: string) => string, code: string, description: string];
const call = (action: string, payload: unknown) => (id: string) => JSON.stringify([2, id, action, payload]);

function expectAll(send: ReturnType<typeof rawCalls>, cases: Case[]) {
  return Promise.all(
    cases.map(async ([name, frame, code, description], i) => {
      const id = name === 'not JSON' ? '-1' : `m${i}`;
      const f = await send(id, frame(id));
      assert.deepEqual(f, [4, id, code, description, {}], name);
      assert.doesNotMatch(String(f[3]), INTERNAL, name);
    }),
  );
}

describe('malformed CALLs: the CALLERROR of the version, no internal text', () => {
  test('OCPP 1.6: FormationViolation, OccurenceConstraintViolation (the 1.6 spellings), PropertyConstraintViolation, TypeConstraintViolation, NotImplemented', async () => {
    const c = await loose('S16', 'ocpp1.6');
    const send = rawCalls(c);
    const boot = { chargePointVendor: 'V', chargePointModel: 'M' };
    const status = { connectorId: 1, errorCode: 'NoError', status: 'Available' };
    const cases: Case[] = [
      ['wrong type', call('StatusNotification', { ...status, connectorId: 'MARK-one' }), 'TypeConstraintViolation', '/connectorId must be integer'],
      [
        'wrong type (start)',
        call('StartTransaction', { connectorId: 1, idTag: 'A', meterStart: '10', timestamp: '2026-06-01T09:00:00Z' }),
        'TypeConstraintViolation',
        '/meterStart must be integer',
      ],
      [
        'missing field',
        call('BootNotification', { chargePointModel: 'M' }),
        'OccurenceConstraintViolation',
        "payload must have required property 'chargePointVendor'",
      ],
      [
        'field not in the schema',
        call('BootNotification', { ...boot, MARKfield: 1 }),
        'OccurenceConstraintViolation',
        'payload must NOT have additional properties',
      ],
      [
        'value too long',
        call('BootNotification', { ...boot, chargePointVendor: `MARK${'v'.repeat(30)}` }),
        'PropertyConstraintViolation',
        '/chargePointVendor must NOT have more than 20 characters',
      ],
      [
        'value outside the enumeration',
        call('StatusNotification', { ...status, status: 'MARK-Sleeping' }),
        'PropertyConstraintViolation',
        '/status must be equal to one of the allowed values',
      ],
      [
        'value not a date-time',
        call('StatusNotification', { ...status, timestamp: 'MARK-yesterday' }),
        'PropertyConstraintViolation',
        '/timestamp must match format "date-time"',
      ],
      ['payload not an object', call('Heartbeat', 'MARK'), 'FormationViolation', 'payload must be object'],
      ['not JSON', () => 'MARK not json', 'FormationViolation', 'The message is not an OCPP-J RPC message'],
      ['unknown action', call('MARKAction', {}), 'NotImplemented', 'The action is not implemented'],
    ];
    await expectAll(send, cases);
    // The same through ocpp-rpc's own client: it reads the 1.6 codes as the spec spells them.
    await assert.rejects(c.call('BootNotification', { chargePointModel: 'M' }), (e: any) => e.rpcErrorCode === 'OccurenceConstraintViolation');
    assert.ok((await c.call('Heartbeat', {})).currentTime, 'the connection stays');
  });

  test('OCPP 2.0.1: FormatViolation, OccurrenceConstraintViolation (the 2.0.1 spellings), PropertyConstraintViolation, TypeConstraintViolation, RpcFrameworkError, NotImplemented', async () => {
    const c = await loose('S201', 'ocpp2.0.1');
    const send = rawCalls(c);
    const boot = { reason: 'PowerUp', chargingStation: { model: 'M', vendorName: 'V' } };
    const status = { timestamp: '2026-06-01T09:00:00Z', connectorStatus: 'Available', evseId: 1, connectorId: 1 };
    const ev = { eventType: 'Started', timestamp: '2026-06-01T09:00:00Z', triggerReason: 'Authorized', seqNo: 0, transactionInfo: { transactionId: 'T1' } };
    const cases: Case[] = [
      ['wrong type', call('StatusNotification', { ...status, evseId: 'MARK-one' }), 'TypeConstraintViolation', '/evseId must be integer'],
      ['wrong type (seqNo)', call('TransactionEvent', { ...ev, seqNo: 'MARK' }), 'TypeConstraintViolation', '/seqNo must be integer'],
      ['wrong type (offline)', call('TransactionEvent', { ...ev, offline: 'MARK' }), 'TypeConstraintViolation', '/offline must be boolean'],
      [
        'missing field',
        call('BootNotification', { reason: 'PowerUp', chargingStation: { model: 'M' } }),
        'OccurrenceConstraintViolation',
        "/chargingStation must have required property 'vendorName'",
      ],
      ['field not in the schema', call('Heartbeat', { MARK: 1 }), 'OccurrenceConstraintViolation', 'payload must NOT have additional properties'],
      [
        'id token type outside the enumeration',
        call('Authorize', { idToken: { idToken: 'A', type: 'MARK-Card' } }),
        'PropertyConstraintViolation',
        '/idToken/type must be equal to one of the allowed values',
      ],
      [
        'value too long',
        call('BootNotification', { ...boot, chargingStation: { model: 'M', vendorName: `MARK${'v'.repeat(60)}` } }),
        'PropertyConstraintViolation',
        '/chargingStation/vendorName must NOT have more than 50 characters',
      ],
      ['payload not an object', call('Heartbeat', ['MARK']), 'FormatViolation', 'payload must be object'],
      ['not JSON', () => 'MARK not json', 'RpcFrameworkError', 'The message is not an OCPP-J RPC message'],
      ['unknown action', call('MARKAction', {}), 'NotImplemented', 'The action is not implemented'],
    ];
    await expectAll(send, cases);
    assert.ok((await c.call('Heartbeat', {})).currentTime, 'the connection stays');
  });
});

describe('what the hub sends is checked against the schemas too', () => {
  test("a charger's answer to a command that breaks the schema: the command failed, with the rule it broke (1.6 and 2.0.1)", async () => {
    const c16 = await loose('S16', 'ocpp1.6');
    c16.handle('ClearCache', () => ({ status: 'Maybe' }));
    c16.handle('Reset', () => ({}));
    const cmd = async (cp: string, name: string, body: object) =>
      json(await svc.request({ method: 'POST', url: `${H}/charge-points/${cp}/commands/${name}`, headers: auth(operator), payload: body }));
    const clear = await cmd('S16', 'clear-cache', {});
    assert.deepEqual(
      [clear.status, clear.response, clear.error],
      ['failed', null, "PropertyConstraintViolation: The charger's answer does not match the OCPP schema (/status must be equal to one of the allowed values)"],
    );
    const reset = await cmd('S16', 'reset', { type: 'soft' });
    assert.deepEqual(
      [reset.status, reset.error],
      ['failed', "OccurrenceConstraintViolation: The charger's answer does not match the OCPP schema (payload must have required property 'status')"],
    );
    const c201 = await loose('S201', 'ocpp2.0.1');
    c201.handle('ClearCache', () => ({ status: 7 }));
    const clear201 = await cmd('S201', 'clear-cache', {});
    assert.deepEqual(
      [clear201.status, clear201.error],
      ['failed', "TypeConstraintViolation: The charger's answer does not match the OCPP schema (/status must be string)"],
    );
  });

  test('a CALL of the hub that breaks the schema is not sent: the outcome says so, the charger receives nothing', async () => {
    // A second gateway on the same store, on its own HTTP server: its command() is reached directly
    // (the API refuses such parameters before they get this far, e.g. a 1.6 idTag over 20 characters).
    const d = svc.deps;
    const gw = createOcppGateway({
      db: d.db,
      bus: d.bus,
      clock,
      log: d.log,
      writer: d.services.get(TELEMETRY_WRITER),
      settings: { heartbeatIntervalS: 300, commandTimeoutMs: 2_000, maxFrameBytes: 256 * 1024, badMessagesPerMinute: 20 },
      entries: d.entries,
      failedAuth: d.failedAuth,
      metrics: { counter: () => ({ inc() {} }) } as never,
      trustProxy: [],
    } as Parameters<typeof createOcppGateway>[0]);
    const server = createServer();
    await gw.start(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      const c = await loose('SOUT', 'ocpp1.6', `ws://127.0.0.1:${port}`);
      const received: string[] = [];
      c.on('message', (m: { message: string; outbound: boolean }) => !m.outbound && received.push(m.message));
      c.handle('RemoteStartTransaction', () => ({ status: 'Accepted' }));
      const cp = { charge_point_id: 'SOUT' } as ChargePointRow;
      const bad = await gw.command(ORG, cp, { version: 'ocpp1.6', action: 'RemoteStartTransaction', params: { idTag: 'A'.repeat(21) } } as OcppCall);
      assert.deepEqual(bad, {
        delivery: 'error',
        result: null,
        error: 'PropertyConstraintViolation: The request was not sent: it does not match the OCPP schema (/idTag must NOT have more than 20 characters)',
      });
      const missing = await gw.command(ORG, cp, { version: 'ocpp1.6', action: 'RemoteStartTransaction', params: {} } as OcppCall);
      assert.match(String(missing.error), /^OccurrenceConstraintViolation: The request was not sent/);
      assert.deepEqual(received, [], 'nothing reached the charger');
      // The same CALL well formed goes out and is answered.
      const ok = await gw.command(ORG, cp, { version: 'ocpp1.6', action: 'RemoteStartTransaction', params: { idTag: 'A'.repeat(20) } });
      assert.deepEqual([ok.delivery, ok.result], ['local', { status: 'Accepted' }]);
      assert.equal(received.length, 1);
      await c.close({ force: true });
    } finally {
      await gw.closing();
      await gw.stop();
      await new Promise((r) => server.close(r));
    }
  });
});
