// Values that need care on the way to the store (decision 0254: the batch travels to PostgreSQL as
// one JSON text decoded by jsonb_to_recordset (0370), and the live-stream message wraps the same text):
// quotes, backslashes, commas and braces, words an array literal treats specially, non-ASCII text,
// nulls, and numbers at the edges of double precision are stored and read back exactly through
// HTTP, and published to the live stream as sent. The measurement columns take values up to their
// bounds (decision 0280: 0 or a magnitude from 1e-100 to 1e7 for soc_pct, voltage, current, temp_c);
// the edges beyond them (5e-324, 1e21, 1e100, 2^53 + 1) travel in raw keys, kept as sent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { client } from './support.ts';
import { Inbox } from '../helpers/signal.ts';

let svc: TestService;
const ORG = 'acme';

before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-10-15T12:00:00Z') });
  await svc.createOrg(ORG);
});
after(() => svc.stop());

const NASTY = ['a"b', 'back\\slash', 'trailing\\', '{brace},comma', 'NULL', 'null', ' spaced ', 'é 😀 中文 \u2028', '\\"', '', "it's"];

test('quotes, backslashes, NULL words, non-ASCII text and extreme numbers are stored and read back exactly', async () => {
  const records = [
    {
      k: 0,
      asset_id: 'a"b',
      ts: '2026-10-15T11:00:00Z',
      status: 'back\\slash',
      run_id: '{brace},comma',
      intent_id: 'NULL',
      power_kw: 1e-100,
      soc_pct: 1e7,
      voltage: -1e-7,
      current: 0.30000000000000004,
      temp_c: -1e7,
      big: 1e21,
      huge: 1e100,
      tiny: 5e-324,
    },
    {
      k: 1,
      asset_id: 'NULL',
      ts: '2026-10-15T11:00:00.123456789+05:30',
      status: 'null',
      run_id: null,
      intent_id: '\\"',
      power_kw: -5000.000001,
      soc_pct: -0.5,
      voltage: null,
      current: 1e7,
      temp_c: -273.15,
      wide: 9007199254740993,
    },
    {
      k: 2,
      asset_id: 'é 😀 中文 \u2028',
      ts: '2026-10-15T11:00:00',
      status: '',
      power_kw: null,
      nested: { 'key "q"': ['x\\y', null, true, 1.5e-10, { deep: '}{' }], 'back\\key': 'v' },
    },
    { k: 3, device_id: ' spaced ', ts: '2026-10-15T10:59:59.5-00:30', status: "it's", temp_c: 0, list: NASTY },
  ];
  // -0 as JSON text reaches the service as -0; what it stores is what it stored before: 0.
  const body = JSON.stringify(records).replace('"temp_c":0,', '"temp_c":-0,');
  const stream = new Inbox<any>();
  const unsubscribe = await svc.deps.bus.subscribe(`telemetry.${ORG}`, stream.push);
  try {
    const token = await svc.token({ orgId: ORG, roles: ['OPERATOR'] });
    const res = await svc.request({
      method: 'POST',
      url: '/api/telemetry/ingest',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: body,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(json(res).stored, 4);
    assert.equal(json(res).streamed, 4);

    const sent = JSON.parse(body) as Record<string, any>[];
    const expected = [
      {
        asset_id: 'a"b',
        ts: '2026-10-15T11:00:00Z',
        power_kw: 1e-100,
        soc_pct: 1e7,
        voltage: -1e-7,
        current: 0.30000000000000004,
        temp_c: -1e7,
        status: 'back\\slash',
        run_id: '{brace},comma',
        intent_id: 'NULL',
        anomalies: ['soc_out_of_range', 'voltage_out_of_range'],
      },
      {
        asset_id: 'NULL',
        ts: '2026-10-15T05:30:00.123457Z',
        power_kw: -5000.000001,
        soc_pct: -0.5,
        voltage: null,
        current: 1e7,
        temp_c: -273.15,
        status: 'null',
        run_id: null,
        intent_id: '\\"',
        anomalies: ['soc_out_of_range', 'power_out_of_range'],
      },
      {
        asset_id: 'é 😀 中文 \u2028',
        ts: '2026-10-15T11:00:00Z',
        power_kw: null,
        soc_pct: null,
        voltage: null,
        current: null,
        temp_c: null,
        status: '',
        run_id: null,
        intent_id: null,
        anomalies: ['ts_without_offset'],
      },
      {
        asset_id: ' spaced ',
        ts: '2026-10-15T11:29:59.5Z',
        power_kw: null,
        soc_pct: null,
        voltage: null,
        current: null,
        temp_c: 0,
        status: "it's",
        run_id: null,
        intent_id: null,
        anomalies: [],
      },
    ];
    const events = await client(svc, ORG, 'VIEWER').live('?limit=500');
    assert.equal(events.length, 4);
    for (const e of events) {
      const k = e.raw.k as number;
      const { id: _id, received_at, raw, ...columns } = e;
      assert.equal(received_at, '2026-10-15T12:00:00Z');
      assert.deepEqual(columns, expected[k], `record ${k}`);
      assert.deepEqual(raw, { ...sent[k], ...(k === 3 && { temp_c: 0 }) }, `raw of record ${k}`);
    }

    // The live stream: the rules' values and the record as sent, in batch order, stored: true.
    await stream.until((ms) => ms.flatMap((m) => m.records).length === 4, 'four records on the bus');
    const msg = stream.items[0];
    assert.equal(msg.org_id, ORG);
    assert.equal(msg.received_at, '2026-10-15T12:00:00.000Z');
    assert.equal(msg.stored, true);
    assert.deepEqual(
      msg.records.map((r: any) => r.raw.k),
      [0, 1, 2, 3],
    );
    assert.deepEqual(msg.records[1].ts, '2026-10-15T11:00:00.123456789+05:30');
    assert.deepEqual(msg.records[2].ts, '2026-10-15T11:00:00Z');
    for (const [i, r] of msg.records.entries()) {
      const { raw, ts: _ts, ...values } = r;
      const { ts: _t, ...want } = expected[i];
      assert.deepEqual(values, want, `stream record ${i}`);
      assert.deepEqual(raw, { ...sent[i], ...(i === 3 && { temp_c: 0 }) });
    }
  } finally {
    await unsubscribe();
  }
});
