// The rollup refresh and ingestion side by side (PostgreSQL; decision 0157): a refresh that has
// taken an asset's pending span holds it until it commits, and ingestion for the same asset goes on
// meanwhile (before, ingestion widened the one pending row per asset and waited on the refresh's lock
// for the whole recompute). The span ingestion adds meanwhile is folded in by the next refresh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, realServers, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { asset, call, counterSeries, json, refresh, tokenFor } from './helpers.ts';
import type { Db } from '../../src/infra/db/index.ts';

const skip = !realServers.database && 'needs PostgreSQL (TEST_DATABASE_URL): the embedded store has one connection';
let svc: TestService;
let admin: string;
const ORG = 'energy-conc';

before(async () => {
  if (skip) return;
  svc = await startTestService({ clock: new ManualClock('2026-11-02T12:00:00Z') });
  await svc.createOrg(ORG);
  admin = await tokenFor(svc, ORG);
  await asset(svc, admin, { asset_id: 'c-meter', site_id: 'depot', asset_class: 'site_meter' });
});
after(() => svc?.stop());

test('ingestion for an asset goes on while a refresh holds its pending span; the next refresh folds the new span in', { skip }, async () => {
  const day = (d: string, kwh: number, start: number) =>
    counterSeries('c-meter', 'import_kwh', Date.parse(`${d}T00:00:00Z`), Date.parse(`${d}T06:00:00Z`), kwh, start);
  const send = (records: object[]) => call(svc, admin, 'POST', '/api/telemetry/ingest', records);
  assert.equal((await send(day('2026-11-01', 1, 100))).statusCode, 200);
  const work = (svc as unknown as { deps: { backgroundDb: Db } }).deps.backgroundDb;
  // A refresh's first step, held open: the pending rows of the asset taken and locked.
  let during: Awaited<ReturnType<typeof send>> | undefined;
  await work.tx(async (q) => {
    const taken = await q.query<{ asset_id: string }>(`delete from energy_pending where org_id = $1 returning asset_id`, [ORG]);
    assert.ok(taken.rows.length >= 1);
    // Ingestion of the same asset while that transaction is open: it must answer (it waited for
    // the commit before, which here would never come).
    during = await Promise.race([
      send(day('2026-11-02', 2, 112)),
      new Promise<never>((_, no) => setTimeout(() => no(new Error('ingestion waited on the refresh')), 10_000)),
    ]);
  });
  assert.equal(during!.statusCode, 200, during!.body);
  assert.equal(json(during!).stored, 12 + 1);
  // The taken span was dropped by the held-open "refresh" above (it recomputed nothing); the span
  // ingestion added meanwhile is still pending and the next refresh folds it in.
  await refresh(svc);
  // 2 November: 12 half hours of 2 kWh on the counter = 24 kWh.
  const league = json(await call(svc, admin, 'GET', '/api/telemetry/portfolio/league?measure=import_kwh&from=2026-11-02&to=2026-11-02'));
  assert.deepEqual(
    league.league.map((r: any) => [r.site_id, r.value]),
    [['depot', 24]],
  );
});
