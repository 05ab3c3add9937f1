// The export limitation loop with two instances sharing one store: each 30 s tick runs exactly once
// per site whichever instance claims it, even when both drain their queues at the same moment.
// PostgreSQL only: PGlite runs one transaction at a time, so there it passes whatever the code does.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, realServers, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { ok, tokenFor } from './helpers.ts';

const skip = !realServers.database && 'needs PostgreSQL: two instances racing for a tick (PGlite serialises every transaction)';
let a: TestService;
let b: TestService;
const ORG = 'demo-control-two';

before(async () => {
  if (skip) return;
  a = await startTestService({ clock: new ManualClock('2026-06-21T11:00:00.000Z') });
  b = await startTestService({ shareWith: a });
  await a.createOrg(ORG);
});
after(async () => {
  if (skip) return;
  await b.stop();
  await a.stop();
});

test('two instances: one iteration per site and tick', { skip }, async () => {
  const admin = await tokenFor(a, ORG);
  for (const site of ['s1', 's2']) {
    await ok(a, admin, 'POST', `/api/hardware/ems/control/demo/sites/${site}/scenario`, { load_kw: 0.5, pv_available_kw: 6, battery_soc_pct: 30 });
    await ok(a, admin, 'PUT', `/api/hardware/ems/control/sites/${site}/config`, { export_limitation: { enabled: true, limit_kw: 2 } });
  }
  const ticks = 5;
  for (let i = 0; i < ticks; i++) {
    (a.clock as ManualClock).advance(30_000);
    if (b.clock !== a.clock) (b.clock as ManualClock).set(a.clock.now());
    await Promise.all([a.runDue(), b.runDue()]);
  }
  for (const site of ['s1', 's2']) {
    const events = (await ok(b, admin, 'GET', `/api/hardware/ems/export-limit/${site}/events?limit=100`)).events.filter((e: any) => e.trigger === 'schedule');
    assert.equal(events.length, ticks, `${site}: ${events.map((e: any) => e.tick_at).join(', ')}`);
    assert.equal(new Set(events.map((e: any) => e.tick_at)).size, ticks);
    const bal = await ok(b, admin, 'GET', `/api/hardware/ems/control/sites/${site}/balance`);
    assert.ok(bal.export_kw <= 2.05, `${site} held under its limit: ${bal.export_kw}`);
  }
});
