// Windows of UK local days: `date` (one day), or `from` and `to` (dates, `to` inclusive), or a
// month `YYYY-MM`; answered as UTC instants with Z. Settlement periods counted from local midnight.
import { addDays, FIRST_SERVICE_DATE, isCalendarDay, LAST_SERVICE_DATE, ukDate, ukMidnight, slotsInDay, settlementPeriod, SLOT_MS } from '../../kit/uk-time.ts';
import { energyErrors } from './errors.ts';

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const MONTH_RE = /^(\d{4})-(0[1-9]|1[0-2])$/;

export interface DayWindow {
  /** First UK day, YYYY-MM-DD. */
  fromDay: string;
  /** Day after the last, YYYY-MM-DD. */
  toDay: string;
  from: number;
  to: number;
  days: number;
}

export function dayWindow(fromDay: string, toDayExclusive: string): DayWindow {
  const from = ukMidnight(fromDay);
  const to = ukMidnight(toDayExclusive);
  return { fromDay, toDay: toDayExclusive, from, to, days: Math.round((Date.UTC(...ymd(toDayExclusive)) - Date.UTC(...ymd(fromDay))) / 86_400_000) };
}

function ymd(s: string): [number, number, number] {
  const [y, m, d] = s.split('-').map(Number);
  return [y, m - 1, d];
}

/**
 * The window a query names: `date`, or `from`..`to` (inclusive days), else the `defaultDays` UK days
 * ending yesterday. At most `maxDays`.
 */
export function windowOf(q: { date?: string; from?: string; to?: string }, now: number, opts: { defaultDays: number; maxDays: number }): DayWindow {
  for (const k of ['date', 'from', 'to'] as const) {
    const v = q[k];
    if (v === undefined) continue;
    // The service calendar, as the EMS report's (beyond it UK time rules are not known; year 10000
    // has no ISO date and years before 100 are not what Date.UTC reads). A well-formed date outside
    // it is told the range; anything else, the format.
    if (DATE_RE.test(v) && (v < FIRST_SERVICE_DATE || v > LAST_SERVICE_DATE))
      throw energyErrors.query(k, `Input should be a date from ${FIRST_SERVICE_DATE} to ${LAST_SERVICE_DATE}`, v);
    if (!isCalendarDay(v)) throw energyErrors.query(k, 'Input should be a date YYYY-MM-DD', v);
  }
  if (q.date !== undefined) return dayWindow(q.date, addDays(q.date, 1));
  const today = ukDate(now);
  const to = q.to !== undefined ? addDays(q.to, 1) : q.from !== undefined ? addDays(q.from, opts.defaultDays) : today;
  const from = q.from ?? addDays(to, -opts.defaultDays);
  const w = dayWindow(from, to);
  if (w.days <= 0) throw energyErrors.query('to', 'to must not be before from', q.to);
  if (w.days > opts.maxDays) throw energyErrors.query('to', `At most ${opts.maxDays} days`, q.to);
  return w;
}

/** A UK calendar month `YYYY-MM`. */
export function monthWindow(month: string | undefined, now: number): DayWindow & { month: string } {
  let m = month;
  if (m === undefined) {
    const [y, mo] = ukDate(now).split('-').map(Number);
    const prev = new Date(Date.UTC(y, mo - 2, 1));
    m = prev.toISOString().slice(0, 7);
  }
  const mm = MONTH_RE.exec(m);
  if (!mm) throw energyErrors.query('month', 'Input should be a month YYYY-MM', month);
  if (m < FIRST_SERVICE_DATE.slice(0, 7) || m > LAST_SERVICE_DATE.slice(0, 7))
    throw energyErrors.query('month', `Input should be a month from ${FIRST_SERVICE_DATE.slice(0, 7)} to ${LAST_SERVICE_DATE.slice(0, 7)}`, month);
  const first = `${m}-01`;
  const next = new Date(Date.UTC(Number(mm[1]), Number(mm[2]), 1)).toISOString().slice(0, 10);
  return { ...dayWindow(first, next), month: m };
}

/** Every half hour of a window with its settlement label. */
export function* slotsOf(w: { from: number; to: number }) {
  for (let t = w.from; t < w.to; t += SLOT_MS) {
    const sp = settlementPeriod(t);
    yield { start: t, date: sp.date, period: sp.period };
  }
}

export function settlementDays(w: DayWindow) {
  const out: { date: string; periods: number }[] = [];
  for (let d = w.fromDay; d < w.toDay; d = addDays(d, 1)) out.push({ date: d, periods: slotsInDay(d) });
  return out;
}
