// The hub's API error codes are bare like every module's (decision 0351): the served error reference
// lists them without the former `hub_` prefix.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc?.stop());

test("the error reference lists the hub's codes bare, none with the old hub_ prefix", async () => {
  const page = await svc.request({ method: 'GET', url: '/docs/errors' });
  assert.equal(page.statusCode, 200);
  const anchors = [...page.body.matchAll(/<dt id="([a-z_0-9]+)">/g)].map((m) => m[1]);
  for (const code of [
    'site_not_found',
    'site_exists',
    'charge_point_exists',
    'schedule_not_found',
    'schedule_published',
    'no_published_schedule',
    'no_schedule_at_start',
    'transaction_not_found',
    'no_capacity',
  ]) {
    assert.ok(anchors.includes(code), `${code} is on the page`);
  }
  assert.deepEqual(
    anchors.filter((a) => a.startsWith('hub_')),
    [],
  );
});
