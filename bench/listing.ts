// Asset listing benchmark (not a test): the list paths that combine the registry's assets with the
// telemetry module's newest records (decision 0036: two queries, never one a row). Seeds one
// organisation with N registered assets (each with a newest record) and N/10 devices reporting
// without a record, then times registry assets, registry sites, device health and a listing
// through the service's HTTP handling (inject), on the embedded store or the real servers.
//
//   node bench/listing.ts                      # PGlite, 2,000 assets
//   TEST_DATABASE_URL=postgres://... node bench/listing.ts --assets=5000 --reads=30
import { startTestService } from '../test/helpers/service.ts';
import { fmt, machine, summary } from './lib/stats.ts';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const N = Number(args.assets ?? 2000);
const READS = Number(args.reads ?? 20);
const ORG = 'bench-listing';

const svc = await startTestService();
try {
  await svc.createOrg(ORG);
  const db = svc.deps.db;
  const now = svc.clock.now();
  const ids = Array.from({ length: N }, (_, i) => `asset-${String(i).padStart(5, '0')}`);
  const classes = ['battery', 'inverter', 'charger', 'heat_pump', 'meter'];
  await db.query(
    `insert into assets (org_id, asset_id, site_id, type, name, details, asset_class, parent_asset_id, origin, created_at, updated_at)
     select $1, id, 'site-' || (ord % 50), c, id, '{}'::jsonb, c, null, 'registry', $3, $3
     from unnest($2::text[]) with ordinality as u(id, ord), lateral (select ($4::text[])[1 + (ord % 5)] as c) x`,
    [ORG, ids, now, classes],
  );
  const reporting = [...ids, ...Array.from({ length: N / 10 }, (_, i) => `loose-${i}`)];
  await db.query(
    `insert into telemetry_latest (org_id, asset_id, ts, received_at, power_kw, soc_pct, voltage, "current", temp_c, status, raw)
     select $1, id, $3, $3, 1.5, 50, 230, 2, 20, 'ok', jsonb_build_object('site_ref', 'site-' || (ord % 50))
     from unnest($2::text[]) with ordinality as u(id, ord)`,
    [ORG, reporting, now],
  );
  const token = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: '1d' });
  const paths = ['/api/twin/registry/assets', '/api/twin/registry/sites', '/api/hardware/devices/health', '/api/hardware/battery'];
  console.log(await machine());
  console.log(`${N} assets, ${N / 10} unregistered devices, ${READS} reads each, ${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'}`);
  for (const url of paths) {
    const ms: number[] = [];
    for (let i = 0; i < READS + 3; i++) {
      const t0 = performance.now();
      const res = await svc.request({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      if (i >= 3) ms.push(performance.now() - t0);
    }
    const s = summary(ms);
    console.log(`${url.padEnd(32)} p50 ${fmt(s.p50, 1)} ms  p95 ${fmt(s.p95, 1)} ms`);
  }
} finally {
  await svc.stop();
}
