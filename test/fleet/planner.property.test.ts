// Property: whatever the depot, vehicles, shifts and time of year (clock changes included), the
// plan never puts more vehicles on chargers than there are, no charger twice in a slot, no vehicle
// above its charger's or its own limit, no slot above the connection less the base load, and no
// vehicle beyond its target.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { plan } from '../../src/modules/fleet/planner.ts';

const hhmm = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45, 7))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);

test('plans never exceed charger or connection limits', () => {
  fc.assert(
    fc.property(
      fc.record({
        connection_kw: fc.integer({ min: 0, max: 150 }),
        base_load_kw: fc.integer({ min: 0, max: 30 }),
        reserve_pct: fc.integer({ min: 0, max: 30 }),
        chargers: fc.uniqueArray(fc.record({ charger_id: fc.constantFrom('a', 'b', 'c', 'd', 'e'), max_kw: fc.integer({ min: 1, max: 50 }) }), {
          maxLength: 5,
          selector: (c) => c.charger_id,
        }),
      }),
      fc.array(
        fc.record({
          battery_kwh: fc.integer({ min: 0, max: 200 }),
          kwh_per_shift: fc.integer({ min: 0, max: 220 }),
          max_charge_kw: fc.integer({ min: 0, max: 60 }),
          depart: hhmm,
          ret: hhmm,
        }),
        { maxLength: 7 },
      ),
      fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }),
      (c, vs, now) => {
        const vehicles = vs.map((v, i) => ({
          vehicle_id: `v${i}`,
          battery_kwh: v.battery_kwh,
          kwh_per_shift: v.kwh_per_shift,
          max_charge_kw: v.max_charge_kw,
          powertrain: 'ev' as const,
        }));
        const shifts = vs.flatMap((v, i) => (v.depart === v.ret ? [] : [{ vehicle_id: `v${i}`, depart: v.depart, return: v.ret }]));
        const p = plan(c, vehicles, shifts, now);
        const limit = Math.max(0, c.connection_kw - c.base_load_kw);
        const perSlot = new Map<string, { kw: number; chargers: string[] }>();
        for (const v of p.vehicles) {
          const veh = vehicles.find((x) => x.vehicle_id === v.vehicle_id)!;
          assert.ok(v.planned_kwh <= Math.max(0, v.target_kwh - v.arrival_kwh) + 0.01, 'charged beyond the target');
          for (const s of v.slots) {
            const ch = c.chargers.find((x) => x.charger_id === s.charger_id)!;
            assert.ok(s.kw <= ch.max_kw + 1e-9 && s.kw <= veh.max_charge_kw + 1e-9, 'above a charger or vehicle limit');
            const e = perSlot.get(s.start) ?? { kw: 0, chargers: [] };
            e.kw += s.kw;
            e.chargers.push(s.charger_id);
            perSlot.set(s.start, e);
          }
        }
        for (const e of perSlot.values()) {
          assert.ok(e.kw <= limit + 0.01, `slot ${e.kw} kW above ${limit}`);
          assert.ok(e.chargers.length <= c.chargers.length);
          assert.equal(new Set(e.chargers).size, e.chargers.length, 'a charger used twice in a slot');
        }
        for (const s of p.slots) assert.ok(s.total_kw <= limit + 0.01 && s.charging <= c.chargers.length);
      },
    ),
    { numRuns: 300 },
  );
});
