// Deprecation machinery on a fixture key operation: headers on every answer, and one open
// partner_api_operation_deprecated alert per organisation holding a key able to call it (T-17).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { bearer, issueKey, partnerAlerts, runAt } from './helpers.ts';
import { deprecatedKeyFixture, DEPRECATION } from './fixtures.ts';

let svc: TestService;
const URL_ = '/api/devtools/partner/v1/fixture/devices-old';
const DAY = 86_400_000;

before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-12-01T10:00:00Z'), extraModules: [deprecatedKeyFixture] });
});
after(() => svc.stop());

const far = () => new Date(svc.clock.now().getTime() + 360 * DAY).toISOString();
const deprecatedAlerts = async (orgId: string) => {
  const reader = await issueKey(svc, orgId, { scopes: ['alerts:read'], expires_at: far() });
  return (await partnerAlerts(svc, reader.auth)).filter((a) => a.type === 'partner_api_operation_deprecated');
};

test('every answer of the deprecated operation, success or error, carries Deprecation, Sunset and Link', async () => {
  await svc.createOrg('dep-headers');
  const key = await issueKey(svc, 'dep-headers', { scopes: ['devices:read'], expires_at: far() });
  const noScope = await issueKey(svc, 'dep-headers', { scopes: ['alerts:read'], expires_at: far() });
  const answers = [
    await svc.request({ method: 'GET', url: URL_, headers: key.auth }),
    await svc.request({ method: 'GET', url: URL_, headers: noScope.auth }),
    await svc.request({ method: 'GET', url: URL_ }),
  ];
  assert.deepEqual(
    answers.map((r) => r.statusCode),
    [200, 403, 401],
  );
  for (const res of answers) {
    assert.equal(res.headers.deprecation, `@${Date.parse(`${DEPRECATION.on}T00:00:00Z`) / 1000}`);
    assert.equal(res.headers.sunset, 'Mon, 31 May 2027 23:59:59 GMT');
    assert.match(String(res.headers.link), /^<.+#deprecation>; rel="deprecation"; type="text\/html"$/);
  }
  const other = await svc.request({ method: 'GET', url: '/api/devtools/partner/v1/me', headers: key.auth });
  assert.equal(other.headers.deprecation, undefined, 'only the deprecated operation');
});

test('one alert per organisation with a capable key; none for keys without the scope or sandbox keys; resolved when no capable key remains', async () => {
  for (const o of ['dep-a', 'dep-b', 'dep-c']) await svc.createOrg(o);
  const a1 = await issueKey(svc, 'dep-a', { scopes: ['devices:read'], expires_at: far() });
  const a2 = await issueKey(svc, 'dep-a', { scopes: ['devices:read', 'telemetry:read'], expires_at: far() });
  await issueKey(svc, 'dep-b', { scopes: ['telemetry:read'], expires_at: far() });
  await issueKey(svc, 'dep-c', { scopes: ['devices:read'], environment: 'sandbox', expires_at: far() });
  let a = await deprecatedAlerts('dep-a');
  assert.equal(a.length, 1);
  assert.equal(a[0].status, 'open');
  assert.equal(a[0].subject!.id, 'fixtureDeprecatedPartnerDevices');
  assert.equal((await deprecatedAlerts('dep-b')).length, 0);
  assert.equal((await deprecatedAlerts('dep-c')).length, 0, 'a sandbox key cannot call a non-sandbox operation');
  // The scheduled job keeps it single.
  await runAt(svc, svc.clock.now().getTime() + 2 * 3_600_000);
  assert.equal((await deprecatedAlerts('dep-a')).length, 1);
  const admin = await bearer(svc, 'dep-a');
  await svc.request({ method: 'POST', url: `/api/devtools/apikeys/${a1.id}/revoke`, headers: admin });
  a = await deprecatedAlerts('dep-a');
  assert.equal(a[0].status, 'open', 'a capable key remains');
  await svc.request({ method: 'POST', url: `/api/devtools/apikeys/${a2.id}/revoke`, headers: admin });
  a = await deprecatedAlerts('dep-a');
  assert.equal(a.length, 1);
  assert.equal(a[0].status, 'resolved');
  assert.equal(a[0].resolution, 'no_capable_key');
});

test('an expiring capable key: resolved by the job once it has expired; and after the sunset for everyone', async () => {
  await svc.createOrg('dep-d');
  await svc.createOrg('dep-e');
  const start = svc.clock.now().getTime();
  await issueKey(svc, 'dep-d', { scopes: ['devices:read'], expires_at: new Date(start + 30 * DAY).toISOString() });
  await issueKey(svc, 'dep-e', { scopes: ['devices:read'], expires_at: far() });
  assert.equal((await deprecatedAlerts('dep-d'))[0].status, 'open');
  await runAt(svc, start + 31 * DAY);
  const d = await deprecatedAlerts('dep-d');
  assert.equal(d[0].status, 'resolved');
  assert.equal((await deprecatedAlerts('dep-e'))[0].status, 'open');
  await runAt(svc, Date.parse('2027-06-01T00:30:00Z'));
  const e = await deprecatedAlerts('dep-e');
  assert.equal(e[0].status, 'resolved');
  assert.equal(e[0].resolution, 'sunset_passed');
});
