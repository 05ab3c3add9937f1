// PostgreSQL's CPU per record of the batch write (issue 38), two variants side by side: the same
// batches through `insertBatch` (rollup lock, insert, newest-reading upsert, commit), alternating
// batch by batch between two backends, each on its own fresh schema, with each backend's CPU read
// from /proc/<pid>/schedstat around each transaction (the server must run on this machine). Every
// 4th batch the same rows are COPYed into a plain table with only the (org, asset, ts) index on a
// third backend: the reference of bench:ingest. Interleaving cancels the drift of a shared machine,
// which swamps differences of a few µs between whole bench:ingest runs.
//
//   node bench/ingest-ab.ts [batches=300] [decode|in-place] [--database-url=postgres://...]
//   decode:   json_to_recordset (before decision 0370) against jsonb_to_recordset
//   decode-late: the same with every row late (rollup horizon set after them: the late-rollup
//             merge of decision 0258 runs in every batch)
//   latest:   the batch write as it is against the same without the newest-reading upsert (what
//             folding telemetry_latest outside the batch's transaction could save at most)
//   in-place: telemetry_latest with the site_ref index on the raw expression and the default
//             fillfactor (before decision 0371) against the site_ref column and fillfactor 50
import { readFileSync } from 'node:fs';
import { backendNs } from './lib/pg-cpu.ts';
import type { Queryable } from '../src/infra/db/index.ts';
import { createTelemetryStore } from '../src/modules/telemetry/store.ts';
import { normaliseRecord } from '../src/modules/telemetry/normalise.ts';
import { makeRecord } from './lib/records.ts';
import { copyFrom, copyText } from './lib/copy-in.ts';
import { benchArgs, monthsAround, scratchSchema } from './lib/scratch.ts';

const { positional, url: URL } = benchArgs();
const BATCHES = Number(positional[0] ?? 300);
const MODE = positional[1] ?? 'decode';
if (MODE !== 'decode' && MODE !== 'decode-late' && MODE !== 'in-place' && MODE !== 'latest') throw new Error(`unknown mode ${MODE}`);
const BATCH = 500;
const T0 = Date.now() - 3 * 3600_000;
/** A backend's CPU so far (ns); NaN, and so no figure, when the server is not on this machine. */
const ns = (pid: number) => backendNs(pid) ?? Number.NaN;

/** A scratch schema with the service's tables and `extra` statements run on it. */
async function schemaWith(extra: string[]) {
  const scratch = await scratchSchema({ url: URL, prefix: 'ab', ...monthsAround(1, 2) });
  for (const x of extra) await scratch.db.query(x);
  await scratch.db.close();
  return scratch;
}
const json = (t: string) => t.replaceAll('jsonb_to_recordset(', 'json_to_recordset(').replaceAll('::jsonb) as (', '::json) as (');
const jsonb = (t: string) => t.replaceAll('json_to_recordset(', 'jsonb_to_recordset(').replaceAll('::json) as (', '::jsonb) as (');
const late = MODE === 'decode-late' ? [`update telemetry_rollup_state set horizon = now() - interval '1 hour'`] : [];
const noLatest = (t: string) => t.replace(/, up as \(\n {2}insert into telemetry_latest[\s\S]*?\n\)/, ', up as (select $4::jsonb as x)');
const variants =
  MODE === 'latest'
    ? [
        { name: 'with the newest-reading upsert', scratch: await schemaWith([]), rewrite: (t: string) => t },
        { name: 'without it', scratch: await schemaWith([]), rewrite: noLatest },
      ]
    : MODE !== 'in-place'
      ? [
          { name: 'json_to_recordset', scratch: await schemaWith(late), rewrite: json },
          { name: 'jsonb_to_recordset', scratch: await schemaWith(late), rewrite: jsonb },
        ]
      : [
          {
            name: 'site_ref index on raw (not in place)',
            scratch: await schemaWith([
              'alter table telemetry_latest reset (fillfactor)',
              'drop index telemetry_latest_site_ref_idx',
              `create index telemetry_latest_site_ref_idx on telemetry_latest (org_id, (raw->>'site_ref'))`,
            ]),
            rewrite: (t: string) => t,
          },
          { name: 'site_ref column, fillfactor 50 (in place)', scratch: await schemaWith([]), rewrite: (t: string) => t },
        ];
const clients = await Promise.all(variants.map((v) => v.scratch.client()));
const ref = await variants[0]!.scratch.client();
await ref.c.query(`create table ab_plain (org_id text not null, asset_id text not null, ts timestamptz not null, received_at timestamptz not null,
  power_kw double precision, soc_pct double precision, voltage double precision, "current" double precision, temp_c double precision,
  status text not null default 'unknown', run_id text, intent_id text, anomalies text[] not null default '{}', raw jsonb not null)`);
await ref.c.query('create index on ab_plain (org_id, asset_id, ts)');

const cpu = variants.map(() => ({ ns: 0, records: 0, blocks: [] as number[] }));
const refCpu = { ns: 0, records: 0 };
const now = Date.now();
for (let b = 0; b < BATCHES; b++) {
  const raw = Array.from({ length: BATCH }, (_, i) => makeRecord(b * BATCH + i, T0));
  const rows = raw.map((r) => {
    const n = normaliseRecord(JSON.parse(JSON.stringify(r)), now);
    if (!n.ok) throw new Error('rejected');
    return n.row;
  });
  const order = b % 2 === 0 ? [0, 1] : [1, 0];
  for (const v of order) {
    const { c, pid } = clients[v];
    const q: Queryable = { query: ((t: string, p?: unknown[]) => c.query(variants[v].rewrite(t), p)) as Queryable['query'] } as Queryable;
    const t0 = ns(pid);
    await c.query('begin');
    await createTelemetryStore(q).insertBatch('bench', new Date(), rows);
    await c.query('commit');
    const d = ns(pid) - t0;
    cpu[v].ns += d;
    cpu[v].records += BATCH;
  }
  if (b % 4 === 0) {
    const receivedAt = new Date().toISOString();
    const text =
      raw
        .map((r) =>
          ['bench', r.asset_id, r.ts, receivedAt, r.power_kw, r.soc_pct, r.voltage, null, null, r.status, null, null, '{}', JSON.stringify(r)]
            .map((x) => copyText(x as string | number | null))
            .join('\t'),
        )
        .join('\n') + '\n';
    const t0 = ns(ref.pid);
    await copyFrom(
      ref.c,
      `copy ab_plain (org_id, asset_id, ts, received_at, power_kw, soc_pct, voltage, "current", temp_c, status, run_id, intent_id, anomalies, raw) from stdin`,
      [text],
    );
    refCpu.ns += ns(ref.pid) - t0;
    refCpu.records += BATCH;
  }
  if ((b + 1) % 50 === 0) for (const x of cpu) x.blocks.push(x.ns / 1000 / x.records);
}
const refUs = refCpu.ns / 1000 / refCpu.records;
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`# ${new Date().toISOString()} ${BATCHES} batches of ${BATCH} per variant, interleaved; load ${load}`);
console.log(`reference COPY into a plain table: ${refUs.toFixed(2)} µs/record`);
for (let v = 0; v < variants.length; v++) {
  const us = cpu[v].ns / 1000 / cpu[v].records;
  console.log(
    `${variants[v].name}: ${us.toFixed(2)} µs/record PostgreSQL CPU (${(us / refUs).toFixed(2)}x the reference); running means ${cpu[v].blocks.map((x) => x.toFixed(1)).join(', ')}`,
  );
}
console.log(
  `RESULT ${JSON.stringify({ mode: MODE, refUs, variants: variants.map((v, i) => ({ name: v.name, us: cpu[i].ns / 1000 / cpu[i].records })), load })}`,
);
for (const { c } of [...clients, ref]) {
  await c.query('select pg_stat_force_next_flush()');
  await c.end();
}
const { admin } = variants[0]!.scratch;
await new Promise((r) => setTimeout(r, 1500));
for (const v of variants) {
  const h = await admin.query<{ upd: string; hot: string }>(
    `select n_tup_upd as upd, n_tup_hot_upd as hot from pg_stat_user_tables where schemaname = $1 and relname = 'telemetry_latest'`,
    [v.scratch.schema],
  );
  const x = h.rows[0];
  if (x) console.log(`${v.name}: telemetry_latest updates ${x.upd}, of them in place (HOT) ${x.hot}`);
}
for (const v of variants) await v.scratch.drop();
