// The gate the password KDF runs through (src/platform/concurrency-gate.ts): never more than its
// concurrency at once, first come first served, a bounded queue, refusals in the overload shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createGate } from '../../src/platform/concurrency-gate.ts';
import { AppError } from '../../src/platform/errors.ts';

test('at most N tasks run at once, in arrival order; past the queue bound a task is refused with 503 overloaded', async () => {
  const run = createGate(2, 3);
  let now = 0;
  let peak = 0;
  const started: number[] = [];
  const releases: (() => void)[] = [];
  const task = (i: number) => () =>
    new Promise<number>((resolve) => {
      started.push(i);
      peak = Math.max(peak, ++now);
      releases.push(() => {
        now--;
        resolve(i);
      });
    });
  const accepted = [0, 1, 2, 3, 4].map((i) => run(task(i)));
  const refused = run(task(5));
  await assert.rejects(refused, (e: unknown) => e instanceof AppError && e.status === 503 && e.code === 'overloaded' && e.headers['Retry-After'] === '1');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, [0, 1], 'two at once');
  while (releases.length) {
    releases.shift()!();
    await new Promise((r) => setImmediate(r));
  }
  assert.deepEqual(await Promise.all(accepted), [0, 1, 2, 3, 4]);
  assert.deepEqual(started, [0, 1, 2, 3, 4], 'first come, first served');
  assert.equal(peak, 2);
  // A failing task frees its slot too.
  await assert.rejects(
    run(() => Promise.reject(new Error('boom'))),
    /boom/,
  );
  assert.equal(await run(async () => 'after'), 'after');
});
