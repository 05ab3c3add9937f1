// Guard: a module uses another module only through its index.ts, and modules import each other
// without cycles (ARCHITECTURE.md, module anatomy). New modules are checked automatically.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, dirname, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const MODULES = join(SRC, 'modules');

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  );
}

const moduleOf = (file: string) => relative(MODULES, file).split('/')[0];
const edges = new Map<string, Set<string>>();
const deep: string[] = [];

for (const file of walk(MODULES)) {
  if (dirname(file) === MODULES) continue; // src/modules/index.ts lists every module
  const from = moduleOf(file);
  for (const m of readFileSync(file, 'utf8').matchAll(/^import[^;]*?from '(\.[^']+)'/gms)) {
    const target = normalize(join(dirname(file), m[1]));
    if (!target.startsWith(MODULES + '/')) continue;
    const to = moduleOf(target);
    if (to === from) continue;
    if (relative(join(MODULES, to), target) !== 'index.ts') deep.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from)!.add(to);
  }
}

test('modules import other modules only through their index.ts', () => {
  assert.deepEqual(deep, []);
});

test('no import cycles between modules', () => {
  const cycles: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (m: string, path: string[]) => {
    if (state.get(m) === 'done') return;
    if (state.get(m) === 'visiting') {
      cycles.push([...path.slice(path.indexOf(m)), m].join(' -> '));
      return;
    }
    state.set(m, 'visiting');
    for (const n of edges.get(m) ?? []) visit(n, [...path, m]);
    state.set(m, 'done');
  };
  for (const m of edges.keys()) visit(m, []);
  assert.deepEqual(cycles, []);
});
