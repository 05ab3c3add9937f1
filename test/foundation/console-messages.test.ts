// Guard: the console's words are in its message catalogue, console/src/messages.ts (issue 41,
// item 5: "strings in one message catalogue … no hard-coded text in components"). Parsing each
// .tsx file of console/src (Babel's TypeScript parser, so comments never count), it finds words
// written in the markup: JSX text with a letter in it; a string with a letter as the value of an
// attribute people read (`title`, `aria-label`, `placeholder`, `label`, `headline`, `what` of
// <Loading>); and a string or template with a letter placed straight into the markup
// (`{'none'}`, `{ok ? 'Online' : 'Offline'}`, `{`since ${t}`}`). Symbols (`‹`, `·`, `—`), units
// passed to the number formatters and identifiers (class names, ids, keys) are not words read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from '@babel/parser';

const CONSOLE_SRC = fileURLToPath(new URL('../../console/src/', import.meta.url));
const READ_ATTRIBUTES = new Set(['title', 'aria-label', 'placeholder', 'label', 'headline', 'what']);
const WORDS = /[A-Za-z]/;

interface Node {
  type: string;
  loc?: { start: { line: number } };
  [k: string]: unknown;
}
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && typeof (v as Node).type === 'string';

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.tsx') ? [join(dir, e.name)] : [],
  );
}

/** The words of a string or template placed in the markup, through conditionals and `??`/`||`. */
function wordsIn(n: Node): string | null {
  if (n.type === 'StringLiteral') return WORDS.test(n.value as string) ? (n.value as string) : null;
  if (n.type === 'TemplateLiteral') {
    const text = (n.quasis as Node[]).map((q) => (q.value as { cooked: string }).cooked).join('…');
    return WORDS.test(text) ? text : null;
  }
  if (n.type === 'ConditionalExpression') return wordsIn(n.consequent as Node) ?? wordsIn(n.alternate as Node);
  if (n.type === 'LogicalExpression') return wordsIn(n.right as Node);
  return null;
}

export function findings(code: string): string[] {
  const ast = parse(code, { sourceType: 'module', plugins: ['typescript', 'jsx'] });
  const out: string[] = [];
  const visit = (n: Node) => {
    const line = n.loc?.start.line ?? 0;
    if (n.type === 'JSXText' && WORDS.test(n.value as string)) out.push(`${line}: text “${(n.value as string).trim()}”`);
    if (n.type === 'JSXOpeningElement') {
      const element = (n.name as Node).name as string;
      for (const attr of n.attributes as Node[]) {
        if (attr.type !== 'JSXAttribute') continue;
        const name = (attr.name as Node).name as string;
        const value = attr.value as Node | null;
        if (!value || !READ_ATTRIBUTES.has(name) || (name === 'what' && element !== 'Loading')) continue;
        const w = wordsIn(value.type === 'JSXExpressionContainer' ? (value.expression as Node) : value);
        if (w) out.push(`${attr.loc?.start.line}: ${name}="${w}"`);
      }
    }
    if (n.type === 'JSXElement' || n.type === 'JSXFragment') {
      for (const c of n.children as Node[]) {
        const w = c.type === 'JSXExpressionContainer' ? wordsIn(c.expression as Node) : null;
        if (w) out.push(`${c.loc?.start.line}: {“${w}”}`);
      }
    }
    for (const v of Object.values(n)) {
      if (Array.isArray(v)) for (const c of v) isNode(c) && visit(c);
      else if (isNode(v)) visit(v);
    }
  };
  visit(ast.program as unknown as Node);
  return out;
}

test('the console’s components take their words from the message catalogue', () => {
  const files = walk(CONSOLE_SRC);
  assert.ok(files.length >= 10, 'the console’s components are found');
  const found = files.flatMap((f) => findings(readFileSync(f, 'utf8')).map((x) => `${relative(CONSOLE_SRC, f)}:${x}`));
  assert.deepEqual(found, []);
});

test('the guard finds words in markup and leaves symbols, units and catalogue entries alone', () => {
  const src = `
    const a = <p>Loading sites…</p>;
    const b = <input placeholder="user id" />;
    const c = <span>{ok ? 'Online' : 'Offline'}</span>;
    const d = <span>{\`since \${t}\`}</span>;
    const e = <Loading what="alerts" />;
    const fine = <p class="small" id="x-hint">{msg.a.b} · {num(v, 'kWh')} ‹ — {x ?? '—'}</p>;
  `;
  assert.deepEqual(findings(src), ['2: text “Loading sites…”', '3: placeholder="user id"', '4: {“Online”}', '5: {“since …”}', '6: what="alerts"']);
});
