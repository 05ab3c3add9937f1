// Flexibility tenders, contracts and offers with two configured network operators, against
// loopback fakes of their platforms (upstreams.md section 4.2).
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { startFakeFlex, sampleOpportunities, type FakeFlex } from '../helpers/fake-flex.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import type { Role } from '../../src/platform/roles.ts';
import { assertRefused } from '../helpers/refusal.ts';

const ORG = 'flex-org';
const OTHER = 'flex-other';
const NOW = '2026-06-10T09:00:00Z';
let clock: ManualClock;
let a: FakeFlex;
let b: FakeFlex;
let svc: TestService;

function env(extra: Record<string, string> = {}) {
  return {
    FLEX_DNO_A_ID: 'ukpn',
    FLEX_DNO_A_BASE_URL: a.url,
    FLEX_DNO_A_CLIENT_ID: a.clientId,
    FLEX_DNO_A_API_KEY: a.apiKey,
    FLEX_DNO_B_ID: 'nged',
    FLEX_DNO_B_BASE_URL: b.url,
    FLEX_DNO_B_CLIENT_ID: b.clientId,
    FLEX_DNO_B_API_KEY: b.apiKey,
    UPSTREAM_TIMEOUT_MS: '2000',
    UPSTREAM_RETRY_BASE_MS: '1',
    ...extra,
  };
}

before(async () => {
  clock = new ManualClock(NOW);
  const now = () => clock.now().getTime();
  a = await startFakeFlex({ clientId: 'machine-a', apiKey: 'key-a-secret', prefix: 'ukpn', now });
  b = await startFakeFlex({ clientId: 'machine-b', apiKey: 'key-b-secret', prefix: 'nged', now });
  svc = await startTestService({ clock, env: env() });
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
});
after(async () => {
  await svc.stop();
  await a.close();
  await b.close();
});
beforeEach(() => {
  for (const f of [a, b]) {
    f.mode = 'ok';
    f.rejectBallots = false;
    f.override = null;
    f.opportunities = sampleOpportunities(f === a ? 'ukpn' : 'nged');
    f.server.requests.length = 0;
  }
  clock.advance(10 * 60_000); // past the tenders' cache lifetime
});

async function call(method: 'GET' | 'POST', url: string, opts: { payload?: unknown; role?: Role; org?: string; s?: TestService } = {}) {
  const s = opts.s ?? svc;
  const token = await s.token({ orgId: opts.org ?? ORG, roles: [opts.role ?? 'OPERATOR'] });
  return s.request({ method, url, headers: { authorization: `Bearer ${token}` }, ...(opts.payload !== undefined && { payload: opts.payload as object }) });
}

const future = (minutes: number) => new Date(clock.now().getTime() + minutes * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
const offer = (extra: Record<string, unknown> = {}) => ({
  dno: 'ukpn',
  reserve_object_id: 'UKPN-2026-SUMMER-Z12',
  direction_turn_up: false,
  intervals: [
    { start_utc: future(60 * 24), duration_minutes: 120, price_gbp_per_mwh: 250.5, capacity_mw: 0.25 },
    { start_utc: future(60 * 48), duration_minutes: 30, price_gbp_per_mwh: 300, capacity_mw: 1 },
  ],
  ...extra,
});

async function offerRow(offerId: string) {
  const r = await svc.deps.db.query<{ status: string; platform_status: number | null; platform_response: unknown; platform_reference: string | null }>(
    'select status, platform_status, platform_response, platform_reference from flex_offers where org_id = $1 and offer_id = $2',
    [ORG, offerId],
  );
  return r.rows[0];
}

async function lastOfferRow() {
  const r = await svc.deps.db.query<{ offer_id: string; status: string; platform_status: number | null; platform_response: any }>(
    'select offer_id, status, platform_status, platform_response from flex_offers where org_id = $1 order by created_at desc, offer_id limit 1',
    [ORG],
  );
  return r.rows[0];
}

test('tenders: open tenders read live from the first operator’s platform with a machine-user token, then cached briefly', async () => {
  const res = await call('GET', '/api/vpp/vpp/flex/tenders?dno=ukpn', { role: 'VIEWER' });
  assert.equal(res.statusCode, 200, res.body);
  const body = json(res);
  assert.equal(body.dno, 'ukpn');
  assert.equal(body.count, 2);
  assert.equal(body.stale, false);
  assert.deepEqual(body.tenders[0], {
    tender_platform_id: 'ukpn-comp-1',
    reserve_object_id: 'UKPN-2026-SUMMER-Z12',
    name: 'Summer 2026 peak reduction, zone 12',
    zone: 'Zone 12',
    product: 'Scheduled Utilisation',
    status: 'open',
    bidding_closes_at: '2026-06-20T12:00:00.000Z',
    capacity_required_mw: 2.5,
    service_windows: [{ id: 'ukpn-sw-1', start_utc: '2026-07-01T16:00:00.000Z', end_utc: '2026-07-01T19:00:00.000Z' }],
  });
  assert.equal(a.calls(/authtoken/, 'POST').length, 1);
  assert.deepEqual(JSON.parse(a.calls(/authtoken/)[0].body), { client_id: 'machine-a', api_key: 'key-a-secret' });
  assert.equal(b.server.requests.length, 0, 'the other operator is not asked');
  // Within the lifetime: no new call.
  await call('GET', '/api/vpp/vpp/flex/tenders?dno=ukpn');
  assert.equal(a.calls(/bidding-opportunities/).length, 1);
  clock.advance(61_000);
  await call('GET', '/api/vpp/vpp/flex/tenders?dno=ukpn');
  assert.equal(a.calls(/bidding-opportunities/).length, 2);
  assert.equal(a.calls(/authtoken/).length, 1, 'the token is reused until it expires');
});

test('tenders: dno missing or not one of the two operators is 422; no credential is 401', async () => {
  for (const q of ['', '?dno=', '?dno=ssen', '?dno=UKPN']) {
    const r = await call('GET', `/api/vpp/vpp/flex/tenders${q}`);
    assert.equal(r.statusCode, 422, q);
    assert.deepEqual(json(r).detail[0].loc, ['query', 'dno']);
  }
  for (const url of ['/api/vpp/vpp/flex/contracts', '/api/vpp/vpp/flex/contracts?dno=other']) {
    const r = await call('GET', url);
    assert.equal(r.statusCode, 422, url);
    assert.deepEqual(json(r).detail[0].loc, ['query', 'dno']);
  }
  for (const [method, url] of [
    ['GET', '/api/vpp/vpp/flex/tenders?dno=ukpn'],
    ['GET', '/api/vpp/vpp/flex/contracts?dno=ukpn'],
    ['POST', '/api/vpp/vpp/flex/offers'],
  ] as const) {
    const r = await svc.request({ method, url, ...(method === 'POST' && { payload: offer() }) });
    assertRefused(r, 401, 'Authorization header missing', url);
  }
  assert.equal(a.server.requests.length, 0);
});

test('tenders: an expired platform token is renewed once and the call made again', async () => {
  a.expireTokens();
  const r = await call('GET', '/api/vpp/vpp/flex/tenders?dno=ukpn');
  assert.equal(r.statusCode, 200);
  assert.equal(a.calls(/authtoken/).length, 1);
  assert.equal(a.calls(/bidding-opportunities/).length, 2);
});

test('partner-gated: an operator without credentials answers 503 Credentials not configured on all three, not transient', async () => {
  const s = await startTestService({
    clock,
    env: env({ FLEX_DNO_B_BASE_URL: '', FLEX_DNO_B_CLIENT_ID: '', FLEX_DNO_B_API_KEY: '', FLEX_DNO_A_CLIENT_ID: '', FLEX_DNO_A_API_KEY: '' }),
  });
  try {
    await s.createOrg(ORG);
    for (const dno of ['ukpn', 'nged']) {
      for (const [method, url, payload] of [
        ['GET', `/api/vpp/vpp/flex/tenders?dno=${dno}`, undefined],
        ['GET', `/api/vpp/vpp/flex/contracts?dno=${dno}`, undefined],
        ['POST', '/api/vpp/vpp/flex/offers', offer({ dno, tender_platform_id: 'nged-comp-1' })],
      ] as const) {
        const r = await call(method, url, { s, payload });
        assert.equal(r.statusCode, 503, `${dno} ${url}`);
        assert.deepEqual(json(r), { detail: 'Credentials not configured' });
        assert.equal(r.headers['retry-after'], undefined);
      }
    }
    assert.equal(a.server.requests.length + b.server.requests.length, 0);
    const n = await s.deps.db.query<{ n: number }>('select count(*)::int as n from flex_offers');
    assert.equal(n.rows[0].n, 0, 'nothing recorded');
  } finally {
    await s.stop();
  }
});

test('tenders: platform down, slow or answering garbage is 502 Flexibility platform API error, leaking nothing', async () => {
  for (const mode of ['down', 'slow', 'garbage'] as const) {
    clock.advance(10 * 60_000);
    const s = await startTestService({ clock, env: env() });
    try {
      await s.createOrg(ORG);
      b.mode = mode;
      for (const url of ['/api/vpp/vpp/flex/tenders?dno=nged', '/api/vpp/vpp/flex/contracts?dno=nged']) {
        const r = await call('GET', url, { s });
        assert.equal(r.statusCode, 502, `${mode} ${url}`);
        assert.deepEqual(json(r), { detail: 'Flexibility platform API error' });
        assert.doesNotMatch(r.body, /10\.0\.0\.7|secret|127\.0\.0\.1/);
      }
    } finally {
      await s.stop();
    }
  }
  // Wrong credentials are a platform failure too (the token is refused).
  const s = await startTestService({ clock, env: env({ FLEX_DNO_B_API_KEY: 'wrong' }) });
  try {
    await s.createOrg(ORG);
    const r = await call('GET', '/api/vpp/vpp/flex/tenders?dno=nged', { s });
    assertRefused(r, 502, 'Flexibility platform API error');
  } finally {
    await s.stop();
  }
});

test('tenders: past their lifetime and the platform down, the cached list is served marked stale', async () => {
  const first = json(await call('GET', '/api/vpp/vpp/flex/tenders?dno=nged'));
  assert.equal(first.stale, false);
  clock.advance(5 * 60_000);
  b.mode = 'down';
  const r = await call('GET', '/api/vpp/vpp/flex/tenders?dno=nged');
  assert.equal(r.statusCode, 200);
  assert.equal(json(r).stale, true);
  assert.equal(json(r).cached_at, first.cached_at);
  assert.deepEqual(json(r).tenders, first.tenders);
});

test('offers: submitted to the first operator by reserve_object_id, recorded, audited, decimals sent as strings', async () => {
  const res = await call('POST', '/api/vpp/vpp/flex/offers', { payload: offer() });
  assert.equal(res.statusCode, 201, res.body);
  const body = json(res);
  assert.equal(body.status, 'submitted');
  assert.equal(body.dno, 'ukpn');
  assert.equal(body.tender_platform_id, 'ukpn-comp-1', 'resolved from the open tenders');
  assert.equal(body.intervals.length, 2);
  const ballot = a.ballots[a.ballots.length - 1];
  assert.equal(body.platform_reference, ballot.id);
  assert.equal(a.calls(/\/bids\/v1\/competitions\/ukpn-comp-1\/ballots\/$/, 'POST').length, 1);
  assert.deepEqual(ballot.body.bids[0], {
    start: offer().intervals[0].start_utc,
    capacity: '0.25',
    max_runtime: '02:00:00',
    direction: 'turn_down',
    rates: [{ type: 'utilisation', value: '250.5' }],
  });
  assert.equal(ballot.body.reference, 'UKPN-2026-SUMMER-Z12');
  const row = await offerRow(body.offer_id);
  assert.equal(row.status, 'submitted');
  assert.equal(row.platform_status, 201);
  assert.equal(row.platform_reference, ballot.id);
  const audit = await svc.deps.db.query<{ action: string; details: any }>(
    'select action, details from audit_log where org_id = $1 and target_id = $2 order by id',
    [ORG, body.offer_id],
  );
  assert.deepEqual(
    audit.rows.map((r) => r.action),
    ['flex.offer.submit', 'flex.offer.answer'],
  );
  assert.equal(audit.rows[1].details.outcome, 'submitted');
  assert.doesNotMatch(JSON.stringify(audit.rows), /key-a-secret/);
});

test('offers: the second operator needs tender_platform_id (400 with its own detail); with it the offer goes through', async () => {
  const without = await call('POST', '/api/vpp/vpp/flex/offers', { payload: offer({ dno: 'nged', reserve_object_id: 'NGED-2026-DA-7' }) });
  assert.equal(without.statusCode, 400);
  assert.deepEqual(json(without), { detail: 'tender_platform_id is required for offers to nged' });
  assert.equal(b.server.requests.length, 0);
  const withId = await call('POST', '/api/vpp/vpp/flex/offers', {
    payload: offer({ dno: 'nged', reserve_object_id: 'NGED-2026-DA-7', tender_platform_id: 'nged-comp-2', direction_turn_up: true }),
  });
  assert.equal(withId.statusCode, 201, withId.body);
  assert.equal(json(withId).tender_platform_id, 'nged-comp-2');
  assert.equal(b.ballots[b.ballots.length - 1].body.bids[0].direction, 'turn_up');
  assert.equal(b.calls(/bidding-opportunities/).length, 0, 'no lookup when the id is given');
});

test('offers: a reserve_object_id matching no open tender of the first operator is 400', async () => {
  const r = await call('POST', '/api/vpp/vpp/flex/offers', { payload: offer({ reserve_object_id: 'NOPE-1' }) });
  assert.equal(r.statusCode, 400);
  assert.deepEqual(json(r), { detail: 'reserve_object_id does not match an open tender of ukpn' });
});

test('offers: malformed offers are 422 in the validation shape, naming the field', async () => {
  const iv = offer().intervals[0];
  const cases: [unknown, (string | number)[]][] = [
    [{ ...offer(), dno: 'ssen' }, ['body', 'dno']],
    [{ ...offer(), reserve_object_id: undefined }, ['body', 'reserve_object_id']],
    [{ ...offer(), direction_turn_up: 'yes' }, ['body', 'direction_turn_up']],
    [{ ...offer(), intervals: [] }, ['body', 'intervals']],
    [{ ...offer(), intervals: [{ ...iv, start_utc: '2026-06-11T10:00:00+01:00' }] }, ['body', 'intervals', 0, 'start_utc']],
    [{ ...offer(), intervals: [{ ...iv, start_utc: '2026-06-11 10:00' }] }, ['body', 'intervals', 0, 'start_utc']],
    [{ ...offer(), intervals: [{ ...iv, start_utc: '2026-13-11T10:00:00Z' }] }, ['body', 'intervals', 0, 'start_utc']],
    [{ ...offer(), intervals: [{ ...iv, duration_minutes: 0 }] }, ['body', 'intervals', 0, 'duration_minutes']],
    [{ ...offer(), intervals: [{ ...iv, duration_minutes: -30 }] }, ['body', 'intervals', 0, 'duration_minutes']],
    [{ ...offer(), intervals: [{ ...iv, duration_minutes: 1.5 }] }, ['body', 'intervals', 0, 'duration_minutes']],
    [{ ...offer(), intervals: [{ ...iv, capacity_mw: 0 }] }, ['body', 'intervals', 0, 'capacity_mw']],
    [{ ...offer(), intervals: [{ ...iv, price_gbp_per_mwh: '250' }] }, ['body', 'intervals', 0, 'price_gbp_per_mwh']],
    [{ ...offer(), intervals: [{ start_utc: iv.start_utc, duration_minutes: 30, capacity_mw: 1 }] }, ['body', 'intervals', 0, 'price_gbp_per_mwh']],
    [{ ...offer(), extra: 1 }, ['body', 'extra']],
  ];
  for (const [payload, loc] of cases) {
    const r = await call('POST', '/api/vpp/vpp/flex/offers', { payload });
    assert.equal(r.statusCode, 422, JSON.stringify(payload));
    const locs = json(r).detail.map((e: { loc: unknown[] }) => JSON.stringify(e.loc));
    assert.ok(locs.includes(JSON.stringify(loc)), `${JSON.stringify(loc)} in ${locs}`);
  }
  assert.equal(a.calls(/ballots/).length, 0);
});

test('offers: intervals in the past or overlapping are 400; VIEWER and ANALYST may not submit', async () => {
  const iv = offer().intervals[0];
  const past = await call('POST', '/api/vpp/vpp/flex/offers', { payload: offer({ intervals: [{ ...iv, start_utc: '2026-01-01T00:00:00Z' }] }) });
  assert.equal(past.statusCode, 400);
  assert.deepEqual(json(past), { detail: 'Every interval must start in the future' });
  const overlap = await call('POST', '/api/vpp/vpp/flex/offers', {
    payload: offer({ intervals: [iv, { ...iv, start_utc: new Date(Date.parse(iv.start_utc) + 60 * 60_000).toISOString() }] }),
  });
  assert.equal(overlap.statusCode, 400);
  assert.deepEqual(json(overlap), { detail: 'Intervals must not overlap' });
  for (const role of ['VIEWER', 'ANALYST'] as const) {
    const r = await call('POST', '/api/vpp/vpp/flex/offers', { payload: offer(), role });
    assert.equal(r.statusCode, 403, role);
    assert.deepEqual(json(r), { detail: 'Insufficient permissions' });
  }
  assert.equal(a.calls(/ballots/).length, 0);
});

test('offers: refused by the platform is 400 and recorded as rejected with the platform’s answer', async () => {
  a.rejectBallots = true;
  const r = await call('POST', '/api/vpp/vpp/flex/offers', { payload: offer() });
  assert.equal(r.statusCode, 400);
  assert.deepEqual(json(r), { detail: 'Offer rejected by the flexibility platform' });
  const row = await lastOfferRow();
  assert.equal(row.status, 'rejected');
  assert.equal(row.platform_status, 400);
  assert.match(JSON.stringify(row.platform_response), /qualified capacity/);
});

test('offers: platform failing is 502 recorded as failed; no answer in time is 502 recorded as unknown; never retried', async () => {
  a.opportunities = sampleOpportunities('ukpn');
  const ok = await call('GET', '/api/vpp/vpp/flex/tenders?dno=ukpn'); // warm the tenders lookup
  assert.equal(ok.statusCode, 200);
  a.server.requests.length = 0;
  // Token and tenders are cached by now: the only call is the ballot, and the platform fails it.
  a.override = (req, res) => {
    res.writeHead(503, { 'content-type': 'application/json' });
    res.end('{"detail":"db 10.0.0.7 down"}');
  };
  const failed = await call('POST', '/api/vpp/vpp/flex/offers', { payload: offer() });
  assert.equal(failed.statusCode, 502);
  assert.deepEqual(json(failed), { detail: 'Flexibility platform API error' });
  assert.equal(a.calls(/ballots/).length, 1, 'an offer is sent once, never retried');
  assert.equal((await lastOfferRow()).status, 'failed');
  a.override = null;
  a.mode = 'slow';
  clock.advance(1000); // rows are read back newest first
  const slow = await call('POST', '/api/vpp/vpp/flex/offers', { payload: offer() });
  assertRefused(slow, 502, 'Flexibility platform API error');
  const row = await lastOfferRow();
  assert.equal(row.status, 'unknown');
  assert.deepEqual(row.platform_response, { failure: 'timeout' });
});

test('contracts: awarded on this organisation’s offers, with quantity and clearing price; nobody else’s', async () => {
  const sub = json(
    await call('POST', '/api/vpp/vpp/flex/offers', {
      payload: offer({ dno: 'nged', reserve_object_id: 'NGED-2026-SUMMER-Z12', tender_platform_id: 'nged-comp-1' }),
    }),
  );
  b.award(sub.platform_reference, '275.40');
  clock.advance(2 * 60_000);
  const res = await call('GET', '/api/vpp/vpp/flex/contracts?dno=nged', { role: 'VIEWER' });
  assert.equal(res.statusCode, 200, res.body);
  const body = json(res);
  assert.equal(body.count, 2);
  const c = body.contracts[0];
  assert.equal(c.tender_platform_id, 'nged-comp-1');
  assert.equal(c.reserve_object_id, 'NGED-2026-SUMMER-Z12');
  assert.equal(c.quantity_mw, 0.25);
  assert.equal(c.clearing_price_gbp_per_mwh, 275.4);
  assert.equal(c.price_type, 'utilisation');
  assert.ok(!body.contracts.some((x: { contract_id: string }) => x.contract_id === 'nged-obl-other'));
  const other = json(await call('GET', '/api/vpp/vpp/flex/contracts?dno=nged', { org: OTHER }));
  assert.equal(other.count, 0, 'another organisation sees none of them');
});
