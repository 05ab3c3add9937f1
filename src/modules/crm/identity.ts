// A person's identity as erasure matches it (decision 0295): e-mail addresses compared trimmed and
// case-insensitively, phone numbers by E.164 (UK national and international forms are one number),
// names as whole words, case-insensitively. `identityMatcher` replaces every occurrence in a text
// with `[erased]` and never touches a word it merely overlaps ("Ann" leaves "Annual" and "Joann").

import { createHmac } from 'node:crypto';

export const ERASED = '[erased]';

/** An e-mail address as stored and compared: NFC, trimmed, lower-cased. */
export function normaliseEmail(e: string): string {
  return e.normalize('NFC').trim().toLowerCase();
}

/**
 * A phone number in E.164 (`+447700900123`), or null when it is not one. Spaces, dashes, dots,
 * slashes and brackets are dropped; `+` (also `(+44)`) or `00` starts an international number (a
 * `(0)` after the country code is the trunk prefix and dropped: `+44 (0)7700 900123`); a single
 * leading `0` is the UK trunk prefix (`07700 900123` is `+447700900123`); bare digits are read as
 * international.
 * Hand-written rather than libphonenumber: erasure needs one canonical form, not validation of
 * every numbering plan (decision 0295).
 */
export function e164(p: string): string | null {
  let s = p
    .normalize('NFKC')
    .trim()
    .replace(/^\([ \t]*(\+[ \t]*[0-9]{1,3})[ \t]*\)/, '$1 ');
  if (!/^\+?[0-9 \t().\-/]+$/.test(s)) return null;
  const plus = s.startsWith('+');
  s = s.replace(/^(\+?[ \t]*(?:00)?[0-9]{1,3})[ \t]*\(0\)/, '$1');
  let d = s.replace(/[^0-9]/g, '');
  if (plus) {
    /* international */
  } else if (d.startsWith('00')) d = d.slice(2);
  else if (d.startsWith('0')) d = `44${d.slice(1)}`;
  if (d.length < 7 || d.length > 15 || d.startsWith('0')) return null;
  return `+${d}`;
}

/** The suppression list's earlier phone key (decision 0221: digits, a leading 0 as 44), still matched. */
export function legacyPhoneKey(p: string): string {
  const digits = p.replace(/[^0-9]/g, '');
  return digits.startsWith('0') ? `44${digits.slice(1)}` : digits;
}

/**
 * Suppression keys of addresses and numbers, HMAC-SHA256 under the organisation's salt:
 * `email:<normalised>` and `phone:<E.164 digits>`, plus the earlier phone key where it differs
 * (decision 0221's digits; still on older lists).
 */
export function suppressionKeys(salt: string, c: { email?: string | null; phone?: string | null; emails?: string[]; phones?: string[] }): string[] {
  const h = (v: string) => createHmac('sha256', salt).update(v).digest('hex');
  const out = new Set<string>();
  for (const e of [c.email, ...(c.emails ?? [])]) if (e) out.add(h(`email:${normaliseEmail(e)}`));
  for (const p of [c.phone, ...(c.phones ?? [])]) {
    if (!p) continue;
    const n = e164(p);
    if (n) out.add(h(`phone:${n.slice(1)}`));
    if (legacyPhoneKey(p)) out.add(h(`phone:${legacyPhoneKey(p)}`));
  }
  return [...out];
}

/** Every value a person held: names as written, e-mail addresses and numbers as written or normalised. */
export interface HeldValues {
  names: Iterable<string>;
  emails: Iterable<string>;
  phones: Iterable<string>;
}

/**
 * What a store may use to pick candidate rows before matching: every text the matcher changes
 * contains one of `text` once ASCII letters are lower-cased, or one of `digits` once everything
 * but digits is removed. `all` when some value gives no safe anchor (read every row).
 */
export interface Anchors {
  text: string[];
  digits: string[];
  all: boolean;
}

export interface IdentityMatcher {
  /** The text with every occurrence replaced by `[erased]`. */
  redact(text: string): string;
  anchors: Anchors;
  empty: boolean;
}

const WORD = '[\\p{L}\\p{M}\\p{N}_]';
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/**
 * The longest run of ASCII letters and digits of the lower-cased value, leaving out `i`, `k` and `s`:
 * the Kelvin sign and the long s match `k` and `s` case-insensitively and `İ` lower-cases to `i`,
 * but none of them is ASCII (so a text holding them would not hold the anchor).
 */
function anchorOf(v: string): string | null {
  const runs = v.toLowerCase().match(/[a-hjl-rt-z0-9]+/g) ?? [];
  const best = runs.reduce((a, b) => (b.length > a.length ? b : a), '');
  return best.length >= 2 ? best : null;
}

export function identityMatcher(values: HeldValues): IdentityMatcher {
  const anchors: Anchors = { text: [], digits: [], all: false };
  const addAnchor = (v: string) => {
    const a = anchorOf(v);
    if (a) anchors.text.push(a);
    else anchors.all = true;
  };

  // Names: whole words, case-insensitive, any run of white space between words, either apostrophe.
  // A hyphen between letters joins a word: "Ann" leaves "Ann-Marie" (another name).
  const names = [
    ...new Set([...values.names].map((n) => n.normalize('NFC').trim().replace(/\s+/g, ' ')).filter((n) => [...n.replace(/[^\p{L}\p{N}]/gu, '')].length >= 2)),
  ];
  names.sort((a, b) => b.length - a.length);
  names.forEach(addAnchor);
  const namePattern = names.length
    ? new RegExp(
        `(?<!${WORD}|${WORD}-)(?:${names
          .map((n) =>
            n
              .split(' ')
              .map((w) => escape(w).replace(/['\u2019]/g, "['\u2019]"))
              .join('\\s+'),
          )
          .join('|')})(?!${WORD}|-${WORD})`,
        'giu',
      )
    : null;

  // E-mail addresses: a whole address token (not a longer address that ends with it).
  const emails = new Set([...values.emails].map(normaliseEmail).filter((e) => e.includes('@')));
  emails.forEach(addAnchor);
  // Starts only where a run of address characters starts (the look-behind keeps the scan linear).
  const LOCAL = "[\\p{L}\\p{M}\\p{N}._%+\\-'!#$&*/=?^`{|}~]";
  const EMAIL = `(?<!${LOCAL})${LOCAL}+@[\\p{L}\\p{M}\\p{N}\\-]+(?:\\.[\\p{L}\\p{M}\\p{N}\\-]+)*`;
  const EMAIL_TOKEN = new RegExp(EMAIL, 'gu');
  const EMAIL_SPLIT = new RegExp(`(${EMAIL})`, 'u');

  // Numbers: compared in E.164. The digits after a country code (at most 3) are contiguous in every
  // written form once separators are dropped: the last (length - 3) digits anchor a number.
  const phones = new Set([...values.phones].map(e164).filter((p): p is string => p !== null));
  for (const p of phones) anchors.digits.push(p.slice(4));
  const tails = [...new Set(anchors.digits)];

  const empty = !namePattern && !emails.size && !phones.size;

  function redactPhones(text: string): string {
    if (!phones.size) return text;
    // Runs of digit groups joined by at most 3 separators; each sub-run (at most 18 digits) is tried.
    const RUN = /[0-9]+(?:[ \t\u00a0().\-/]{1,3}[0-9]+)*/g;
    const out: string[] = [];
    let last = 0;
    for (const m of text.matchAll(RUN)) {
      const base = m.index!;
      const groups = [...m[0].matchAll(/[0-9]+/g)].map((g) => ({ start: base + g.index!, end: base + g.index! + g[0].length, n: g[0].length }));
      let i = 0;
      while (i < groups.length) {
        let hit: { start: number; end: number } | null = null;
        let digits = '';
        for (let j = i; j < groups.length && (digits += text.slice(groups[j]!.start, groups[j]!.end)).length <= 18; j++) {
          // A written number ends with its E.164 digits after the country code (the anchors).
          if (!tails.some((t) => digits.endsWith(t))) continue;
          let start = groups[i]!.start;
          const end = groups[j]!.end;
          if (text[start - 1] === '+' || text[start - 1] === '(') start--;
          if (text[start - 1] === '+') start--;
          // An opening bracket whose closing one is in the number belongs to it: (+44) 7700 900123.
          if (text[start - 1] === '(' && text.slice(start, end).includes(')') && !text.slice(start, end).includes('(')) start--;
          const before = text[start - 1];
          const after = text[end];
          if ((before && /[\p{L}\p{N}]/u.test(before)) || (after && /[\p{L}\p{N}]/u.test(after))) continue;
          const n = e164(text.slice(start, end));
          if (n && phones.has(n)) hit = { start, end };
        }
        if (hit && hit.start >= last) {
          out.push(text.slice(last, hit.start), ERASED);
          last = hit.end;
          while (i < groups.length && groups[i]!.start < hit.end) i++;
        } else i++;
      }
    }
    if (!out.length) return text;
    out.push(text.slice(last));
    return out.join('');
  }

  /** A token is the address, or the address after leading punctuation ('quoted', -dashed). */
  function emailToken(tok: string): string {
    const core = tok.replace(/\.+$/, '');
    const lead = core.match(/^[^\p{L}\p{M}\p{N}]+/u)?.[0] ?? '';
    if (emails.has(normaliseEmail(core))) return ERASED + tok.slice(core.length);
    if (lead && emails.has(normaliseEmail(core.slice(lead.length)))) return lead + ERASED + tok.slice(core.length);
    return tok;
  }

  function redact(text: string): string {
    if (empty || !text) return text;
    let t = text.normalize('NFC');
    if (emails.size) t = t.replace(EMAIL_TOKEN, emailToken);
    t = redactPhones(t);
    // A name inside an e-mail address is part of that address, not a word (ann.old@x is not "Ann").
    if (namePattern)
      t = t
        .split(EMAIL_SPLIT)
        .map((part, i) => (i % 2 ? part : part.replace(namePattern, ERASED)))
        .join('');
    return t === text.normalize('NFC') ? text : t;
  }

  return { redact, anchors, empty };
}
