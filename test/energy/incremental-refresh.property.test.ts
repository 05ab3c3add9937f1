// Property (decision 0491): the ledger folded in as readings arrive, in batches out of time order
// with a refresh after each, is the ledger rebuilt from all the readings at once. The refresh
// recomputes only the half hours from the sample before each new span to the sample after it; this
// checks, through HTTP on a real store, that nothing outside that range ever changes: random
// power series (with silences longer than the power gap), counters with resets and silences longer
// than the counter gap, a battery, delivered in shuffled batches.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { asset, call, ingest, iso, json, refresh, tokenFor } from './helpers.ts';

let svc: TestService;
let token: string;
const DAY_START = Date.parse('2026-10-20T00:00:00Z'); // BST: the UK day 2026-10-20 starts 23:00Z the day before
let run = 0;
let withEnergy = 0;

before(async () => {
  // Gaps as configured by default: power 900 s, counters 7200 s.
  svc = await startTestService({ clock: new ManualClock('2026-11-01T00:00:00Z') });
  await svc.createOrg('org-incr');
  token = await tokenFor(svc, 'org-incr');
});
after(() => svc?.stop());

/**
 * Steps of 10 s to 3 h, starting inside the UK day; in half the scenarios on a 5-minute grid (steps
 * up to 7.5 h, capped at 3 h), so that samples fall on half-hour boundaries.
 */
const times = fc
  .record({
    unit: fc.constantFrom(10, 300),
    // Mostly within the power gap (900 s), some beyond it, a few beyond the counter gap (7200 s).
    steps: fc.array(fc.oneof({ arbitrary: fc.integer({ min: 1, max: 90 }), weight: 6 }, { arbitrary: fc.integer({ min: 90, max: 1080 }), weight: 1 }), {
      minLength: 2,
      maxLength: 25,
    }),
    start: fc.integer({ min: 0, max: 12 }),
  })
  .map(({ unit, steps, start }) => {
    let t = DAY_START + start * 1_800_000;
    return steps.map((s) => (t += Math.min(10_800, s * unit) * 1000));
  });

const powerSeries = times.chain((ts) =>
  fc.array(fc.integer({ min: -9000, max: 9000 }), { minLength: ts.length, maxLength: ts.length }).map((ps) => ts.map((t, i) => ({ t, v: ps[i]! / 1000 }))),
);

const counterSeries = times.chain((ts) =>
  fc
    .array(fc.record({ adv: fc.integer({ min: 0, max: 3000 }), reset: fc.integer({ min: 0, max: 19 }) }), { minLength: ts.length, maxLength: ts.length })
    .map((xs) => {
      let v = 1000;
      return ts.map((t, i) => {
        const x = xs[i]!;
        v = x.reset === 0 ? x.adv / 1000 : Math.round((v + x.adv / 1000) * 1000) / 1000;
        return { t, v };
      });
    }),
);

const scenario = fc.record({
  meterImport: counterSeries,
  meterExport: counterSeries,
  pv: powerSeries,
  battery: powerSeries,
  order: fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
  batches: fc.integer({ min: 1, max: 12 }),
});

test('the ledger folded in batch by batch, out of time order, equals the ledger rebuilt from all readings', async () => {
  await fc.assert(
    fc.asyncProperty(scenario, async (s) => {
      const site = `incr-${++run}`;
      const meter = `${site}-meter`;
      await asset(svc, token, { asset_id: meter, site_id: site, asset_class: 'site_meter' });
      await asset(svc, token, { asset_id: `${site}-pv`, site_id: site, asset_class: 'inverter', parent_asset_id: meter });
      await asset(svc, token, { asset_id: `${site}-bat`, site_id: site, asset_class: 'battery', parent_asset_id: meter });
      // The registrations' own rebuilds run now, before any reading (with none, they do nothing), so
      // that only the refresh folds the readings in below.
      await refresh(svc);
      // The meter's two registers are read at different times (separate records of one device).
      const records = [
        ...s.meterImport.map((x) => ({ device_id: meter, ts: iso(x.t), import_kwh: x.v })),
        ...s.meterExport.map((x) => ({ device_id: meter, ts: iso(x.t + 1), export_kwh: x.v })),
        ...s.pv.map((x) => ({ device_id: `${site}-pv`, ts: iso(x.t), power_kw: -Math.abs(x.v) })),
        ...s.battery.map((x) => ({ device_id: `${site}-bat`, ts: iso(x.t), power_kw: x.v })),
      ];
      // Cut into batches of consecutive readings (by time), sent in a drawn order: a batch often
      // lands before readings that are older than it, or between two batches already folded in.
      records.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
      const size = Math.ceil(records.length / s.batches);
      const chunks: (typeof records)[] = [];
      for (let i = 0; i < records.length; i += size) chunks.push(records.slice(i, i + size));
      const order = chunks.map((_, i) => i).sort((a, b) => s.order[a]! - s.order[b]! || a - b);
      for (const i of order) {
        await ingest(svc, token, chunks[i]!);
        await refresh(svc);
      }
      const url = `/api/telemetry/sites/${site}/ledger?date=2026-10-20`;
      const folded = await call(svc, token, 'GET', url);
      assert.equal(folded.statusCode, 200, folded.body);
      const rebuild = await call(svc, token, 'POST', `/api/telemetry/sites/${site}/ledger/rebuild`, {});
      assert.equal(rebuild.statusCode, 202, rebuild.body);
      await svc.runDue();
      const rebuilt = json(await call(svc, token, 'GET', url));
      assert.equal(rebuilt.rebuild.status, 'completed');
      const f = json(folded);
      assert.equal(f.pending_refresh, false);
      assert.deepEqual(f.half_hours, rebuilt.half_hours);
      assert.deepEqual(f.totals, rebuilt.totals);
      if (f.half_hours.some((h: { import_kwh: string; generation_kwh: string }) => Number(h.import_kwh) > 0 || Number(h.generation_kwh) > 0)) withEnergy++;
    }),
    { numRuns: 12, seed: 490, endOnFailure: true },
  );
  // The property is not vacuous: most scenarios put energy in the day's half hours.
  assert.ok(withEnergy >= 6, `only ${withEnergy} of 12 scenarios had energy in the day`);
});

// Decision 0512: a refresh recomputes all the sites it takes in one pass (each site over its own
// range), and falls back to one site at a time only on a failure. Several sites whose readings
// arrive interleaved, batch by batch out of time order, fold in to what each rebuilt alone gives.
test('several sites folded in together, their batches interleaved and out of time order, equal each site rebuilt alone', async () => {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(scenario, { minLength: 2, maxLength: 4 }), fc.array(fc.nat(), { minLength: 48, maxLength: 48 }), async (scenarios, order) => {
      const sites = scenarios.map(() => `multi-${++run}`);
      for (const site of sites) {
        const meter = `${site}-meter`;
        await asset(svc, token, { asset_id: meter, site_id: site, asset_class: 'site_meter' });
        await asset(svc, token, { asset_id: `${site}-pv`, site_id: site, asset_class: 'inverter', parent_asset_id: meter });
        await asset(svc, token, { asset_id: `${site}-bat`, site_id: site, asset_class: 'battery', parent_asset_id: meter });
      }
      await refresh(svc);
      const chunks: Record<string, unknown>[][] = [];
      scenarios.forEach((s, k) => {
        const site = sites[k]!;
        const records = [
          ...s.meterImport.map((x) => ({ device_id: `${site}-meter`, ts: iso(x.t), import_kwh: x.v })),
          ...s.meterExport.map((x) => ({ device_id: `${site}-meter`, ts: iso(x.t + 1), export_kwh: x.v })),
          ...s.pv.map((x) => ({ device_id: `${site}-pv`, ts: iso(x.t), power_kw: -Math.abs(x.v) })),
          ...s.battery.map((x) => ({ device_id: `${site}-bat`, ts: iso(x.t), power_kw: x.v })),
        ].sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
        const size = Math.ceil(records.length / s.batches);
        for (let i = 0; i < records.length; i += size) chunks.push(records.slice(i, i + size));
      });
      // Two sites' chunks go in one request now and then, so one refresh takes several sites' spans.
      const shuffled = chunks.map((_, i) => i).sort((a, b) => order[a % 48]! - order[b % 48]! || a - b);
      for (let i = 0; i < shuffled.length; i += 2) {
        await ingest(svc, token, [...chunks[shuffled[i]!]!, ...(chunks[shuffled[i + 1]!] ?? [])]);
        if (order[i % 48]! % 3 !== 0) await refresh(svc);
      }
      await refresh(svc);
      for (const site of sites) {
        const url = `/api/telemetry/sites/${site}/ledger?date=2026-10-20`;
        const f = json(await call(svc, token, 'GET', url));
        assert.equal(f.pending_refresh, false);
        // The daily and monthly rollups too (self-consumption reads them).
        const daysUrl = `/api/telemetry/sites/${site}/self-consumption?date=2026-10-20`;
        const foldedDays = json(await call(svc, token, 'GET', daysUrl));
        const rebuild = await call(svc, token, 'POST', `/api/telemetry/sites/${site}/ledger/rebuild`, {});
        assert.equal(rebuild.statusCode, 202, rebuild.body);
        await svc.runDue();
        const rebuilt = json(await call(svc, token, 'GET', url));
        assert.equal(rebuilt.rebuild.status, 'completed');
        assert.deepEqual(f.half_hours, rebuilt.half_hours, site);
        assert.deepEqual(f.totals, rebuilt.totals, site);
        assert.deepEqual(foldedDays, json(await call(svc, token, 'GET', daysUrl)), site);
        if (f.half_hours.some((h: { import_kwh: string; generation_kwh: string }) => Number(h.import_kwh) > 0 || Number(h.generation_kwh) > 0)) runs++;
      }
    }),
    { numRuns: 6, seed: 512, endOnFailure: true },
  );
  assert.ok(runs >= 6, `only ${runs} sites had energy in the day`);
});
