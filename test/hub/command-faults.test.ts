// Commands whose outcome the hub could not record at once (issue 39: "whether a store timeout after
// a charger's answer leaves a command pending"): a charger's answer the store cannot hold, and a
// service that stopped between sending a command and recording its answer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, realServers, type TestService } from '../helpers/service.ts';
import { hubStore } from '../../src/modules/hub/store.ts';
import { STALE_COMMAND_ERROR } from '../../src/modules/hub/services/commands.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { eventually } from '../helpers/eventually.ts';
import { auth, charger, listen, siteWithCharger, type Charger } from './helpers.ts';

const H = '/api/csms/api/hub';
const ORG = 'hub-cmd-faults';
let svc: TestService;
let base: string;
let operator: string;
const clock = new ManualClock(new Date('2026-05-01T09:00:00.000Z'));
const open: Charger[] = [];
const pw: Record<string, string> = {};
const LOST = '7f1e2d3c-4b5a-4678-9abc-def012345678';

before(async () => {
  svc = await startTestService({ clock, env: { HUB_COMMAND_TIMEOUT_MS: '1500' } });
  await svc.createOrg(ORG);
  const admin = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: '400d' });
  operator = await svc.token({ orgId: ORG, roles: ['OPERATOR'], expiresIn: '400d' });
  base = await listen(svc);
  for (const id of ['F16']) {
    pw[id] = (
      await siteWithCharger(svc, admin, { site_id: 'f', name: 'Faults', free_vend: true }, { charge_point_id: id, max_power_kw: 22, connectors: 2 })
    ).password;
  }
});
after(async () => {
  await Promise.allSettled(open.map((c) => c.close({ force: true })));
  await svc?.stop();
});

async function online(id: string) {
  const c = charger({ base, orgId: ORG, id, password: pw[id], protocol: 'ocpp1.6' });
  open.push(c);
  await c.connect();
  await eventually(async () => {
    const site = json(await svc.request({ method: 'GET', url: `${H}/sites/f`, headers: auth(operator) }));
    return site.charge_points.find((x: any) => x.charge_point_id === id)?.connected === true;
  }, `${id} shown connected`);
  return c;
}

/** Sends a command as the operator; answers the response. */
const command = (cp: string, name: string, payload: object = {}) =>
  svc.request({ method: 'POST', url: `${H}/charge-points/${cp}/commands/${name}`, headers: auth(operator), payload });
const commands = async (cp: string) => json(await svc.request({ method: 'GET', url: `${H}/charge-points/${cp}/commands`, headers: auth(operator) })).commands;

test("a charger's answer with text no store can hold: the command is failed with the reason, never a 500 or pending", async () => {
  const c = await online('F16');
  c.handle('GetConfiguration', () => ({ configurationKey: [{ key: 'Vendor\u0000Key', readonly: true, value: 'a\u0000b' }] }));
  const res = await command('F16', 'get-configuration');
  assert.equal(res.statusCode, 201, res.body);
  const body = json(res);
  assert.deepEqual(
    [body.status, body.response, body.error],
    [
      'failed',
      null,
      "PropertyConstraintViolation: The charger's answer is refused: A text value holds a character no store can hold (a NUL character or an unpaired surrogate)",
    ],
  );
  assert.equal((await commands('F16'))[0].status, 'failed');
  // An unpaired surrogate in a key: the same.
  c.handle('GetConfiguration', () => ({ configurationKey: [{ key: 'K', readonly: true, value: 'x\ud800' }] }));
  assert.equal(json(await command('F16', 'get-configuration')).status, 'failed');
});

test("a charger's CALL with text no store can hold: PropertyConstraintViolation before anything of it is stored", async () => {
  const loose = charger({ base, orgId: ORG, id: 'F16', password: pw.F16, protocol: 'ocpp1.6', strict: false });
  open.push(loose);
  await loose.connect();
  await loose.call('StatusNotification', { connectorId: 1, errorCode: 'NoError', status: 'Available', timestamp: clock.now().toISOString() });
  await assert.rejects(
    loose.call('StatusNotification', { connectorId: 1, errorCode: 'OtherError', status: 'Faulted', info: 'bad\u0000', timestamp: clock.now().toISOString() }),
    (e: any) => {
      assert.equal(e.rpcErrorCode, 'PropertyConstraintViolation');
      assert.equal(e.message, 'A text value holds a character no store can hold (a NUL character or an unpaired surrogate)');
      return true;
    },
  );
  const site = json(await svc.request({ method: 'GET', url: `${H}/sites/f`, headers: auth(operator) }));
  const cp = site.charge_points.find((x: any) => x.charge_point_id === 'F16');
  assert.deepEqual(
    cp.connector_status.map((x: any) => [x.connector_id, x.status]),
    [[1, 'Available']],
    'the refused report stored nothing',
  );
  // The connection stays: the next good CALL is answered.
  const hb = await loose.call('Heartbeat', {});
  assert.equal(typeof hb.currentTime, 'string');
  await loose.close({ force: true });
});

test('a command left pending (its instance stopped before recording the answer) is failed with the reason once overdue, by the maintenance step', async () => {
  const now = clock.now();
  // What an instance killed between sending the CALL and recording the answer leaves behind.
  await hubStore.insertCommand(
    svc.deps.db,
    ORG,
    {
      command_id: LOST,
      charge_point_id: 'F16',
      action: 'reset',
      parameters: { type: 'soft' },
      ocpp_version: 'ocpp1.6',
      ocpp_action: 'Reset',
      request: { type: 'Soft' },
      created_by: 'user-x',
      status: 'pending',
    },
    now,
  );
  const read = async () => json(await svc.request({ method: 'GET', url: `${H}/commands/${LOST}`, headers: auth(operator) }));
  // Within the command timeout and the minute's grace it is still waiting for its answer.
  clock.set(new Date(now.getTime() + 1_500 + 59_000));
  await svc.runDue();
  assert.equal((await read()).status, 'pending');
  // The step runs every minute: the next run after the answer is overdue by more than a minute.
  clock.set(new Date(now.getTime() + 125_000));
  await svc.runDue();
  const after = await read();
  assert.deepEqual([after.status, after.error, after.completed_at], ['failed', STALE_COMMAND_ERROR, clock.now().toISOString()]);
});

test('a store timeout after the charger answered: 503 with Retry-After, then the command is failed by the maintenance step', {
  skip: !realServers.database && 'the fault holds a lock from a second connection: PostgreSQL only',
}, async () => {
  const c = await online('F16');
  let release: () => void = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  let locked!: Promise<void>;
  c.handle('ClearCache', async () => {
    // The command's row is written; now hold its table so recording the answer waits out the
    // statement timeout.
    let ready!: () => void;
    const got = new Promise<void>((r) => {
      ready = r;
    });
    locked = svc.deps.db.tx(async (q) => {
      await q.query('lock table hub_commands in share mode');
      ready();
      await held;
    });
    await got;
    return { status: 'Accepted' };
  });
  const res = await command('F16', 'clear-cache');
  release();
  await locked;
  assert.equal(res.statusCode, 503, res.body);
  assert.equal(res.headers['retry-after'], '5');
  const pending = (await commands('F16')).find((x: any) => x.action === 'clear-cache');
  assert.equal(pending.status, 'pending', 'the answer could not be recorded');
  clock.set(new Date(clock.now().getTime() + 125_000));
  await svc.runDue();
  const after = json(await svc.request({ method: 'GET', url: `${H}/commands/${pending.command_id}`, headers: auth(operator) }));
  assert.deepEqual([after.status, after.error], ['failed', STALE_COMMAND_ERROR]);
});
