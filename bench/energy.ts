// Energy accounting benchmark (issue 16; prints figures, never pass/fail). On PostgreSQL, in a
// fresh schema: `--sites` sites (a grid meter and a PV inverter each) with `--days` of telemetry at
// `--step` minutes, written through the telemetry write path (the same statement as ingestion,
// without HTTP) in batches of 500, rotating batch by batch WITHOUT and WITH the energy module's batch
// statement, and with it as a statement of its own as before decision 0476 (ingestion rate ratio =
// the cost of keeping the rollup current; with PostgreSQL's CPU per record of each side); then the pending spans are folded in, the first half rebuilt site by site, and
// the reads timed (`--ingest-only` stops after the ingestion figures):
//   - a site's half hours over the whole period (what the interval export reads; the full-scale
//     target is a year, 17,520 rows), read whole and streamed in pages of 2,000 (memory noted)
//   - a site's daily rollup over the period (the yearly report and self-consumption read)
//   - the portfolio league over all sites (one aggregate over the daily rollup)
//   - EMS reporting: a site's report over the whole period (every figure, the way the operation
//     computes it) and its interval CSV over the whole period (a year at full scale: 17,520 rows),
//     produced as the operation streams it, with the peak heap while it runs
//
//   npm run bench:energy -- --sites=20 --days=60              # reduced scale (2 shared cores)
//   npm run bench:energy -- --sites=2 --days=365 --scale-sites=1000   # the issue's read scale (decision 0155)
//   npm run bench:energy -- --sites=1000 --days=365           # the full scale with raw telemetry (beyond this machine)
//   options: --step=5 --reads=30 --database-url=... --keep
import { backendNs } from './lib/pg-cpu.ts';
import { pino } from 'pino';
import { createMemoryBus } from '../src/infra/bus/memory.ts';
import { createTelemetryService } from '../src/modules/telemetry/index.ts';
import { touchedRanges } from '../src/modules/telemetry/service.ts';
import { createEnergyReads, telemetryReads } from '../src/modules/telemetry/store.ts';
import { normaliseRecord, type CanonicalRow } from '../src/modules/telemetry/normalise.ts';
import { createRegistrySites } from '../src/modules/registry/sites-service.ts';
import { createRegistryStore } from '../src/modules/registry/store.ts';
import { createEnergyModel } from '../src/modules/energy/model.ts';
import { createEnergyStore } from '../src/modules/energy/store.ts';
import { systemClock } from '../src/platform/clock.ts';
import { createSettings } from '../src/modules/energy/settings.ts';
import { createReporting } from '../src/modules/energy/reporting/service.ts';
import { csvRecord } from '../src/kit/csv.ts';
import { fmt, machine, mib, summary } from './lib/stats.ts';
import { scratchSchema } from './lib/scratch.ts';

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'];
  }),
);
const SITES = Number(args.sites ?? 20);
const DAYS = Number(args.days ?? 60);
const STEP_MIN = Number(args.step ?? 5);
const READS = Number(args.reads ?? 30);
/** Sites the rollups are widened to before the reads (copies of the measured sites' rollups made in the database). */
const SCALE_SITES = Number(args['scale-sites'] ?? 0);
const DATABASE_URL = args['database-url'] ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ORG = 'bench-energy';
const START = Date.parse('2025-01-01T00:00:00Z');
const DAY = 86_400_000;

const log = pino({ level: 'silent' });
const scratch = await scratchSchema({
  url: DATABASE_URL,
  prefix: 'benche',
  from: new Date(START),
  to: new Date(START + (DAYS + 1) * DAY),
  statementTimeoutMs: 600_000,
});
const { db, schema } = scratch;
console.log(
  `energy bench: ${SITES} sites x ${DAYS} days at ${STEP_MIN}-minute steps (${fmt((SITES * 2 * DAYS * 1440) / STEP_MIN)} records); ${await machine()}`,
);

const now = new Date();
for (let s = 0; s < SITES; s++) {
  await db.query(
    `insert into assets (org_id, asset_id, site_id, type, name, details, asset_class, parent_asset_id, origin, created_at, updated_at)
     values ($1, $2, $3, 'site_meter', 'meter', '{}', 'site_meter', null, 'registry', $4, $4),
            ($1, $5, $3, 'inverter', 'pv', '{}', 'inverter', $2, 'registry', $4, $4)`,
    [ORG, `m-${s}`, `site-${s}`, now, `pv-${s}`],
  );
}

const service = createTelemetryService({ db, bus: createMemoryBus(), clock: systemClock, log, onStored: () => {} });
const energyStore = createEnergyStore();
// The same write path with the energy module's batch statement registered, as the service runs it.
const serviceWith = createTelemetryService({ db, bus: createMemoryBus(), clock: systemClock, log, onStored: () => {} });
serviceWith.onBatchStatement(energyStore.pendingFromBatch);

/** One day of records for every asset, in time order, as canonical rows. */
function dayRows(d: number): CanonicalRow[] {
  const rows: CanonicalRow[] = [];
  const nowMs = Date.now();
  for (let t = START + d * DAY; t < START + (d + 1) * DAY; t += STEP_MIN * 60_000) {
    const hour = (((t / 3_600_000) % 24) + 24) % 24;
    const sun = Math.max(0, Math.sin(((hour - 6) / 12) * Math.PI));
    for (let s = 0; s < SITES; s++) {
      const pv = -4 * sun * (0.8 + 0.2 * ((s % 5) / 5));
      const load = 0.6 + 0.4 * Math.sin((hour / 24) * 2 * Math.PI + s);
      for (const rec of [
        { asset_id: `m-${s}`, ts: new Date(t).toISOString(), power_kw: Math.round((load + pv) * 1000) / 1000 },
        { asset_id: `pv-${s}`, ts: new Date(t).toISOString(), power_kw: Math.round(pv * 1000) / 1000 },
      ]) {
        const n = normaliseRecord(rec, nowMs);
        if (n.ok) rows.push(n.row);
      }
    }
  }
  return rows;
}

interface Phase {
  records: number;
  ms: number;
  /** PostgreSQL CPU of the batches' own backend (ns), null when not readable. */
  pgNs: number | null;
}

/**
 * The ingestion write path over `days`, batches of 500, alternating batch by batch without and with
 * the energy listener (issue 38): both see the same table, the same partitions and the same load
 * on the shared cores, so the ratio is the listener's cost and not the table's growth or another
 * process's burst. Each transaction's wall time and its backend's CPU are added to its side.
 */
async function write(days: number[]): Promise<{ without: Phase; with: Phase; separate: Phase }> {
  const out = {
    without: { records: 0, ms: 0, pgNs: 0 } as Phase,
    with: { records: 0, ms: 0, pgNs: 0 } as Phase,
    separate: { records: 0, ms: 0, pgNs: 0 } as Phase,
  };
  let n = 0;
  for (const d of days) {
    const rows = dayRows(d);
    for (let i = 0; i < rows.length; i += 500) {
      const batch = rows.slice(i, i + 500);
      const mode = (['without', 'with', 'separate'] as const)[n++ % 3];
      const side = out[mode];
      let pid = 0;
      let cpu0: number | undefined;
      const started = performance.now();
      await db.tx(async (q) => {
        pid = (await q.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
        cpu0 = backendNs(pid);
        await (mode === 'with' ? serviceWith : service).writeInTx(q, ORG, new Date(), batch);
        // Before decision 0476: the same rows inserted by a statement of their own after the batch's.
        if (mode === 'separate') await energyStore.markPending(q, ORG, touchedRanges(batch));
      });
      side.ms += performance.now() - started;
      const cpu1 = backendNs(pid);
      if (cpu0 === undefined || cpu1 === undefined || side.pgNs === null) side.pgNs = null;
      else side.pgNs += cpu1 - cpu0;
      side.records += batch.length;
    }
  }
  return out;
}

const half = Math.floor(DAYS / 2);
const { without, with: withL, separate } = await write(Array.from({ length: DAYS }, (_, i) => i));
const rateWithout = without.records / (without.ms / 1000);
const rateWith = withL.records / (withL.ms / 1000);
const us = (p: Phase) => (p.pgNs === null ? 'n/a' : `${fmt(p.pgNs / 1000 / p.records, 2)} µs`);
console.log(
  `ingestion write path, batches of 500 rotating: without the energy work ${fmt(rateWithout)} records/s; with its batch statement ${fmt(rateWith)} records/s; ratio ${fmt((rateWith / rateWithout) * 100, 1)}%`,
);
const wall = (p: Phase) => `${fmt((p.ms * 1000) / p.records, 2)} µs`;
console.log(
  `  PostgreSQL CPU per record (the batches' backend): without ${us(without)}, with ${us(withL)}; wall per record without ${wall(without)}, with ${wall(withL)}`,
);
console.log(
  `  the listener as a statement of its own (before decision 0476, interleaved as a third side): ${fmt(separate.records / (separate.ms / 1000))} records/s, ratio ${fmt((separate.records / (separate.ms / 1000) / rateWithout) * 100, 1)}%; PostgreSQL CPU ${us(separate)}, wall ${wall(separate)} per record`,
);

if (args['ingest-only'] !== undefined) {
  await scratch.drop({ keep: args.keep !== undefined });
  process.exit(0);
}
const sites = createRegistrySites({ clock: systemClock, store: createRegistryStore(telemetryReads) });
const model = createEnergyModel({
  telemetry: { onBatchStatement: () => {}, reads: (q) => createEnergyReads(q) },
  sites,
  settings: { powerGapSeconds: 900, counterGapSeconds: 7200, refreshIntervalSeconds: 30, exportBatchRows: 2000, maxQueuedRebuilds: 10 },
  clock: systemClock,
  log,
});
let t0 = performance.now();
const refreshed = await model.refreshPending(db);
const refreshMs = performance.now() - t0;
console.log(`refresh of the pending spans (${refreshed} asset spans, every other batch of the ${DAYS} days): ${fmt(refreshMs / 1000, 1)} s`);
t0 = performance.now();
for (let s = 0; s < SITES; s++) {
  for (let d = 0; d < half; d += 7) {
    await db.tx((q) => model.recomputeSite(q, ORG, `site-${s}`, START + d * DAY, START + Math.min(half, d + 7) * DAY));
  }
}
const rebuildMs = performance.now() - t0;
console.log(`rebuild of the first ${half} days of every site: ${fmt(rebuildMs / 1000, 1)} s (${fmt(rebuildMs / (SITES * half), 1)} ms a site-day)`);
// The issue's read scale without a year of raw telemetry for every site (about 210 million rows,
// more than this machine can ingest in a session; decision 0155): the measured sites' daily and
// half-hour rollups are copied, inside the database, to `--scale-sites` sites in all, each copy's
// figures scaled by its own factor so the league has something to rank.
if (SCALE_SITES > SITES) {
  const t1 = performance.now();
  const extra = SCALE_SITES - SITES;
  const num = ['import_kwh', 'export_kwh', 'generation_kwh', 'consumption_kwh', 'charge_kwh', 'discharge_kwh', 'residual_kwh'];
  const scaled = (cols: string[]) =>
    cols
      .map((c) =>
        num.includes(c) || c === 'self_consumed_kwh' || c === 'max_import_kwh'
          ? `round(${c} * (0.5 + (g % 97) / 97.0), 3)`
          : c === 'site_id'
            ? `'scale-' || g`
            : c,
      )
      .join(', ');
  for (const table of ['energy_site_days', 'energy_site_months', 'energy_site_halfhours']) {
    const cols = (
      await db.query<{ c: string }>(
        `select column_name as c from information_schema.columns where table_schema = $1 and table_name = $2 order by ordinal_position`,
        [schema, table],
      )
    ).rows.map((r) => r.c);
    for (let g0 = 0; g0 < extra; g0 += 50) {
      await db.query(
        `insert into ${table} (${cols.join(', ')}) select ${scaled(cols)} from ${table} t, generate_series($2::int, $3::int) g where t.org_id = $1 and t.site_id = 'site-' || (g % $4)`,
        [ORG, g0, Math.min(g0 + 49, extra - 1), SITES],
      );
    }
  }
  await db.query('analyze');
  const n = (await db.query<{ n: number }>('select count(*)::int as n from energy_site_halfhours')).rows[0]!.n;
  console.log(`rollups widened to ${SCALE_SITES} sites in the database (${fmt(n)} half-hour rows): ${fmt((performance.now() - t1) / 1000, 1)} s`);
}
const LEAGUE_SITES = Math.max(SITES, SCALE_SITES);

const store = model.store;
async function timed(fn: () => Promise<unknown>) {
  const out: number[] = [];
  for (let i = 0; i < READS; i++) {
    const s = performance.now();
    await fn();
    out.push(performance.now() - s);
  }
  return summary(out);
}
const from = new Date(START);
const to = new Date(START + DAYS * DAY);
const fromDay = '2025-01-01';
const toDay = new Date(START + DAYS * DAY).toISOString().slice(0, 10);
const pick = () => `site-${Math.floor(Math.random() * SITES)}`;
const hh = await timed(() => store.siteHalfHours(db, ORG, pick(), from, to));
let peakHeap = 0;
const streamed = await timed(async () => {
  const site = pick();
  let after: { site: string; slot: Date } | null = null;
  for (;;) {
    const page = await store.siteHalfHoursAfter(db, ORG, [site], after, to, from, 2000);
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    if (page.length < 2000) break;
    after = { site, slot: page[page.length - 1].slot };
  }
});
const daysRead = await timed(() => store.siteDays(db, ORG, [pick()], fromDay, toDay));
const league = await timed(() => store.siteTotals(db, ORG, fromDay, toDay));
const rows = (await store.siteHalfHours(db, ORG, 'site-0', from, to)).length;
const line = (name: string, s: ReturnType<typeof summary>) =>
  console.log(`  ${name}: p50 ${fmt(s.p50, 1)} ms, p95 ${fmt(s.p95, 1)} ms, max ${fmt(s.max, 1)} ms`);
console.log(`reads (${READS} each, store level, no HTTP):`);
line(`a site's half hours, whole period (${rows} rows)`, hh);
line(`the same streamed in pages of 2,000 (peak heap ${mib(peakHeap)})`, streamed);
line(`a site's daily rollup (${DAYS} days)`, daysRead);
line(`portfolio league over ${LEAGUE_SITES} sites`, league);
// ---- EMS reporting: the yearly report and the yearly interval CSV of one site ----------------------
const audit = { record: async () => {} } as never;
const siteSettings = createSettings({ db, clock: systemClock, model, audit });
const reporting = createReporting({
  db,
  clock: systemClock,
  model,
  settings: siteSettings,
  audit,
  telemetry: { onBatchStatement: () => {}, reads: (q: Parameters<typeof createEnergyReads>[0]) => createEnergyReads(q) } as never,
  config: { powerGapSeconds: 900, counterGapSeconds: 7200, refreshIntervalSeconds: 30, exportBatchRows: 2000, maxQueuedRebuilds: 10 },
});
const settingsNow = new Date();
for (let s = 0; s < SITES; s++) {
  await store.putSettings(
    db,
    ORG,
    `site-${s}`,
    {
      agreed_capacity_kw: 10,
      pv_kwp: 4,
      pv_orientation: null,
      expected_yield_kwh_per_kwp: 950,
      operating_hours: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '08:00', end: '18:00' }],
      tariff: { import_p_per_kwh: '24.50', export_p_per_kwh: '15' },
      battery_capacity_kwh: null,
      ppa_contracts: [],
    },
    null,
    settingsNow,
  );
}
const ctx = { orgId: ORG, actor: { kind: 'user', userId: 'bench' } } as never;
const lastDay = new Date(START + (Math.min(DAYS, 366) - 1) * DAY).toISOString().slice(0, 10);
const report = await timed(() => reporting.report(ctx, { site_id: pick(), from: fromDay, to: lastDay }));
let csvBytes = 0;
let csvRows = 0;
let csvHeap = 0;
const baseHeap = process.memoryUsage().heapUsed;
const csv = await timed(async () => {
  const site = pick();
  const { w, sites: list } = await reporting.exportScope(ctx, { site_id: site, from: fromDay, to: lastDay });
  csvBytes = csvRecord([...reporting.COLUMNS]).length;
  csvRows = 0;
  for await (const chunk of reporting.intervalText(ORG, list, w, 'csv')) {
    csvBytes += chunk.length;
    for (let i = chunk.indexOf('\n'); i >= 0; i = chunk.indexOf('\n', i + 1)) csvRows++;
    csvHeap = Math.max(csvHeap, process.memoryUsage().heapUsed);
  }
  csvHeap = Math.max(csvHeap, process.memoryUsage().heapUsed);
});
// The interval JSON export over the same window (the objects made in the database too).
let jsonBytes = 0;
const jsonExport = await timed(async () => {
  const { w, sites: list } = await reporting.exportScope(ctx, { site_id: pick(), from: fromDay, to: lastDay });
  jsonBytes = 0;
  for await (const chunk of reporting.intervalText(ORG, list, w, 'json')) jsonBytes += chunk.length;
});
console.log(`EMS reporting over ${Math.min(DAYS, 366)} days (${READS} each, service level, no HTTP):`);
line(`a site's report (16 figures)`, report);
line(
  `a site's interval CSV (${fmt(csvRows)} rows, ${fmt(csvBytes / 1024 / 1024, 2)} MiB of CSV; heap before ${mib(baseHeap)}, peak while streaming ${mib(csvHeap)})`,
  csv,
);
line(`a site's interval JSON (${fmt(jsonBytes / 1024 / 1024, 2)} MiB)`, jsonExport);

const size = await db.query<{ t: string; s: string }>(
  `select relname as t, pg_size_pretty(pg_total_relation_size(c.oid)) as s from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = $1 and relname in ('energy_asset_flows', 'energy_site_halfhours', 'energy_site_days') order by 1`,
  [schema],
);
console.log(`rollup sizes: ${size.rows.map((r) => `${r.t} ${r.s}`).join(', ')}`);
await scratch.drop({ keep: args.keep !== undefined });
