// JSON Lines bytes to CSV records, row by row, without making a JavaScript object of a row
// (decision 0490). The bytes written are those of the kit's csvRecord over each column of
// JSON.parse(line) (decision 0205): text cells formula-safe (decision 0504) and quoted per RFC 4180, numbers as
// JavaScript writes them, objects and arrays as JSON.stringify writes them, null and a missing
// member empty, records ending with CRLF. The lines are what PostgreSQL's row_to_json writes
// (decision 0206); a line this reader does not follow to the letter (members not in column order,
// a key JavaScript would reorder or merge, an escape JSON.stringify would write otherwise, an
// infinite number) takes the kit's own path: JSON.parse and csvField, so the bytes are the same.
import { csvField } from '../../kit/csv.ts';

interface Out {
  write(src: Uint8Array, from?: number, to?: number): void;
  text(s: string): void;
}

const Q = 0x22; // "
const BS = 0x5c; // \
const COMMA = 0x2c;
const COLON = 0x3a;
const CR = 0x0d;
const LF = 0x0a;

/** A cell's bytes, growing as needed and reused from row to row. */
class Bytes {
  buf = Buffer.allocUnsafe(4096);
  n = 0;
  room(k: number) {
    if (this.n + k <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.n + k, this.buf.length * 2));
    this.buf.copy(next, 0, 0, this.n);
    this.buf = next;
  }
  byte(b: number) {
    if (this.n === this.buf.length) this.room(1);
    this.buf[this.n++] = b;
  }
  copy(src: Buffer, from: number, to: number) {
    this.room(to - from);
    const buf = this.buf;
    if (to - from > 48) src.copy(buf, this.n, from, to);
    else for (let i = from, j = this.n; i < to; i++, j++) buf[j] = src[i];
    this.n += to - from;
  }
  ascii(s: string) {
    this.room(s.length);
    this.n += this.buf.write(s, this.n, 'latin1');
  }
}

/** Thrown inside a row the reader does not follow: the row takes the kit's path. */
class NotFollowed extends Error {}
const notFollowed = new NotFollowed();

const isWs = (c: number) => c === 0x20 || c === 0x09 || c === LF || c === CR;
const hex = (c: number) => (c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1);
const SIMPLE_ESCAPE: Record<number, number> = { 0x22: Q, 0x5c: BS, 0x2f: 0x2f, 0x62: 0x08, 0x66: 0x0c, 0x6e: LF, 0x72: CR, 0x74: 0x09 };
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

export class CsvFromJsonLines {
  private readonly columns: readonly string[];
  /** Each column's key as row_to_json writes it (with its quotes). */
  private readonly keys: Buffer[];
  private readonly rec = new Bytes();
  private readonly cell = new Bytes();
  /** Key spans of the objects being read (start, end pairs), to find a key given twice. */
  private readonly seen: number[] = [];
  private b: Buffer = Buffer.alloc(0);
  private p = 0;

  constructor(columns: readonly string[]) {
    this.columns = columns;
    this.keys = columns.map((c) => Buffer.from(JSON.stringify(c)));
  }

  /** A part's lines (each ending with \n) as CSV records, written to out. */
  part(body: Buffer, out: Out) {
    this.b = body;
    let at = 0;
    for (let nl = body.indexOf(LF, at); nl >= 0; at = nl + 1, nl = body.indexOf(LF, at)) {
      let followed = false;
      try {
        followed = this.columns.length > 0 && this.row(at, nl);
      } catch (e) {
        if (!(e instanceof NotFollowed)) throw e;
      }
      if (followed) out.write(this.rec.buf, 0, this.rec.n);
      else out.text(this.kitRecord(body.toString('utf8', at, nl)));
    }
  }

  /** The kit's path (the one before decision 0490). */
  private kitRecord(line: string): string {
    const row = JSON.parse(line) as Record<string, unknown>;
    let rec = '';
    const last = this.columns.length - 1;
    for (let i = 0; i <= last; i++) {
      const cell = csvField(row[this.columns[i]]);
      rec += i === last ? `${cell}\r\n` : `${cell},`;
    }
    return rec;
  }

  /** One line, [start, end): true when this.rec holds its record. */
  private row(start: number, end: number): boolean {
    const b = this.b;
    const rec = this.rec;
    rec.n = 0;
    this.p = start;
    if (b[this.p++] !== 0x7b) return false;
    for (let i = 0; i < this.keys.length; i++) {
      const k = this.keys[i];
      if (this.p + k.length > end) return false;
      for (let j = 0, at = this.p; j < k.length; j++, at++) if (b[at] !== k[j]) return false;
      this.p += k.length;
      if (b[this.p++] !== COLON) return false;
      this.cellValue(end);
      const sep = b[this.p++];
      if (i < this.keys.length - 1) {
        if (sep !== COMMA) return false;
        rec.byte(COMMA);
      } else if (sep !== 0x7d) return false;
    }
    if (this.p !== end) return false;
    rec.byte(CR);
    rec.byte(LF);
    return true;
  }

  /** One member's value as csvField writes it, appended to rec. */
  private cellValue(end: number) {
    const b = this.b;
    const c = b[this.p];
    if (c === Q) {
      this.cell.n = 0;
      this.string(end, true);
      const cell = this.cell;
      const f = cell.n > 0 ? cell.buf[0] : -1;
      // A formula's first character: = + - @ tab CR; a plain negative decimal is a number (csvField).
      const formula = f === 0x3d || f === 0x2b || (f === 0x2d && !this.negativeDecimal()) || f === 0x40 || f === 0x09 || f === CR;
      this.emitCell(formula);
    } else if (c === 0x7b || c === 0x5b) {
      this.cell.n = 0;
      this.seen.length = 0;
      this.json(end);
      this.emitCell(false);
    } else if (c === 0x6e) this.literal('null', end, false);
    else if (c === 0x74) this.literal('true', end, true);
    else if (c === 0x66) this.literal('false', end, true);
    else this.number(end, this.rec);
  }

  /** The cell (starting with '-') is -digits, or -digits.digits: the kit writes it without an apostrophe. */
  private negativeDecimal(): boolean {
    const { buf, n } = this.cell;
    let i = 1;
    while (i < n && buf[i] >= 0x30 && buf[i] <= 0x39) i++;
    if (i === 1) return false;
    if (i === n) return true;
    if (buf[i] !== 0x2e) return false;
    const point = i++;
    while (i < n && buf[i] >= 0x30 && buf[i] <= 0x39) i++;
    return i === n && i > point + 1;
  }

  private literal(word: string, end: number, write: boolean) {
    const b = this.b;
    if (this.p + word.length > end) throw notFollowed;
    for (let i = 0; i < word.length; i++) if (b[this.p + i] !== word.charCodeAt(i)) throw notFollowed;
    this.p += word.length;
    if (write) this.rec.ascii(word);
  }

  /** The cell's bytes into rec: with a leading apostrophe (formula), quoted and quotes doubled when needed. */
  private emitCell(formula: boolean) {
    const { buf, n } = this.cell;
    let quote = false;
    for (let i = 0; i < n; i++) {
      const c = buf[i];
      if (c === Q || c === COMMA || c === CR || c === LF) {
        quote = true;
        break;
      }
    }
    const rec = this.rec;
    if (quote) rec.byte(Q);
    if (formula) rec.byte(0x27);
    if (!quote) rec.copy(buf, 0, n);
    else {
      let from = 0;
      for (let i = 0; i < n; i++) {
        if (buf[i] !== Q) continue;
        rec.copy(buf, from, i + 1);
        rec.byte(Q);
        from = i + 1;
      }
      rec.copy(buf, from, n);
      rec.byte(Q);
    }
  }

  /**
   * A JSON string at p. decode: its decoded UTF-8 appended to cell (a text cell); else (inside an
   * object or array cell) copied to cell as written, quotes and all, when JSON.stringify would write
   * it the same (else not followed).
   */
  private string(end: number, decode: boolean) {
    const b = this.b;
    const cell = this.cell;
    const start = this.p;
    let p = start + 1;
    let from = p;
    for (;;) {
      if (p >= end) throw notFollowed;
      const c = b[p];
      if (c === Q) break;
      if (c < 0x20) throw notFollowed;
      if (c !== BS) {
        p++;
        continue;
      }
      if (decode) {
        cell.copy(b, from, p);
        p = this.decodedEscape(p, end);
        from = p;
      } else p = this.canonicalEscape(p, end);
    }
    if (decode) cell.copy(b, from, p);
    else cell.copy(b, start, p + 1);
    this.p = p + 1;
  }

  /** The escape at p (a backslash) decoded to UTF-8 and appended to cell; answers the position after it. */
  private decodedEscape(p: number, end: number): number {
    const b = this.b;
    const cell = this.cell;
    const e = b[p + 1];
    const simple = SIMPLE_ESCAPE[e];
    if (simple !== undefined) {
      cell.byte(simple);
      return p + 2;
    }
    if (e !== 0x75 || p + 6 > end) throw notFollowed;
    const u = (hex(b[p + 2]) << 12) | (hex(b[p + 3]) << 8) | (hex(b[p + 4]) << 4) | hex(b[p + 5]);
    if (hex(b[p + 2]) < 0 || hex(b[p + 3]) < 0 || hex(b[p + 4]) < 0 || hex(b[p + 5]) < 0) throw notFollowed;
    if (u >= 0xd800 && u <= 0xdfff) throw notFollowed;
    if (u < 0x80) cell.byte(u);
    else if (u < 0x800) {
      cell.byte(0xc0 | (u >> 6));
      cell.byte(0x80 | (u & 0x3f));
    } else {
      cell.byte(0xe0 | (u >> 12));
      cell.byte(0x80 | ((u >> 6) & 0x3f));
      cell.byte(0x80 | (u & 0x3f));
    }
    return p + 6;
  }

  /** The escape at p (a backslash) when JSON.stringify writes it so (else not followed); answers the position after it. */
  private canonicalEscape(p: number, end: number): number {
    const b = this.b;
    const e = b[p + 1];
    if (e === Q || e === BS || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) return p + 2;
    // JSON.stringify writes \u00xx (lower-case hex) for the controls without a short escape only.
    if (e !== 0x75 || p + 6 > end || b[p + 2] !== 0x30 || b[p + 3] !== 0x30) throw notFollowed;
    const h = b[p + 4];
    const l = b[p + 5];
    if ((h !== 0x30 && h !== 0x31) || hex(l) < 0 || (l >= 0x41 && l <= 0x46)) throw notFollowed;
    const u = ((h - 0x30) << 4) | hex(l);
    if (u === 0x08 || u === 0x09 || u === 0x0a || u === 0x0c || u === 0x0d) throw notFollowed;
    return p + 6;
  }

  /** A number at p as JavaScript writes it (String / JSON.stringify), appended to out. */
  private number(end: number, out: Bytes) {
    const b = this.b;
    const start = this.p;
    let p = start;
    while (p < end) {
      const c = b[p];
      if ((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45) p++;
      else break;
    }
    if (p === start) throw notFollowed;
    this.p = p;
    // An integer of up to 15 digits without a leading zero is written as it is.
    const neg = b[start] === 0x2d ? 1 : 0;
    let plain = p - start - neg <= 15 && p - start - neg > 0 && !(b[start + neg] === 0x30 && p - start - neg > 1) && !(neg && b[start + 1] === 0x30);
    for (let i = start + neg; plain && i < p; i++) if (b[i] < 0x30 || b[i] > 0x39) plain = false;
    if (plain || this.plainDecimal(start + neg, p)) {
      out.copy(b, start, p);
      return;
    }
    const token = b.toString('latin1', start, p);
    if (!JSON_NUMBER.test(token)) throw notFollowed;
    const v = Number(token);
    if (!Number.isFinite(v)) throw notFollowed;
    out.ascii(String(v));
  }

  /**
   * Digits, a point and digits ([from, to), after any minus sign) that JavaScript writes back the
   * same: no exponent, no leading zero but a lone one before the point, no trailing zero, at most 15
   * significant digits (so no shorter or nearer decimal names the same double), and at least 1e-6
   * (smaller numbers are written with an exponent).
   */
  private plainDecimal(from: number, to: number): boolean {
    const b = this.b;
    let i = from;
    while (i < to && b[i] >= 0x30 && b[i] <= 0x39) i++;
    const intDigits = i - from;
    if (intDigits === 0 || i >= to - 1 || b[i] !== 0x2e || b[to - 1] === 0x30) return false;
    if (intDigits > 1 && b[from] === 0x30) return false;
    for (let k = i + 1; k < to; k++) if (b[k] < 0x30 || b[k] > 0x39) return false;
    let lead = 0;
    if (intDigits === 1 && b[from] === 0x30) {
      for (let k = i + 1; k < to && b[k] === 0x30; k++) lead++;
      if (lead > 5) return false;
      return to - i - 1 - lead <= 15;
    }
    return intDigits + (to - i - 1) <= 15;
  }

  private ws(end: number) {
    while (this.p < end && isWs(this.b[this.p])) this.p++;
  }

  /** A JSON value at p (inside an object or array cell) as JSON.stringify writes it, appended to cell. */
  private json(end: number) {
    const b = this.b;
    const cell = this.cell;
    this.ws(end);
    if (this.p >= end) throw notFollowed;
    const c = b[this.p];
    if (c === 0x7b) {
      this.p++;
      cell.byte(0x7b);
      const frame = this.seen.length;
      this.ws(end);
      if (b[this.p] === 0x7d) this.p++;
      else {
        for (;;) {
          this.ws(end);
          if (b[this.p] !== Q) throw notFollowed;
          const ks = this.p;
          this.string(end, false);
          const ke = this.p;
          this.checkKey(ks, ke, frame);
          this.ws(end);
          if (b[this.p++] !== COLON) throw notFollowed;
          cell.byte(COLON);
          this.json(end);
          this.ws(end);
          const sep = b[this.p++];
          if (sep === 0x7d) break;
          if (sep !== COMMA) throw notFollowed;
          cell.byte(COMMA);
        }
      }
      this.seen.length = frame;
      cell.byte(0x7d);
    } else if (c === 0x5b) {
      this.p++;
      cell.byte(0x5b);
      this.ws(end);
      if (b[this.p] === 0x5d) this.p++;
      else {
        for (;;) {
          this.json(end);
          this.ws(end);
          const sep = b[this.p++];
          if (sep === 0x5d) break;
          if (sep !== COMMA) throw notFollowed;
          cell.byte(COMMA);
        }
      }
      cell.byte(0x5d);
    } else if (c === Q) this.string(end, false);
    else if (c === 0x6e || c === 0x74 || c === 0x66) {
      const word = c === 0x6e ? 'null' : c === 0x74 ? 'true' : 'false';
      const at = this.p;
      for (let i = 0; i < word.length; i++) if (b[at + i] !== word.charCodeAt(i)) throw notFollowed;
      this.p += word.length;
      cell.ascii(word);
    } else this.number(end, cell);
  }

  /**
   * A key [ks, ke) (with its quotes, as written): not followed when JavaScript would move it (an
   * array index comes first in an object) or merge it (a key given twice in one object).
   */
  private checkKey(ks: number, ke: number, frame: number) {
    const b = this.b;
    const len = ke - ks - 2;
    if (len > 0 && len <= 10) {
      let digits = true;
      for (let i = ks + 1; i < ke - 1; i++) if (b[i] < 0x30 || b[i] > 0x39) digits = false;
      if (digits && (len === 1 || b[ks + 1] !== 0x30) && Number(b.toString('latin1', ks + 1, ke - 1)) < 4294967295) throw notFollowed;
    }
    const seen = this.seen;
    for (let i = frame; i < seen.length; i += 2) {
      if (seen[i + 1] - seen[i] !== ke - ks) continue;
      let same = true;
      for (let a = seen[i], k = ks; same && k < ke; a++, k++) same = b[a] === b[k];
      if (same) throw notFollowed;
    }
    seen.push(ks, ke);
  }
}
