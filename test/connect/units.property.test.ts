// Unit normalisation of the home-automation connector, checked by a property test against an
// independent table of conversions written here (not read from the code under test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { normalise, canonicalUnit } from '../../src/modules/connect/units.ts';

// Independent table: for each unit, the measurement it feeds and how many canonical units one of
// it is (an offset for temperature scales). Worked from SI: 1 kW = 1000 W, 1 MW = 1000 kW,
// 1 kWh = 1000 Wh, °C = (°F − 32) × 5/9, °C = K − 273.15, 1 V = 1000 mV, 1 kV = 1000 V, 1 A = 1000 mA.
const TABLE: { unit: string; measurement: 'power_kw' | 'energy_kwh' | 'soc_pct' | 'temp_c' | 'voltage' | 'current'; to: (v: number) => number }[] = [
  { unit: 'W', measurement: 'power_kw', to: (v) => v * 0.001 },
  { unit: 'kW', measurement: 'power_kw', to: (v) => v },
  { unit: 'MW', measurement: 'power_kw', to: (v) => v * 1e3 },
  { unit: 'Wh', measurement: 'energy_kwh', to: (v) => v * 0.001 },
  { unit: 'kWh', measurement: 'energy_kwh', to: (v) => v },
  { unit: 'MWh', measurement: 'energy_kwh', to: (v) => v * 1e3 },
  { unit: '%', measurement: 'soc_pct', to: (v) => v },
  { unit: '°C', measurement: 'temp_c', to: (v) => v },
  { unit: '°F', measurement: 'temp_c', to: (v) => (v - 32) / 1.8 },
  { unit: 'K', measurement: 'temp_c', to: (v) => v - 273.15 },
  { unit: 'V', measurement: 'voltage', to: (v) => v },
  { unit: 'mV', measurement: 'voltage', to: (v) => v * 0.001 },
  { unit: 'kV', measurement: 'voltage', to: (v) => v * 1e3 },
  { unit: 'A', measurement: 'current', to: (v) => v },
  { unit: 'mA', measurement: 'current', to: (v) => v * 0.001 },
];

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
const value = fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true });

test('every accepted unit converts to the canonical unit as the independent table says (numbers and numeric strings)', () => {
  fc.assert(
    fc.property(fc.constantFrom(...TABLE), value, fc.boolean(), (row, v, asString) => {
      const r = normalise(asString ? String(v) : v, row.unit, row.measurement);
      assert.ok(r.ok, `${row.unit} accepted for ${row.measurement}`);
      assert.ok(close(r.value, row.to(v)), `${v} ${row.unit} → ${r.value}, expected ${row.to(v)}`);
    }),
    { numRuns: 2000 },
  );
});

test('power sign: positive_is_export negates (export, generation, discharge negative); positive_is_import keeps it; never for other measurements', () => {
  fc.assert(
    fc.property(fc.constantFrom(...TABLE), value, (row, v) => {
      const imp = normalise(v, row.unit, row.measurement, 'positive_is_import');
      const exp = normalise(v, row.unit, row.measurement, 'positive_is_export');
      assert.ok(imp.ok && exp.ok);
      if (row.measurement === 'power_kw') assert.ok(close(exp.value, -row.to(v)));
      else assert.ok(close(exp.value, row.to(v)));
      assert.ok(close(imp.value, row.to(v)));
    }),
    { numRuns: 1000 },
  );
});

test('a unit of another measurement is refused, never converted', () => {
  fc.assert(
    fc.property(fc.constantFrom(...TABLE), fc.constantFrom(...TABLE), value, (unitRow, target, v) => {
      fc.pre(unitRow.measurement !== target.measurement);
      const r = normalise(v, unitRow.unit, target.measurement);
      assert.equal(r.ok, false);
      assert.equal(!r.ok && r.reason, 'unsupported_unit');
    }),
  );
});

test('hand-worked figures: 2500 W export from solar is -2.5 kW; 1500 Wh is 1.5 kWh; 68 °F is 20 °C; 293.15 K is 20 °C; spellings', () => {
  assert.deepEqual(normalise(2500, 'W', 'power_kw', 'positive_is_export'), { ok: true, value: -2.5 });
  assert.deepEqual(normalise('1500', 'Wh', 'energy_kwh'), { ok: true, value: 1.5 });
  assert.deepEqual(normalise(68, '°F', 'temp_c'), { ok: true, value: 20 });
  assert.deepEqual(normalise(293.15, 'K', 'temp_c'), { ok: true, value: 20 });
  assert.deepEqual(normalise(0, 'W', 'power_kw', 'positive_is_export'), { ok: true, value: 0 });
  assert.equal(canonicalUnit('kw'), 'kW');
  assert.equal(canonicalUnit('℃'), '°C');
  assert.equal(canonicalUnit('mW'), null, 'milliwatt is not megawatt');
  assert.deepEqual(normalise('unavailable', 'W', 'power_kw').ok, false);
  assert.equal((normalise('12 W', 'W', 'power_kw') as { reason: string }).reason, 'not_a_number');
});
