// Hub REST operations: a success and a refusal for each (wrong role, other organisation, bad input).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { auth } from './helpers.ts';

const H = '/api/csms/api/hub';
const ORG = 'hub-rest';
const OTHER = 'hub-rest-other';
let svc: TestService;
let admin: string;
let viewer: string;
let other: string;
const clock = new ManualClock(new Date('2026-03-02T12:00:00.000Z'));
const req = (method: 'GET' | 'POST' | 'PUT', url: string, token: string, payload?: unknown) =>
  svc.request({ method, url, headers: auth(token), ...(payload !== undefined && { payload: payload as object }) });

before(async () => {
  svc = await startTestService({ clock });
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  admin = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: '400d' });
  viewer = await svc.token({ orgId: ORG, roles: ['VIEWER'], expiresIn: '400d' });
  other = await svc.token({ orgId: OTHER, roles: ['ORG_ADMIN'], expiresIn: '400d' });
});
after(() => svc?.stop());

test('sites: create, list, get, replace; refusals', async () => {
  const c = await req('POST', `${H}/sites`, admin, {
    site_id: 's1',
    name: 'Retail park',
    postcode: 'AB1 2CD',
    capacity_kw: 150,
    helpline_phone: '0800 000 0000',
    helpline_24_7: true,
    open_data_url: 'https://example.com/ocpi/locations',
  });
  assert.equal(c.statusCode, 201, c.body);
  assert.deepEqual([json(c).site_id, json(c).capacity_kw, json(c).created_at], ['s1', 150, '2026-03-02T12:00:00.000Z']);
  const made = json(await req('POST', `${H}/sites`, admin, { name: 'No id given' }));
  assert.match(made.site_id, /^site-[0-9a-f]{8}$/);
  assertRefused(await req('POST', `${H}/sites`, admin, { site_id: 's1', name: 'again' }), 409, 'Site already exists');
  assertRefused(await req('POST', `${H}/sites`, viewer, { name: 'viewer' }), 403, 'Insufficient permissions');
  assertRefused(await req('POST', `${H}/sites`, admin, { name: '', capacity_kw: -1 }), 422, { fields: ['body.name', 'body.capacity_kw'] });

  const list = json(await req('GET', `${H}/sites?limit=1`, viewer));
  assert.equal(list.sites.length, 1);
  assert.equal(list.has_more, true);
  const next = json(await req('GET', `${H}/sites?limit=1&cursor=${encodeURIComponent(list.next_cursor)}`, viewer));
  assert.deepEqual([...list.sites, ...next.sites].map((s: any) => s.site_id).sort(), [made.site_id, 's1'].sort());
  assert.deepEqual(json(await req('GET', `${H}/sites`, other)).sites, []);
  assertRefused(await req('GET', `${H}/sites?limit=0`, viewer), 422, { fields: ['query.limit'] });

  const one = json(await req('GET', `${H}/sites/s1`, viewer));
  assert.deepEqual([one.name, one.charge_points], ['Retail park', []]);
  assertRefused(await req('GET', `${H}/sites/s1`, other), 404, 'Site not found');

  clock.advance(60_000);
  const put = await req('PUT', `${H}/sites/s1`, admin, {
    name: 'Retail park north',
    capacity_kw: 100,
    helpline_phone: '0800 000 0000',
    helpline_24_7: true,
    open_data_url: 'https://example.com/ocpi/locations',
  });
  assert.equal(put.statusCode, 200, put.body);
  assert.deepEqual([json(put).name, json(put).postcode, json(put).updated_at], ['Retail park north', null, '2026-03-02T12:01:00.000Z']);
  assertRefused(await req('PUT', `${H}/sites/s1`, other, { name: 'x' }), 404, 'Site not found');
  assertRefused(await req('PUT', `${H}/sites/s1`, viewer, { name: 'x' }), 403, 'Insufficient permissions');
});

test('charge points: registered with an OCPP endpoint and a password shown once; refusals', async () => {
  const r = await req('POST', `${H}/sites/s1/charge-points`, admin, { charge_point_id: 'RAPID-1', max_power_kw: 150, connectors: 2, contactless: true });
  assert.equal(r.statusCode, 201, r.body);
  const b = json(r);
  // Not listening, no HUB_OCPP_PUBLIC_URL: where the service is configured to listen (never the request's Host).
  assert.equal(b.ocpp_endpoint, `ws://127.0.0.1:8080/ocpp/${ORG}`);
  assert.equal(b.ocpp_url, `ws://127.0.0.1:8080/ocpp/${ORG}/RAPID-1`);
  assert.deepEqual(b.subprotocols, ['ocpp2.0.1', 'ocpp1.6']);
  assert.match(b.password, /^[A-Za-z0-9]{20}$/);
  const site = json(await req('GET', `${H}/sites/s1`, admin));
  assert.equal(JSON.stringify(site).includes(b.password), false, 'the password is never shown again');
  assert.deepEqual(
    site.charge_points.map((c: any) => [c.charge_point_id, c.rapid, c.connected]),
    [['RAPID-1', true, false]],
  );
  await req('POST', `${H}/sites/s1/charge-points`, admin, { charge_point_id: 'SLOW-1', max_power_kw: 7, contactless: null });
  assertRefused(
    await req('POST', `${H}/sites/s1/charge-points`, admin, { charge_point_id: 'RAPID-1', max_power_kw: 50 }),
    409,
    'Charge point already registered',
  );
  assertRefused(await req('POST', `${H}/sites/s1/charge-points`, other, { charge_point_id: 'X', max_power_kw: 50 }), 404, 'Site not found');
  assertRefused(await req('POST', `${H}/sites/s1/charge-points`, admin, { charge_point_id: 'bad id!', max_power_kw: 0 }), 422, {
    fields: ['body.charge_point_id', 'body.max_power_kw'],
  });
});

test('price schedules: drafts, publish (never edited after), list with the version in force; refusals', async () => {
  const d = await req('POST', `${H}/sites/s1/price-schedules`, admin, {
    energy_p_per_kwh: '65',
    time_p_per_minute: '0',
    connection_fee_p: '0',
    bands: [{ start: '00:00', end: '06:00', energy_p_per_kwh: '40' }],
  });
  assert.equal(d.statusCode, 201, d.body);
  assert.deepEqual([json(d).version, json(d).status, json(d).energy_p_per_kwh_inc_vat, json(d).vat_percent], [1, 'draft', '78.00', '20']);
  assert.equal(json(await req('GET', `${H}/sites/s1/price-schedules`, viewer)).in_force, null);
  const p = await req('POST', `${H}/sites/s1/price-schedules/1/publish`, admin);
  assert.equal(p.statusCode, 200, p.body);
  assert.deepEqual([json(p).status, json(p).published_at], ['published', '2026-03-02T12:01:00.000Z']);
  assertRefused(await req('POST', `${H}/sites/s1/price-schedules/1/publish`, admin), 409, 'Price schedule version already published');
  assertRefused(await req('POST', `${H}/sites/s1/price-schedules/9/publish`, admin), 404, 'Price schedule version not found');
  assertRefused(await req('POST', `${H}/sites/s1/price-schedules/1/publish`, other), 404, 'Site not found');
  const d2 = json(await req('POST', `${H}/sites/s1/price-schedules`, admin, { energy_p_per_kwh: '70' }));
  assert.equal(d2.version, 2);
  const list = json(await req('GET', `${H}/sites/s1/price-schedules`, viewer));
  assert.deepEqual(
    [list.in_force, list.schedules.map((s: any) => [s.version, s.status])],
    [
      1,
      [
        [2, 'draft'],
        [1, 'published'],
      ],
    ],
  );
  assertRefused(await req('GET', `${H}/sites/s1/price-schedules`, other), 404, 'Site not found');
  assertRefused(
    await req('POST', `${H}/sites/s1/price-schedules`, admin, {
      energy_p_per_kwh: '50',
      bands: [
        { start: '06:00', end: '05:00', energy_p_per_kwh: '1' },
        { start: '04:00', end: '07:00', energy_p_per_kwh: '1' },
      ],
    }),
    422,
    { fields: ['body.bands.0', 'body.bands.1'] },
  );
  assertRefused(await req('POST', `${H}/sites/s1/price-schedules`, admin, { energy_p_per_kwh: 'lots' }), 422, { fields: ['body.energy_p_per_kwh'] });
  assertRefused(await req('POST', `${H}/sites/s1/price-schedules`, viewer, { energy_p_per_kwh: '1' }), 403, 'Insufficient permissions');
});

test('quote: a stated session priced under the published schedule, bands by UK local time; refusals', async () => {
  // 02:00-06:00 UK (GMT in March before the change): 20 kWh spread evenly, all in the 40 p band = 800 p; VAT 160 p.
  const q = await req('GET', `${H}/sites/s1/quote?energy_kwh=20&duration_minutes=240&start=2026-03-03T02:00:00Z`, viewer);
  assert.equal(q.statusCode, 200, q.body);
  assert.deepEqual([json(q).schedule_version, json(q).net_gbp, json(q).vat_gbp, json(q).total_gbp], [1, '8.00', '1.60', '9.60']);
  // 05:00-07:00: half in the band (10 kWh x 40 p), half at 65 p: 400 + 650 = 1050 p.
  const split = json(await req('GET', `${H}/sites/s1/quote?energy_kwh=20&duration_minutes=120&start=2026-03-03T05:00:00Z`, viewer));
  assert.deepEqual(
    split.lines.map((l: any) => [l.quantity, l.rate_p]),
    [
      ['10.000', '40.0000'],
      ['10.000', '65.0000'],
    ],
  );
  assert.equal(split.net_gbp, '10.50');
  assertRefused(await req('GET', `${H}/sites/s1/quote?energy_kwh=-1&duration_minutes=0`, viewer), 422, {
    fields: ['query.energy_kwh', 'query.duration_minutes'],
  });
  assertRefused(await req('GET', `${H}/sites/s1/quote?energy_kwh=1&duration_minutes=10`, other), 404, 'Site not found');
  const bare = json(await req('POST', `${H}/sites`, admin, { name: 'Unpriced' }));
  assertRefused(
    await req('GET', `${H}/sites/${bare.site_id}/quote?energy_kwh=1&duration_minutes=10`, viewer),
    409,
    'No published price schedule for this site',
  );
});

test('transactions and cost: empty lists, unknown transaction; refusals', async () => {
  const t = json(await req('GET', `${H}/sites/s1/transactions`, viewer));
  assert.deepEqual([t.transactions, t.has_more, t.next_cursor], [[], false, null]);
  assertRefused(await req('GET', `${H}/sites/s1/transactions`, other), 404, 'Site not found');
  assertRefused(await req('GET', `${H}/sites/s1/transactions?cursor=nonsense`, viewer), 400, 'invalid_cursor');
  assertRefused(await req('GET', `${H}/transactions/00000000-0000-4000-8000-000000000000/cost`, viewer), 404, 'Transaction not found');
  assertRefused(await req('GET', `${H}/transactions/not-a-uuid/cost`, viewer), 422, { fields: ['path.transaction_id'] });
});

test('reliability, compliance and regulations', async () => {
  const r = json(await req('GET', `${H}/sites/s1/reliability`, viewer));
  assert.deepEqual(r.target, { percent: 99, applies_to: r.target.applies_to, source: 'PCPR 2023 reg 7' });
  assert.deepEqual(
    r.connectors.map((c: any) => [c.charge_point_id, c.connector_id, c.rapid, c.reliability_percent]),
    [
      ['RAPID-1', 1, true, null],
      ['RAPID-1', 2, true, null],
      ['SLOW-1', 1, false, null],
    ],
  );
  assertRefused(await req('GET', `${H}/sites/s1/reliability`, other), 404, 'Site not found');

  const c = json(await req('GET', `${H}/sites/s1/compliance`, viewer));
  const find = (duty: string, cp: string | null = null) => c.duties.find((d: any) => d.duty === duty && d.charge_point_id === cp);
  assert.equal(find('pricing_p_per_kwh').result, 'met');
  assert.match(find('pricing_p_per_kwh').evidence, /version 1: 78\.00 p\/kWh inc VAT/);
  assert.equal(find('contactless', 'RAPID-1').result, 'met');
  assert.equal(find('contactless', 'SLOW-1').result, 'not_applicable');
  assert.equal(find('reliability_99', 'RAPID-1').result, 'not_known');
  assert.equal(find('helpline_24_7').result, 'met');
  assert.equal(find('open_data').result, 'met');
  assert.equal(find('payment_roaming').result, 'not_known');
  assert.equal(c.summary.met + c.summary.not_met + c.summary.not_known + c.summary.not_applicable, c.duties.length);
  assertRefused(await req('GET', `${H}/sites/s1/compliance`, other), 404, 'Site not found');

  const g = json(await req('GET', `${H}/regulations`, viewer));
  assert.equal(g.in_force, '2023-11-24');
  assert.deepEqual(g.duties.find((d: any) => d.duty === 'reliability_99').threshold, '99%');
  assertRefused(await svc.request({ method: 'GET', url: `${H}/regulations` }), 401, 'Authorization header missing');
});
