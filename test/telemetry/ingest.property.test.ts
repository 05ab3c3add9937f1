// Property-based ingestion (fast-check, fixed seed): random records and batches thrown at the API.
// Invariants: no answer is a 500 (only 200, 207 or 422); count = stored + rejected + duplicates;
// exactly the records an independent oracle calls valid are stored, once each (checked by reading
// them back); nothing rejected is stored.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { client } from './support.ts';

const SEED = 20261015;
const RUNS = 60;
const ORG = 'acme';
const NOW = Date.parse('2026-10-15T12:00:00Z');

let svc: TestService;
let api: ReturnType<typeof client>;
before(async () => {
  svc = await startTestService({ clock: new ManualClock(NOW), env: { RATE_LIMIT_USER_PER_MIN: '100000' } });
  await svc.createOrg(ORG);
  api = client(svc, ORG);
});
after(() => svc.stop());

/** A piece of a record and whether the record rules accept it. */
type Part = { set: Record<string, unknown>; valid: boolean };
const ok = (set: Record<string, unknown>): Part => ({ set, valid: true });
const bad = (set: Record<string, unknown>): Part => ({ set, valid: false });

const CANONICAL = [
  'asset_id',
  'device_id',
  'ts',
  'power_kw',
  'soc_pct',
  'voltage',
  'current',
  'temp_c',
  'status',
  'run_id',
  'intent_id',
  'tenant_id',
  '_probe',
];

const assetArb: fc.Arbitrary<Part> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom('a1', 'a2', 'a3').map((v) => ok({ asset_id: v })) },
  { weight: 2, arbitrary: fc.constantFrom('d1', 'd2').map((v) => ok({ device_id: v })) },
  { weight: 1, arbitrary: fc.constant(ok({ asset_id: null, device_id: 'd3' })) },
  { weight: 1, arbitrary: fc.constant(bad({})) },
  { weight: 1, arbitrary: fc.constantFrom('', '   ').map((v) => bad({ asset_id: v })) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.boolean(), fc.constant([1])).map((v) => bad({ asset_id: v })) },
);

// A few instants only, so (asset_id, ts) collisions between different records are common.
const instants = [NOW - 3_600_000, NOW - 60_000, NOW - 86_400_000 * 3];
const tsArb: fc.Arbitrary<Part> = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom(...instants).map((t) => ok({ ts: new Date(t).toISOString() })) },
  { weight: 2, arbitrary: fc.constantFrom(...instants).map((t) => ok({ ts: new Date(t + 3_600_000).toISOString().replace('Z', '+01:00') })) },
  { weight: 1, arbitrary: fc.constant(ok({ ts: '2026-10-15T10:00:00' })) },
  { weight: 1, arbitrary: fc.constant(ok({ ts: '2026-10-20T00:00:00Z' })) },
  { weight: 1, arbitrary: fc.constant(bad({})) },
  { weight: 1, arbitrary: fc.oneof(fc.integer({ min: 0 }), fc.double({ noNaN: true, noDefaultInfinity: true })).map((v) => bad({ ts: v })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('yesterday', '2026-13-01T00:00:00Z', '2026-10-15', '15/10/2026 10:00', '1760526000', '2026-10-15T25:00:00Z')
      .map((v) => bad({ ts: v })),
  },
  { weight: 1, arbitrary: fc.oneof(fc.boolean(), fc.constant({}), fc.constant(['2026-10-15T10:00:00Z'])).map((v) => bad({ ts: v })) },
);

const measurementArb = (key: string): fc.Arbitrary<Part> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(ok({})) },
    // 0, or a magnitude from 1e-100 to the field's bound (1e7 for all but power_kw's 1e8), decision 0280.
    {
      weight: 8,
      arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e7, max: 1e7 }).map((v) => ok({ [key]: v !== 0 && Math.abs(v) < 1e-100 ? 0 : v })),
    },
    { weight: 1, arbitrary: fc.constantFrom(1e8 + 16, -1e12, 1e99, 5e-324, -1e-101).map((v) => bad({ [key]: v })) },
    { weight: 1, arbitrary: fc.constant(ok({ [key]: null })) },
    { weight: 1, arbitrary: fc.oneof(fc.string(), fc.boolean(), fc.constant([1]), fc.constant({ v: 1 })).map((v) => bad({ [key]: v })) },
  );

const stringFieldArb = (key: string): fc.Arbitrary<Part> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(ok({})) },
    { weight: 6, arbitrary: fc.string({ maxLength: 12 }).map((v) => ok({ [key]: v })) },
    { weight: 1, arbitrary: fc.constant(ok({ [key]: null })) },
    { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.boolean(), fc.constant({})).map((v) => bad({ [key]: v })) },
  );

const tenantArb: fc.Arbitrary<Part> = fc.oneof({ weight: 5, arbitrary: fc.constant(ok({})) }, { weight: 1, arbitrary: fc.constant(ok({ tenant_id: ORG })) });

/** Can the store hold it? No NUL, no unpaired surrogate, in keys or values. */
function storable(v: unknown): boolean {
  if (typeof v === 'string') return !v.includes('\u0000') && (v as string & { isWellFormed(): boolean }).isWellFormed();
  if (Array.isArray(v)) return v.every(storable);
  if (v && typeof v === 'object') return Object.entries(v).every(([k, x]) => storable(k) && storable(x));
  return true;
}

const extrasArb = fc.dictionary(
  fc.string({ maxLength: 8 }).filter((k) => !CANONICAL.includes(k) && !['__proto__', 'constructor', 'prototype'].includes(k)),
  fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string({ unit: 'binary', maxLength: 4 })),
  { maxKeys: 3 },
);

interface Gen {
  record: unknown;
  valid: boolean;
}

const recordArb: fc.Arbitrary<Gen> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .tuple(
        assetArb,
        tsArb,
        ...['power_kw', 'soc_pct', 'voltage', 'current', 'temp_c'].map(measurementArb),
        stringFieldArb('status'),
        stringFieldArb('run_id'),
        stringFieldArb('intent_id'),
        tenantArb,
        extrasArb,
      )
      .map((parts) => {
        const extras = parts.pop() as Record<string, unknown>;
        const ps = parts as Part[];
        const record = Object.assign({}, ...ps.map((p) => p.set), extras);
        return { record, valid: ps.every((p) => p.valid) && storable(extras) };
      }),
  },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.constant([])).map((record) => ({ record, valid: false })) },
);

/** A batch: records, some repeated verbatim later (exact copies); or a single object. */
const batchArb = fc
  .tuple(
    fc.array(recordArb, { minLength: 1, maxLength: 25 }),
    fc.array(fc.nat(), { maxLength: 6 }),
    fc.nat(4).map((n) => n === 0),
  )
  .map(([records, copies, single]) => {
    const list: Gen[] = [...records];
    for (const c of copies) list.splice((c * 7) % (list.length + 1), 0, list[c % list.length]);
    // A lone object is the single-record form; anything else alone is not a batch at all.
    const one = single && typeof list[0].record === 'object' && list[0].record !== null && !Array.isArray(list[0].record);
    return { list: one ? list.slice(0, 1) : list, single: one };
  });

let run = 0;

test('random batches: only 200/207/422; counts add up; exactly the valid records are stored, once; nothing rejected is stored', async () => {
  await fc.assert(
    fc.asyncProperty(batchArb, async ({ list, single }) => {
      const tag = `r${++run}`;
      // A probe key per generated record (copies share it) to find the record when reading back.
      const marked = list.map((g, i) => {
        const original = list.indexOf(g);
        const record =
          g.record && typeof g.record === 'object' && !Array.isArray(g.record) ? { ...(g.record as object), _probe: `${tag}-${original}` } : g.record;
        return { ...g, record, original, i };
      });
      const payload = single ? marked[0].record : marked.map((m) => m.record);
      const res = await api.ingest(payload);
      assert.ok([200, 207, 422].includes(res.statusCode), `status ${res.statusCode}: ${res.body.slice(0, 300)}`);
      const body = json(res);

      // The oracle: valid originals are stored once; later copies of them are duplicates.
      const expectStored = new Set(marked.filter((m) => m.valid && m.original === m.i).map((m) => `${tag}-${m.i}`));
      const expectDuplicates = marked.filter((m) => m.valid && m.original !== m.i).length;
      const expectRejected = marked.filter((m) => !m.valid).length;

      if (res.statusCode === 422) {
        assert.equal(body.detail, 'all_records_rejected');
        assert.equal(body.stored, 0);
        assert.equal(body.rejected, body.count);
      } else {
        assert.equal(res.statusCode, body.rejected + body.duplicates === 0 ? 200 : 207);
      }
      assert.equal(body.count, marked.length);
      assert.equal(body.count, body.stored + body.rejected + body.duplicates, 'count = stored + rejected + duplicates');
      assert.equal(body.stored, body.accepted);
      assert.equal(body.stored, expectStored.size, 'stored');
      assert.equal(body.duplicates, expectDuplicates, 'duplicates');
      assert.equal(body.rejected, expectRejected, 'rejected');
      if (body.results) {
        assert.equal(body.results.length, body.count);
        body.results.forEach((r: { index: number; status: string }, i: number) => {
          assert.equal(r.index, i);
          assert.equal(r.status, !marked[i].valid ? 'rejected' : marked[i].original === i ? 'stored' : 'duplicate');
        });
      }

      // Read back: exactly the expected records are in the store.
      const events = await api.live('?limit=500');
      const mine = events.map((e) => e.raw._probe).filter((p: unknown) => typeof p === 'string' && p.startsWith(`${tag}-`));
      assert.deepEqual(new Set(mine), expectStored, 'exactly the valid originals are stored');
      assert.equal(mine.length, expectStored.size, 'each stored once');
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
});
