// Telemetry storage: monthly partitions made ahead at start and on every maintenance pass
// (idempotent, safe to run concurrently), rows parked in the default partition moved when their
// month gets a partition, and retention by whole partitions (TELEMETRY_RETENTION_DAYS; 0 keeps).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, realServers, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { client } from './support.ts';

const ORG = 'acme';
const services: TestService[] = [];
after(() => Promise.all(services.map((s) => s.stop())));

async function service(clock: ManualClock, env: Record<string, string> = {}) {
  const svc = await startTestService({ clock, env });
  services.push(svc);
  await svc.createOrg(ORG);
  return svc;
}

async function partitions(svc: TestService): Promise<string[]> {
  const r = await svc.deps.db.query<{ name: string }>(
    `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = to_regclass('telemetry') order by 1`,
  );
  return r.rows.map((x) => x.name);
}

/** Runs the module's maintenance pass again, as its timer does (stop, then start). */
async function maintain(svc: TestService) {
  const m = svc.modules.find((x) => x.name === 'telemetry')!;
  await m.stop!();
  await m.start!({ operations: svc.operations });
  await m.stop!(); // waits for the pass (sealing runs in the background)
}

async function historicalCount(svc: TestService, assetId: string): Promise<number> {
  const res = await client(svc, ORG, 'VIEWER').get(`/api/telemetry/assets/battery/${assetId}/history?range=historical`);
  assert.equal(res.statusCode, 200);
  return json(res).summary.count;
}

test('at start, monthly partitions exist from the previous month to two months ahead', async () => {
  const svc = await service(new ManualClock('2026-10-15T12:00:00Z'));
  assert.deepEqual(await partitions(svc), ['telemetry_202609', 'telemetry_202610', 'telemetry_202611', 'telemetry_202612', 'telemetry_default']);
});

test('maintenance is idempotent: a second run over the same months makes nothing', async () => {
  const svc = await service(new ManualClock('2026-10-15T12:00:00Z'));
  const before = await partitions(svc);
  const ensure = async () =>
    Number(
      (await svc.deps.db.query<{ made: number }>(`select telemetry_ensure_partitions('2026-08-01T00:00:00Z', '2027-01-31T00:00:00Z') as made`)).rows[0].made,
    );
  // The two missing months (2026-08 and 2027-01), then nothing.
  assert.equal(await ensure(), 2);
  assert.equal(await ensure(), 0);
  await maintain(svc);
  await maintain(svc);
  assert.deepEqual(await partitions(svc), [...before.slice(0, -1), 'telemetry_202701', 'telemetry_202608', 'telemetry_default'].sort());
});

test('concurrent maintenance runs on separate connections make each missing month once', {
  skip: !realServers.database && 'needs PostgreSQL: the runs serialise on an advisory lock, and PGlite runs one statement at a time on one connection',
}, async () => {
  const svc = await service(new ManualClock('2026-10-15T12:00:00Z'));
  // Four instances' worth of maintainers: four concurrent calls, each on its own pooled connection.
  const runs = await Promise.all(
    Array.from({ length: 4 }, () =>
      svc.deps.db.query<{ made: number }>(`select telemetry_ensure_partitions('2026-08-01T00:00:00Z', '2027-01-31T00:00:00Z') as made`),
    ),
  );
  // Between them the runs made exactly the two missing months (2026-08 and 2027-01), once each.
  assert.equal(
    runs.reduce((s, r) => s + Number(r.rows[0].made), 0),
    2,
  );
  assert.ok((await partitions(svc)).includes('telemetry_202608'));
});

test('a record beyond the partitioned months waits in the default partition and moves when its month is made', async () => {
  const clock = new ManualClock('2026-10-15T12:00:00Z');
  const svc = await service(clock);
  const api = client(svc, ORG);
  const res = await api.ingest([
    { asset_id: 'bat-far', ts: '2027-03-10T00:00:00Z', soc_pct: 1, mark: 'future' },
    { asset_id: 'bat-far', ts: '2026-10-15T11:00:00Z', soc_pct: 2, mark: 'now' },
  ]);
  assert.equal(res.statusCode, 200);
  assert.deepEqual(
    json(res).anomalies.map((a: { reasons: string[] }) => a.reasons),
    [['ts_in_future']],
  );
  const where = async (mark: string) =>
    (await svc.deps.db.query<{ p: string }>(`select tableoid::regclass::text as p from telemetry where org_id = $1 and raw->>'mark' = $2`, [ORG, mark])).rows[0]
      ?.p;
  assert.equal(await where('future'), 'telemetry_default');
  assert.equal(await where('now'), 'telemetry_202610');

  clock.set('2027-01-20T00:00:00Z');
  await maintain(svc);
  assert.ok((await partitions(svc)).includes('telemetry_202703'));
  assert.equal(await where('future'), 'telemetry_202703', 'moved out of the default partition');
  assert.equal(await where('now'), 'telemetry_202610');
});

test('retention drops whole partitions older than TELEMETRY_RETENTION_DAYS and old rows in the default partition; newer data stays', async () => {
  const clock = new ManualClock('2026-10-15T12:00:00Z');
  const svc = await service(clock, { TELEMETRY_RETENTION_DAYS: '60' });
  const api = client(svc, ORG);
  assert.equal(
    (
      await api.ingest([
        { asset_id: 'bat-ret', ts: '2026-08-20T00:00:00Z', soc_pct: 10 }, // default partition (no 2026-08 partition)
        { asset_id: 'bat-ret', ts: '2026-09-10T00:00:00Z', soc_pct: 20 }, // telemetry_202609
        { asset_id: 'bat-ret', ts: '2026-10-10T00:00:00Z', soc_pct: 30 }, // telemetry_202610
      ])
    ).statusCode,
    200,
  );
  // Ingested after the start-up pass: all three are there until the next pass.
  assert.equal(await historicalCount(svc, 'bat-ret'), 3);

  clock.set('2026-12-20T00:00:00Z'); // cut-off 2026-10-21: 2026-09 ends before it, 2026-10 does not
  await maintain(svc);
  const names = await partitions(svc);
  assert.ok(!names.includes('telemetry_202609'), names.join());
  assert.ok(names.includes('telemetry_202610'), names.join());
  assert.ok(names.includes('telemetry_202701'), 'made ahead for the new date');
  const after_ = await client(svc, ORG, 'VIEWER').get('/api/telemetry/assets/battery/bat-ret/history?range=historical');
  assert.deepEqual(json(after_).summary.count, 1);
  assert.equal(json(after_).summary.latest, 30);
  // The rollups of removed months go with them.
  const rolled = await svc.deps.db.query<{ day: Date }>('select day from telemetry_rollup_daily where org_id = $1 and asset_id = $2 order by day', [
    ORG,
    'bat-ret',
  ]);
  assert.deepEqual(
    rolled.rows.map((r) => new Date(r.day).toISOString()),
    ['2026-10-10T00:00:00.000Z'],
  );
  // The newest record per asset is kept: it says when the asset last reported.
  const latest = await svc.deps.db.query('select 1 from telemetry_latest where org_id = $1 and asset_id = $2', [ORG, 'bat-ret']);
  assert.equal(latest.rows.length, 1);
});

test('retention 0 (the default) keeps every partition', async () => {
  const clock = new ManualClock('2026-10-15T12:00:00Z');
  const svc = await service(clock);
  assert.equal((svc.config.modules.telemetry as { retentionDays: number }).retentionDays, 0);
  assert.equal((await client(svc, ORG).ingest({ asset_id: 'bat-keep', ts: '2026-09-10T00:00:00Z', soc_pct: 20 })).statusCode, 200);
  clock.set('2027-06-20T00:00:00Z');
  await maintain(svc);
  const names = await partitions(svc);
  assert.ok(names.includes('telemetry_202609'));
  const n = await svc.deps.db.query<{ n: number }>(`select count(*)::int as n from telemetry where org_id = $1 and asset_id = 'bat-keep'`, [ORG]);
  assert.equal(n.rows[0].n, 1);
});
