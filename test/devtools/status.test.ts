// GET /api/devtools/status: state now and observed availability, from recorded checks only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { clockOf, runAt } from './helpers.ts';

const HOUR = 3_600_000;
const status = async (svc: TestService) => {
  const res = await svc.request({ method: 'GET', url: '/api/devtools/status' });
  assert.equal(res.statusCode, 200);
  return json(res) as {
    status: string;
    components: {
      name: string;
      state: string;
      last_checked_at: string | null;
      availability: Record<string, { percent: number | null; checks: number; failed: number }>;
    }[];
  };
};
const byName = (s: Awaited<ReturnType<typeof status>>, n: string) => s.components.find((c) => c.name === n)!;

test('public; unobserved with no checks and no percentage; operational after the scheduled checks; windows count only recorded checks', async () => {
  const svc = await startTestService();
  try {
    let s = await status(svc);
    assert.equal(s.status, 'unobserved');
    assert.deepEqual(
      s.components.map((c) => c.name),
      ['partner_api', 'webhook_delivery', 'database', 'cache', 'bus'],
    );
    for (const c of s.components) {
      assert.equal(c.state, 'unobserved');
      assert.equal(c.last_checked_at, null);
      for (const w of ['last_24h', 'last_7d', 'last_30d']) assert.deepEqual(c.availability[w], { percent: null, checks: 0, failed: 0 });
    }
    const t0 = svc.clock.now().getTime();
    // The job runs every minute: 5 runs.
    for (let m = 0; m < 5; m++) await runAt(svc, t0 + m * 60_000);
    s = await status(svc);
    assert.equal(s.status, 'operational');
    for (const c of s.components) {
      assert.equal(c.state, 'operational', c.name);
      assert.deepEqual(c.availability.last_24h, { percent: 100, checks: 5, failed: 0 });
    }
    // No check for 10 minutes: unobserved now, the windows keep their percentages.
    clockOf(svc).set(t0 + 14 * 60_000);
    s = await status(svc);
    assert.equal(byName(s, 'database').state, 'unobserved');
    assert.equal(byName(s, 'database').availability.last_24h.percent, 100);
    // Two days on: the 24-hour window has no checks (no percentage), the 7-day window still has them.
    await runAt(svc, t0 + 48 * HOUR);
    s = await status(svc);
    assert.deepEqual(byName(s, 'database').availability.last_24h, { percent: 100, checks: 1, failed: 0 });
    assert.equal(byName(s, 'database').availability.last_7d.checks, 6);
    clockOf(svc).set(t0 + 72 * HOUR);
    s = await status(svc);
    assert.equal(byName(s, 'database').availability.last_24h.percent, null);
    assert.equal(byName(s, 'database').availability.last_7d.percent, 100);
  } finally {
    await svc.stop();
  }
});

test('a failing component is degraded and its availability drops', async () => {
  const svc = await startTestService({ env: { REDIS_URL: 'redis://127.0.0.1:6399' } });
  try {
    const t0 = svc.clock.now().getTime();
    for (let m = 0; m < 4; m++) await runAt(svc, t0 + m * 60_000);
    const s = await status(svc);
    assert.equal(s.status, 'degraded');
    assert.equal(byName(s, 'cache').state, 'degraded');
    assert.deepEqual(byName(s, 'cache').availability.last_24h, { percent: 0, checks: 4, failed: 4 });
    assert.equal(byName(s, 'database').state, 'operational');
    assert.equal(byName(s, 'partner_api').state, 'operational', 'reads still work without the shared counter store');
  } finally {
    await svc.stop();
  }
});
