// The kit's HTML escaper (src/kit/html.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeHtml } from '../../src/kit/html.ts';

test('the five characters that end text or an attribute become entities; nothing else changes', () => {
  assert.equal(escapeHtml(`<a href="x" title='y'>Tom & Jerry</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;Tom &amp; Jerry&lt;/a&gt;');
  assert.equal(escapeHtml('&amp;'), '&amp;amp;', 'escaped once more, never skipped');
  assert.equal(escapeHtml('£12.50 – 46 periods'), '£12.50 – 46 periods');
  assert.equal(escapeHtml(42), '42');
  assert.equal(escapeHtml(null), '');
  assert.equal(escapeHtml(undefined), '');
});
