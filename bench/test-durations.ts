// A node:test reporter that prints how long each test file took (wall time of its process, from
// the runner's per-file event), slowest first, and the suite's time per built operation, so a slow
// file is visible and the per-operation budget (docs/development.md, Tests) can be checked.
//
//   npm run test:durations                       the whole suite, embedded
//   node --test --test-reporter=./bench/test-durations.ts test/devtools/*.test.ts
//   (add --test-reporter=spec --test-reporter-destination=stderr to see every test as well)
//
// TEST_SLOW_FILE_S (default 60) marks files at or over that many seconds.
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

interface Event {
  type: string;
  data: {
    name?: string;
    file?: string;
    skip?: string | boolean;
    details?: { duration_ms?: number; type?: string; error?: { message?: string; cause?: unknown } };
  };
}

/** Operations in the spec minus those still listed unbuilt; undefined outside the repository. */
function builtOperations(): number | undefined {
  try {
    const spec = JSON.parse(readFileSync('spec/operations.json', 'utf8')) as { operations: unknown[] };
    const unbuilt = JSON.parse(readFileSync('test/foundation/unbuilt-operations.json', 'utf8')) as { operations: unknown[] };
    return spec.operations.length - unbuilt.operations.length;
  } catch {
    return undefined;
  }
}

export default async function* durations(source: AsyncIterable<Event>): AsyncGenerator<string> {
  const started = performance.now();
  const files = new Map<string, { ms: number }>();
  const tests = new Map<string, number>();
  const failures: string[] = [];
  let pass = 0;
  let fail = 0;
  let skipped = 0;
  for await (const e of source) {
    const { file, name, details, skip } = e.data;
    if (!file || !name) continue;
    const rel = relative(process.cwd(), file);
    // The runner reports each file as a test named by its path, with the file's whole wall time.
    const isFile = resolve(name) === resolve(file);
    if (e.type === 'test:complete' && isFile) files.set(rel, { ms: details?.duration_ms ?? 0 });
    // Tests at any depth, as node's own summary counts them; suites (describe) are not tests.
    if (isFile || details?.type === 'suite') continue;
    if (e.type === 'test:pass') {
      tests.set(rel, (tests.get(rel) ?? 0) + 1);
      if (skip !== undefined && skip !== false) skipped++;
      else pass++;
    } else if (e.type === 'test:fail') {
      tests.set(rel, (tests.get(rel) ?? 0) + 1);
      fail++;
      failures.push(`${rel}: ${name}: ${details?.error?.message ?? ''}`.slice(0, 300));
    }
  }
  const wall = (performance.now() - started) / 1000;
  const slow = Number(process.env.TEST_SLOW_FILE_S ?? 60);
  const rows = [...files].sort((a, b) => b[1].ms - a[1].ms);
  const sum = rows.reduce((s, [, f]) => s + f.ms, 0) / 1000;
  yield `\n${'s'.padStart(7)}  ${'share'.padStart(5)}  tests  file\n`;
  for (const [rel, f] of rows) {
    const s = f.ms / 1000;
    yield `${s.toFixed(1).padStart(7)}  ${((100 * s) / sum).toFixed(1).padStart(4)}%  ${String(tests.get(rel) ?? 0).padStart(5)}  ${rel}${s >= slow ? `   <- slow (>= ${slow} s)` : ''}\n`;
  }
  yield `\n${rows.length} files, ${pass} passed, ${fail} failed, ${skipped} skipped; wall ${wall.toFixed(0)} s, file time summed ${sum.toFixed(0)} s\n`;
  const ops = builtOperations();
  if (ops) yield `per built operation (${ops}): wall ${(wall / ops).toFixed(2)} s, file time ${(sum / ops).toFixed(2)} s\n`;
  for (const f of failures) yield `FAIL ${f}\n`;
}
