// Charge library and MPANs through HTTP: the library ships with published figures only (each with
// its source), rates and time bands are validated (units, scope, bands cover each day exactly
// once, validity does not clash), MPAN cores are checked against published examples.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { mpanCheckDigit, parseMpanCore } from '../../src/modules/pricing/index.ts';
import { caller, WMID_BANDS } from './helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let a: ReturnType<typeof caller>;
let b: ReturnType<typeof caller>;

before(async () => {
  svc = await startTestService();
  await svc.createOrg('price-lib-a');
  await svc.createOrg('price-lib-b');
  a = caller(svc, 'price-lib-a');
  b = caller(svc, 'price-lib-b');
});
after(() => svc.stop());

test('MPAN check digit: published example cores pass, a published bad one fails', () => {
  // limejump/mpan README and tests: 2012345678385 (core of 018011002012345678385), 1030006718997,
  // 1312345678907 (core of 001112221312345678907); 2499999999990 is their "bad checksum" example.
  for (const core of ['2012345678385', '1030006718997', '1312345678907']) {
    assert.equal(mpanCheckDigit(core.slice(0, 12)), Number(core[12]), core);
    assert.equal(parseMpanCore(core).ok, true, core);
  }
  const bad = parseMpanCore('2499999999990');
  assert.equal(bad.ok, false);
  assert.match((bad as { reason: string }).reason, /call for 1/);
  assert.deepEqual(parseMpanCore('20 1234 5678 385'), { ...parseMpanCore('2012345678385') }, 'spaces between groups are allowed');
  assert.equal((parseMpanCore('0912345678901') as { ok: boolean }).ok, false);
});

test('library: empty of invented numbers: only published CCL rates, each naming its source', async () => {
  const r = await a.get('/api/trading/cost/library', 'VIEWER');
  assert.equal(r.status, 200);
  assert.deepEqual(
    r.body.rates.map((x: { component: string; rate: string; valid_from: string; origin: string }) => [x.component, x.rate, x.valid_from, x.origin]),
    [
      ['ccl', '0.775', '2022-04-01', 'published'],
      ['ccl', '0.801', '2026-04-01', 'published'],
    ],
  );
  for (const x of r.body.rates) {
    assert.match(x.source, /gov\.uk/);
    assert.equal(x.unit, 'p/kWh');
    assert.equal(x.supply_type, 'business');
  }
  assert.deepEqual(r.body.time_bands, []);
  assert.deepEqual(
    r.body.components.map((c: { component: string; unit: string }) => `${c.component} ${c.unit}`),
    [
      'duos_unit p/kWh',
      'duos_fixed p/day',
      'duos_capacity p/kVA/day',
      'tnuos p/day',
      'bsuos p/kWh',
      'cfd p/kWh',
      'ro p/kWh',
      'fit p/kWh',
      'ccl p/kWh',
      'vat percent',
    ],
  );
});

test('rates: added with unit, scope, validity and source; clashes refused; another organisation does not see them', async () => {
  const red = {
    component: 'duos_unit',
    unit: 'p/kWh',
    rate: '10.5',
    distributor_id: '14',
    band: 'red',
    valid_from: '2026-04-01',
    valid_to: '2027-04-01',
    source: 'NGED West Midlands LC14 charging statement 2026/27 (test figure)',
  };
  const r = await a.post('/api/trading/cost/library/rates', red);
  assert.equal(r.status, 201, r.raw.body);
  assert.equal(r.body.rate, '10.5');
  assert.equal(r.body.unit, 'p/kWh');
  assert.equal(r.body.origin, 'organisation');
  assert.equal(r.body.valid_to, '2027-04-01');

  // Same component, scope and overlapping validity: 409 naming the rate it clashes with.
  const clash = await a.post('/api/trading/cost/library/rates', { ...red, rate: '11', valid_from: '2026-10-01', valid_to: null });
  assert.equal(clash.status, 409);
  assert.equal(clash.body.detail, `Rate clashes with rate ${r.body.rate_id} (duos_unit red, in force 2026-04-01 to 2027-04-01)`);
  // A line-loss class narrowing still overlaps the distributor-wide rate.
  assertRefused(
    await a.post('/api/trading/cost/library/rates', { ...red, line_loss_class: '501' }),
    409,
    /^Rate clashes with rate [0-9a-f-]{36} \(duos_unit red, in force 2026-04-01 to 2027-04-01\)$/,
  );
  // The next charging year, another band, another distributor: no clash.
  assert.equal((await a.post('/api/trading/cost/library/rates', { ...red, valid_from: '2027-04-01', valid_to: null })).status, 201);
  assert.equal((await a.post('/api/trading/cost/library/rates', { ...red, band: 'amber', rate: '1.2' })).status, 201);
  assert.equal((await a.post('/api/trading/cost/library/rates', { ...red, distributor_id: '10' })).status, 201);
  // A CCL rate overlapping the published one is refused, naming it.
  const ccl = await a.post('/api/trading/cost/library/rates', {
    component: 'ccl',
    unit: 'p/kWh',
    rate: '0.9',
    valid_from: '2026-01-01',
    source: 'my supplier',
  });
  assert.equal(ccl.status, 409);
  assert.match(ccl.body.detail, /published rate published-ccl-electricity-2022 \(ccl, in force 2022-04-01 to 2026-04-01\)/);

  const lib = await a.get('/api/trading/cost/library?component=duos_unit&distributor_id=14', 'VIEWER');
  assert.deepEqual(
    lib.body.rates.map((x: { band: string; valid_from: string }) => `${x.band} ${x.valid_from}`),
    ['amber 2026-04-01', 'red 2026-04-01', 'red 2027-04-01'],
  );
  const other = await b.get('/api/trading/cost/library?component=duos_unit', 'ORG_ADMIN');
  assert.deepEqual(other.body.rates, [], 'another organisation sees none of them');
});

test('rates: refusals name the problem (unit, scope, band, validity); viewers cannot add', async () => {
  const base = { component: 'bsuos', unit: 'p/kWh', rate: '1.3', valid_from: '2026-04-01', source: 'NESO BSUoS fixed tariff (test figure)' };
  const unit = await a.post('/api/trading/cost/library/rates', { ...base, unit: 'GBP/MWh', rate: '13' });
  assert.equal(unit.status, 422);
  assert.deepEqual(
    unit.body.detail.map((e: { loc: string[]; msg: string }) => [e.loc.join('.'), e.msg]),
    [['body.unit', 'bsuos rates are stated in p/kWh (£1/MWh = 0.1 p/kWh)']],
  );
  const duos = await a.post('/api/trading/cost/library/rates', { ...base, component: 'duos_unit' });
  assert.deepEqual(
    duos.body.detail.map((e: { loc: string[] }) => e.loc.join('.')),
    ['body.distributor_id', 'body.band'],
  );
  const band = await a.post('/api/trading/cost/library/rates', { ...base, band: 'red' });
  assert.equal(band.body.detail[0].msg, 'bsuos rates have no time band');
  const dates = await a.post('/api/trading/cost/library/rates', { ...base, valid_to: '2026-04-01' });
  assert.equal(dates.body.detail[0].msg, 'valid_to must be after valid_from (it is the first day no longer in force)');
  const noSource = await a.post('/api/trading/cost/library/rates', { ...base, source: undefined });
  assertRefused(noSource, 422, { fields: ['body.source'] });
  const vat = await a.post('/api/trading/cost/library/rates', { component: 'vat', unit: 'percent', rate: '120', valid_from: '2026-04-01', source: 'x y z' });
  assert.equal(vat.body.detail[0].msg, 'a VAT rate is a percentage, 0 to 100');
  const viewer = await a.post('/api/trading/cost/library/rates', base, 'VIEWER');
  assert.equal(viewer.status, 403);
  assert.equal(viewer.body.detail, 'Insufficient permissions');
  const none = await svc.request({ method: 'GET', url: '/api/trading/cost/library' });
  assertRefused(none, 401, 'Authorization header missing');
});

test('time bands: a schedule covering each day exactly once is stored; gaps and overlaps are named; validity clashes refused', async () => {
  const ok = await a.post('/api/trading/cost/library/time-bands', {
    distributor_id: '14',
    valid_from: '2026-04-01',
    valid_to: '2027-04-01',
    periods: WMID_BANDS,
    source: 'upstreams.md 5.2 (NGED W Midlands)',
  });
  assert.equal(ok.status, 201, ok.raw.body);
  assert.equal(ok.body.periods.length, 6);

  const gaps = await a.post('/api/trading/cost/library/time-bands', {
    distributor_id: '22',
    valid_from: '2026-04-01',
    periods: [
      { band: 'green', days: 'all', from: '00:00', to: '07:30' },
      { band: 'amber', days: 'weekdays', from: '07:00', to: '17:00' },
      { band: 'red', days: 'weekdays', from: '17:00', to: '19:00' },
      { band: 'green', days: 'weekdays', from: '21:30', to: '24:00' },
    ],
    source: 'test',
  });
  assert.equal(gaps.status, 422);
  assert.deepEqual(
    gaps.body.detail.map((e: { msg: string }) => e.msg),
    [
      'weekdays 19:00-21:30 are in no band: every half hour of the day must be in exactly one',
      'weekdays 07:00-07:30 is in more than one period (green, amber)',
      'weekends 07:30-24:00 are in no band: every half hour of the day must be in exactly one',
    ],
  );
  const badTime = await a.post('/api/trading/cost/library/time-bands', {
    distributor_id: '22',
    valid_from: '2026-04-01',
    periods: [{ band: 'green', days: 'all', from: '00:15', to: '24:00' }],
    source: 'test',
  });
  assert.deepEqual(
    badTime.body.detail.map((e: { loc: (string | number)[]; msg: string }) => [e.loc.join('.'), e.msg]),
    [['body.periods.0.from', 'from must be a half hour of the clock, 00:00 to 23:30']],
  );
  // Wrapping past midnight is allowed (Economy 7 style night).
  const wrap = await a.post('/api/trading/cost/library/time-bands', {
    distributor_id: '22',
    valid_from: '2026-04-01',
    periods: [
      { band: 'night', days: 'all', from: '23:30', to: '07:30' },
      { band: 'day', days: 'all', from: '07:30', to: '23:30' },
    ],
    source: 'test',
  });
  assert.equal(wrap.status, 201, wrap.raw.body);

  const clash = await a.post('/api/trading/cost/library/time-bands', { distributor_id: '14', valid_from: '2026-10-01', periods: WMID_BANDS, source: 'test' });
  assert.equal(clash.status, 409);
  assert.equal(clash.body.detail, `Time bands clash with schedule ${ok.body.schedule_id} for distributor 14 (in force 2026-04-01 to 2027-04-01)`);
  assert.equal(
    (await b.post('/api/trading/cost/library/time-bands', { distributor_id: '14', valid_from: '2026-10-01', periods: WMID_BANDS, source: 'test' })).status,
    201,
    'each organisation has its own library',
  );
  assertRefused(
    await a.post('/api/trading/cost/library/time-bands', { distributor_id: '14', valid_from: '2026-10-01', periods: WMID_BANDS, source: 'test' }, 'ANALYST'),
    403,
    'Insufficient permissions',
  );
});

test('MPANs: registered with the distributor from the first two digits; check digit and duplicates refused; list pages and stays in the organisation', async () => {
  const r = await a.post('/api/trading/cost/mpans', {
    mpan_core: '20 1234 5678 385',
    line_loss_class: '801',
    connection_voltage: 'LV',
    supply_type: 'domestic',
    site_id: 'home-1',
  });
  assert.equal(r.status, 201, r.raw.body);
  assert.equal(r.body.mpan_core, '2012345678385');
  assert.deepEqual(r.body.distributor, {
    distributor_id: '20',
    name: 'Southern Electric Power Distribution plc',
    operator: 'SSEN',
    gsp_group: 'H',
    mpid: 'SOUT',
    kind: 'dno',
  });
  assert.equal(r.body.agreed_capacity_kva, null);
  const bad = await a.post('/api/trading/cost/mpans', {
    mpan_core: '2499999999990',
    line_loss_class: '801',
    connection_voltage: 'LV',
    supply_type: 'domestic',
  });
  assert.equal(bad.status, 422);
  assert.deepEqual(bad.body.detail[0].loc, ['body', 'mpan_core']);
  assert.equal(bad.body.detail[0].msg, 'Check digit does not match: the first 12 digits call for 1');
  assertRefused(
    await a.post('/api/trading/cost/mpans', { mpan_core: '2012345678385', line_loss_class: '801', connection_voltage: 'LV', supply_type: 'domestic' }),
    409,
    'MPAN already registered',
  );
  const biz = await a.post('/api/trading/cost/mpans', {
    mpan_core: '1030006718997',
    line_loss_class: '501',
    connection_voltage: 'HV',
    supply_type: 'business',
    agreed_capacity_kva: '250.5',
  });
  assert.equal(biz.status, 201);
  assert.equal(biz.body.distributor.gsp_group, 'A');
  assert.equal(biz.body.agreed_capacity_kva, '250.5');
  assertRefused(
    await a.post(
      '/api/trading/cost/mpans',
      { mpan_core: '1312345678907', line_loss_class: '501', connection_voltage: 'LV', supply_type: 'business' },
      'VIEWER',
    ),
    403,
    'Insufficient permissions',
  );
  assertRefused(
    await a.post('/api/trading/cost/mpans', { mpan_core: '1312345678907', line_loss_class: '501', connection_voltage: 'LV' }),
    422,
    { fields: ['body.supply_type'] },
    'supply type is stated, not defaulted',
  );
  // Another organisation may register the same supply point; each sees its own.
  assert.equal(
    (await b.post('/api/trading/cost/mpans', { mpan_core: '2012345678385', line_loss_class: '801', connection_voltage: 'LV', supply_type: 'domestic' })).status,
    201,
  );

  const p1 = await a.get('/api/trading/cost/mpans?limit=1', 'VIEWER');
  assert.equal(p1.status, 200);
  assert.equal(p1.body.mpans.length, 1);
  assert.equal(p1.body.has_more, true);
  const p2 = await a.get(`/api/trading/cost/mpans?limit=1&cursor=${encodeURIComponent(p1.body.next_cursor)}`, 'VIEWER');
  assert.equal(p2.body.has_more, false);
  assert.deepEqual([...p1.body.mpans, ...p2.body.mpans].map((m: { mpan_core: string }) => m.mpan_core).sort(), ['1030006718997', '2012345678385']);
  const filtered = await a.get('/api/trading/cost/mpans?distributor_id=10', 'VIEWER');
  assert.deepEqual(
    filtered.body.mpans.map((m: { mpan_core: string }) => m.mpan_core),
    ['1030006718997'],
  );
  const stale = await a.get(`/api/trading/cost/mpans?limit=1&distributor_id=20&cursor=${encodeURIComponent(p1.body.next_cursor)}`, 'VIEWER');
  assert.equal(stale.status, 400);
  assert.equal(stale.body.detail, 'invalid_cursor');
  const bList = await b.get('/api/trading/cost/mpans', 'VIEWER');
  assert.deepEqual(
    bList.body.mpans.map((m: { mpan_core: string }) => m.mpan_core),
    ['2012345678385'],
  );
});
