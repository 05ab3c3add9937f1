// Device credentials (issue 40 item 1, decision 0375): issue, list, rotate with overlap, revoke; the
// credential on heartbeat, buffer replay and ingestion for its own site only, refused everywhere
// else; last use recorded; audited. Every operation with its refusals, through HTTP on a real store.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
const ORG = 'devcred-org';
const OTHER = 'devcred-other';
const DAY = 86_400_000;
let admin: string;
let operator: string;
let analyst: string;
let otherAdmin: string;

const clock = () => svc.clock as ManualClock;
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const call = (token: string | null, method: 'GET' | 'POST', url: string, payload?: unknown) =>
  svc.request({ method, url, headers: token ? bearer(token) : {}, ...(payload !== undefined && { payload: payload as object }) });

async function asset(token: string, asset_id: string, site_id: string) {
  const res = await call(token, 'POST', '/api/twin/registry/assets', { asset_id, site_id, asset_class: 'battery', name: asset_id });
  assert.equal(res.statusCode, 201, res.body);
}

async function issue(body: object, token = admin) {
  const res = await call(token, 'POST', '/api/hardware/device-credentials', body);
  assert.equal(res.statusCode, 201, res.body);
  return json(res);
}

const reading = (device: string, extra: object = {}) => ({ device_id: device, ts: clock().now().toISOString(), power_kw: 1.5, ...extra });

before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-11-23T10:00:00.000Z') });
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  admin = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: '3650d' });
  operator = await svc.token({ orgId: ORG, roles: ['OPERATOR'], expiresIn: '3650d' });
  analyst = await svc.token({ orgId: ORG, roles: ['ANALYST'], expiresIn: '3650d' });
  otherAdmin = await svc.token({ orgId: OTHER, roles: ['ORG_ADMIN'], expiresIn: '3650d' });
  await asset(admin, 'home-a.battery', 'home-a');
  await asset(admin, 'home-a.meter', 'home-a');
  await asset(admin, 'home-b.battery', 'home-b');
  await asset(otherAdmin, 'x.battery', 'other-site');
});
after(() => svc.stop());

test('issue: 201, the secret once as <prefix>dev_<id>_<secret>, stored hashed; list shows no secret; audited', async () => {
  const body = await issue({ name: 'gateway home-a', site_id: 'home-a', scopes: ['telemetry:write', 'gateway:heartbeat'] }, operator);
  const prefix = `${svc.config.apiKeyPrefix}dev`;
  assert.match(body.secret, new RegExp(`^${prefix}_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$`));
  assert.equal(body.secret.split('_')[1], body.id);
  assert.equal(body.site_id, 'home-a');
  assert.equal(body.device_ids, null);
  assert.deepEqual(body.scopes, ['gateway:heartbeat', 'telemetry:write']);
  assert.equal(body.status, 'active');
  assert.equal(new Date(body.expires_at).getTime() - new Date(body.created_at).getTime(), 365 * DAY);
  assert.equal(body.last_used_at, null);
  const secretPart = body.secret.slice(prefix.length + 18);
  assert.ok(body.credential_hint.endsWith(secretPart.slice(-4)) && !body.credential_hint.includes(secretPart));

  const stored = await svc.deps.db.query<{ secret_hash: Uint8Array }>('select secret_hash from device_credentials where id = $1', [body.id]);
  assert.equal(Buffer.from(stored.rows[0].secret_hash).length, 32);
  assert.ok(!Buffer.from(stored.rows[0].secret_hash).toString('utf8').includes(secretPart));

  const listed = await call(admin, 'GET', '/api/hardware/device-credentials?site_id=home-a');
  assert.equal(listed.statusCode, 200);
  const row = json(listed).device_credentials.find((c: { id: string }) => c.id === body.id);
  assert.ok(row);
  assert.equal(row.secret, undefined);
  assert.ok(!listed.body.includes(secretPart));

  const audit = await svc.deps.db.query<{ action: string; actor_type: string; details: { site_id: string } }>(
    'select action, actor_type, details from audit_log where org_id = $1 and target_id = $2',
    [ORG, body.id],
  );
  assert.deepEqual(
    audit.rows.map((r) => [r.action, r.actor_type, r.details.site_id]),
    [['device_credential.issue', 'user', 'home-a']],
  );
  assert.ok(!JSON.stringify(audit.rows).includes(secretPart));
});

test('issue refusals: ANALYST 403, no token 401, bad input 422, unknown site 422, a device of another site 422', async () => {
  const good = { name: 'gw', site_id: 'home-a', scopes: ['gateway:heartbeat'] };
  assertRefused(await call(analyst, 'POST', '/api/hardware/device-credentials', good), 403, 'Insufficient permissions');
  assertRefused(await call(null, 'POST', '/api/hardware/device-credentials', good), 401, 'Authorization header missing');
  assertRefused(await call(admin, 'POST', '/api/hardware/device-credentials', { ...good, scopes: ['admin'] }), 422, { fields: ['body.scopes.0'] });
  assertRefused(await call(admin, 'POST', '/api/hardware/device-credentials', { ...good, scopes: [] }), 422, { fields: ['body.scopes'] });
  assertRefused(await call(admin, 'POST', '/api/hardware/device-credentials', { ...good, name: '' }), 422, { fields: ['body.name'] });
  assertRefused(await call(admin, 'POST', '/api/hardware/device-credentials', { ...good, extra: 1 }), 422, { fields: ['body.extra'] });
  assertRefused(await call(admin, 'POST', '/api/hardware/device-credentials', { ...good, expires_at: '2026-11-01T00:00:00Z' }), 422, {
    fields: ['body.expires_at'],
  });
  assertRefused(await call(admin, 'POST', '/api/hardware/device-credentials', { ...good, site_id: 'nowhere' }), 422, { fields: ['body.site_id'] });
  // Another organisation's site is no site of this one.
  assertRefused(await call(admin, 'POST', '/api/hardware/device-credentials', { ...good, site_id: 'other-site' }), 422, { fields: ['body.site_id'] });
  assertRefused(await call(admin, 'POST', '/api/hardware/device-credentials', { ...good, device_ids: ['home-a.battery', 'home-b.battery'] }), 422, {
    fields: ['body.device_ids.1'],
  });
});

test('heartbeat: accepted for its site with gateway:heartbeat; another site 403; without the scope 403; last use recorded', async () => {
  const cred = await issue({ name: 'gw', site_id: 'home-a', scopes: ['gateway:heartbeat'] });
  const ok = await call(cred.secret, 'POST', '/api/hardware/ems/comms/home-a/heartbeat', { firmware: '1.2.3' });
  assert.equal(ok.statusCode, 200, ok.body);
  assert.equal(json(ok).site_id, 'home-a');
  const listed = json(await call(admin, 'GET', '/api/hardware/device-credentials?site_id=home-a')).device_credentials;
  assert.equal(listed.find((c: { id: string }) => c.id === cred.id).last_used_at, clock().now().toISOString());

  assertRefused(await call(cred.secret, 'POST', '/api/hardware/ems/comms/home-b/heartbeat', {}), 403, 'This device credential is bound to another site');
  assertRefused(await call(cred.secret, 'POST', '/api/hardware/ems/buffer/home-a/replay', { records: [] }), 403, 'Missing scope: buffer:replay');
  assertRefused(await call(cred.secret, 'POST', '/api/telemetry/ingest', [reading('home-a.battery')]), 403, 'Missing scope: telemetry:write');
});

test('refused everywhere else: reads, other gateway operations, administration (401 device_credential_not_accepted)', async () => {
  const cred = await issue({ name: 'all', site_id: 'home-a', scopes: ['telemetry:write', 'gateway:heartbeat', 'buffer:replay'] });
  const elsewhere: ['GET' | 'POST', string, unknown?][] = [
    ['GET', '/api/hardware/ems/comms/home-a/status'],
    ['POST', '/api/hardware/ems/comms/home-a/check', {}],
    ['GET', '/api/hardware/ems/buffer/home-a/status'],
    ['GET', '/api/telemetry/live/events?limit=10'],
    ['GET', '/api/hardware/battery'],
    ['GET', '/api/hardware/device-credentials'],
    ['POST', '/api/hardware/device-credentials', { name: 'x', site_id: 'home-a', scopes: ['gateway:heartbeat'] }],
    ['GET', '/api/devtools/apikeys'],
  ];
  for (const [method, url, payload] of elsewhere) {
    assertRefused(await call(cred.secret, method, url, payload), 401, {
      detail: 'Device credentials are not accepted by this operation',
      ...(url.startsWith('/api/devtools/') && { code: 'device_credential_not_accepted' }),
    });
  }
});

test('ingestion: its site stored; a device registered at another site rejected per record; other organisation cross-tenant; device list limits', async () => {
  const cred = await issue({ name: 'ingest', site_id: 'home-a', scopes: ['telemetry:write'] });
  const ok = await call(cred.secret, 'POST', '/api/telemetry/ingest', [reading('home-a.battery'), reading('new-unregistered-device')]);
  assert.equal(ok.statusCode, 200, ok.body);
  assert.equal(json(ok).stored, 2);

  const mixed = await call(cred.secret, 'POST', '/api/telemetry/ingest', [
    reading('home-a.meter'),
    { asset_id: 'home-b.battery', ts: clock().now().toISOString(), soc_pct: 50 },
  ]);
  assert.equal(mixed.statusCode, 207, mixed.body);
  const m = json(mixed);
  assert.equal(m.stored, 1);
  assert.equal(m.rejected, 1);
  assert.deepEqual(
    { ...m.results[1], message: undefined, errors: undefined },
    { index: 1, status: 'rejected', field: 'asset_id', reason: 'device_on_another_site', message: undefined, errors: undefined },
  );
  assert.match(m.results[1].message, /home-b\.battery is registered to another site, not home-a/);

  const all = await call(cred.secret, 'POST', '/api/telemetry/ingest', [reading('home-b.battery')]);
  assert.equal(all.statusCode, 422, all.body);
  assert.equal(json(all).results[0].reason, 'device_on_another_site');
  // Nothing of home-b was written by it.
  const stored = await svc.deps.db.query<{ n: number }>("select count(*)::int as n from telemetry where org_id = $1 and asset_id = 'home-b.battery'", [ORG]);
  assert.equal(stored.rows[0].n, 0);

  // A record naming another organisation refuses the whole batch, as for people.
  assertRefused(await call(cred.secret, 'POST', '/api/telemetry/ingest', [{ ...reading('home-a.battery'), tenant_id: OTHER }]), 403, 'cross_tenant_record');
  // X-Tenant-ID naming another organisation.
  const tenant = await svc.request({
    method: 'POST',
    url: '/api/telemetry/ingest',
    headers: { ...bearer(cred.secret), 'x-tenant-id': OTHER },
    payload: [reading('home-a.battery')],
  });
  assertRefused(tenant, 403, 'Tenant mismatch');

  const limited = await issue({ name: 'one device', site_id: 'home-a', device_ids: ['home-a.battery'], scopes: ['telemetry:write', 'buffer:replay'] });
  const res = await call(limited.secret, 'POST', '/api/telemetry/ingest', [reading('home-a.battery'), reading('home-a.meter')]);
  assert.equal(res.statusCode, 207, res.body);
  assert.equal(json(res).results[1].reason, 'device_not_in_credential');
  assert.equal(json(res).results[1].field, 'device_id');
});

test('buffer replay: its site with buffer:replay; another site 403; devices of another site and outside its list refused per record', async () => {
  const cred = await issue({ name: 'replay', site_id: 'home-a', device_ids: ['home-a.battery', 'home-b.battery'].slice(0, 1), scopes: ['buffer:replay'] });
  const ts = clock().now().toISOString();
  const res = await call(cred.secret, 'POST', '/api/hardware/ems/buffer/home-a/replay', {
    records: [
      { device_id: 'home-a.battery', sequence: 1, ts, power_kw: 1 },
      { device_id: 'home-a.meter', sequence: 1, ts, power_kw: 1 },
      { device_id: 'home-b.battery', sequence: 1, ts, power_kw: 1 },
    ],
  });
  assert.equal(res.statusCode, 207, res.body);
  const r = json(res).results;
  assert.equal(r[0].status, 'stored');
  assert.equal(r[1].reason, 'device_not_in_credential');
  assert.equal(r[2].reason, 'device_on_another_site');
  assertRefused(
    await call(cred.secret, 'POST', '/api/hardware/ems/buffer/home-b/replay', { records: [] }),
    403,
    'This device credential is bound to another site',
  );
});

test('rotate: successor works, the predecessor works during the overlap and stops after it; without overlap at once; refusals', async () => {
  const cred = await issue({ name: 'rot', site_id: 'home-a', scopes: ['gateway:heartbeat'] });
  const hb = (secret: string) => call(secret, 'POST', '/api/hardware/ems/comms/home-a/heartbeat', {});
  const rotated = await call(admin, 'POST', `/api/hardware/device-credentials/${cred.id}/rotate`, { overlap_seconds: 600 });
  assert.equal(rotated.statusCode, 200, rotated.body);
  const next = json(rotated);
  assert.notEqual(next.id, cred.id);
  assert.equal(next.site_id, 'home-a');
  assert.equal(next.predecessor.status, 'rotating');
  assert.equal(next.predecessor.replaced_by, next.id);
  assert.equal((await hb(next.secret)).statusCode, 200);
  assert.equal((await hb(cred.secret)).statusCode, 200);
  clock().advance(601_000);
  assertRefused(await hb(cred.secret), 401, 'Invalid, revoked or expired device credential');
  assert.equal((await hb(next.secret)).statusCode, 200);

  // Only an active credential rotates; the predecessor is rotated now.
  assertRefused(
    await call(admin, 'POST', `/api/hardware/device-credentials/${cred.id}/rotate`, {}),
    409,
    'Device credential is rotated; only an active credential can be rotated',
  );
  assertRefused(await call(analyst, 'POST', `/api/hardware/device-credentials/${next.id}/rotate`, {}), 403, 'Insufficient permissions');
  assertRefused(await call(otherAdmin, 'POST', `/api/hardware/device-credentials/${next.id}/rotate`, {}), 404, 'Not Found');
  assertRefused(await call(admin, 'POST', `/api/hardware/device-credentials/${next.id}/rotate`, { overlap_seconds: 604_801 }), 422, {
    fields: ['body.overlap_seconds'],
  });
  assertRefused(await call(admin, 'POST', '/api/hardware/device-credentials/not-an-id/rotate', {}), 422, { fields: ['path.credential_id'] });

  const again = json(await call(operator, 'POST', `/api/hardware/device-credentials/${next.id}/rotate`));
  assert.equal(again.predecessor.status, 'rotated');
  assertRefused(await hb(next.secret), 401, 'Invalid, revoked or expired device credential');
  assert.equal((await hb(again.secret)).statusCode, 200);
});

test('revoke: refused from the next request; the overlapping predecessor stops too; idempotent; audited; refusals', async () => {
  const cred = await issue({ name: 'rev', site_id: 'home-a', scopes: ['gateway:heartbeat'] });
  const hb = (secret: string) => call(secret, 'POST', '/api/hardware/ems/comms/home-a/heartbeat', {});
  const next = json(await call(admin, 'POST', `/api/hardware/device-credentials/${cred.id}/rotate`, { overlap_seconds: 3600 }));
  assert.equal((await hb(cred.secret)).statusCode, 200);
  assertRefused(await call(analyst, 'POST', `/api/hardware/device-credentials/${next.id}/revoke`), 403, 'Insufficient permissions');
  assertRefused(await call(otherAdmin, 'POST', `/api/hardware/device-credentials/${next.id}/revoke`), 404, 'Not Found');
  assertRefused(await call(admin, 'POST', '/api/hardware/device-credentials/0123456789abcdef/revoke'), 404, 'Not Found');
  const res = await call(operator, 'POST', `/api/hardware/device-credentials/${next.id}/revoke`);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(json(res).status, 'revoked');
  assertRefused(await hb(next.secret), 401, 'Invalid, revoked or expired device credential');
  assertRefused(await hb(cred.secret), 401, 'Invalid, revoked or expired device credential');
  const again = await call(admin, 'POST', `/api/hardware/device-credentials/${next.id}/revoke`);
  assert.equal(again.statusCode, 200);
  assert.equal(json(again).revoked_at, json(res).revoked_at);
  const audit = await svc.deps.db.query<{ action: string; details: unknown }>(
    "select action, details from audit_log where org_id = $1 and target_id = $2 and action = 'device_credential.revoke'",
    [ORG, next.id],
  );
  assert.equal(audit.rows.length, 1, 'revoking twice records once');
  assert.deepEqual(audit.rows[0].details, { ended_overlap: [cred.id] });
});

test('expired, tampered and unknown credentials are 401; a bad secret costs the same path', async () => {
  const cred = await issue({
    name: 'exp',
    site_id: 'home-a',
    scopes: ['gateway:heartbeat'],
    expires_at: new Date(clock().now().getTime() + DAY).toISOString(),
  });
  const hb = (secret: string) => call(secret, 'POST', '/api/hardware/ems/comms/home-a/heartbeat', {});
  assert.equal((await hb(cred.secret)).statusCode, 200);
  const last = cred.secret.at(-1) === 'A' ? 'B' : 'A';
  assertRefused(await hb(cred.secret.slice(0, -1) + last), 401, 'Invalid, revoked or expired device credential');
  assertRefused(await hb(`${svc.config.apiKeyPrefix}dev_0123456789abcdef_${'a'.repeat(43)}`), 401, 'Invalid, revoked or expired device credential');
  assertRefused(await hb(`${svc.config.apiKeyPrefix}dev_short`), 401, 'Invalid, revoked or expired device credential');
  clock().advance(DAY + 1000);
  assertRefused(await hb(cred.secret), 401, 'Invalid, revoked or expired device credential');
  const listed = json(await call(admin, 'GET', '/api/hardware/device-credentials')).device_credentials;
  assert.equal(listed.find((c: { id: string }) => c.id === cred.id).status, 'expired');
});

test('list: its own organisation only; ANALYST 403; bad site_id 422', async () => {
  const mine = await issue({ name: 'listed', site_id: 'home-b', scopes: ['gateway:heartbeat'] });
  const other = json(await call(otherAdmin, 'GET', '/api/hardware/device-credentials')).device_credentials;
  assert.ok(!other.some((c: { id: string }) => c.id === mine.id));
  const b = json(await call(admin, 'GET', '/api/hardware/device-credentials?site_id=home-b')).device_credentials;
  assert.ok(b.every((c: { site_id: string }) => c.site_id === 'home-b'));
  assert.ok(b.some((c: { id: string }) => c.id === mine.id));
  assertRefused(await call(analyst, 'GET', '/api/hardware/device-credentials'), 403, 'Insufficient permissions');
  assertRefused(await call(admin, 'GET', '/api/hardware/device-credentials?site_id=' + 'x'.repeat(201)), 422, { fields: ['query.site_id'] });
});

test('OpenAPI: the device credential scheme beside bearerAuth on the three gateway operations only', async () => {
  const doc = json(await svc.request({ method: 'GET', url: '/openapi.json' }));
  assert.match(doc.components.securitySchemes.deviceCredential.description, /decision 0375/);
  const using: string[] = [];
  for (const [path, methods] of Object.entries<Record<string, { security: object[] }>>(doc.paths)) {
    for (const [method, op] of Object.entries(methods))
      if (JSON.stringify(op.security).includes('deviceCredential')) using.push(`${method.toUpperCase()} ${path}`);
  }
  assert.deepEqual(using.sort(), [
    'POST /api/hardware/ems/buffer/{site_id}/replay',
    'POST /api/hardware/ems/comms/{site_id}/heartbeat',
    'POST /api/telemetry/ingest',
  ]);
  assert.ok(doc.paths['/api/hardware/device-credentials'].post);
});
