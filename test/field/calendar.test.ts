// The SLA calendar against an independent model: the stated bank-holiday table against the rules,
// business time across both clock changes and the Christmas holidays, minute by minute.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BANK_HOLIDAYS, slaAdd, slaBetween } from '../../src/modules/field/calendar.ts';
import { counts, ruleHolidays, type ModelCalendar } from './uk-model.ts';

const biz: ModelCalendar = { measure: 'business_hours', business_day_start: '08:00', business_day_end: '18:00' };
const H = 3_600_000;
const at = (s: string) => Date.parse(s);

test('the bank-holiday table is the England and Wales rules for 2024-2030 (substitute days included)', () => {
  for (let y = 2024; y <= 2030; y++) assert.deepEqual([...BANK_HOLIDAYS[y]].sort(), ruleHolidays(y).sort(), String(y));
  assert.ok(BANK_HOLIDAYS[2027].includes('2027-12-28'), 'Boxing Day 2027 is a Sunday: Tuesday 28th');
});

test('business hours: UK local business day across the clock changes and the Christmas holidays', () => {
  // Friday 27 March 2026 17:00 GMT (one hour left) to Monday 30 March 09:00 BST (08:00Z): 1 h + 1 h.
  assert.equal(slaBetween(biz, at('2026-03-27T17:00:00Z'), at('2026-03-30T08:00:00Z')), 2 * H);
  // Autumn: Friday 23 October 17:00 BST (16:00Z) to Monday 26 October 09:00 GMT: 1 h + 1 h.
  assert.equal(slaBetween(biz, at('2026-10-23T16:00:00Z'), at('2026-10-26T09:00:00Z')), 2 * H);
  // Thursday 24 December 17:00: one hour that day, then Christmas (Fri), the weekend and the Boxing Day substitute (Mon 28th).
  assert.equal(slaAdd(biz, at('2026-12-24T17:00:00Z'), 3 * H), at('2026-12-29T10:00:00Z'));
  // Calendar hours are elapsed time: 24 h from Saturday noon before the spring change ends at 13:00 BST on Sunday.
  assert.equal(slaAdd({ ...biz, measure: 'calendar_hours' }, at('2026-03-28T12:00:00Z'), 24 * H), at('2026-03-29T12:00:00Z'));
});

test('business time between any two instants equals the model counted minute by minute (property)', () => {
  const anchors = ['2026-03-27T12:00:00Z', '2026-10-23T12:00:00Z', '2026-12-23T12:00:00Z', '2026-04-02T12:00:00Z', '2027-03-26T12:00:00Z'].map(at);
  const calendars = fc.record({
    measure: fc.constant('business_hours' as const),
    business_day_start: fc.constantFrom('02:00', '07:30', '08:00', '09:00'),
    business_day_end: fc.constantFrom('17:00', '18:30', '23:59'),
  });
  fc.assert(
    fc.property(fc.constantFrom(...anchors), fc.integer({ min: -2000, max: 6000 }), fc.integer({ min: 0, max: 7000 }), calendars, (anchor, off, len, cal) => {
      const a = anchor + off * 60_000;
      let model = 0;
      for (let t = a; t < a + len * 60_000; t += 60_000) if (counts(cal, t)) model++;
      assert.equal(slaBetween(cal, a, a + len * 60_000), model * 60_000);
      if (model > 0) {
        // The instant the model's count is first reached.
        let n = 0;
        let t = a;
        for (; n < model; t += 60_000) if (counts(cal, t)) n++;
        assert.equal(slaAdd(cal, a, model * 60_000), t);
      }
    }),
    { numRuns: 150 },
  );
});
