// Property tests of the bill (fast-check): a bill's lines add up to its totals exactly, and
// splitting a period in two never changes the total by more than the stated rounding allows
// (half a penny for each rounded figure: every line, grossed up by its VAT rate, and every VAT
// figure, of the three bills). Tariffs, versions, consumption and prices are drawn at random.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { billTariff, compileVersions, type Bill, type StoredVersion } from '../../src/modules/pricing/billing.ts';
import type { VersionTerms } from '../../src/modules/pricing/terms.ts';
import { ukMidnightOf } from './helpers.ts';
import { parseScaled } from '../../src/kit/decimal.ts';

const HH = 1800_000;
const dec = (max: number, dp: number, min = 0) => fc.integer({ min: min * 10 ** dp, max: max * 10 ** dp }).map((n) => (n / 10 ** dp).toFixed(dp));
const cents = (s: string) => BigInt(Math.round(Number(s) * 100)); // amounts have 2 places: exact

const unitRates = fc.oneof(
  dec(60, 3).map((r) => ({ type: 'flat' as const, rate_p_per_kwh: r })),
  fc.tuple(dec(60, 2), dec(60, 2), fc.integer({ min: 1, max: 46 })).map(([night, day, start]) => ({
    type: 'time_of_use' as const,
    rates: { night, day },
    periods: [
      { band: 'night', days: 'all' as const, from: clock(start), to: clock(start + 2) },
      { band: 'day', days: 'all' as const, from: clock((start + 2) % 48), to: clock(start) },
    ],
  })),
  fc.constant({ type: 'dynamic' as const }),
);
function clock(slot: number) {
  return `${String(Math.floor(slot / 2)).padStart(2, '0')}:${slot % 2 ? '30' : '00'}`;
}

const version = (from: string): fc.Arbitrary<VersionTerms> =>
  fc.record({ vat: fc.constantFrom('5', '20', '0', '17.5'), standing: dec(90, 4), unit: unitRates }).map((v) => ({
    effective_from: from,
    effective_to: null,
    vat_rate_percent: v.vat,
    standing_charge_p_per_day: v.standing,
    unit_rates: v.unit,
  }));

// Periods in 2026 around both clock changes: days from 20 March to 5 November.
const DAYS: string[] = [];
for (let t = Date.UTC(2026, 2, 20); t < Date.UTC(2026, 10, 5); t += 86_400_000) DAYS.push(new Date(t).toISOString().slice(0, 10));

const scenario = fc
  .record({
    start: fc.integer({ min: 0, max: DAYS.length - 12 }),
    length: fc.integer({ min: 2, max: 10 }),
    cut: fc.integer({ min: 1, max: 9 }),
    v2at: fc.integer({ min: 0, max: 11 }),
    seed: fc.integer({ min: 1, max: 2 ** 30 }),
  })
  .chain((s) => {
    const from = DAYS[s.start];
    const to = DAYS[s.start + s.length];
    const mid = DAYS[s.start + Math.min(s.cut, s.length - 1)];
    const v2from = DAYS[s.start + Math.min(s.v2at, s.length)];
    return fc.record({
      from: fc.constant(from),
      to: fc.constant(to),
      mid: fc.constant(mid),
      v1: version('2026-01-01'),
      v2: version(v2from),
      seed: fc.constant(s.seed),
    });
  });

function consumptionFor(from: string, to: string, seed: number) {
  let x = seed;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const out: { t: number; kwh: bigint }[] = [];
  const prices = new Map<number, bigint>();
  for (let t = ukMidnightOf(from); t < ukMidnightOf(to); t += HH) {
    if (rnd() < 0.9) out.push({ t, kwh: BigInt(Math.floor(rnd() * 3_000_000)) }); // up to 3 kWh, 6 places
    prices.set(t, BigInt(Math.floor(rnd() * 60_000_000)) - 5_000_000n); // -5p to 55p, 6 places
  }
  return { consumption: out, prices };
}

function bill(versions: StoredVersion[], from: string, to: string, seed: number, allFrom: string, allTo: string): Bill {
  const { consumption, prices } = consumptionFor(allFrom, allTo, seed);
  const lo = ukMidnightOf(from);
  const hi = ukMidnightOf(to);
  return billTariff({
    tariff: { tariff_id: 't', name: 'T' },
    versions: compileVersions(versions),
    consumption: consumption.filter((h) => h.t >= lo && h.t < hi),
    prices,
    from,
    to,
  });
}

function roundedFigures(b: Bill): number {
  // Each line is rounded once and then carries VAT at its version's rate; each VAT figure is rounded once.
  let allowance = 0;
  for (const l of b.lines) allowance += 0.5 * (1 + Number(b.versions_used.find((v) => v.version === l.version)!.vat_rate_percent) / 100);
  return allowance + 0.5 * b.totals.vat.length;
}

test('property: lines add up to the totals exactly; splitting a period changes the total by no more than the stated rounding', () => {
  fc.assert(
    fc.property(scenario, (s) => {
      const versions: StoredVersion[] = [
        { version: 1, effective_from: '2026-01-01', effective_to: null, terms: s.v1 },
        { version: 2, effective_from: s.v2.effective_from, effective_to: null, terms: s.v2 },
      ];
      const whole = bill(versions, s.from, s.to, s.seed, s.from, s.to);
      const left = bill(versions, s.from, s.mid, s.seed, s.from, s.to);
      const right = bill(versions, s.mid, s.to, s.seed, s.from, s.to);
      for (const b of [whole, left, right]) {
        const lines = b.lines.reduce((sum, l) => sum + cents(l.amount_gbp), 0n);
        assert.equal(lines, cents(b.totals.net_gbp), 'lines add up to the net total');
        assert.equal(
          b.totals.vat.reduce((sum, v) => sum + cents(v.net_gbp), 0n),
          lines,
          'VAT bases add up to the net',
        );
        assert.equal(
          b.totals.vat.reduce((sum, v) => sum + cents(v.vat_gbp), 0n),
          cents(b.totals.vat_gbp),
          'VAT lines add up to the VAT',
        );
        assert.equal(cents(b.totals.net_gbp) + cents(b.totals.vat_gbp), cents(b.totals.total_gbp), 'net + VAT = total');
      }
      const diffPence = Math.abs(Number(cents(whole.totals.total_gbp) - cents(left.totals.total_gbp) - cents(right.totals.total_gbp)));
      const bound = roundedFigures(whole) + roundedFigures(left) + roundedFigures(right);
      assert.ok(diffPence <= bound, `split changed the total by ${diffPence}p, more than the rounding allows (${bound}p)`);
      // Days, kWh and standing charges split exactly.
      assert.equal(whole.period.days, left.period.days + right.period.days);
      assert.equal(parseScaled(whole.totals.kwh, 6), parseScaled(left.totals.kwh, 6)! + parseScaled(right.totals.kwh, 6)!);
    }),
    { numRuns: 150 },
  );
});

test('property: the total of a bill does not depend on the order the half hours are given in', () => {
  fc.assert(
    fc.property(scenario, fc.integer(), (s, shuffleSeed) => {
      const versions: StoredVersion[] = [{ version: 1, effective_from: '2026-01-01', effective_to: null, terms: s.v1 }];
      const { consumption, prices } = consumptionFor(s.from, s.to, s.seed);
      const shuffled = [...consumption];
      let x = Math.abs(shuffleSeed) + 1;
      for (let i = shuffled.length - 1; i > 0; i--) {
        x = (x * 1103515245 + 12345) % 2 ** 31;
        const j = x % (i + 1);
        [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
      }
      const args = { tariff: { tariff_id: 't', name: 'T' }, versions: compileVersions(versions), prices, from: s.from, to: s.to };
      assert.deepEqual(billTariff({ ...args, consumption: shuffled }).totals, billTariff({ ...args, consumption }).totals);
    }),
    { numRuns: 50 },
  );
});
