// Group commit (src/platform/group-commit.ts): callers arriving while a flush runs share the next
// one; each caller is answered only after the flush holding its item; a failed flush fails only
// its own callers, and the next flush runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupCommit } from '../../src/platform/group-commit.ts';

/** A write whose flushes each wait until the test settles them, in order. */
function heldWrites() {
  const flushes: { items: number[]; settle: (err?: Error) => void }[] = [];
  const write = groupCommit<number>(
    (items) =>
      new Promise<void>((resolve, reject) => {
        flushes.push({ items, settle: (err) => (err ? reject(err) : resolve()) });
      }),
  );
  return { flushes, write };
}
const tick = () => new Promise((r) => setImmediate(r));

test('callers queued during a flush share the next one; each is answered after its own flush commits', async () => {
  const { flushes, write } = heldWrites();
  const done: number[] = [];
  const all = [1, 2, 3, 4].map((n) => write(n).then(() => done.push(n)));
  await tick();
  assert.deepEqual(
    flushes.map((f) => f.items),
    [[1]],
    'the first flush began with the first item alone',
  );
  assert.deepEqual(done, [], 'nobody is answered before the commit');
  flushes[0].settle();
  await tick();
  assert.deepEqual(done, [1]);
  assert.deepEqual(
    flushes.map((f) => f.items),
    [[1], [2, 3, 4]],
    'the three that waited share one flush',
  );
  flushes[1].settle();
  await Promise.all(all);
  assert.deepEqual(done, [1, 2, 3, 4]);
});

test('a failed flush fails its own callers only; the next flush runs', async () => {
  const { flushes, write } = heldWrites();
  const a = write(1);
  await tick();
  const b = write(2);
  const c = write(3);
  flushes[0].settle(new Error('store unavailable'));
  await assert.rejects(a, /store unavailable/);
  await tick();
  assert.deepEqual(flushes[1].items, [2, 3]);
  flushes[1].settle();
  await Promise.all([b, c]);
  // After an idle moment a lone caller flushes at once.
  const d = write(4);
  await tick();
  assert.deepEqual(flushes[2].items, [4]);
  flushes[2].settle();
  await d;
});
