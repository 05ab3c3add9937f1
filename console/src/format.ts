// Figures with their units, and times in the reader's local time with the zone named.
const dateTime = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
});
const timeOnly = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });

export const zoneName = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

export function when(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}
export function clock(iso: string): string {
  return timeOnly.format(new Date(iso));
}
export function num(v: number | string | null | undefined, unit: string, digits = 2): string {
  if (v === null || v === undefined || v === '') return '—';
  const n = typeof v === 'string' ? Number(v) : v;
  if (!Number.isFinite(n)) return `${v} ${unit}`;
  return `${n.toLocaleString('en-GB', { maximumFractionDigits: digits })} ${unit}`;
}
export function pounds(v: string | number | null | undefined, per = ''): string {
  if (v === null || v === undefined) return '—';
  return `£${Number(v).toLocaleString('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}${per}`;
}
/** Today as a UK local date (YYYY-MM-DD), the day the energy ledger and prices speak of. */
export function ukToday(): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}

/** An axis figure in en-GB (`1,250`, `0.5`). */
export function axisNumber(v: number): string {
  return v.toLocaleString('en-GB', { maximumFractionDigits: 3 });
}

const axisTime = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const axisDay = new Intl.DateTimeFormat('en-GB', { day: '2-digit', month: '2-digit' });
const axisMonth = new Intl.DateTimeFormat('en-GB', { month: 'short', year: 'numeric' });
/**
 * Time-axis labels in en-GB, local time: 24-hour `HH:mm` ticks with `dd/mm` under the first tick
 * of each day; `dd/mm` ticks once a tick spans a day; `Nov 2026` once it spans a month.
 * `splits` are seconds since the epoch, `step` the tick spacing in seconds.
 */
export function axisLabels(splits: number[], step: number): string[] {
  let day = '';
  return splits.map((s) => {
    const d = new Date(s * 1000);
    if (step >= 28 * 86_400) return axisMonth.format(d);
    const dm = axisDay.format(d);
    if (step >= 86_400) return dm;
    const label = dm !== day ? `${axisTime.format(d)}\n${dm}` : axisTime.format(d);
    day = dm;
    return label;
  });
}

/**
 * A day as the console writes it (en-GB, `24/11/2026`). The browser's own date input is not used:
 * headless and some desktop Chromium builds show it as `11/24/2026` whatever the page's language
 * or the browser's locale (issue 41, item 3).
 */
export function dayText(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  return m ? `${m[3]}/${m[2]}/${m[1]}` : iso;
}
/**
 * The ISO day (YYYY-MM-DD) of what a person typed: `24/11/2026`, `24-11-2026`, `24.11.2026`,
 * `1/2/2026` (day first, as in the UK) or `2026-11-24`; null unless it is a whole, real day.
 */
export function parseDay(text: string): string | null {
  const t = text.trim();
  let y: number;
  let mo: number;
  let d: number;
  let m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(t);
  if (m) [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  else {
    m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(t);
    if (!m) return null;
    [d, mo, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  }
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return date.toISOString().slice(0, 10);
}
/** The ISO day `n` days from `iso`. */
export function addDays(iso: string, n: number): string {
  return new Date(Date.parse(`${iso}T12:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

/** The minutes past midnight of a 24-hour time as typed (`14:30`, `9.05`, `0930`); null unless real. */
export function parseTime(text: string): number | null {
  const m = /^(\d{1,2})[:.h]?(\d{2})$/.exec(text.trim());
  if (!m) return null;
  const [h, mi] = [Number(m[1]), Number(m[2])];
  return h < 24 && mi < 60 ? h * 60 + mi : null;
}
/** The instant (ISO, UTC) of a local day and 24-hour time as typed; null unless both are real. */
export function parseDayTime(day: string, time: string): string | null {
  const iso = parseDay(day);
  const minutes = parseTime(time);
  if (!iso || minutes === null) return null;
  const [y, mo, d] = iso.split('-').map(Number);
  const at = new Date(y, mo - 1, d, Math.floor(minutes / 60), minutes % 60);
  // A time the clocks skip (the spring change) does not exist that day.
  return at.getHours() * 60 + at.getMinutes() === minutes ? at.toISOString() : null;
}
