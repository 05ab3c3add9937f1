// One range of plausible values end to end (issue 35, decisions 0280 and 0281): extreme values
// (at and just beyond each field's bound, tiny, negative, 1e12, 1e99, 9e18, the largest double)
// sent twice through every intake that writes telemetry (HTTP ingestion, the gateway buffer replay,
// the home-automation connector) are stored or refused per record exactly by the bound; then the
// energy refresh runs and every derived figure of the site is read: no 500, and the refresh keeps
// completing (a canary site of the same organisation gets its energy every run).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { issueKey } from '../devtools/helpers.ts';
import { normalise } from '../../src/modules/connect/units.ts';

let svc: TestService;
const ORG = 'vb-org';
const SITE = 'vb';
const DAY = '2026-11-19';
const BASE_TS = Date.parse(`${DAY}T00:00:00Z`);
const HA = '/api/telemetry/connectors/home-automation';
let admin: string;
let haWrite: { authorization: string };
let partnerRead: { authorization: string };

// The bounds as decision 0280 states them (written here, not read from the code under test): 0 or a
// magnitude from FLOOR to the field's bound.
const BOUND: Record<string, number> = {
  power_kw: 1e8,
  soc_pct: 1e7,
  voltage: 1e7,
  current: 1e7,
  temp_c: 1e7,
  energy_kwh: 1e15,
  import_kwh: 1e15,
  generation_kwh: 1e15,
  soc: 1e7,
  production_w: 1e11, // raw keys the history reads (and the daily rollups sum)
};
const FLOOR = 1e-100;
const beyond = (field: string, v: number) => Math.abs(v) > BOUND[field] || (v !== 0 && Math.abs(v) < FLOOR);

/** The next double away from zero (step 1) or towards it (step -1). */
function next(x: number, step = 1): number {
  const b = new Float64Array([x]);
  const i = new BigInt64Array(b.buffer);
  i[0] += BigInt(step);
  return b[0];
}

const extremes = (bound: number) =>
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        bound,
        -bound,
        next(bound),
        -next(bound),
        1e12,
        -1e12,
        1e99,
        9e18,
        -9e18,
        5e-324,
        -5e-324,
        0,
        1e-300,
        -1e-7,
        1e15,
        1.7976931348623157e308,
        FLOOR,
        -FLOOR,
        next(FLOOR, -1),
      ),
    },
    { weight: 1, arbitrary: fc.double({ min: -2 * bound, max: 2 * bound, noNaN: true, noDefaultInfinity: true }) },
  );

/** Which asset each field goes to (through HTTP and the buffer), and the connector's entity for it. */
const TARGETS = [
  { field: 'power_kw', assets: ['vb-meter', 'vb-pv', 'vb-bat', 'vb-load'], entity: 'sensor.grid_power', unit: 'kW' },
  { field: 'soc_pct', assets: ['vb-bat'], entity: 'sensor.bat_soc', unit: '%' },
  { field: 'voltage', assets: ['vb-meter'], entity: 'sensor.grid_voltage', unit: 'V' },
  { field: 'current', assets: ['vb-meter'], entity: 'sensor.grid_current', unit: 'A' },
  { field: 'temp_c', assets: ['vb-bat'], entity: 'sensor.bat_temp', unit: '°C' },
  { field: 'energy_kwh', assets: ['vb-load'], entity: 'sensor.load_energy', unit: 'kWh' },
  { field: 'import_kwh', assets: ['vb-meter'], entity: null, unit: null },
  { field: 'generation_kwh', assets: ['vb-pv'], entity: null, unit: null },
  { field: 'soc', assets: ['vb-bat'], entity: null, unit: null },
  { field: 'production_w', assets: ['vb-pv'], entity: null, unit: null },
] as const;
const MEASUREMENT_OF: Record<string, 'power_kw' | 'soc_pct' | 'voltage' | 'current' | 'temp_c' | 'energy_kwh'> = {
  power_kw: 'power_kw',
  soc_pct: 'soc_pct',
  voltage: 'voltage',
  current: 'current',
  temp_c: 'temp_c',
  energy_kwh: 'energy_kwh',
};

const req = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, headers?: Record<string, string>) =>
  svc.request({ method, url, headers: headers ?? { authorization: `Bearer ${admin}` }, ...(payload !== undefined && { payload: payload as object }) });

before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-11-20T12:00:00.000Z') });
  await svc.createOrg(ORG);
  admin = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: '3650d' });
  haWrite = (await issueKey(svc, ORG, { scopes: ['telemetry:read', 'telemetry:write'] })).auth;
  partnerRead = (await issueKey(svc, ORG, { scopes: ['telemetry:read', 'devices:read'] })).auth;
  for (const [asset_id, asset_class, parent, site] of [
    ['vb-meter', 'site_meter', null, SITE],
    ['vb-pv', 'inverter', 'vb-meter', SITE],
    ['vb-bat', 'battery', 'vb-meter', SITE],
    ['vb-load', 'charger', 'vb-meter', SITE],
    ['canary-pv', 'inverter', null, 'canary'],
  ] as const) {
    const r = await req('POST', '/api/twin/registry/assets', {
      asset_id,
      asset_class,
      site_id: site,
      name: asset_id,
      ...(parent && { parent_asset_id: parent }),
    });
    assert.equal(r.statusCode, 201, r.body);
  }
  const settings = await req('PUT', `/api/hardware/ems/sites/${SITE}/settings`, {
    agreed_capacity_kw: 1,
    pv_kwp: 4,
    pv_orientation: { azimuth_deg: 180, tilt_deg: 35 },
    expected_yield_kwh_per_kwp: 950,
    operating_hours: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '08:00', end: '18:00' }],
    tariff: { import_p_per_kwh: '99999.9999', export_p_per_kwh: '15' },
    battery_capacity_kwh: 1e6,
    ppa_contracts: [],
  });
  assert.ok(settings.statusCode < 300, settings.body);
  // The connector: entities reported, then a person confirms a mapping of one entity per field.
  const entities = TARGETS.filter((t) => t.entity).map((t) => ({ entity_id: t.entity!, unit_of_measurement: t.unit! }));
  assert.equal((await svc.request({ method: 'POST', url: `${HA}/v1/sites/${SITE}/report`, headers: haWrite, payload: { entities } })).statusCode, 200);
  const entries = TARGETS.filter((t) => t.entity).map((t) => ({
    entity_id: t.entity!,
    asset_id: t.assets[0],
    measurement: MEASUREMENT_OF[t.field],
    unit: t.unit!,
    sign: 'positive_is_import',
  }));
  const put = await req('PUT', `${HA}/sites/${SITE}/mapping`, { entries });
  assert.equal(put.statusCode, 200, put.body);
});
after(() => svc?.stop());

let run = 0;
let sequence = 0;

/** Every derived figure of the site, read after the refresh: 200 (the import limit, not configured, 409). */
async function readEverything(slotIso: string) {
  const partner = (url: string) => svc.request({ method: 'GET', url, headers: partnerRead });
  const reads: [string, Promise<Awaited<ReturnType<typeof req>>>, boolean][] = [
    ['ledger', req('GET', `/api/telemetry/sites/${SITE}/ledger?date=${DAY}`), true],
    ['period', req('GET', `/api/telemetry/ledger/period/${SITE}/${slotIso}`), true],
    ['sites', req('GET', '/api/telemetry/sites'), true],
    ['self-consumption', req('GET', `/api/telemetry/sites/${SITE}/self-consumption?date=${DAY}`), true],
    ['battery', req('GET', `/api/telemetry/sites/${SITE}/battery/state`), true],
    ['capacity', req('GET', `/api/telemetry/sites/${SITE}/capacity?date=${DAY}`), true],
    ['peaks', req('GET', `/api/telemetry/sites/${SITE}/capacity/peaks?date=${DAY}&battery_kwh=100000&battery_kw=100000&target_kw=1`), true],
    ['league', req('GET', `/api/telemetry/portfolio/league?date=${DAY}`), true],
    ['report', req('GET', `/api/hardware/ems/report?site_id=${SITE}&date=${DAY}`), true],
    ['interval', req('GET', `/api/hardware/ems/exports/interval?site_id=${SITE}&date=${DAY}`), true],
    ['summary', req('GET', `/api/hardware/ems/exports/energy-summary?date=${DAY}`), true],
    ['out-of-hours', req('GET', `/api/hardware/ems/out-of-hours?site_id=${SITE}&date=${DAY}`), true],
    ['scope2', req('GET', `/api/hardware/ems/scope2?date=${DAY}`), true],
    ['avoided', req('GET', `/api/hardware/ems/scope2/avoided?date=${DAY}`), true],
    ['ems-sites', req('GET', '/api/hardware/ems/sites'), true],
    ['history-pv', req('GET', '/api/telemetry/assets/solar/vb-pv/history?range=daily'), true],
    ['history-soc', req('GET', '/api/telemetry/assets/battery/vb-bat/history?range=hourly&metric=soc'), true],
    ['history-meter', req('GET', '/api/telemetry/assets/battery/vb-meter/history?range=historical&metric=charge'), true],
    ['live', req('GET', '/api/telemetry/live/events?limit=500'), true],
    ['latest', partner('/api/devtools/partner/v1/telemetry/latest'), true],
    ['partner-devices', partner('/api/devtools/partner/v1/devices'), true],
    ['devices-health', req('GET', '/api/hardware/devices/health'), true],
    ['forecast', req('GET', `/api/optimiser/forecasting/sites/${SITE}/forecast`), true],
    ['forecast-vs-actual', req('GET', `/api/optimiser/forecasting/sites/${SITE}/forecast-vs-actual`), true],
    ['import-limit', req('GET', `/api/optimiser/import-limit/${SITE}/series`), false], // 409: not configured
    ['grid-capacity', req('GET', `/api/hardware/ems/grid/sites/${SITE}/capacity`), true],
    ['esg', req('GET', '/api/esg/'), true],
  ];
  for (const [name, p, must200] of reads) {
    const res = await p;
    assert.ok(res.statusCode < 500, `${name}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    if (must200) assert.equal(res.statusCode, 200, `${name}: ${res.body.slice(0, 300)}`);
  }
}

test('extreme values through every intake are stored or refused by the bound per record; the refresh completes and every derived figure reads', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('http', 'buffer', 'ha'),
      // A field, and a value near its own bound (mostly) or near another's (1e15 on power_kw is beyond it).
      fc.constantFrom(...TARGETS).chain((t) =>
        fc.record({
          target: fc.constant(t),
          value: fc.oneof({ weight: 3, arbitrary: extremes(BOUND[t.field]) }, { weight: 1, arbitrary: extremes(1e15) }),
        }),
      ),
      fc.nat(),
      async (intake, drawn, pick) => {
        // The connector feeds the fields it has entities for (counters other than energy_kwh are HTTP's and the buffer's).
        const target = intake === 'ha' && !drawn.target.entity ? TARGETS[0] : drawn.target;
        const field = target.field;
        const value = drawn.value;
        const assetId = target.assets[pick % target.assets.length];
        const t1 = BASE_TS + run * 7 * 60_000;
        run++;
        const ts = [new Date(t1).toISOString(), new Date(t1 + 60_000).toISOString()];
        const slotIso = new Date(Math.floor(t1 / 1_800_000) * 1_800_000).toISOString();

        if (intake === 'ha') {
          const c = normalise(value, target.unit!, MEASUREMENT_OF[field]);
          const res = await svc.request({
            method: 'POST',
            url: `${HA}/v1/sites/${SITE}/telemetry`,
            headers: haWrite,
            payload: { readings: ts.map((t) => ({ entity_id: target.entity!, state: value, ts: t })) },
          });
          assert.equal(res.statusCode, 200, res.body);
          const out = json(res);
          for (const r of out.results) {
            if (!c.ok) assert.equal(r.status, 'rejected', `${value} ${target.unit}`);
            else if (beyond(field, c.value)) assert.deepEqual([r.status, r.reason], ['rejected', 'beyond_bound'], `${field} ${value} → ${c.value}`);
            else assert.equal(r.status, 'stored', `${field} ${value} → ${c.value}: ${JSON.stringify(r)}`);
          }
        } else {
          const records = ts.map((t) => ({ device_id: assetId, ts: t, [field]: value, ...(intake === 'buffer' && { sequence: sequence++ }) }));
          const res =
            intake === 'http'
              ? await req('POST', '/api/telemetry/ingest', records)
              : await req('POST', `/api/hardware/ems/buffer/${SITE}/replay`, { replay_id: `r-${run}`, records });
          const refused = beyond(field, value);
          assert.equal(res.statusCode, refused ? 422 : 200, `${intake} ${field} ${value}: ${res.body.slice(0, 300)}`);
          if (refused) {
            for (const r of json(res).results) assert.deepEqual([r.status, r.field, r.reason], ['rejected', field, 'beyond_bound']);
          }
        }
        // The canary site of the same organisation: two kW of generation for these two minutes.
        const canary = await req(
          'POST',
          '/api/telemetry/ingest',
          ts.map((t) => ({ device_id: 'canary-pv', ts: t, power_kw: -2 })),
        );
        assert.equal(canary.statusCode, 200, canary.body);

        (svc.clock as ManualClock).advance(31_000);
        await svc.runDue();
        const period = await req('GET', `/api/telemetry/ledger/period/canary/${slotIso}`);
        assert.equal(period.statusCode, 200, period.body);
        if (!json(period).contributions.some((c: { asset_id: string; kwh: string | null }) => c.asset_id === 'canary-pv' && Number(c.kwh) > 0)) {
          const failed = await svc.deps.db.query<{ last_error: string }>(
            "select last_error from jobs where kind = 'energy.refresh' and last_error is not null",
          );
          assert.fail(
            `the refresh did not fold in the canary's readings after ${intake} ${field} ${value}: ${failed.rows.map((r) => r.last_error).join('; ')}`,
          );
        }
        await readEverything(slotIso);
      },
    ),
    {
      numRuns: 20,
      // Always: finding 2 as reported (power_kw 1e12 twice; a connector state of 1e99), an OCPP-sized
      // register (9e18 Wh = 9e15 kWh), and a register at its bound (an implausible jump within it).
      examples: [
        ['http', { target: TARGETS[0], value: 1e12 }, 0],
        ['ha', { target: TARGETS[0], value: 1e99 }, 0],
        ['ha', { target: TARGETS[5], value: 1e99 }, 0],
        ['buffer', { target: TARGETS[5], value: 9e15 }, 0],
        ['http', { target: TARGETS[6], value: 1e15 }, 0],
        ['http', { target: TARGETS[0], value: 1e8 }, 1],
        ['http', { target: TARGETS[0], value: 5e-324 }, 0],
        ['buffer', { target: TARGETS[0], value: FLOOR }, 0],
        ['http', { target: TARGETS[0], value: -FLOOR }, 0],
      ],
    },
  );
  // The days end and are sealed into the daily rollups (every organisation's in one pass): the
  // values that were accepted sum without overflow, and the history reads answer from the store.
  (svc.clock as ManualClock).set('2026-11-21T03:00:00Z');
  const telemetry = svc.modules.find((m) => m.name === 'telemetry')!;
  await telemetry.stop!();
  await telemetry.start!({ operations: svc.operations });
  await telemetry.stop!();
  const sealed = await svc.deps.db.query<{ n: number }>(
    "select count(*)::int as n from telemetry_rollup_daily where org_id = $1 and day = '2026-11-19T00:00:00Z'",
    [ORG],
  );
  assert.ok(sealed.rows[0].n > 0, 'the day was sealed');
  for (const url of ['/api/telemetry/assets/solar/vb-pv/history?range=daily', '/api/telemetry/assets/battery/vb-bat/history?range=weekly&metric=soc']) {
    const res = await req('GET', url);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(json(res).source, 'timeseries', res.body.slice(0, 300));
  }
});

test('OCPP: a charger register of 9e18 Wh (energy_kwh 9e15) is refused by the record rules; the refresh completes and the charger asset reads', async () => {
  const { auth, charger, listen, siteWithCharger } = await import('../hub/helpers.ts');
  const base = await listen(svc);
  const cp = await siteWithCharger(svc, admin, { site_id: 'vb-hub', name: 'Hub', capacity_kw: 22 }, { charge_point_id: 'VB-CP', max_power_kw: 22 });
  const client = charger({ base, orgId: ORG, id: 'VB-CP', password: cp.password, protocol: 'ocpp1.6' });
  try {
    await client.connect();
    await client.call('BootNotification', { chargePointVendor: 'V', chargePointModel: 'M' });
    const ts = ['2026-11-19T20:00:00Z', '2026-11-19T20:01:00Z'];
    for (const t of ts) {
      // No transaction: the samples go to telemetry only. Whatever the hub answers, the service lives on.
      await client
        .call('MeterValues', {
          connectorId: 1,
          meterValue: [
            {
              timestamp: t,
              sampledValue: [
                { value: '9000000000000000000', measurand: 'Energy.Active.Import.Register', unit: 'Wh' },
                { value: '1e12', measurand: 'Power.Active.Import', unit: 'kW' },
              ],
            },
          ],
        })
        .catch(() => undefined);
    }
    await svc.request({
      method: 'POST',
      url: '/api/telemetry/ingest',
      headers: auth(admin),
      payload: ts.map((t) => ({ device_id: 'canary-pv', ts: t, power_kw: -2 })),
    });
    (svc.clock as ManualClock).advance(31_000);
    await svc.runDue();
    const period = json(await req('GET', '/api/telemetry/ledger/period/canary/2026-11-19T20:00:00.000Z'));
    assert.ok(
      period.contributions.some((c: { asset_id: string; kwh: string }) => c.asset_id === 'canary-pv' && Number(c.kwh) > 0),
      JSON.stringify(period),
    );
    const live = json(await req('GET', `/api/telemetry/live/events?limit=50&asset_id=${encodeURIComponent(cp.asset_id)}`));
    const events = live.events ?? live.records ?? live;
    assert.ok(
      events.every((e: { raw: Record<string, unknown> }) => !(Number(e.raw.energy_kwh) > 1e15)),
      'no register beyond the bound stored',
    );
    const ledger = await req('GET', '/api/telemetry/sites/vb-hub/ledger?date=2026-11-19');
    assert.ok(ledger.statusCode < 500, ledger.body);
  } finally {
    await client.close({ force: true });
  }
});
