// Guard (issue 35, decision 0291): work a request queues for its organisation is capped per
// organisation. Every module file that queues a job for the caller's organisation (`enqueue(`
// with `orgId: ctx.orgId`) also calls `ensureJobRoom(` from src/platform/job-caps.ts, in the same
// transaction, before the enqueue. A new module that queues long work without a cap fails here;
// each module's own test proves its cap (the one past it is 429, another organisation still queues).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Queued per request but capped some other way, with the reason. */
const EXEMPT: Record<string, string> = {};

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

test('every operation that queues work for the caller’s organisation checks the organisation’s cap first', () => {
  const queuing: string[] = [];
  const uncapped: string[] = [];
  for (const file of walk(join(SRC, 'modules'))) {
    const text = readFileSync(file, 'utf8');
    // `startRebuild(q, ctx.orgId, ...)`: the energy ledger queues its rebuilds through one function.
    const calls = [...text.matchAll(/(?:enqueue\([^;]*?orgId: ctx\.orgId|startRebuild\(q, ctx\.orgId)[^;]*?;/gs)];
    if (!calls.length) continue;
    const name = relative(SRC, file);
    queuing.push(name);
    if (EXEMPT[name]) continue;
    // The check comes before the first enqueue for the caller's organisation.
    const check = text.indexOf('ensureJobRoom(');
    if (check < 0 || check > calls[0].index!) uncapped.push(name);
  }
  assert.ok(queuing.length >= 4, `the scan finds the queuing modules (found ${queuing.join(', ')})`);
  assert.deepEqual(uncapped, [], 'these queue work per request without ensureJobRoom before it');
});
