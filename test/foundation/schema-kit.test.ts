// One kit of shapes (src/platform/schema-kit.ts, decision 0032): modules make their schemas of it,
// so answers cannot drift between modules.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isoTime, isoTimeOrNull } from '../../src/platform/schema-kit.ts';
import { startTestService, json, type TestService } from '../helpers/service.ts';

const MODULES = fileURLToPath(new URL('../../src/modules/', import.meta.url));
const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));

/** Modules still carrying their own copy, to move onto the kit (issue 11, part 3). */
const OWN_COPIES_LEFT = new Set<string>([]);

test('no module defines its own Nullable, Timestamp, cursor parameter or page members', () => {
  const found: string[] = [];
  for (const file of walk(MODULES)) {
    const src = readFileSync(file, 'utf8');
    for (const name of ['Nullable', 'Timestamp', 'CursorParam', 'PageMembers']) {
      if (new RegExp(`^(export )?const ${name}\\b`, 'm').test(src)) found.push(`${relative(MODULES, file)}: ${name}`);
    }
  }
  assert.deepEqual(
    found.filter((f) => !OWN_COPIES_LEFT.has(f)),
    [],
    'use src/platform/schema-kit.ts',
  );
  assert.deepEqual(
    [...OWN_COPIES_LEFT].filter((f) => !found.includes(f)),
    [],
    'moved onto the kit: remove from OWN_COPIES_LEFT',
  );
});

/**
 * Files that cut or reshape toISOString() on purpose, each for a reason other than an instant in
 * an answer. Signed receipt bodies keep their documented formats (decisions 0107, 0110: changing
 * them would change what existing signatures cover); providers' and platforms' own request
 * formats; calendar dates (YYYY-MM-DD) cut from an instant.
 */
const OWN_INSTANT_FORMATS = new Set<string>([
  'settlement/format.ts', // signed receipt body
  'esg/keys.ts', // signed receipt keys
  'esg/service.ts', // signed energy receipts
  'market/carbon-provider.ts', // the carbon API's URL format
  'market/uk-time.ts', // calendar dates, and isoZ for the tariff provider's and flexibility platforms' requests
  'devtools/apikeys/alerts.ts', // the expiry date in an alert title
  'energy/range.ts', // calendar months and dates of a statement period
  'energy/reporting/service.ts', // the interval export's UK local start time column, with its offset
  'control/grid.ts', // checks that an agreement's date is a real calendar date
  'crm/records.ts', // calendar dates (a deal's expected close, a task's due date)
]);

test('no module writes instants in a format of its own (milliseconds dropped, offsets)', () => {
  const found = walk(MODULES)
    .filter((file) => /toISOString\(\)\s*\.(replace|slice|substring)\(/.test(readFileSync(file, 'utf8')))
    .map((file) => relative(MODULES, file));
  assert.deepEqual(
    found.filter((f) => !OWN_INSTANT_FORMATS.has(f)),
    [],
    'write instants with isoTime (src/platform/schema-kit.ts)',
  );
});

test('isoTime: UTC, Z and milliseconds always, from a Date, epoch milliseconds or text with an offset', () => {
  assert.equal(isoTime(new Date('2026-03-29T01:00:00+01:00')), '2026-03-29T00:00:00.000Z');
  assert.equal(isoTime(Date.UTC(2026, 9, 25, 1, 30, 0, 7)), '2026-10-25T01:30:00.007Z');
  assert.equal(isoTime('2026-11-23T10:00:00Z'), '2026-11-23T10:00:00.000Z');
  assert.equal(isoTimeOrNull(null), null);
});

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.stop());

/** Members that are instants but predate the kit, to be moved onto it. */
const INSTANTS_LEFT = new Set<string>([]);

test('every instant in an answer is declared a date-time', async () => {
  const doc = json(await svc.request({ method: 'GET', url: '/openapi.json' }));
  const bad = new Set<string>();
  const visit = (s: any, where: string, depth = 0): void => {
    if (!s || typeof s !== 'object' || depth > 20) return;
    // Named components are checked where they are used.
    if (typeof s.$ref === 'string') return visit(doc.components.schemas[s.$ref.split('/').pop()], where, depth + 1);
    for (const [k, v] of Object.entries<any>(s.properties ?? {})) {
      if (/(_at|^ts)$/.test(k) && !INSTANTS_LEFT.has(k)) {
        const options = v.anyOf ?? [v];
        if (!options.some((o: any) => o.format === 'date-time')) bad.add(`${where}: ${k}`);
      }
      visit(v, where, depth + 1);
    }
    visit(s.items, where, depth + 1);
    for (const x of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) visit(x, where, depth + 1);
  };
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      for (const r of Object.values<any>(op.responses)) for (const c of Object.values<any>(r.content ?? {})) visit(c.schema, `${method.toUpperCase()} ${path}`);
    }
  }
  assert.deepEqual([...bad], []);
});
