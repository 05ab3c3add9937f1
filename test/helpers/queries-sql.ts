// The SQL a module's stores send, as text a reviewer reads: `generated/queries/<m>.sql` (decisions
// 0331, 0425: generated text lives outside `src`, so it is not read as code). Generated from the store files (`store.ts`, `<area>-store.ts`, any under the module) by a
// scanner of the TypeScript text (strings, template literals with nested `${}`, comments, regular
// expressions), not by a compiler: the string and template literals passed as the first argument of
// `.query(` / `.query<T>(` / `.queryBytes(` (the second of infra/db's `firstRow(q, sql, …)`), and the string constants those literals or calls name, in file order,
// each under `-- <file>: <function or constant>`. A `${NAME}` hole naming such a constant keeps the
// name (the constant is listed too); any other hole reads `${…}`. Only indentation is normalised.
//
//   npm run queries      writes every module's snapshot (test/foundation/queries-sql.test.ts
//                        fails while a checked-in file differs from what this writes)
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MODULES = fileURLToPath(new URL('../../src/modules/', import.meta.url));
/** Where the snapshots live: one `<module>.sql` each, generated, outside `src` (decision 0425). */
export const SNAPSHOTS = fileURLToPath(new URL('../../generated/queries/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The snapshot of a module's SQL. */
export const snapshotPath = (module: string) => join(SNAPSHOTS, `${module}.sql`);
/** Where snapshots were kept before decision 0425; the writer removes one, the test refuses one. */
export const formerPath = (module: string) => join(MODULES, module, 'queries.sql');

/** A token: `text` is a name, a punctuator or a string's text (a template's is '`': its text is `parts` and `holes`). */
interface Token {
  kind: 'ident' | 'punct' | 'other' | 'string' | 'template';
  text: string;
  at: number;
  /** Just past the token in the source. */
  end: number;
  parts?: string[];
  holes?: Token[][];
}

const PUNCT3 = ['===', '!==', '...', '**=', '<<=', '>>=', '&&=', '||=', '??='];
const PUNCT2 = ['=>', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '**', '<<'];

/** Tokens of TypeScript source: comments dropped, string and template literals whole (holes tokenised). */
export function tokenize(src: string): Token[] {
  let i = 0;
  const tokens = (close: boolean): Token[] => {
    const out: Token[] = [];
    let depth = 0;
    while (i < src.length) {
      const c = src[i];
      const n = src[i + 1];
      if (c === '/' && n === '/') {
        while (i < src.length && src[i] !== '\n') i++;
        continue;
      }
      if (c === '/' && n === '*') {
        const e = src.indexOf('*/', i + 2);
        i = e < 0 ? src.length : e + 2;
        continue;
      }
      if (/\s/.test(c)) {
        i++;
        continue;
      }
      const at = i;
      if (c === "'" || c === '"') {
        {
          const text = quoted(c);
          out.push({ kind: 'string', text, at, end: i });
        }
        continue;
      }
      if (c === '`') {
        {
          const tok = template(at);
          out.push(tok);
        }
        continue;
      }
      if (c === '/' && regexAllowed(out)) {
        regex();
        out.push({ kind: 'other', text: src.slice(at, i), at, end: i });
        continue;
      }
      if (/[A-Za-z_$]/.test(c)) {
        while (i < src.length && /[\w$]/.test(src[i])) i++;
        out.push({ kind: 'ident', text: src.slice(at, i), at, end: i });
        continue;
      }
      if (/[0-9]/.test(c)) {
        while (i < src.length && /[\w.]/.test(src[i])) i++;
        out.push({ kind: 'other', text: src.slice(at, i), at, end: i });
        continue;
      }
      if (c === '{') depth++;
      if (c === '}') {
        if (depth === 0 && close) {
          i++;
          return out;
        }
        depth--;
      }
      const p = PUNCT3.find((t) => src.startsWith(t, i)) ?? PUNCT2.find((t) => src.startsWith(t, i)) ?? c;
      i += p.length;
      out.push({ kind: 'punct', text: p, at, end: i });
    }
    return out;
  };
  // A `/` starts a regular expression after an operator, an opening bracket or a keyword, not after a value.
  const regexAllowed = (before: Token[]) => {
    const last = before.at(-1);
    if (!last) return true;
    if (last.kind === 'punct') return ![')', ']', '}'].includes(last.text);
    return last.kind === 'ident' && ['return', 'typeof', 'case', 'in', 'of', 'void', 'throw', 'delete', 'instanceof'].includes(last.text);
  };
  const regex = () => {
    i++;
    let cls = false;
    while (i < src.length) {
      const c = src[i];
      if (c === '\\') {
        i += 2;
        continue;
      }
      if (c === '[') cls = true;
      else if (c === ']') cls = false;
      else if (c === '/' && !cls) {
        i++;
        break;
      } else if (c === '\n') break;
      i++;
    }
    while (i < src.length && /[a-z]/.test(src[i])) i++;
  };
  const quoted = (q: string) => {
    let s = '';
    i++;
    while (i < src.length && src[i] !== q) {
      if (src[i] === '\\') {
        s += src.slice(i, i + 2);
        i += 2;
        continue;
      }
      s += src[i++];
    }
    i++;
    return s;
  };
  const template = (at: number): Token => {
    const parts: string[] = [];
    const holes: Token[][] = [];
    let s = '';
    i++;
    while (i < src.length && src[i] !== '`') {
      if (src[i] === '\\') {
        s += src.slice(i, i + 2);
        i += 2;
        continue;
      }
      if (src[i] === '$' && src[i + 1] === '{') {
        i += 2;
        parts.push(s);
        s = '';
        holes.push(tokens(true));
        continue;
      }
      s += src[i++];
    }
    i++;
    parts.push(s);
    return { kind: 'template', text: '`', parts, holes, at, end: i };
  };
  return tokens(false);
}

const NOT_FUNCTIONS = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'return', 'typeof', 'await', 'new', 'in', 'of', 'super']);

/** The name a function gets from the tokens before its parameter list's `(` at `open`, if any. */
function functionName(t: Token[], open: number): string | undefined {
  let j = open - 1;
  if (t[j]?.text === '>') {
    // Type parameters: name<T, U extends X<Y>>(
    let depth = 0;
    for (; j >= 0; j--) {
      if (t[j].text === '>') depth++;
      else if (t[j].text === '<' && --depth === 0) {
        j--;
        break;
      }
    }
  }
  if (t[j]?.text === 'async') j--;
  const prev = t[j];
  if (prev?.kind === 'ident' && !NOT_FUNCTIONS.has(prev.text)) {
    // `function name(`, or a method `name(` (a call is never followed by a body, which the caller checks).
    return prev.text;
  }
  if (prev?.text === '=' || prev?.text === ':') {
    const name = t[j - 1];
    if (name?.kind === 'ident') return name.text;
  }
  if (prev?.text === 'function') {
    // const name = function (
    if ((t[j - 1]?.text === '=' || t[j - 1]?.text === ':') && t[j - 2]?.kind === 'ident') return t[j - 2].text;
  }
  return undefined;
}

const CLOSER: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** Index just past the bracket group opening at `k`. */
function skipGroup(t: Token[], k: number): number {
  let depth = 0;
  for (; k < t.length; k++) {
    if (t[k].kind !== 'punct') continue;
    if (t[k].text in CLOSER) depth++;
    else if ([')', ']', '}'].includes(t[k].text) && --depth === 0) return k + 1;
  }
  return k;
}

/** Where a function whose parameters close at `k - 1` begins its body, or -1 when none does (a call). */
function bodyStart(t: Token[], k: number): number {
  if (t[k]?.text === ':') {
    // A return type, up to `{` or `=>` outside brackets.
    let angle = 0;
    k++;
    for (; k < t.length; k++) {
      const x = t[k].text;
      if (t[k].kind !== 'punct') continue;
      if (x === '<') angle++;
      else if (x === '>') angle--;
      else if (x === '(' || x === '[') {
        k = skipGroup(t, k) - 1;
        continue;
      } else if (angle === 0 && (x === '{' || x === '=>')) break;
      else if (x === '{') {
        k = skipGroup(t, k) - 1;
        continue;
      } else if (angle === 0 && [',', ';', ')', ']', '}', '='].includes(x)) return -1;
    }
  }
  if (t[k]?.text === '{') return k;
  if (t[k]?.text === '=>') return k + 1;
  return -1;
}

/** Where an expression that starts at `k` ends (exclusive): the `,` or `;` outside brackets, or the closer of an enclosing group. */
function expressionEnd(t: Token[], k: number): number {
  let depth = 0;
  for (; k < t.length; k++) {
    if (t[k].kind !== 'punct') continue;
    const x = t[k].text;
    if (x in CLOSER) depth++;
    else if (x === ')' || x === ']' || x === '}') {
      if (depth === 0) return k;
      depth--;
    } else if (depth === 0 && (x === ',' || x === ';')) return k;
  }
  return k;
}

export interface Statement {
  /** The function, or the constant, the text comes from. */
  label: string;
  at: number;
  sql: string;
}

/** The statements of one store file's source, in file order. */
export function statementsOf(src: string): Statement[] {
  const t = tokenize(src);
  // Named functions: [name, first token of the body, end token (exclusive)].
  const functions: { name: string; from: number; to: number }[] = [];
  for (let k = 0; k < t.length; k++) {
    if (t[k].text !== '(' || t[k].kind !== 'punct') continue;
    const name = functionName(t, k);
    if (!name) continue;
    const b = bodyStart(t, skipGroup(t, k));
    if (b < 0) continue;
    const to = t[b].text === '{' ? skipGroup(t, b) : expressionEnd(t, b);
    functions.push({ name, from: b, to });
  }
  const enclosing = (k: number) => functions.filter((f) => f.from <= k && k < f.to).sort((a, b) => b.from - a.from)[0]?.name;
  // String constants: `const NAME = 'literal'` or a template literal (or either marked `prepared(...)`).
  const constants = new Map<string, { k: number; name: string }[]>();
  for (let k = 0; k + 3 < t.length; k++) {
    if (!['const', 'let'].includes(t[k].text) || t[k + 1].kind !== 'ident' || t[k + 2].text !== '=') continue;
    let v = k + 3;
    // A builder: `const NAME = (params) => literal`.
    if (t[v].text === '(' && t[v].kind === 'punct') {
      const b = bodyStart(t, skipGroup(t, v));
      if (b < 0 || t[b - 1]?.text !== '=>') continue;
      v = b;
    }
    // A statement run prepared: `const NAME = prepared(literal)` (decision 0498).
    if (t[v].text === 'prepared' && t[v + 1]?.text === '(') v += 2;
    if (t[v].kind !== 'string' && t[v].kind !== 'template') continue;
    const name = t[k + 1].text;
    constants.set(name, [...(constants.get(name) ?? []), { k: v, name }]);
  }
  /** The constant `name` stands for at token `k` (the nearest definition before it, else the first). */
  const constantAt = (name: string, k: number) => {
    const defs = constants.get(name);
    if (!defs) return undefined;
    return [...defs].reverse().find((d) => d.k < k) ?? defs[0];
  };
  const picked = new Map<number, string>(); // token index -> label
  const built = new Map<number, { label: string; text: string }>();
  const pickLiteral = (k: number, label: string) => {
    if (picked.has(k)) return;
    picked.set(k, label);
    for (const hole of t[k].holes ?? []) {
      const name = namedHole(hole);
      if (name) pickConstant(name, k);
    }
  };
  const pickConstant = (name: string, k: number) => {
    const c = constantAt(name, k);
    if (!c) return false;
    const fn = enclosing(c.k);
    pickLiteral(c.k, fn && fn !== name ? `${fn} (${name})` : name);
    return true;
  };
  for (let k = 0; k + 1 < t.length; k++) {
    // `q.query(sql, …)`, `q.queryBytes(sql, …)`, or infra/db's `firstRow(q, sql, …)`.
    const helper = t[k + 1].text === 'firstRow' && t[k + 1].kind === 'ident' && t[k].text !== '.' && t[k].text !== 'function';
    if (!helper && (t[k].text !== '.' || (t[k + 1].text !== 'query' && t[k + 1].text !== 'queryBytes') || t[k + 1].kind !== 'ident')) continue;
    let open = k + 2;
    if (t[open]?.text === '<') {
      let depth = 0;
      for (; open < t.length; open++) {
        if (t[open].text === '<') depth++;
        else if (t[open].text === '>' && --depth === 0) {
          open++;
          break;
        } else if (t[open].text === '=>') continue;
      }
    }
    if (t[open]?.text !== '(') continue;
    // The statement is the first argument (firstRow's second: after the queryable).
    const from = helper ? expressionEnd(t, open + 1) + 1 : open + 1;
    const end = expressionEnd(t, from);
    const label = enclosing(k) ?? '(top level)';
    // Every literal of that argument outside nested calls, and the constants it names.
    let depth = 0;
    let found = false;
    for (let a = from; a < end; a++) {
      const x = t[a];
      if (x.kind === 'punct' && x.text in CLOSER) depth++;
      else if (x.kind === 'punct' && [')', ']', '}'].includes(x.text)) depth--;
      else if (depth === 0 && (x.kind === 'string' || x.kind === 'template')) {
        pickLiteral(a, label);
        found = true;
      } else if (depth === 0 && x.kind === 'ident' && t[a - 1]?.text !== '.') found = pickConstant(x.text, a) || found;
    }
    // A statement built elsewhere (a helper's result, a parameter): its expression, as written.
    if (!found && end > from) built.set(from, { label, text: src.slice(t[from].at, t[end - 1].end) });
  }
  const names = new Set(constants.keys());
  return [
    ...[...picked.entries()].map(([k, label]) => ({ label, at: t[k].at, sql: normalise(literalText(t[k], names)) })),
    ...[...built.entries()].map(([k, b]) => ({ label: b.label, at: t[k].at, sql: `-- built at run time: ${b.text.replace(/\s+/g, ' ')}` })),
  ].sort((a, b) => a.at - b.at);
}

/** The name a hole gives, when it is a name (`${COLS}`) or a call of one (`${RECORDS('$1')}`). */
function namedHole(hole: Token[]): string | undefined {
  const first = hole[0];
  if (first?.kind !== 'ident') return undefined;
  if (hole.length === 1) return first.text;
  if (hole[1].text === '(' && skipGroup(hole, 1) === hole.length) return first.text;
  return undefined;
}

function literalText(tok: Token, constants: Set<string>): string {
  if (tok.kind !== 'template') return tok.text;
  const parts = tok.parts ?? [];
  let s = parts[0];
  (tok.holes ?? []).forEach((hole, n) => {
    const name = namedHole(hole);
    const shown = name && constants.has(name) ? (hole.length === 1 ? name : `${name}(…)`) : '…';
    s += `\${${shown}}` + parts[n + 1];
  });
  return s;
}

/** Indentation only: the common indentation of the lines after the first goes, blank edges go. */
function normalise(sql: string): string {
  const lines = sql
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''));
  const rest = lines.slice(1).filter((l) => l.trim() !== '');
  const indent = Math.min(...rest.map((l) => /^ */.exec(l)![0].length));
  const out = [lines[0].trim(), ...lines.slice(1).map((l) => (l.trim() === '' ? '' : '  ' + l.slice(Number.isFinite(indent) ? indent : 0)))];
  while (out.length > 1 && out.at(-1) === '') out.pop();
  while (out.length > 1 && out[0] === '') out.shift();
  return out.join('\n');
}

/** A module's store files, sorted: `store.ts`, `<area>-store.ts` and `store-<area>.ts` anywhere under it, and `*.ts` in a `store/` folder. */
export function storeFiles(moduleDir: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .flatMap((e) => {
        const p = join(dir, e.name);
        if (e.isDirectory()) return e.name === 'migrations' ? [] : walk(p);
        if (!e.name.endsWith('.ts') || e.name.endsWith('.test.ts')) return [];
        return /(^|-)store(-[\w-]+)?\.ts$/.test(e.name) || dir.split('/').at(-1) === 'store' ? [p] : [];
      });
  return walk(moduleDir);
}

/** The text of `generated/queries/<m>.sql`, or undefined for a module without store SQL. */
export function queriesOf(module: string): string | undefined {
  const dir = join(MODULES, module);
  const blocks: string[] = [];
  for (const file of storeFiles(dir)) {
    const rel = relative(dir, file);
    for (const s of statementsOf(readFileSync(file, 'utf8'))) blocks.push(`-- ${rel}: ${s.label}\n${s.sql}`);
  }
  if (!blocks.length) return undefined;
  return `-- Generated by \`npm run queries\` from the store files of src/modules/${module}: do not edit (decisions 0331, 0425).\n\n${blocks.join('\n\n')}\n`;
}

export const modules = () =>
  readdirSync(MODULES, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();

/**
 * Writes every module's snapshot, removes one a module no longer has (or one of a module that is
 * gone) and any left at the former place in the module's folder; the files changed.
 */
export function writeQueries(): string[] {
  const changed: string[] = [];
  const names = modules();
  for (const m of names) {
    const path = snapshotPath(m);
    const text = queriesOf(m);
    const old = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    if (existsSync(formerPath(m))) {
      rmSync(formerPath(m));
      changed.push(relative(ROOT, formerPath(m)));
    }
    if (text === old) continue;
    if (text === undefined) rmSync(path);
    else {
      mkdirSync(SNAPSHOTS, { recursive: true });
      writeFileSync(path, text);
    }
    changed.push(relative(ROOT, path));
  }
  for (const f of orphanSnapshots(names)) {
    rmSync(join(SNAPSHOTS, f));
    changed.push(relative(ROOT, join(SNAPSHOTS, f)));
  }
  return changed;
}

/** Snapshot files naming no module. */
export function orphanSnapshots(names = modules()): string[] {
  if (!existsSync(SNAPSHOTS)) return [];
  return readdirSync(SNAPSHOTS)
    .filter((f) => !(f.endsWith('.sql') && names.includes(f.slice(0, -4))))
    .sort();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const changed = writeQueries();
  console.log(changed.length ? `written: ${changed.join(', ')}` : 'every query snapshot is up to date');
}
