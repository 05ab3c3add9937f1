// The batch insert's second wall (issue 38): the organisation of every stored row is the
// authenticated one ($1 of the insert), never a key of the record, and row-level security
// (decision 0009) refuses a batch written in one organisation's scope for another, on both stores:
// nothing of it is written, and the scope sees none of the other organisation's rows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { runInOrgScope } from '../../src/infra/db/scope.ts';
import { createTelemetryStore } from '../../src/modules/telemetry/store.ts';
import { normaliseRecord, type CanonicalRow } from '../../src/modules/telemetry/normalise.ts';
import { client, at } from './support.ts';

let svc: TestService;
const A = 'org-a';
const B = 'org-b';

before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-10-15T12:00:00Z') });
  await svc.createOrg(A);
  await svc.createOrg(B);
});
after(() => svc.stop());

function rows(assetId: string, n: number): CanonicalRow[] {
  return Array.from({ length: n }, (_, i) => {
    const r = normaliseRecord({ asset_id: assetId, ts: at(svc, -10 + i), power_kw: i }, svc.clock.now().getTime());
    if (!r.ok) throw new Error('record rejected');
    return r.row;
  });
}

const count = async (orgId: string, assetId: string) =>
  (await svc.deps.db.query<{ n: number }>('select count(*)::int as n from telemetry where org_id = $1 and asset_id = $2', [orgId, assetId])).rows[0].n;

test("a batch written in B's scope for A is refused by row-level security; nothing of it is stored", async () => {
  const db = svc.deps.db;
  await assert.rejects(
    runInOrgScope(B, () => db.tx((q) => createTelemetryStore(q).insertBatch(A, svc.clock.now(), rows('wall-1', 3)))),
    /row-level security/,
  );
  assert.equal(await count(A, 'wall-1'), 0);
  assert.equal(await count(B, 'wall-1'), 0);
  const latest = await db.query('select 1 from telemetry_latest where asset_id = $1', ['wall-1']);
  assert.equal(latest.rowCount, 0);
  // The same batch in its own organisation's scope is stored.
  await runInOrgScope(A, () => db.tx((q) => createTelemetryStore(q).insertBatch(A, svc.clock.now(), rows('wall-1', 3))));
  assert.equal(await count(A, 'wall-1'), 3);
});

test("in B's scope, the batch insert's statements see none of A's rows", async () => {
  const db = svc.deps.db;
  await runInOrgScope(A, () => db.tx((q) => createTelemetryStore(q).insertBatch(A, svc.clock.now(), rows('wall-2', 2))));
  const seen = await runInOrgScope(B, () =>
    db.tx(async (q) => {
      const t = await q.query<{ n: number }>(`select count(*)::int as n from telemetry where asset_id = 'wall-2'`);
      const l = await q.query<{ n: number }>(`select count(*)::int as n from telemetry_latest where asset_id = 'wall-2'`);
      return t.rows[0].n + l.rows[0].n;
    }),
  );
  assert.equal(seen, 0);
});

test("a record's own org_id key never chooses the row's organisation: B's records stay B's and A sees none", async () => {
  const res = await client(svc, B).ingest([
    { asset_id: 'wall-3', ts: at(svc, -5), power_kw: 1, org_id: B },
    { asset_id: 'wall-3', ts: at(svc, -4), power_kw: 2, tenant_id: B },
  ]);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(json(res).stored, 2);
  assert.equal(await count(B, 'wall-3'), 2);
  assert.equal(await count(A, 'wall-3'), 0);
  const aLatest = await client(svc, A).get('/api/telemetry/live/events?asset_id=wall-3');
  assert.equal(aLatest.statusCode, 200);
  assert.deepEqual(json(aLatest).events, []);
});
