// The SLA calendar (decision 0161, docs/field.md): calendar hours are elapsed time; business hours
// are the policy's business day (UK local time, Europe/London, clock changes included) on Monday to
// Friday, except the bank holidays of England and Wales in the stated table below.
import { addDays, ukDate, ukOffsetFast } from '../../kit/uk-time.ts';
import type { Measure } from './vocabulary.ts';

/**
 * Bank holidays in England and Wales, 2024 to 2030 (GOV.UK's published list through 2027; 2028-2030
 * by the same rules: New Year's Day, Good Friday, Easter Monday, the first and last Mondays of May,
 * the last Monday of August, Christmas Day and Boxing Day, each moved to the next free weekday when
 * it falls on a weekend). Outside these years only weekends are excluded (docs/field.md).
 */
export const BANK_HOLIDAYS: Readonly<Record<number, readonly string[]>> = {
  2024: ['2024-01-01', '2024-03-29', '2024-04-01', '2024-05-06', '2024-05-27', '2024-08-26', '2024-12-25', '2024-12-26'],
  2025: ['2025-01-01', '2025-04-18', '2025-04-21', '2025-05-05', '2025-05-26', '2025-08-25', '2025-12-25', '2025-12-26'],
  2026: ['2026-01-01', '2026-04-03', '2026-04-06', '2026-05-04', '2026-05-25', '2026-08-31', '2026-12-25', '2026-12-28'],
  2027: ['2027-01-01', '2027-03-26', '2027-03-29', '2027-05-03', '2027-05-31', '2027-08-30', '2027-12-27', '2027-12-28'],
  2028: ['2028-01-03', '2028-04-14', '2028-04-17', '2028-05-01', '2028-05-29', '2028-08-28', '2028-12-25', '2028-12-26'],
  2029: ['2029-01-01', '2029-03-30', '2029-04-02', '2029-05-07', '2029-05-28', '2029-08-27', '2029-12-25', '2029-12-26'],
  2030: ['2030-01-01', '2030-04-19', '2030-04-22', '2030-05-06', '2030-05-27', '2030-08-26', '2030-12-25', '2030-12-26'],
};
export const CALENDAR_YEARS = { from: 2024, to: 2030 } as const;
const HOLIDAYS = new Set(Object.values(BANK_HOLIDAYS).flat());

export const isBankHoliday = (date: string) => HOLIDAYS.has(date);

const MIN = 60_000;
/** The longest span a projection walks (a guard: targets are at most 60 days of business time). */
const MAX_DAYS = 3_660;

export const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The instant a UK local wall-clock time occurs on a date (times from 02:00 on: never skipped or repeated). */
export function ukLocalInstant(date: string, minute: number): number {
  const [y, m, d] = date.split('-').map(Number);
  const guess = Date.UTC(y, m - 1, d) + minute * MIN;
  let t = guess - ukOffsetFast(guess);
  t = guess - ukOffsetFast(t);
  return t;
}

function isWorkingDay(date: string): boolean {
  const wd = new Date(`${date}T00:00:00Z`).getUTCDay();
  return wd !== 0 && wd !== 6 && !isBankHoliday(date);
}

export interface CalendarSpec {
  measure: Measure;
  business_day_start: string;
  business_day_end: string;
}

/** Working windows [start, end) of the UK local dates from the one holding `from`. */
function* windows(spec: CalendarSpec, from: number): Generator<[number, number]> {
  const s = minutesOf(spec.business_day_start);
  const e = minutesOf(spec.business_day_end);
  let date = ukDate(from);
  for (let i = 0; i < MAX_DAYS; i++, date = addDays(date, 1)) {
    if (isWorkingDay(date)) yield [ukLocalInstant(date, s), ukLocalInstant(date, e)];
  }
}

/** SLA milliseconds between two instants (a <= b) in the policy's measure. */
export function slaBetween(spec: CalendarSpec, a: number, b: number): number {
  if (b <= a) return 0;
  if (spec.measure === 'calendar_hours') return b - a;
  let total = 0;
  for (const [ws, we] of windows(spec, a)) {
    if (ws >= b) break;
    const lo = Math.max(a, ws);
    const hi = Math.min(b, we);
    if (hi > lo) total += hi - lo;
  }
  return total;
}

/** The instant `ms` SLA milliseconds after `a` in the policy's measure (a itself when ms <= 0). */
export function slaAdd(spec: CalendarSpec, a: number, ms: number): number {
  if (ms <= 0) return a;
  if (spec.measure === 'calendar_hours') return a + ms;
  let left = ms;
  for (const [ws, we] of windows(spec, a)) {
    const lo = Math.max(a, ws);
    if (we <= lo) continue;
    if (left <= we - lo) return lo + left;
    left -= we - lo;
  }
  throw new Error('SLA projection beyond the calendar guard');
}
