// Tariff schedule and warranty through HTTP: a site with two registered batteries, given prices,
// the recorded run read back, warranty limits applied, a 50-half-hour clock-change day, refusals.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { asset, call, json, tokenFor } from '../energy/helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

const BASE = '/api/optimiser/tariff-schedule';
let svc: TestService;
let admin: string;
let viewer: string;
let other: string;

// Cheap overnight, dear at tea time: 8 half hours from 00:00Z.
const PRICES = [5, 5, 30, 30, 10, 40, 40, 10];
const battery = (o: object = {}) => ({
  device_id: 'bat-1',
  capacity_kwh: 4,
  max_charge_kw: 4,
  round_trip_efficiency: 1,
  min_soc_pct: 0,
  max_soc_pct: 100,
  initial_soc_pct: 0,
  ...o,
});
const body = (o: object = {}) => ({
  start: '2026-11-24T00:00:00Z',
  hours: 4,
  include_site_forecast: false,
  batteries: [battery()],
  prices: { source: 'manual', import_p_per_kwh: PRICES, export_p_per_kwh: PRICES },
  ...o,
});

before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-11-23T12:00:00Z') });
  await svc.createOrg('org-ts');
  await svc.createOrg('org-tx');
  admin = await tokenFor(svc, 'org-ts');
  viewer = await tokenFor(svc, 'org-ts', 'VIEWER');
  other = await tokenFor(svc, 'org-tx');
  await asset(svc, admin, { asset_id: 'bat-1', site_id: 'bess', asset_class: 'battery' });
  await asset(svc, admin, { asset_id: 'bat-2', site_id: 'bess', asset_class: 'battery' });
  await asset(svc, admin, { asset_id: 'bess-meter', site_id: 'bess', asset_class: 'site_meter' });
});
after(() => svc?.stop());

test('a schedule buys cheap and sells dear, states its savings, and is recorded', async () => {
  const res = await call(svc, admin, 'POST', `${BASE}/bess/run`, body());
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['x-platform-data-basis'], 'calculated');
  assert.match(String(res.headers['x-platform-method']), /HiGHS/);
  const r = json(res);
  // By hand: 4 kWh, 2 kWh a half hour, export paid as import. Buy 4 kWh at 5p (+20p), sell 2 at 30p
  // (−60p), buy 2 at 10p (+20p), sell 4 at 40p (−160p): −180p. (Selling all 4 at 30p leaves only
  // 2 kWh to buy at 10p and sell at 40p: −160p.)
  assert.equal(r.cost_optimised_gbp, '-1.80');
  assert.equal(r.cost_do_nothing_gbp, '0.00');
  assert.equal(r.saving_vs_do_nothing_gbp, '1.80');
  // Simple rule: k = 2 half hours each way: charge in the two 5p ones, discharge in the two 40p ones: −1.40.
  assert.equal(r.cost_simple_rule_gbp, '-1.40');
  assert.equal(r.saving_vs_simple_rule_gbp, '0.40');
  assert.equal(r.half_hour_plan.length, 8);
  // State of charge after each half hour (the 2 kWh sale at 30p may fall in either 30p half hour).
  const soc = r.half_hour_plan.map((h: any) => h.devices[0].soc_kwh);
  assert.deepEqual([soc[0], soc[1], soc[3], soc[4], soc[5], soc[6], soc[7]], [2, 4, 2, 4, 2, 0, 0]);
  assert.ok(r.half_hour_plan.every((h: any) => h.devices[0].soc_kwh >= 0 && h.devices[0].soc_kwh <= 4));
  assert.equal(r.half_hour_plan[0].settlement_period, 1);

  const list = json(await call(svc, viewer, 'GET', `${BASE}/bess/runs`));
  assert.equal(list.runs.length, 1);
  assert.equal(list.runs[0].run_id, r.run_id);
  assert.equal(list.runs[0].saving_vs_simple_rule_gbp, '0.40');
  const one = json(await call(svc, viewer, 'GET', `${BASE}/bess/runs/${r.run_id}`));
  assert.deepEqual(one.half_hour_plan, r.half_hour_plan);
  assert.equal(one.cost_optimised_gbp, '-1.80');

  assertRefused(await call(svc, other, 'GET', `${BASE}/bess/runs/${r.run_id}`), 404, 'Site not found');
  assertRefused(await call(svc, viewer, 'GET', `${BASE}/bess/runs/nope`), 404, 'Run not found');
  assertRefused(await call(svc, other, 'GET', `${BASE}/bess/runs`), 404, 'Site not found');
  assertRefused(await call(svc, viewer, 'GET', `${BASE}/bess/runs?limit=0`), 422, { fields: ['query.limit'] });
});

test('runs page newest first with a cursor', async () => {
  await call(svc, admin, 'POST', `${BASE}/bess/run`, body());
  const p1 = json(await call(svc, viewer, 'GET', `${BASE}/bess/runs?limit=1`));
  assert.equal(p1.has_more, true);
  const p2 = json(await call(svc, viewer, 'GET', `${BASE}/bess/runs?limit=1&cursor=${encodeURIComponent(p1.next_cursor)}`));
  assert.equal(p2.runs.length, 1);
  assert.notEqual(p2.runs[0].run_id, p1.runs[0].run_id);
});

test('warranty limits are stored per battery and bound discharge a UK day', async () => {
  const w = json(await call(svc, viewer, 'GET', `${BASE}/bess/warranty`));
  assert.deepEqual(
    w.devices.map((d: any) => [d.device_id, d.max_cycles_per_day]),
    [
      ['bat-1', null],
      ['bat-2', null],
    ],
  );
  const put = await call(svc, admin, 'PUT', `${BASE}/bess/warranty/bat-1`, {
    max_cycles_per_day: null,
    max_throughput_kwh_per_day: 4,
    warranty_end: '2031-01-01',
  });
  assert.equal(put.statusCode, 200, put.body);
  const again = json(await call(svc, viewer, 'GET', `${BASE}/bess/warranty`));
  assert.equal(again.devices[0].max_throughput_kwh_per_day, 4);
  assert.equal(again.devices[0].warranty_end, '2031-01-01');
  // Now only 4 kWh may be discharged on 24 November: one sale, at 40p: 20 − 160 = −140p.
  const r = json(await call(svc, admin, 'POST', `${BASE}/bess/run`, body()));
  assert.equal(r.batteries[0].max_discharge_kwh_per_day, 4);
  const discharged = r.half_hour_plan.reduce((s: number, h: any) => s + Math.max(0, -h.devices[0].power_kw) * 0.5, 0);
  assert.ok(discharged <= 4 + 1e-6);
  assert.equal(r.cost_optimised_gbp, '-1.40');

  assertRefused(await call(svc, viewer, 'PUT', `${BASE}/bess/warranty/bat-1`, { max_cycles_per_day: 1, max_throughput_kwh_per_day: null }), 403, /./);
  assertRefused(
    await call(svc, admin, 'PUT', `${BASE}/bess/warranty/bess-meter`, { max_cycles_per_day: 1, max_throughput_kwh_per_day: null }),
    404,
    'Device not found',
  );
  assertRefused(await call(svc, admin, 'PUT', `${BASE}/bess/warranty/bat-1`, { max_cycles_per_day: -1, max_throughput_kwh_per_day: null }), 422, {
    fields: ['body.max_cycles_per_day'],
  });
  assertRefused(await call(svc, other, 'GET', `${BASE}/bess/warranty`), 404, 'Site not found');
  // A calendar date PostgreSQL has no year for (decision 0259): the field error, not a 500, and the
  // stored end is kept.
  assertRefused(
    await call(svc, admin, 'PUT', `${BASE}/bess/warranty/bat-1`, { max_cycles_per_day: null, max_throughput_kwh_per_day: 4, warranty_end: '0000-06-01' }),
    422,
    { fields: ['body.warranty_end'] },
  );
  assert.equal(json(await call(svc, viewer, 'GET', `${BASE}/bess/warranty`)).devices[0].warranty_end, '2031-01-01');
  await call(svc, admin, 'PUT', `${BASE}/bess/warranty/bat-1`, { max_cycles_per_day: null, max_throughput_kwh_per_day: null });
});

test('a clock-change day is planned in its 50 half hours', async () => {
  const prices = Array.from({ length: 50 }, (_, i) => (i % 10 < 5 ? 8 : 32));
  const r = json(
    await call(
      svc,
      admin,
      'POST',
      `${BASE}/bess/run`,
      body({ start: '2026-10-24T23:00:00Z', hours: 25, prices: { source: 'manual', import_p_per_kwh: prices } }),
    ),
  );
  assert.equal(r.half_hour_plan.length, 50);
  assert.deepEqual(
    r.half_hour_plan.map((h: any) => h.settlement_period),
    Array.from({ length: 50 }, (_, i) => i + 1),
  );
  assert.ok(r.half_hour_plan.every((h: any) => h.settlement_date === '2026-10-25'));
});

test('money is decimal: half-hour cost lines add up to the totals exactly, and savings are exact differences', async () => {
  // Awkward prices (VAT-inclusive Agile-like figures) and a lossy battery, so energies are not round.
  const prices = [17.283, 21.6195, 9.87, 35.1234, 4.4, 28.0001, 12.5, 40.0815];
  const exportPrices = prices.map((p) => Math.round(p * 0.37 * 10_000) / 10_000);
  const res = await call(
    svc,
    admin,
    'POST',
    `${BASE}/bess/run`,
    body({
      batteries: [battery({ capacity_kwh: 5.3, max_charge_kw: 3.1, round_trip_efficiency: 0.87, initial_soc_pct: 23 })],
      prices: { source: 'manual', import_p_per_kwh: prices, export_p_per_kwh: exportPrices },
    }),
  );
  assert.equal(res.statusCode, 200, res.body);
  const r = json(res);
  assert.match(r.method, /rounded to the watt-hour/);
  assert.match(r.method, /exact sum/);
  // Exact decimal arithmetic in the test too: £ as integers of £0.000001.
  const units = (gbp: string) => {
    assert.match(gbp, /^-?\d+\.\d{2,4}$/, `money ${gbp}`);
    const [w, f] = gbp.replace('-', '').split('.');
    const v = BigInt(w + f.padEnd(6, '0'));
    return gbp.startsWith('-') ? -v : v;
  };
  const sum = (k: string) => r.half_hour_plan.reduce((s: bigint, h: any) => s + units(h[k]), 0n);
  assert.equal(sum('cost_gbp'), units(r.cost_optimised_gbp));
  assert.equal(sum('cost_do_nothing_gbp'), units(r.cost_do_nothing_gbp));
  assert.equal(sum('cost_simple_rule_gbp'), units(r.cost_simple_rule_gbp));
  assert.equal(units(r.cost_do_nothing_gbp) - units(r.cost_optimised_gbp), units(r.saving_vs_do_nothing_gbp));
  assert.equal(units(r.cost_simple_rule_gbp) - units(r.cost_optimised_gbp), units(r.saving_vs_simple_rule_gbp));
  // Each line is the shown grid energy (to the Wh) × its price, exactly, rounded to £0.0001.
  for (const [i, h] of r.half_hour_plan.entries()) {
    const wh = BigInt(Math.round(h.grid_import_kwh * 1000)) - BigInt(Math.round(h.grid_export_kwh * 1000));
    const micro = BigInt(Math.round((wh > 0n ? prices[i] : exportPrices[i]) * 1e6)); // µp/kWh
    const exact = wh * micro; // 1e-9 p = 1e-11 £
    const step = 10n ** 7n; // to £0.0001
    const abs = exact < 0n ? -exact : exact;
    const rounded = ((abs + step / 2n) / step) * (exact < 0n ? -1n : 1n);
    assert.equal(units(h.cost_gbp), rounded * 100n, `half hour ${i}: ${h.cost_gbp}`);
  }
  assert.ok(
    r.half_hour_plan.some((h: any) => /\.\d{3,}$/.test(h.cost_gbp)),
    'some line is finer than a penny, so rounding is exercised',
  );
  // The do-nothing site has no base load here: every line is zero.
  assert.equal(r.cost_do_nothing_gbp, '0.00');
});

test('refusals: bad batteries, price lists, other organisations, roles', async () => {
  assertRefused(await call(svc, admin, 'POST', `${BASE}/bess/run`, body({ batteries: [battery({ device_id: 'bess-meter' })] })), 422, {
    fields: ['body.batteries.0.device_id'],
  });
  assertRefused(await call(svc, admin, 'POST', `${BASE}/bess/run`, body({ batteries: [battery({ initial_soc_pct: 5, min_soc_pct: 10 })] })), 422, {
    fields: ['body.batteries.0.initial_soc_pct'],
  });
  assertRefused(await call(svc, admin, 'POST', `${BASE}/bess/run`, body({ batteries: [battery(), battery()] })), 422, {
    fields: ['body.batteries.1.device_id'],
  });
  assertRefused(await call(svc, admin, 'POST', `${BASE}/bess/run`, body({ hours: 5 })), 422, { fields: ['body.prices.import_p_per_kwh'] });
  assertRefused(await call(svc, admin, 'POST', `${BASE}/bess/run`, body({ batteries: [] })), 422, { fields: ['body.batteries'] });
  assertRefused(await call(svc, viewer, 'POST', `${BASE}/bess/run`, body()), 403, /./);
  assertRefused(await call(svc, other, 'POST', `${BASE}/bess/run`, body()), 404, 'Site not found');
});

test("a stored retail tariff's time-of-use unit rates (VAT inclusive, by UK time band) price the schedule; unknown, other organisations' and dynamic tariffs are refused", async () => {
  const tariff = (name: string, unit_rates: object) =>
    call(svc, admin, 'POST', '/api/trading/retail-tariffs', {
      name,
      supply_type: 'domestic',
      version: { effective_from: '2026-11-01', effective_to: null, vat_rate_percent: '5', standing_charge_p_per_day: '50', unit_rates },
    });
  const tou = await tariff('Cheap first hour', {
    type: 'time_of_use',
    rates: { cheap: '10', dear: '40' },
    periods: [
      { band: 'cheap', days: 'all', from: '00:00', to: '01:00' },
      { band: 'dear', days: 'all', from: '01:00', to: '24:00' },
    ],
  });
  assert.equal(tou.statusCode, 201, tou.body);
  const tariffId = json(tou).tariff_id;
  const res = await call(svc, admin, 'POST', `${BASE}/bess/run`, body({ prices: { source: 'retail_tariff', tariff_id: tariffId }, export_p_per_kwh: 30 }));
  assert.equal(res.statusCode, 200, res.body);
  const r = json(res);
  // By hand (GMT, so UK time is UTC): import 10.5p (10 + 5% VAT) from 00:00 to 01:00, 42p after;
  // export 30p. Buy 4 kWh in the two cheap half hours (+42p), sell it in the dear ones (−120p): −78p.
  // Buying at 42p to sell at 30p loses, so nothing more.
  assert.equal(r.cost_optimised_gbp, '-0.78');
  assert.equal(r.cost_do_nothing_gbp, '0.00');
  assert.match(r.price_source, new RegExp(`retail tariff ${tariffId} \\(Cheap first hour\\), version 1`));

  assertRefused(await call(svc, admin, 'POST', `${BASE}/bess/run`, body({ prices: { source: 'retail_tariff', tariff_id: 'no-such-tariff' } })), 422, {
    fields: ['body.prices.tariff_id'],
  });
  const dynamic = json(await tariff('Agile-like', { type: 'dynamic' })).tariff_id;
  const refused = await call(svc, admin, 'POST', `${BASE}/bess/run`, body({ prices: { source: 'retail_tariff', tariff_id: dynamic } }));
  assertRefused(refused, 422, { fields: ['body.prices.tariff_id'] });
  assert.match(refused.body, /dynamic tariff/);
  // Another organisation's site cannot be planned, and its own tariffs do not include this one.
  await asset(svc, other, { asset_id: 'bat-x', site_id: 'bess-x', asset_class: 'battery' });
  assertRefused(
    await call(
      svc,
      other,
      'POST',
      `${BASE}/bess-x/run`,
      body({ batteries: [battery({ device_id: 'bat-x' })], prices: { source: 'retail_tariff', tariff_id: tariffId } }),
    ),
    422,
    { fields: ['body.prices.tariff_id'] },
  );
});

test('a battery planned above its registered capacity_kwh is refused (the schedule stays within what the registry says the battery holds); at or below it is planned', async () => {
  await asset(svc, admin, { asset_id: 'bat-cap', site_id: 'capped', asset_class: 'battery', details: { capacity_kwh: 5.2 } });
  const capped = (o: object) => body({ batteries: [battery({ device_id: 'bat-cap', ...o })] });
  const over = await call(svc, admin, 'POST', `${BASE}/capped/run`, capped({ capacity_kwh: 52 }));
  assertRefused(over, 422, { fields: ['body.batteries.0.capacity_kwh'] });
  assert.equal(json(over).detail[0].msg, "above the battery's registered capacity_kwh (5.2 kWh in its registry details)");
  const at = await call(svc, admin, 'POST', `${BASE}/capped/run`, capped({ capacity_kwh: 5.2 }));
  assert.equal(at.statusCode, 200, at.body);
  assert.equal(json(at).batteries[0].capacity_kwh, 5.2);
  assert.equal(
    (await call(svc, admin, 'POST', `${BASE}/capped/run`, capped({ capacity_kwh: 4 }))).statusCode,
    200,
    "a smaller usable capacity is the planner's choice",
  );
  // The import-limit configuration holds the same rule.
  const cfg = await call(svc, admin, 'PUT', `/api/optimiser/import-limit/capped/config`, {
    import_limit_kw: 6,
    assets: [{ device_id: 'bat-cap', kind: 'battery', max_power_kw: 5, capacity_kwh: 10, initial_soc_pct: 50 }],
  });
  assertRefused(cfg, 422, { fields: ['body.assets.0.capacity_kwh'] });
});
