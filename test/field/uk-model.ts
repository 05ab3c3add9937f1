// An independent model of the UK business calendar for the field tests: bank holidays of England
// and Wales derived from the rules (not the service's table), and UK local time from Intl
// (not the service's summer-time arithmetic).

/** Easter Sunday (anonymous Gregorian computus), as a UTC date. */
function easter(y: number): Date {
  const a = y % 19,
    b = Math.floor(y / 100),
    c = y % 100,
    d = Math.floor(b / 4),
    e = b % 4;
  const f = Math.floor((b + 8) / 25),
    g = Math.floor((b - f + 1) / 3),
    h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4),
    k = c % 4,
    l = (32 + 2 * e + 2 * i - h - k) % 7,
    m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31),
    day = ((h + l - 7 * m + 114) % 31) + 1;
  return new Date(Date.UTC(y, month - 1, day));
}

const iso = (d: Date) => d.toISOString().slice(0, 10);
const plus = (d: Date, n: number) => new Date(d.getTime() + n * 86_400_000);

/** Bank holidays of England and Wales by the standing rules (no one-off extra days). */
export function ruleHolidays(y: number): string[] {
  const out: string[] = [];
  const firstMonday = (m: number) => {
    let d = new Date(Date.UTC(y, m, 1));
    while (d.getUTCDay() !== 1) d = plus(d, 1);
    return d;
  };
  const lastMonday = (m: number) => {
    let d = new Date(Date.UTC(y, m + 1, 0));
    while (d.getUTCDay() !== 1) d = plus(d, -1);
    return d;
  };
  let ny = new Date(Date.UTC(y, 0, 1));
  while (ny.getUTCDay() === 0 || ny.getUTCDay() === 6) ny = plus(ny, 1);
  out.push(iso(ny));
  const e = easter(y);
  out.push(iso(plus(e, -2)), iso(plus(e, 1)), iso(firstMonday(4)), iso(lastMonday(4)), iso(lastMonday(7)));
  // Christmas and Boxing Day, each on the next weekday the other has not taken.
  const taken = new Set<string>();
  for (const day of [25, 26]) {
    let d = new Date(Date.UTC(y, 11, day));
    while (d.getUTCDay() === 0 || d.getUTCDay() === 6 || taken.has(iso(d))) d = plus(d, 1);
    taken.add(iso(d));
    out.push(iso(d));
  }
  return out;
}

const holidays = new Set<string>();
for (let y = 2024; y <= 2030; y++) for (const d of ruleHolidays(y)) holidays.add(d);

const fmt = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/London',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  weekday: 'short',
  hourCycle: 'h23',
});
const byHour = new Map<number, { date: string; weekday: string; hour: number }>();

/** UK local date, weekday and minute of day of instant t (whole minutes). */
export function ukLocal(t: number): { date: string; weekday: string; minute: number } {
  const h = Math.floor(t / 3_600_000) * 3_600_000;
  let p = byHour.get(h);
  if (!p) {
    const parts = Object.fromEntries(fmt.formatToParts(new Date(h)).map((x) => [x.type, x.value]));
    p = { date: `${parts.year}-${parts.month}-${parts.day}`, weekday: parts.weekday, hour: Number(parts.hour) };
    byHour.set(h, p);
  }
  return { date: p.date, weekday: p.weekday, minute: p.hour * 60 + Math.floor((t - h) / 60_000) };
}

export interface ModelCalendar {
  measure: 'calendar_hours' | 'business_hours';
  business_day_start: string;
  business_day_end: string;
}

const hm = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));

/** Whether the minute starting at t counts towards an SLA in this calendar. */
export function counts(c: ModelCalendar, t: number): boolean {
  if (c.measure === 'calendar_hours') return true;
  const l = ukLocal(t);
  if (l.weekday === 'Sat' || l.weekday === 'Sun' || holidays.has(l.date)) return false;
  return l.minute >= hm(c.business_day_start) && l.minute < hm(c.business_day_end);
}
