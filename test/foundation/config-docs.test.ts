// Every variable the configuration loader reads (the service's own and each module's section) is
// documented in docs/configuration.md, and every variable documented there is read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { settingNames } from '../../src/config.ts';

/** The names loadConfig looks up (the service's own and every module section's): what --help lists. */
const variablesRead = (): string[] => settingNames();

function variablesDocumented(): string[] {
  const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
  return [...doc.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]).sort();
}

test('every variable the loader reads is in docs/configuration.md, and every one there is read', () => {
  const read = variablesRead();
  const documented = variablesDocumented();
  assert.ok(read.length > 30, `the loader reads ${read.length} variables`);
  assert.deepEqual(
    read.filter((v) => !documented.includes(v)),
    [],
    'read but not documented',
  );
  assert.deepEqual(
    documented.filter((v) => !read.includes(v)),
    [],
    'documented but never read',
  );
});
