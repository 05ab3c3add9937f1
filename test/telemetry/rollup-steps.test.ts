// Sealing of daily rollups as background work (decision 0018): it runs on the background store (its
// own connections and statement timeout; requests keep 4.4 s), in steps of whole hours of about
// 50,000 samples, so a day of 1,000 assets is sealed where one statement for the day was cancelled.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, realServers, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createPartitionStore } from '../../src/modules/telemetry/store.ts';
import { client } from './support.ts';

const ORG = 'acme';
const PG_ONLY = realServers.database
  ? false
  : 'PostgreSQL only: PGlite has no statement timeout and one connection for everything, and 288,000 rows take minutes in WASM';
const services: TestService[] = [];
after(() => Promise.all(services.map((s) => s.stop())));

async function service(clock: ManualClock) {
  const svc = await startTestService({ clock });
  services.push(svc);
  await svc.createOrg(ORG);
  await maintain(svc); // the start-up pass, finished: the horizon is at today
  return svc;
}

/** Runs the module's maintenance pass and waits for it, sealing included. */
async function maintain(svc: TestService) {
  const m = svc.modules.find((x) => x.name === 'telemetry')!;
  await m.stop!();
  await m.start!({ operations: svc.operations });
  await m.stop!();
}

async function daily(svc: TestService, asset: string) {
  const res = await client(svc, ORG, 'VIEWER').get(`/api/telemetry/assets/battery/${asset}/history?range=daily&metric=soc`);
  assert.equal(res.statusCode, 200, res.body);
  return json(res);
}

async function horizon(svc: TestService): Promise<string> {
  const r = await svc.deps.db.query<{ horizon: Date }>('select horizon from telemetry_rollup_state');
  return new Date(r.rows[0].horizon).toISOString();
}

test('a day of 1,000 assets of 5-minute data (288,000 rows) is sealed by one maintenance pass', { skip: PG_ONLY }, async () => {
  const clock = new ManualClock('2026-10-14T12:00:00Z');
  const svc = await service(clock);
  assert.equal(await horizon(svc), '2026-10-14T00:00:00.000Z');
  // The day's samples as a fleet sends them (loaded with SQL, as the history bench uses COPY, in
  // statements of 100 assets): asset i, step s (0..287) has soc_pct = s % 100 and energy in raw.
  for (let first = 0; first < 1000; first += 100) {
    await svc.deps.db.query(
      `insert into telemetry (org_id, asset_id, ts, received_at, power_kw, soc_pct, voltage, status, raw)
       select $1, 'bat-' || lpad(a::text, 4, '0'), '2026-10-14T00:00:00Z'::timestamptz + s * interval '5 minutes',
              '2026-10-14T12:00:00Z', (a % 7) + s / 100.0, (s % 100)::float8, 230, 'ok',
              jsonb_build_object('energy_kwh', s * 0.1, 'site_ref', 'site-' || (a / 50))
       from generate_series($2::int, $2::int + 99) a, generate_series(0, 287) s`,
      [ORG, first],
    );
  }
  const mean = Array.from({ length: 288 }, (_, s) => s % 100).reduce((x, y) => x + y, 0) / 288;
  clock.set('2026-10-15T03:00:00Z'); // 14 October has ended, plus the grace period
  const before = await daily(svc, 'bat-0999');
  assert.deepEqual(
    before.series.map((p: { t: string }) => p.t),
    ['2026-10-14T00:00:00Z'],
  );
  assert.ok(Math.abs(before.series[0].v - mean) < 1e-9, `${before.series[0].v} vs ${mean}`);

  await maintain(svc);
  assert.equal(await horizon(svc), '2026-10-15T00:00:00.000Z', 'the whole day is sealed');
  const r = await svc.deps.db.query<{ assets: number; n: number }>(
    `select count(*)::int as assets, sum(n1)::int as n from telemetry_rollup_daily where org_id = $1 and day = '2026-10-14T00:00:00Z'`,
    [ORG],
  );
  assert.deepEqual(r.rows[0], { assets: 1000, n: 288_000 }, 'every asset, every sample');
  for (const asset of ['bat-0000', 'bat-0500', 'bat-0999']) {
    const res = await daily(svc, asset);
    assert.deepEqual(
      res.series.map((p: { t: string }) => p.t),
      ['2026-10-14T00:00:00Z'],
      asset,
    );
    assert.ok(Math.abs(res.series[0].v - mean) < 1e-9, `${asset}: ${res.series[0].v} vs ${mean}`);
    assert.deepEqual(res.summary, { ...res.summary, count: 288, min: 0, max: 99 });
  }
  assert.deepEqual(await daily(svc, 'bat-0999'), before, 'the same answer from the rollups');
});

test('requests keep the 4.4 s statement timeout; background work has its own pool and timeout', { skip: PG_ONLY }, async () => {
  const svc = await service(new ManualClock('2026-10-14T12:00:00Z'));
  const show = async (q: TestService['deps']['db'], what: string) =>
    (await q.query<Record<string, string>>(`select current_setting('${what}') as v`)).rows[0].v;
  assert.equal(await show(svc.deps.db, 'statement_timeout'), '4400ms');
  assert.equal(await show(svc.deps.backgroundDb, 'statement_timeout'), '1min');
  assert.equal(await show(svc.deps.backgroundDb, 'application_name'), `${svc.config.namespace}-background`);
  assert.notEqual(svc.deps.backgroundDb, svc.deps.db);
});

test('a day sealed in steps of hours: a late record for a sealed hour is folded in once, reads stay exact mid-way', async () => {
  const clock = new ManualClock('2026-10-14T12:00:00Z');
  const svc = await service(clock);
  const a = 'bat-steps';
  const ingest = async (records: { ts: string; soc_pct: number }[]) => {
    const res = await client(svc, ORG).ingest(records.map((r) => ({ asset_id: a, ...r })));
    assert.equal(res.statusCode, 200, res.body);
  };
  await ingest([
    { ts: '2026-10-14T00:30:00Z', soc_pct: 10 },
    { ts: '2026-10-14T02:30:00Z', soc_pct: 20 },
    { ts: '2026-10-14T10:00:00Z', soc_pct: 30 },
  ]);
  // A heat pump's register (decision 0323) across the steps: 02:30 → 03:30 joins the first step's
  // last reading to the next step's first; 01:00 arrives late inside the sealed hours.
  const hp = 'hp-steps';
  const register = async (records: { ts: string; energy_kwh: number }[]) => {
    const res = await client(svc, ORG).ingest(records.map((r) => ({ asset_id: hp, ...r })));
    assert.equal(res.statusCode, 200, res.body);
  };
  const energy = async () => {
    const res = await client(svc, ORG, 'VIEWER').get(`/api/telemetry/assets/heat-pump/${hp}/history?range=daily&metric=kwh`);
    assert.equal(res.statusCode, 200, res.body);
    return json(res).series;
  };
  await register([
    { ts: '2026-10-14T00:30:00Z', energy_kwh: 1.1 },
    { ts: '2026-10-14T02:30:00Z', energy_kwh: 2.2 },
    { ts: '2026-10-14T03:30:00Z', energy_kwh: 3.3 },
    { ts: '2026-10-14T04:30:00Z', energy_kwh: 0.4 }, // a reset
  ]);
  clock.set('2026-10-15T03:00:00Z');
  // Three of the day's 24 hours, as a pass interrupted (stopped instance) would leave it.
  assert.equal(await createPartitionStore(svc.deps.backgroundDb).sealDays(new Date('2026-10-15T01:00:00Z'), { maxHours: 3 }), 3);
  assert.equal(await horizon(svc), '2026-10-14T03:00:00.000Z');
  // Late records: 01:00 is in a sealed hour (folded into the rollup by the insert), 05:00 is not.
  await ingest([
    { ts: '2026-10-14T01:00:00Z', soc_pct: 40 },
    { ts: '2026-10-14T05:00:00Z', soc_pct: 50 },
  ]);
  await register([{ ts: '2026-10-14T01:00:00Z', energy_kwh: 0.1 }]); // a reset inside the sealed hours
  // 1.1 → 0.1 (reset: 0.1) → 2.2 (2.1) → 3.3 (1.1) → 0.4 (reset: 0.4): 3.7 kWh.
  assert.deepEqual(await energy(), [{ t: '2026-10-14T00:00:00Z', v: 3.7 }], 'a day part-sealed is read from its samples');
  const mid = await daily(svc, a);
  assert.deepEqual(mid.series, [{ t: '2026-10-14T00:00:00Z', v: 30 }], 'a day part-sealed is read from its samples');
  assert.equal(mid.summary.count, 5);
  await maintain(svc);
  assert.equal(await horizon(svc), '2026-10-15T00:00:00.000Z');
  const n = await svc.deps.db.query<{ n1: number }>('select n1 from telemetry_rollup_daily where org_id = $1 and asset_id = $2', [ORG, a]);
  assert.deepEqual(n.rows, [{ n1: 5 }], 'each record counted once');
  assert.deepEqual(await energy(), [{ t: '2026-10-14T00:00:00Z', v: 3.7 }], 'the same from the rollup sealed in steps');
  const parts = await svc.deps.db.query<{ cf6: string; cl6: string; ca6: string }>(
    'select cf6, cl6, ca6 from telemetry_rollup_daily where org_id = $1 and asset_id = $2',
    [ORG, hp],
  );
  assert.deepEqual(
    parts.rows.map((r) => [Number(r.cf6), Number(r.cl6), Number(r.ca6)]),
    [[1.1, 0.4, 3.7]],
  );
  const sealed = await daily(svc, a);
  assert.deepEqual(sealed.series, mid.series);
  assert.deepEqual(sealed.summary, mid.summary);
});
