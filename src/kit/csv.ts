// The one CSV writer (src/kit): CSV per RFC 4180: fields with a comma, quote, CR or LF are quoted and quotes doubled; records end
// with CRLF. A text field that a spreadsheet would run as a formula (starting with = + - @, tab or
// CR) gets a leading apostrophe, so an exported log cannot carry a formula into someone's sheet.
// Text that is a plain negative decimal (`-0.500`, as PostgreSQL writes a numeric or bigint kept as
// exact text) is a number to a spreadsheet, never a formula, and is written as it is (decision 0504).
//
// And the one way CSV files are read (csvRecords): csv-parse, bounded in records and in records of
// the wrong width, any of LF, CRLF and CR ending a line (decision 0504).
import { parse } from 'csv-parse/sync';

const NEEDS_QUOTES = /[",\r\n]/;
const FORMULA_START = /^[=+\-@\t\r]/;
const NEGATIVE_DECIMAL = /^-\d+(\.\d+)?$/;

export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let s = typeof value === 'string' ? value : value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && FORMULA_START.test(s) && !NEGATIVE_DECIMAL.test(s)) s = `'${s}`;
  return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvRecord(values: unknown[]): string {
  return values.map(csvField).join(',') + '\r\n';
}

/**
 * How a CSV file is read (csv-parse options): a byte order mark dropped, fields trimmed, empty lines
 * skipped, and each of CRLF, LF and CR ending a line, in one file too (csv-parse otherwise takes the
 * first line's ending for every line, and a file edited on two systems read as one long record).
 */
export function csvReadOptions() {
  return { bom: true, trim: true, skip_empty_lines: true, record_delimiter: ['\r\n', '\n', '\r'] };
}

/** Thrown from inside the parser to stop it reading (csv-parse hands it back as it is). */
const STOP = new Error('csv read stopped');

/**
 * The records of a CSV file (the header is the first), each its fields as text, read with
 * csvReadOptions. Reading stops after `maxRecords` records (a caller refusing more than N rows
 * passes N + 2: the header, N rows and one more to tell), and after `maxWrongWidth` records whose
 * number of fields differs from the first record's (the caller names no more bad rows than that):
 * csv-parse makes an Error of every such record, tens of microseconds each, which for a megabyte
 * of short lines held the event loop for seconds. `stopped`: reading stopped at a limit (the file
 * may hold more).
 * Throws csv-parse's CsvError when the text is not CSV (a quote never closed).
 */
export function csvRecords(text: string, limits: { maxRecords: number; maxWrongWidth: number }): { records: string[][]; stopped: boolean } {
  const records: string[][] = [];
  let wrong = 0;
  try {
    parse(text, {
      ...csvReadOptions(),
      relax_column_count: true,
      on_record: (record: string[]) => {
        records.push(record);
        if (record.length !== records[0]!.length) wrong++;
        if (records.length >= limits.maxRecords || wrong >= limits.maxWrongWidth) throw STOP;
        return null;
      },
    });
  } catch (e) {
    if (e !== STOP) throw e;
    return { records, stopped: true };
  }
  return { records, stopped: false };
}
