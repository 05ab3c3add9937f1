// The one CSV writer (src/kit): CSV per RFC 4180: fields with a comma, quote, CR or LF are quoted and quotes doubled; records end
// with CRLF. A text field that a spreadsheet would run as a formula (starting with = + - @, tab or
// CR) gets a leading apostrophe, so an exported log cannot carry a formula into someone's sheet.
// Text that is a plain negative decimal (`-0.500`, as PostgreSQL writes a numeric or bigint kept as
// exact text) is a number to a spreadsheet, never a formula, and is written as it is (decision 0504).
//
// And the one way CSV files are read (csvRecords): csv-parse, bounded in records and in records of
// the wrong width, any of LF, CRLF and CR ending a line (decision 0504).
import { setImmediate as turn } from 'node:timers/promises';
import { Parser } from 'csv-parse';

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
function csvReadOptions() {
  return { bom: true, trim: true, skip_empty_lines: true, record_delimiter: ['\r\n', '\n', '\r'] };
}

/** Thrown from inside the parser to stop it reading (csv-parse hands it back as it is). */
const STOP = new Error('csv read stopped');

const LF = 0x0a;
const CR = 0x0d;
/** Bytes the parser reads before the event loop gets a turn: a few milliseconds of parsing at most. */
const TURN_BYTES = 16 * 1024;

/**
 * The records of a CSV file (the header is the first), each its fields as text, and the line each
 * record ends on (1 is the first line; CRLF, LF and CR each end one; empty lines are skipped and a
 * quoted field may hold line ends, so a record's line is not its index + 1), read with
 * csvReadOptions.
 *
 * Bounded, because the file is a stranger's (decisions 0504, 0513):
 * - reading stops after `maxRecords` records (a caller refusing more than N rows passes N + 2: the
 *   header, N rows and one more to tell), and after `maxWrongWidth` records whose number of fields
 *   differs from the first record's (the caller names no more bad rows than that): csv-parse makes
 *   an Error of every such record, tens of microseconds each;
 * - the parser takes the file 16 KiB at a time and gives the event loop a turn between pieces. A
 *   megabyte of CSV costs csv-parse 0.2-0.3 s whatever it holds (one record of a million empty
 *   fields, or twenty thousand short rows), and that was every other request's wait.
 * `stopped`: reading stopped at a limit (the file may hold more).
 * Rejects with csv-parse's CsvError when the text is not CSV (a quote never closed); its `lines`
 * names the line.
 */
export async function csvRecords(
  text: string,
  limits: { maxRecords: number; maxWrongWidth: number },
): Promise<{ records: string[][]; lines: number[]; stopped: boolean }> {
  const records: string[][] = [];
  const lines: number[] = [];
  let wrong = 0;
  const bytes = Buffer.from(text);
  // Line ends counted so far, in bytes[0, scanned). csv-parse's own `info.lines` counts a CRLF
  // inside a quoted field as two lines; the record's offset (`info.bytes`, just past its line end)
  // is exact.
  let scanned = 0;
  let ends = 0;
  const parser = new Parser({
    ...csvReadOptions(),
    relax_column_count: true,
    on_record: (record: string[], info: { bytes: number }) => {
      for (; scanned < info.bytes; scanned++) {
        const b = bytes[scanned];
        if (b === LF) ends++;
        else if (b === CR) {
          ends++;
          if (bytes[scanned + 1] === LF) scanned++;
        }
      }
      const last = bytes[info.bytes - 1];
      records.push(record);
      lines.push(last === LF || last === CR ? ends : ends + 1);
      if (record.length !== records[0]!.length) wrong++;
      if (records.length >= limits.maxRecords || wrong >= limits.maxWrongWidth) throw STOP;
      return null;
    },
  });
  let failure: unknown;
  const ended = new Promise<void>((resolve) => {
    parser.on('error', (e) => {
      failure ??= e;
      resolve();
    });
    parser.on('end', resolve);
  });
  parser.resume();
  for (let at = 0; at < bytes.length && failure === undefined; at += TURN_BYTES) {
    parser.write(bytes.subarray(at, at + TURN_BYTES));
    await turn();
  }
  if (failure === undefined) parser.end();
  await ended;
  if (failure === STOP) return { records, lines, stopped: true };
  if (failure !== undefined) throw failure;
  return { records, lines, stopped: false };
}
