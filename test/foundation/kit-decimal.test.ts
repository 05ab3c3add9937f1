// Guard: decimal money and energy are written once, in src/kit/decimal.ts (decision 0340). Outside
// src/kit no file scales by powers of ten in bigint, formats a bigint as decimal text by hand,
// fixes a binary figure to a scaled integer, writes kWh or money with toFixed, or defines a helper
// under one of the kit's names (or the names of the copies it replaced). Comments are skipped.
// Plain constants such as `1_000_000n` (a unit conversion written out) and float rounding of
// ratios, kW and percentages are legitimate and not flagged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const KIT = join(SRC, 'kit');

const NAMES = [
  // the kit's own
  'pow10',
  'parseScaled',
  'parseRounded',
  'rescale',
  'roundDiv',
  'formatScaled',
  'formatPlain',
  'fromNumber',
  'toNumber',
  'withVat',
  'meanOf',
  'poundsText',
  'penceOf',
  'costPence',
  'toWh',
  'kwhText',
  // the copies it replaced
  'divRound',
  'toMicros',
  'fromMicros',
  'parseMicros',
  'kwhMicros',
  'kwhFigure',
  'poundsOf',
  'linePence',
  'scaled',
  'unscaled',
  'bigWhToKwh',
];

const RULES: [RegExp, string][] = [
  [/\b10n\s*\*\*|\*\*\s*BigInt\(|BigInt\(\s*10\s*\)/, 'a power of ten in bigint (use pow10 / rescale from src/kit/decimal.ts)'],
  [/%\s*10+n\b/, 'a bigint split by a power of ten, decimal text by hand (use formatScaled / poundsText / kwhText)'],
  [/BigInt\(\s*Math\.round\([^;]*\*\s*(?:1e\d+|10+)\b/, 'a binary figure scaled to an integer by hand (use fromNumber)'],
  [/\b\w+_(?:kwh|gbp|pence|p)\s*:[^\n]*\.toFixed\(/, 'kWh or money written with toFixed (use kwhText / formatScaled)'],
  [
    new RegExp(`\\b(?:function\\s+|(?:const|let)\\s+)(?:${NAMES.join('|')})\\b`),
    'a decimal helper defined outside the kit (import it from src/kit/decimal.ts)',
  ],
];

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (join(dir, e.name) === KIT ? [] : walk(join(dir, e.name))) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The line without its comment: JSDoc and block-comment lines go; a `//` outside quotes ends the code. */
function codeOf(line: string): string {
  if (/^\s*(\*|\/\*)/.test(line)) return '';
  const bare = line.replace(/'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"/g, (s) => ' '.repeat(s.length));
  const at = bare.indexOf('//');
  return at === -1 ? line : line.slice(0, at);
}

export function findings(root = SRC): string[] {
  const out: string[] = [];
  for (const file of walk(root)) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const code = codeOf(line);
        for (const [re, why] of RULES) if (re.test(code)) out.push(`${relative(root, file)}:${i + 1}: ${why}: ${line.trim()}`);
      });
  }
  return out;
}

test('decimal money and energy are written once, in src/kit/decimal.ts (decision 0340)', () => {
  assert.deepEqual(findings(), []);
});

test('the kit stands outside every domain: nothing in src/kit imports src/modules or src/platform', () => {
  const out: string[] = [];
  for (const e of readdirSync(KIT, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || !e.name.endsWith('.ts')) continue;
    const file = join(e.parentPath, e.name);
    for (const m of readFileSync(file, 'utf8').matchAll(/\bfrom\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]/g)) {
      const spec = m[1] ?? m[2] ?? '';
      if (/(^|\/)(modules|platform)\//.test(spec)) out.push(`${relative(SRC, file)}: ${spec}`);
    }
  }
  assert.deepEqual(out, []);
});
