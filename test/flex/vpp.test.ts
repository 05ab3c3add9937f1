// VPP enrolment (its own state) and the signal derived from the region's prices and GB carbon
// intensity, against loopback fakes of the two providers.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { startFakeTariff, startFakeCarbon, defaultPrice, type FakeTariff, type FakeCarbon } from '../helpers/fake-market.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import type { Role } from '../../src/platform/roles.ts';
import { assertRefused } from '../helpers/refusal.ts';

const ORG = 'vpp-org';
const OTHER = 'vpp-other';
const NOW = '2026-05-13T10:10:00Z';
const isoNow = new Date(NOW).toISOString();
const SLOT = 1800_000;
let clock: ManualClock;
let tariff: FakeTariff;
let carbon: FakeCarbon;
let svc: TestService;

before(async () => {
  clock = new ManualClock(NOW);
  tariff = await startFakeTariff();
  carbon = await startFakeCarbon(() => clock.now().getTime());
  svc = await startTestService({
    clock,
    env: { TARIFF_API_BASE_URL: tariff.url, CARBON_API_BASE_URL: carbon.url, UPSTREAM_TIMEOUT_MS: '2000', UPSTREAM_RETRY_BASE_MS: '1' },
  });
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
});
after(async () => {
  await svc.stop();
  await tariff.close();
  await carbon.close();
});
beforeEach(() => {
  clock.set(NOW);
  tariff.mode = 'ok';
  carbon.mode = 'ok';
  tariff.price = defaultPrice;
});

async function call(method: 'GET' | 'POST', url: string, opts: { payload?: unknown; role?: Role; org?: string } = {}) {
  const token = await svc.token({ orgId: opts.org ?? ORG, roles: [opts.role ?? 'OPERATOR'] });
  return svc.request({ method, url, headers: { authorization: `Bearer ${token}` }, ...(opts.payload !== undefined && { payload: opts.payload as object }) });
}
const base = (site: string) => `/api/optimiser/vpp-signal/${encodeURIComponent(site)}`;

test('enrollment: a site never enrolled reads not_enrolled', async () => {
  const r = await call('GET', `${base('site-new')}/enrollment`, { role: 'VIEWER' });
  assert.equal(r.statusCode, 200);
  assert.deepEqual(json(r), { site_id: 'site-new', status: 'not_enrolled', region: null, enrolled_at: null, withdrawn_at: null, updated_at: null });
});

test('enrollment: POST enrols (201), again updates the region (200), is audited, and is invisible to another organisation', async () => {
  const first = await call('POST', `${base('site-a')}/enrollment`, { payload: { region: 'C' } });
  assert.equal(first.statusCode, 201, first.body);
  assert.equal(json(first).status, 'enrolled');
  assert.equal(json(first).enrolled_at, isoNow);
  clock.advance(60_000);
  const again = await call('POST', `${base('site-a')}/enrollment`, { payload: { region: 'H' } });
  assert.equal(again.statusCode, 200);
  assert.equal(json(again).region, 'H');
  assert.equal(json(again).enrolled_at, isoNow, 'the enrolment keeps its start');
  const read = json(await call('GET', `${base('site-a')}/enrollment`, { role: 'VIEWER' }));
  assert.equal(read.status, 'enrolled');
  assert.equal(read.region, 'H');
  const other = json(await call('GET', `${base('site-a')}/enrollment`, { org: OTHER }));
  assert.equal(other.status, 'not_enrolled');
  const audit = await svc.deps.db.query<{ action: string }>("select action from audit_log where org_id = $1 and target_id = 'site-a' order by id", [ORG]);
  assert.deepEqual(
    audit.rows.map((x) => x.action),
    ['vpp.enrollment.create', 'vpp.enrollment.update'],
  );
});

test('enrollment: bad region or extra fields are 422; VIEWER and ANALYST may not enrol or withdraw', async () => {
  for (const [payload, field] of [
    [{}, 'body.region'],
    [{ region: 'I' }, 'body.region'],
    [{ region: 'c' }, 'body.region'],
    [{ region: 'C', extra: true }, 'body.extra'],
  ] as const) {
    const r = await call('POST', `${base('site-b')}/enrollment`, { payload });
    assertRefused(r, 422, { fields: [field] }, JSON.stringify(payload));
  }
  for (const role of ['VIEWER', 'ANALYST'] as const) {
    const r = await call('POST', `${base('site-b')}/enrollment`, { payload: { region: 'C' }, role });
    assert.equal(r.statusCode, 403);
    assert.deepEqual(json(r), { detail: 'Insufficient permissions' });
    assertRefused(await call('POST', `${base('site-b')}/withdraw`, { role }), 403, 'Insufficient permissions');
  }
  assert.equal(json(await call('GET', `${base('site-b')}/enrollment`)).status, 'not_enrolled');
});

test('withdraw: enrolled → withdrawn; withdrawing again or a site never enrolled is 409; re-enrolling is 201', async () => {
  await call('POST', `${base('site-c')}/enrollment`, { payload: { region: 'A' } });
  clock.advance(3600_000);
  const w = await call('POST', `${base('site-c')}/withdraw`);
  assert.equal(w.statusCode, 200, w.body);
  assert.equal(json(w).status, 'withdrawn');
  assert.equal(json(w).withdrawn_at, '2026-05-13T11:10:00.000Z');
  for (const site of ['site-c', 'site-never']) {
    const r = await call('POST', `${base(site)}/withdraw`);
    assert.equal(r.statusCode, 409, site);
    assert.deepEqual(json(r), { detail: 'Site is not enrolled in the virtual power plant' });
  }
  const other = await call('POST', `${base('site-c')}/withdraw`, { org: OTHER });
  assertRefused(other, 409, 'Site is not enrolled in the virtual power plant');
  const back = await call('POST', `${base('site-c')}/enrollment`, { payload: { region: 'A' } });
  assert.equal(back.statusCode, 201);
  assert.equal(json(back).withdrawn_at, null);
});

test('signal: a site not enrolled (never, withdrawn, or another organisation’s) is 409', async () => {
  await call('POST', `${base('site-d')}/enrollment`, { payload: { region: 'C' } });
  await call('POST', `${base('site-d')}/withdraw`);
  for (const [site, org] of [
    ['site-d', ORG],
    ['site-none', ORG],
    ['site-a', OTHER],
  ]) {
    const r = await call('GET', `${base(site)}/signal`, { org });
    assert.equal(r.statusCode, 409, site);
    assert.deepEqual(json(r), { detail: 'Site is not enrolled in the virtual power plant' });
  }
});

test('signal: charge when cheap and clean, discharge when dear, hold otherwise, with reasons; calculated, no device command', async () => {
  const at = (iso: string) => Date.parse(iso);
  tariff.price = (t) => {
    if (t === at('2026-05-13T10:00:00Z')) return 10; // cheapest quarter, low carbon → charge
    if (t === at('2026-05-13T10:30:00Z')) return 29; // dearest quarter → discharge
    if (t === at('2026-05-13T11:00:00Z')) return 20; // middle → hold
    if (t === at('2026-05-13T11:30:00Z')) return 10; // cheap but very high carbon → hold
    if (t === at('2026-05-13T12:00:00Z')) return -1; // negative → charge
    return 10 + (Math.floor(t / SLOT) % 20);
  };
  carbon.forecast = (t) => (t === at('2026-05-13T11:30:00Z') ? 300 : 50);
  await call('POST', `${base('site-e')}/enrollment`, { payload: { region: 'J' } });
  const res = await call('GET', `${base('site-e')}/signal?hours=3`, { role: 'VIEWER' });
  assert.equal(res.statusCode, 200, res.body);
  const body = json(res);
  assert.equal(body.region, 'J');
  assert.equal(body.generated_at, isoNow);
  assert.equal(body.device_command_sent, false);
  assert.equal(body.data_basis.basis, 'calculated');
  assert.equal(body.slots.length, 6);
  assert.deepEqual(body.slots.map((s: { action: string }) => s.action).slice(0, 5), ['charge', 'discharge', 'hold', 'hold', 'charge']);
  assert.equal(body.action, 'charge');
  assert.equal(body.reason, body.slots[0].reason);
  assert.match(body.slots[0].reason, /cheapest quarter.*grid carbon is low \(50 gCO2\/kWh\)/);
  assert.match(body.slots[1].reason, /dearest quarter/);
  assert.match(body.slots[3].reason, /very high/);
  assert.match(body.slots[4].reason, /zero or negative/);
  assert.equal(body.slots[0].valid_from, '2026-05-13T10:00:00.000Z');
  assert.equal(body.slots[0].value_inc_vat, 10.5);
  assert.equal(body.slots[3].carbon_intensity, 300);
  assert.ok(body.thresholds.cheap_value_inc_vat < body.thresholds.dear_value_inc_vat);
  assert.equal(body.stale, false);
});

test('signal: hours outside 1..24 is 422; a provider down with nothing cached is 502 with that provider’s name', async () => {
  await call('POST', `${base('site-f')}/enrollment`, { payload: { region: 'N' } });
  for (const bad of ['0', '25', 'x']) {
    const r = await call('GET', `${base('site-f')}/signal?hours=${bad}`);
    assertRefused(r, 422, { fields: ['query.hours'] }, bad);
  }
  clock.set('2026-05-20T10:10:00Z'); // nothing cached for these days or this half hour
  tariff.mode = 'down';
  const p = await call('GET', `${base('site-f')}/signal`);
  assert.equal(p.statusCode, 502);
  assert.deepEqual(json(p), { detail: 'Tariff provider API error' });
  tariff.mode = 'ok';
  await call('GET', `${base('site-f')}/signal`); // prices and forecast cached
  clock.advance(3600_000);
  carbon.mode = 'slow';
  // The forecast fetched in an earlier half hour is past its lifetime: served, and the signal says so.
  const stale = await call('GET', `${base('site-f')}/signal`);
  assert.equal(stale.statusCode, 200);
  assert.equal(json(stale).stale, true);
  // With nothing cached at all: 502 naming the carbon provider. The carbon fake refuses at once, so
  // the timeout can be generous: the tariff provider's answer must not time out on a loaded machine.
  carbon.mode = 'down';
  const fresh = await startTestService({
    clock,
    env: { TARIFF_API_BASE_URL: tariff.url, CARBON_API_BASE_URL: carbon.url, UPSTREAM_TIMEOUT_MS: '5000', UPSTREAM_RETRY_BASE_MS: '1' },
  });
  try {
    await fresh.createOrg(ORG);
    const t = await fresh.token({ orgId: ORG, roles: ['OPERATOR'] });
    const h = { authorization: `Bearer ${t}` };
    await fresh.request({ method: 'POST', url: `${base('site-f')}/enrollment`, headers: h, payload: { region: 'N' } });
    const c = await fresh.request({ method: 'GET', url: `${base('site-f')}/signal`, headers: h });
    assert.equal(c.statusCode, 502);
    assert.deepEqual(json(c), { detail: 'Carbon Intensity API error' });
  } finally {
    await fresh.stop();
  }
});

test('vpp: every enrolment and signal operation refuses a request without a credential (401)', async () => {
  for (const [method, path] of [
    ['GET', 'enrollment'],
    ['POST', 'enrollment'],
    ['POST', 'withdraw'],
    ['GET', 'signal'],
  ] as const) {
    const r = await svc.request({ method, url: `${base('site-a')}/${path}`, ...(method === 'POST' && { payload: { region: 'C' } }) });
    assert.equal(r.statusCode, 401, `${method} ${path}`);
    assert.deepEqual(json(r), { detail: 'Authorization header missing' });
  }
});
