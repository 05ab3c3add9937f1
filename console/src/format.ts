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
