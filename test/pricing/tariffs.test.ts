// Retail tariffs through HTTP: create as version 1, validate without storing (a missing rate is
// named), append-only versions (overlaps refused; stored versions never change), reference bills
// worked by hand (a domestic flat month; Agile months with each clock change, across a version
// change), compare and smart bands.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { caller, halfHours, localClock } from './helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
const clock = new ManualClock('2026-11-23T09:00:00.000Z');
let a: ReturnType<typeof caller>;
let b: ReturnType<typeof caller>;

before(async () => {
  svc = await startTestService({ clock });
  await svc.createOrg('tariff-a');
  await svc.createOrg('tariff-b');
  a = caller(svc, 'tariff-a');
  b = caller(svc, 'tariff-b');
});
after(() => svc.stop());

const FLAT = { effective_from: '2026-01-01', vat_rate_percent: '5', standing_charge_p_per_day: '53.35', unit_rates: { type: 'flat', rate_p_per_kwh: '24.50' } };
const AGILE = {
  effective_from: '2026-01-01',
  vat_rate_percent: '5',
  standing_charge_p_per_day: '47.49',
  unit_rates: { type: 'dynamic', description: 'Agile-style half-hourly prices' },
};
const E7 = {
  effective_from: '2026-01-01',
  vat_rate_percent: '5',
  standing_charge_p_per_day: '50',
  unit_rates: {
    type: 'time_of_use',
    rates: { night: '12', day: '30' },
    periods: [
      { band: 'night', days: 'all', from: '00:30', to: '07:30' },
      { band: 'day', days: 'all', from: '07:30', to: '00:30' },
    ],
  },
};

async function create(name: string, version: object, c = a) {
  const r = await c.post('/api/trading/retail-tariffs', { name, supply_type: 'domestic', version });
  assert.equal(r.status, 201, r.raw.body);
  return r.body;
}

test('create stores version 1; get shows every version; list pages; another organisation gets 404', async () => {
  const t = await create('Flat domestic', FLAT);
  assert.equal(t.versions.length, 1);
  assert.deepEqual(
    { ...t.versions[0], created_at: undefined },
    {
      version: 1,
      effective_from: '2026-01-01',
      effective_to: null,
      in_force_until: null,
      vat_rate_percent: '5',
      standing_charge_p_per_day: '53.35',
      unit_rates: { type: 'flat', rate_p_per_kwh: '24.50' },
      created_at: undefined,
    },
  );
  const got = await a.get(`/api/trading/retail-tariffs/${t.tariff_id}`, 'VIEWER');
  assert.equal(got.status, 200);
  assert.deepEqual(got.body, t);
  assertRefused(await b.get(`/api/trading/retail-tariffs/${t.tariff_id}`, 'ORG_ADMIN'), 404, 'Not Found');
  clock.advance(1000); // newest first
  await create('Second', E7);
  const p1 = await a.get('/api/trading/retail-tariffs?limit=1', 'VIEWER');
  assert.equal(p1.body.tariffs[0].name, 'Second');
  assert.equal(p1.body.has_more, true);
  const p2 = await a.get(`/api/trading/retail-tariffs?limit=1&cursor=${encodeURIComponent(p1.body.next_cursor)}`, 'VIEWER');
  assert.deepEqual(
    p2.body.tariffs.map((x: { name: string; versions: number }) => `${x.name} ${x.versions}`),
    ['Flat domestic 1'],
  );
  assert.equal((await b.get('/api/trading/retail-tariffs', 'VIEWER')).body.tariffs.length, 0);
  assertRefused(await a.post('/api/trading/retail-tariffs', { name: 'x', supply_type: 'domestic', version: FLAT }, 'ANALYST'), 403, 'Insufficient permissions');
});

test('every rate is stated: a missing rate is an error naming it, from validate (nothing stored) and from create', async () => {
  const { standing_charge_p_per_day: _s, ...noStanding } = FLAT;
  const v = await a.post('/api/trading/retail-tariffs/validate', { name: 'No standing', supply_type: 'domestic', version: noStanding }, 'VIEWER');
  assert.equal(v.status, 200);
  assert.deepEqual(v.body, {
    valid: false,
    errors: [
      {
        loc: ['body', 'version', 'standing_charge_p_per_day'],
        msg: 'standing_charge_p_per_day missing: every rate must be stated; none is defaulted',
        type: 'missing',
      },
    ],
    checked: 'new_tariff',
  });
  const tou = await a.post('/api/trading/retail-tariffs/validate', {
    name: 'E7',
    supply_type: 'domestic',
    version: { ...E7, vat_rate_percent: undefined, unit_rates: { ...E7.unit_rates, rates: { night: '12', peak: '40' } } },
  });
  assert.deepEqual(
    tou.body.errors.map((e: { loc: string[]; msg: string }) => `${e.loc.slice(2).join('.')}: ${e.msg}`),
    [
      'vat_rate_percent: vat_rate_percent missing: every rate must be stated; none is defaulted',
      'unit_rates.rates.day: rate missing for band day: every rate must be stated; none is defaulted',
      'unit_rates.rates.peak: band peak has a rate but no period',
    ],
  );
  const gaps = await a.post('/api/trading/retail-tariffs/validate', {
    name: 'E7',
    supply_type: 'domestic',
    version: { ...E7, unit_rates: { ...E7.unit_rates, periods: [E7.unit_rates.periods[0]] } },
  });
  assert.equal(gaps.body.errors[0].msg, 'weekdays 00:00-00:30, 07:30-24:00 are in no band: every half hour of the day must be in exactly one');
  assert.equal((await a.post('/api/trading/retail-tariffs/validate', { name: 'ok', supply_type: 'domestic', version: E7 })).body.valid, true);
  assert.equal(
    (await a.get('/api/trading/retail-tariffs', 'VIEWER')).body.tariffs.filter((t: { name: string }) => t.name === 'No standing').length,
    0,
    'validate stores nothing',
  );

  const c = await a.post('/api/trading/retail-tariffs', { name: 'No standing', supply_type: 'domestic', version: noStanding });
  assert.equal(c.status, 422);
  assert.deepEqual(c.body.detail[0].loc, ['body', 'version', 'standing_charge_p_per_day']);
  assert.match(c.body.detail[0].msg, /none is defaulted/);
  const noVat = await a.post('/api/trading/retail-tariffs', { name: 'x', version: { ...FLAT, vat_rate_percent: undefined } });
  assert.deepEqual(
    noVat.body.detail.map((e: { loc: string[] }) => e.loc.join('.')),
    ['body.supply_type', 'body.version.vat_rate_percent'],
  );
});

test('versions are append only: a new version must start after every stored one; stored versions never change', async () => {
  const t = await create('Versioned', FLAT);
  const v2 = await a.post(`/api/trading/retail-tariffs/${t.tariff_id}/versions`, {
    ...FLAT,
    effective_from: '2026-04-01',
    standing_charge_p_per_day: '55',
    effective_to: '2026-10-01',
  });
  assert.equal(v2.status, 201, v2.raw.body);
  assert.deepEqual(
    v2.body.versions.map((v: { version: number; effective_from: string; in_force_until: string | null }) => [v.version, v.effective_from, v.in_force_until]),
    [
      [1, '2026-01-01', '2026-04-01'],
      [2, '2026-04-01', '2026-10-01'],
    ],
  );
  const early = await a.post(`/api/trading/retail-tariffs/${t.tariff_id}/versions`, { ...FLAT, effective_from: '2026-03-01' });
  assert.equal(early.status, 409);
  assert.equal(
    early.body.detail,
    'Effective dates overlap version 2 (effective from 2026-04-01): a new version must start after every stored version; versions are never changed in place',
  );
  const inside = await a.post(`/api/trading/retail-tariffs/${t.tariff_id}/versions`, { ...FLAT, effective_from: '2026-09-01' });
  assert.equal(inside.status, 409);
  assert.equal(inside.body.detail, 'Effective dates overlap version 2 (in force 2026-04-01 to 2026-10-01): a new version must start on or after 2026-10-01');
  const check = await a.post('/api/trading/retail-tariffs/validate', { tariff_id: t.tariff_id, version: { ...FLAT, effective_from: '2026-09-01' } });
  assert.equal(check.body.valid, false);
  assert.equal(check.body.checked, 'new_version');
  assert.equal((await a.post(`/api/trading/retail-tariffs/${t.tariff_id}/versions`, { ...FLAT, effective_from: '2026-10-01' })).status, 201);
  const missing = await a.post(`/api/trading/retail-tariffs/${t.tariff_id}/versions`, {
    effective_from: '2027-01-01',
    vat_rate_percent: '5',
    standing_charge_p_per_day: '50',
  });
  assert.equal(missing.status, 422);
  assert.equal(missing.body.detail[0].msg, 'unit_rates missing: every rate must be stated; none is defaulted');
  assertRefused(await b.post(`/api/trading/retail-tariffs/${t.tariff_id}/versions`, { ...FLAT, effective_from: '2027-01-01' }, 'ORG_ADMIN'), 404, 'Not Found');
  assertRefused(
    await a.post(`/api/trading/retail-tariffs/${t.tariff_id}/versions`, { ...FLAT, effective_from: '2027-01-01' }, 'VIEWER'),
    403,
    'Insufficient permissions',
  );
  // The store itself refuses to change a stored version.
  await assert.rejects(
    svc.deps.db.query(`update pricing_tariff_versions set terms = '{}'::jsonb where org_id = $1 and tariff_id = $2`, ['tariff-a', t.tariff_id]),
    /append only/,
  );
  const after = await a.get(`/api/trading/retail-tariffs/${t.tariff_id}`);
  assert.equal(after.body.versions.length, 3);
  assert.equal(after.body.versions[0].standing_charge_p_per_day, '53.35');
});

test('bill: a domestic flat tariff for January, worked by hand', async () => {
  // 31 days × 48 half hours × 0.25 kWh = 372 kWh.
  //   standing 31 × 53.35p = 1653.85p -> £16.54;  energy 372 × 24.50p = 9114p = £91.14
  //   net £107.68; VAT 5% = £5.384 -> £5.38; total £113.06
  const t = await create('Flat for bill', FLAT);
  const r = await a.post(
    '/api/trading/retail-tariffs/bill',
    { tariff_id: t.tariff_id, from: '2026-01-01', to: '2026-02-01', consumption: halfHours('2026-01-01', '2026-02-01', () => '0.25') },
    'VIEWER',
  );
  assert.equal(r.status, 200, r.raw.body);
  assert.deepEqual(r.body.lines, [
    {
      kind: 'standing_charge',
      version: 1,
      description: 'Standing charge, 31 days at 53.35p a day',
      from: '2026-01-01',
      to: '2026-02-01',
      band: null,
      quantity: '31',
      unit: 'day',
      rate_p: '53.35',
      rate_p_inc_vat: '56.0175',
      average_rate_p: null,
      amount_gbp: '16.54',
    },
    {
      kind: 'unit',
      version: 1,
      description: 'Energy, 372 kWh at 24.5p',
      from: '2026-01-01',
      to: '2026-02-01',
      band: null,
      quantity: '372',
      unit: 'kWh',
      rate_p: '24.5',
      rate_p_inc_vat: '25.725',
      average_rate_p: null,
      amount_gbp: '91.14',
    },
  ]);
  assert.deepEqual(r.body.totals, {
    kwh: '372',
    net_gbp: '107.68',
    vat: [{ rate_percent: '5', net_gbp: '107.68', vat_gbp: '5.38' }],
    vat_gbp: '5.38',
    total_gbp: '113.06',
  });
  assert.deepEqual(r.body.coverage, { half_hours_expected: 1488, half_hours_present: 1488, half_hours_missing: 0, first_missing: [] });
  assert.equal(r.body.data_basis.basis, 'calculated');
  assert.match(r.body.rounding, /rounded half away from zero to the penny/);
});

/** Agile-style test prices by UK local clock: 30p 16:00-19:00, else 15p; on 25 October 2026 the second (GMT) 01:00 and 01:30 are -2p and 10p. */
function agilePrices(from: string, to: string) {
  return halfHours(from, to, () => '0').map(({ start }) => {
    const t = Date.parse(start);
    const { h } = localClock(t);
    let p = h >= 16 && h < 19 ? '30' : '15';
    if (start === '2026-10-25T01:00:00.000Z') p = '-2';
    if (start === '2026-10-25T01:30:00.000Z') p = '10';
    return { start, rate_p_per_kwh: p };
  });
}

test('bill: Agile months with each clock change, prices per half hour, the version in force each day', async () => {
  const t = await create('Agile-style', AGILE);
  const v2 = await a.post(`/api/trading/retail-tariffs/${t.tariff_id}/versions`, { ...AGILE, effective_from: '2026-10-15', standing_charge_p_per_day: '50' });
  assert.equal(v2.status, 201);

  // March 2026 (29 March has 46 half hours), 0.5 kWh each half hour:
  //   normal day 6 × 0.5 × 30 + 42 × 0.5 × 15 = 90 + 315 = 405p; 29 March 90 + 40 × 0.5 × 15 = 390p
  //   energy 30 × 405 + 390 = 12540p = £125.40 on (30 × 48 + 46) × 0.5 = 743 kWh
  //   standing 31 × 47.49 = 1472.19p -> £14.72; net £140.12; VAT 5% 7.006 -> £7.01; total £147.13
  const march = await a.post('/api/trading/retail-tariffs/bill', {
    tariff_id: t.tariff_id,
    from: '2026-03-01',
    to: '2026-04-01',
    consumption: halfHours('2026-03-01', '2026-04-01', () => '0.5'),
    prices: agilePrices('2026-03-01', '2026-04-01'),
  });
  assert.equal(march.status, 200, march.raw.body);
  assert.deepEqual(
    march.body.lines.map((l: { kind: string; quantity: string; amount_gbp: string; average_rate_p: string | null }) => [
      l.kind,
      l.quantity,
      l.amount_gbp,
      l.average_rate_p,
    ]),
    [
      ['standing_charge', '31', '14.72', null],
      ['unit', '743', '125.40', '16.8775'],
    ],
  );
  assert.deepEqual(march.body.totals, {
    kwh: '743',
    net_gbp: '140.12',
    vat: [{ rate_percent: '5', net_gbp: '140.12', vat_gbp: '7.01' }],
    vat_gbp: '7.01',
    total_gbp: '147.13',
  });
  assert.equal(march.body.coverage.half_hours_expected, 1486);

  // October 2026 (25 October has 50 half hours; its second 01:00 and 01:30 cost -2p and 10p):
  //   25 October: 90 + 42 × 0.5 × 15 + 0.5 × (-2) + 0.5 × 10 = 90 + 315 - 1 + 5 = 409p
  //   version 1, 1-14 October: standing 14 × 47.49 = 664.86p -> £6.65; energy 14 × 405 = 5670p = £56.70 on 14 × 24 = 336 kWh
  //   version 2, 15-31 October: standing 17 × 50 = 850p = £8.50; energy 16 × 405 + 409 = 6889p = £68.89 on 16 × 24 + 25 = 409 kWh
  //   net £140.74; VAT 5% 7.037 -> £7.04; total £147.78; kWh (30 × 48 + 50) × 0.5 = 745
  const oct = await a.post('/api/trading/retail-tariffs/bill', {
    tariff_id: t.tariff_id,
    from: '2026-10-01',
    to: '2026-11-01',
    consumption: halfHours('2026-10-01', '2026-11-01', () => '0.5'),
    prices: agilePrices('2026-10-01', '2026-11-01'),
  });
  assert.equal(oct.status, 200, oct.raw.body);
  assert.deepEqual(
    oct.body.lines.map((l: { version: number; kind: string; from: string; to: string; quantity: string; amount_gbp: string }) => [
      l.version,
      l.kind,
      l.from,
      l.to,
      l.quantity,
      l.amount_gbp,
    ]),
    [
      [1, 'standing_charge', '2026-10-01', '2026-10-15', '14', '6.65'],
      [1, 'unit', '2026-10-01', '2026-10-15', '336', '56.70'],
      [2, 'standing_charge', '2026-10-15', '2026-11-01', '17', '8.50'],
      [2, 'unit', '2026-10-15', '2026-11-01', '409', '68.89'],
    ],
  );
  assert.deepEqual(
    oct.body.versions_used.map((v: { version: number; days: number }) => [v.version, v.days]),
    [
      [1, 14],
      [2, 17],
    ],
  );
  assert.deepEqual(oct.body.totals, {
    kwh: '745',
    net_gbp: '140.74',
    vat: [{ rate_percent: '5', net_gbp: '140.74', vat_gbp: '7.04' }],
    vat_gbp: '7.04',
    total_gbp: '147.78',
  });
  assert.equal(oct.body.coverage.half_hours_expected, 1490);

  // A consumed half hour with no price is an error naming it; so is consumption outside the period.
  const prices = agilePrices('2026-10-01', '2026-10-02').filter((p) => p.start !== '2026-10-01T12:00:00.000Z');
  const noPrice = await a.post('/api/trading/retail-tariffs/bill', {
    tariff_id: t.tariff_id,
    from: '2026-10-01',
    to: '2026-10-02',
    consumption: halfHours('2026-10-01', '2026-10-02', () => '0.5'),
    prices,
  });
  assert.equal(noPrice.status, 422);
  assert.equal(noPrice.body.detail[0].msg, 'No price for 1 half hour of a dynamic tariff: 2026-10-01T12:00:00.000Z');
  const outside = await a.post('/api/trading/retail-tariffs/bill', {
    tariff_id: t.tariff_id,
    from: '2026-10-02',
    to: '2026-10-03',
    consumption: [{ start: '2026-10-01T22:30:00.000Z', kwh: '1' }],
    prices,
  });
  assert.equal(outside.body.detail[0].msg, 'half hour 2026-10-01T22:30:00.000Z is on 2026-10-01, outside the bill period 2026-10-02 to 2026-10-03');
  const before = await a.post('/api/trading/retail-tariffs/bill', { tariff_id: t.tariff_id, from: '2025-12-30', to: '2026-01-02', consumption: [] });
  assert.equal(before.body.detail[0].msg, `No tariff version of ${t.tariff_id} in force on 2025-12-30 to 2025-12-31`);
  assertRefused(
    await b.post('/api/trading/retail-tariffs/bill', { tariff_id: t.tariff_id, from: '2026-10-01', to: '2026-10-02', consumption: [] }),
    404,
    'Not Found',
  );
});

test('bill: time of use by local clock on the autumn clock change; missing half hours are counted, not estimated', async () => {
  // Night 00:30-07:30 by the clock: on 25 October 2026 the 01:00 and 01:30 happen twice, so 16 night half hours (not 14) and 34 day.
  const t = await create('E7-style', E7);
  const r = await a.post('/api/trading/retail-tariffs/bill', {
    tariff_id: t.tariff_id,
    from: '2026-10-25',
    to: '2026-10-26',
    consumption: halfHours('2026-10-25', '2026-10-26', () => '1'),
  });
  assert.equal(r.status, 200, r.raw.body);
  // night 16 × 12 = 192p = £1.92; day 34 × 30 = 1020p = £10.20; standing 50p = £0.50; net £12.62; VAT £0.631 -> £0.63
  assert.deepEqual(
    r.body.lines.map((l: { band: string | null; quantity: string; amount_gbp: string }) => [l.band, l.quantity, l.amount_gbp]),
    [
      [null, '1', '0.50'],
      ['night', '16', '1.92'],
      ['day', '34', '10.20'],
    ],
  );
  assert.equal(r.body.totals.total_gbp, '13.25');
  const part = await a.post('/api/trading/retail-tariffs/bill', {
    tariff_id: t.tariff_id,
    from: '2026-10-25',
    to: '2026-10-26',
    consumption: halfHours('2026-10-25', '2026-10-26', () => '1').slice(2),
  });
  assert.deepEqual(part.body.coverage, {
    half_hours_expected: 50,
    half_hours_present: 48,
    half_hours_missing: 2,
    first_missing: ['2026-10-24T23:00:00.000Z', '2026-10-24T23:30:00.000Z'],
  });
});

test('compare: ranked cheapest first with the difference explained', async () => {
  const flat = await create('Compare flat', FLAT);
  const e7 = await create('Compare E7', E7);
  // One January day, 1 kWh every half hour: flat 48 × 24.5 = 1176p + 53.35 = 1229.35p -> £11.76 + £0.53 = £12.29 net; VAT 0.6145 -> £0.61; £12.90
  //   E7: night 00:30-07:30 = 14 × 12 = 168p, day 34 × 30 = 1020p -> £1.68 + £10.20 + standing £0.50 = £12.38; VAT 0.619 -> £0.62; £13.00
  const r = await a.post(
    '/api/trading/retail-tariffs/compare',
    { tariff_ids: [e7.tariff_id, flat.tariff_id], from: '2026-01-10', to: '2026-01-11', consumption: halfHours('2026-01-10', '2026-01-11', () => '1') },
    'VIEWER',
  );
  assert.equal(r.status, 200, r.raw.body);
  assert.deepEqual(
    r.body.ranked.map((x: { rank: number; name: string; total_gbp: string; difference_gbp: string }) => [x.rank, x.name, x.total_gbp, x.difference_gbp]),
    [
      [1, 'Compare flat', '12.90', '0.00'],
      [2, 'Compare E7', '13.00', '0.10'],
    ],
  );
  assert.equal(r.body.ranked[1].explanation, 'Costs £0.10 more than Compare flat: standing charges £0.03 less, unit charges £0.12 more, VAT £0.01 more.');
  assert.deepEqual(r.body.ranked[1].difference, { standing_charges_gbp: '-0.03', unit_charges_gbp: '0.12', vat_gbp: '0.01' });
  assert.equal(r.body.data_basis.basis, 'calculated');
  const one = await a.post('/api/trading/retail-tariffs/compare', {
    tariff_ids: [flat.tariff_id, flat.tariff_id],
    from: '2026-01-10',
    to: '2026-01-11',
    consumption: [],
  });
  assertRefused(one, 422, { fields: ['body.tariff_ids'] });
  assertRefused(
    await b.post('/api/trading/retail-tariffs/compare', { tariff_ids: [flat.tariff_id, e7.tariff_id], from: '2026-01-10', to: '2026-01-11', consumption: [] }),
    404,
    'Not Found',
  );
});

test('smart bands: three bands from a price series, periods covering the day once, method stated', async () => {
  // Two days: 5p 00:00-07:00, 30p 16:00-19:00, 15p otherwise (by local clock).
  const series = halfHours('2026-06-01', '2026-06-03', () => '0').map(({ start }) => {
    const { h } = localClock(Date.parse(start));
    return { start, value: h < 7 ? '5' : h >= 16 && h < 19 ? '30' : '15' };
  });
  const r = await a.post('/api/trading/retail-tariffs/smart-bands', { series, kind: 'price', band_count: 3 }, 'VIEWER');
  assert.equal(r.status, 200, r.raw.body);
  assert.deepEqual(r.body.periods, [
    { band: 'low', days: 'all', from: '00:00', to: '07:00' },
    { band: 'mid', days: 'all', from: '07:00', to: '16:00' },
    { band: 'high', days: 'all', from: '16:00', to: '19:00' },
    { band: 'mid', days: 'all', from: '19:00', to: '24:00' },
  ]);
  assert.deepEqual(
    r.body.bands.map((x: { band: string; half_hours: number; hours: string; mean: string }) => [x.band, x.half_hours, x.hours, x.mean]),
    [
      ['low', 14, '7', '5.0000'],
      ['mid', 28, '14', '15.0000'],
      ['high', 6, '3', '30.0000'],
    ],
  );
  assert.equal(r.body.days, 2);
  assert.match(r.body.data_basis.method, /Jenks natural breaks/);
  // The proposal is a valid schedule for a time-of-use tariff.
  const v = await a.post('/api/trading/retail-tariffs/validate', {
    name: 'Smart',
    supply_type: 'domestic',
    version: { ...FLAT, unit_rates: { type: 'time_of_use', rates: { low: '10', mid: '20', high: '35' }, periods: r.body.periods } },
  });
  assert.equal(v.body.valid, true, JSON.stringify(v.body));
  const short = await a.post('/api/trading/retail-tariffs/smart-bands', {
    series: series.slice(0, 48).map((s, i) => ({ ...s, start: i === 47 ? series[0].start : s.start })),
    kind: 'price',
    band_count: 3,
  });
  assertRefused(short, 422, { fields: ['body.series.47.start'] });
  const gap = await a.post('/api/trading/retail-tariffs/smart-bands', {
    series: series.filter((s) => localClock(Date.parse(s.start)).h !== 3),
    kind: 'load',
    band_count: 2,
  });
  assert.equal(gap.status, 422);
  assert.equal(gap.body.detail[0].msg, 'the series has no value at UK local 03:00-03:30, 03:30-04:00: every half hour of the day needs at least one');
  assertRefused(await a.post('/api/trading/retail-tariffs/smart-bands', { series, kind: 'price', band_count: 5 }), 422, { fields: ['body.band_count'] });
});
