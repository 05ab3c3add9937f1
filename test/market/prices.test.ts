// Tariff prices, current slot and cheap window, GSP regions: through HTTP against a loopback fake
// of the tariff provider (upstreams.md section 1).
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { startFakeTariff, defaultPrice, type FakeTariff } from '../helpers/fake-market.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { assertRefused } from '../helpers/refusal.ts';

const ORG = 'market-org';
const NOW = '2026-05-13T10:10:00Z'; // 11:10 UK (BST)
let fake: FakeTariff;
let svc: TestService;
let clock: ManualClock;

async function startService(env: Record<string, string> = {}) {
  const s = await startTestService({
    clock,
    env: {
      TARIFF_API_BASE_URL: fake.url,
      CARBON_API_BASE_URL: 'http://127.0.0.1:9',
      UPSTREAM_TIMEOUT_MS: '2000',
      UPSTREAM_RETRY_BASE_MS: '1',
      ...env,
    },
  });
  await s.createOrg(ORG);
  return s;
}

before(async () => {
  fake = await startFakeTariff();
  clock = new ManualClock(NOW);
  svc = await startService();
});
after(async () => {
  await svc.stop();
  await fake.close();
});
beforeEach(() => {
  fake.mode = 'ok';
  fake.publishedUntil = null;
  fake.pageSize = 1500;
  fake.omitIncVat = false;
  fake.price = defaultPrice;
  fake.override = null;
  fake.server.requests.length = 0;
  clock.set(NOW);
});

// Tokens are signed at the clock's time, so tests that move the clock get a fresh one per call.
const get = async (url: string, s = svc, t?: string) =>
  s.request({ method: 'GET', url, headers: { authorization: `Bearer ${t ?? (await s.token({ orgId: ORG, roles: ['VIEWER'] }))}` } });

test('prices: a normal UK day is 48 half hours, ascending, UTC with Z, VAT figures as published', async () => {
  const res = await get('/api/trading/prices/provider-agile?region=H&period_from=2026-05-12&period_to=2026-05-13');
  assert.equal(res.statusCode, 200, res.body);
  const body = json(res);
  assert.equal(body.region, 'H');
  assert.equal(body.region_name, 'Southern England');
  assert.equal(body.tariff_code, 'E-1R-AGILE-24-10-01-H');
  assert.equal(body.unit, 'p/kWh');
  assert.equal(body.count, 48);
  assert.equal(body.expected_count, 48);
  assert.equal(body.complete, true);
  assert.equal(body.stale, false);
  assert.equal(body.period_from, '2026-05-11T23:00:00.000Z');
  assert.equal(body.prices[0].valid_from, '2026-05-11T23:00:00.000Z');
  assert.equal(body.prices[0].settlement_period, 1);
  assert.equal(body.prices[0].settlement_date, '2026-05-12');
  assert.equal(body.prices[47].valid_to, '2026-05-12T23:00:00.000Z');
  for (let i = 1; i < 48; i++) assert.equal(body.prices[i].valid_from, body.prices[i - 1].valid_to);
  for (const p of body.prices) {
    assert.match(p.valid_from, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    // The inclusive figure is the exclusive one × 1.05, never rounded first.
    assert.equal(p.value_inc_vat, Number(((Math.round(p.value_exc_vat * 100) * 105) / 10000).toFixed(4)));
  }
  // The provider was asked with zoned times and never more than 1500 rows a page.
  const asked = new URL(fake.rateRequests()[0].url, fake.url);
  assert.equal(asked.searchParams.get('period_from'), '2026-05-11T23:00:00Z');
  assert.ok(Number(asked.searchParams.get('page_size')) <= 1500);
});

test('prices: 2026-03-29 (clocks go forward) has 46 half hours and 2026-10-25 (clocks go back) has 50', async () => {
  const spring = json(await get('/api/trading/prices/provider-agile?region=A&period_from=2026-03-29&period_to=2026-03-30'));
  assert.equal(spring.count, 46);
  assert.equal(spring.expected_count, 46);
  assert.equal(spring.prices[0].valid_from, '2026-03-29T00:00:00.000Z');
  assert.equal(spring.prices[45].valid_to, '2026-03-29T23:00:00.000Z');
  assert.deepEqual(
    spring.prices.map((p: { settlement_period: number }) => p.settlement_period),
    Array.from({ length: 46 }, (_, i) => i + 1),
  );
  const autumn = json(await get('/api/trading/prices/provider-agile?region=A&period_from=2026-10-25&period_to=2026-10-26'));
  assert.equal(autumn.count, 50);
  assert.equal(autumn.prices[0].valid_from, '2026-10-24T23:00:00.000Z');
  assert.equal(autumn.prices[49].valid_to, '2026-10-26T00:00:00.000Z');
  assert.equal(autumn.prices[49].settlement_period, 50);
  assert.ok(autumn.prices.every((p: { settlement_date: string }) => p.settlement_date === '2026-10-25'));
});

test('prices: the provider’s pages are followed to the end, newest-first rows come back ascending', async () => {
  fake.pageSize = 10;
  const res = await get('/api/trading/prices/provider-agile?region=B&period_from=2026-05-01T00:00:00Z&period_to=2026-05-02T00:00:00Z');
  assert.equal(res.statusCode, 200);
  const body = json(res);
  assert.equal(body.count, 48);
  const starts = body.prices.map((p: { valid_from: string }) => p.valid_from);
  assert.deepEqual(starts, [...starts].sort());
  // 49 rows over two local days (the span is fetched whole) at 10 a page.
  assert.ok(fake.rateRequests().length >= 5, String(fake.rateRequests().length));
  assert.ok(
    fake
      .rateRequests()
      .slice(1)
      .every((r) => /[?&]page=\d+/.test(r.url)),
  );
});

test('prices: region defaults to C and anything but the 14 letters is 422 in the validation shape', async () => {
  const res = await get('/api/trading/prices/provider-agile?period_from=2026-05-12&period_to=2026-05-13');
  assert.equal(res.statusCode, 200);
  assert.equal(json(res).region, 'C');
  assert.equal(json(res).tariff_code, 'E-1R-AGILE-24-10-01-C');
  for (const bad of ['I', 'O', 'Q', 'Z', 'c', 'AB', '1', '_C']) {
    const r = await get(`/api/trading/prices/provider-agile?region=${encodeURIComponent(bad)}`);
    assert.equal(r.statusCode, 422, bad);
    const [e] = json(r).detail;
    assert.deepEqual(Object.keys(e).sort(), ['input', 'loc', 'msg', 'type']);
    assert.deepEqual(e.loc, ['query', 'region']);
    assert.equal(e.input, bad);
  }
  const current = await get('/api/trading/prices/current?region=I');
  assertRefused(current, 422, { fields: ['query.region'] });
});

test('prices: unreadable, unzoned, reversed and over-long periods are 422', async () => {
  const cases: [string, string][] = [
    ['period_from=yesterday', 'period_from'],
    ['period_from=2026-05-12T10:00:00', 'period_from'],
    ['period_from=2026-02-30', 'period_from'],
    ['period_to=1747000000', 'period_to'],
    ['period_from=2026-05-13&period_to=2026-05-12', 'period_to'],
    ['period_from=2026-05-13&period_to=2026-05-13', 'period_to'],
    ['period_from=2026-01-01&period_to=2026-03-01', 'period_to'],
  ];
  for (const [q, field] of cases) {
    const r = await get(`/api/trading/prices/provider-agile?${q}`);
    assert.equal(r.statusCode, 422, q);
    assert.deepEqual(json(r).detail[0].loc, ['query', field], q);
  }
  assert.equal(fake.rateRequests().length, 0);
  // Offsets and an unencoded '+' are understood.
  const ok = await get('/api/trading/prices/provider-agile?period_from=2026-05-12T00:00:00+01:00&period_to=2026-05-12T02:00:00%2B01:00');
  assert.equal(ok.statusCode, 200, ok.body);
  assert.equal(json(ok).count, 4);
  assert.equal(json(ok).prices[0].valid_from, '2026-05-11T23:00:00.000Z');
});

test('prices: tomorrow before publication is absent, not an error; it appears once published and the short lifetime passes', async () => {
  fake.publishedUntil = Date.parse('2026-05-13T23:00:00Z'); // tomorrow (UK) not yet published
  const before = await get('/api/trading/prices/provider-agile?region=D');
  assert.equal(before.statusCode, 200);
  const b = json(before);
  assert.equal(b.period_from, '2026-05-12T23:00:00.000Z');
  assert.equal(b.period_to, '2026-05-14T23:00:00.000Z');
  assert.equal(b.count, 48);
  assert.equal(b.expected_count, 96);
  assert.equal(b.complete, false);
  assert.equal(b.published_until, '2026-05-13T23:00:00.000Z');
  // Published at 16:00 UK; within the short lifetime the cached answer stands.
  fake.publishedUntil = null;
  clock.set('2026-05-13T15:01:00Z');
  const calls = fake.rateRequests().length;
  assert.equal(json(await get('/api/trading/prices/provider-agile?region=D')).count, 96);
  assert.equal(fake.rateRequests().length, calls + 1, 'the unpublished day is asked again after its short lifetime');
  // Now complete: served from the cache.
  clock.set('2026-05-13T15:30:00Z');
  assert.equal(json(await get('/api/trading/prices/provider-agile?region=D')).complete, true);
  assert.equal(fake.rateRequests().length, calls + 1);
});

test('prices: a cache hit makes no provider call, and a still-valid cached day is served while the provider is down', async () => {
  const url = '/api/trading/prices/provider-agile?region=E&period_from=2026-05-10&period_to=2026-05-11';
  const first = json(await get(url));
  const calls = fake.rateRequests().length;
  assert.equal(calls, 1);
  fake.mode = 'down';
  const res = await get(url);
  assert.equal(res.statusCode, 200);
  const second = json(res);
  assert.equal(fake.server.requests.length, calls, 'no provider call on a cache hit');
  assert.deepEqual(second.prices, first.prices);
  assert.equal(second.stale, false);
  assert.equal(second.cached_at, '2026-05-13T10:10:00.000Z');
});

test('prices: after expiry with the provider down the cached day is served marked stale with cached_at', async () => {
  const url = '/api/trading/prices/provider-agile?region=F&period_from=2026-05-09&period_to=2026-05-10';
  assert.equal(json(await get(url)).stale, false);
  clock.advance(25 * 3600_000); // past the 24 h lifetime of a published day
  fake.mode = 'down';
  const res = await get(url);
  assert.equal(res.statusCode, 200);
  const body = json(res);
  assert.equal(body.stale, true);
  assert.equal(body.cached_at, '2026-05-13T10:10:00.000Z');
  assert.equal(body.count, 48);
  // Back up: fresh again.
  fake.mode = 'ok';
  const again = json(await get(url));
  assert.equal(again.stale, false);
  assert.equal(again.cached_at, '2026-05-14T11:10:00.000Z');
});

test('prices: provider down, slow or answering garbage with nothing cached is 502 "Tariff provider API error", leaking nothing', async () => {
  const modes = ['down', 'slow', 'garbage', 'html'] as const;
  for (const [i, mode] of modes.entries()) {
    fake.mode = mode;
    const res = await get(`/api/trading/prices/provider-agile?region=G&period_from=2026-04-0${i + 1}&period_to=2026-04-0${i + 2}`);
    assert.equal(res.statusCode, 502, mode);
    assert.deepEqual(json(res), { detail: 'Tariff provider API error' }, mode);
    assert.doesNotMatch(res.body, /10\.\d|127\.0\.0\.1|secret|Maintenance|localhost/);
  }
  // Nothing listening at all.
  const dead = await startService({ TARIFF_API_BASE_URL: 'http://127.0.0.1:9' });
  try {
    const r = await get('/api/trading/prices/provider-agile', dead, await dead.token({ orgId: ORG }));
    assert.equal(r.statusCode, 502);
    assert.deepEqual(json(r), { detail: 'Tariff provider API error' });
  } finally {
    await dead.stop();
  }
});

test('prices: a row with a missing number is garbage (502); a next link off the resource is never followed', async () => {
  fake.price = () => Number.NaN; // serialised as null
  const r = await get('/api/trading/prices/provider-agile?region=J&period_from=2026-04-10&period_to=2026-04-11');
  assert.equal(r.statusCode, 502);
  assert.deepEqual(json(r), { detail: 'Tariff provider API error' });
  fake.override = (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ count: 2, next: 'http://evil.example/v1/other/?page=2', previous: null, results: [] }));
  };
  fake.server.requests.length = 0;
  const r2 = await get('/api/trading/prices/provider-agile?region=J');
  assertRefused(r2, 502, 'Tariff provider API error');
  assert.equal(fake.server.requests.length, 1, 'the foreign next link was not followed, not even on the configured host');
});

test('prices: a provider answer holding a NUL character or an unpaired surrogate is garbage (502), cached nowhere', async () => {
  for (const bad of ['DIRECT_DEBIT\u0000', 'x\ud800']) {
    fake.override = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const row = { value_exc_vat: 20, value_inc_vat: 21, valid_from: '2026-04-12T00:00:00Z', valid_to: '2026-04-12T00:30:00Z', payment_method: bad };
      // JSON.stringify writes the lone surrogate as its \ud800 escape: valid JSON text.
      res.end(JSON.stringify({ count: 1, next: null, previous: null, results: [row] }));
    };
    const r = await get('/api/trading/prices/provider-agile?region=K&period_from=2026-04-12T00:00:00Z&period_to=2026-04-12T00:30:00Z');
    assertRefused(r, 502, 'Tariff provider API error');
  }
  // The provider mends its answer: served, nothing of the bad one was kept.
  fake.override = null;
  const ok = await get('/api/trading/prices/provider-agile?region=K&period_from=2026-04-12T00:00:00Z&period_to=2026-04-12T00:30:00Z');
  assert.equal(ok.statusCode, 200, ok.body);
});

test('prices: a provider error is retried with backoff on idempotent reads, and calls are counted in metrics', async () => {
  const f = await startFakeTariff();
  const s = await startService({ TARIFF_API_BASE_URL: f.url, UPSTREAM_RETRIES: '2' });
  try {
    const t = await s.token({ orgId: ORG });
    f.mode = 'flaky';
    f.flakyLeft = 2;
    const r = await get('/api/trading/prices/provider-agile?region=K&period_from=2026-04-20&period_to=2026-04-21', s, t);
    assert.equal(r.statusCode, 200);
    assert.equal(f.server.requests.length, 3, 'two failures, then the answer');
    f.flakyLeft = 3;
    const r2 = await get('/api/trading/prices/provider-agile?region=K&period_from=2026-04-22&period_to=2026-04-23', s, t);
    assertRefused(r2, 502, 'Tariff provider API error', 'gives up after the configured retries');
    assert.equal(f.server.requests.length, 6);
    const metrics = (await s.request({ method: 'GET', url: '/api/telemetry/metrics' })).body;
    assert.match(metrics, /eps_upstream_calls_total\{provider="tariff",outcome="ok"\} 1/);
    assert.match(metrics, /eps_upstream_calls_total\{provider="tariff",outcome="http_5xx"\} 5/);
    assert.match(metrics, /eps_upstream_call_duration_seconds_count\{provider="tariff"\} 6/);
  } finally {
    await s.stop();
    await f.close();
  }
});

test('prices: without the provider’s inclusive figure it is derived from the unrounded exclusive one', async () => {
  fake.omitIncVat = true;
  fake.price = (t) => [16.46, 20.59, -2.1, 0.01][Math.floor(t / 1800000) % 4];
  const body = json(await get('/api/trading/prices/provider-agile?region=L&period_from=2026-04-01T00:00:00Z&period_to=2026-04-01T02:00:00Z'));
  const pairs = body.prices.map((p: { value_exc_vat: number; value_inc_vat: number }) => [p.value_exc_vat, p.value_inc_vat]);
  assert.deepEqual(
    pairs.sort((a: number[], b: number[]) => a[0] - b[0]),
    [
      [-2.1, -2.205],
      [0.01, 0.0105],
      [16.46, 17.283],
      [20.59, 21.6195],
    ],
  );
});

test('prices: every role reads; no credential is 401', async () => {
  for (const role of ['ORG_ADMIN', 'OPERATOR', 'ANALYST', 'VIEWER'] as const) {
    const r = await get('/api/trading/prices/regions', svc, await svc.token({ orgId: ORG, roles: [role] }));
    assert.equal(r.statusCode, 200, role);
  }
  for (const url of ['/api/trading/prices/provider-agile', '/api/trading/prices/current', '/api/trading/prices/regions']) {
    const r = await svc.request({ method: 'GET', url });
    assert.equal(r.statusCode, 401, url);
    assert.deepEqual(json(r), { detail: 'Authorization header missing' });
  }
});

test('regions: the 14 GSP groups, A to P without I and O, with name and distribution operator', async () => {
  const body = json(await get('/api/trading/prices/regions'));
  assert.equal(body.count, 14);
  assert.deepEqual(body.regions.map((r: { letter: string }) => r.letter).join(''), 'ABCDEFGHJKLMNP');
  const c = body.regions.find((r: { letter: string }) => r.letter === 'C');
  assert.equal(c.name, 'London');
  assert.equal(c.distribution_operator, 'UK Power Networks');
  assert.equal(c.gsp_group_id, '_C');
  assert.equal(c.distributor_id, 12);
  const p = body.regions.find((r: { letter: string }) => r.letter === 'P');
  assert.equal(p.distributor_id, 17, 'distributor ids follow the PES order, not the letters');
  assert.equal(p.name, 'Northern Scotland');
});

test('current: the half hour containing now and the cheapest 2-hour window ahead', async () => {
  // Cheapest run: 14:00-16:00 UTC today; a cheaper single half hour at 12:00 is not a 2-hour run.
  fake.price = (t) => {
    const iso = new Date(t).toISOString();
    if (iso >= '2026-05-13T14:00' && iso < '2026-05-13T16:00') return 5;
    if (iso.startsWith('2026-05-13T12:00')) return 1;
    if (iso < '2026-05-13T10:00') return 0.5; // cheaper, but already past
    return 20;
  };
  const res = await get('/api/trading/prices/current?region=M');
  assert.equal(res.statusCode, 200, res.body);
  const body = json(res);
  assert.equal(body.at, '2026-05-13T10:10:00.000Z');
  assert.equal(body.current.valid_from, '2026-05-13T10:00:00.000Z');
  assert.equal(body.current.settlement_period, 23);
  assert.equal(body.window_minutes, 120);
  assert.deepEqual(
    { from: body.next_cheap_window.valid_from, to: body.next_cheap_window.valid_to, slots: body.next_cheap_window.slots },
    { from: '2026-05-13T14:00:00.000Z', to: '2026-05-13T16:00:00.000Z', slots: 4 },
  );
  assert.equal(body.next_cheap_window.mean_value_exc_vat, 5);
  assert.equal(body.next_cheap_window.mean_value_inc_vat, 5.25);
  assert.equal(body.published_until, '2026-05-14T23:00:00.000Z');
  // A 30-minute window finds the single cheap half hour.
  const short = json(await get('/api/trading/prices/current?region=M&window_minutes=30'));
  assert.equal(short.next_cheap_window.valid_from, '2026-05-13T12:00:00.000Z');
  for (const bad of ['45', '0', '750', 'x']) {
    const r = await get(`/api/trading/prices/current?region=M&window_minutes=${bad}`);
    assert.equal(r.statusCode, 422, bad);
    assert.deepEqual(json(r).detail[0].loc, ['query', 'window_minutes']);
  }
});

test('current: nothing published ahead gives null slot and window, not an error; provider down is 502', async () => {
  fake.publishedUntil = Date.parse('2026-05-13T10:00:00Z');
  const body = json(await get('/api/trading/prices/current?region=N'));
  assert.equal(body.current, null);
  assert.equal(body.next_cheap_window, null);
  assert.equal(body.published_until, '2026-05-13T10:00:00.000Z');
  fake.mode = 'down';
  const r = await get('/api/trading/prices/current?region=P');
  assert.equal(r.statusCode, 502);
  assert.deepEqual(json(r), { detail: 'Tariff provider API error' });
});
