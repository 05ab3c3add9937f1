// Guard: the console (console/src) takes every request and response type from the generated SDK
// (packages/sdk: `Read<path>`, `Written<path>`, `Params<path>`, `Schemas[name]` in console/src/api.ts)
// and sends every request through the SDK's client (issue 37, item 6). Precisely, parsing each
// .ts/.tsx file (Babel's TypeScript parser, so comments and strings never count), it finds:
// - a type that spells out the API's wire format: an interface or a type literal (anywhere: an
//   alias, a generic argument, a cast, an annotation) with a snake_case property key. The service's
//   JSON is snake_case and the console's own names are camelCase, so such a key is a hand-typed
//   copy of a request or an answer;
// - `any` as a type (an untyped answer is a hand-typed one by another name);
// - a type argument on a call of `data(...)`, `api()` or its GET/POST/PUT/PATCH/DELETE (the answer's
//   type is inferred from the generated paths, never chosen by the caller);
// - `fetch(` or an import of the SDK's sources outside console/src/api.ts (api.ts alone holds the
//   client; it fetches only /openapi.json itself, to list the declared operations).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from '@babel/parser';

const CONSOLE_SRC = fileURLToPath(new URL('../../console/src/', import.meta.url));
const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/;
const HTTP = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

interface Node {
  type: string;
  loc?: { start: { line: number } };
  [k: string]: unknown;
}
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && typeof (v as Node).type === 'string';

function keyName(member: Node): string | null {
  const key = member.key as Node | undefined;
  if (!key || member.computed) return null;
  if (key.type === 'Identifier') return key.name as string;
  if (key.type === 'StringLiteral') return key.value as string;
  return null;
}

/** The name a call is made on: `data(…)`, `api()`, `api().GET(…)`. */
function callee(call: Node): string | null {
  const c = call.callee as Node;
  if (c.type === 'Identifier') return c.name as string;
  if (c.type === 'MemberExpression' && !c.computed && (c.property as Node).type === 'Identifier') {
    const name = (c.property as Node).name as string;
    const obj = c.object as Node;
    if (HTTP.has(name) && obj.type === 'CallExpression' && callee(obj) === 'api') return `api().${name}`;
  }
  return null;
}

/** Every finding in one file's source, as `line: what`. */
export function findings(code: string, file: string): string[] {
  const ast = parse(code, { sourceType: 'module', plugins: ['typescript', 'jsx'] });
  const out: string[] = [];
  const isApi = file === 'api.ts';
  const visit = (n: Node) => {
    const line = n.loc?.start.line ?? 0;
    if (n.type === 'TSInterfaceBody' || n.type === 'TSTypeLiteral') {
      for (const m of (n.body ?? n.members) as Node[]) {
        const k = keyName(m);
        if (k && SNAKE.test(k)) out.push(`${m.loc?.start.line}: hand-typed API field \`${k}\` (take the type from the SDK: Read<path>, Schemas[name])`);
      }
    }
    if (n.type === 'TSAnyKeyword') out.push(`${line}: \`any\``);
    if (n.type === 'CallExpression') {
      const name = callee(n);
      if (n.typeParameters && (name === 'data' || name === 'api' || name?.startsWith('api().')))
        out.push(`${line}: type argument on ${name}(…) (the answer's type comes from the generated paths)`);
      if (name === 'fetch' && !isApi) out.push(`${line}: fetch( outside api.ts (requests go through the SDK client)`);
    }
    if (n.type === 'ImportDeclaration' && !isApi && /packages\/sdk\//.test((n.source as Node).value as string))
      out.push(`${line}: imports the SDK's sources outside api.ts`);
    for (const v of Object.values(n)) {
      if (Array.isArray(v)) for (const x of v) isNode(x) && visit(x);
      else if (isNode(v)) visit(v);
    }
  };
  visit(ast.program as unknown as Node);
  return out;
}

test('the checker finds hand-typed answers, `any`, chosen answer types and stray requests, and lets the generated types through', () => {
  const bad = [
    'interface Site { site_id: string; asset_count: number }',
    'const s = useState<{ receipt_id: string } | null>(null);',
    'const x = (await r.json()) as { half_hours: unknown[] };',
    "type Ledger = { totals: Record<string, string>; 'time_zone': string };",
    'let body: any = null;',
    "const v = await data<{ valid: boolean }>(api().GET('/api/x'));",
    "const v = api().GET<{ valid: boolean }>('/api/x');",
    "const res = await fetch('/api/twin/registry/sites');",
    "import type { paths } from '../../packages/sdk/src/generated/openapi.ts';",
  ];
  for (const code of bad) assert.notDeepEqual(findings(code, 'screens/X.tsx'), [], code);
  const good = [
    "type Site = Read<'/api/twin/registry/sites'>['sites'][number];",
    "type Asset = Schemas['Asset'];",
    'interface Series { label: string; values: Array<number | null>; color: string; bars?: boolean }',
    "const sites = await data(api().GET('/api/twin/registry/sites', { params: { query: { site_id: id } } }));",
    "// an interface { site_id: string } in a comment, and 'any' in a string\nconst s = 'as any';",
    'const el = <div data-points={3} aria-label="x" />;',
  ];
  for (const code of good) assert.deepEqual(findings(code, 'screens/X.tsx'), [], code);
  assert.deepEqual(findings("const doc = fetch('/openapi.json');\nimport { Platform } from '../../packages/sdk/src/client.ts';", 'api.ts'), []);
});

test('console/src declares no API request or response type by hand and reaches the API only through the generated SDK', () => {
  const all = walk(CONSOLE_SRC).flatMap((path) => {
    const file = relative(CONSOLE_SRC, path);
    return findings(readFileSync(path, 'utf8'), file).map((f) => `console/src/${file}:${f}`);
  });
  assert.deepEqual(all, []);
});
