// History read benchmark (reliability plan T-1, second half; not a test). Loads 1,000 assets of
// 5-minute telemetry into a fresh PostgreSQL schema with COPY, in time order (every asset's
// reading of a 5-minute step before the next step, as real-time ingestion writes them), then
// seals the ended days into daily rollups (what the service's maintenance does), starts the
// service in a child process pinned to core 0 and times history reads of one asset over HTTP
// from this process (pinned to core 1): hourly, daily and historical (and live, weekly).
//
//   npm run bench:history                         # 100 assets with a year, 900 with a week
//   npm run bench:history -- --year-assets=1000   # every asset a full year (105 M rows, ~30 GB)
//   options: --reads=30 --keep --database-url=...
//
// Why not every asset a full year by default: 105 million rows take this shared 2-core box most
// of an hour to load. The read does the same work either way: the asset's 105,120 samples of the
// year, one heap page each (with 100 assets interleaved per 5-minute step a page holds at most
// one sample of the asset, as with 1,000); only the table's total size differs.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { SignJWT } from 'jose';
import { scratchSchema } from './lib/scratch.ts';
import { openBackgroundDb } from '../src/infra/open.ts';
import { loadConfig } from '../src/config.ts';
import { createPartitionStore } from '../src/modules/telemetry/store.ts';
import { SEAL_GRACE_MS } from '../src/modules/telemetry/maintenance.ts';
import { copyFrom, copyText } from './lib/copy-in.ts';
import { fmt, machine, pinSelf, summary } from './lib/stats.ts';
import { startChild } from './lib/child.ts';

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'];
  }),
);
const DATABASE_URL = args['database-url'] ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ASSETS = 1000;
const YEAR_ASSETS = Number(args['year-assets'] ?? 100);
const READS = Number(args.reads ?? 30);
const ORG = 'bench';
const STEP = 5 * 60_000;
const YEAR_STEPS = 365 * 288;
const WEEK_STEPS = 7 * 288;
const JWT_SECRET = randomBytes(32).toString('hex');
const log = (...a: unknown[]) => console.log(...a);

async function load(admin: pg.Client, end: number): Promise<number> {
  const cols = 'org_id, asset_id, ts, received_at, power_kw, soc_pct, voltage, "current", temp_c, status, run_id, intent_id, anomalies, raw';
  let rows = 0;
  function* chunks() {
    let buf = '';
    for (let s = YEAR_STEPS - 1; s >= 0; s--) {
      const t = new Date(end - s * STEP).toISOString();
      const assets = s < WEEK_STEPS ? ASSETS : YEAR_ASSETS;
      for (let a = 0; a < assets; a++) {
        const power = Math.round(Math.sin((s + a) / 37) * 4000) / 1000;
        const soc = (s * 3 + a) % 101;
        const raw = `{"asset_id":"asset-${a}","ts":"${t}","power_kw":${power},"soc_pct":${soc},"energy_kwh":${(s % 100) / 10}}`;
        buf += `${ORG}\tasset-${a}\t${t}\t${t}\t${power}\t${soc}\t\\N\t\\N\t\\N\tidle\t\\N\t\\N\t{}\t${copyText(raw)}\n`;
        rows++;
      }
      if (buf.length > 512 * 1024) {
        yield buf;
        buf = '';
      }
    }
    if (buf) yield buf;
  }
  const n = await copyFrom(admin, `copy telemetry (${cols}) from stdin`, chunks());
  if (n !== rows) throw new Error(`COPY wrote ${n} of ${rows}`);
  return n;
}

function get(agent: http.Agent, url: URL, token: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function main() {
  const pinned = await pinSelf(1);
  log(`# history read benchmark, ${new Date().toISOString()}`);
  log(`machine: ${await machine()}`);
  log(`reader: pid ${process.pid}${pinned ? ' pinned to core 1' : ''}; ${ASSETS} assets, ${YEAR_ASSETS} with a year of 5-minute data, the rest with a week`);

  const end = Math.floor(Date.now() / STEP) * STEP;
  const scratch = await scratchSchema({ url: DATABASE_URL, prefix: 'benchh', from: new Date(end - 366 * 86_400_000), to: new Date(end + 62 * 86_400_000) });
  const { admin, db, schema } = scratch;
  await admin.query(`set search_path = ${schema}`);

  let t = performance.now();
  const rows = await load(admin, end);
  log(`loaded ${fmt(rows)} rows with COPY in ${fmt((performance.now() - t) / 1000, 1)} s`);
  t = performance.now();
  await admin.query('vacuum analyze telemetry');
  log(`vacuum analyze in ${fmt((performance.now() - t) / 1000, 1)} s (autovacuum's steady state: visibility map set, statistics current)`);
  // What the service's maintenance does on its first pass over a store with data: seal every
  // ended day into the daily rollups (here before the service starts, to time it on its own), on
  // the background store with the service's default settings (decision 0018).
  t = performance.now();
  const background = await openBackgroundDb(loadConfig({ DATABASE_URL }), { schema }, db);
  const sealer = createPartitionStore(background);
  const upto = new Date(Date.now() - SEAL_GRACE_MS);
  const steps: { hours: number; ms: number }[] = [];
  const hours = await sealer.sealDays(upto, { onStep: (h, ms) => steps.push({ hours: h, ms }) });
  await background.close();
  await db.close();
  await admin.query('vacuum analyze telemetry_rollup_daily');
  const rollups = await admin.query<{ n: number }>('select count(*)::int as n from telemetry_rollup_daily');
  log(
    `sealed ${fmt(hours / 24, 1)} days in ${fmt(steps.length)} steps into ${fmt(rollups.rows[0].n)} daily rollup rows in ${fmt((performance.now() - t) / 1000, 1)} s`,
  );
  // The last week holds 1,000 assets: its steps are the 4-hour ones.
  const dense = steps.filter((x) => x.hours < 24);
  const all = summary(steps.map((x) => x.ms));
  const d = summary(dense.map((x) => x.ms));
  log(
    `one step (one transaction, with its count; ingestion waits at most the transaction): all p50 ${fmt(all.p50, 1)} ms, max ${fmt(all.max, 1)} ms; ` +
      `${dense.length} steps shorter than a day (1,000 assets) p50 ${fmt(d.p50, 1)} ms, max ${fmt(d.max, 1)} ms`,
  );
  const size = await admin.query(`select pg_size_pretty(sum(pg_total_relation_size(inhrelid))) as s from pg_inherits where inhparent = 'telemetry'::regclass`);
  log(`telemetry size with indexes: ${size.rows[0].s}`);

  const child = await startChild(
    {
      NODE_ENV: 'production',
      HUB_OCPP_PUBLIC_URL: 'wss://hub.bench.invalid',
      JWT_SECRET,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_USER_PER_MIN: '10000000',
      NAMESPACE: `benchh${randomBytes(4).toString('hex')}`,
      DATABASE_URL,
      BENCH_SCHEMA: schema,
      BENCH_ORG: ORG,
    },
    log,
  );
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ tenant_id: ORG, org_id: ORG, roles: ['VIEWER'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('bench-reader')
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(new TextEncoder().encode(JWT_SECRET));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const results: Record<string, unknown> = {};
  const cases: [string, string][] = [
    ['battery', 'soc'], // a canonical column (soc_pct)
    ['heat-pump', 'kwh'], // a key of raw (energy_kwh)
  ];
  for (const [type, metric] of cases) {
    for (const range of ['live', 'hourly', 'daily', 'weekly', 'historical']) {
      const url = new URL(`/api/telemetry/assets/${type}/asset-0/history?range=${range}&metric=${metric}`, child.address);
      const first = performance.now();
      const r = await get(agent, url, token);
      const firstMs = performance.now() - first;
      if (r.status !== 200 || r.body.source !== 'timeseries') throw new Error(`history answered ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      const times: number[] = [];
      for (let i = 0; i < READS; i++) {
        const s = performance.now();
        await get(agent, url, token);
        times.push(performance.now() - s);
      }
      const l = summary(times);
      results[`${type}/${metric}/${range}`] = { samples: r.body.summary.count, buckets: r.body.series.length, firstMs, ...l };
      log(
        `${type}/${metric} ${range.padEnd(10)}: ${fmt(r.body.summary.count).padStart(7)} samples -> ${String(r.body.series.length).padStart(3)} buckets; ` +
          `first read ${fmt(firstMs, 1)} ms; then p50 ${fmt(l.p50, 1)} ms, p95 ${fmt(l.p95, 1)} ms, max ${fmt(l.max, 1)} ms (${READS} reads)`,
      );
    }
  }
  agent.destroy();
  await child.stop();
  await scratch.drop({ keep: args.keep !== undefined });
  log(`machine after: ${await machine()}`);
  log('RESULT ' + JSON.stringify({ yearAssets: YEAR_ASSETS, rows, results }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
