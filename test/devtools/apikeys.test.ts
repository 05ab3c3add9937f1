// API keys: issue, list, rotate, revoke; the credential check; plan limit; expiry alerts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { READ, bearer, clockOf, issueKey, partnerAlerts, runAt } from './helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
const ORG = 'keys-org';
const OTHER = 'keys-other';
const DAY = 86_400_000;
/** The 43-character secret part of a key (it may itself contain '_'). */
const secretOf = (key: string) => key.split('_').slice(3).join('_');
const me = (auth: { authorization: string }) => svc.request({ method: 'GET', url: '/api/devtools/partner/v1/me', headers: auth });

before(async () => {
  svc = await startTestService();
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  await svc.createOrg('keys-limited');
  await svc.deps.db.query(`update organisations set plan_limits = '{"api_keys": 2}' where id = 'keys-limited'`);
});
after(() => svc.stop());

test('create: 201, the secret once, format <prefix>_<env>_<id>_<secret>; it authenticates', async () => {
  const res = await svc.request({
    method: 'POST',
    url: '/api/devtools/apikeys',
    headers: await bearer(svc, ORG),
    payload: { name: 'integration', scopes: ['alerts:read', 'devices:read'] },
  });
  assert.equal(res.statusCode, 201);
  assert.ok(res.headers['x-request-id']);
  const body = json(res);
  assert.match(body.secret, new RegExp(`^${svc.config.apiKeyPrefix}_live_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$`));
  assert.equal(body.environment, 'live');
  assert.equal(body.status, 'active');
  assert.deepEqual(body.scopes, ['alerts:read', 'devices:read']);
  assert.equal(new Date(body.expires_at).getTime() - new Date(body.created_at).getTime(), 90 * DAY);
  assert.ok(body.key_hint.endsWith(body.secret.slice(-4)) && !body.key_hint.includes(secretOf(body.secret)));
  const who = await me({ authorization: `Bearer ${body.secret}` });
  assert.equal(who.statusCode, 200);
  assert.deepEqual(json(who).organisation.id, ORG);
  assert.equal(json(who).environment, 'live');
});

test('list: every key, no secret anywhere; environment filters; stored only as a hash', async () => {
  const k = await issueKey(svc, ORG, { environment: 'sandbox', name: 'sbx' });
  const res = await svc.request({ method: 'GET', url: '/api/devtools/apikeys', headers: await bearer(svc, ORG) });
  assert.equal(res.statusCode, 200);
  assert.ok(!res.body.includes(secretOf(k.secret)), 'the secret is never listed');
  assert.ok(json(res).api_keys.every((x: Record<string, unknown>) => !('secret' in x)));
  const sandboxOnly = json(await svc.request({ method: 'GET', url: '/api/devtools/apikeys?environment=sandbox', headers: await bearer(svc, ORG) }));
  assert.deepEqual(
    sandboxOnly.api_keys.map((x: { id: string }) => x.id),
    [k.id],
  );
  // A dump of every table holding key data finds no secret: only a hash and a hint.
  const secretPart = secretOf(k.secret);
  for (const table of ['api_keys', 'audit_log']) {
    const dump = await svc.deps.db.query<{ t: string }>(`select string_agg(row_to_json(x)::text, '\n') as t from ${table} x`);
    assert.ok(!String(dump.rows[0].t).includes(secretPart), `${table} holds no secret`);
  }
  const audit = await svc.deps.db.query<{ action: string }>(`select action from audit_log where org_id = $1 and target_id = $2`, [ORG, k.id]);
  assert.deepEqual(
    audit.rows.map((r) => r.action),
    ['apikey.create'],
  );
});

test('create refusals: VIEWER/OPERATOR 403, sandbox write scope 422, bad body 422, past expiry 422', async () => {
  for (const role of ['VIEWER', 'OPERATOR'] as const) {
    const res = await svc.request({
      method: 'POST',
      url: '/api/devtools/apikeys',
      headers: await bearer(svc, ORG, [role]),
      payload: { name: 'x', scopes: READ },
    });
    assert.equal(res.statusCode, 403);
    assert.equal(json(res).detail, 'Insufficient permissions');
    assert.equal(json(res).error.code, 'insufficient_permissions');
  }
  const sbx = await svc.request({
    method: 'POST',
    url: '/api/devtools/apikeys?environment=sandbox',
    headers: await bearer(svc, ORG),
    payload: { name: 'x', scopes: ['telemetry:write'] },
  });
  assert.equal(sbx.statusCode, 422);
  assert.deepEqual(json(sbx).detail[0].loc, ['body', 'scopes']);
  for (const payload of [
    { name: 'x', scopes: [] },
    { name: 'x', scopes: ['admin:all'] },
    { scopes: READ },
    { name: 'x', scopes: READ, org_id: OTHER },
    { name: 'x', scopes: READ, expires_at: new Date(svc.clock.now().getTime() - 1000).toISOString() },
    { name: 'x', scopes: READ, expires_at: new Date(svc.clock.now().getTime() + 400 * DAY).toISOString() },
  ]) {
    const res = await svc.request({ method: 'POST', url: '/api/devtools/apikeys', headers: await bearer(svc, ORG), payload });
    assert.equal(res.statusCode, 422, JSON.stringify(payload));
    assert.equal(json(res).code, 'validation_error');
  }
  const env = await svc.request({
    method: 'POST',
    url: '/api/devtools/apikeys?environment=staging',
    headers: await bearer(svc, ORG),
    payload: { name: 'x', scopes: READ },
  });
  assertRefused(env, 422, { code: 'validation_error', fields: ['query.environment'] });
});

test('expires_at with a leap second (23:59:60, valid RFC 3339 but no instant a Date holds): 422, not 500', async () => {
  // Audit 2026-11-27: create and rotate answered 500 (Invalid Date reached toISOString).
  const leap = '2026-12-31T23:59:60Z';
  const created = await svc.request({
    method: 'POST',
    url: '/api/devtools/apikeys',
    headers: await bearer(svc, ORG),
    payload: { name: 'x', scopes: READ, expires_at: leap },
  });
  assertRefused(created, 422, { code: 'validation_error', fields: ['body.expires_at'] });
  const key = await issueKey(svc, ORG, { scopes: READ });
  const rotated = await svc.request({
    method: 'POST',
    url: `/api/devtools/apikeys/${key.id}/rotate`,
    headers: await bearer(svc, ORG),
    payload: { expires_at: leap },
  });
  assertRefused(rotated, 422, { code: 'validation_error', fields: ['body.expires_at'] });
  assert.equal((await me(key.auth)).statusCode, 200, 'the refused rotation left the key working');
});

test('a sandbox key: read scopes only, reads its demo-sandbox organisation, refused on non-sandbox key operations', async () => {
  const k = await issueKey(svc, ORG, { environment: 'sandbox' });
  assert.match(k.secret, /_sandbox_/);
  const who = json(await me(k.auth));
  assert.match(who.organisation.id, /^demo-sandbox-[0-9a-f]{16}$/);
  assert.equal(who.environment, 'sandbox');
  // The organisation is fixed on the key row: no header changes it.
  const spoof = await svc.request({ method: 'GET', url: '/api/devtools/partner/v1/me', headers: { ...k.auth, 'x-tenant-id': OTHER } });
  assertRefused(spoof, 403, { code: 'tenant_mismatch', detail: 'Tenant mismatch' });
});

test('a key is refused by management operations (401), a bearer token by partner operations (401)', async () => {
  const k = await issueKey(svc, ORG);
  const res = await svc.request({ method: 'GET', url: '/api/devtools/apikeys', headers: k.auth });
  assert.equal(res.statusCode, 401);
  assert.equal(json(res).error.code, 'api_key_not_accepted');
  const b = await svc.request({ method: 'GET', url: '/api/devtools/partner/v1/me', headers: await bearer(svc, ORG) });
  assertRefused(b, 401, { code: 'api_key_required', detail: 'This operation requires an API key' });
  const bad = await me({ authorization: `Bearer ${k.secret.slice(0, -1)}${k.secret.endsWith('A') ? 'B' : 'A'}` });
  assert.equal(bad.statusCode, 401);
  assert.equal(json(bad).detail, 'Invalid or expired API key');
});

test('revoke: 200, the key is refused at once; idempotent; other organisation 404; VIEWER 403', async () => {
  const k = await issueKey(svc, ORG);
  const other = await svc.request({ method: 'POST', url: `/api/devtools/apikeys/${k.id}/revoke`, headers: await bearer(svc, OTHER) });
  assert.equal(other.statusCode, 404);
  assert.equal(json(other).detail, 'Not Found');
  const viewer = await svc.request({ method: 'POST', url: `/api/devtools/apikeys/${k.id}/revoke`, headers: await bearer(svc, ORG, ['VIEWER']) });
  assertRefused(viewer, 403, { code: 'insufficient_permissions', detail: 'Insufficient permissions' });
  assert.equal((await me(k.auth)).statusCode, 200);
  const res = await svc.request({ method: 'POST', url: `/api/devtools/apikeys/${k.id}/revoke`, headers: await bearer(svc, ORG) });
  assert.equal(res.statusCode, 200);
  assert.equal(json(res).status, 'revoked');
  assertRefused(await me(k.auth), 401, { code: 'invalid_api_key', detail: 'Invalid or expired API key' });
  const again = await svc.request({ method: 'POST', url: `/api/devtools/apikeys/${k.id}/revoke`, headers: await bearer(svc, ORG) });
  assert.equal(again.statusCode, 200);
  assert.equal(json(again).revoked_at, json(res).revoked_at);
  assertRefused(await svc.request({ method: 'POST', url: '/api/devtools/apikeys/nope/revoke', headers: await bearer(svc, ORG) }), 404, {
    code: 'not_found',
    detail: 'Not Found',
  });
});

test('rotate: the new secret works, the old one stops at once; 409 for a rotated key; other org 404', async () => {
  const k = await issueKey(svc, ORG);
  assertRefused(await svc.request({ method: 'POST', url: `/api/devtools/apikeys/${k.id}/rotate`, headers: await bearer(svc, OTHER) }), 404, {
    code: 'not_found',
    detail: 'Not Found',
  });
  const res = await svc.request({ method: 'POST', url: `/api/devtools/apikeys/${k.id}/rotate`, headers: await bearer(svc, ORG) });
  assert.equal(res.statusCode, 200);
  const body = json(res);
  assert.notEqual(body.id, k.id);
  assert.equal(body.predecessor.id, k.id);
  assert.equal(body.predecessor.status, 'rotated');
  assert.equal(body.predecessor.replaced_by, body.id);
  assert.deepEqual(body.scopes, READ);
  assert.equal((await me({ authorization: `Bearer ${body.secret}` })).statusCode, 200);
  assertRefused(await me(k.auth), 401, { code: 'invalid_api_key', detail: 'Invalid or expired API key' });
  const again = await svc.request({ method: 'POST', url: `/api/devtools/apikeys/${k.id}/rotate`, headers: await bearer(svc, ORG) });
  assert.equal(again.statusCode, 409);
  assert.equal(json(again).code, 'api_key_not_active');
  const bad = await svc.request({
    method: 'POST',
    url: `/api/devtools/apikeys/${body.id}/rotate`,
    headers: await bearer(svc, ORG),
    payload: { overlap_seconds: -1 },
  });
  assertRefused(bad, 422, { code: 'validation_error', fields: ['body.overlap_seconds'] });
});

test('rotate with a bounded overlap: both keys work until overlap_until, then only the new one', async () => {
  const k = await issueKey(svc, ORG);
  const res = await svc.request({
    method: 'POST',
    url: `/api/devtools/apikeys/${k.id}/rotate`,
    headers: await bearer(svc, ORG),
    payload: { overlap_seconds: 3600 },
  });
  assert.equal(res.statusCode, 200);
  const body = json(res);
  assert.equal(body.predecessor.status, 'rotating');
  assert.equal(new Date(body.predecessor.overlap_until).getTime(), svc.clock.now().getTime() + 3600_000);
  assert.equal((await me(k.auth)).statusCode, 200);
  assert.equal((await me({ authorization: `Bearer ${body.secret}` })).statusCode, 200);
  clockOf(svc).advance(3600_000);
  assertRefused(await me(k.auth), 401, { code: 'invalid_api_key', detail: 'Invalid or expired API key' });
  assert.equal((await me({ authorization: `Bearer ${body.secret}` })).statusCode, 200);
});

test('revoking a successor ends the overlap of the keys it replaced, through a chain of rotations', async () => {
  const first = await issueKey(svc, ORG);
  const rotate = async (id: string) =>
    json(await svc.request({ method: 'POST', url: `/api/devtools/apikeys/${id}/rotate`, headers: await bearer(svc, ORG), payload: { overlap_seconds: 3600 } }));
  const second = await rotate(first.id);
  const third = await rotate(second.id);
  for (const auth of [first.auth, { authorization: `Bearer ${second.secret}` }, { authorization: `Bearer ${third.secret}` }]) {
    assert.equal((await me(auth)).statusCode, 200);
  }
  const revoked = await svc.request({ method: 'POST', url: `/api/devtools/apikeys/${third.id}/revoke`, headers: await bearer(svc, ORG) });
  assert.equal(revoked.statusCode, 200);
  assert.equal(json(revoked).status, 'revoked');
  for (const auth of [first.auth, { authorization: `Bearer ${second.secret}` }, { authorization: `Bearer ${third.secret}` }]) {
    const res = await me(auth);
    assert.equal(res.statusCode, 401);
    assert.equal(json(res).error.code, 'invalid_api_key');
  }
  const list = json(await svc.request({ method: 'GET', url: '/api/devtools/apikeys', headers: await bearer(svc, ORG) })).api_keys as any[];
  const statusOf = (id: string) => list.find((k) => k.id === id);
  assert.equal(statusOf(first.id).status, 'rotated');
  assert.equal(statusOf(second.id).status, 'rotated');
  assert.equal(new Date(statusOf(second.id).overlap_until).getTime(), svc.clock.now().getTime());
  assert.equal(statusOf(third.id).status, 'revoked');
});

test('expiry: a key is refused once the clock passes expires_at', async () => {
  const k = await issueKey(svc, ORG, { expires_at: new Date(svc.clock.now().getTime() + 60_000).toISOString() });
  assert.equal((await me(k.auth)).statusCode, 200);
  clockOf(svc).advance(60_000);
  assertRefused(await me(k.auth), 401, { code: 'invalid_api_key', detail: 'Invalid or expired API key' });
});

test('plan limit: creating beyond organisations.plan_limits.api_keys answers 402 plan_limit_exceeded', async () => {
  const ORG_L = 'keys-limited';
  const a = await issueKey(svc, ORG_L);
  await issueKey(svc, ORG_L);
  const res = await svc.request({ method: 'POST', url: '/api/devtools/apikeys', headers: await bearer(svc, ORG_L), payload: { name: 'x', scopes: READ } });
  assert.equal(res.statusCode, 402);
  const body = json(res);
  assert.deepEqual(body.detail, { error: 'plan_limit_exceeded', metric: 'api_keys', limit: 2, upgrade_url: `${svc.config.publicDocsOrigin}/docs/plans` });
  assert.equal(body.code, 'plan_limit_exceeded');
  // A revoked key no longer counts.
  await svc.request({ method: 'POST', url: `/api/devtools/apikeys/${a.id}/revoke`, headers: await bearer(svc, ORG_L) });
  assert.equal(
    (await svc.request({ method: 'POST', url: '/api/devtools/apikeys', headers: await bearer(svc, ORG_L), payload: { name: 'x', scopes: READ } })).statusCode,
    201,
  );
});

test('partner_api_key_expiring: opens 14 days before expiry, resolves on rotation, revocation and expiry', async () => {
  const ORG_E = 'keys-expiry';
  await svc.createOrg(ORG_E);
  const reader = await issueKey(svc, ORG_E, { scopes: ['alerts:read'], expires_at: new Date(svc.clock.now().getTime() + 300 * DAY).toISOString() });
  const start = svc.clock.now().getTime();
  const at = (d: number) => new Date(start + d * DAY).toISOString();
  const toRotate = await issueKey(svc, ORG_E, { expires_at: at(20) });
  const toRevoke = await issueKey(svc, ORG_E, { expires_at: at(20) });
  const toExpire = await issueKey(svc, ORG_E, { expires_at: at(20) });
  const expiring = async () => (await partnerAlerts(svc, reader.auth)).filter((a) => a.type === 'partner_api_key_expiring');
  await runAt(svc, start + 5 * DAY);
  assert.equal((await expiring()).length, 0, 'not yet within 14 days');
  await runAt(svc, start + 7 * DAY);
  const open = await expiring();
  assert.deepEqual(open.map((a) => a.subject!.id).sort(), [toRotate.id, toRevoke.id, toExpire.id].sort());
  assert.ok(open.every((a) => a.status === 'open'));
  // Running the job again raises nothing new: one open alert per key.
  await runAt(svc, start + 8 * DAY);
  assert.equal((await expiring()).length, 3);
  const rot = await svc.request({
    method: 'POST',
    url: `/api/devtools/apikeys/${toRotate.id}/rotate`,
    headers: await bearer(svc, ORG_E),
    payload: { expires_at: at(200) },
  });
  assert.equal(rot.statusCode, 200);
  await svc.request({ method: 'POST', url: `/api/devtools/apikeys/${toRevoke.id}/revoke`, headers: await bearer(svc, ORG_E) });
  const byKey = async (id: string) => (await expiring()).find((a) => a.subject!.id === id)!;
  assert.equal((await byKey(toRotate.id)).status, 'resolved');
  assert.equal((await byKey(toRotate.id)).resolution, 'rotated');
  assert.equal((await byKey(toRevoke.id)).resolution, 'revoked');
  assert.equal((await byKey(toExpire.id)).status, 'open');
  await runAt(svc, start + 21 * DAY);
  assert.equal((await byKey(toExpire.id)).status, 'resolved');
  assert.equal((await byKey(toExpire.id)).resolution, 'expired');
  // The successor expires far away: no alert for it.
  assert.ok(!(await expiring()).some((a) => a.subject!.id === json(rot).id));
});

test('management limit: 60 requests a minute per organisation, then 429 with Retry-After', async () => {
  const ORG_R = 'keys-rate';
  await svc.createOrg(ORG_R);
  clockOf(svc).set(Math.ceil(svc.clock.now().getTime() / 60_000) * 60_000 + 1000);
  const statuses: number[] = [];
  for (let i = 0; i < 61; i++) {
    // Two users of one organisation share the organisation's limit.
    const res = await svc.request({ method: 'GET', url: '/api/devtools/apikeys', headers: await bearer(svc, ORG_R) });
    statuses.push(res.statusCode);
    if (res.statusCode === 429) {
      assert.ok(Number(res.headers['retry-after']) >= 1);
      assert.equal(json(res).code, 'rate_limited');
    }
  }
  assert.equal(statuses.filter((s) => s === 200).length, 60);
  assert.equal(statuses[60], 429);
  clockOf(svc).advance(60_000);
  assert.equal((await svc.request({ method: 'GET', url: '/api/devtools/apikeys', headers: await bearer(svc, ORG_R) })).statusCode, 200);
});
