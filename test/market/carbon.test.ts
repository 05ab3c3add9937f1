// GB carbon intensity, current half hour and forecast, against a loopback fake of the carbon
// intensity API (upstreams.md section 3).
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { startFakeCarbon, type FakeCarbon } from '../helpers/fake-market.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { assertRefused } from '../helpers/refusal.ts';

const ORG = 'carbon-org';
const NOW = '2026-05-13T20:10:00Z';
const isoNow = new Date(NOW).toISOString();
let fake: FakeCarbon;
let svc: TestService;
let clock: ManualClock;

async function startService(env: Record<string, string> = {}) {
  const s = await startTestService({
    clock,
    env: { CARBON_API_BASE_URL: fake.url, TARIFF_API_BASE_URL: 'http://127.0.0.1:9', UPSTREAM_TIMEOUT_MS: '2000', UPSTREAM_RETRY_BASE_MS: '1', ...env },
  });
  await s.createOrg(ORG);
  return s;
}

before(async () => {
  clock = new ManualClock(NOW);
  fake = await startFakeCarbon(() => clock.now().getTime());
  svc = await startService();
});
after(async () => {
  await svc.stop();
  await fake.close();
});
beforeEach(() => {
  fake.mode = 'ok';
  fake.startOneEarly = false;
  fake.override = null;
  fake.server.requests.length = 0;
});

const get = async (url: string, s = svc) =>
  s.request({ method: 'GET', url, headers: { authorization: `Bearer ${await s.token({ orgId: ORG, roles: ['VIEWER'] })}` } });

async function fresh<T>(fn: (s: TestService) => Promise<T>): Promise<T> {
  const s = await startService();
  try {
    return await fn(s);
  } finally {
    await s.stop();
  }
}

test('carbon: the current half hour in gCO2/kWh with forecast, actual (null until estimated) and index band', async () => {
  await fresh(async (s) => {
    clock.set(NOW);
    const res = await get('/api/trading/carbon-intensity', s);
    assert.equal(res.statusCode, 200, res.body);
    const body = json(res);
    assert.equal(body.unit, 'gCO2/kWh');
    assert.equal(body.region, 'GB');
    assert.equal(body.from, '2026-05-13T20:00:00.000Z');
    assert.equal(body.to, '2026-05-13T20:30:00.000Z');
    assert.equal(body.settlement_date, '2026-05-13');
    assert.equal(body.settlement_period, 43); // 21:00 BST
    assert.equal(body.forecast, fake.forecast(Date.parse('2026-05-13T20:00:00.000Z')));
    assert.equal(body.actual, null);
    assert.ok(['very low', 'low', 'moderate', 'high', 'very high'].includes(body.index));
    assert.equal(body.stale, false);
    assert.equal(body.cached_at, isoNow);
  });
});

test('carbon: cached within its half hour; asked again in the next half hour; a cached figure is served while the provider is down', async () => {
  await fresh(async (s) => {
    clock.set('2026-05-13T21:01:00Z');
    await get('/api/trading/carbon-intensity', s);
    clock.set('2026-05-13T21:04:00Z');
    fake.mode = 'down';
    const cached = await get('/api/trading/carbon-intensity', s);
    assert.equal(cached.statusCode, 200);
    assert.equal(json(cached).stale, false);
    assert.equal(fake.requests(/^\/intensity$/).length, 1, 'served from the cache');
    fake.mode = 'ok';
    clock.set('2026-05-13T21:31:00Z');
    const next = json(await get('/api/trading/carbon-intensity', s));
    assert.equal(next.from, '2026-05-13T21:30:00.000Z');
    assert.equal(fake.requests(/^\/intensity$/).length, 2, 'a new half hour is a new question');
  });
});

test('carbon: an expired figure is served marked stale with cached_at while the provider is down', async () => {
  await fresh(async (s) => {
    clock.set('2026-05-13T22:05:00Z');
    await get('/api/trading/carbon-intensity', s);
    clock.set('2026-05-13T22:40:00Z');
    fake.mode = 'down';
    const res = await get('/api/trading/carbon-intensity', s);
    assert.equal(res.statusCode, 200);
    const body = json(res);
    assert.equal(body.stale, true);
    assert.equal(body.cached_at, '2026-05-13T22:05:00.000Z');
    assert.equal(body.from, '2026-05-13T22:00:00.000Z', 'the half hour it belongs to is stated');
  });
});

test('carbon: provider down, slow or garbage with nothing cached is 502 "Carbon Intensity API error", leaking nothing', async () => {
  for (const mode of ['down', 'slow', 'garbage', 'html'] as const) {
    await fresh(async (s) => {
      fake.mode = mode;
      for (const url of ['/api/trading/carbon-intensity', '/api/trading/carbon-intensity/forecast']) {
        const res = await get(url, s);
        assert.equal(res.statusCode, 502, `${mode} ${url}`);
        assert.deepEqual(json(res), { detail: 'Carbon Intensity API error' });
        assert.doesNotMatch(res.body, /10\.\d|127\.0\.0\.1|secret|Maintenance/);
      }
    });
  }
});

test('carbon: an unknown index band or a non-numeric forecast is garbage (502)', async () => {
  await fresh(async (s) => {
    fake.override = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: [{ from: '2026-05-13T20:00Z', to: '2026-05-13T20:30Z', intensity: { forecast: 100, actual: null, index: 'purple' } }] }));
    };
    const r1 = await get('/api/trading/carbon-intensity', s);
    assertRefused(r1, 502, 'Carbon Intensity API error');
    fake.override = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: [{ from: '2026-05-13T20:00Z', to: '2026-05-13T20:30Z', intensity: { forecast: 'high' } }] }));
    };
    const r2 = await get('/api/trading/carbon-intensity/forecast', s);
    assertRefused(r2, 502, 'Carbon Intensity API error');
  });
});

test('forecast: default 24 hours from the current half hour, 48 periods, ascending, UTC with Z', async () => {
  await fresh(async (s) => {
    clock.set(NOW);
    const res = await get('/api/trading/carbon-intensity/forecast', s);
    assert.equal(res.statusCode, 200, res.body);
    const body = json(res);
    assert.equal(body.hours, 24);
    assert.equal(body.count, 48);
    assert.equal(body.from, '2026-05-13T20:00:00.000Z');
    assert.equal(body.to, '2026-05-14T20:00:00.000Z');
    assert.equal(body.periods[0].from, '2026-05-13T20:00:00.000Z');
    assert.equal(body.periods[47].to, '2026-05-14T20:00:00.000Z');
    for (let i = 1; i < body.periods.length; i++) assert.equal(body.periods[i].from, body.periods[i - 1].to);
    assert.ok(body.periods.every((p: { actual: unknown }) => p.actual === null));
    // The provider was asked in its own format (minutes, no seconds).
    assert.equal(fake.requests(/fw48h/)[0].url, '/intensity/2026-05-13T20:00Z/fw48h');
  });
});

test('forecast: hours 1 and 48 are the bounds; 0, 49 and text are 422', async () => {
  await fresh(async (s) => {
    clock.set(NOW);
    assert.equal(json(await get('/api/trading/carbon-intensity/forecast?hours=1', s)).count, 2);
    assert.equal(json(await get('/api/trading/carbon-intensity/forecast?hours=48', s)).count, 96);
    assert.equal(fake.requests(/fw48h/).length, 1, 'one 48-hour question serves every horizon in the half hour');
    for (const bad of ['0', '49', '-1', '2.5', 'day']) {
      const r = await get(`/api/trading/carbon-intensity/forecast?hours=${bad}`, s);
      assert.equal(r.statusCode, 422, bad);
      assert.deepEqual(json(r).detail[0].loc, ['query', 'hours']);
    }
  });
});

test('forecast: a provider answer starting one half hour early is trimmed to the current half hour', async () => {
  await fresh(async (s) => {
    clock.set(NOW);
    fake.startOneEarly = true;
    const body = json(await get('/api/trading/carbon-intensity/forecast?hours=2', s));
    assert.equal(body.periods[0].from, '2026-05-13T20:00:00.000Z');
    assert.equal(body.count, 4);
  });
});

test('forecast: expired and the provider down: served stale; no credential: 401', async () => {
  await fresh(async (s) => {
    clock.set(NOW);
    await get('/api/trading/carbon-intensity/forecast', s);
    clock.set('2026-05-13T20:45:00Z');
    fake.mode = 'down';
    const body = json(await get('/api/trading/carbon-intensity/forecast?hours=2', s));
    assert.equal(body.stale, true);
    assert.equal(body.cached_at, isoNow);
    assert.equal(body.periods[0].from, '2026-05-13T20:30:00.000Z');
    for (const url of ['/api/trading/carbon-intensity', '/api/trading/carbon-intensity/forecast']) {
      const r = await s.request({ method: 'GET', url });
      assert.equal(r.statusCode, 401, url);
      assert.deepEqual(json(r), { detail: 'Authorization header missing' });
    }
  });
});
