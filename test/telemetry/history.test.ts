// GET /api/telemetry/assets/{asset_type}/{asset_id}/history: ranges, buckets (date_bin means),
// sparse series, summary, the metric table with its source order, and refusals.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { client } from './support.ts';

let svc: TestService;
const ORG = 'acme';
const OTHER = 'globex';
// A Thursday. Windows end here.
const NOW = Date.parse('2026-10-15T12:34:00Z');
let api: ReturnType<typeof client>;

before(async () => {
  svc = await startTestService({ clock: new ManualClock(NOW) });
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  api = client(svc, ORG);
});
after(() => svc.stop());

const iso = (ms: number) => new Date(ms).toISOString();
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

async function ingest(records: object[]) {
  const res = await api.ingest(records);
  assert.ok(res.statusCode === 200, `ingest answered ${res.statusCode}: ${res.body}`);
}

async function history(type: string, id: string, query = '', who = api) {
  const res = await who.get(`/api/telemetry/assets/${type}/${encodeURIComponent(id)}/history${query}`);
  assert.equal(res.statusCode, 200, res.body);
  return json(res);
}

const close = (a: number, b: number) => Math.abs(a - b) < 1e-9;

test('hourly is the default range: 1-hour buckets over 24 h, each the mean of its samples; empty buckets omitted; summary of the samples', async () => {
  const id = 'inv-hourly';
  await ingest([
    { asset_id: id, ts: '2026-10-14T12:00:00Z', power_kw: -100 }, // before the window (starts 12:34 yesterday)
    { asset_id: id, ts: '2026-10-14T13:00:00Z', power_kw: -6 },
    { asset_id: id, ts: '2026-10-15T10:05:00Z', power_kw: -2 },
    { asset_id: id, ts: '2026-10-15T10:35:00Z', power_kw: -4 },
    { asset_id: id, ts: '2026-10-15T10:50:00Z', power_kw: -9 },
    { asset_id: id, ts: '2026-10-15T12:10:00Z', power_kw: -1 },
    { asset_id: id, ts: '2026-10-15T12:40:00Z', power_kw: -50 }, // after now
  ]);
  const h = await history('solar', id);
  assert.equal(h.asset_id, id);
  assert.equal(h.asset_type, 'solar');
  assert.equal(h.metric, 'generation');
  assert.equal(h.range, 'hourly');
  assert.equal(h.unit, 'kW');
  assert.equal(h.bucket, '1 hour');
  assert.equal(h.source, 'timeseries');
  assert.equal(h.from, '2026-10-14T12:34:00.000Z');
  assert.equal(h.to, '2026-10-15T12:34:00.000Z');
  assert.deepEqual(h.series, [
    { t: '2026-10-14T13:00:00Z', v: 6 },
    { t: '2026-10-15T10:00:00Z', v: 5 },
    { t: '2026-10-15T12:00:00Z', v: 1 },
  ]);
  assert.deepEqual(h.summary, { count: 5, min: 1, max: 9, avg: (6 + 2 + 4 + 9 + 1) / 5, latest: 1 });
});

test('live: 5-minute buckets over the last hour', async () => {
  const id = 'inv-live';
  await ingest([
    { asset_id: id, ts: '2026-10-15T11:30:00Z', power_kw: -1 }, // older than an hour
    { asset_id: id, ts: '2026-10-15T11:35:00Z', power_kw: -1 },
    { asset_id: id, ts: '2026-10-15T11:36:00Z', power_kw: -2 },
    { asset_id: id, ts: '2026-10-15T12:31:59Z', power_kw: -4 },
  ]);
  const h = await history('solar', id, '?range=live');
  assert.equal(h.bucket, '5 minutes');
  assert.deepEqual(h.series, [
    { t: '2026-10-15T11:35:00Z', v: 1.5 },
    { t: '2026-10-15T12:30:00Z', v: 4 },
  ]);
  assert.equal(h.summary.count, 3);
  assert.equal(h.summary.latest, 4);
});

test('daily: 1-day buckets from UTC midnight over 30 days', async () => {
  const id = 'bat-daily';
  await ingest([
    { asset_id: id, ts: '2026-09-15T12:00:00Z', soc_pct: 10 }, // before the window
    { asset_id: id, ts: '2026-09-15T13:00:00Z', soc_pct: 20 },
    { asset_id: id, ts: '2026-10-01T00:00:00Z', soc_pct: 40 },
    { asset_id: id, ts: '2026-10-01T23:59:59.999Z', soc_pct: 60 },
    { asset_id: id, ts: '2026-10-02T00:00:00+01:00', soc_pct: 90 }, // 23:00 UTC on the 1st
  ]);
  const h = await history('battery', id, '?range=daily&metric=soc');
  assert.equal(h.unit, '%');
  assert.equal(h.bucket, '1 day');
  assert.deepEqual(h.series, [
    { t: '2026-09-15T00:00:00Z', v: 20 },
    { t: '2026-10-01T00:00:00Z', v: (40 + 60 + 90) / 3 },
  ]);
});

test('weekly: 7-day buckets starting on Mondays over 12 weeks', async () => {
  const id = 'bat-weekly';
  await ingest([
    { asset_id: id, ts: '2026-10-11T23:00:00Z', soc_pct: 30 }, // Sunday
    { asset_id: id, ts: '2026-10-12T00:00:00Z', soc_pct: 50 }, // Monday
    { asset_id: id, ts: '2026-10-15T08:00:00Z', soc_pct: 70 },
    { asset_id: id, ts: iso(NOW - 12 * 7 * DAY - HOUR), soc_pct: 1 }, // before the window
  ]);
  const h = await history('battery', id, '?range=weekly');
  assert.equal(h.bucket, '7 days');
  assert.deepEqual(h.series, [
    { t: '2026-10-05T00:00:00Z', v: 30 },
    { t: '2026-10-12T00:00:00Z', v: 60 },
  ]);
});

test('historical: 30-day buckets over 365 days', async () => {
  const id = 'meter-historical';
  const origin = Date.parse('2000-01-03T00:00:00Z');
  const bucket = (ms: number) => origin + Math.floor((ms - origin) / (30 * DAY)) * 30 * DAY;
  const samples = [
    [NOW - 366 * DAY, 1000], // before the window
    [NOW - 300 * DAY, 2],
    [NOW - 299 * DAY, 4],
    [NOW - 100 * DAY, 8],
    [NOW - 1 * DAY, 16],
  ] as const;
  await ingest(samples.map(([t, v]) => ({ asset_id: id, ts: iso(t), import_kw: v })));
  const h = await history('smart-meter', id, '?range=historical');
  assert.equal(h.metric, 'import');
  assert.equal(h.bucket, '30 days');
  const expected = new Map<number, number[]>();
  for (const [t, v] of samples.slice(1)) expected.set(bucket(t), [...(expected.get(bucket(t)) ?? []), v]);
  assert.deepEqual(
    h.series,
    [...expected.entries()].sort((a, b) => a[0] - b[0]).map(([t, vs]) => ({ t: iso(t).replace('.000Z', 'Z'), v: vs.reduce((s, x) => s + x, 0) / vs.length })),
  );
  assert.equal(h.summary.count, 4);
  assert.equal(h.summary.max, 16);
});

test('default metric and unit of every asset type', async () => {
  const defaults: Record<string, [string, string]> = {
    solar: ['generation', 'kW'],
    battery: ['soc', '%'],
    ev: ['soc', '%'],
    'heat-pump': ['kwh', 'kWh'],
    'smart-meter': ['import', 'kW'],
    'cost-savings': ['savings', 'GBP'],
  };
  for (const [type, [metric, unit]] of Object.entries(defaults)) {
    const h = await history(type, 'nothing-stored');
    assert.deepEqual([h.metric, h.unit, h.series, h.summary.count], [metric, unit, [], 0], type);
  }
});

test('every metric of the table reads its source fields in order; _w is divided by 1000', async () => {
  const t = (m: number) => iso(NOW - 50 * MIN + m * MIN);
  // Each asset gets records that exercise one metric's sources, one record per source, in a
  // separate 5-minute bucket: the live range then shows which source each record contributed.
  const cases: { type: string; metric: string; unit: string; records: object[]; values: number[] }[] = [
    {
      type: 'solar',
      metric: 'generation',
      unit: 'kW',
      records: [
        { power_kw: -3, solar_generation_kw: 99 },
        { solar_generation_kw: 2, generation_kw: 99 },
        { generation_kw: 2.5 },
        { production_kw: 1.5, production_w: 99 },
        { production_w: 3200 },
      ],
      values: [3, 2, 2.5, 1.5, 3.2],
    },
    {
      type: 'battery',
      metric: 'soc',
      unit: '%',
      records: [{ soc_pct: 50, battery_soc: 99 }, { battery_soc: 60, soc: 99 }, { soc: 70 }, { soc: '80' }],
      values: [50, 60, 70],
    },
    {
      type: 'battery',
      metric: 'charge',
      unit: 'kW',
      records: [{ charge_kw: 1, power_kw: 99 }, { charging_kw: 2 }, { battery_charge_kw: 3 }, { power_kw: 4 }, { power_kw: -4 }],
      values: [1, 2, 3, 4, 0],
    },
    {
      type: 'battery',
      metric: 'discharge',
      unit: 'kW',
      records: [{ discharge_kw: 1, power_kw: -99 }, { discharging_kw: 2 }, { battery_discharge_kw: 3 }, { power_kw: -4 }, { power_kw: 5 }],
      values: [1, 2, 3, 4, 0],
    },
    {
      type: 'ev',
      metric: 'soc',
      unit: '%',
      records: [{ soc_pct: 10, vehicle_soc: 99 }, { vehicle_soc: 20 }, { battery_level: 30 }, { usable_soc_pct: 40 }],
      values: [10, 20, 30, 40],
    },
    // The register metrics (ev sessions, heat-pump kwh): their own test below.
    {
      type: 'heat-pump',
      metric: 'flow-temp',
      unit: 'degC',
      records: [{ flow_temp_c: 45, temp_c: 99 }, { flow_temperature_c: 46 }, { temp_c: 47 }],
      values: [45, 46, 47],
    },
    {
      type: 'heat-pump',
      metric: 'return-temp',
      unit: 'degC',
      records: [{ return_temp_c: 35 }, { return_temperature_c: 36 }, { temp_c: 99 }],
      values: [35, 36],
    },
    {
      type: 'smart-meter',
      metric: 'import',
      unit: 'kW',
      records: [{ import_kw: 1, power_kw: 99 }, { grid_import_kw: 2 }, { power_kw: 3 }, { power_kw: -3 }],
      values: [1, 2, 3, 0],
    },
    {
      type: 'smart-meter',
      metric: 'export',
      unit: 'kW',
      records: [{ export_kw: 1, power_kw: -99 }, { grid_export_kw: 2 }, { power_kw: -3 }, { power_kw: 3 }],
      values: [1, 2, 3, 0],
    },
    {
      type: 'cost-savings',
      metric: 'savings',
      unit: 'GBP',
      records: [{ savings_gbp: 1.25, estimated_savings: 99 }, { cost_savings_gbp: 2.5 }, { estimated_savings: 3.75 }],
      values: [1.25, 2.5, 3.75],
    },
  ];
  for (const c of cases) {
    const id = `m-${c.type}-${c.metric}`;
    await ingest(c.records.map((r, i) => ({ asset_id: id, ts: t(i * 5), ...r })));
    const h = await history(c.type, id, `?range=live&metric=${c.metric}`);
    assert.equal(h.metric, c.metric);
    assert.equal(h.unit, c.unit, `${c.type}/${c.metric} unit`);
    const got = h.series.map((p: { v: number }) => p.v);
    assert.equal(got.length, c.values.length, `${c.type}/${c.metric}: ${JSON.stringify(got)}`);
    got.forEach((v: number, i: number) => assert.ok(close(v, c.values[i]), `${c.type}/${c.metric}[${i}]: ${v} != ${c.values[i]}`));
  }
});

test('register metrics (heat-pump kwh, ev sessions): each bucket is the energy the register advanced in it, as exact decimals; a reset counts from zero; readings over 2 h apart are not joined; the summary is over the buckets', async () => {
  const hp = 'hp-register';
  await ingest([
    // Before the window (it starts 12:34 yesterday): the interval into it counts from 12:34 (half of 0.5).
    { asset_id: hp, ts: '2026-10-14T12:24:00Z', energy_kwh: 50 },
    { asset_id: hp, ts: '2026-10-14T12:44:00Z', energy_kwh: 50.5 },
    // Over 2 h later: not joined (the energy model's counter gap).
    { asset_id: hp, ts: '2026-10-15T08:00:00Z', energy_kwh: 100.1, heat_kwh: 7 },
    { asset_id: hp, ts: '2026-10-15T08:30:00Z', energy_kwh: 100.6 }, // 0.5 (not 0.49999999999999)
    { asset_id: hp, ts: '2026-10-15T09:15:00Z', energy_kwh: 101.35 }, // 0.75: 0.5 before 09:00, 0.25 after
    { asset_id: hp, ts: '2026-10-15T09:45:00Z', energy_kwh: 0.4 }, // a reset: 0.4 from zero
    { asset_id: hp, ts: '2026-10-15T12:00:00Z', energy_kwh: 5 }, // 2 h 15 min later: not joined
    { asset_id: hp, ts: '2026-10-15T12:30:00Z', energy_kwh: 5.2 },
    { asset_id: hp, ts: '2026-10-15T12:40:00Z', energy_kwh: 9 }, // after now
  ]);
  const h = await history('heat-pump', hp, '?metric=kwh');
  assert.equal(h.unit, 'kWh');
  assert.deepEqual(h.series, [
    { t: '2026-10-14T12:00:00Z', v: 0.25 },
    { t: '2026-10-15T08:00:00Z', v: 1 },
    { t: '2026-10-15T09:00:00Z', v: 0.65 },
    { t: '2026-10-15T12:00:00Z', v: 0.2 },
  ]);
  assert.deepEqual(h.summary, { count: 4, min: 0.2, max: 1, avg: 0.525, latest: 0.2 });

  // A register that resets below zero counts nothing (no negative energy); heat_kwh and
  // consumption_kwh are read in their order when energy_kwh is absent.
  const hp2 = 'hp-register-2';
  await ingest([
    { asset_id: hp2, ts: '2026-10-15T10:00:00Z', heat_kwh: 20, consumption_kwh: 900 },
    { asset_id: hp2, ts: '2026-10-15T10:30:00Z', heat_kwh: 21.5, consumption_kwh: 950 },
    { asset_id: hp2, ts: '2026-10-15T11:00:00Z', heat_kwh: -3 },
    { asset_id: hp2, ts: '2026-10-15T11:30:00Z', heat_kwh: -1 },
  ]);
  assert.deepEqual((await history('heat-pump', hp2, '?metric=kwh')).series, [
    { t: '2026-10-15T10:00:00Z', v: 1.5 },
    { t: '2026-10-15T11:00:00Z', v: 2 },
  ]);

  // A session counter (session_kwh before energy_kwh) restarts with each session: its advance is
  // the energy; sessions 2.5 h apart are not joined.
  const ev = 'ev-register';
  await ingest([
    { asset_id: ev, ts: '2026-10-15T08:00:00Z', session_kwh: 5, energy_kwh: 99 },
    { asset_id: ev, ts: '2026-10-15T08:30:00Z', session_kwh: 6.5, energy_kwh: 199 },
    { asset_id: ev, ts: '2026-10-15T11:00:00Z', charge_energy_added_kwh: 0 },
    { asset_id: ev, ts: '2026-10-15T11:30:00Z', charge_energy_added_kwh: 2 },
  ]);
  const s = await history('ev', ev, '?metric=sessions');
  assert.deepEqual(s.series, [
    { t: '2026-10-15T08:00:00Z', v: 1.5 },
    { t: '2026-10-15T11:00:00Z', v: 2 },
  ]);
  assert.deepEqual(s.summary, { count: 2, min: 1.5, max: 2, avg: 1.75, latest: 2 });
  // Live (the last hour): 5-minute buckets, the interval 12:00-12:30 spread over them in proportion to time.
  const live = await history('heat-pump', hp, '?metric=kwh&range=live');
  assert.deepEqual(
    live.series.map((p: { t: string }) => p.t.slice(11, 16)),
    ['12:00', '12:05', '12:10', '12:15', '12:20', '12:25'],
  );
  assert.ok(
    live.series.every((p: { v: number }) => close(p.v, 0.2 / 6)),
    JSON.stringify(live.series),
  );
  // One reading joins nothing: no bucket.
  await ingest([{ asset_id: 'ev-one', ts: '2026-10-15T12:00:00Z', energy_kwh: 10 }]);
  const one = await history('ev', 'ev-one', '?metric=sessions');
  assert.deepEqual([one.series, one.summary], [[], { count: 0, min: null, max: null, avg: null, latest: null }]);
});

test('unknown asset type, metric or range: 422 with the field located', async () => {
  const bad = async (url: string, loc: string[]) => {
    const res = await api.get(url);
    assert.equal(res.statusCode, 422, url);
    const d = json(res).detail;
    assert.ok(Array.isArray(d), url);
    assert.deepEqual(d[0].loc, loc, url);
    assert.equal(d[0].type, 'enum', url);
  };
  await bad('/api/telemetry/assets/windmill/x/history', ['path', 'asset_type']);
  await bad('/api/telemetry/assets/solar/x/history?metric=soc', ['query', 'metric']);
  await bad('/api/telemetry/assets/battery/x/history?metric=generation', ['query', 'metric']);
  await bad('/api/telemetry/assets/solar/x/history?range=monthly', ['query', 'range']);
});

test('roles and organisations: VIEWER may read; no token is 401; another organisation sees no series', async () => {
  const id = 'shared-name';
  await ingest([{ asset_id: id, ts: '2026-10-15T12:00:00Z', soc_pct: 42 }]);
  const viewer = await history('battery', id, '', client(svc, ORG, 'VIEWER'));
  assert.equal(viewer.summary.latest, 42);
  const other = await history('battery', id, '', client(svc, OTHER, 'ORG_ADMIN'));
  assert.deepEqual(other.series, []);
  assert.equal(other.summary.count, 0);
  const anon = await svc.request({ method: 'GET', url: `/api/telemetry/assets/battery/${id}/history` });
  assert.equal(anon.statusCode, 401);
  assert.equal(json(anon).detail, 'Authorization header missing');
});
