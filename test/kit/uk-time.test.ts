// The kit's UK time (src/kit/uk-time.ts), worked by hand. In 2026 UK clocks go forward at 01:00 UTC
// on Sunday 29 March (00:00-01:00 GMT, then 02:00 BST) and back at 01:00 UTC on Sunday 25 October
// (01:00-02:00 BST, then 01:00-02:00 GMT again).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addDays,
  ceilSlot,
  datesCovering,
  floorSlot,
  isCalendarDay,
  isServiceDate,
  isoZ,
  parseInstant,
  settlementPeriod,
  SLOT_MS,
  slotsInDay,
  ukClock,
  ukDate,
  ukLocalIso,
  ukMidnight,
  ukOffsetFast,
  ukOffsetMs,
} from '../../src/kit/uk-time.ts';

const utc = (s: string) => Date.parse(s);

test('a UK day has 48 half hours, 46 on the spring clock change and 50 on the autumn one', () => {
  assert.equal(slotsInDay('2026-03-28'), 48);
  assert.equal(slotsInDay('2026-03-29'), 46);
  assert.equal(slotsInDay('2026-03-30'), 48);
  assert.equal(slotsInDay('2026-10-25'), 50);
  assert.equal(slotsInDay('2026-10-26'), 48);
  assert.equal(slotsInDay('2024-03-31'), 46);
  assert.equal(slotsInDay('2024-10-27'), 50);
});

test('local midnight: GMT in winter, 23:00 UTC the day before in summer', () => {
  assert.equal(ukMidnight('2026-03-29'), utc('2026-03-29T00:00:00Z'));
  assert.equal(ukMidnight('2026-03-30'), utc('2026-03-29T23:00:00Z'));
  assert.equal(ukMidnight('2026-10-25'), utc('2026-10-24T23:00:00Z'));
  assert.equal(ukMidnight('2026-10-26'), utc('2026-10-26T00:00:00Z'));
});

test('settlement periods count half hours from local midnight, to 46 and to 50 on clock-change days', () => {
  // Spring: 00:30 UTC is period 2; 01:00 UTC is 02:00 BST, still period 3 (the hour 01:00-02:00 local never happens).
  assert.deepEqual(settlementPeriod(utc('2026-03-29T00:00:00Z')), { date: '2026-03-29', period: 1 });
  assert.deepEqual(settlementPeriod(utc('2026-03-29T01:00:00Z')), { date: '2026-03-29', period: 3 });
  assert.deepEqual(settlementPeriod(utc('2026-03-29T22:30:00Z')), { date: '2026-03-29', period: 46 });
  assert.deepEqual(settlementPeriod(utc('2026-03-29T23:00:00Z')), { date: '2026-03-30', period: 1 });
  // Autumn: 23:00 UTC on the 24th is local midnight; 01:00 UTC is the second 01:00 local, period 5.
  assert.deepEqual(settlementPeriod(utc('2026-10-24T23:00:00Z')), { date: '2026-10-25', period: 1 });
  assert.deepEqual(settlementPeriod(utc('2026-10-25T00:30:00Z')), { date: '2026-10-25', period: 4 });
  assert.deepEqual(settlementPeriod(utc('2026-10-25T01:00:00Z')), { date: '2026-10-25', period: 5 });
  assert.deepEqual(settlementPeriod(utc('2026-10-25T23:30:00Z')), { date: '2026-10-25', period: 50 });
  assert.deepEqual(settlementPeriod(utc('2026-10-26T00:00:00Z')), { date: '2026-10-26', period: 1 });
});

test('ukClock agrees with settlementPeriod and reads the wall clock (the repeated autumn hour repeats minutes)', () => {
  for (let t = utc('2026-03-28T00:00:00Z'); t < utc('2026-03-31T00:00:00Z'); t += SLOT_MS) {
    const c = ukClock(t);
    assert.deepEqual({ date: c.date, period: c.period }, settlementPeriod(t));
  }
  for (let t = utc('2026-10-24T00:00:00Z'); t < utc('2026-10-27T00:00:00Z'); t += SLOT_MS) {
    const c = ukClock(t);
    assert.deepEqual({ date: c.date, period: c.period }, settlementPeriod(t));
  }
  assert.equal(ukClock(utc('2026-10-25T00:00:00Z')).minute, 60); // 01:00 BST
  assert.equal(ukClock(utc('2026-10-25T01:00:00Z')).minute, 60); // 01:00 GMT
  assert.equal(ukClock(utc('2026-10-25T01:00:00Z')).weekday, 0); // a Sunday
});

test('offsets: 0 in GMT, one hour in BST, the fast and the Intl reading agree', () => {
  for (const s of ['2026-03-29T00:59:59Z', '2026-03-29T01:00:00Z', '2026-10-25T00:59:59Z', '2026-10-25T01:00:00Z', '2026-07-01T12:00:00Z']) {
    assert.equal(ukOffsetFast(utc(s)), ukOffsetMs(utc(s)), s);
  }
  assert.equal(ukOffsetFast(utc('2026-03-29T01:00:00Z')), 3_600_000);
  assert.equal(ukOffsetFast(utc('2026-10-25T01:00:00Z')), 0);
  assert.equal(ukLocalIso(utc('2026-10-25T00:00:00Z')), '2026-10-25T01:00:00+01:00');
  assert.equal(ukLocalIso(utc('2026-10-25T01:00:00Z')), '2026-10-25T01:00:00+00:00');
});

test('calendar days, dates covering a range, slots and instants', () => {
  assert.equal(ukDate(utc('2026-06-30T23:30:00Z')), '2026-07-01');
  assert.equal(addDays('2026-02-28', 1), '2026-03-01');
  assert.equal(addDays('2024-02-28', 1), '2024-02-29');
  assert.equal(isCalendarDay('2026-02-29'), false);
  assert.equal(isCalendarDay('2024-02-29'), true);
  assert.equal(isServiceDate('1999-12-31'), false);
  assert.equal(isServiceDate('2099-12-31'), true);
  assert.deepEqual(datesCovering(utc('2026-06-30T23:00:00Z'), utc('2026-07-01T23:00:01Z')), ['2026-07-01', '2026-07-02']);
  assert.equal(floorSlot(utc('2026-01-01T10:29:59Z')), utc('2026-01-01T10:00:00Z'));
  assert.equal(ceilSlot(utc('2026-01-01T10:00:01Z')), utc('2026-01-01T10:30:00Z'));
  assert.equal(isoZ(utc('2026-03-29T00:00:00.123Z')), '2026-03-29T00:00:00Z');
  assert.equal(isoZ(new Date(utc('2026-03-29T00:00:00Z'))), '2026-03-29T00:00:00Z');
  assert.equal(parseInstant('2026-07-01'), utc('2026-06-30T23:00:00Z'), 'a date is UK local midnight');
  assert.equal(parseInstant('2026-07-01T10:00:00+01:00'), utc('2026-07-01T09:00:00Z'));
  assert.equal(parseInstant('2026-07-01T10:00:00'), null, 'no offset: refused');
  assert.equal(parseInstant('2026-02-30T00:00:00Z'), null);
});
