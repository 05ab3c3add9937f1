// The kit's CSV writer (src/kit/csv.ts): RFC 4180 quoting, CRLF records, the formula guard on text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvField, csvRecord, csvRecords } from '../../src/kit/csv.ts';

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

test('a negative decimal written as text (PostgreSQL numeric or bigint) is a number, not a formula (decision 0504)', () => {
  assert.equal(csvField('-0.500'), '-0.500');
  assert.equal(csvField('-12'), '-12');
  for (const s of ['-1.5e3', '-.5', '-1.', '-', '--1', '-1 ', '-1+1', '-1,5', '-\u0661'])
    assert.equal(csvField(s), s.includes(',') ? `"'${s}"` : `'${s}`, JSON.stringify(s));
});

test('csvRecords reads CRLF, LF and CR line ends in one file and stops at its limits', async () => {
  assert.deepEqual(await csvRecords('\ufeffa,b\r\n c ,d\ne,f\rg,h\n\n"x\r\ny",z', { maxRecords: 10, maxWrongWidth: 10 }), {
    records: [
      ['a', 'b'],
      ['c', 'd'],
      ['e', 'f'],
      ['g', 'h'],
      ['x\r\ny', 'z'],
    ],
    lines: [1, 2, 3, 4, 7],
    stopped: false,
  });
  const many = await csvRecords('a,b\n' + '1,2\n'.repeat(50), { maxRecords: 5, maxWrongWidth: 10 });
  assert.deepEqual([many.records.length, many.stopped], [5, true]);
  const narrow = await csvRecords('a,b\n' + 'x\n1,2\n'.repeat(50), { maxRecords: 1000, maxWrongWidth: 3 });
  assert.deepEqual([narrow.records.length, narrow.stopped], [6, true]);
  await assert.rejects(csvRecords('a\n"open', { maxRecords: 10, maxWrongWidth: 10 }), { code: 'CSV_QUOTE_NOT_CLOSED', lines: 2 });
});

test('csvRecords names the line each record ends on: empty lines skipped and quoted line ends counted', async () => {
  const read = await csvRecords('a,b\n\n\n1,2\r\n"two\nlines",3\n\n4,"\u00e9\u00e9"\n', { maxRecords: 10, maxWrongWidth: 10 });
  assert.deepEqual(read.records, [
    ['a', 'b'],
    ['1', '2'],
    ['two\nlines', '3'],
    ['4', '\u00e9\u00e9'],
  ]);
  assert.deepEqual(read.lines, [1, 4, 6, 8]);
});

test('csvRecords reads a megabyte in pieces and lets other work run between them (one record of a million empty fields)', async () => {
  // Parsing a megabyte costs csv-parse 0.2-0.3 s whatever it holds; read in one go, every other
  // request waited that long. Other work gets a turn between the 16 KiB pieces instead.
  const text = 'a\n' + ','.repeat(1024 * 1024 - 3);
  let turns = 0;
  let reading = true;
  const other = (async () => {
    while (reading) {
      turns++;
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  const read = await csvRecords(text, { maxRecords: 10, maxWrongWidth: 10 });
  reading = false;
  await other;
  assert.deepEqual([read.records.length, read.records[1]!.length, read.lines, read.stopped], [2, 1024 * 1024 - 2, [1, 2], false]);
  assert.ok(turns >= 60, `other work ran ${turns} times while a megabyte was read (64 pieces)`);
  // A multi-byte character split between two pieces is read whole.
  const wide = await csvRecords('a\n' + 'x'.repeat(16 * 1024 - 3) + '\u00e9\u20ac\n', { maxRecords: 10, maxWrongWidth: 10 });
  assert.equal(wide.records[1]![0], 'x'.repeat(16 * 1024 - 3) + '\u00e9\u20ac');
});

test('csvRecord joins fields with commas and ends the record with CRLF', () => {
  assert.equal(csvRecord(['a', 'b,c']), 'a,"b,c"\r\n');
  assert.equal(csvRecord([]), '\r\n');
  assert.equal(csvRecord([null, 1, '']), ',1,\r\n');
});
