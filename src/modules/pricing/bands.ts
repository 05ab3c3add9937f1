// Time-band schedules (DUoS red/amber/green, a time-of-use tariff's bands): periods of the local
// wall clock on weekdays, weekends or all days. A schedule must put every half hour of each day
// type in exactly one band. Matching is by UK local clock time, so the repeated autumn hour takes
// the band of its clock time twice and the skipped spring hour takes none. Bank holidays count as
// weekdays, as most DNO charging statements say ("Monday to Friday (including bank holidays)").

export type DayKind = 'all' | 'weekdays' | 'weekends';

export interface BandPeriod {
  band: string;
  days: DayKind;
  /** HH:MM on a half hour, 00:00 to 23:30. */
  from: string;
  /** HH:MM on a half hour, 00:30 to 24:00; earlier than `from` wraps past midnight. */
  to: string;
}

/** A band per clock half hour (0 = 00:00-00:30 ... 47 = 23:30-24:00), weekdays and weekends. */
export interface CompiledSchedule {
  weekdays: string[];
  weekends: string[];
}

export interface ScheduleProblem {
  /** Index of the period at fault, or null for a gap or overlap across periods. */
  index: number | null;
  field?: 'from' | 'to' | 'band' | 'days';
  msg: string;
}

const TIME = /^([01]\d|2[0-4]):([03]0)$/;
const slotOf = (hhmm: string) => {
  const m = TIME.exec(hhmm);
  if (!m) return null;
  const s = Number(m[1]) * 2 + (m[2] === '30' ? 1 : 0);
  return s > 48 ? null : s;
};
export const clockOf = (slot: number) => `${String(Math.floor(slot / 2)).padStart(2, '0')}:${slot % 2 ? '30' : '00'}`;

/** The slots a period covers, by clock half hour. */
function slotsOf(from: number, to: number): number[] {
  const out: number[] = [];
  if (to > from) for (let s = from; s < to; s++) out.push(s);
  else {
    for (let s = from; s < 48; s++) out.push(s);
    for (let s = 0; s < to; s++) out.push(s);
  }
  return out;
}

/** Ranges of consecutive slots, as "16:00-16:30, 18:00-19:00". */
function ranges(slots: number[]): string {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i < slots.length; i++) {
    if (start < 0) start = slots[i];
    if (i === slots.length - 1 || slots[i + 1] !== slots[i] + 1) {
      out.push(`${clockOf(start)}-${clockOf(slots[i] + 1)}`);
      start = -1;
    }
  }
  return out.join(', ');
}

/** Problems with a schedule (empty when it covers each day type exactly once), and the compiled form. */
export function checkSchedule(periods: readonly BandPeriod[]): { problems: ScheduleProblem[]; compiled: CompiledSchedule | null } {
  const problems: ScheduleProblem[] = [];
  const cover: Record<'weekdays' | 'weekends', string[][]> = {
    weekdays: Array.from({ length: 48 }, () => []),
    weekends: Array.from({ length: 48 }, () => []),
  };
  periods.forEach((p, index) => {
    const from = slotOf(p.from);
    const to = slotOf(p.to);
    if (from === null || from === 48) problems.push({ index, field: 'from', msg: 'from must be a half hour of the clock, 00:00 to 23:30' });
    if (to === null || to === 0) problems.push({ index, field: 'to', msg: 'to must be a half hour of the clock, 00:30 to 24:00' });
    if (from === null || to === null || from === 48 || to === 0) return;
    if (from === to) {
      problems.push({ index, field: 'to', msg: 'to must differ from from (a whole day is 00:00 to 24:00)' });
      return;
    }
    const kinds = p.days === 'all' ? (['weekdays', 'weekends'] as const) : ([p.days] as const);
    for (const k of kinds) for (const s of slotsOf(from, to)) cover[k][s].push(p.band);
  });
  if (problems.length) return { problems, compiled: null };
  for (const k of ['weekdays', 'weekends'] as const) {
    const gaps = cover[k].flatMap((b, s) => (b.length === 0 ? [s] : []));
    if (gaps.length)
      problems.push({
        index: null,
        msg: `${k} ${ranges(gaps)} ${gaps.length === 1 ? 'is' : 'are'} in no band: every half hour of the day must be in exactly one`,
      });
    const twice = cover[k].flatMap((b, s) => (b.length > 1 ? [s] : []));
    // One message per set of clashing bands.
    const byBands = new Map<string, number[]>();
    for (const s of twice) {
      const key = cover[k][s].join(', ');
      byBands.set(key, [...(byBands.get(key) ?? []), s]);
    }
    for (const [bands, slots] of byBands)
      problems.push({ index: null, msg: `${k} ${ranges(slots)} ${slots.length === 1 ? 'is' : 'are'} in more than one period (${bands})` });
  }
  if (problems.length) return { problems, compiled: null };
  return { problems, compiled: { weekdays: cover.weekdays.map((b) => b[0]), weekends: cover.weekends.map((b) => b[0]) } };
}

/** The band of a half hour by its local wall-clock minute and weekday (0 = Sunday). */
export function bandAt(s: CompiledSchedule, minute: number, weekday: number): string {
  const slot = Math.floor(minute / 30);
  return weekday === 0 || weekday === 6 ? s.weekends[slot] : s.weekdays[slot];
}

/** The bands a schedule names, in first-use order. */
export function bandNames(periods: readonly BandPeriod[]): string[] {
  return [...new Set(periods.map((p) => p.band))];
}
