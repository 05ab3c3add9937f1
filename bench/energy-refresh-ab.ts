// The energy refresh at issue 40's scale (decision 0512): `--sites` sites of one battery each, a
// sample every 10 s over the current half hour so far, and then, round by round, three new samples
// an asset (30 s of a device reporting every 10 s: what ENERGY_REFRESH_INTERVAL_SECONDS leaves
// pending at 10,000 devices in sites of ten, one registered asset a site, as bench:mqtt runs them).
// Each round is folded in twice over the same pending spans, the two variants alternating which
// goes first:
//   A: the refresh as it runs (a batch's sites recomputed together, a dozen statements a batch);
//   B: the same refresh forced onto its fallback (each site recomputed alone under its own
//      savepoint, a dozen statements a site: how every refresh ran before decision 0512), by
//      failing the batch's first statement after its savepoint (one failed statement a batch).
// Printed: wall time, PostgreSQL's CPU (the scratch database's backends, /proc/<pid>/schedstat)
// and statements, a site; and a check that both variants leave the same half hours.
//
// `--unregistered=9 --rows=12` gives the refresh bench:mqtt's open loop: nine more devices a site on
// no site's ledger, and a pending row per message (about 12 an asset in 30 s).
//
//   node bench/energy-refresh-ab.ts [rounds=4] [--sites=1000] [--minutes=20] [--unregistered=0] [--rows=1] [--database-url=postgres://...]
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import type { Db, Queryable } from '../src/infra/db/index.ts';
import { createEnergyReads, telemetryReads } from '../src/modules/telemetry/store.ts';
import { createRegistrySites } from '../src/modules/registry/sites-service.ts';
import { createRegistryStore } from '../src/modules/registry/store.ts';
import { createEnergyModel } from '../src/modules/energy/model.ts';
import { systemClock } from '../src/platform/clock.ts';
import { pgCpu, type CpuSnapshot } from './lib/pg-cpu.ts';
import { fmt, machine } from './lib/stats.ts';
import { benchArgs, monthsAround, scratchSchema } from './lib/scratch.ts';

const { arg, positional, url: URL } = benchArgs();
const ROUNDS = Number(positional[0] ?? 4);
const SITES = Number(arg('sites', '1000'));
const MINUTES = Number(arg('minutes', '20'));
/** Assets of each site not in the registry (bench:mqtt has nine a site): their pending rows are taken and dropped. */
const UNREGISTERED = Number(arg('unregistered', '0'));
/** Pending rows an asset has in a round: one a batch or message that wrote its readings (bench:mqtt's open loop leaves about 12 in 30 s). */
const ROWS = Number(arg('rows', '1'));
const ORG = 'bench';

const scratch = await scratchSchema({ url: URL, prefix: 'erf', ...monthsAround(1, 1), statementTimeoutMs: 600_000 });
const { admin, db } = scratch;
console.log(
  `energy refresh A/B: ${fmt(SITES)} sites of one battery (and ${UNREGISTERED} devices on no site), a sample every 10 s, ${ROWS} pending row(s) an asset a round; ${await machine()}`,
);

const ids = Array.from({ length: SITES }, (_, i) => `s${i}.d0`);
await db.query(
  `insert into assets (org_id, asset_id, site_id, type, name, details, asset_class, parent_asset_id, origin, created_at, updated_at)
   select $1, a, split_part(a, '.', 1), 'battery', a, '{}', 'battery', null, 'registry', now(), now() from unnest($2::text[]) a`,
  [ORG, ids],
);
// The half hour so far: MINUTES of samples ending where the rounds begin, inside one half hour.
const slot = Math.floor(Date.now() / 1_800_000) * 1_800_000 - 1_800_000;
let t = slot + MINUTES * 60_000;
async function samples(from: number, count: number, pending: boolean): Promise<void> {
  await db.query(
    `insert into telemetry (org_id, asset_id, ts, received_at, power_kw, soc_pct, status, anomalies, raw)
     select $1, a, to_timestamp($3 / 1000.0) + s * interval '10 seconds', now(), 1.5 + (s % 7) / 10.0, 50.5, 'ok', '{}',
            jsonb_build_object('device_id', a, 'power_kw', 1.5 + (s % 7) / 10.0, 'soc_pct', 50.5)
     from unnest($2::text[]) a, generate_series(0, $4::int - 1) s`,
    [ORG, ids, from, count],
  );
  if (pending) await pendingRows(from, count);
}
const others = Array.from({ length: SITES * UNREGISTERED }, (_, i) => `s${i % SITES}.u${Math.floor(i / SITES)}`);
/** ROWS pending rows for each asset, registered or not, together spanning `count` samples from `from`. */
async function pendingRows(from: number, count: number): Promise<void> {
  await db.query(
    `insert into energy_pending (org_id, asset_id, from_ts, to_ts)
     select $1, a, to_timestamp($3 / 1000.0), to_timestamp($3 / 1000.0) + ($4::int - 1) * interval '10 seconds'
     from unnest($2::text[]) a, generate_series(1, $5::int) r order by r, a`,
    [ORG, [...ids, ...others], from, count, ROWS],
  );
}
await samples(slot, MINUTES * 6, false);
await db.query('analyze');

const model = createEnergyModel({
  telemetry: { onBatchStatement: () => {}, reads: (q) => createEnergyReads(q) },
  sites: createRegistrySites({ clock: systemClock, store: createRegistryStore(telemetryReads) }),
  settings: { powerGapSeconds: 900, counterGapSeconds: 7200, refreshIntervalSeconds: 30, exportBatchRows: 2000, maxQueuedRebuilds: 10 },
  clock: systemClock,
  log: pino({ level: 'silent' }),
});

/** The store, counting statements; for B, the batch's first statement after its savepoint fails. */
function counted(forceFallback: boolean): { db: Db; statements: () => number } {
  let n = 0;
  const wrap = (q: Queryable): Queryable => {
    let armed = false;
    return {
      query: ((sql: string, params?: unknown[]) => {
        n++;
        if (armed) {
          armed = false;
          return Promise.reject(new Error('bench: one site at a time'));
        }
        if (forceFallback && sql === 'savepoint energy_sites') armed = true;
        return q.query(sql, params);
      }) as Queryable['query'],
    } as Queryable;
  };
  const wrapped: Db = Object.create(db);
  wrapped.tx = (fn) => db.tx((q) => fn(wrap(q)));
  return { db: wrapped, statements: () => n };
}

const cpuNs = (a: CpuSnapshot, b: CpuSnapshot) => [...b].reduce((s, [pid, x]) => s + x - (a.get(pid) ?? 0), 0);
const halfHours = async () =>
  JSON.stringify(
    (await db.query(`select site_id, slot, import_kwh, charge_kwh, coverage, assets_reporting from energy_site_halfhours order by site_id, slot`)).rows,
  );
const totals = { A: { ms: 0, ns: 0, statements: 0 }, B: { ms: 0, ns: 0, statements: 0 } };
for (let r = 0; r < ROUNDS; r++) {
  const answers: Record<string, string> = {};
  for (const v of r % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
    // Both variants fold in the same round: its samples are written once, its spans twice.
    await db.query(`delete from energy_pending`);
    if (v === (r % 2 === 0 ? 'A' : 'B')) await samples(t, 3, true);
    else await pendingRows(t, 3);
    await db.query(`delete from energy_site_halfhours`);
    const c = counted(v === 'B');
    const before = await pgCpu(admin);
    const t0 = performance.now();
    const done = await model.refreshPending(c.db, { orgId: ORG });
    const ms = performance.now() - t0;
    const ns = cpuNs(before, await pgCpu(admin));
    // An asset whose rows two transactions share counts in each.
    if (done < SITES * (1 + UNREGISTERED)) throw new Error(`${v}: ${done} assets refreshed of ${SITES * (1 + UNREGISTERED)}`);
    const left = Number((await db.query<{ n: string }>('select count(*) as n from energy_pending')).rows[0]!.n);
    if (left !== 0) throw new Error(`${v}: ${left} pending rows left`);
    totals[v].ms += ms;
    totals[v].ns += ns;
    totals[v].statements += c.statements();
    answers[v] = await halfHours();
    console.log(
      `round ${r + 1} ${v}: ${fmt(ms)} ms, ${fmt(ms / SITES, 2)} ms a site; PostgreSQL ${fmt(ns / 1e6)} ms of CPU, ${fmt(ns / 1e3 / SITES)} µs a site; ${fmt(c.statements() / SITES, 1)} statements a site`,
    );
  }
  if (answers.A !== answers.B) throw new Error(`round ${r + 1}: the variants leave different half hours`);
  t += 30_000;
}
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const per = (v: 'A' | 'B') => ({
  msPerSite: totals[v].ms / ROUNDS / SITES,
  pgUsPerSite: totals[v].ns / 1e3 / ROUNDS / SITES,
  statementsPerSite: totals[v].statements / ROUNDS / SITES,
});
const a = per('A');
const b = per('B');
console.log(
  `A (together): ${fmt(a.msPerSite, 2)} ms and ${fmt(a.pgUsPerSite)} µs of PostgreSQL CPU a site, ${fmt(a.statementsPerSite, 2)} statements; ` +
    `B (one site at a time): ${fmt(b.msPerSite, 2)} ms and ${fmt(b.pgUsPerSite)} µs, ${fmt(b.statementsPerSite, 2)} statements; ` +
    `A/B wall ${fmt(a.msPerSite / b.msPerSite, 2)}, PostgreSQL CPU ${fmt(a.pgUsPerSite / b.pgUsPerSite, 2)}; load ${load}`,
);
console.log(`RESULT ${JSON.stringify({ sites: SITES, rounds: ROUNDS, a, b, load })}`);
await scratch.drop();
