// Guard: no `any` used as a type and no `as never` in src (docs/development.md, conventions). Type
// positions are found by Node's own TypeScript stripping: a word the stripped JavaScript blanks out
// was a type. Comments and strings are skipped, so prose and SQL (`= any($1)`) do not count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** file:line hits left on purpose, each with its reason. Aim: none. */
const ALLOWED: Record<string, string> = {};

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Whether the match at `at` sits in a comment or a string on its line (a JSDoc line, after `//`, inside quotes). */
function inProse(code: string, at: number): boolean {
  const before = code.slice(code.lastIndexOf('\n', at) + 1, at);
  if (/^\s*(\*|\/\*)/.test(before) && !before.includes('*/')) return true;
  const bare = before.replace(/'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"|`(?:\\.|[^`\\])*`/g, '');
  return bare.includes('//') || /['"`]/.test(bare);
}

function findings(): string[] {
  const out: string[] = [];
  for (const file of walk(SRC)) {
    const code = readFileSync(file, 'utf8');
    const js = stripTypeScriptTypes(code);
    for (const m of code.matchAll(/\bany\b|\bas\s+never\b/g)) {
      if (js.slice(m.index, m.index + m[0].length).trim() !== '' || inProse(code, m.index)) continue;
      const where = `${relative(SRC, file)}:${code.slice(0, m.index).split('\n').length}`;
      if (!ALLOWED[where]) out.push(`${where}: ${m[0].replace(/\s+/g, ' ')}`);
    }
  }
  return out;
}

test('src uses no `any` type and no `as never`', () => {
  assert.deepEqual(findings(), []);
});

test('the guard sees a type and skips prose and SQL', () => {
  const code = ['const a: any = 1; // any', "const q = 'select 1 where id = any($1)';", 'const b = a as never;', '/** any */ type T = Array<any>;'].join('\n');
  const js = stripTypeScriptTypes(code);
  const hits = [...code.matchAll(/\bany\b|\bas\s+never\b/g)]
    .filter((m) => js.slice(m.index, m.index + m[0].length).trim() === '' && !inProse(code, m.index))
    .map((m) => `${code.slice(0, m.index).split('\n').length}:${m[0]}`);
  assert.deepEqual(hits, ['1:any', '3:as never', '4:any']);
});
