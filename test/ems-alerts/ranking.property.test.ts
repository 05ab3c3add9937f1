// Property: the EMS queue is always ranked by impact, equal impacts in a stable order (raise time,
// then id, whatever order the rows came in), and the impacts add up exactly in decimal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { rankAlerts, totalPence, pencePerDay } from '../../src/modules/ems-alerts/index.ts';
import { poundsText as poundsOf, penceOf } from '../../src/kit/decimal.ts';

const alertArb = fc.record({
  id: fc.uuid(),
  // Few distinct values so ties are common.
  impact_pence: fc.oneof(fc.constantFrom(0n, 15n, 98n, 105n, 588n), fc.bigInt({ min: 0n, max: 10_000_000n })),
  raised_at: fc.constantFrom('2026-11-24T09:00:00.000Z', '2026-11-24T10:00:00.000Z', '2026-11-24T10:00:00.001Z'),
});

test('ranking: impact never increases down the queue; ties by raised_at then id; independent of input order', () => {
  fc.assert(
    fc.property(fc.uniqueArray(alertArb, { selector: (a) => a.id, maxLength: 40 }), fc.integer(), (alerts, seed) => {
      const ranked = rankAlerts(alerts);
      assert.equal(ranked.length, alerts.length);
      for (let i = 1; i < ranked.length; i++) {
        const [a, b] = [ranked[i - 1], ranked[i]];
        assert.ok(a.impact_pence >= b.impact_pence, 'by impact, highest first');
        if (a.impact_pence === b.impact_pence) {
          assert.ok(a.raised_at < b.raised_at || (a.raised_at === b.raised_at && a.id < b.id), 'ties: oldest first, then id');
        }
      }
      // Any permutation of the input ranks the same.
      const shuffled = [...alerts].sort((x, y) => (x.id.charCodeAt(seed & 7) ?? 0) - (y.id.charCodeAt(seed & 7) ?? 0) || (seed % 2 ? 1 : -1));
      assert.deepEqual(
        rankAlerts(shuffled).map((a) => a.id),
        ranked.map((a) => a.id),
      );
    }),
  );
});

test('totals: the queue total is the exact decimal sum of the pounds shown, never a float sum', () => {
  fc.assert(
    fc.property(fc.array(fc.bigInt({ min: 0n, max: 1_000_000_000n }), { maxLength: 200 }), (pence) => {
      const items = pence.map((p, i) => ({ id: String(i), impact_pence: p, raised_at: '2026-11-24T09:00:00.000Z' }));
      const total = poundsOf(totalPence(items));
      // Sum the strings as shown, digit-exact.
      const shown = items.map((a) => poundsOf(a.impact_pence));
      assert.equal(total, poundsOf(shown.reduce((s, x) => s + penceOf(x), 0n)));
      for (const s of shown) assert.match(s, /^\d+\.\d{2}$/);
    }),
  );
  // The classic float trap: 0.1 + 0.2 in pounds.
  assert.equal(
    poundsOf(
      totalPence([
        { id: 'a', impact_pence: 10n, raised_at: '' },
        { id: 'b', impact_pence: 20n, raised_at: '' },
      ]),
    ),
    '0.30',
  );
});

test('impact: kWh × p/kWh per day is rounded once, half away from zero, and scales exactly with the window', () => {
  fc.assert(
    fc.property(
      fc.bigInt({ min: 0n, max: 10n ** 12n }),
      fc.integer({ min: 1, max: 168 }),
      fc.integer({ min: 0, max: 999_999 }),
      (microKwh, hours, priceTenThousandths) => {
        const price = `${Math.floor(priceTenThousandths / 10_000)}.${String(priceTenThousandths % 10_000).padStart(4, '0')}`;
        const p = pencePerDay(microKwh, hours, price);
        // Exact rational: microKwh × price × 24 / hours / 1e6 pence; p is within half a penny of it.
        const num = microKwh * BigInt(priceTenThousandths) * 24n; // pence × 1e10 × hours
        const den = 10n ** 10n * BigInt(hours);
        assert.ok(p * den * 2n >= num * 2n - den && p * den * 2n <= num * 2n + den);
      },
    ),
  );
  assert.equal(pencePerDay(4_000_000n, 24, '24.50'), 98n);
  assert.equal(pencePerDay(6_000_000n, 24, '35.00'), 210n);
});
