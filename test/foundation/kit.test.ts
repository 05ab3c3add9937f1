// Guard: the kit (src/kit, decision 0345). What every module shares — UK time and settlement
// periods, decimal money and energy, canonical JSON, CSV writing, HTML escaping — is written once,
// in src/kit, and imported from there: the kit imports nothing else of src; no module takes a kit
// helper from another module (or re-exports one); the helpers are not defined again elsewhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const KIT = join(SRC, 'kit');

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const kitFiles = walk(KIT);
const outside = walk(SRC).filter((f) => !f.startsWith(KIT + '/'));
const IMPORT = /^(?:import|export)\s[^;]*?from\s+'([^']+)'/gms;

/** Names the kit exports (functions, constants, classes, types), by file. */
const kitNames = new Map<string, string>();
for (const file of kitFiles) {
  for (const m of readFileSync(file, 'utf8').matchAll(/^export\s+(?:async\s+)?(?:function\*?|const|let|class|interface|type)\s+([A-Za-z_$][\w$]*)/gm)) {
    kitNames.set(m[1], relative(SRC, file));
  }
}

test('the kit has files and exports helpers (the guard below is not empty)', () => {
  assert.ok(kitFiles.length >= 4, 'src/kit holds uk-time, canonical-json, csv and html');
  for (const name of ['settlementPeriod', 'slotsInDay', 'ukClock', 'canonicalJson', 'csvRecord', 'escapeHtml']) assert.ok(kitNames.has(name), name);
});

test('src/kit imports nothing of src outside src/kit, and has no barrel index.ts', () => {
  const wrong: string[] = [];
  for (const file of kitFiles) {
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      if (!m[1].startsWith('.')) continue; // a package
      const target = normalize(join(dirname(file), m[1]));
      if (!target.startsWith(KIT + '/')) wrong.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
    }
  }
  assert.deepEqual(wrong, []);
  assert.ok(!kitFiles.some((f) => f === join(KIT, 'index.ts')), 'import kit files directly (no src/kit/index.ts)');
});

test('a kit helper is imported from the kit: never from a module or the platform, never re-exported by them', () => {
  const wrong: string[] = [];
  for (const file of outside) {
    for (const m of readFileSync(file, 'utf8').matchAll(/^(import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s+'(\.[^']+)'/gms)) {
      const target = normalize(join(dirname(file), m[3]));
      const fromKit = target.startsWith(KIT + '/');
      if (fromKit && m[1] === 'import') continue;
      const names = m[2]
        .split(',')
        .map(
          (s) =>
            s
              .trim()
              .replace(/^type\s+/, '')
              .split(/\s+as\s+/)[0],
        )
        .filter(Boolean);
      for (const n of names)
        if (kitNames.has(n)) wrong.push(`${relative(SRC, file)}: ${m[1]} ${n} from ${relative(SRC, target)} (it is in ${kitNames.get(n)})`);
    }
  }
  assert.deepEqual(wrong, []);
});

/**
 * Names outside the kit that are not copies of its helpers: a local `days` (a list or count of
 * days), and the sandbox's own five-minute SLOT_MS (its generator's step, not a settlement period).
 */
const NOT_COPIES = new Set(['days', 'devtools/sandbox/generator.ts:SLOT_MS']);

test('the kit helpers are not defined again outside the kit', () => {
  const wrong: string[] = [];
  for (const file of outside) {
    const text = readFileSync(file, 'utf8');
    const rel = relative(join(SRC, 'modules'), file);
    for (const m of text.matchAll(/(?:function\*?|const|let|class)\s+([A-Za-z_$][\w$]*)/g)) {
      const n = m[1];
      if (!kitNames.has(n) || NOT_COPIES.has(n) || NOT_COPIES.has(`${rel}:${n}`)) continue;
      wrong.push(`${relative(SRC, file)}: ${n} (use ${kitNames.get(n)})`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('no own UK clock, canonical JSON, CSV quoting or HTML escaping outside the kit', () => {
  const patterns: [RegExp, string][] = [
    [/timeZone:\s*'Europe\/London'/, 'UK local time from Intl (use kit/uk-time.ts)'],
    [/from 'canonicalize'/, 'canonical JSON (use kit/canonical-json.ts)'],
    [/\.sort\(\)\s*\.map\(\(k\)\s*=>\s*`\$\{JSON\.stringify\(k\)\}:/, 'canonical JSON by hand (use kit/canonical-json.ts)'],
    [/from 'csv-stringify/, 'CSV writing (use kit/csv.ts)'],
    [/\/\[",\\r\\n\]\/|\/\^\[=\+\\-@/, 'CSV quoting or a formula guard by hand (use kit/csv.ts)'],
    [/'&amp;'/, 'HTML escaping (use kit/html.ts)'],
  ];
  const wrong: string[] = [];
  for (const file of outside) {
    const text = readFileSync(file, 'utf8');
    for (const [re, what] of patterns) if (re.test(text)) wrong.push(`${relative(SRC, file)}: ${what}`);
  }
  assert.deepEqual(wrong, []);
});
