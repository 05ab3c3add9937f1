// The docs are tested (issue 36, decision 0310): every docs/**/*.md (the decision records too),
// README.md and packages/*/README.md is read, and what it names is checked against the service itself:
//   - each API path (`GET /api/...`, curl command lines, bare `/api/...`, `.../suffix` elisions) is a
//     path of the served OpenAPI document, with the method when one is given (curl without -X is
//     GET, with -d POST); a concrete segment (`/assets/ev/M6J36-01/history`) must validate against
//     its path parameter's schema (an enum accepts only its values);
//   - each example request body validates against the operation's request schema, each example
//     answer against its response schema for the stated status (or the operation's 2xx), tied to
//     the operation as docs/development.md "Examples in the docs" says;
//   - query parameters, success statuses, roles, operationIds, status labels, data bases and error
//     codes the docs give an operation are the document's (or the error page's);
//   - environment variable names are read by src/config.ts's loadConfig (or named by the harness,
//     a bench, the SDK or .ci/run), ports are the service's or the listed infrastructure's, and CLI
//     commands and options are in package.json's scripts and the CLIs' own help.
// One service (for /openapi.json) and two cheap CLI children, all started at once: about 8 s.
import { OCPP_PATH } from '../../src/modules/hub/ocpp.ts';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { loadConfig } from '../../src/config.ts';
import { ROLES } from '../../src/platform/roles.ts';
import { startTestService, json, type TestService } from '../helpers/service.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const root = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

// ---------------------------------------------------------------------------------------------
// The documents

interface DocFile {
  name: string;
  lines: string[];
}

function docFiles(): DocFile[] {
  const names: string[] = ['README.md'];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (e.isFile() && e.name.endsWith('.md')) names.push(rel);
    }
  };
  walk('docs');
  for (const p of readdirSync(join(root, 'packages'))) if (existsSync(join(root, 'packages', p, 'README.md'))) names.push(`packages/${p}/README.md`);
  return names.sort().map((name) => ({ name, lines: readFileSync(join(root, name), 'utf8').split('\n') }));
}

interface Fence {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  lines: string[];
  /** The `<!-- example: ... -->` marker on the line before the fence, if any. */
  marker?: string;
}

/** Fenced blocks, and the prose lines outside them (with their line numbers). */
function split(doc: DocFile): { fences: Fence[]; prose: { line: number; text: string }[] } {
  const fences: Fence[] = [];
  const prose: { line: number; text: string }[] = [];
  let open: Fence | undefined;
  let indent = '';
  doc.lines.forEach((text, i) => {
    const m = /^(\s*)```(\S*)/.exec(text);
    if (open) {
      if (m && /^\s*```\s*$/.test(text)) {
        fences.push(open);
        open = undefined;
      } else open.lines.push(text.startsWith(indent) ? text.slice(indent.length) : text.trimStart());
      return;
    }
    if (m) {
      indent = m[1];
      let marker: string | undefined;
      for (let j = i - 1; j >= 0 && j >= i - 2; j--) {
        const mm = /<!--\s*example:\s*(.*?)\s*-->/.exec(doc.lines[j]);
        if (mm) {
          marker = mm[1];
          break;
        }
        if (doc.lines[j].trim() !== '') break;
      }
      open = { file: doc.name, line: i + 1, lang: m[2].toLowerCase(), lines: [], marker };
      return;
    }
    prose.push({ line: i + 1, text });
  });
  return { fences, prose };
}

/** Lines with shell continuations (`\` at the end) joined, keeping the first line's number. */
function joinContinuations(lines: string[], first: number): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let acc: { line: number; text: string } | undefined;
  lines.forEach((text, i) => {
    const cont = /\\\s*$/.test(text);
    const piece = cont ? text.replace(/\\\s*$/, ' ') : text;
    if (acc) acc.text += ` ${piece.trim()}`;
    else acc = { line: first + i, text: piece };
    if (!cont) {
      out.push(acc);
      acc = undefined;
    }
  });
  if (acc) out.push(acc);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Paths

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const METHOD_RE = METHODS.join('|');
/** An API path (`/api/...`) or an elided one (`.../suffix`), up to a space, quote, backtick or bracket. */
const PATH_RE = /(?:(?<![\w.])(?:\.\.\.|…)(?=\/)|(?=\/api\/))\/?[^\s`"'()<>\]|,;?]*(?:\?[^\s`"'()<>\],;]*)?/g;

interface PathRef {
  where: string;
  raw: string;
  methods: string[];
  /** What follows the path on its line (an inline body). */
  rest: string;
}

/** The methods written just before a path: `GET /api/x`, "`GET, POST /api/x`", "`GET`/`PUT /api/x`", "GET `/api/x`", `GET('/api/x'`. */
function methodsBefore(before: string): string[] {
  const m = new RegExp(`((?:${METHOD_RE})(?:[\\s\`,/]+(?:${METHOD_RE}))*)[\\s\`('"]*(?:\\$\\w+|\\$\\{\\w+\\}|https?://[^\\s/]+)?$`).exec(before);
  return m ? m[1].split(/[\s`,/]+/).filter((w) => (METHODS as readonly string[]).includes(w)) : [];
}

/** The method of a curl command line: -X, else POST with -d/--data, else GET. */
function curlMethod(line: string): string {
  const x = /(?:-X|--request)\s+([A-Z]+)/.exec(line);
  if (x) return x[1];
  return /\s(?:-d|--data(?:-raw|-binary)?)\s/.test(line) ? 'POST' : 'GET';
}

function pathRefs(where: string, text: string): PathRef[] {
  const out: PathRef[] = [];
  const curl = /(^|\s)curl\s/.test(text);
  for (const m of text.matchAll(PATH_RE)) {
    const raw = m[0];
    if (raw === '...' || raw === '…' || raw.length < 2) continue;
    const before = text.slice(0, m.index);
    const methods = curl && /(^|\s)curl\s/.test(before) ? [curlMethod(text)] : methodsBefore(before);
    out.push({ where, raw, methods, rest: text.slice(m.index + raw.length) });
  }
  return out;
}

interface Template {
  path: string;
  segs: string[];
  ops: Record<string, any>;
  params: Record<string, object>;
}

const PLACEHOLDER_SEG = /^(?:\{[^}]*\}|\$\{?\w+\}?|<[^>]*>|.*(?:…|\.\.\.).*)$/;

let paramAjv: Ajv;
const paramValidators = new Map<object, ValidateFunction>();
function paramAccepts(schema: object, value: string): boolean {
  let v = paramValidators.get(schema);
  if (!v) {
    v = paramAjv.compile({ type: 'object', properties: { v: schema } });
    paramValidators.set(schema, v);
  }
  return v({ v: decodeURIComponent(value) }) as boolean;
}

function segMatches(docSeg: string, tpl: Template, i: number): boolean {
  const t = tpl.segs[i];
  if (!t.startsWith('{')) return docSeg === t;
  if (PLACEHOLDER_SEG.test(docSeg)) return true;
  if (docSeg === '') return false;
  const schema = tpl.params[t.slice(1, -1)];
  return schema ? paramAccepts(schema, docSeg) : true;
}

/** Static segments win over parameters, left to right, as the router does. */
function specificity(tpl: Template): string {
  return tpl.segs.map((s) => (s.startsWith('{') ? '1' : '0')).join('');
}

interface Resolution {
  /** Templates the path names (one for a whole path; several for an elided suffix). */
  matches: Template[];
  error?: string;
}

/** The templates a doc path names, or why it names none. */
function resolve(templates: Template[], raw: string, methods: string[]): Resolution {
  let p = raw.replace(/[?#].*$/, '');
  const prefixOnly = /(?:\.\.\.|…)$/.test(p) && !/\/(?:\.\.\.|…)$/.test(p);
  if (prefixOnly) p = p.replace(/(?:\.\.\.|…)$/, '');
  p = p.replace(/[.:]+$/, '');
  const elided = /^(?:\.\.\.|…)\//.test(p);
  const segs = (elided ? p.replace(/^(?:\.\.\.|…)/, '') : p).split('/');
  const want = (tpl: Template) => methods.length === 0 || methods.every((m) => tpl.ops[m.toLowerCase()]);
  if (elided) {
    const tail = segs.slice(1);
    // The suffix starts at a fixed segment (`.../receipts/{id}`) unless it starts with a stand-in
    // (`…/{alert_id}/acknowledge`): a concrete word never stands for a parameter there.
    const matches = templates.filter((t) => {
      const off = t.segs.length - tail.length;
      if (off < 1 || (!PLACEHOLDER_SEG.test(tail[0]) && t.segs[off].startsWith('{'))) return false;
      return tail.every((s, i) => segMatches(s, t, off + i));
    });
    if (matches.length === 0) return { matches, error: `no path ends with ${tail.join('/')}` };
    const withMethod = matches.filter(want);
    if (withMethod.length === 0)
      return { matches, error: `no ${methods.join('/')} on a path ending with ${tail.join('/')} (${matches.map((t) => t.path).join(', ')})` };
    return { matches: withMethod };
  }
  const exact = templates.filter((t) => t.segs.length === segs.length && segs.every((s, i) => segMatches(s, t, i)));
  if (exact.length > 0 && !prefixOnly) {
    const best = exact.sort((a, b) => specificity(a).localeCompare(specificity(b)))[0];
    if (!want(best))
      return {
        matches: [best],
        error: `${best.path} has no ${methods.filter((m) => !best.ops[m.toLowerCase()]).join('/')} (it has ${Object.keys(best.ops).join(', ').toUpperCase()})`,
      };
    return { matches: [best] };
  }
  // A base the docs name (`/api/hardware/field`, `/api/devtools/apikeys...`): some path starts with it.
  if (methods.length === 0 || prefixOnly) {
    const base = segs[segs.length - 1] === '' ? segs.slice(0, -1) : segs;
    const under = templates.filter((t) => t.segs.length > base.length && base.every((s, i) => segMatches(s, t, i)));
    if (under.length > 0) return { matches: under };
  }
  return { matches: [], error: 'no such path in the OpenAPI document' };
}

// ---------------------------------------------------------------------------------------------
// Examples: JSON bodies

const ELISION = /^(?:…|\.\.\.)$|^(?:…|\.\.\.)\s/;
/** A value written as a stand-in: `"…"`, `"0b6c…"`, `"<JWT>"`, `"..."`. */
const isPlaceholder = (v: unknown) => typeof v === 'string' && (/…|\.\.\./.test(v) || /^<[^>]+>$/.test(v));

/** Reads one JSON value starting at `text[start]` (`{` or `[`); bare `…`/`...` elisions are dropped. */
function readJson(text: string, start: number): { value: unknown; end: number; elided: boolean } | { error: string; end: number } {
  let depth = 0;
  let inString = false;
  let i = start;
  for (; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) break;
    }
  }
  const end = i + 1;
  let src = text.slice(start, end);
  // Elisions outside strings: `, …}` `{…}` `, ...]`.
  let out = '';
  let elided = false;
  inString = false;
  for (let j = 0; j < src.length; j++) {
    const c = src[j];
    if (inString) {
      out += c;
      if (c === '\\') out += src[++j];
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '…') elided = true;
    else if (src.startsWith('...', j)) {
      elided = true;
      j += 2;
    } else out += c;
  }
  src = out
    .replace(/,(\s*,)+/g, ',')
    .replace(/,\s*([}\]])/g, '$1')
    .replace(/([{[])\s*,/g, '$1');
  try {
    return { value: JSON.parse(src), end, elided };
  } catch (e) {
    return { error: (e as Error).message, end };
  }
}

/** Drops elided members and items (`"…": ...`, `"…"`, `"… more …"`); true when there were any. */
function prune(v: unknown): boolean {
  let elided = false;
  if (Array.isArray(v)) {
    for (let i = v.length - 1; i >= 0; i--) {
      if (typeof v[i] === 'string' && ELISION.test(v[i])) {
        v.splice(i, 1);
        elided = true;
      } else if (prune(v[i])) elided = true;
    }
  } else if (v && typeof v === 'object') {
    for (const k of Object.keys(v)) {
      if (ELISION.test(k)) {
        delete (v as Record<string, unknown>)[k];
        elided = true;
      } else if (prune((v as Record<string, unknown>)[k])) elided = true;
    }
  }
  return elided;
}

interface Example {
  where: string;
  kind: 'request' | 'response';
  method: string;
  path: string;
  status?: number;
  text: string;
  start: number;
}

/** Requests and answers in a fence that starts with `METHOD /path` (or `HTTP/1.1 NNN`, the answer to `previous`). */
function fenceExamples(f: Fence, previous: { method: string; path: string } | undefined): { examples: Example[]; last?: { method: string; path: string } } {
  const text = f.lines.join('\n');
  const examples: Example[] = [];
  let op = previous;
  let expect: { kind: 'request' } | { kind: 'response'; status: number } = { kind: 'request' };
  let lineStart = 0;
  let i = 0;
  while (i < text.length) {
    const lineEnd = text.indexOf('\n', i) === -1 ? text.length : text.indexOf('\n', i);
    if (i === lineStart) {
      const line = text.slice(i, lineEnd);
      const req = new RegExp(`^\\s*(${METHOD_RE})\\s+(\\S+)`).exec(line);
      const status = /^\s*(?:->|→)?\s*(?:HTTP\/\d(?:\.\d)?\s+)?([1-5]\d\d)\b/.exec(line);
      if (req) {
        op = { method: req[1], path: req[2] };
        expect = { kind: 'request' };
        i += req[0].length;
        continue;
      }
      if (status) {
        expect = { kind: 'response', status: Number(status[1]) };
        i += status[0].length;
        continue;
      }
      if (/^\s*[A-Za-z-]+: /.test(line) && !/^\s*[{[]/.test(line)) {
        i = lineEnd;
        continue;
      }
    }
    const c = text[i];
    if (c === '\n') {
      lineStart = ++i;
      continue;
    }
    if ((c === '{' || c === '[') && op) {
      const r = readJson(text, i);
      examples.push({
        where: `${f.file}:${f.line + 1 + text.slice(0, i).split('\n').length - 1}`,
        kind: expect.kind,
        method: op.method,
        path: op.path,
        status: expect.kind === 'response' ? expect.status : undefined,
        text,
        start: i,
      });
      i = r.end;
      // `{...}   -> 201` on one line: the answer's status, no body shown; the next body is a request.
      const trailing = /^[ \t]*(?:->|→)\s*([1-5]\d\d)\b/.exec(text.slice(i, text.indexOf('\n', i) === -1 ? text.length : text.indexOf('\n', i)));
      if (trailing) {
        i += trailing[0].length;
        expect = { kind: 'request' };
      } else if (expect.kind === 'response') expect = { kind: 'request' };
      continue;
    }
    if (c === '-' && text.startsWith('->', i)) {
      const s = /^->\s*([1-5]\d\d)\b/.exec(text.slice(i));
      if (s) {
        expect = { kind: 'response', status: Number(s[1]) };
        i += s[0].length;
        continue;
      }
    }
    i++;
  }
  return { examples, last: op };
}

// ---------------------------------------------------------------------------------------------
// Schemas

type Mode = 'strict' | 'partial';
const DEFS = (mode: Mode) => `urn:docs-test:${mode}`;

/**
 * A schema as the examples are held to: a member the schema does not name is an error (the
 * serializer would drop it from an answer, and a request member nothing reads misleads), unless the
 * schema says otherwise; `partial` also drops `required` (an elided example shows some members).
 */
function transform(s: any, mode: Mode, inAllOf = false): any {
  if (Array.isArray(s)) return s.map((x) => transform(x, mode, inAllOf));
  if (!s || typeof s !== 'object') return s;
  const out: any = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/'))
      out.$ref = `${DEFS(mode)}#/$defs/${v.slice('#/components/schemas/'.length)}`;
    else if (k === 'required' && mode === 'partial' && Array.isArray(v)) continue;
    else if (k === 'properties' && v && typeof v === 'object')
      out.properties = Object.fromEntries(Object.entries(v).map(([p, ps]) => [p, transform(ps, mode)]));
    else if (k === 'allOf') out.allOf = transform(v, mode, true);
    else if (k === 'example' || k === 'examples' || k === 'default') out[k] = v;
    else out[k] = transform(v, mode);
  }
  if (out.properties && !('additionalProperties' in out) && !('patternProperties' in out) && !inAllOf) out.additionalProperties = false;
  return out;
}

/** The part of a schema at a JSON pointer into its instances (`/half_hours/0`): properties and items, through $refs and anyOf. */
function schemaAt(schema: any, pointer: string): any {
  const deref = (x: any): any =>
    x?.$ref?.startsWith('#/components/schemas/') ? deref(doc.components.schemas[x.$ref.slice('#/components/schemas/'.length)]) : x;
  let cur = deref(schema);
  for (const seg of pointer.split('/').slice(1)) {
    const branches = cur?.anyOf ? cur.anyOf.map(deref) : [cur];
    const next = (b: any) =>
      /^\d+$|^-$/.test(seg) ? b?.items : (b?.properties?.[seg] ?? (typeof b?.additionalProperties === 'object' ? b.additionalProperties : undefined));
    cur = deref(branches.map(next).find((x: unknown) => x !== undefined));
    if (cur === undefined) return undefined;
  }
  return cur;
}

let ajv: Ajv;
function validatorFor(schema: object, mode: Mode): ValidateFunction {
  return ajv.compile(transform(schema, mode));
}

/** Errors that are not about a stand-in value (`"…"`, `"<JWT>"`): those stand for any value. */
function realErrors(errors: ErrorObject[], data: unknown): ErrorObject[] {
  const at = (p: string) => {
    let v: any = data;
    for (const seg of p.split('/').slice(1)) v = v?.[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
    return v;
  };
  const standIns = errors.filter((e) => isPlaceholder(at(e.instancePath)));
  return errors.filter((e) => {
    if (standIns.includes(e)) return false;
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') return !standIns.some((s) => s.instancePath.startsWith(e.instancePath));
    // A branch of an anyOf that failed only because of a stand-in.
    return !errors.some(
      (a) =>
        (a.keyword === 'anyOf' || a.keyword === 'oneOf') &&
        e.instancePath.startsWith(a.instancePath) &&
        standIns.some((s) => s.instancePath.startsWith(a.instancePath)),
    );
  });
}

function describe(errors: ErrorObject[]): string {
  return errors
    .slice(0, 6)
    .map(
      (e) =>
        `${e.instancePath || '(body)'} ${e.message}${e.keyword === 'additionalProperties' ? `: ${(e.params as { additionalProperty: string }).additionalProperty}` : ''}${e.keyword === 'enum' ? ` ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}` : ''}`,
    )
    .join('; ');
}

// ---------------------------------------------------------------------------------------------
// The run

let svc: TestService;
let doc: any;
let templates: Template[];
let files: DocFile[];
let serviceCliUsage = '';
let sdkCliHelp = '';

before(async () => {
  const cacheEnv = { ...process.env, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(process.env.TMPDIR ?? '/tmp', 'eps-node-compile-cache') };
  // The service CLI prints every command's usage line (with its options) when given no command,
  // before it reads any configuration; exit 2.
  const serviceCli = run(process.execPath, [join(root, 'src/cli/index.ts')], { cwd: root, env: cacheEnv }).then(
    (r) => r.stdout + r.stderr,
    (e: { stdout?: string; stderr?: string }) => (e.stdout ?? '') + (e.stderr ?? ''),
  );
  // The SDK CLI (commander): every command's --help text, in one process (its parse is replaced by a dump).
  const dump = `import { Command } from 'commander';
    const all = (c, p) => [\`### \${p}\`, c.helpInformation(), ...c.commands.flatMap((s) => all(s, \`\${p} \${s.name()}\`))];
    Command.prototype.parseAsync = async function () { console.log(all(this, this.name()).join('\\n')); };
    await import(${JSON.stringify(join(root, 'packages/sdk/src/cli/main.ts'))});`;
  const sdkCli = run(process.execPath, ['--input-type=module', '-e', dump], { cwd: join(root, 'packages/sdk'), env: cacheEnv }).then((r) => r.stdout);
  svc = await startTestService();
  const res = await svc.request({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200);
  doc = json(res);
  [serviceCliUsage, sdkCliHelp] = await Promise.all([serviceCli, sdkCli]);

  const opts = { allErrors: true, strict: false, validateFormats: true } as const;
  ajv = addFormats(new Ajv(opts));
  for (const mode of ['strict', 'partial'] as Mode[]) ajv.addSchema({ $id: DEFS(mode), $defs: transform(doc.components.schemas, mode) });
  paramAjv = addFormats(new Ajv({ ...opts, coerceTypes: true }));

  templates = Object.entries<any>(doc.paths).map(([path, ops]) => {
    const params: Record<string, object> = {};
    for (const op of Object.values<any>(ops)) for (const p of op.parameters ?? []) if (p.in === 'path') params[p.name] = p.schema;
    return { path, segs: path.split('/'), ops, params };
  });
  files = docFiles();
});
after(() => svc.stop());

test('the docs read are the pages, the decision records, the README and the package READMEs', () => {
  const names = files.map((f) => f.name);
  assert.ok(names.includes('README.md') && names.includes('docs/telemetry.md') && names.includes('packages/sdk/README.md'), names.join(', '));
  assert.ok(
    names.some((n) => n.startsWith('docs/decisions/')),
    'decision records',
  );
  assert.ok(names.length >= 180, `${names.length} files`);
});

/**
 * Whether an operation refuses an absent body. A body declared `Type.Optional` says
 * `required: false`; one whose schema admits null (devtools' `optionalBody`) is also taken when
 * absent, though its entry still says `required: true` (reported in issue 36's notes).
 */
function bodyRequired(op: any): boolean {
  const rb = op?.requestBody;
  if (!rb?.required) return false;
  const type = rb.content?.['application/json']?.schema?.type;
  return !(Array.isArray(type) && type.includes('null'));
}

test('the path check holds concrete segments to their parameter schemas (issue 36: the charger history path)', () => {
  assert.equal(resolve(templates, '/api/telemetry/assets/ev/M6J36-01/history', ['GET']).error, undefined);
  assert.match(resolve(templates, '/api/telemetry/assets/charger/M6J36-01/history', ['GET']).error ?? '', /no such path/);
  assert.match(resolve(templates, '/api/telemetry/healthz', ['POST']).error ?? '', /has no POST/);
  assert.equal(resolve(templates, '.../receipts/{id}/verify', ['GET']).error, undefined);
});

test('every API path the docs name is served, with the method they give it', async () => {
  const wrong: string[] = [];
  let checked = 0;
  for (const f of files) {
    const { fences, prose } = split(f);
    const lines = [...prose, ...fences.flatMap((fe) => joinContinuations(fe.lines, fe.line + 1))];
    for (const { line, text } of lines)
      for (const ref of pathRefs(`${f.name}:${line}`, text)) {
        checked++;
        const r = resolve(templates, ref.raw, ref.methods);
        if (r.error) wrong.push(`${ref.where}: ${ref.methods.join('/')} ${ref.raw}: ${r.error}`.replace(': ', ':  '));
        else if (ref.raw.includes('?') && ref.methods.length <= 1) {
          // The query the docs write (`?period=day|week|month`): parameters the operation declares,
          // each concrete value (alternatives split on `|`) one its schema accepts.
          for (const t of r.matches.length === 1 ? r.matches : []) {
            const ops = ref.methods.length ? [t.ops[ref.methods[0].toLowerCase()]] : Object.values<any>(t.ops);
            for (const [name, value] of new URLSearchParams(ref.raw.slice(ref.raw.indexOf('?') + 1).replace(/[.:]+$/, ''))) {
              const params = ops.map((op) => (op.parameters ?? []).find((p: any) => p.in === 'query' && p.name === name));
              if (params.every((p) => !p)) {
                wrong.push(`${ref.where}: ${ref.raw}: ${t.path} has no query parameter ${name}`);
                continue;
              }
              const schema = params.find(Boolean).schema;
              for (const v of value.split('|'))
                if (v !== '' && !PLACEHOLDER_SEG.test(v) && !paramAccepts(schema, encodeURIComponent(v)))
                  wrong.push(`${ref.where}: ${ref.raw}: ${name}=${v} is not a value ${t.path} accepts`);
            }
          }
        }
        // "`POST /api/x` answers 202", "`POST /api/x {...}` → 201", "-> 200": a success status the operation declares.
        else if (ref.methods.length === 1 && /^(?:\s*\{[^`]*\})?`?\s*(?:→|->|answers|:)\s*2\d\d\b/.test(ref.rest)) {
          const code = /(?:→|->|answers|:)\s*(2\d\d)/.exec(ref.rest)![1];
          checked++;
          if (!r.matches.some((t) => t.ops[ref.methods[0].toLowerCase()]?.responses?.[code]))
            wrong.push(
              `${ref.where}: ${ref.methods[0]} ${ref.raw} answers ${code} in the docs; the document declares ${Object.keys(
                r.matches[0].ops[ref.methods[0].toLowerCase()]?.responses ?? {},
              )
                .filter((c) => c.startsWith('2'))
                .join(', ')}`,
            );
        }
        // "`POST /api/x` with no body": the operation must take an absent body.
        else if (ref.methods.length === 1 && /^`?\s*with no body/.test(ref.rest))
          for (const t of r.matches)
            if (bodyRequired(t.ops[ref.methods[0].toLowerCase()]))
              wrong.push(`${ref.where}: ${ref.methods[0]} ${ref.raw}: the docs send no body, but ${t.path} requires one`);
      }
  }
  // Query parameters listed after a read: "`GET /api/x` (filters `a`, `b`; cursor pages)",
  // "GET `/receipts` (`site_id`, `limit` 1–500, `cursor`)": each is a query parameter of it.
  for (const f of files)
    for (const { line, text } of split(f).prose) {
      const found: { raw: string; methods: string[]; after: string }[] = [];
      for (const m of text.matchAll(/`([^`]+)`/g)) {
        const after = text.slice(m.index + m[0].length);
        const inSpan = m[1].trim();
        const rel = /^(?:(GET)\s+)?(\/[a-z][^\s`]*)$/.exec(inSpan);
        const full = new RegExp(`^(GET)\\s+((?:\\/api\\/|\\.\\.\\.\\/|…\\/)\\S*)$`).exec(inSpan);
        if (full) found.push({ raw: full[2], methods: ['GET'], after });
        else if (rel && !rel[2].startsWith('/api/') && methodsBefore(text.slice(0, m.index)).join() === 'GET')
          found.push({ raw: `...${rel[2]}`, methods: ['GET'], after });
        else if (rel?.[1] && rel[2].startsWith('/api/')) found.push({ raw: rel[2], methods: ['GET'], after });
      }
      for (const ref of found) {
        const list = /^\s*\((?:filters?\s+)?(`[a-z_]+`[^)]*)/.exec(ref.after)?.[1];
        if (!list) continue;
        const r = resolve(templates, ref.raw, ref.methods);
        if (r.error || r.matches.length !== 1) continue;
        const op = r.matches[0].ops.get;
        const names = new Set((op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name as string));
        // Stop at `;` and at a name followed by `:` (its values follow).
        for (const m of list.split(';')[0].matchAll(/`([a-z_]+)`(\s*:)?/g)) {
          checked++;
          if (!names.has(m[1]))
            wrong.push(`${f.name}:${line}: GET ${ref.raw}: ${r.matches[0].path} has no query parameter ${m[1]} (it has ${[...names].join(', ') || 'none'})`);
          if (m[2]) break;
        }
      }
    }

  // Paths in code written under a base the text names (`/work-orders/{id}/assign` under
  // `/api/hardware/field`): some path ends with them. The service's own pages: served.
  const pages: { where: string; path: string }[] = [];
  const sources = serviceSources();
  for (const f of files)
    for (const { line, text } of split(f).prose)
      for (const span of text.matchAll(new RegExp(`\`(?:(${METHOD_RE})\\s+)?(\\/[a-z][^\`\\s]*)\``, 'g'))) {
        const raw = span[2];
        if (raw.startsWith('/api/') || /^\/(?:usr|etc|var|tmp|home|dev|proc|opt|bin)\//.test(raw)) continue;
        // The chargers' WebSocket endpoint (OCPP_PATH in src/modules/hub/ocpp.ts), not an HTTP operation.
        if (raw.startsWith(`${OCPP_PATH}/`)) continue;
        if (/^\/(?:docs|openapi\.json|console)(?:[/?]|$)/.test(raw)) {
          pages.push({ where: `${f.name}:${line}`, path: raw });
          continue;
        }
        checked++;
        const methods = span[1] ? [span[1]] : methodsBefore(text.slice(0, span.index));
        const r = resolve(templates, `...${raw}`, methods);
        if (r.error) {
          // Not ours: a provider's API the service calls (`GET /intensity/{from}/fw48h`) is in its code.
          const fixed = raw.replace(/[?#].*$/, '').split('{')[0];
          if (fixed.length < 4 || !sources.includes(fixed))
            wrong.push(`${f.name}:${line}: ${methods.join('/')} ${raw} (under a base): ${r.error}, nor does the service's code call it`);
        } else if (methods.length === 1) {
          // "`POST /work-orders/from-alert/{alert_id}`: 201 with ...": a success status it declares.
          const code = /^\s*(?::|→|->|answers)\s*(2\d\d)\b/.exec(text.slice(span.index + span[0].length))?.[1];
          if (code && !r.matches.some((t) => t.ops[methods[0].toLowerCase()]?.responses?.[code]))
            wrong.push(`${f.name}:${line}: ${methods[0]} ${raw} answers ${code} in the docs; no such success in the document`);
        }
      }
  for (const p of pages) {
    const res = await svc.request({ method: 'GET', url: p.path });
    if (res.statusCode >= 400) wrong.push(`${p.where}: ${p.path} answers ${res.statusCode}`);
  }
  console.log(`docs: ${checked} path mentions checked, ${pages.length} service pages fetched`);
  assert.ok(checked > 300, `${checked} path mentions`);
  assert.deepEqual(wrong, []);
});

/** The JSON schema of an operation's request body or of its answer with `status` (or its 2xx). */
function schemaOf(op: any, kind: 'request' | 'response', status?: number): { schema?: object; status?: number; error?: string } {
  if (kind === 'request') {
    const s = op.requestBody?.content?.['application/json']?.schema;
    return s ? { schema: s } : { error: 'the operation takes no JSON body' };
  }
  const declared = Object.keys(op.responses ?? {});
  const code = status ?? Number(declared.find((c) => /^2\d\d$/.test(c) && op.responses[c].content?.['application/json']));
  const r = op.responses?.[String(code)];
  if (!r) {
    if (code >= 400) return { schema: { $ref: '#/components/schemas/Error', additionalProperties: true }, status: code };
    return { error: `no ${status ?? '2xx'} answer declared (${declared.join(', ')})` };
  }
  const s = r.content?.['application/json']?.schema;
  return s ? { schema: s, status: code } : { error: `the ${code} answer has no JSON body` };
}

test('every example request and answer the docs show validates against its operation', () => {
  const wrong: string[] = [];
  const untied: string[] = [];
  let checked = 0;
  let partial = 0;

  const check = (
    where: string,
    kind: 'request' | 'response',
    method: string,
    path: string,
    value: unknown,
    status: number | undefined,
    isPartial: boolean,
    invalid = false,
    pointer?: string,
  ) => {
    const r = resolve(templates, path, [method]);
    if (r.error || r.matches.length === 0) return void wrong.push(`${where}: ${method} ${path}: ${r.error}`);
    const elided = prune(value);
    const mode: Mode = isPartial || elided ? 'partial' : 'strict';
    if (mode === 'partial') partial++;
    checked++;
    const failures: string[] = [];
    for (const tpl of r.matches) {
      const s = schemaOf(tpl.ops[method.toLowerCase()], kind, status);
      if (s.error) {
        failures.push(`${method} ${tpl.path}: ${s.error}`);
        continue;
      }
      const sub = pointer ? schemaAt(s.schema!, pointer) : s.schema;
      if (!sub) {
        failures.push(`${method} ${tpl.path}: nothing at ${pointer} in its ${kind} schema`);
        continue;
      }
      const v = validatorFor(sub, mode);
      v(value);
      const errs = realErrors(v.errors ?? [], value);
      // An example marked invalid shows input the operation refuses (in part): it must not validate.
      if (invalid) {
        if (errs.length > 0) return;
        failures.push(`${kind} of ${method} ${tpl.path}: marked invalid, but it validates`);
        continue;
      }
      if (errs.length === 0) return;
      failures.push(`${kind} of ${method} ${tpl.path}${kind === 'response' ? ` ${s.status}` : ''}${mode === 'partial' ? ' (partial)' : ''}: ${describe(errs)}`);
    }
    wrong.push(`${where}: ${failures.join(' | ')}`);
  };

  for (const f of files) {
    const { fences, prose } = split(f);
    // Inline: `POST /api/x {"a": 1}` in one code span or prose line.
    for (const { line, text } of prose)
      for (const span of text.matchAll(/`([^`]+)`/g))
        for (const ref of pathRefs(`${f.name}:${line}`, span[1])) {
          // The body in the same code span, or in the next one: `POST /api/x` `{"a": 1}`.
          const next = /^\s*`(\{[^`]*\})`/.exec(text.slice(span.index + span[0].length));
          const rest = ref.rest.trim() === '' && next ? next[1] : ref.rest.trimStart();
          if (ref.methods.length !== 1 || !rest.startsWith('{')) continue;
          const r = readJson(rest, 0);
          if ('error' in r) continue; // a shape sketched in words (`{"site_id", "user_id" or "email"}`), not an example
          check(ref.where, 'request', ref.methods[0], ref.raw, r.value, undefined, r.elided);
        }
    let previous: { method: string; path: string } | undefined;
    for (const fe of fences) {
      const where = `${f.name}:${fe.line}`;
      const marker = fe.marker;
      if (marker !== undefined && /^none\b/.test(marker)) {
        previous = undefined;
        continue;
      }
      if (fe.lang === 'sh' || fe.lang === 'bash' || fe.lang === 'shell') {
        for (const { line, text } of joinContinuations(fe.lines, fe.line + 1)) {
          if (!/(^|\s)curl\s/.test(text)) continue;
          const data = /\s(?:-d|--data(?:-raw|-binary)?)\s+'([^']*)'/.exec(text);
          const ref = pathRefs(`${f.name}:${line}`, text)[0];
          if (!data || !ref) continue;
          const r = readJson(data[1], data[1].indexOf('{') === -1 ? data[1].indexOf('[') : data[1].indexOf('{'));
          if ('error' in r) wrong.push(`${f.name}:${line}: curl -d body is not JSON: ${r.error}`);
          else check(`${f.name}:${line}`, 'request', ref.methods[0], ref.raw, r.value, undefined, r.elided);
        }
        continue;
      }
      if (!['', 'http', 'json', 'text'].includes(fe.lang)) continue;
      // `[partial] [invalid] [request|response METHOD /path [status] [at /pointer]] [(why)]`, or `none (why)`.
      const mk =
        marker === undefined
          ? undefined
          : new RegExp(
              `^((?:(?:partial|invalid)(?:\\s+|$))*)(?:(request|response)\\s+(${METHOD_RE})\\s+(\\S+)(?:\\s+(\\d{3}))?(?:\\s+at\\s+(\\S+))?)?\\s*(?:\\(.*\\))?$`,
            ).exec(marker);
      if (marker !== undefined && !mk)
        wrong.push(`${where}: marker "${marker}" is not "[partial] [invalid] [request|response METHOD /path [status] [at /pointer]] [(why)]" nor "none (why)"`);
      const flags = { partial: /\bpartial\b/.test(mk?.[1] ?? ''), invalid: /\binvalid\b/.test(mk?.[1] ?? '') };
      const m = mk?.[2] ? mk : undefined;
      const firstLine = fe.lines.find((l) => l.trim() !== '') ?? '';
      const startsExchange = new RegExp(`^\\s*(?:${METHOD_RE})\\s+\\S`).test(firstLine);
      const startsAnswer = /^\s*HTTP\/\d(?:\.\d)?\s+\d{3}/.test(firstLine);
      if (m) {
        // One JSON value, or several one after another (items of a list, each checked).
        const body = fe.lines.join('\n');
        let at = body.search(/[{[]/);
        if (at === -1) wrong.push(`${where}: no JSON in the block`);
        while (at !== -1) {
          const r = readJson(body, at);
          if ('error' in r) wrong.push(`${where}: the example is not JSON: ${r.error}`);
          else
            check(where, m[2] as 'request' | 'response', m[3], m[4], r.value, m[5] ? Number(m[5]) : undefined, flags.partial || r.elided, flags.invalid, m[6]);
          const next = body.slice(r.end).search(/[{[]/);
          at = next === -1 ? -1 : r.end + next;
        }
        previous = { method: m[3], path: m[4] };
        continue;
      }
      if (startsExchange || (startsAnswer && previous)) {
        const { examples, last } = fenceExamples(fe, startsAnswer ? previous : undefined);
        for (const ex of examples) {
          // An exchange with another server (a receiver, a third party's API) is not ours to check.
          if (!/^(?:\/api\/|\.\.\.\/|…\/)/.test(ex.path)) continue;
          const r = readJson(ex.text, ex.start);
          if ('error' in r) wrong.push(`${ex.where}: the ${ex.kind} example is not JSON: ${r.error}`);
          else check(ex.where, ex.kind, ex.method, ex.path, r.value, ex.status, flags.partial || r.elided, flags.invalid && ex.kind === 'request');
        }
        previous = last;
        continue;
      }
      previous = undefined;
      const looksLikeJson = /^\s*(?:(?:->|→)?\s*[1-5]\d\d\s+)?[{[]/.test(firstLine);
      if (fe.lang === 'json' || (['', 'text', 'http'].includes(fe.lang) && looksLikeJson))
        untied.push(`${where}: a JSON example tied to no operation (add <!-- example: response GET /api/... --> or <!-- example: none (why) -->)`);
    }
  }
  console.log(`docs: ${checked} examples validated, ${partial} of them partial`);
  assert.ok(checked > 30, `${checked} examples`);
  assert.deepEqual([...untied, ...wrong], []);
});

// ---------------------------------------------------------------------------------------------
// Environment variables, ports, commands

/** Inline code spans and the lines of shell fences (continuations joined), where names and commands are written. */
function codeBits(f: DocFile): { where: string; text: string; shell: boolean }[] {
  const { fences, prose } = split(f);
  const out: { where: string; text: string; shell: boolean }[] = [];
  for (const { line, text } of prose) for (const m of text.matchAll(/`([^`]+)`/g)) out.push({ where: `${f.name}:${line}`, text: m[1], shell: false });
  for (const fe of fences)
    if (['sh', 'bash', 'shell', ''].includes(fe.lang))
      for (const { line, text } of joinContinuations(fe.lines, fe.line + 1))
        out.push({ where: `${f.name}:${line}`, text: text.replace(/\s#\s.*$/, ''), shell: true });
  return out;
}

/** The service's own code (src/), where the paths of the providers it calls are written. */
function serviceSources(): string {
  const parts: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.ts')) parts.push(readFileSync(join(root, rel), 'utf8'));
    }
  };
  walk('src');
  return parts.join('\n');
}

/** Every source file that may read a variable the docs name outside the service's configuration. */
function codeCorpus(): string {
  const parts: string[] = [readFileSync(join(root, 'package.json'), 'utf8'), readFileSync(join(root, '.ci/run'), 'utf8')];
  const walk = (dir: string) => {
    if (!existsSync(join(root, dir))) return;
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'generated' && e.name !== 'dist') walk(rel);
      } else if (/\.(ts|tsx|js|mjs|sh|ya?ml|json|cfg)$/.test(e.name)) parts.push(readFileSync(join(root, rel), 'utf8'));
    }
  };
  for (const d of ['src', 'test', 'test-reliability', 'bench', 'packages/sdk/src', 'packages/sdk/scripts', 'ops', 'console/src']) walk(d);
  return parts.join('\n');
}

/** Variables Node itself reads, named in the docs for how to run it. */
const NODE_VARIABLES: Record<string, string> = {
  NODE_OPTIONS: 'Node reads it: extra command-line options',
  NODE_COMPILE_CACHE: "Node reads it: the compile cache directory (package.json's test scripts set it)",
};

test('every environment variable the docs name is read: by the configuration, or by the harness, a bench or the SDK that the docs say', () => {
  const base: Record<string, string> = { DATA_DIR: ':memory:' };
  const read = new Set<string>();
  loadConfig(new Proxy(base, { get: (t, k) => (typeof k === 'string' && read.add(k), t[k as string]) }));
  const corpus = codeCorpus();
  const roles = new Set<string>(ROLES);
  const wrong: string[] = [];
  let checked = 0;
  for (const f of files)
    for (const bit of codeBits(f)) {
      const names = bit.shell
        ? [...bit.text.matchAll(/(?:^|\s)(?:export\s+)?([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])=/g)].map((m) => m[1])
        : [/^([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])(?:=.*)?$/.exec(bit.text.trim())?.[1]].filter((n): n is string => Boolean(n));
      for (const name of names) {
        if (roles.has(name)) continue;
        checked++;
        if (read.has(name) || NODE_VARIABLES[name]) continue;
        // Not the service's: the test harness's, a bench's, a reliability run's or the SDK CLI's; or a
        // constant of the code the docs quote. Either way the code must name it.
        if (!new RegExp(`\\b${name}\\b`).test(corpus))
          wrong.push(`${bit.where}: ${name} is read by nothing (not src/config.ts's loadConfig, nor any test, bench, SDK or CI file)`);
      }
    }
  console.log(`docs: ${checked} variable names checked (${read.size} read by loadConfig)`);
  assert.ok(checked > 100, `${checked} variable names`);
  assert.deepEqual(wrong, []);
});

test("every role the docs name is one of the platform's roles", () => {
  const wrong: string[] = [];
  let checked = 0;
  for (const f of files)
    f.lines.forEach((text, i) => {
      for (const m of text.matchAll(/\b(?:[A-Z]+_)*(?:ADMIN|OPERATOR|ANALYST|VIEWER)\b/g)) {
        checked++;
        if (!(ROLES as readonly string[]).includes(m[0])) wrong.push(`${f.name}:${i + 1}: ${m[0]} is not a role (${ROLES.join(', ')})`);
      }
    });
  assert.ok(checked > 30, `${checked} roles`);
  assert.deepEqual(wrong, []);
});

test("the operation tables say each operation's roles, operationId, status label and data basis as the document does", () => {
  const wrong: string[] = [];
  let checked = 0;
  const statuses = new Set<string>();
  const bases = new Set<string>();
  for (const t of templates)
    for (const op of Object.values<any>(t.ops)) {
      statuses.add(op['x-platform-status']);
      if (op['x-platform-data-basis']) bases.add(op['x-platform-data-basis']);
    }
  for (const f of files) {
    f.lines.forEach((text, i) => {
      if (!/^\|.*\|\s*$/.test(text) || /^\|[\s|:-]+\|\s*$/.test(text)) return;
      const where = `${f.name}:${i + 1}`;
      const cells = text
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
      // The operations of the row: full paths, and paths under the page's base (`/receipts/{id}`),
      // a path without a method taking the row's first.
      const refs: { raw: string; methods: string[] }[] = pathRefs(where, text).map((r) => ({ raw: r.raw, methods: r.methods }));
      for (const m of text.matchAll(/`(\/[a-z][^`\s]*)`/g))
        if (!m[1].startsWith('/api/')) refs.push({ raw: `...${m[1]}`, methods: methodsBefore(text.slice(0, m.index)) });
      if (refs.length === 0) return;
      const rowMethods = refs.find((r) => r.methods.length)?.methods ?? [];
      const ops: any[] = [];
      for (const r of refs) {
        const methods = r.methods.length ? r.methods : rowMethods;
        if (methods.length === 0) return;
        const res = resolve(templates, r.raw, methods);
        if (res.error) return; // the path test reports it
        // An elided path must name one operation for the row to be checked.
        if (res.matches.length !== 1) return;
        for (const m of methods) ops.push(res.matches[0].ops[m.toLowerCase()]);
      }
      const prose = cells.map((c) => c.replace(/\([^)]*\)/g, ''));
      const roles = prose.some((c) => /^every role\b/.test(c))
        ? [...ROLES]
        : [...new Set(prose.flatMap((c) => [...c.matchAll(/\b(?:ORG_ADMIN|OPERATOR|ANALYST|VIEWER)\b/g)].map((m) => m[0])))];
      for (const op of ops) {
        const declared: string[] | undefined = op['x-platform-roles'];
        if (roles.length && declared) {
          checked++;
          if ([...roles].sort().join() !== [...declared].sort().join())
            wrong.push(`${where}: ${op.operationId}: the row says ${roles.join(', ')}, the operation admits ${declared.join(', ')}`);
        }
        if (ops.length === 1) {
          const id = cells.map((c) => /^`([a-z]+[A-Z]\w*)`$/.exec(c)?.[1]).find(Boolean);
          if (id && id !== op.operationId) wrong.push(`${where}: operationId ${id}, the document's is ${op.operationId}`);
          const status = cells.find((c) => statuses.has(c));
          if (status && status !== op['x-platform-status'])
            wrong.push(`${where}: ${op.operationId}: status ${status}, the document's is ${op['x-platform-status']}`);
          const basis = cells.find((c) => bases.has(c));
          if (basis && basis !== op['x-platform-data-basis'])
            wrong.push(`${where}: ${op.operationId}: data basis ${basis}, the document's is ${op['x-platform-data-basis'] ?? 'none'}`);
          if (id || status || basis) checked++;
        }
      }
    });
  }
  console.log(`docs: ${checked} table rows checked against their operations`);
  assert.ok(checked > 20, `${checked} rows`);
  assert.deepEqual(wrong, []);
});

test("every error code or reason a status table gives is the service's: on its error page or in its OpenAPI document", async () => {
  const res = await svc.request({ method: 'GET', url: '/docs/errors' });
  assert.equal(res.statusCode, 200);
  const known = `${res.body}\n${JSON.stringify(doc)}`;
  const wrong: string[] = [];
  let checked = 0;
  for (const f of files) {
    // Tables headed `| Status | code | ... |` or `| Status | \`reason\` |`: the second column names codes.
    let codes = false;
    f.lines.forEach((text, i) => {
      if (!text.startsWith('|')) return void (codes = false);
      const header = /^\|\s*Status\s*\|\s*`?(code|reason)`?\s*\|/i.exec(text);
      if (header) return void (codes = true);
      const row = /^\|\s*(\d{3})\s*\|([^|]*)\|/.exec(text);
      if (!codes || !row) return;
      for (const m of row[2].replace(/\([^)]*\)/g, '').matchAll(/`([a-z][a-z0-9_]*)`/g)) {
        checked++;
        if (!known.includes(m[1])) wrong.push(`${f.name}:${i + 1}: ${row[1]} \`${m[1]}\` is neither on /docs/errors nor in the OpenAPI document`);
      }
    });
  }
  console.log(`docs: ${checked} error codes checked`);
  assert.ok(checked > 20, `${checked} codes`);
  assert.deepEqual(wrong, []);
});

/** The ports the docs may name besides the service's own, each with where it comes from. */
const PORTS: Record<number, { why: string; file: string }> = {
  5432: { why: 'PostgreSQL', file: '.ci/run' },
  5433: { why: 'the PostgreSQL streaming replica .ci/run starts', file: '.ci/run' },
  6379: { why: 'Redis', file: '.ci/run' },
  4222: { why: 'NATS', file: '.ci/run' },
  465: { why: 'SMTP with implicit TLS (SMTP_SECURE)', file: 'src/modules/ems-alerts/config.ts' },
  1884: { why: "the project's Mosquitto for device MQTT", file: 'ops/mosquitto.sh' },
};

test('every port the docs name is the service default or a documented infrastructure port', () => {
  const config = loadConfig({ DATA_DIR: ':memory:' });
  assert.equal(config.port, 8080, 'the service listens on 8080 by default');
  for (const [port, { why, file }] of Object.entries(PORTS)) {
    assert.ok(readFileSync(join(root, file), 'utf8').includes(port), `${port} (${why}) is named in ${file}`);
  }
  const wrong: string[] = [];
  let checked = 0;
  // Decision records quote error messages with the addresses of the runs they describe
  // (`connect ECONNREFUSED 10.0.0.5:8443`); the ports a reader is told to use are in the other pages.
  for (const f of files.filter((d) => !d.name.startsWith('docs/decisions/')))
    f.lines.forEach((text, i) => {
      const ports = [
        ...[...text.matchAll(/(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1?\]|\b\d+\.\d+\.\d+\.\d+|\b[\w-]+-host|\bhost):(\d{2,5})\b/g)].map((m) => Number(m[1])),
        ...[...text.matchAll(/\bports? (\d{2,5})\b/gi)].map((m) => Number(m[1])),
      ];
      for (const port of ports) {
        checked++;
        if (port !== config.port && !PORTS[port])
          wrong.push(`${f.name}:${i + 1}: port ${port} is neither the service's (${config.port}) nor one of ${Object.keys(PORTS).join(', ')}`);
      }
    });
  console.log(`docs: ${checked} ports checked`);
  assert.ok(checked > 10, `${checked} ports`);
  assert.deepEqual(wrong, []);
});

test("every command the docs give is a package.json script, a file, or a command and options of the CLIs' help", () => {
  const pkg = (dir: string) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { name: string; scripts?: Record<string, string> };
  const rootPkg = pkg('.');
  const workspaces = new Map(
    [['packages/sdk', pkg('packages/sdk')]].flatMap(([d, p]) => [
      [(p as { name: string }).name, p as ReturnType<typeof pkg>],
      [d as string, p as ReturnType<typeof pkg>],
    ]),
  );
  // The service CLI's usage lines: `cli org create --id ID --name NAME [--modules LIST]`.
  const usage = new Map<string, string>();
  for (const m of serviceCliUsage.matchAll(/^\s+cli ((?:[a-z][\w-]*)(?: [a-z][\w-]*)?)((?: \[?--.*)?)$/gm)) usage.set(m[1], m[2]);
  assert.ok(usage.has('org create') && usage.has('migrate'), `service CLI usage:\n${serviceCliUsage}`);
  // The SDK CLI's help per command: `### energy-platform keys create` then commander's text.
  const sdk = new Map<string, string>();
  for (const part of sdkCliHelp.split(/^### /m).slice(1)) {
    const [head, ...rest] = part.split('\n');
    sdk.set(head.trim().replace(/^energy-platform ?/, ''), rest.join('\n'));
  }
  assert.ok(sdk.has('login') && sdk.has('keys create'), `SDK CLI help:\n${sdkCliHelp.slice(0, 400)}`);
  const sdkGlobal = sdk.get('') ?? '';

  const wrong: string[] = [];
  let checked = 0;
  const flagsOf = (args: string) => [...args.matchAll(/(?:^|\s)\[?(--[a-z][\w-]*)/g)].map((m) => m[1]);
  for (const f of files)
    for (const bit of codeBits(f))
      for (const cmd of bit.text.split(/&&|\|\||;|\|/)) {
        const t = cmd.trim().replace(/^(?:[A-Z_]+=\S+\s+)+/, '');
        let m: RegExpExecArray | null;
        if ((m = /^npm run(?:\s+-\w+)*\s+([\w:.-]+)(.*)$/.exec(t))) {
          checked++;
          const ws = /\s-w\s+(\S+)/.exec(m[2]);
          const scripts = ws ? workspaces.get(ws[1])?.scripts : rootPkg.scripts;
          const script = scripts?.[m[1]];
          if (!script) {
            wrong.push(`${bit.where}: npm run ${m[1]}${ws ? ` -w ${ws[1]}` : ''}: no such script`);
            continue;
          }
          const args = m[2].replace(/\s-w\s+\S+/, '');
          const after = /(?:^|\s)--\s+(.*)$/.exec(args)?.[1] ?? '';
          if (m[1] === 'cli') checkServiceCli(bit.where, after);
          else if (after) {
            // Flags handed to a script's file must be ones the file (or the folder it runs) reads.
            const file = /node\s+(?:--\S+\s+)*(\S+\.ts)/.exec(script)?.[1];
            const src = file ? sourceOf(file) : '';
            for (const flag of flagsOf(after))
              if (!src.includes(flag.replace(/^--/, ''))) wrong.push(`${bit.where}: npm run ${m[1]} -- ${flag}: ${file ?? m[1]} reads no ${flag}`);
          }
        } else if ((m = /^npm (start|test|ci|install)\b/.exec(t))) {
          checked++;
          if ((m[1] === 'start' || m[1] === 'test') && !rootPkg.scripts?.[m[1]]) wrong.push(`${bit.where}: npm ${m[1]}: no such script`);
        } else if ((m = /^node src\/cli\/index\.ts(.*)$/.exec(t))) {
          checked++;
          checkServiceCli(bit.where, m[1]);
        } else if ((m = /^(?:npx\s+)?energy-platform\s+(.*)$/.exec(t))) {
          checked++;
          const words = m[1].split(/\s+/);
          const name = sdk.has(`${words[0]} ${words[1]}`) ? `${words[0]} ${words[1]}` : words[0];
          const help = sdk.get(name);
          if (!help) wrong.push(`${bit.where}: energy-platform ${name}: no such command in its help`);
          else
            for (const flag of flagsOf(m[1]))
              if (!help.includes(flag) && !sdkGlobal.includes(flag)) wrong.push(`${bit.where}: energy-platform ${name} ${flag}: no such option in its help`);
        } else if ((m = /^node\s+(?:--[\w-]+(?:=\S+)?\s+)*([\w./-]+\.(?:ts|js))\b/.exec(t))) {
          checked++;
          if (!existsSync(join(root, m[1]))) wrong.push(`${bit.where}: node ${m[1]}: no such file`);
        }
      }

  function checkServiceCli(where: string, args: string) {
    const words = args.trim().split(/\s+/).filter(Boolean);
    if (words[0] === '--help' || words[0] === 'help' || words[0] === 'COMMAND') return;
    const name = usage.has(`${words[0]} ${words[1]}`) ? `${words[0]} ${words[1]}` : words[0];
    const opts = usage.get(name);
    if (opts === undefined)
      return void wrong.push(
        `${where}: cli ${words
          .filter((w) => !w.startsWith('-'))
          .slice(0, 2)
          .join(' ')}: no such command in its usage`,
      );
    for (const flag of flagsOf(args))
      if (flag !== '--help' && !opts.includes(flag)) wrong.push(`${where}: cli ${name} ${flag}: no such option (usage: cli ${name}${opts})`);
  }

  function sourceOf(file: string): string {
    const dir = join(root, file, '..');
    // The file and its folder's other files (a bench's options may be parsed in a shared helper).
    const files = [
      join(root, file),
      ...readdirSync(dir)
        .filter((n) => n.endsWith('.ts'))
        .map((n) => join(dir, n)),
    ];
    const lib = join(dir, 'lib');
    if (existsSync(lib) && statSync(lib).isDirectory())
      files.push(
        ...readdirSync(lib)
          .filter((n) => n.endsWith('.ts'))
          .map((n) => join(lib, n)),
      );
    return files.map((p) => readFileSync(p, 'utf8')).join('\n');
  }

  console.log(`docs: ${checked} commands checked`);
  assert.ok(checked > 40, `${checked} commands`);
  assert.deepEqual(wrong, []);
});
