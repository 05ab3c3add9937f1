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

// Layers: src/core (below everything) < src/infra (adapters) < src/platform (mechanisms) < modules.
const LAYER_OF = (file: string) => relative(SRC, file).split('/')[0];
const importsOf = (file: string) =>
  [...readFileSync(file, 'utf8').matchAll(/^import[^;]*?from '(\.[^']+)'/gms)].map((m) => normalize(join(dirname(file), m[1])));

test('layers import downwards only: core imports nothing of ours, infra neither platform nor modules, platform no module', () => {
  const forbidden: Record<string, string[]> = { core: ['infra', 'platform', 'modules', 'cli'], infra: ['platform', 'modules', 'cli'], platform: ['modules', 'cli'] };
  const wrong: string[] = [];
  for (const [layer, not] of Object.entries(forbidden)) {
    for (const file of walk(join(SRC, layer))) {
      for (const target of importsOf(file)) {
        if (!target.startsWith(SRC)) continue;
        if (not.includes(LAYER_OF(target)) || ['app.ts', 'server.ts', 'main.ts'].includes(relative(SRC, target))) {
          wrong.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
        }
      }
    }
  }
  assert.deepEqual(wrong, []);
});

/**
 * The platform and infra name no domain: modules declare their gates (on operations), scopes
 * (ModuleDefinition.scopes), limit classes, envelope surface and probes. An exception would be
 * listed here with its reason; there is none.
 */
const DOMAIN_WORDS_LEFT: Record<string, string[]> = {};

test('src/platform, src/infra and src/core name no module, scope or realm', () => {
  // Module names that are also ordinary words of the platform ('access' tokens and CORS headers,
  // the database client's 'connect' event, the service's own name 'energy-platform-service' in the
  // outbound user agent) are left out; scopes are checked whole.
  const generic = new Set(['access', 'alerts', 'connect', 'devices', 'energy', 'telemetry']);
  const words = [
    'probes', 'devtools', 'demo-', 'field', 'crm', 'ems/routing', 'alerts:read', 'devices:read', 'telemetry:read', 'telemetry:write',
    ...readdirSync(MODULES, { withFileTypes: true }).filter((e) => e.isDirectory() && !generic.has(e.name)).map((e) => e.name),
  ];
  const found: Record<string, string[]> = {};
  for (const layer of ['platform', 'infra', 'core']) {
    for (const file of walk(join(SRC, layer))) {
      // Code only: comments and import paths may name what they talk about.
      const code = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '')
        .replace(/^import[^;]*;/gms, '');
      // A string literal that is the word, or starts with it (`'demo-'`, `'devtools-management'`).
      const hits = [...new Set(words.filter((w) => new RegExp(`['"\`]${w.replace(/[/:-]/g, (c) => `\\${c}`)}(['"\`:/-]|$)`, 'm').test(code)))];
      if (hits.length) found[relative(SRC, file)] = hits.sort();
    }
  }
  const extra = Object.entries(found).flatMap(([f, ws]) => ws.filter((w) => !(DOMAIN_WORDS_LEFT[f] ?? []).includes(w)).map((w) => `${f}: ${w}`));
  assert.deepEqual(extra, [], 'new domain names in the platform or infra: declare them in the module instead');
  const gone = Object.entries(DOMAIN_WORDS_LEFT).flatMap(([f, ws]) => ws.filter((w) => !(found[f] ?? []).includes(w)).map((w) => `${f}: ${w}`));
  assert.deepEqual(gone, [], 'no longer named: remove from DOMAIN_WORDS_LEFT');
});
