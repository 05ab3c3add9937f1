// Guard: a module uses another module only through its index.ts, and modules import each other
// without cycles (ARCHITECTURE.md, module anatomy). New modules are checked automatically.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, dirname, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { moduleList } from '../../src/modules/index.ts';
import { declaredExportables, moduleFactory, provideServices, type AppDeps, type ModuleDefinition } from '../../src/platform/module.ts';
import { createServiceRegistry, serviceKey } from '../../src/platform/services.ts';

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

// ---- dependsOn: what a module uses of another is declared (decision 0330) ----

/**
 * An import of another module's index.ts, type-only ones included (a type of another module's is a
 * dependency on it too), is matched by that module in the importer's dependsOn: dependsOn orders
 * the migrations and the services' providers, so an unlisted use works only by the list's order.
 * Every folder of src/modules is a module (an index.ts the module list names): code that is no
 * module lives above them, as the CLI's provisioning does (decision 0355).
 */
test('a module lists in dependsOn every module it imports from', () => {
  const declared = new Map(moduleList.map((d) => [d.name, new Set(d.dependsOn ?? [])]));
  const folders = readdirSync(MODULES, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  const missing: string[] = [];
  for (const from of folders) {
    assert.ok(existsSync(join(MODULES, from, 'index.ts')), `src/modules/${from} has no index.ts: a folder of src/modules is a module`);
    const deps = declared.get(from);
    assert.ok(deps, `src/modules/${from}/index.ts is a module missing from the module list (or its name differs from its folder)`);
    for (const to of [...(edges.get(from) ?? [])].sort()) if (!deps.has(to)) missing.push(`${from} -> ${to}`);
  }
  assert.deepEqual(missing, [], "module -> module it imports from: add the second to the first's dependsOn");
});

test('a module getting a service of a module not in its dependsOn stops the start, naming both', () => {
  const services = createServiceRegistry();
  const KEY = serviceKey<string>('thing');
  const provider: ModuleDefinition = { name: 'maker', provides: (_deps, r) => r.provide(KEY, 'made') };
  const listed: ModuleDefinition = { name: 'user', dependsOn: ['maker'], provides: (_deps, r) => assert.equal(r.get(KEY), 'made') };
  provideServices([provider, listed], { services } as AppDeps);
  const unlisted: ModuleDefinition = {
    name: 'other',
    dependsOn: [],
    create: (d) => {
      d.services.get(KEY);
      return { name: 'other', operations: [] };
    },
  };
  assert.throws(() => moduleFactory({ ...unlisted, create: unlisted.create! })({ services } as AppDeps), {
    message: 'module other uses service thing of module maker but does not list maker in its dependsOn',
  });
  const late: ModuleDefinition = { name: 'late', dependsOn: [], provides: (_deps, r) => r.get(KEY) };
  assert.throws(() => provideServices([late], { services } as AppDeps), /module late uses service thing of module maker/);
});

// ---- Plug-in rules (decision 0355): a new module edits no other module ----

/**
 * The export module names no module: every module declares its exportable collections in its
 * manifest (ModuleDefinition.exportable) and the platform hands them over as deps.exportables.
 * What it may still import, each with its reason; the list only shrinks.
 */
const EXPORT_IMPORTS_LEFT: Record<string, string> = {};

test('the export module imports no other module: collections come from the manifests', () => {
  const imported = [...(edges.get('export') ?? [])].sort();
  assert.deepEqual(
    imported.filter((m) => !(m in EXPORT_IMPORTS_LEFT)),
    [],
    "declare the collections in the owning module's ModuleDefinition.exportable instead",
  );
  assert.deepEqual(
    Object.keys(EXPORT_IMPORTS_LEFT).filter((m) => !imported.includes(m)),
    [],
    'no longer imported: remove from EXPORT_IMPORTS_LEFT',
  );
  const offered = moduleList.flatMap((d) => (d.exportable ?? []).map((c) => c.name));
  assert.ok(offered.length > 0);
  for (const d of moduleList) for (const c of d.exportable ?? []) assert.ok(c.name.startsWith(`${d.name}.`), `${c.name} is declared by ${d.name}`);
  assert.equal(new Set(offered).size, offered.length, 'a collection is declared twice');
});

test('a module whose export collection is misnamed or declared twice stops the start', () => {
  const coll = (name: string) => ({ ...moduleList.flatMap((d) => d.exportable ?? [])[0], name });
  assert.throws(() => declaredExportables([{ name: 'a', exportable: [coll('b.things')] }]), /module a offers export collection b\.things/);
  assert.throws(() => declaredExportables([{ name: 'a', exportable: [coll('a.things'), coll('a.things')] }]), /export collection a\.things is declared twice/);
  assert.deepEqual(
    declaredExportables([{ name: 'a', exportable: [coll('a.x')] }, { name: 'b' }, { name: 'c', exportable: [coll('c.y'), coll('c.z')] }]).map((c) => c.name),
    ['a.x', 'c.y', 'c.z'],
  );
});

/**
 * One error-response schema: an operation that declares an error status uses schema-kit's
 * ErrorResponse (documented as the platform's `Error`), never a `{detail}` object of its own.
 * Files still declaring one, with the reason; the list only shrinks.
 */
const ERROR_SCHEMAS_LEFT: Record<string, string> = {
  // The hub module is being reworked on another branch (issue 37, item 3); it takes ErrorResponse there.
  'modules/hub/schemas.ts': 'ErrorBody',
};

test('modules declare error answers with the one shared ErrorResponse schema', () => {
  const found: string[] = [];
  for (const file of walk(MODULES)) {
    const text = readFileSync(file, 'utf8');
    if (/Type\.Object\(\s*\{\s*detail:\s*Type\.(String|Unknown|Any)\(\)\s*\}/.test(text)) found.push(relative(SRC, file));
  }
  assert.deepEqual(
    found.filter((f) => !(f in ERROR_SCHEMAS_LEFT)),
    [],
    'use ErrorResponse from src/platform/schema-kit.ts',
  );
  assert.deepEqual(
    Object.keys(ERROR_SCHEMAS_LEFT).filter((f) => !found.includes(f)),
    [],
    'no longer declared: remove from ERROR_SCHEMAS_LEFT',
  );
});

/**
 * One route-file pattern: a module's operations are declared in its `routes.ts`, or, for a large
 * module, in `routes/<area>.ts` (never both). Files declaring operations elsewhere, with the reason;
 * the list only shrinks.
 */
const ROUTE_FILES_LEFT: Record<string, string> = {
  // The public intake form's operation; crm is being split into services on another branch.
  'modules/crm/intake.ts': 'intake',
};

test('operations are declared in routes.ts or routes/<area>.ts', () => {
  const wrong: string[] = [];
  const both: string[] = [];
  for (const file of walk(MODULES)) {
    if (!/\bdefineOperation\(/.test(readFileSync(file, 'utf8'))) continue;
    const rel = relative(MODULES, file).split('/');
    const ok = (rel.length === 2 && rel[1] === 'routes.ts') || (rel.length === 3 && rel[1] === 'routes');
    if (!ok && !(relative(SRC, file) in ROUTE_FILES_LEFT)) wrong.push(relative(SRC, file));
  }
  for (const e of readdirSync(MODULES, { withFileTypes: true })) {
    if (e.isDirectory() && existsSync(join(MODULES, e.name, 'routes.ts')) && existsSync(join(MODULES, e.name, 'routes'))) both.push(e.name);
  }
  assert.deepEqual(wrong, [], 'move the operations to routes.ts or routes/<area>.ts (git mv)');
  assert.deepEqual(both, [], 'a module has routes.ts or routes/, not both');
  const stillLeft = Object.keys(ROUTE_FILES_LEFT).filter((f) => existsSync(join(SRC, f)) && /\bdefineOperation\(/.test(readFileSync(join(SRC, f), 'utf8')));
  assert.deepEqual(stillLeft, Object.keys(ROUTE_FILES_LEFT), 'no longer declares operations: remove from ROUTE_FILES_LEFT');
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
  const forbidden: Record<string, string[]> = {
    core: ['infra', 'platform', 'modules', 'cli'],
    infra: ['platform', 'modules', 'cli'],
    platform: ['modules', 'cli'],
  };
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
  // outbound user agent, an answer's HTTP 'status') are left out; scopes are checked whole.
  const generic = new Set(['access', 'alerts', 'connect', 'devices', 'energy', 'status', 'telemetry']);
  const words = [
    'probes',
    'devtools',
    'demo-',
    'field',
    'crm',
    'ems/routing',
    'alerts:read',
    'devices:read',
    'telemetry:read',
    'telemetry:write',
    ...readdirSync(MODULES, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !generic.has(e.name))
      .map((e) => e.name),
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

// ---- Tables: a module's SQL names only its own tables (and the platform's, through src/infra) ----

/** Removes comments and gives the text of every string literal (template parts joined by a space). */
function stringLiterals(src: string): string[] {
  const out: string[] = [];
  let i = 0;
  const code = (close: string | null): void => {
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
      if (c === "'" || c === '"') {
        out.push(quoted(c));
        continue;
      }
      if (c === '`') {
        out.push(template());
        continue;
      }
      if (c === '/' && regexAllowed()) {
        regex();
        continue;
      }
      if (c === '{') depth++;
      if (c === '}') {
        if (depth === 0 && close === '}') {
          i++;
          return;
        }
        depth--;
      }
      i++;
    }
  };
  // A `/` starts a regular expression after an operator or keyword, not after a value.
  const regexAllowed = () => {
    let j = i - 1;
    while (j >= 0 && /\s/.test(src[j])) j--;
    if (j < 0) return true;
    if (/[(,=:[!&|?{};+\-*%<>~^]/.test(src[j])) return true;
    const word = /[A-Za-z_$]+$/.exec(src.slice(Math.max(0, j - 10), j + 1))?.[0];
    return word !== undefined && ['return', 'typeof', 'case', 'in', 'of', 'void', 'throw'].includes(word);
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
  };
  const quoted = (q: string) => {
    let s = '';
    i++;
    while (i < src.length && src[i] !== q) {
      if (src[i] === '\\') {
        s += src[i + 1];
        i += 2;
        continue;
      }
      s += src[i++];
    }
    i++;
    return s;
  };
  const template = () => {
    let s = '';
    i++;
    while (i < src.length && src[i] !== '`') {
      if (src[i] === '\\') {
        s += src[i + 1];
        i += 2;
        continue;
      }
      if (src[i] === '$' && src[i + 1] === '{') {
        i += 2;
        code('}');
        s += ' ';
        continue;
      }
      s += src[i++];
    }
    i++;
    return s;
  };
  code(null);
  return out;
}

/**
 * Tables whose owner is not the module whose migration made them: an applied migration is never
 * edited (its checksum is recorded) and its name is its record's key, so a table made in another
 * module's migration keeps that file where it is; the code that reads and writes it is the owner's.
 */
const OWNED_ELSEWHERE: Record<string, string> = {
  // Made by the orgs module's 0001_core with organisations; identity's store and service (decision 0356).
  users: 'identity',
  memberships: 'identity',
};

/** Table -> owning module ('platform' for src/infra), from the `create table` statements. */
function tableOwners(): Map<string, string> {
  const owners = new Map<string, string>();
  const add = (text: string, owner: string) => {
    for (const m of text.matchAll(/create\s+(?:unlogged\s+)?table\s+(?:if\s+not\s+exists\s+)?"?([a-z_][a-z0-9_]*)"?/gi)) {
      const t = m[1].toLowerCase();
      if (owners.has(t) && owners.get(t) !== owner) throw new Error(`table ${t} is made by ${owners.get(t)} and ${owner}`);
      owners.set(t, owner);
    }
  };
  for (const e of readdirSync(MODULES, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const dir = join(MODULES, e.name, 'migrations');
    let files: string[] = [];
    try {
      files = readdirSync(dir).filter((f) => f.endsWith('.sql'));
    } catch {
      continue;
    }
    for (const f of files) add(readFileSync(join(dir, f), 'utf8'), e.name);
  }
  const infra = join(SRC, 'infra');
  const infraFiles = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? infraFiles(join(dir, e.name)) : /\.(sql|ts)$/.test(e.name) ? [join(dir, e.name)] : [],
    );
  for (const f of infraFiles(infra)) add(readFileSync(f, 'utf8'), 'platform');
  for (const [t, owner] of Object.entries(OWNED_ELSEWHERE)) {
    assert.ok(owners.has(t), `${t} is made by no migration`);
    owners.set(t, owner);
  }
  return owners;
}

/** Tables named in a piece of SQL text (statement or fragment). */
function tablesIn(sql: string, known: Set<string>): string[] {
  const found = new Set<string>();
  const s = sql.toLowerCase();
  const name = '"?([a-z_][a-z0-9_]*)"?';
  const patterns = [
    new RegExp(`\\b(?:from|join|into|update|using|truncate|references|lock\\s+table|table)\\s+(?:only\\s+)?${name}`, 'g'),
    new RegExp(`\\bfrom\\s+${name}\\s*(?:\\w+\\s*)?,\\s*${name}`, 'g'), // from a x, b y
  ];
  for (const p of patterns) for (const m of s.matchAll(p)) for (const t of m.slice(1)) if (t && known.has(t)) found.add(t);
  return [...found];
}

/** A string literal is taken as SQL when it reads like a statement or a clause of one. */
const looksLikeSql = (s: string) =>
  /\b(select\b[\s\S]*\bfrom|insert\s+into|update\s+\S+\s+(?:as\s+\w+\s+)?set|delete\s+from|join\s+\S+\s+\w*\s*on|from\s+\S+\s+\w*\s*where)\b/i.test(s);

function foreignTables(): string[] {
  const owners = tableOwners();
  const known = new Set(owners.keys());
  const found = new Set<string>();
  for (const file of walk(MODULES)) {
    if (dirname(file) === MODULES) continue;
    const mod = moduleOf(file);
    for (const lit of stringLiterals(readFileSync(file, 'utf8'))) {
      if (!looksLikeSql(lit)) continue;
      for (const t of tablesIn(lit, known)) {
        const owner = owners.get(t)!;
        if (owner !== mod) found.add(`${mod} -> ${t} (${owner})`);
      }
    }
  }
  return [...found].sort();
}

/**
 * Today's uses of another module's tables, each to be replaced by a service of the owner (issue 11,
 * decision 0036). The list only shrinks: an entry no longer needed fails the test too.
 */
const FOREIGN_TABLES_LEFT: string[] = [
  // The organisation's name beside a membership (sign-in, /api/auth/me): to become a service of orgs.
  'identity -> organisations (orgs)',
];

test("a module's SQL names only its own tables: others are reached through the owner's services", () => {
  const found = foreignTables();
  assert.deepEqual(
    found.filter((f) => !FOREIGN_TABLES_LEFT.includes(f)),
    [],
    'module -> table (owner): ask the owner for a service instead',
  );
  assert.deepEqual(
    FOREIGN_TABLES_LEFT.filter((f) => !found.includes(f)),
    [],
    'no longer used: remove from FOREIGN_TABLES_LEFT',
  );
});

test('the table scan sees SQL and only SQL', () => {
  const lits = stringLiterals(`
    // select * from assets a where x  (a comment)
    /* delete from telemetry where 1 */
    const a = 'select a.x from assets a where a.org_id = $1';
    const b = \`select \${cols('x')} from telemetry_latest l join assets a on a.id = l.id\`;
    const c = "Records arrive from telemetry and the registry";
    const re = /from telemetry where/;
  `);
  const known = new Set(['assets', 'telemetry', 'telemetry_latest']);
  assert.deepEqual(
    lits.filter(looksLikeSql).map((l) => tablesIn(l, known).sort()),
    [['assets'], ['assets', 'telemetry_latest']],
  );
});

// ---- What an index.ts offers: services, types and rules, never SQL or a way to build the store ----

const IMPORTED_NAMES = /^import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'(\.[^']+)'/gms;

/** SQL fragments and store factories another module imports from an index.ts (`module -> name (owner)`). */
function sharedInternals(): string[] {
  const found = new Set<string>();
  for (const file of walk(MODULES)) {
    if (dirname(file) === MODULES) continue;
    const from = moduleOf(file);
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORTED_NAMES)) {
      const target = normalize(join(dirname(file), m[2]));
      if (!target.startsWith(MODULES + '/')) continue;
      const to = moduleOf(target);
      if (to === from) continue;
      for (const raw of m[1].split(',')) {
        const name = raw
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0];
        if (/sql$/i.test(name) || /^create\w*Store$/.test(name)) found.add(`${from} -> ${name} (${to})`);
      }
    }
  }
  return [...found].sort();
}

/** Names an index.ts exports that are SQL (a name ending in Sql/SQL). */
function sqlExports(): string[] {
  const found: string[] = [];
  for (const e of readdirSync(MODULES, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    let text = '';
    try {
      text = readFileSync(join(MODULES, e.name, 'index.ts'), 'utf8');
    } catch {
      continue;
    }
    const names = [
      ...[...text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gms)].flatMap((m) =>
        m[1].split(',').map((n) =>
          n
            .trim()
            .split(/\s+as\s+/)
            .pop()!
            .replace(/^type\s+/, ''),
        ),
      ),
      ...[...text.matchAll(/^export\s+(?:async\s+)?(?:function|const|let)\s+([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]),
    ];
    for (const n of names) if (/sql$/i.test(n)) found.push(`${e.name}: ${n}`);
  }
  return found.sort();
}

/** Today's imports of another module's SQL or store factory (decision 0036); the list only shrinks. */
const SHARED_INTERNALS_LEFT: string[] = [];
const SQL_EXPORTS_LEFT: string[] = [];

test("no module imports another's SQL fragment or builds its store", () => {
  const found = sharedInternals();
  assert.deepEqual(
    found.filter((f) => !SHARED_INTERNALS_LEFT.includes(f)),
    [],
    'use a service the owner provides',
  );
  assert.deepEqual(
    SHARED_INTERNALS_LEFT.filter((f) => !found.includes(f)),
    [],
    'no longer used: remove from SHARED_INTERNALS_LEFT',
  );
});

test('no index.ts exports SQL', () => {
  const found = sqlExports();
  assert.deepEqual(
    found.filter((f) => !SQL_EXPORTS_LEFT.includes(f)),
    [],
  );
  assert.deepEqual(
    SQL_EXPORTS_LEFT.filter((f) => !found.includes(f)),
    [],
    'no longer exported: remove from SQL_EXPORTS_LEFT',
  );
});
