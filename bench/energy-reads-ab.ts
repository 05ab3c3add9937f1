// PostgreSQL's CPU for the energy refresh's reads of a site's current half hour (issue 40: the
// refresh's share of the 10,000-device tail), two forms of a read side by side on their own
// backends, alternating call by call, each backend's CPU read from /proc/<pid>/schedstat (the server
// must run on this machine). One fresh schema: `--assets` assets of one site, each with a sample a
// second over the current half hour so far (power and state of charge, no energy counter: the
// benchmark's devices and most gateways), as bench:mqtt leaves them.
//
//   node bench/energy-reads-ab.ts [calls=40] [--assets=10] [--minutes=25] [--database-url=postgres://...]
//
// Variant A is the statement in the store; variant B is `B_REWRITE` below applied to it. Both must
// answer the same rows (compared as JSON text, so to the last bit of each double): the run stops if
// they differ.
import { readFileSync } from 'node:fs';
import { backendNs } from './lib/pg-cpu.ts';
import { benchArgs, monthsAround, scratchSchema } from './lib/scratch.ts';
import type { Queryable } from '../src/infra/db/index.ts';
import { createEnergyReads } from '../src/modules/telemetry/store.ts';
import { ALL_COUNTER_KEYS, ROLE_FLOWS } from '../src/modules/energy/flows.ts';

const { arg, positional, url: URL } = benchArgs();
const CALLS = Number(positional[0] ?? 40);
const ASSETS = Number(arg('assets', '10'));
const MINUTES = Number(arg('minutes', '25'));
/** A backend's CPU so far (ns); NaN, and so no figure, when the server is not on this machine. */
const ns = (pid: number) => backendNs(pid) ?? Number.NaN;

/**
 * Variant B: the form under trial. As committed, the form before decision 0503 (seconds by
 * extract(epoch …)::float8, and the power read's pieces inlined into its sums), so that a run
 * shows what that change saved; edit it to try another form.
 */
const B_REWRITE = (sql: string) => sql.replace(/date_part\('epoch', ([^()]*)\)/g, 'extract(epoch from $1)::float8').replace(/\n {2}offset 0 --[^\n]*/, '');

const scratch = await scratchSchema({ url: URL, prefix: 'er', ...monthsAround(1, 1) });
const { db } = scratch;
const slot = new Date(Math.floor(Date.now() / 1_800_000) * 1_800_000 - 1_800_000); // the last whole half hour
const ids = Array.from({ length: ASSETS }, (_, i) => `bat-${i}`);
await db.query(
  `insert into telemetry (org_id, asset_id, ts, received_at, power_kw, soc_pct, status, anomalies, raw)
   select 'bench', a, $1::timestamptz + s * interval '1 second', $1::timestamptz + s * interval '1 second', 1.5, 50.5, 'ok', '{}',
          jsonb_build_object('device_id', a, 'ts', to_char($1::timestamptz + s * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'power_kw', 1.5, 'soc_pct', 50.5)
   from unnest($2::text[]) a, generate_series(0, $3::int - 1) s`,
  [slot, ids, MINUTES * 60],
);
await db.query('analyze telemetry');

const variants = [
  { name: 'A (the store)', rewrite: (s: string) => s, ...(await scratch.client()) },
  { name: 'B (B_REWRITE)', rewrite: B_REWRITE, ...(await scratch.client()) },
];
const from = slot;
const to = new Date(slot.getTime() + 1_800_000);
const batteryKeys = [...new Set(ROLE_FLOWS.battery.flatMap((f) => f.counters))];
const reads = [
  { name: 'power half hours', run: (r: ReturnType<typeof createEnergyReads>) => r.powerHalfHours('bench', ids, from, to, 900) },
  { name: 'counter half hours', run: (r: ReturnType<typeof createEnergyReads>) => r.counterHalfHours('bench', ids, from, to, 3600, batteryKeys) },
  {
    name: 'span neighbours',
    run: (r: ReturnType<typeof createEnergyReads>) =>
      r.spanNeighbours(
        'bench',
        ids.map((a) => ({ asset_id: a, from: new Date(from.getTime() + (MINUTES - 1) * 60_000), to: new Date(from.getTime() + MINUTES * 60_000) })),
        { powerSeconds: 900, counterSeconds: 3600 },
        ALL_COUNTER_KEYS,
      ),
  },
];
const cpu = reads.map(() => variants.map(() => 0));
for (let i = 0; i < CALLS; i++) {
  for (let k = 0; k < reads.length; k++) {
    const answers: string[] = [];
    for (const v of i % 2 === 0 ? [0, 1] : [1, 0]) {
      const { c, pid, rewrite } = variants[v];
      const q = { query: ((t: string, p?: unknown[]) => c.query(rewrite(t), p)) as Queryable['query'] } as Queryable;
      const t0 = ns(pid);
      answers[v] = JSON.stringify(await reads[k].run(createEnergyReads(q)));
      cpu[k][v] += ns(pid) - t0;
    }
    if (answers[0] !== answers[1])
      throw new Error(`${reads[k].name}: the variants answer differently:\nA ${answers[0].slice(0, 400)}\nB ${answers[1].slice(0, 400)}`);
  }
}
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(
  `# ${new Date().toISOString()} ${ASSETS} assets, ${MINUTES * 60} samples each in the half hour, ${CALLS} calls a variant, alternating; load ${load}`,
);
for (let k = 0; k < reads.length; k++)
  console.log(`${reads[k].name}: ${variants.map((v, i) => `${v.name} ${(cpu[k][i] / 1e6 / CALLS).toFixed(2)} ms`).join(', ')} of PostgreSQL CPU a call`);
console.log(
  `RESULT ${JSON.stringify({ assets: ASSETS, samples: MINUTES * 60, calls: CALLS, ms: reads.map((r, k) => ({ read: r.name, a: cpu[k][0] / 1e6 / CALLS, b: cpu[k][1] / 1e6 / CALLS })), load })}`,
);
for (const v of variants) await v.c.end();
await scratch.drop();
