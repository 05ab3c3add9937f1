// The kit's CSV writer (src/kit/csv.ts): RFC 4180 quoting, CRLF records, the formula guard on text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvField, csvRecord } from '../../src/kit/csv.ts';

test('csvField quotes per RFC 4180', () => {
  assert.equal(csvField('plain'), 'plain');
  assert.equal(csvField('a,b'), '"a,b"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  assert.equal(csvField('line\nbreak'), '"line\nbreak"');
  assert.equal(csvField('cr\rhere'), '"cr\rhere"');
  assert.equal(csvField('"'), '""""');
  assert.equal(csvField(''), '');
  assert.equal(csvField(null), '');
  assert.equal(csvField(undefined), '');
  assert.equal(csvField(42), '42');
  assert.equal(csvField(-1.5), '-1.5', 'a negative number is a number, not a formula');
  assert.equal(csvField(true), 'true');
  assert.equal(csvField(new Date(Date.UTC(2026, 9, 25, 1, 30))), '2026-10-25T01:30:00.000Z');
  assert.equal(csvField({ a: 1, b: 'x,y' }), '"{""a"":1,""b"":""x,y""}"', 'objects as JSON, quoted when needed');
});

test('text a spreadsheet would run as a formula gets a leading apostrophe (then quoting as usual)', () => {
  assert.equal(csvField('-1+1'), "'-1+1");
  assert.equal(csvField('=SUM(A1:A2)'), "'=SUM(A1:A2)");
  assert.equal(csvField('+44 20'), "'+44 20");
  assert.equal(csvField('@cmd'), "'@cmd");
  assert.equal(csvField('\tx'), "'\tx");
  assert.equal(csvField('\rx'), `"'\rx"`);
  assert.equal(csvField('=1,2'), `"'=1,2"`);
  assert.equal(csvField('a=b'), 'a=b', 'only a leading sign');
});

test('csvRecord joins fields with commas and ends the record with CRLF', () => {
  assert.equal(csvRecord(['a', 'b,c']), 'a,"b,c"\r\n');
  assert.equal(csvRecord([]), '\r\n');
  assert.equal(csvRecord([null, 1, '']), ',1,\r\n');
});
