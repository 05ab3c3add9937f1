// The kit's exact decimals (src/kit/decimal.ts, decision 0340): one rounding rule (half away from
// zero) and decimal text out. Every expected figure below is worked by hand in the comment beside it;
// these replace the tests of the copies the kit took over (market/decimal.ts, energy/wh.ts,
// ems-alerts/money.ts, the inline pence code in crm, settlement and hub).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  costPence,
  decimal,
  formatPlain,
  formatScaled,
  fromNumber,
  kwhText,
  meanOf,
  parseRounded,
  parseScaled,
  penceOf,
  poundsText,
  pow10,
  ratio,
  rescale,
  roundDiv,
  toNumber,
  toWh,
  withVat,
} from '../../src/kit/decimal.ts';

test('parseScaled: decimal text to an integer of 10^-scale units, exact; null for anything else', () => {
  assert.equal(parseScaled('24.50', 2), 2450n);
  assert.equal(parseScaled('24.5', 4), 245000n); // padded: 24.5000
  assert.equal(parseScaled('-0.125', 3), -125n);
  assert.equal(parseScaled('7', 0), 7n);
  assert.equal(parseScaled('0.001', 2), null, 'finer than the scale is refused, not rounded');
  for (const bad of ['', '.5', '5.', '1e3', ' 1', '+1', '1,5', '--1', 'NaN']) assert.equal(parseScaled(bad, 6), null, bad);
  assert.throws(() => decimal('1.2345', 3), RangeError);
  assert.equal(decimal('-3.2', 3), -3200n);
});

test('rescale: half away from zero, on both sides of zero', () => {
  // 1.25 at 2 decimals to 1: 12.5 tenths → 13; -1.25 → -13 (not -12: away from zero, not up)
  assert.equal(rescale(125n, 2, 1), 13n);
  assert.equal(rescale(-125n, 2, 1), -13n);
  assert.equal(rescale(124n, 2, 1), 12n);
  assert.equal(rescale(-124n, 2, 1), -12n);
  // 0.005 at 3 to 2 → 0.01; -0.005 → -0.01; -0.0049 at 4 to 2 → -0.00
  assert.equal(rescale(5n, 3, 2), 1n);
  assert.equal(rescale(-5n, 3, 2), -1n);
  assert.equal(rescale(-49n, 4, 2), 0n);
  // widening is exact
  assert.equal(rescale(-7n, 1, 4), -7000n);
});

test('roundDiv: integer quotient rounded half away from zero; division by zero refused', () => {
  assert.equal(roundDiv(7n, 2n), 4n); // 3.5 → 4
  assert.equal(roundDiv(-7n, 2n), -4n); // -3.5 → -4
  assert.equal(roundDiv(7n, -2n), -4n);
  assert.equal(roundDiv(-7n, -2n), 4n);
  assert.equal(roundDiv(5n, 3n), 2n); // 1.67 → 2
  assert.equal(roundDiv(4n, 3n), 1n); // 1.33 → 1
  assert.equal(roundDiv(-4n, 3n), -1n);
  assert.throws(() => roundDiv(1n, 0n), RangeError);
});

test('formatScaled and formatPlain: fixed decimals, never "-0.00"; shortest exact text', () => {
  assert.equal(formatScaled(1234n, 2), '12.34');
  assert.equal(formatScaled(5n, 2), '0.05');
  assert.equal(formatScaled(-5n, 2), '-0.05');
  assert.equal(formatScaled(-5n, 3, 2), '-0.01'); // -0.005 → -0.01
  assert.equal(formatScaled(-4n, 3, 2), '0.00'); // -0.004 → 0, shown without a sign
  assert.equal(formatScaled(1235n, 3, 2), '1.24'); // 1.235 → 1.24
  assert.equal(formatScaled(12n, 0), '12');
  assert.equal(formatScaled(15n, 1, 0), '2'); // 1.5 → 2
  assert.equal(formatPlain(500000n, 6), '0.5');
  assert.equal(formatPlain(12000000n, 6), '12');
  assert.equal(formatPlain(-125000n, 6), '-0.125');
  assert.equal(formatPlain(0n, 6), '0');
});

test('parseRounded: any precision rounded once to the scale', () => {
  assert.equal(parseRounded('1.0005', 3), 1001n); // 1.0005 → 1.001
  assert.equal(parseRounded('-1.0005', 3), -1001n);
  assert.equal(parseRounded('1.00049', 3), 1000n);
  assert.equal(parseRounded('2', 3), 2000n);
  assert.equal(parseRounded('x', 3), null);
});

test('fromNumber and toNumber: a binary figure fixed once, half away from zero', () => {
  assert.equal(fromNumber(16.46, 6), 16460000n);
  assert.equal(fromNumber(-0.1234565, 6), -123457n); // a provider price to a millionth
  assert.equal(fromNumber(2.5, 0), 3n);
  assert.equal(fromNumber(-2.5, 0), -3n); // Math.round would give -2
  assert.equal(fromNumber(-0.0004, 3), 0n);
  assert.equal(toNumber(12345n, 6, 3), 0.012); // 0.012345 → 0.012
  assert.equal(toNumber(12500n, 6, 2), 0.01); // 0.0125 → 0.01
  assert.equal(toNumber(-1234567n, 6, 3), -1.235); // -1.234567 → -1.235
});

test('withVat: the inclusive price from the exclusive one, exact (never the rounded exclusive)', () => {
  assert.equal(withVat(16.46), 17.283); // 16.46 × 1.05 = 17.2830
  assert.equal(withVat(20.59), 21.6195); // 20.59 × 1.05 = 21.6195
  assert.equal(withVat(-2.1), -2.205); // negative Agile prices: -2.10 × 1.05
  assert.equal(withVat(10, 20), 12);
  assert.equal(withVat(0), 0);
});

test('meanOf: the exact mean of prices, rounded to 4 decimals', () => {
  // (10.1 + 10.2 + 10.2) / 3 = 10.166666… → 10.1667
  assert.equal(meanOf([10.1, 10.2, 10.2]), 10.1667);
  // (-1.00005 + -1.00010) / 2 = -1.000075 → micro: exact; to 4 dp → -1.0001 (half away)
  assert.equal(meanOf([-1.00005, -1.0001]), -1.0001);
  assert.equal(meanOf([]), 0);
  // 0.1 + 0.2 in binary is 0.30000000000000004; the exact mean of the two is 0.15
  assert.equal(meanOf([0.1, 0.2]), 0.15);
});

test('money: pounds text and pence, and the cost of an energy at a price rounded once to the penny', () => {
  assert.equal(poundsText(1234n), '12.34');
  assert.equal(poundsText(-5n), '-0.05');
  assert.equal(poundsText(0n), '0.00');
  assert.equal(penceOf('12.3'), 1230n);
  assert.equal(penceOf('12'), 1200n);
  assert.equal(penceOf('-0.07'), -7n);
  assert.throws(() => penceOf('1.234'), RangeError);
  assert.throws(() => penceOf('£1'), RangeError);
  // 1500 Wh × 24.5 p/kWh = 36.75 p → 37 p
  assert.equal(costPence(1500, '24.5'), 37n);
  // 1 Wh × 0.5 p/kWh = 0.0005 p → 0 p; 1000 Wh × 0.5 p/kWh = 0.5 p → 1 p, and -0.5 p → -1 p
  assert.equal(costPence(1, '0.5'), 0n);
  assert.equal(costPence(1000, '0.5'), 1n);
  assert.equal(costPence(-1000, '0.5'), -1n);
  // export credit: -1500 Wh × 24.5 = -36.75 p → -37 p
  assert.equal(costPence(-1500n, '24.5'), -37n);
  assert.throws(() => costPence(1, '0.00001'), RangeError, 'prices finer than 4 places are refused');
});

test('energy: kWh text to Wh and back, three places, half away from zero', () => {
  assert.equal(toWh('1.250'), 1250);
  assert.equal(toWh(' 0.001 '), 1);
  assert.equal(toWh('1.2345'), 1235); // a fourth place rounds: 1234.5 Wh → 1235
  assert.equal(toWh('-1.2345'), -1235);
  assert.equal(toWh(1.2344), 1234);
  assert.equal(toWh(null), 0);
  assert.equal(toWh(undefined), 0);
  assert.throws(() => toWh('one'), RangeError);
  assert.equal(kwhText(1250), '1.250');
  assert.equal(kwhText(5), '0.005');
  assert.equal(kwhText(-5), '-0.005');
  assert.equal(kwhText(0), '0.000');
  assert.equal(kwhText(-0.4), '0.000'); // no "-0.000"
  assert.equal(kwhText(12_345_678_901_234_567_890n), '12345678901234567.890');
  assert.equal(kwhText(1e21), '1000000000000000000.000'); // not "1e+21"
});

test('ratio: four places, null without a denominator', () => {
  assert.equal(ratio(1, 3), 0.3333);
  assert.equal(ratio(2, 3), 0.6667);
  assert.equal(ratio(1, 0), null);
});

test('pow10: the scales', () => {
  assert.equal(pow10(0), 1n);
  assert.equal(pow10(12), 1_000_000_000_000n);
  assert.equal(pow10(45), 10n ** 45n);
  assert.throws(() => pow10(-1), RangeError);
});

test('property: parse, rescale and format agree; sums are exact; rounding is symmetric about zero', () => {
  fc.assert(
    fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 8 }), (v, s, d) => {
      assert.equal(parseScaled(formatScaled(v, s), s), v, 'text round trip');
      assert.equal(rescale(-v, s, d), -rescale(v, s, d), 'half away from zero is symmetric');
      assert.equal(formatScaled(v, s, d), formatScaled(rescale(v, s, d), d), 'formatting rounds as rescale does');
    }),
  );
  fc.assert(
    fc.property(fc.array(fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }), { maxLength: 50 }), (xs) => {
      const sum = xs.reduce((a, b) => a + b, 0n);
      assert.equal(
        penceOf(poundsText(sum)),
        xs.map((x) => penceOf(poundsText(x))).reduce((a, b) => a + b, 0n),
      );
    }),
  );
  fc.assert(
    fc.property(fc.bigInt({ min: -(10n ** 18n), max: 10n ** 18n }), fc.bigInt({ min: 1n, max: 10n ** 9n }), (n, d) => {
      const q = roundDiv(n, d);
      // |n/d − q| ≤ 1/2, and a tie goes away from zero: 2|n − qd| ≤ d, equal only when |q|·d ≥ |n|
      const r = n - q * d;
      const twice = 2n * (r < 0n ? -r : r);
      assert.ok(twice <= d);
      if (twice === d) assert.ok((q < 0n ? -q : q) * d >= (n < 0n ? -n : n));
    }),
  );
});
