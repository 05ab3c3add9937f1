// Cursors are bound to the operation, organisation and filters; anything else is invalid_cursor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createCursorCodec, toPage } from '../../src/platform/cursor.ts';
import { AppError } from '../../src/platform/errors.ts';

const codec = createCursorCodec('secret-for-tests-secret-for-tests');
const binding = { op: 'listAlerts', orgId: 'a', filters: { since: '2026-01-01T00:00:00Z' } };
const isInvalid = (e: unknown) => e instanceof AppError && e.status === 400 && e.detail === 'invalid_cursor';

test('round trip', () => {
  const c = codec.encode(binding, { t: '2026-11-22T00:00:00Z', id: 42 });
  assert.deepEqual(codec.decode(c, binding), { t: '2026-11-22T00:00:00Z', id: 42 });
  // Filter key order does not matter.
  assert.deepEqual(codec.decode(c, { orgId: 'a', filters: { since: '2026-01-01T00:00:00Z' }, op: 'listAlerts' }).id, 42);
});

test('another operation, organisation or filter set, a forged or mangled cursor: invalid_cursor', () => {
  const c = codec.encode(binding, { t: 't', id: 'r1' });
  assert.throws(() => codec.decode(c, { ...binding, op: 'listDevices' }), isInvalid);
  assert.throws(() => codec.decode(c, { ...binding, orgId: 'b' }), isInvalid);
  assert.throws(() => codec.decode(c, { ...binding, filters: { since: '2026-02-01T00:00:00Z' } }), isInvalid);
  assert.throws(() => codec.decode('garbage', binding), isInvalid);
  assert.throws(() => codec.decode(createCursorCodec('other-key-other-key-other-key').encode(binding, { t: 't', id: 1 }), binding), isInvalid);
  const forged = Buffer.from(JSON.stringify({ t: 'x', i: 999 })).toString('base64url') + '.' + c.split('.')[1];
  assert.throws(() => codec.decode(forged, binding), isInvalid);
});

test('property: flipping any character of a cursor makes it invalid', () => {
  const c = codec.encode(binding, { t: '2026-11-22T00:00:00.123Z', id: 12345 });
  fc.assert(
    fc.property(fc.integer({ min: 0, max: c.length - 1 }), fc.constantFrom('A', 'b', '0', '_', '-'), (i, ch) => {
      if (c[i] === ch) return;
      const mangled = c.slice(0, i) + ch + c.slice(i + 1);
      try {
        const pos = codec.decode(mangled, binding);
        // base64url padding bits can make two spellings decode alike; the position must then be unchanged.
        assert.deepEqual(pos, { t: '2026-11-22T00:00:00.123Z', id: 12345 });
      } catch (e) {
        assert.ok(isInvalid(e));
      }
    }),
    { seed: 42, numRuns: 300 },
  );
});

test('toPage: has_more and next_cursor exactly on a page with more behind it', () => {
  const rows = [1, 2, 3, 4].map((id) => ({ id, t: `2026-01-0${id}` }));
  const p1 = toPage(rows.slice(0, 3), 2, (r) => ({ t: r.t, id: r.id }), codec, binding);
  assert.equal(p1.items.length, 2);
  assert.equal(p1.has_more, true);
  assert.ok(p1.next_cursor);
  const p2 = toPage(rows.slice(0, 2), 2, (r) => ({ t: r.t, id: r.id }), codec, binding);
  assert.equal(p2.has_more, false);
  assert.equal(p2.next_cursor, null);
});
