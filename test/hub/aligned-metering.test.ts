// Clock-aligned metering asked of chargers at boot (decision 0489), through real OCPP chargers
// (ocpp-rpc clients) and HTTP: with HUB_METER_ALIGNED_SECONDS set, an accepted BootNotification is
// followed (after its answer) by two change-configuration commands requested by `hub` (1.6
// ChangeConfiguration ClockAlignedDataInterval and MeterValuesAlignedData, 2.0.1 SetVariables
// AlignedDataCtrlr.Interval and .Measurands), each stored with the charger's answer and audited as
// the system's; a charger that refuses is recorded as rejected; an idle charger's aligned register
// is stored as its asset's telemetry. Unset (the default), the hub sends nothing at boot.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { eventually } from '../helpers/eventually.ts';
import { auth, charger, listen, siteWithCharger, type Charger } from './helpers.ts';
import { sample, scrape } from '../helpers/metrics.ts';

const H = '/api/csms/api/hub';
const ORG = 'hub-aligned';
const clock = new ManualClock(new Date('2026-05-01T09:00:00.000Z'));
let svc: TestService;
let plain: TestService;
let base: string;
let plainBase: string;
let admin: string;
let plainAdmin: string;
const open: Charger[] = [];
const pw: Record<string, string> = {};

before(async () => {
  svc = await startTestService({ clock, env: { HUB_METER_ALIGNED_SECONDS: '900' } });
  plain = await startTestService({ clock });
  for (const s of [svc, plain]) await s.createOrg(ORG);
  admin = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: '400d' });
  plainAdmin = await plain.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: '400d' });
  base = await listen(svc);
  plainBase = await listen(plain);
  for (const id of ['A16', 'A201', 'ANO', 'ALOOP', 'ALOOPNO', 'AFLOOD']) {
    pw[id] = (
      await siteWithCharger(svc, admin, { site_id: 'al', name: 'Aligned', free_vend: true }, { charge_point_id: id, max_power_kw: 22, connectors: 1 })
    ).password;
  }
  pw.PLAIN = (
    await siteWithCharger(plain, plainAdmin, { site_id: 'al', name: 'Aligned', free_vend: true }, { charge_point_id: 'PLAIN', max_power_kw: 22, connectors: 1 })
  ).password;
});
after(async () => {
  await Promise.allSettled(open.map((c) => c.close({ force: true })));
  await plain?.stop();
  await svc?.stop();
});

/** A charger that records the CALLs it receives and answers them with `answer`. */
async function boot(b: string, id: string, protocol: 'ocpp1.6' | 'ocpp2.0.1', answer: (action: string, params: any) => unknown) {
  const c = charger({ base: b, orgId: ORG, id, password: pw[id], protocol });
  open.push(c);
  const received: [string, unknown][] = [];
  for (const action of protocol === 'ocpp1.6' ? ['ChangeConfiguration'] : ['SetVariables'])
    c.handle(action, ({ params }) => {
      received.push([action, params]);
      return answer(action, params);
    });
  await c.connect();
  const boot =
    protocol === 'ocpp1.6'
      ? await c.call('BootNotification', { chargePointVendor: 'Acme', chargePointModel: 'One' })
      : await c.call('BootNotification', { reason: 'PowerUp', chargingStation: { vendorName: 'Acme', model: 'One' } });
  assert.equal(boot.status, 'Accepted');
  return { c, received };
}

async function commands(s: TestService, token: string, cp: string, n: number) {
  let list: Record<string, any>[] = [];
  await eventually(async () => {
    const r = await s.request({ method: 'GET', url: `${H}/charge-points/${cp}/commands`, headers: auth(token) });
    list = json(r).commands;
    return list.length === n && list.every((x) => x.status !== 'pending');
  }, `${n} settled commands of ${cp}`);
  return list.sort((x, y) => String(x.parameters.key).localeCompare(String(y.parameters.key)));
}

test('1.6: after the boot, ChangeConfiguration ClockAlignedDataInterval and MeterValuesAlignedData, stored as the hub’s accepted commands and audited as the system’s', async () => {
  const { c, received } = await boot(base, 'A16', 'ocpp1.6', () => ({ status: 'Accepted' }));
  const list = await commands(svc, admin, 'A16', 2);
  assert.deepEqual(
    list.map((x) => [x.action, x.parameters, x.ocpp_action, x.request, x.status, x.requested_by, x.response]),
    [
      [
        'change-configuration',
        { key: 'ClockAlignedDataInterval', value: '900' },
        'ChangeConfiguration',
        { key: 'ClockAlignedDataInterval', value: '900' },
        'accepted',
        'hub',
        { status: 'Accepted' },
      ],
      [
        'change-configuration',
        { key: 'MeterValuesAlignedData', value: 'Energy.Active.Import.Register' },
        'ChangeConfiguration',
        { key: 'MeterValuesAlignedData', value: 'Energy.Active.Import.Register' },
        'accepted',
        'hub',
        { status: 'Accepted' },
      ],
    ],
  );
  assert.equal(received.length, 2);
  const audit = json(await svc.request({ method: 'GET', url: '/api/hardware/admin/audit-log?limit=200', headers: auth(admin) }));
  const sent = audit.entries.filter((e: Record<string, any>) => e.action === 'hub.command.send' && e.target_id === 'A16');
  assert.equal(sent.length, 2);
  for (const e of sent) assert.equal(e.actor_type, 'system');

  // The idle charger's aligned register, with no transaction, is stored as its asset's telemetry.
  for (const at of ['2026-05-01T09:00:00.000Z', '2026-05-01T09:15:00.000Z']) {
    clock.set(at);
    await c.call('MeterValues', {
      connectorId: 1,
      meterValue: [{ timestamp: at, sampledValue: [{ value: '1000', measurand: 'Energy.Active.Import.Register', unit: 'Wh', context: 'Sample.Clock' }] }],
    });
  }
  const h = json(await svc.request({ method: 'GET', url: '/api/telemetry/assets/ev/A16/history?metric=sessions&range=hourly', headers: auth(admin) }));
  assert.deepEqual(
    h.series.map((p: { t: string; v: number }) => [p.t, p.v]),
    [['2026-05-01T09:00:00Z', 0]],
    'an idle quarter hour: 0 kWh delivered, measured',
  );
});

test('2.0.1: SetVariables AlignedDataCtrlr.Interval and AlignedDataCtrlr.Measurands', async () => {
  const { received } = await boot(base, 'A201', 'ocpp2.0.1', (_a, p) => ({
    setVariableResult: p.setVariableData.map((d: Record<string, unknown>) => ({ attributeStatus: 'Accepted', component: d.component, variable: d.variable })),
  }));
  const list = await commands(svc, admin, 'A201', 2);
  assert.deepEqual(
    list.map((x) => [x.parameters.key, x.ocpp_action, x.status, x.requested_by]),
    [
      ['AlignedDataCtrlr.Interval', 'SetVariables', 'accepted', 'hub'],
      ['AlignedDataCtrlr.Measurands', 'SetVariables', 'accepted', 'hub'],
    ],
  );
  assert.deepEqual(
    received.map(([, p]) => (p as { setVariableData: unknown[] }).setVariableData).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
    [
      [{ component: { name: 'AlignedDataCtrlr' }, variable: { name: 'Interval' }, attributeValue: '900' }],
      [{ component: { name: 'AlignedDataCtrlr' }, variable: { name: 'Measurands' }, attributeValue: 'Energy.Active.Import.Register' }],
    ],
  );
});

test('a charger that refuses the setting: its answer is recorded (rejected) and nothing else happens to it', async () => {
  const { c } = await boot(base, 'ANO', 'ocpp1.6', () => ({ status: 'Rejected' }));
  const list = await commands(svc, admin, 'ANO', 2);
  assert.deepEqual(
    list.map((x) => [x.parameters.key, x.status, x.response]),
    [
      ['ClockAlignedDataInterval', 'rejected', { status: 'Rejected' }],
      ['MeterValuesAlignedData', 'rejected', { status: 'Rejected' }],
    ],
  );
  assert.equal((await c.call('Heartbeat', {})).currentTime !== undefined, true, 'the charger stays connected and answered');
});

test('unset (the default): the hub sends a booted charger nothing', async () => {
  const { c, received } = await boot(plainBase, 'PLAIN', 'ocpp1.6', () => ({ status: 'Accepted' }));
  // A CALL the charger makes after the boot is answered after anything the hub sent on the boot.
  await c.call('Heartbeat', {});
  const r = await plain.request({ method: 'GET', url: `${H}/charge-points/PLAIN/commands`, headers: auth(plainAdmin) });
  assert.equal(r.statusCode, 200);
  assert.deepEqual(json(r).commands, []);
  assert.deepEqual(received, []);
});

test('a charger that boots in a loop is not asked again: an accepted setting waits a day, a refused one ten minutes (decision 0493)', async () => {
  clock.set('2026-05-02T09:00:00.000Z');
  const yes = await boot(base, 'ALOOP', 'ocpp1.6', () => ({ status: 'Accepted' }));
  const no = await boot(base, 'ALOOPNO', 'ocpp1.6', () => ({ status: 'Rejected' }));
  await commands(svc, admin, 'ALOOP', 2);
  await commands(svc, admin, 'ALOOPNO', 2);
  /** Boots again; the Heartbeat after it is answered after anything the hub sent on that boot. */
  const reboot = async (c: Charger) => {
    assert.equal((await c.call('BootNotification', { chargePointVendor: 'Acme', chargePointModel: 'One' })).status, 'Accepted');
    await c.call('Heartbeat', {});
  };
  for (let i = 0; i < 5; i++) {
    await reboot(yes.c);
    await reboot(no.c);
  }
  // Ten minutes on: the refused settings are asked again; the accepted ones are not. A charger's
  // boots are handled in order, so once this boot's two commands are settled every earlier boot's
  // are too: exactly four means the five quick boots sent nothing.
  clock.set('2026-05-02T09:10:00.000Z');
  await reboot(yes.c);
  await reboot(no.c);
  assert.deepEqual(
    (await commands(svc, admin, 'ALOOPNO', 4)).map((x) => [x.parameters.key, x.status]),
    [
      ['ClockAlignedDataInterval', 'rejected'],
      ['ClockAlignedDataInterval', 'rejected'],
      ['MeterValuesAlignedData', 'rejected'],
      ['MeterValuesAlignedData', 'rejected'],
    ],
  );
  assert.equal(no.received.length, 4);
  // A day after they were accepted, a boot asks again: two more, and only two, for seven boots.
  clock.set('2026-05-03T09:00:00.000Z');
  await reboot(yes.c);
  assert.deepEqual(
    (await commands(svc, admin, 'ALOOP', 4)).map((x) => [x.parameters.key, x.status]),
    [
      ['ClockAlignedDataInterval', 'accepted'],
      ['ClockAlignedDataInterval', 'accepted'],
      ['MeterValuesAlignedData', 'accepted'],
      ['MeterValuesAlignedData', 'accepted'],
    ],
  );
  assert.equal(yes.received.length, 4);
  // The audit log holds one entry a command sent, no more.
  const audit = json(await svc.request({ method: 'GET', url: '/api/hardware/admin/audit-log?limit=200', headers: auth(admin) }));
  const sent = audit.entries.filter((e: Record<string, any>) => e.action === 'hub.command.send' && ['ALOOP', 'ALOOPNO'].includes(e.target_id));
  assert.equal(sent.length, 8);
});

test('boots faster than the hub can ask: the charger holds one request running and one waiting, the rest are folded and counted (decision 0493)', async () => {
  clock.set('2026-05-04T09:00:00.000Z');
  // The charger holds its answers to the hub's requests until released, so the first boot's
  // request stays running while 30 more boots arrive.
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  const flood = await boot(base, 'AFLOOD', 'ocpp1.6', async () => {
    await held;
    return { status: 'Accepted' };
  });
  await eventually(async () => flood.received.length === 1, 'the first boot’s request reached the charger');
  const before = sample(await scrape(svc), 'eps_hub_boot_alignments_folded_total') ?? 0;
  for (let i = 0; i < 30; i++) {
    assert.equal((await flood.c.call('BootNotification', { chargePointVendor: 'Acme', chargePointModel: 'One' })).status, 'Accepted');
  }
  // The first of the 30 waits behind the running request; the other 29 join it.
  await eventually(async () => (sample(await scrape(svc), 'eps_hub_boot_alignments_folded_total') ?? 0) - before === 29, '29 boots folded');
  release();
  // The running request's two settings are sent and accepted; the waiting one then finds them
  // accepted and sends nothing: two commands for 31 boots.
  assert.deepEqual(
    (await commands(svc, admin, 'AFLOOD', 2)).map((x) => [x.parameters.key, x.status]),
    [
      ['ClockAlignedDataInterval', 'accepted'],
      ['MeterValuesAlignedData', 'accepted'],
    ],
  );
  await flood.c.call('Heartbeat', {});
  assert.equal(flood.received.length, 2);
  assert.equal((sample(await scrape(svc), 'eps_hub_boot_alignments_folded_total') ?? 0) - before, 29);
});
