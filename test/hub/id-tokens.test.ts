// Id tokens and authorisation (decision 0410): tokens managed through the API per organisation, and
// answered to real OCPP 1.6J and 2.0.1 chargers (ocpp-rpc clients) in Authorize, StartTransaction,
// StopTransaction and TransactionEvent; a free vend site accepts every token and says so on each
// session. Refusals: wrong role, other organisation, bad input, unknown token.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { auth, charger, listen, siteWithCharger, type Charger } from './helpers.ts';

const H = '/api/csms/api/hub';
const ORG = 'hub-tokens';
const OTHER = 'hub-tokens-other';
let svc: TestService;
let base: string;
let admin: string;
let operator: string;
let viewer: string;
let other: string;
const clock = new ManualClock(new Date('2026-04-01T09:00:00.000Z'));
const open: Charger[] = [];
const req = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, token: string, payload?: unknown) =>
  svc.request({ method, url, headers: auth(token), ...(payload !== undefined && { payload: payload as object }) });

before(async () => {
  svc = await startTestService({ clock });
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  admin = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: '400d' });
  operator = await svc.token({ orgId: ORG, roles: ['OPERATOR'], expiresIn: '400d' });
  viewer = await svc.token({ orgId: ORG, roles: ['VIEWER'], expiresIn: '400d' });
  other = await svc.token({ orgId: OTHER, roles: ['ORG_ADMIN'], expiresIn: '400d' });
  base = await listen(svc);
});
after(async () => {
  await Promise.allSettled(open.map((c) => c.close({ force: true })));
  await svc?.stop();
});

test('id tokens: create, list, get, update, delete; audited; refusals', async () => {
  const c = await req('POST', `${H}/id-tokens`, operator, { id_token: '04AABBCC', group_id: 'FLEET1', expires_at: '2026-12-31T00:00:00Z', note: 'Van 3' });
  assert.equal(c.statusCode, 201, c.body);
  assert.deepEqual(json(c), {
    id_token: '04AABBCC',
    type: 'ISO14443',
    status: 'accepted',
    expires_at: '2026-12-31T00:00:00.000Z',
    group_id: 'FLEET1',
    note: 'Van 3',
    created_at: '2026-04-01T09:00:00.000Z',
    updated_at: '2026-04-01T09:00:00.000Z',
  });
  const emaid = await req('POST', `${H}/id-tokens`, admin, { id_token: 'GB-ABC-C12345678-9', type: 'eMAID', status: 'blocked' });
  assert.equal(emaid.statusCode, 201, emaid.body);
  // OCPP compares id tokens case-insensitively: the same card in lower case is the same token.
  assertRefused(await req('POST', `${H}/id-tokens`, admin, { id_token: '04aabbcc' }), 409, 'Id token already exists');
  assertRefused(await req('POST', `${H}/id-tokens`, viewer, { id_token: 'VIEW' }), 403, 'Insufficient permissions');
  assertRefused(await req('POST', `${H}/id-tokens`, admin, { id_token: 'has space', status: 'gone', group_id: 'x'.repeat(21) }), 422, {
    fields: ['body.id_token', 'body.status', 'body.group_id'],
  });
  assertRefused(await req('POST', `${H}/id-tokens`, admin, { id_token: 'A', expires_at: 'tomorrow' }), 422, { fields: ['body.expires_at'] });

  const list = json(await req('GET', `${H}/id-tokens?limit=1`, viewer));
  assert.deepEqual([list.id_tokens.map((t: any) => t.id_token), list.has_more], [['04AABBCC'], true]);
  const next = json(await req('GET', `${H}/id-tokens?limit=1&cursor=${encodeURIComponent(list.next_cursor)}`, viewer));
  assert.deepEqual([next.id_tokens.map((t: any) => t.id_token), next.has_more], [['GB-ABC-C12345678-9'], false]);
  assert.deepEqual(json(await req('GET', `${H}/id-tokens`, other)).id_tokens, []);
  assertRefused(await req('GET', `${H}/id-tokens?limit=0`, viewer), 422, { fields: ['query.limit'] });
  assertRefused(await req('GET', `${H}/id-tokens?cursor=${encodeURIComponent(list.next_cursor)}`, other), 400, 'invalid_cursor');

  assert.equal(json(await req('GET', `${H}/id-tokens/04aabbcc`, viewer)).note, 'Van 3');
  assertRefused(await req('GET', `${H}/id-tokens/04AABBCC`, other), 404, 'Id token not found');

  clock.advance(60_000);
  const u = await req('PATCH', `${H}/id-tokens/04AABBCC`, operator, { status: 'blocked', note: null });
  assert.equal(u.statusCode, 200, u.body);
  assert.deepEqual([json(u).status, json(u).note, json(u).group_id, json(u).updated_at], ['blocked', null, 'FLEET1', '2026-04-01T09:01:00.000Z']);
  assertRefused(await req('PATCH', `${H}/id-tokens/04AABBCC`, viewer, { status: 'accepted' }), 403, 'Insufficient permissions');
  assertRefused(await req('PATCH', `${H}/id-tokens/04AABBCC`, other, { status: 'accepted' }), 404, 'Id token not found');
  assertRefused(await req('PATCH', `${H}/id-tokens/04AABBCC`, admin, {}), 422, {});
  assertRefused(await req('PATCH', `${H}/id-tokens/04AABBCC`, admin, { status: 'maybe' }), 422, { fields: ['body.status'] });

  assertRefused(await req('DELETE', `${H}/id-tokens/GB-ABC-C12345678-9`, viewer), 403, 'Insufficient permissions');
  assertRefused(await req('DELETE', `${H}/id-tokens/GB-ABC-C12345678-9`, other), 404, 'Id token not found');
  const d = await req('DELETE', `${H}/id-tokens/gb-abc-c12345678-9`, admin);
  assert.equal(d.statusCode, 204, d.body);
  assertRefused(await req('GET', `${H}/id-tokens/GB-ABC-C12345678-9`, viewer), 404, 'Id token not found');

  const audit = json(await svc.request({ method: 'GET', url: '/api/hardware/admin/audit-log?limit=50', headers: auth(admin) })).entries;
  const mine = audit.filter((e: any) => e.action.startsWith('hub.id_token.')).map((e: any) => [e.action, e.target_id]);
  assert.deepEqual(mine.sort(), [
    ['hub.id_token.create', '04AABBCC'],
    ['hub.id_token.create', 'GB-ABC-C12345678-9'],
    ['hub.id_token.delete', 'GB-ABC-C12345678-9'],
    ['hub.id_token.update', '04AABBCC'],
  ]);
});

describe('authorisation at the chargers', () => {
  let pw16: string;
  let pw201: string;
  let pwFree: string;
  before(async () => {
    pw16 = (await siteWithCharger(svc, admin, { site_id: 'paid', name: 'Paid site' }, { charge_point_id: 'T16', max_power_kw: 22 })).password;
    pw201 = (await siteWithCharger(svc, admin, { site_id: 'paid', name: 'Paid site' }, { charge_point_id: 'T201', max_power_kw: 22 })).password;
    pwFree = (await siteWithCharger(svc, admin, { site_id: 'free', name: 'Staff car park', free_vend: true }, { charge_point_id: 'TFREE', max_power_kw: 7 }))
      .password;
    for (const t of [
      { id_token: 'GOOD', group_id: 'STAFF', expires_at: '2026-04-02T00:00:00Z' },
      { id_token: 'BLOCKED', status: 'blocked' },
      { id_token: 'INVALID', status: 'invalid' },
      { id_token: 'OLD', status: 'expired' },
      { id_token: 'LAPSES', expires_at: '2026-04-01T10:00:00Z' },
    ]) {
      const r = await req('POST', `${H}/id-tokens`, admin, t);
      assert.equal(r.statusCode, 201, r.body);
    }
  });

  const connect = async (id: string, password: string, protocol: 'ocpp1.6' | 'ocpp2.0.1') => {
    const c = charger({ base, orgId: ORG, id, password, protocol });
    open.push(c);
    await c.connect();
    return c;
  };
  const txs = async (site: string) => json(await req('GET', `${H}/sites/${site}/transactions`, viewer)).transactions;

  test('1.6: Authorize and StartTransaction answered from the id tokens; the session records the verdict', async () => {
    clock.set('2026-04-01T09:30:00Z');
    const cp = await connect('T16', pw16, 'ocpp1.6');
    const authz = async (idTag: string) => (await cp.call('Authorize', { idTag })).idTagInfo;
    assert.deepEqual(await authz('GOOD'), { status: 'Accepted', expiryDate: '2026-04-02T00:00:00.000Z', parentIdTag: 'STAFF' });
    assert.deepEqual(await authz('good'), { status: 'Accepted', expiryDate: '2026-04-02T00:00:00.000Z', parentIdTag: 'STAFF' });
    assert.deepEqual(await authz('BLOCKED'), { status: 'Blocked' });
    assert.deepEqual(await authz('INVALID'), { status: 'Invalid' });
    assert.deepEqual(await authz('OLD'), { status: 'Expired' });
    assert.deepEqual(await authz('NOBODY'), { status: 'Invalid' }); // 1.6 has no Unknown
    assert.equal((await authz('LAPSES')).status, 'Accepted');
    clock.set('2026-04-01T10:00:00Z'); // its expiry: answered Expired from now
    assert.deepEqual(await authz('LAPSES'), { status: 'Expired' });

    const ok = await cp.call('StartTransaction', { connectorId: 1, idTag: 'GOOD', meterStart: 1000, timestamp: '2026-04-01T10:00:00Z' });
    assert.equal(ok.idTagInfo.status, 'Accepted');
    const blocked = await cp.call('StartTransaction', { connectorId: 2, idTag: 'BLOCKED', meterStart: 500, timestamp: '2026-04-01T10:00:00Z' });
    assert.deepEqual(blocked.idTagInfo, { status: 'Blocked' });
    // The charger ends the refused one (DeAuthorized); the stop answers the tag it names.
    const stop = await cp.call('StopTransaction', {
      transactionId: blocked.transactionId,
      idTag: 'BLOCKED',
      meterStop: 500,
      timestamp: '2026-04-01T10:00:05Z',
      reason: 'DeAuthorized',
    });
    assert.deepEqual(stop, { idTagInfo: { status: 'Blocked' } });
    const byId = new Map((await txs('paid')).map((t: any) => [t.ocpp_transaction_id, t]));
    const a: any = byId.get(String(ok.transactionId));
    const b: any = byId.get(String(blocked.transactionId));
    assert.deepEqual([a.id_tag, a.authorisation, a.id_token_status], ['GOOD', 'id_token', 'Accepted']);
    assert.deepEqual([b.id_tag, b.authorisation, b.id_token_status, b.stop_reason], ['BLOCKED', 'id_token', 'Blocked', 'DeAuthorized']);

    // Blocking the card through the API changes the next answer at once.
    assert.equal((await req('PATCH', `${H}/id-tokens/GOOD`, operator, { status: 'blocked' })).statusCode, 200);
    assert.deepEqual(await authz('GOOD'), { status: 'Blocked', parentIdTag: 'STAFF' });
    assert.equal((await req('PATCH', `${H}/id-tokens/GOOD`, operator, { status: 'accepted' })).statusCode, 200);
  });

  test('2.0.1: Authorize and TransactionEvent answered from the id tokens, Unknown for a token not held', async () => {
    clock.set('2026-04-01T11:00:00Z');
    const cp = await connect('T201', pw201, 'ocpp2.0.1');
    const authz = async (idToken: string) => (await cp.call('Authorize', { idToken: { idToken, type: 'ISO14443' } })).idTokenInfo;
    assert.deepEqual(await authz('GOOD'), {
      status: 'Accepted',
      cacheExpiryDateTime: '2026-04-02T00:00:00.000Z',
      groupIdToken: { idToken: 'STAFF', type: 'Central' },
    });
    assert.deepEqual(await authz('NOBODY'), { status: 'Unknown' });
    assert.deepEqual(await authz('BLOCKED'), { status: 'Blocked' });
    const ev = (eventType: string, id: string, seqNo: number, extra: object) => ({
      eventType,
      timestamp: '2026-04-01T11:00:00Z',
      triggerReason: 'Authorized',
      seqNo,
      transactionInfo: { transactionId: id },
      evse: { id: 1, connectorId: 1 },
      ...extra,
    });
    const started = await cp.call('TransactionEvent', ev('Started', 'T-ok', 0, { idToken: { idToken: 'GOOD', type: 'ISO14443' } }));
    assert.equal(started.idTokenInfo.status, 'Accepted');
    const unknown = await cp.call('TransactionEvent', ev('Started', 'T-unknown', 0, { idToken: { idToken: 'STRANGER', type: 'ISO14443' } }));
    assert.deepEqual(unknown.idTokenInfo, { status: 'Unknown' });
    // Started before any token (cable first): no answer to give, and the session says none applied.
    assert.deepEqual(await cp.call('TransactionEvent', ev('Started', 'T-none', 0, {})), {});
    const byId = new Map((await txs('paid')).map((t: any) => [t.ocpp_transaction_id, t]));
    assert.deepEqual(
      ['T-ok', 'T-unknown', 'T-none'].map((id) => [(byId.get(id) as any).authorisation, (byId.get(id) as any).id_token_status]),
      [
        ['id_token', 'Accepted'],
        ['id_token', 'Unknown'],
        ['none', null],
      ],
    );
  });

  test('free vend: every token accepted without a check, each session records free_vend', async () => {
    const site = json(await req('GET', `${H}/sites/free`, viewer));
    assert.equal(site.free_vend, true);
    clock.set('2026-04-01T12:00:00Z');
    const cp = await connect('TFREE', pwFree, 'ocpp1.6');
    assert.deepEqual((await cp.call('Authorize', { idTag: 'NOBODY' })).idTagInfo, { status: 'Accepted' });
    assert.deepEqual((await cp.call('Authorize', { idTag: 'BLOCKED' })).idTagInfo, { status: 'Accepted' });
    const s = await cp.call('StartTransaction', { connectorId: 1, idTag: 'NOBODY', meterStart: 0, timestamp: '2026-04-01T12:00:00Z' });
    assert.deepEqual(s.idTagInfo, { status: 'Accepted' });
    const t = (await txs('free')).find((x: any) => x.ocpp_transaction_id === String(s.transactionId));
    assert.deepEqual([t.authorisation, t.id_token_status], ['free_vend', 'Accepted']);
    // The site turns free vend off (PUT replaces the whole site): the same tag is refused from then on.
    const put = await req('PUT', `${H}/sites/free`, admin, { name: 'Staff car park' });
    assert.deepEqual([put.statusCode, json(put).free_vend], [200, false]);
    assert.deepEqual((await cp.call('Authorize', { idTag: 'NOBODY' })).idTagInfo, { status: 'Invalid' });
    assertRefused(await req('PUT', `${H}/sites/free`, admin, { name: 'x', free_vend: 'yes' }), 422, { fields: ['body.free_vend'] });
  });
  test('a session begun offline on the local list is reconciled when the charger is back: recorded at its own start, answered as the token stands now', async () => {
    // T16 was offline from 12:30 to 13:00; on its local list GOOD and BLOCKED were both accepted
    // (the list was older than the block). Back online it reports both sessions.
    clock.set('2026-04-01T13:00:00Z');
    const cp = await connect('T16', pw16, 'ocpp1.6');
    const good = await cp.call('StartTransaction', { connectorId: 1, idTag: 'GOOD', meterStart: 2000, timestamp: '2026-04-01T12:35:00Z' });
    const late = await cp.call('StartTransaction', { connectorId: 2, idTag: 'BLOCKED', meterStart: 800, timestamp: '2026-04-01T12:40:00Z' });
    assert.equal(good.idTagInfo.status, 'Accepted');
    assert.deepEqual(late.idTagInfo, { status: 'Blocked' }); // the charger stops it now (1.6 StopTransactionOnInvalidId)
    const cp201 = await connect('T201', pw201, 'ocpp2.0.1');
    const off = await cp201.call('TransactionEvent', {
      eventType: 'Started',
      timestamp: '2026-04-01T12:45:00Z',
      triggerReason: 'Authorized',
      seqNo: 0,
      offline: true,
      transactionInfo: { transactionId: 'T-offline' },
      idToken: { idToken: 'OLD', type: 'ISO14443' },
      evse: { id: 2, connectorId: 1 },
    });
    assert.deepEqual(off.idTokenInfo, { status: 'Expired' });
    const byId = new Map((await txs('paid')).map((t: any) => [t.ocpp_transaction_id, t]));
    const rows = [String(good.transactionId), String(late.transactionId), 'T-offline'].map((id) => byId.get(id) as any);
    assert.deepEqual(
      rows.map((t) => [t.started_at, t.id_tag, t.authorisation, t.id_token_status, t.stopped_at]),
      [
        ['2026-04-01T12:35:00.000Z', 'GOOD', 'id_token', 'Accepted', null],
        ['2026-04-01T12:40:00.000Z', 'BLOCKED', 'id_token', 'Blocked', null],
        ['2026-04-01T12:45:00.000Z', 'OLD', 'id_token', 'Expired', null],
      ],
    );
  });
});
