// A refresh run takes the spans pending when it starts and no more (decision 0512): under steady
// ingestion a run ends, and what arrives while it runs is folded in by the next run. Before, a run
// took new spans for as long as they came, so at 10,000 devices it never ended and kept the store
// busy. Readings arriving during the run are made deterministic here by a trigger on the rollup
// (each time the refresh writes half hours, a pending span is added, as ingestion would, a set number
// of times; this service is the test's own, so only its refreshes write).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { asset, call, counterSeries, ingest, json, refresh, tokenFor } from './helpers.ts';
import type { Db } from '../../src/infra/db/index.ts';
import { createEnergyStore } from '../../src/modules/energy/store.ts';

let svc: TestService;
let admin: string;
const ORG = 'energy-bounded';

before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-11-02T12:00:00Z') });
  await svc.createOrg(ORG);
  admin = await tokenFor(svc, ORG);
  await asset(svc, admin, { asset_id: 'b-meter', site_id: 'yard', asset_class: 'site_meter' });
  await refresh(svc);
});
after(() => svc?.stop());

test('a refresh run ends while spans keep arriving; each span that arrived during a run is folded in by the next', async () => {
  const db = (svc as unknown as { deps: { backgroundDb: Db } }).deps.backgroundDb;
  // Three more spans of the meter, each added while a refresh writes the site's half hours.
  await db.exec(`
    create table bounded_budget (n int not null);
    insert into bounded_budget values (3);
    create function bounded_arrival() returns trigger language plpgsql as $f$
    begin
      if (select n from bounded_budget) > 0 then
        update bounded_budget set n = n - 1;
        insert into energy_pending (org_id, asset_id, from_ts, to_ts) values ('${ORG}', 'b-meter', '2026-11-01T01:00:00Z', '2026-11-01T01:00:00Z');
      end if;
      return null;
    end $f$;
    create trigger bounded_arrival after insert on energy_site_halfhours for each statement execute function bounded_arrival();`);
  try {
    await ingest(svc, admin, counterSeries('b-meter', 'import_kwh', Date.parse('2026-11-01T00:00:00Z'), Date.parse('2026-11-01T03:00:00Z'), 1));
    const ledger = async () => json(await call(svc, admin, 'GET', '/api/telemetry/sites/yard/ledger?date=2026-11-01'));
    const budget = async () => (await db.query<{ n: number }>('select n from bounded_budget')).rows[0]!.n;
    // Each run folds in what was pending when it started and leaves the span that arrived meanwhile.
    for (const left of [2, 1, 0]) {
      await refresh(svc);
      assert.equal(await budget(), left);
      const l = await ledger();
      assert.equal(l.pending_refresh, true, `after the run that left ${left} arrivals`);
      assert.equal(l.totals.import_kwh, '6.000');
    }
    await refresh(svc);
    const l = await ledger();
    assert.equal(l.pending_refresh, false);
    // 1 kWh a half hour from 00:00 to 03:00: six half hours.
    assert.equal(l.totals.import_kwh, '6.000');
  } finally {
    await db.exec('drop trigger bounded_arrival on energy_site_halfhours; drop function bounded_arrival(); drop table bounded_budget;');
  }
});

// The refresh walks the pending rows once, from where its previous transaction stopped (decision
// 0514): every row up to the run's high water is taken exactly once, an asset cut short by the row
// bound is finished by the next call, rows past the high water and the assets a failure set aside
// stay pending.
test('takePending walks the pending rows once: bounded in assets and rows, up to the high water, skipping set-aside assets', async () => {
  const db = (svc as unknown as { deps: { backgroundDb: Db } }).deps.backgroundDb;
  const store = createEnergyStore();
  const O = 'energy-walk';
  const at = (h: number) => `2026-11-01T${String(h).padStart(2, '0')}:00:00Z`;
  const add = async (rows: [string, number][]) => {
    for (const [a, h] of rows)
      await db.query('insert into energy_pending (org_id, asset_id, from_ts, to_ts) values ($1, $2, $3, $4)', [O, a, at(h), at(h + 1)]);
  };
  // Three rows for each of a1..a4, then the run's high water; then two more.
  await add([1, 2, 3].flatMap((h) => ['a1', 'a2', 'a3', 'a4'].map((a): [string, number] => [a, h])));
  const upToSeq = (await store.pendingHighWater(db, O))!;
  await add([
    ['a2', 7],
    ['a9', 8],
  ]);
  const calls: string[][] = [];
  let after: Awaited<ReturnType<typeof store.takePending>>['last'] = null;
  for (let i = 0; i < 10; i++) {
    const { spans, last } = await db.tx((q) => store.takePending(q, { maxAssets: 2, maxRows: 4, upToSeq, after, orgId: O, skipAssets: ['a3'] }));
    if (!last) break;
    calls.push(spans.map((s) => `${s.asset_id} ${s.from_ts.toISOString().slice(11, 13)}-${s.to_ts.toISOString().slice(11, 13)}`));
    after = last;
  }
  // Two assets a call and four rows: a1 whole and a2's first row; a2's other two and a4's first two
  // (a3 is set aside); a4's last.
  assert.deepEqual(calls, [['a1 01-04', 'a2 01-02'], ['a2 02-04', 'a4 01-03'], ['a4 03-04']]);
  const left = await db.query<{ asset_id: string; n: number }>(
    'select asset_id, count(*)::int as n from energy_pending where org_id = $1 group by asset_id order by asset_id',
    [O],
  );
  assert.deepEqual(
    left.rows.map((r) => [r.asset_id, r.n]),
    [
      ['a2', 1],
      ['a3', 3],
      ['a9', 1],
    ],
  );
  await db.query('delete from energy_pending where org_id = $1', [O]);
});
