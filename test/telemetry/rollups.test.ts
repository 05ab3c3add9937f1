// Daily rollups behind the long history ranges (decision 0046): sealing a day changes no answer,
// a record arriving later for a sealed day is folded into its rollup, a store that already holds
// data is sealed from its first day, and every record is counted once.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { client } from './support.ts';

const ORG = 'acme';
const services: TestService[] = [];
after(() => Promise.all(services.map((s) => s.stop())));

async function service(clock: ManualClock) {
  const svc = await startTestService({ clock });
  services.push(svc);
  await svc.createOrg(ORG);
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
  assert.equal(res.statusCode, 200);
  return json(res);
}

async function rollup(svc: TestService, asset: string, day: string): Promise<number | undefined> {
  // Slot 1 is battery/soc (metrics.ts).
  const r = await svc.deps.db.query<{ n1: number }>('select n1 from telemetry_rollup_daily where org_id = $1 and asset_id = $2 and day = $3', [
    ORG,
    asset,
    day,
  ]);
  return r.rows[0]?.n1;
}

test('sealing a day changes no answer; a later record for a sealed day is folded into its rollup', async () => {
  const clock = new ManualClock('2026-10-15T12:00:00Z');
  const svc = await service(clock);
  const api = client(svc, ORG); // its token expires once the clock moves on: a new client after
  const a = 'bat-seal';
  assert.equal(
    (
      await api.ingest([
        { asset_id: a, ts: '2026-10-14T10:00:00Z', soc_pct: 30 }, // a day already sealed at start
        { asset_id: a, ts: '2026-10-15T01:00:00Z', soc_pct: 10 },
        { asset_id: a, ts: '2026-10-15T05:00:00Z', soc_pct: 20 },
      ])
    ).statusCode,
    200,
  );
  const before = await daily(svc, a);
  assert.deepEqual(before.series, [
    { t: '2026-10-14T00:00:00Z', v: 30 },
    { t: '2026-10-15T00:00:00Z', v: 15 },
  ]);
  assert.equal(await rollup(svc, a, '2026-10-14T00:00:00Z'), 1, 'the record for a sealed day went into its rollup');
  assert.equal(await rollup(svc, a, '2026-10-15T00:00:00Z'), undefined, 'today is not sealed');

  clock.set('2026-10-17T03:00:00Z'); // 15 and 16 October have ended (plus the grace period)
  await maintain(svc);
  assert.equal(await rollup(svc, a, '2026-10-15T00:00:00Z'), 2, 'sealed');
  const after_ = await daily(svc, a);
  assert.deepEqual(after_.series, before.series, 'the same answer from the rollups');
  assert.deepEqual(after_.summary, { ...before.summary });

  // Late: another record for the sealed 15th, and one for the unsealed 17th.
  assert.equal(
    (
      await client(svc, ORG).ingest([
        { asset_id: a, ts: '2026-10-15T23:59:59Z', soc_pct: 60 },
        { asset_id: a, ts: '2026-10-17T01:00:00Z', soc_pct: 80 },
      ])
    ).statusCode,
    200,
  );
  assert.equal(await rollup(svc, a, '2026-10-15T00:00:00Z'), 3);
  const late = await daily(svc, a);
  assert.deepEqual(late.series, [
    { t: '2026-10-14T00:00:00Z', v: 30 },
    { t: '2026-10-15T00:00:00Z', v: 30 },
    { t: '2026-10-17T00:00:00Z', v: 80 },
  ]);
  assert.deepEqual(late.summary, { count: 5, min: 10, max: 80, avg: 40, latest: 80 });
  // Running maintenance again seals nothing twice.
  await maintain(svc);
  assert.equal(await rollup(svc, a, '2026-10-15T00:00:00Z'), 3);
  assert.deepEqual((await daily(svc, a)).series, late.series);

  // A late record whose value is only in its raw JSON (battery_soc) is folded in from it too.
  const day15 = async () =>
    (
      await svc.deps.db.query<{ n1: number; s1: number }>('select n1, s1 from telemetry_rollup_daily where org_id = $1 and asset_id = $2 and day = $3', [
        ORG,
        a,
        '2026-10-15T00:00:00Z',
      ])
    ).rows[0];
  const before15 = await day15();
  assert.equal((await client(svc, ORG).ingest([{ asset_id: a, ts: '2026-10-15T22:00:00Z', battery_soc: 90 }])).statusCode, 200);
  const after15 = await day15();
  assert.equal(after15.n1, before15.n1 + 1);
  assert.equal(Number(after15.s1), Number(before15.s1) + 90);
});

test('register metrics from the daily rollups (decision 0323): late records for sealed days, sealing, a reset folded in late and a day sealed before migration 0206 give the energy of each day', async () => {
  const clock = new ManualClock('2026-10-15T12:00:00Z');
  const svc = await service(clock); // the start-up pass sealed up to 15 October: the 13th and 14th are late
  const hp = 'hp-roll';
  const daily = async () => {
    const res = await client(svc, ORG, 'VIEWER').get(`/api/telemetry/assets/heat-pump/${hp}/history?range=daily&metric=kwh`);
    assert.equal(res.statusCode, 200, res.body);
    return json(res);
  };
  const ingest = async (records: { ts: string; energy_kwh: number }[]) => {
    const res = await client(svc, ORG).ingest(records.map((r) => ({ asset_id: hp, ...r })));
    assert.equal(res.statusCode, 200, res.body);
  };
  await ingest([
    { ts: '2026-10-13T23:00:00Z', energy_kwh: 10 },
    { ts: '2026-10-13T23:30:00Z', energy_kwh: 10.5 }, // 13th: 0.5
    { ts: '2026-10-14T00:30:00Z', energy_kwh: 11.5 }, // across midnight: 0.5 to the 13th, 0.5 to the 14th
    { ts: '2026-10-14T01:00:00Z', energy_kwh: 0.25 }, // a reset: 0.25
    { ts: '2026-10-14T02:00:00Z', energy_kwh: 1.25 }, // 1
    { ts: '2026-10-14T23:30:00Z', energy_kwh: 5 }, // 21.5 h later: not joined
    { ts: '2026-10-15T00:30:00Z', energy_kwh: 6 }, // 0.5 to the 14th, 0.5 to the 15th (unsealed)
    { ts: '2026-10-15T01:00:00Z', energy_kwh: 6.5 }, // 0.5
  ]);
  const expected = [
    { t: '2026-10-13T00:00:00Z', v: 1 },
    { t: '2026-10-14T00:00:00Z', v: 2.25 },
    { t: '2026-10-15T00:00:00Z', v: 1 },
  ];
  const parts = async () =>
    (
      await svc.deps.db.query<{ day: Date; cf6: string; cl6: string; ca6: string | null }>(
        'select day, cf6, cl6, ca6 from telemetry_rollup_daily where org_id = $1 and asset_id = $2 order by day',
        [ORG, hp],
      )
    ).rows.map((r) => [new Date(r.day).toISOString().slice(0, 10), Number(r.cf6), Number(r.cl6), r.ca6 === null ? null : Number(r.ca6)]);
  assert.deepEqual(
    await parts(),
    [
      ['2026-10-13', 10, 10.5, 0.5],
      ['2026-10-14', 11.5, 5, 1.25],
    ],
    "late records made their days' register parts",
  );
  const late = await daily();
  assert.deepEqual(late.series, expected);
  assert.deepEqual(late.summary, { count: 3, min: 1, max: 2.25, avg: 4.25 / 3, latest: 1 });

  clock.set('2026-10-17T03:00:00Z');
  await maintain(svc);
  assert.deepEqual((await parts())[2], ['2026-10-15', 6, 6.5, 0.5], 'sealed');
  assert.deepEqual((await daily()).series, expected, 'the same answer from the rollups');

  // A late reading inside a sealed day: a reset between 01:00 and 02:00 (0.05, then 1.2 to 1.25).
  await ingest([{ ts: '2026-10-14T01:30:00Z', energy_kwh: 0.05 }]);
  const reset = [expected[0], { t: '2026-10-14T00:00:00Z', v: 2.5 }, expected[2]];
  assert.deepEqual((await daily()).series, reset);

  // A day sealed before its register parts were kept reads the window from the samples.
  await svc.deps.db.query(
    'update telemetry_rollup_daily set cf6_ts = null, cf6 = null, cl6_ts = null, cl6 = null, ca6 = null where asset_id = $1 and day = $2',
    [hp, '2026-10-14T00:00:00Z'],
  );
  assert.deepEqual((await daily()).series, reset);
});

test("issue 35: a raw history value beyond its bound (soc: 1e308, twice) is refused, so it cannot stop the sealing of every organisation's days; late records still fold in", async () => {
  const clock = new ManualClock('2026-10-15T12:00:00Z');
  const svc = await service(clock);
  await svc.createOrg('poison');
  const res = await client(svc, 'poison').ingest([
    { asset_id: 'p-bat', ts: '2026-10-15T10:00:00Z', soc: 1e308 },
    { asset_id: 'p-bat', ts: '2026-10-15T10:01:00Z', soc: 1e308 },
    { asset_id: 'p-bat', ts: '2026-10-15T10:02:00Z', production_w: 2e11 },
    { asset_id: 'p-bat', ts: '2026-10-15T10:03:00Z', savings_gbp: 5e-324 },
    { asset_id: 'p-bat', ts: '2026-10-15T10:04:00Z', soc: 1e7, production_w: 1e11, savings_gbp: -1e15 },
  ]);
  assert.equal(res.statusCode, 207, res.body);
  assert.deepEqual(
    json(res).results.map((r: { status: string; field?: string; reason?: string }) => (r.reason ? `${r.field}:${r.reason}` : r.status)),
    ['soc:beyond_bound', 'soc:beyond_bound', 'production_w:beyond_bound', 'savings_gbp:beyond_bound', 'stored'],
  );
  assert.match(json(res).results[0].message, /^soc is read as a history value in % and must be 0 or of magnitude from 1e-100 to 1e7, got 1e\+308$/);
  assert.equal((await client(svc, ORG).ingest([{ asset_id: 'bat-ok', ts: '2026-10-15T10:00:00Z', soc_pct: 40 }])).statusCode, 200);
  clock.set('2026-10-17T03:00:00Z');
  await maintain(svc);
  assert.equal(await rollup(svc, 'bat-ok', '2026-10-15T00:00:00Z'), 1, "the other organisation's day is sealed");
  const late = await client(svc, 'poison').ingest([{ asset_id: 'p-bat', ts: '2026-10-15T11:00:00Z', soc: 50 }]);
  assert.equal(late.statusCode, 200, late.body);
});

test('random samples over 40 days: daily, weekly and historical buckets equal the sample means, sealed or not', async () => {
  const clock = new ManualClock('2026-10-15T12:00:00Z');
  const svc = await service(clock);
  const api = client(svc, ORG);
  const a = 'bat-random';
  // A fixed pseudo-random sequence (no Math.random: the test is repeatable).
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const samples: { t: number; v: number }[] = [];
  const start = Date.parse('2026-09-20T00:00:00Z');
  for (let i = 0; i < 400; i++) samples.push({ t: start + Math.floor(rnd() * 30 * 86_400_000), v: Math.round(rnd() * 1000) / 10 });
  // Sent once every sample is at most 24 h ahead of its arrival (a later ts is flagged ts_in_future
  // and not placed in time, decision 0048); the start-up horizon is still 15 October.
  clock.set('2026-10-20T12:00:00Z');
  for (let i = 0; i < samples.length; i += 100) {
    const res = await api.ingest(samples.slice(i, i + 100).map((s) => ({ asset_id: a, ts: new Date(s.t).toISOString(), soc_pct: s.v })));
    assert.equal(res.statusCode, 200);
  }
  const origin = Date.parse('2000-01-03T00:00:00Z');
  const check = async (range: string, bucketDays: number, spanDays: number) => {
    const res = json(await client(svc, ORG, 'VIEWER').get(`/api/telemetry/assets/battery/${a}/history?range=${range}`));
    const now = clock.now().getTime();
    const inWindow = samples.filter((s) => s.t >= now - spanDays * 86_400_000 && s.t <= now);
    const buckets = new Map<number, number[]>();
    for (const s of inWindow) {
      const b = origin + Math.floor((s.t - origin) / (bucketDays * 86_400_000)) * bucketDays * 86_400_000;
      buckets.set(b, [...(buckets.get(b) ?? []), s.v]);
    }
    const expected = [...buckets.entries()].sort((x, y) => x[0] - y[0]);
    assert.equal(res.series.length, expected.length, range);
    res.series.forEach((p: { t: string; v: number }, i: number) => {
      const [t, vs] = expected[i];
      assert.equal(p.t, new Date(t).toISOString().replace('.000Z', 'Z'), range);
      const mean = vs.reduce((x, y) => x + y, 0) / vs.length;
      assert.ok(Math.abs(p.v - mean) < 1e-9, `${range} ${p.t}: ${p.v} vs ${mean}`);
    });
    assert.equal(res.summary.count, inWindow.length, range);
  };
  const all = async () => {
    await check('daily', 1, 30);
    await check('weekly', 7, 84);
    await check('historical', 30, 365);
  };
  await all(); // days before the start-up horizon through the late path, the rest from samples
  clock.set('2026-10-25T06:00:00Z');
  await maintain(svc); // seals 15 to 24 October
  await all();
});

test('a store that already holds data is sealed from its first day on the first pass', async () => {
  const clock = new ManualClock('2026-10-15T12:00:00Z');
  const svc = await service(clock);
  const a = 'bat-upgrade';
  assert.equal(
    (
      await client(svc, ORG).ingest([
        { asset_id: a, ts: '2026-09-20T10:00:00Z', soc_pct: 40 },
        { asset_id: a, ts: '2026-10-10T10:00:00Z', soc_pct: 50 },
        { asset_id: a, ts: '2026-10-10T11:00:00Z', soc_pct: 70 },
      ])
    ).statusCode,
    200,
  );
  const before = await daily(svc, a);
  // As a deployment upgraded from before rollups: nothing sealed yet.
  await svc.deps.db.query('update telemetry_rollup_state set horizon = null');
  await svc.deps.db.query('delete from telemetry_rollup_daily');
  await maintain(svc);
  const h = await svc.deps.db.query<{ horizon: Date }>('select horizon from telemetry_rollup_state');
  assert.equal(new Date(h.rows[0].horizon).toISOString(), '2026-10-15T00:00:00.000Z');
  assert.equal(await rollup(svc, a, '2026-09-20T00:00:00Z'), 1);
  assert.equal(await rollup(svc, a, '2026-10-10T00:00:00Z'), 2);
  assert.deepEqual((await daily(svc, a)).series, before.series);
});
