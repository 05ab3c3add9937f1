// The pricing engine at an MPAN and the component stack, through HTTP. Reference: a business
// supply at NGED West Midlands (distributor 14) with red/amber/green DUoS, a fixed and a capacity
// charge, BSUoS and the published CCL, worked by hand. Clock-change days: 46 and 50 half hours,
// matched to bands by UK local clock time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { caller, halfHours, WMID_BANDS } from './helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let a: ReturnType<typeof caller>;
let b: ReturnType<typeof caller>;
const MPAN = '1412345678901'; // distributor 14; check digit worked below
const SOURCE = 'Test figures for the reference (not a published rate)';

before(async () => {
  svc = await startTestService();
  await svc.createOrg('price-eng-a');
  await svc.createOrg('price-eng-b');
  a = caller(svc, 'price-eng-a');
  b = caller(svc, 'price-eng-b');
  const ok = async (p: Promise<{ status: number; raw: { body: string } }>) => assert.equal((await p).status, 201, (await p).raw.body);
  await ok(
    a.post('/api/trading/cost/mpans', {
      mpan_core: MPAN,
      line_loss_class: '501',
      connection_voltage: 'HV',
      supply_type: 'business',
      agreed_capacity_kva: '100',
    }),
  );
  await ok(
    a.post('/api/trading/cost/library/time-bands', {
      distributor_id: '14',
      valid_from: '2026-04-01',
      valid_to: '2027-04-01',
      periods: WMID_BANDS,
      source: 'upstreams.md 5.2',
    }),
  );
  const rate = (component: string, unit: string, rate: string, extra: object = {}) =>
    ok(a.post('/api/trading/cost/library/rates', { component, unit, rate, valid_from: '2026-04-01', valid_to: '2027-04-01', source: SOURCE, ...extra }));
  await rate('duos_unit', 'p/kWh', '10.5', { distributor_id: '14', band: 'red' });
  await rate('duos_unit', 'p/kWh', '1.2', { distributor_id: '14', band: 'amber' });
  await rate('duos_unit', 'p/kWh', '0.15', { distributor_id: '14', band: 'green' });
  await rate('duos_fixed', 'p/day', '25', { distributor_id: '14', line_loss_class: '501' });
  await rate('duos_capacity', 'p/kVA/day', '3.5', { distributor_id: '14' });
  await rate('bsuos', 'p/kWh', '1.3');
  await rate('vat', 'percent', '20', { supply_type: 'business' });
});
after(() => svc.stop());

test('the reference MPAN core has a good check digit', async () => {
  // 1,4,1,2,3,4,5,6,7,8,9,0 × 3,5,7,13,17,19,23,29,31,37,41,43 = 3+20+7+26+51+76+115+174+217+296+369+0 = 1354;
  // 1354 mod 11 = 1 (11 × 123 = 1353); 1 mod 10 = 1.
  const { mpanCheckDigit } = await import('../../src/modules/pricing/index.ts');
  assert.equal(mpanCheckDigit('141234567890'), 1);
});

test('price: a business Friday and Saturday at 1 kWh a half hour, worked by hand', async () => {
  // Friday 5 and Saturday 6 June 2026 (BST). Weekday bands: red 16:00-19:00 (6 half hours),
  // amber 07:30-16:00 and 19:00-21:00 (17 + 4 = 21), green the other 21; Saturday all green (48).
  //   DUoS unit  Fri 6×10.5 + 21×1.2 + 21×0.15 = 63 + 25.2 + 3.15 = 91.35p; Sat 48×0.15 = 7.2p
  //   BSUoS      96 kWh × 1.3 = 124.8p
  //   CCL        96 kWh × 0.801 (published, from 1 April 2026) = 76.896p
  //   fixed      2 days × 25 = 50p; capacity 2 days × 100 kVA × 3.5 = 700p
  //   total      91.35 + 7.2 + 124.8 + 76.896 + 50 + 700 = 1050.246p = £10.50246
  const r = await a.post('/api/trading/cost/price', { mpan_core: MPAN, half_hours: halfHours('2026-06-05', '2026-06-07', () => '1') }, 'VIEWER');
  assert.equal(r.status, 200, r.raw.body);
  const t = r.body.totals;
  assert.equal(t.kwh, '96');
  assert.deepEqual(
    t.by_component.map((c: { component: string; quantity: string; cost_p: string }) => [c.component, c.quantity, c.cost_p]),
    [
      ['duos_unit', '96', '98.5500'],
      ['duos_fixed', '2', '50.0000'],
      ['duos_capacity', '200', '700.0000'],
      ['bsuos', '96', '124.8000'],
      ['ccl', '96', '76.8960'],
    ],
  );
  assert.deepEqual(t.by_band.map((x: { band: string; kwh: string; cost_p: string }) => [x.band, x.kwh, x.cost_p]).sort(), [
    ['amber', '21', '25.2000'],
    ['green', '69', '10.3500'],
    ['red', '6', '63.0000'],
  ]);
  assert.equal(t.total_p, '1050.2460');
  assert.equal(t.total_gbp, '10.502460');
  // Lines add up to the totals.
  const hhSum = r.body.half_hours.reduce((s: number, h: { total_p: string }) => s + Math.round(Number(h.total_p) * 1e4), 0);
  const daySum = r.body.days.reduce((s: number, d: { total_p: string }) => s + Math.round(Number(d.total_p) * 1e4), 0);
  assert.equal(hhSum + daySum, 10502460);
  // The first red half hour: 16:00 BST = 15:00Z, settlement period 33.
  const red = r.body.half_hours.find((h: { start: string }) => h.start === '2026-06-05T15:00:00.000Z' || h.start === '2026-06-05T15:00:00.000Z');
  assert.deepEqual(red, {
    start: '2026-06-05T15:00:00.000Z',
    local_date: '2026-06-05',
    local_time: '16:00',
    settlement_period: 33,
    band: 'red',
    kwh: '1',
    charges: { duos_unit: '10.5000', bsuos: '1.3000', ccl: '0.8010' },
    total_p: '12.6010',
  });
  assert.deepEqual(r.body.days, [
    { date: '2026-06-05', half_hours: 48, half_hours_in_day: 48, charges: { duos_fixed: '25.0000', duos_capacity: '350.0000' }, total_p: '375.0000' },
    { date: '2026-06-06', half_hours: 48, half_hours_in_day: 48, charges: { duos_fixed: '25.0000', duos_capacity: '350.0000' }, total_p: '375.0000' },
  ]);
  // Components with no rate are listed, never defaulted.
  assert.deepEqual(r.body.unpriced.map((u: { component: string; per: string; count: number }) => `${u.component} ${u.per} ${u.count}`).sort(), [
    'cfd half_hour 96',
    'fit half_hour 96',
    'ro half_hour 96',
    'tnuos day 2',
  ]);
  assert.deepEqual(
    r.body.vat_rates.map((v: { rate_percent: string }) => v.rate_percent),
    ['20'],
  );
  assert.equal(r.body.data_basis.basis, 'calculated');
  assert.match(r.body.data_basis.method, /UK local date and wall-clock time/);
  assert.ok(r.body.rates_used.some((x: { origin: string; component: string }) => x.origin === 'published' && x.component === 'ccl'));
});

test('price: clock-change days have 46 and 50 half hours, bands by local clock, fixed charges pro rata', async () => {
  const autumn = await a.post('/api/trading/cost/price', { mpan_core: MPAN, half_hours: halfHours('2026-10-25', '2026-10-26', () => '0.5') });
  assert.equal(autumn.status, 200, autumn.raw.body);
  const hh = autumn.body.half_hours;
  assert.equal(hh.length, 50);
  assert.deepEqual(
    hh.map((h: { settlement_period: number }) => h.settlement_period),
    Array.from({ length: 50 }, (_, i) => i + 1),
  );
  assert.deepEqual(
    hh.slice(0, 6).map((h: { local_time: string; start: string }) => `${h.local_time} ${h.start}`),
    [
      '00:00 2026-10-24T23:00:00.000Z',
      '00:30 2026-10-24T23:30:00.000Z',
      '01:00 2026-10-25T00:00:00.000Z',
      '01:30 2026-10-25T00:30:00.000Z',
      '01:00 2026-10-25T01:00:00.000Z',
      '01:30 2026-10-25T01:30:00.000Z',
    ],
  );
  assert.deepEqual(autumn.body.days[0], {
    date: '2026-10-25',
    half_hours: 50,
    half_hours_in_day: 50,
    charges: { duos_fixed: '25.0000', duos_capacity: '350.0000' },
    total_p: '375.0000',
  });

  // Bands follow the local clock: 16:00 local is 15:00Z in June (BST) and 16:00Z in November (GMT).
  const spring = await a.post('/api/trading/cost/price', { mpan_core: MPAN, half_hours: halfHours('2026-03-29', '2026-03-31', () => '1') });
  assert.equal(spring.status, 200, spring.raw.body);
  const sunday = spring.body.half_hours.filter((h: { local_date: string }) => h.local_date === '2026-03-29');
  assert.equal(sunday.length, 46);
  assert.deepEqual(
    sunday.slice(1, 4).map((h: { local_time: string }) => h.local_time),
    ['00:30', '02:00', '02:30'],
  );
  const monday = spring.body.half_hours.filter((h: { local_date: string }) => h.local_date === '2026-03-30');
  const nov = await a.post('/api/trading/cost/price', { mpan_core: MPAN, half_hours: halfHours('2026-11-02', '2026-11-03', () => '1') });
  const bandAtZ = (list: { start: string; band: string }[], z: string) => list.find((h) => h.start === z)!.band;
  assert.equal(bandAtZ(nov.body.half_hours, '2026-11-02T15:00:00.000Z'), 'amber', '15:00 GMT');
  assert.equal(bandAtZ(nov.body.half_hours, '2026-11-02T16:00:00.000Z'), 'red', '16:00 GMT');
  const june = await a.post('/api/trading/cost/price', { mpan_core: MPAN, half_hours: halfHours('2026-06-01', '2026-06-02', () => '1') });
  assert.equal(bandAtZ(june.body.half_hours, '2026-06-01T15:00:00.000Z'), 'red', '16:00 BST');
  assert.equal(bandAtZ(june.body.half_hours, '2026-06-01T18:00:00.000Z'), 'amber', '19:00 BST');
  // March is before the schedule and the rates (from 1 April): DUoS unpriced, named with its dates.
  assert.equal(monday[0].band, null);
  const duos = spring.body.unpriced.find((u: { component: string }) => u.component === 'duos_unit');
  assert.deepEqual(
    { ...duos },
    { component: 'duos_unit', band: null, reason: 'no rate in the library', first: '2026-03-29', last: '2026-03-30', count: 94, per: 'half_hour' },
  );
  // Only the published CCL (0.775p to 31 March 2026) applies then: 94 kWh × 0.775 = 72.85p.
  assert.equal(spring.body.totals.total_p, '72.8500');

  // A part day is charged its share of the fixed charges: 2 of 48 half hours.
  const part = await a.post('/api/trading/cost/price', {
    mpan_core: MPAN,
    half_hours: [
      { start: '2026-06-05T10:00:00.000Z', kwh: 1 },
      { start: '2026-06-05T10:30:00+00:00', kwh: '0' },
    ],
    detail: 'totals',
  });
  assert.equal(part.status, 200, part.raw.body);
  assert.deepEqual(part.body.half_hours, []);
  // 25 × 2/48 = 1.041666.. -> 1.0417p; 350 × 2/48 = 14.583333.. -> 14.5833p
  assert.deepEqual(part.body.days[0].charges, { duos_fixed: '1.0417', duos_capacity: '14.5833' });
});

test("price: refusals: bad half hours named, unknown or another organisation's MPAN 404, no credential 401", async () => {
  const bad = await a.post('/api/trading/cost/price', {
    mpan_core: MPAN,
    half_hours: [
      { start: '2026-06-05T10:15:00.000Z', kwh: '1' },
      { start: '2026-06-05T10:00:00', kwh: '1' },
      { start: '2026-06-05T11:00:00.000Z', kwh: '-1' },
      { start: '2026-06-05T12:00:00.000Z', kwh: '1' },
      { start: '2026-06-05T13:00:00+01:00', kwh: '1' },
    ],
  });
  assert.equal(bad.status, 422);
  assert.deepEqual(
    bad.body.detail.map((e: { loc: (string | number)[]; msg: string }) => [e.loc.join('.'), e.msg]),
    [
      ['body.half_hours.0.start', 'start must be the start of a half hour (:00 or :30)'],
      ['body.half_hours.1.start', 'start must be an ISO 8601 date-time with an offset (Z or +01:00)'],
      ['body.half_hours.2.kwh', 'kwh must be a decimal, not negative, with at most 6 decimal places'],
      ['body.half_hours.4.start', 'half hour 2026-06-05T12:00:00.000Z is given twice'],
    ],
  );
  const unknown = await a.post('/api/trading/cost/price', { mpan_core: '2012345678385', half_hours: [{ start: '2026-06-05T10:00:00.000Z', kwh: '1' }] });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.detail, 'MPAN not registered');
  const other = await b.post('/api/trading/cost/price', { mpan_core: MPAN, half_hours: [{ start: '2026-06-05T10:00:00.000Z', kwh: '1' }] }, 'ORG_ADMIN');
  assertRefused(other, 404, 'MPAN not registered', "another organisation's MPAN is not there");
  const check = await a.post('/api/trading/cost/price', { mpan_core: '1412345678900', half_hours: [{ start: '2026-06-05T10:00:00.000Z', kwh: '1' }] });
  assertRefused(check, 422, { fields: ['body.mpan_core'] });
  assertRefused(
    await svc.request({ method: 'POST', url: '/api/trading/cost/price', payload: { mpan_core: MPAN, half_hours: [] } }),
    401,
    'Authorization header missing',
  );
});

test('stack: segments by validity with per-band p/kWh sums, daily charges at the agreed capacity, and the gaps', async () => {
  const r = await a.get(`/api/trading/cost/stack?mpan_core=${MPAN}&from=2026-03-01&to=2026-05-01`, 'VIEWER');
  assert.equal(r.status, 200, r.raw.body);
  assert.deepEqual(
    r.body.segments.map((s: { from: string; to: string; days: number }) => `${s.from} ${s.to} ${s.days}`),
    ['2026-03-01 2026-04-01 31', '2026-04-01 2026-05-01 30'],
  );
  const [march, april] = r.body.segments;
  assert.equal(march.time_bands, null);
  assert.deepEqual(march.per_kwh, [
    {
      band: null,
      components: [
        {
          component: 'ccl',
          band: null,
          rate_p_per_kwh: '0.775',
          rate_id: 'published-ccl-electricity-2022',
          source: march.per_kwh[0].components[0].source,
          origin: 'published',
        },
      ],
      total_p_per_kwh: '0.775',
      unpriced: ['duos_unit', 'bsuos', 'cfd', 'ro', 'fit'],
    },
  ]);
  assert.equal(march.vat_rate_percent, null);
  assert.deepEqual(
    april.per_kwh.map((p: { band: string; total_p_per_kwh: string }) => `${p.band} ${p.total_p_per_kwh}`),
    [
      'green 2.251', // 0.15 + 1.3 + 0.801
      'amber 3.301',
      'red 12.601',
    ],
  );
  assert.deepEqual(
    april.daily.map((d: { component: string; p_per_day: string }) => `${d.component} ${d.p_per_day}`),
    ['duos_fixed 25', 'duos_capacity 350'],
  );
  assert.equal(april.daily_total_p, '375');
  assert.equal(april.vat_rate_percent, '20');
  assert.equal(r.body.data_basis.basis, 'calculated');
  assert.match(r.body.data_basis.method, /nothing defaulted/);
  const bad = await a.get(`/api/trading/cost/stack?mpan_core=${MPAN}&from=2026-05-01&to=2026-05-01`);
  assert.equal(bad.status, 422);
  assert.equal(bad.body.detail[0].msg, 'to must be after from (it is the day after the last)');
  assertRefused(await b.get(`/api/trading/cost/stack?mpan_core=${MPAN}&from=2026-03-01&to=2026-05-01`), 404, 'MPAN not registered');
});

test('cost-plus: wholesale + charges + margin, every input listed, worked by hand', async () => {
  // Same two days: per-kWh charges 98.55 + 124.8 + 76.896 = 300.246p; wholesale 96 kWh × 8p = 768p.
  // unit = 1068.246 / 96 = 11.1275625 -> 11.127563 (6 places) + 2 margin = 13.127563 -> 13.1276p/kWh
  // standing = (50 + 700) / 2 days = 375 + 10 margin = 385.0000p/day; VAT 20%: 15.75312 and 462
  const r = await a.post(
    '/api/trading/retail-tariffs/cost-plus',
    {
      mpan_core: MPAN,
      from: '2026-06-05',
      to: '2026-06-07',
      consumption: halfHours('2026-06-05', '2026-06-07', () => '1'),
      wholesale: { type: 'flat', rate_p_per_kwh: '8' },
      margin: { unit_p_per_kwh: '2', standing_p_per_day: '10' },
    },
    'ANALYST',
  );
  assert.equal(r.status, 200, r.raw.body);
  assert.deepEqual(r.body.proposal, {
    unit_rate_p_per_kwh: '13.1276',
    standing_charge_p_per_day: '385.0000',
    vat_rate_percent: '20',
    unit_rate_p_per_kwh_inc_vat: '15.75312',
    standing_charge_p_per_day_inc_vat: '462',
    version: {
      effective_from: '2026-06-05',
      effective_to: null,
      vat_rate_percent: '20',
      standing_charge_p_per_day: '385.0000',
      unit_rates: { type: 'flat', rate_p_per_kwh: '13.1276' },
    },
  });
  assert.deepEqual(r.body.inputs.wholesale, { type: 'flat', rate_p_per_kwh: '8', cost_p: '768.0000' });
  assert.deepEqual(
    r.body.inputs.charges.map((c: { component: string; cost_p: string; rates: unknown[] }) => `${c.component} ${c.cost_p} ${c.rates.length}`),
    ['duos_unit 98.5500 3', 'bsuos 124.8000 1', 'ccl 76.8960 1', 'duos_fixed 50.0000 1', 'duos_capacity 700.0000 1'],
  );
  assert.deepEqual(r.body.inputs.margin, { unit_p_per_kwh: '2', standing_p_per_day: '10' });
  assert.equal(r.body.inputs.vat.rate_percent, '20');
  assert.equal(r.body.workings.length, 3);
  assert.match(r.body.workings[1], /11\.127563p\/kWh \+ margin 2p = 13\.1276p\/kWh/);
  assert.deepEqual(r.body.unpriced.map((u: { component: string }) => u.component).sort(), ['cfd', 'fit', 'ro', 'tnuos']);
  assert.equal(r.body.data_basis.basis, 'calculated');
  // The proposal is a valid tariff version.
  const v = await a.post('/api/trading/retail-tariffs/validate', { name: 'Cost plus', supply_type: 'business', version: r.body.proposal.version });
  assert.equal(v.body.valid, true, JSON.stringify(v.body));

  const missing = await a.post('/api/trading/retail-tariffs/cost-plus', {
    mpan_core: MPAN,
    from: '2026-06-05',
    to: '2026-06-06',
    consumption: [{ start: '2026-06-05T10:00:00.000Z', kwh: '1' }],
    wholesale: { type: 'half_hourly', prices: [] },
    margin: { unit_p_per_kwh: '2', standing_p_per_day: '10' },
  });
  assert.equal(missing.status, 422);
  assert.equal(missing.body.detail[0].msg, 'No wholesale price for 1 half hour: 2026-06-05T10:00:00.000Z');
  const noMargin = await a.post('/api/trading/retail-tariffs/cost-plus', {
    mpan_core: MPAN,
    from: '2026-06-05',
    to: '2026-06-06',
    consumption: [{ start: '2026-06-05T10:00:00.000Z', kwh: '1' }],
    wholesale: { type: 'flat', rate_p_per_kwh: '8' },
  });
  assertRefused(noMargin, 422, { fields: ['body.margin'] }, 'the margin is stated, never defaulted');
});
