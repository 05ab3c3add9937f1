// Property: half-hour energy integrated in SQL from random power series matches an independent
// integration written here (a one-second midpoint sum of the linear interpolation, split by sign,
// silences beyond the gap limit left out); counter advances with random resets add up to the
// independently counted advance. Runs against the real store through the telemetry energy reads.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { TELEMETRY_ENERGY } from '../../src/modules/telemetry/index.ts';
import { ingest, tokenFor, iso } from './helpers.ts';

let svc: TestService;
let token: string;
const GAP_S = 900;
const T0 = Date.parse('2026-10-20T09:00:00Z');
const HH_MS = 1_800_000;
let seq = 0;

before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-11-01T00:00:00Z') });
  await svc.createOrg('org-prop');
  token = await tokenFor(svc, 'org-prop');
});
after(() => svc?.stop());

/** Independent: per half hour, [positive kWh, negative kWh] by one-second midpoint sums. */
function reference(samples: { t: number; p: number }[]) {
  const out = new Map<number, [number, number]>();
  for (let i = 0; i + 1 < samples.length; i++) {
    const a = samples[i];
    const b = samples[i + 1];
    const span = (b.t - a.t) / 1000;
    if (span <= 0 || span > GAP_S) continue;
    for (let s = 0; s < span; s++) {
      const mid = s + 0.5;
      const p = a.p + ((b.p - a.p) * mid) / span;
      const slot = Math.floor((a.t + s * 1000) / HH_MS) * HH_MS;
      const cur = out.get(slot) ?? [0, 0];
      if (p > 0) cur[0] += p / 3600;
      else cur[1] += -p / 3600;
      out.set(slot, cur);
    }
  }
  return out;
}

const series = fc
  .array(fc.record({ stepS: fc.integer({ min: 10, max: 1500 }), p: fc.double({ min: -20, max: 20, noNaN: true, noDefaultInfinity: true }) }), {
    minLength: 2,
    maxLength: 30,
  })
  .map((xs) => {
    let t = T0;
    return xs.map((x) => {
      t += x.stepS * 1000;
      return { t, p: Math.round(x.p * 1000) / 1000 };
    });
  });

test('power integrated in SQL matches the independent integration in every half hour (trapezoid split at boundaries and zero crossings; gaps left out)', async () => {
  const reads = svc.deps.services.get(TELEMETRY_ENERGY).reads(svc.deps.db);
  await fc.assert(
    fc.asyncProperty(series, async (samples) => {
      const id = `prop-${++seq}`;
      await ingest(
        svc,
        token,
        samples.map((s) => ({ device_id: id, ts: iso(s.t), power_kw: s.p })),
      );
      const from = new Date(T0 - HH_MS);
      const to = new Date(samples[samples.length - 1].t + 2 * HH_MS);
      const rows = await reads.powerHalfHours('org-prop', [id], from, to, GAP_S);
      const ref = reference(samples);
      const slots = new Set([...ref.keys(), ...rows.filter((r) => r.covered_s > 0).map((r) => r.slot.getTime())]);
      for (const slot of slots) {
        const got = rows.find((r) => r.slot.getTime() === slot);
        const [pos, neg] = ref.get(slot) ?? [0, 0];
        // The midpoint sum is exact for linear pieces except in a second holding a zero crossing
        // (at most 20 kW for 1 s, 0.0056 kWh, in the worst case; in practice far less): 0.2 Wh.
        const TOL = 2e-4;
        assert.ok(Math.abs((got?.pos_kwh ?? 0) - pos) < TOL, `slot ${iso(slot)} positive ${got?.pos_kwh} vs ${pos}`);
        assert.ok(Math.abs((got?.neg_kwh ?? 0) - neg) < TOL, `slot ${iso(slot)} negative ${got?.neg_kwh} vs ${neg}`);
      }
    }),
    { numRuns: 40 },
  );
});

test('counter advances with random resets add up to the independently counted advance', async () => {
  const reads = svc.deps.services.get(TELEMETRY_ENERGY).reads(svc.deps.db);
  const readingsArb = fc.array(fc.record({ stepS: fc.integer({ min: 60, max: 3600 }), adv: fc.integer({ min: 0, max: 5000 }), reset: fc.boolean() }), {
    minLength: 2,
    maxLength: 25,
  });
  await fc.assert(
    fc.asyncProperty(readingsArb, fc.integer({ min: 0, max: 100_000 }), async (steps, start) => {
      const id = `ctr-${++seq}`;
      let t = T0;
      let v = start / 1000;
      const recs = [{ device_id: id, ts: iso(t), import_kwh: v }];
      let expected = 0;
      for (const s of steps) {
        t += s.stepS * 1000;
        const adv = s.adv / 1000;
        // A reset restarts the register from zero; the advance since then is the new reading.
        if (s.reset && adv < v) v = adv;
        else v = Math.round((v + adv) * 1000) / 1000;
        expected += adv;
        recs.push({ device_id: id, ts: iso(t), import_kwh: v });
      }
      await ingest(svc, token, recs);
      const rows = await reads.counterHalfHours('org-prop', [id], new Date(T0 - HH_MS), new Date(t + 2 * HH_MS), 7200, ['import_kwh']);
      const total = rows.reduce((a, r) => a + r.kwh, 0);
      assert.ok(Math.abs(total - expected) < 1e-6, `total ${total} vs ${expected}`);
    }),
    { numRuns: 40 },
  );
});
