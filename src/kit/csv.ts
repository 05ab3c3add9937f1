// The one CSV writer (src/kit): CSV per RFC 4180: fields with a comma, quote, CR or LF are quoted and quotes doubled; records end
// with CRLF. A text field that a spreadsheet would run as a formula (starting with = + - @, tab or
// CR) gets a leading apostrophe, so an exported log cannot carry a formula into someone's sheet.
const NEEDS_QUOTES = /[",\r\n]/;
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let s = typeof value === 'string' ? value : value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && FORMULA_START.test(s)) s = `'${s}`;
  return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvRecord(values: unknown[]): string {
  return values.map(csvField).join(',') + '\r\n';
}
