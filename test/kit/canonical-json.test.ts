// The kit's canonical JSON (src/kit/canonical-json.ts): RFC 8785 by the canonicalize package, with
// the refusals the ESG and settlement receipts answer with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CANONICAL_MAX_DEPTH, canonicalJson, CanonicalError } from '../../src/kit/canonical-json.ts';

test('members sorted by UTF-16 code units at every level, no whitespace, array order kept', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [3, 1], c: null } }), '{"a":{"c":null,"d":[3,1]},"b":1}');
  // Upper case before lower case, and code units (not code points): U+E000 sorts after U+1F600's surrogates.
  assert.equal(canonicalJson({ b: 0, B: 0, '\u{1F600}': 0, '\uE000': 0, a: 0 }), '{"B":0,"a":0,"b":0,"\u{1F600}":0,"\uE000":0}');
  assert.equal(canonicalJson({ '10': 0, '9': 0, a: 0 }), '{"10":0,"9":0,"a":0}');
});

test('numbers as ECMAScript writes them (RFC 8785 section 3.2.2.3)', () => {
  assert.equal(
    canonicalJson([1.0, -0, 1e21, 1e-7, 0.1 + 0.2, 123456789012345680000, 5e-324]),
    '[1,0,1e+21,1e-7,0.30000000000000004,123456789012345680000,5e-324]',
  );
  assert.equal(canonicalJson(JSON.parse('{"n": 10.50}')), '{"n":10.5}');
});

test('strings as JSON.stringify escapes them; undefined members left out; a top-level undefined is null', () => {
  assert.equal(canonicalJson({ s: 'a"b\\c\n\u0001é€' }), '{"s":"a\\"b\\\\c\\n\\u0001é€"}');
  assert.equal(canonicalJson({ a: undefined, b: 1 }), '{"b":1}');
  assert.equal(canonicalJson(undefined), 'null');
  assert.equal(canonicalJson([undefined]), '[null]');
});

test('the same JSON with other member order or spacing has the same canonical text', () => {
  assert.equal(canonicalJson(JSON.parse('{ "x": [ {"b":2, "a":1} ], "y": true }')), canonicalJson(JSON.parse('{"y":true,"x":[{"a":1,"b":2}]}')));
});

test('no canonical form: a number that is not finite, an unpaired surrogate, nesting beyond maxDepth', () => {
  assert.throws(() => canonicalJson({ n: Number.POSITIVE_INFINITY }), new CanonicalError('numbers must be finite'));
  assert.throws(() => canonicalJson(['\uD800']), /unpaired UTF-16 surrogate/);
  assert.throws(() => canonicalJson({ '\uDC00': 1 }), CanonicalError);
  let deep: unknown = 1;
  for (let i = 0; i < CANONICAL_MAX_DEPTH; i++) deep = [deep];
  assert.equal(canonicalJson(deep, { maxDepth: CANONICAL_MAX_DEPTH }).length, 2 * CANONICAL_MAX_DEPTH + 1);
  assert.throws(() => canonicalJson([deep], { maxDepth: CANONICAL_MAX_DEPTH }), new CanonicalError(`nested deeper than ${CANONICAL_MAX_DEPTH} levels`));
  assert.equal(canonicalJson([deep]).length, 2 * CANONICAL_MAX_DEPTH + 3, 'without maxDepth any depth is written');
});
