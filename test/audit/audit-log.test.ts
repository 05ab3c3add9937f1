// Audit log reads: page with filters and cursors, action catalogue, streamed CSV export.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { json, type TestService } from '../helpers/service.ts';
import { bearer, clockOf, startService } from '../identity/support.ts';
import { AUDIT_LOG } from '../../src/modules/audit/index.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
let admin: string;
const T0 = Date.parse('2026-03-01T10:00:00Z');
const MINUTE = 60_000;

async function record(orgId: string, action: string, actorId: string, details: Record<string, unknown> = {}, targetId?: string) {
  await svc.deps.services.get(AUDIT_LOG).record(svc.deps.db, { orgId, actorType: 'user', actorId }, { action, details, targetType: 'thing', targetId });
}

before(async () => {
  svc = await startService();
  await svc.createOrg('acme');
  await svc.createOrg('beta');
  clockOf(svc).set(T0);
  // 30 entries a minute apart: actions alternate, two actors.
  for (let i = 0; i < 30; i++) {
    await record('acme', i % 3 === 0 ? 'twin.asset.update' : 'auth.login', i % 2 ? 'u-odd' : 'u-even', { i });
    clockOf(svc).advance(MINUTE);
  }
  await record('acme', 'custom.weird', 'u-odd', { note: 'comma, "quote"\nnewline' }, '=HYPERLINK("x")');
  await record('beta', 'auth.login', 'u-beta', { secret_org: 'beta' });
  admin = await svc.token({ orgId: 'acme', roles: ['ORG_ADMIN'] });
});
after(() => svc.stop());

const page = (query: string, token = admin) => svc.request({ method: 'GET', url: `/api/hardware/admin/audit-log${query}`, headers: bearer(token) });

test('a page is newest first; following next_cursor reads every entry once', async () => {
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await page(`?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(res.statusCode, 200);
    const body = json(res);
    seen.push(...body.entries.map((e: any) => e.id));
    assert.equal(body.has_more, body.next_cursor !== null);
    cursor = body.next_cursor;
    pages++;
  } while (cursor);
  assert.equal(seen.length, 31);
  assert.equal(new Set(seen).size, 31);
  assert.equal(pages, 5);
  const first = json(await page('?limit=2')).entries;
  assert.equal(first[0].action, 'custom.weird');
  assert.ok(Date.parse(first[0].created_at) >= Date.parse(first[1].created_at));
});

test('filters: action, actor and time range (since inclusive, until exclusive)', async () => {
  const updates = json(await page('?action=twin.asset.update&limit=200')).entries;
  assert.equal(updates.length, 10);
  assert.ok(updates.every((e: any) => e.action === 'twin.asset.update'));
  const odd = json(await page('?actor=u-odd&limit=200')).entries;
  assert.equal(odd.length, 16);
  const since = new Date(T0 + 10 * MINUTE).toISOString();
  const until = new Date(T0 + 20 * MINUTE).toISOString();
  const ranged = json(await page(`?since=${since}&until=${until}&limit=200`)).entries;
  assert.deepEqual(
    ranged.map((e: any) => e.details.i),
    [19, 18, 17, 16, 15, 14, 13, 12, 11, 10],
  );
  assertRefused(await page(`?since=${until}&until=${since}`), 422, { fields: ['query.until'] });
  assertRefused(await page('?since=yesterday'), 422, { fields: ['query.since'] });
  assertRefused(await page('?since=0000-01-01T00:00:00Z'), 422, { fields: ['query.since'] });
  assertRefused(await page('?until=2026-12-31T23:59:60Z'), 422, { fields: ['query.until'] });
  assertRefused(await page('?limit=0'), 422, { fields: ['query.limit'] });
});

test('a bad cursor, or a cursor with other filters, is 400 invalid_cursor', async () => {
  const cursor = json(await page('?action=auth.login&limit=3')).next_cursor;
  assert.ok(cursor);
  assert.equal((await page(`?action=auth.login&limit=3&cursor=${encodeURIComponent(cursor)}`)).statusCode, 200);
  assert.deepEqual(json(await page(`?action=twin.asset.update&cursor=${encodeURIComponent(cursor)}`)), { detail: 'invalid_cursor' });
  assertRefused(await page('?cursor=garbage'), 400, 'invalid_cursor');
  const beta = await svc.token({ orgId: 'beta', roles: ['ORG_ADMIN'] });
  assertRefused(await page(`?action=auth.login&limit=3&cursor=${encodeURIComponent(cursor)}`, beta), 400, 'invalid_cursor');
});

test('administrators only: other roles are 403', async () => {
  for (const role of ['OPERATOR', 'ANALYST', 'VIEWER'] as const) {
    const t = await svc.token({ orgId: 'acme', roles: [role] });
    assert.deepEqual(json(await page('', t)), { detail: 'Insufficient permissions' }, role);
    const csv = await svc.request({ method: 'GET', url: '/api/hardware/admin/audit-log/export.csv', headers: bearer(t) });
    assertRefused(csv, 403, 'Insufficient permissions');
    const actions = await svc.request({ method: 'GET', url: '/api/hardware/admin/audit-log/actions', headers: bearer(t) });
    assertRefused(actions, 403, 'Insufficient permissions');
  }
});

test('the action catalogue describes every recorded action and lists others present in the log', async () => {
  const res = await svc.request({ method: 'GET', url: '/api/hardware/admin/audit-log/actions', headers: bearer(admin) });
  assert.equal(res.statusCode, 200);
  const actions = new Map<string, any>(json(res).actions.map((a: any) => [a.action, a]));
  for (const name of ['auth.login', 'auth.lockout', 'auth.token.reuse', 'auth.sso.login', 'access.membership.set']) {
    assert.ok(actions.get(name)?.description, name);
  }
  assert.equal(actions.get('auth.login').count, 20, 'this organisation only');
  assert.equal(actions.get('custom.weird').description, null);
  assert.equal(actions.get('custom.weird').count, 1);
  assert.equal(actions.get('auth.sso.login').count, 0);
});

test('CSV export: text/csv, header row, RFC 4180 quoting, formulas defused, filters applied', async () => {
  const res = await svc.request({ method: 'GET', url: '/api/hardware/admin/audit-log/export.csv', headers: bearer(admin) });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/csv/);
  assert.match(String(res.headers['content-disposition']), /attachment/);
  const text = res.body;
  assert.ok(text.startsWith('id,created_at,action,actor_type,actor_id,target_type,target_id,details,request_id,source_ip\r\n'));
  assert.ok(text.includes(`,"'=HYPERLINK(""x"")",`), 'formula prefixed with an apostrophe and quotes doubled');
  assert.ok(text.includes('"{""note"":""comma, \\""quote\\""\\nnewline""}"'), 'JSON details quoted');
  assert.ok(!text.includes('u-beta') && !text.includes('secret_org'), 'no other organisation');
  const lines = text.split('\r\n').filter(Boolean);
  assert.equal(lines.length, 1 + 31 + 1, 'header, the entries, and this export itself (recorded first)');

  const filtered = await svc.request({
    method: 'GET',
    url: '/api/hardware/admin/audit-log/export.csv?action=twin.asset.update',
    headers: bearer(admin),
  });
  assert.equal(filtered.body.split('\r\n').filter(Boolean).length, 1 + 10);
  // The export itself is recorded.
  assert.equal(json(await page('?action=audit.export')).entries.length, 2);
});

test('a large export streams every entry once, across batches and equal timestamps', async () => {
  await svc.createOrg('bulk');
  await svc.deps.db.query(
    `insert into audit_log (org_id, actor_type, actor_id, action, details, created_at)
     select 'bulk', 'system', null, 'bulk.row', jsonb_build_object('n', n), $1::timestamptz + ((n / 100) * interval '1 second')
     from generate_series(1, 1234) as n`,
    [new Date(T0).toISOString()],
  );
  const bulkAdmin = await svc.token({ orgId: 'bulk', roles: ['ORG_ADMIN'] });
  const res = await svc.request({ method: 'GET', url: '/api/hardware/admin/audit-log/export.csv?action=bulk.row', headers: bearer(bulkAdmin) });
  const ids = res.body
    .split('\r\n')
    .filter(Boolean)
    .slice(1)
    .map((l) => l.split(',')[0]);
  assert.equal(ids.length, 1234);
  assert.equal(new Set(ids).size, 1234);
});
