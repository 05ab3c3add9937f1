// The demo organisation's market reads (decision 0486): with both providers down (loopback fakes
// answering 503), the demo organisation `npm start` seeds gets whole UK days of Agile-shaped prices
// and carbon intensity from the sample week shipped with the service, replayed by weekday and UK
// wall clock, labelled `simulated` with a method that says so, and no provider is asked; a
// production organisation on the same service still gets the 502 it always got.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { startFakeCarbon, startFakeTariff, type FakeCarbon, type FakeTariff } from '../helpers/fake-market.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createProvisioning } from '../../src/cli/provisioning.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { readSampleWeek } from '../../src/modules/market/sample.ts';

const NOW = '2026-05-13T10:10:00Z'; // a Wednesday, 11:10 UK (BST)
const PRODUCTION = 'market-production';
const SAMPLE = JSON.parse(readFileSync(new URL('../../src/modules/market/demo-sample.json', import.meta.url), 'utf8'));

let tariff: FakeTariff;
let carbon: FakeCarbon;
let svc: TestService;
let clock: ManualClock;
let demoOrg: string;

before(async () => {
  clock = new ManualClock(NOW);
  tariff = await startFakeTariff();
  carbon = await startFakeCarbon(() => clock.now().getTime());
  svc = await startTestService({
    clock,
    env: { TARIFF_API_BASE_URL: tariff.url, CARBON_API_BASE_URL: carbon.url, UPSTREAM_TIMEOUT_MS: '2000', UPSTREAM_RETRY_BASE_MS: '1' },
  });
  demoOrg = (await createProvisioning(svc.deps.db).seedDemo()).organisation_id;
  await svc.createOrg(PRODUCTION);
});
after(async () => {
  await svc.stop();
  await Promise.all([tariff.close(), carbon.close()]);
});
beforeEach(() => {
  tariff.mode = 'down';
  carbon.mode = 'down';
  tariff.server.requests.length = 0;
  carbon.server.requests.length = 0;
  clock.set(NOW);
});

// Tokens are signed at the clock's time, so a test that moves the clock gets a fresh one per call.
const get = async (url: string, orgId = demoOrg) =>
  svc.request({ method: 'GET', url, headers: { authorization: `Bearer ${await svc.token({ orgId, roles: ['VIEWER'] })}` } });

/** The sample's rows by UK weekday and wall-clock "HH:MM" (the week is in November, UTC = UK time). */
const weekday = (iso: string) => new Date(iso).getUTCDay();
const hhmm = (iso: string) => iso.slice(11, 16);
const sampleRate = new Map<string, { value_exc_vat: number; value_inc_vat: number }>(
  SAMPLE.tariff.results.map((r: { valid_from: string; value_exc_vat: number; value_inc_vat: number }) => [
    `${weekday(r.valid_from)} ${hhmm(r.valid_from)}`,
    { value_exc_vat: r.value_exc_vat, value_inc_vat: r.value_inc_vat },
  ]),
);
const sampleIntensity = new Map<string, { forecast: number; actual: number; index: string }>(
  SAMPLE.carbon.data.map((r: { from: string; intensity: { forecast: number; actual: number; index: string } }) => [
    `${weekday(`${r.from.slice(0, 16)}:00Z`)} ${hhmm(r.from)}`,
    r.intensity,
  ]),
);
/** The UK wall-clock weekday and "HH:MM" of an instant. */
function ukWall(iso: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/London', weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
    .formatToParts(new Date(iso))
    .reduce<Record<string, string>>((o, p) => ({ ...o, [p.type]: p.value }), {});
  return `${['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(parts.weekday)} ${parts.hour}:${parts.minute}`;
}

const PRICES_METHOD =
  "Demo organisation: a sample week of Agile-shaped unit rates shipped with the service, replayed onto the days asked for by weekday and UK clock time; not the tariff provider's prices for these days.";

function assertSimulated(res: { headers: Record<string, unknown> }, method: RegExp | string) {
  assert.equal(res.headers['x-platform-data-basis'], 'simulated');
  if (typeof method === 'string') assert.equal(res.headers['x-platform-method'], method);
  else assert.match(String(res.headers['x-platform-method']), method);
}

function assertNoProviderAsked() {
  assert.equal(tariff.server.requests.length, 0, 'the tariff provider was not asked');
  assert.equal(carbon.server.requests.length, 0, 'the carbon intensity provider was not asked');
}

test('the shipped sample is seven whole UK days of both providers’ answers', () => {
  const week = readSampleWeek(readFileSync(new URL('../../src/modules/market/demo-sample.json', import.meta.url), 'utf8'));
  assert.equal(week.rates.size, 336);
  assert.equal(week.intensity.size, 336);
  // A sample missing a half hour is refused, not replayed with a hole.
  const holed = structuredClone(SAMPLE);
  holed.tariff.results.splice(100, 1);
  assert.throws(() => readSampleWeek(JSON.stringify(holed)), /the demo market sample lacks weekday/);
});

test('demo organisation, providers down: a whole UK day of prices from the sample, labelled simulated, nothing fetched', async () => {
  const res = await get('/api/trading/prices/provider-agile?region=H&period_from=2026-05-12&period_to=2026-05-13');
  assert.equal(res.statusCode, 200, res.body);
  assertSimulated(res, PRICES_METHOD);
  const body = json(res);
  // The live answer's shape and figures: region, tariff code, units, VAT, flags.
  assert.equal(body.region, 'H');
  assert.equal(body.region_name, 'Southern England');
  assert.equal(body.tariff_code, 'E-1R-AGILE-24-10-01-H');
  assert.equal(body.unit, 'p/kWh');
  assert.equal(body.vat_rate_percent, 5);
  assert.equal(body.count, 48);
  assert.equal(body.expected_count, 48);
  assert.equal(body.complete, true);
  assert.equal(body.stale, false);
  assert.equal(body.cached_at, new Date(NOW).toISOString());
  assert.equal(body.published_until, '2026-05-12T23:00:00.000Z');
  assert.equal(body.prices[0].valid_from, '2026-05-11T23:00:00.000Z');
  body.prices.forEach((p: Record<string, any>, i: number) => {
    assert.equal(p.settlement_date, '2026-05-12');
    assert.equal(p.settlement_period, i + 1);
    if (i > 0) assert.equal(p.valid_from, body.prices[i - 1].valid_to);
    // Each half hour is the sample's for the same weekday (Tuesday) and UK clock time, as published there.
    assert.deepEqual({ value_exc_vat: p.value_exc_vat, value_inc_vat: p.value_inc_vat }, sampleRate.get(ukWall(p.valid_from)));
    // Money as the live answer gives it: decimal p/kWh, the inclusive figure exactly 1.05 × the exclusive one.
    assert.equal(typeof p.value_exc_vat, 'number');
    assert.match(String(p.value_exc_vat), /^-?\d+(\.\d{1,2})?$/);
    assert.equal(p.value_inc_vat, Number(((Math.round(p.value_exc_vat * 100) * 105) / 10000).toFixed(4)));
  });
  // A Tuesday's prices are not a copy of another weekday's.
  const wednesday = json(await get('/api/trading/prices/provider-agile?region=H&period_from=2026-05-13&period_to=2026-05-14'));
  assert.notDeepEqual(
    wednesday.prices.map((p: { value_exc_vat: number }) => p.value_exc_vat),
    body.prices.map((p: { value_exc_vat: number }) => p.value_exc_vat),
  );
  // The default period (today and tomorrow, tomorrow before its publication time too) is whole.
  const twoDays = json(await get('/api/trading/prices/provider-agile'));
  assert.equal(twoDays.count, 96);
  assert.equal(twoDays.complete, true);
  assertNoProviderAsked();
});

test('demo organisation: clock-change days have 46 and 50 half hours, the repeated hour replaying the same clock time', async () => {
  const spring = json(await get('/api/trading/prices/provider-agile?period_from=2026-03-29&period_to=2026-03-30'));
  assert.equal(spring.count, 46);
  assert.equal(spring.expected_count, 46);
  assert.equal(spring.complete, true);
  assert.deepEqual(
    spring.prices.map((p: { settlement_period: number }) => p.settlement_period),
    Array.from({ length: 46 }, (_, i) => i + 1),
  );
  // 01:00-02:00 UK does not occur: 00:30 GMT is followed by 02:00 BST (01:00 UTC).
  assert.equal(spring.prices[1].valid_from, '2026-03-29T00:30:00.000Z');
  assert.equal(spring.prices[2].valid_from, '2026-03-29T01:00:00.000Z');
  assert.equal(ukWall(spring.prices[2].valid_from), '0 02:00');
  assert.equal(spring.prices[2].value_exc_vat, sampleRate.get('0 02:00')!.value_exc_vat);

  const autumn = json(await get('/api/trading/prices/provider-agile?period_from=2026-10-25&period_to=2026-10-26'));
  assert.equal(autumn.count, 50);
  assert.equal(autumn.expected_count, 50);
  assert.equal(autumn.complete, true);
  assert.equal(autumn.prices[49].settlement_period, 50);
  // 01:00 UK twice (BST then GMT): periods 3 and 5 are both 01:00 on the clock, with the same figures.
  assert.equal(autumn.prices[2].valid_from, '2026-10-25T00:00:00.000Z');
  assert.equal(autumn.prices[4].valid_from, '2026-10-25T01:00:00.000Z');
  assert.equal(autumn.prices[2].value_inc_vat, autumn.prices[4].value_inc_vat);
  assert.equal(autumn.prices[2].value_inc_vat, sampleRate.get('0 01:00')!.value_inc_vat);

  // Three days across the spring change: 48 + 46 + 48.
  const across = json(await get('/api/trading/prices/provider-agile?period_from=2026-03-28&period_to=2026-03-31'));
  assert.equal(across.count, 142);
  assert.equal(across.complete, true);
  assertNoProviderAsked();
});

test('demo organisation: the current price and the next cheap window come from the sample, labelled simulated', async () => {
  const res = await get('/api/trading/prices/current?window_minutes=120');
  assert.equal(res.statusCode, 200, res.body);
  assertSimulated(res, /^Demo organisation: the current half hour and the cheap window taken from a sample week/);
  const body = json(res);
  assert.equal(body.current.valid_from, '2026-05-13T10:00:00.000Z');
  assert.equal(body.current.value_inc_vat, sampleRate.get(ukWall('2026-05-13T10:00:00Z'))!.value_inc_vat);
  assert.equal(body.next_cheap_window.slots, 4);
  assert.equal(typeof body.next_cheap_window.mean_value_inc_vat, 'number');
  // Today and tomorrow are whole in the sample, so the horizon is the end of tomorrow, UK time.
  assert.equal(body.published_until, '2026-05-14T23:00:00.000Z');
  assert.equal(body.stale, false);
  assertNoProviderAsked();
});

test('demo organisation: carbon intensity now and the forecast from the sample, actual only for half hours begun, labelled simulated', async () => {
  const now = await get('/api/trading/carbon-intensity');
  assert.equal(now.statusCode, 200, now.body);
  assertSimulated(now, /^Demo organisation: a sample week of GB carbon intensity shipped with the service, replayed onto the current half hour/);
  const current = json(now);
  assert.equal(current.unit, 'gCO2/kWh');
  assert.equal(current.from, '2026-05-13T10:00:00.000Z');
  assert.equal(current.settlement_period, 23);
  assert.deepEqual({ forecast: current.forecast, actual: current.actual, index: current.index }, sampleIntensity.get(ukWall(current.from)));
  assert.equal(current.stale, false);

  const res = await get('/api/trading/carbon-intensity/forecast?hours=24');
  assert.equal(res.statusCode, 200, res.body);
  assertSimulated(res, /^Demo organisation: a sample week of GB carbon intensity shipped with the service, replayed onto the hours asked for/);
  const body = json(res);
  assert.equal(body.count, 48);
  assert.equal(body.from, '2026-05-13T10:00:00.000Z');
  assert.equal(body.to, '2026-05-14T10:00:00.000Z');
  body.periods.forEach((p: Record<string, any>, i: number) => {
    if (i > 0) assert.equal(p.from, body.periods[i - 1].to);
    const s = sampleIntensity.get(ukWall(p.from))!;
    assert.equal(p.forecast, s.forecast);
    assert.equal(p.index, s.index);
    // The current half hour has begun (its estimated actual); later ones have none yet.
    assert.equal(p.actual, i === 0 ? s.actual : null);
  });
  // Half an hour on, the next half hour is current and has its actual.
  clock.advance(30 * 60_000);
  const later = json(await get('/api/trading/carbon-intensity/forecast?hours=1'));
  assert.equal(later.periods[0].from, '2026-05-13T10:30:00.000Z');
  assert.notEqual(later.periods[0].actual, null);
  assert.equal(later.periods[1].actual, null);
  assertNoProviderAsked();
});

test('production organisation on the same service, providers down: 502 as before, no simulated label', async () => {
  const prices = await get('/api/trading/prices/provider-agile?period_from=2026-05-12&period_to=2026-05-13', PRODUCTION);
  assertRefused(prices, 502, 'Tariff provider API error');
  assert.equal(prices.headers['x-platform-data-basis'], undefined);
  const current = await get('/api/trading/prices/current', PRODUCTION);
  assertRefused(current, 502, 'Tariff provider API error');
  const intensity = await get('/api/trading/carbon-intensity/forecast', PRODUCTION);
  assertRefused(intensity, 502, 'Carbon Intensity API error');
  assert.ok(tariff.rateRequests().length > 0, 'the tariff provider was asked');
  assert.ok(carbon.server.requests.length > 0, 'the carbon intensity provider was asked');

  // Providers up again: the production organisation's answers are the providers', labelled as declared.
  tariff.mode = 'ok';
  carbon.mode = 'ok';
  const live = await get('/api/trading/prices/provider-agile?period_from=2026-05-12&period_to=2026-05-13', PRODUCTION);
  assert.equal(live.statusCode, 200, live.body);
  assert.equal(live.headers['x-platform-data-basis'], 'stored');
  assert.equal(live.headers['x-platform-method'], 'Unit rates as the tariff provider publishes them, relayed unchanged and cached; nothing is estimated.');
  const forecast = await get('/api/trading/carbon-intensity/forecast', PRODUCTION);
  assert.equal(forecast.statusCode, 200, forecast.body);
  assert.equal(forecast.headers['x-platform-data-basis'], 'forecast');
  // ... and the demo organisation's stay the sample's, whatever the providers say.
  tariff.server.requests.length = 0;
  carbon.server.requests.length = 0;
  const demo = await get('/api/trading/prices/provider-agile?period_from=2026-05-12&period_to=2026-05-13');
  assertSimulated(demo, PRICES_METHOD);
  assert.equal(json(demo).prices[0].value_exc_vat, sampleRate.get(ukWall('2026-05-11T23:00:00Z'))!.value_exc_vat);
  assertNoProviderAsked();
});
