// UK local time for settlement periods: a day is counted from local midnight (Europe/London), so it
// has 48 half hours, 46 on the spring clock change and 50 on the autumn one. Instants are epoch ms
// and are answered in UTC with `Z`. UK offsets are whole hours, so UTC half hours are local ones.

export const SLOT_MS = 30 * 60_000;
const DAY_MS = 24 * 3600_000;

const LONDON = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/London',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

function londonParts(t: number) {
  const p: Record<string, number> = {};
  for (const part of LONDON.formatToParts(new Date(t))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return p as { year: number; month: number; day: number; hour: number; minute: number; second: number };
}

/** UK offset from UTC at instant t, in ms (0 in GMT, 3 600 000 in BST). */
export function ukOffsetMs(t: number): number {
  const s = Math.floor(t / 1000) * 1000;
  const p = londonParts(s);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - s;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** The UK local calendar date of instant t, YYYY-MM-DD. */
export function ukDate(t: number): string {
  const p = londonParts(t);
  return `${p.year}-${pad(p.month)}-${pad(p.day)}`;
}

function ymd(date: string): [number, number, number] {
  const [y, m, d] = date.split('-').map(Number);
  return [y, m, d];
}

/** The UK days the service's calendar covers: a date outside them is refused where one is asked for. */
export const FIRST_SERVICE_DATE = '2000-01-01';
export const LAST_SERVICE_DATE = '2099-12-31';

/**
 * YYYY-MM-DD naming a day the calendar has, in a year from 100 (`Date.parse` rolls 2026-02-30 over to
 * 2 March and a date column refuses it; Date.UTC reads years before 100 as 19xx; the store has no
 * year 0).
 */
export function isCalendarDay(date: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return false;
  const [y, m, d] = ymd(date);
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/**
 * A UK local date the service can work with: a calendar day from 2000-01-01 to 2099-12-31 (outside
 * it UK clock rules are not known, and the day after 9999-12-31 has no ISO date).
 */
export function isServiceDate(date: string): boolean {
  return isCalendarDay(date) && date >= FIRST_SERVICE_DATE && date <= LAST_SERVICE_DATE;
}

/** The instant of 00:00 UK local time on a date (never ambiguous: UK clocks change at 01:00 UTC). */
export function ukMidnight(date: string): number {
  const [y, m, d] = ymd(date);
  const guess = Date.UTC(y, m - 1, d);
  let t = guess - ukOffsetFast(guess);
  if (guess - ukOffsetFast(t) !== t) t = guess - ukOffsetFast(t);
  return t;
}

export function addDays(date: string, n: number): string {
  const [y, m, d] = ymd(date);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

/** Half hours in a UK local day: 48, 46 (clocks forward) or 50 (clocks back). */
export function slotsInDay(date: string): number {
  return Math.round((ukMidnight(addDays(date, 1)) - ukMidnight(date)) / SLOT_MS);
}

/** Settlement date and period (1-based, counted from local midnight) of instant t. */
export function settlementPeriod(t: number): { date: string; period: number } {
  const date = ukDate(t);
  return { date, period: Math.floor((t - ukMidnight(date)) / SLOT_MS) + 1 };
}

/** UK local dates whose day overlaps [from, to). */
export function datesCovering(from: number, to: number): string[] {
  const out: string[] = [];
  for (let d = ukDate(from); ukMidnight(d) < to; d = addDays(d, 1)) out.push(d);
  return out;
}

export const floorSlot = (t: number) => Math.floor(t / SLOT_MS) * SLOT_MS;
export const ceilSlot = (t: number) => Math.ceil(t / SLOT_MS) * SLOT_MS;

/** ISO 8601 in UTC with Z and seconds, no fraction: 2026-03-29T00:00:00Z. */
export function isoZ(t: number | Date): string {
  return `${new Date(t).toISOString().slice(0, 19)}Z`;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2})$/;

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function validDay(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= (m === 2 ? (leap ? 29 : 28) : MONTH_DAYS[m - 1]);
}

/**
 * An ISO 8601 date-time with an explicit offset (Z or ±hh:mm), or a date YYYY-MM-DD meaning UK
 * local midnight of that day. A date-time without an offset is refused (null): the providers read
 * it as UK local time and the answer would shift by an hour in summer.
 */
export function parseInstant(raw: string): number | null {
  // The common form (UTC, Z, seconds, optional milliseconds), read digit by digit: a year of half
  // hours in one request is 17 520 of them.
  const fast = parseIsoZ(raw);
  if (fast !== undefined) return fast;
  // The same form with a year before 100 (Date.UTC would read 0050 as 1950): Date.parse, and the
  // round trip refuses what it would roll over (30 February, 24:00).
  if (ISO_Z.test(raw)) {
    const t = Date.parse(raw);
    return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 19) === raw.slice(0, 19) ? t : null;
  }
  // A '+' sent unencoded in a query string arrives as a space.
  const text = raw.trim().replace(/ (\d{2}:?\d{2})$/, '+$1');
  const dm = DATE_RE.exec(text);
  if (dm) {
    const [y, m, d] = [Number(dm[1]), Number(dm[2]), Number(dm[3])];
    return validDay(y, m, d) ? ukMidnight(text) : null;
  }
  const m = DATETIME_RE.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0));
  if (!validDay(y, mo, d) || h > 23 || mi > 59 || s > 59) return null;
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  let offset = 0;
  if (!/^[Zz]$/.test(m[8])) {
    const o = m[8].replace(':', '');
    const oh = Number(o.slice(1, 3));
    const om = Number(o.slice(3, 5));
    if (oh > 18 || om > 59) return null;
    offset = (o[0] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  return Date.UTC(y, mo - 1, d, h, mi, s, ms) - offset;
}

const digit = (s: string, i: number) => {
  const c = s.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -1;
};
const num = (s: string, i: number, n: number) => {
  let v = 0;
  for (let k = i; k < i + n; k++) {
    const d = digit(s, k);
    if (d < 0) return -1;
    v = v * 10 + d;
  }
  return v;
};

/**
 * YYYY-MM-DDTHH:MM:SSZ or YYYY-MM-DDTHH:MM:SS.mmmZ: the instant, null when a field is out of range
 * (30 February, 24:00), undefined when the text is not of this form (or its year is before 100).
 */
function parseIsoZ(s: string): number | null | undefined {
  const n = s.length;
  if ((n !== 20 && n !== 24) || s.charCodeAt(n - 1) !== 90 /* Z */) return undefined;
  if (s[4] !== '-' || s[7] !== '-' || s[10] !== 'T' || s[13] !== ':' || s[16] !== ':') return undefined;
  if (n === 24 && s[19] !== '.') return undefined;
  const y = num(s, 0, 4),
    mo = num(s, 5, 2),
    d = num(s, 8, 2),
    h = num(s, 11, 2),
    mi = num(s, 14, 2),
    sec = num(s, 17, 2);
  const ms = n === 24 ? num(s, 20, 3) : 0;
  if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || sec < 0 || ms < 0) return undefined;
  if (y < 100) return undefined;
  if (!validDay(y, mo, d) || h > 23 || mi > 59 || sec > 59) return null;
  return Date.UTC(y, mo - 1, d, h, mi, sec, ms);
}

/** UK local wall-clock text of an instant with its offset (2026-10-25T01:00:00+01:00). */
export function ukLocalIso(t: number): string {
  const off = ukOffsetFast(t);
  const local = new Date(t + off).toISOString().slice(0, 19);
  return `${local}${off ? '+01:00' : '+00:00'}`;
}

/** Milliseconds in n days, for range limits. */
export const days = (n: number) => n * DAY_MS;

// ---- Fast local clock facts for long runs of half hours -------------------------------------------
// Pricing a year of half hours needs the local clock of each one; Intl for every instant is too slow.
// The UK's summer-time windows are found once per year (from the same Intl zone data, by bisection)
// and cached, so each half hour costs arithmetic only.

const HOUR_MS = 3600_000;
const summerWindows = new Map<number, [number, number] | null>();

/** [start, end) in UTC ms of UK summer time in a year, null if none; from the Europe/London zone data. */
function summerWindow(year: number): [number, number] | null {
  const hit = summerWindows.get(year);
  if (hit !== undefined) return hit;
  // The first and last instant of the year in summer time, hour by hour around each change.
  const jan = Date.UTC(year, 0, 1);
  const jul = Date.UTC(year, 6, 1);
  const dec = Date.UTC(year, 11, 31, 23);
  let out: [number, number] | null = null;
  if (ukOffsetMs(jul) !== 0) {
    const edge = (lo: number, hi: number, inSummerAtHi: boolean) => {
      // Smallest hour in (lo, hi] whose summer state equals the state at hi.
      while (hi - lo > HOUR_MS) {
        const mid = lo + Math.floor((hi - lo) / 2 / HOUR_MS) * HOUR_MS;
        if ((ukOffsetMs(mid) !== 0) === inSummerAtHi) hi = mid;
        else lo = mid;
      }
      return hi;
    };
    const start = edge(jan, jul, true);
    const end = edge(jul, dec, false);
    out = [start, end];
  }
  summerWindows.set(year, out);
  return out;
}

/** UK offset from UTC at instant t, in ms, from the cached summer-time window of its year. */
let lastYear: { from: number; to: number; window: [number, number] | null } = { from: 0, to: 0, window: null };
export function ukOffsetFast(t: number): number {
  if (!(t >= lastYear.from && t < lastYear.to)) {
    const y = new Date(t).getUTCFullYear();
    lastYear = { from: Date.UTC(y, 0, 1), to: Date.UTC(y + 1, 0, 1), window: summerWindow(y) };
  }
  const w = lastYear.window;
  return w && t >= w[0] && t < w[1] ? HOUR_MS : 0;
}

const dayNames = new Map<number, string>();

export interface UkClock {
  /** UK local date, YYYY-MM-DD. */
  date: string;
  /** Minutes since local midnight by the clock on the wall (the repeated autumn hour repeats them). */
  minute: number;
  /** Day of the week of the local date, 0 = Sunday. */
  weekday: number;
  /** Settlement period: 1-based half hour counted from local midnight (to 46 or 50 on clock-change days). */
  period: number;
}

/** The UK local clock at instant t (UTC ms): date, wall-clock minute, weekday, settlement period. */
export function ukClock(t: number): UkClock {
  const local = t + ukOffsetFast(t);
  const day = Math.floor(local / DAY_MS);
  let date = dayNames.get(day);
  if (date === undefined) {
    date = new Date(day * DAY_MS).toISOString().slice(0, 10);
    dayNames.set(day, date);
  }
  // Local midnight: the UK changes clocks at 01:00 UTC, never near midnight, so the offset in force
  // at midnight is the one that makes the instant and its offset agree.
  const summerMidnight = day * DAY_MS - HOUR_MS;
  const midnight = ukOffsetFast(summerMidnight) === HOUR_MS ? summerMidnight : day * DAY_MS;
  return {
    date,
    minute: Math.floor((local - day * DAY_MS) / 60_000),
    weekday: (day + 4) % 7,
    period: Math.floor((t - midnight) / SLOT_MS) + 1,
  };
}
