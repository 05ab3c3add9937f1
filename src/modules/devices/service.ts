// Device listings, source priority, data integrity and commissioning: rules over the registry and
// the stored telemetry. Time comes from the clock; writes are one transaction with their audit.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { AuditLog } from '../audit/index.ts';
import { errors, fieldError } from '../../platform/errors.ts';
import {
  DEFAULT_SOURCE_ORDER,
  MEASUREMENTS,
  REPORTED_SOURCES,
  findingsOf,
  assetNames,
  reportingView,
  iso,
  latestReading,
  type AssetWithLatest,
  type Connectivity,
  type CommissioningRuns,
  type RegistryReads,
  type RunRow,
  type SourcePriorities,
} from '../registry/index.ts';
import type { TelemetryReads } from '../telemetry/index.ts';
import { ignitionOf, LISTING_CLASSES, readingsFor, type Listing } from './readings.ts';

export interface DevicesDeps {
  db: Db;
  clock: Clock;
  audit: AuditLog;
  /** The registry's assets (with their newest records) and unregistered devices. */
  registry: RegistryReads;
  priorities: SourcePriorities;
  runs: CommissioningRuns;
  telemetry: TelemetryReads;
}

const HOUR = 3600_000;
/** Position of a source in an order (-1 when absent: first). */
const rank = (order: readonly string[], source: string) => order.indexOf(source);
/** How far back the telematics listing looks for a position or ignition state. */
export const TELEMATICS_WINDOW_DAYS = 30;

export function deviceRow(a: AssetWithLatest, now: Date) {
  return {
    ...assetNames(a),
    parent_asset_id: a.parent_asset_id,
    ...reportingView(a, now),
    last_seen_at: iso(a.created_at)!,
  };
}

type Check = { check: string; asset_id: string | null; result: 'pass' | 'warn' | 'fail'; message: string };

export function createDevicesService({ db, clock, audit, registry, priorities, runs, telemetry }: DevicesDeps) {
  const assetsOf = (ctx: RequestContext, f: { classes?: string[]; siteId?: string; assetIds?: string[] }) => registry.assets(db, ctx.orgId, f);

  const api = {
    async listing(ctx: RequestContext, listing: Listing, siteId?: string) {
      const now = clock.now();
      const rows = await assetsOf(ctx, { classes: LISTING_CLASSES[listing], siteId });
      const devices = rows.map((a) => ({ ...deviceRow(a, now), readings: readingsFor(listing, a) }));
      return { devices, count: devices.length };
    },

    async health(ctx: RequestContext, f: { site_id?: string; connectivity?: Connectivity }) {
      const now = clock.now();
      const rows = (await assetsOf(ctx, { siteId: f.site_id })).map((a) => ({
        ...deviceRow(a, now),
        status: a.last_ts ? a.last_status : null,
        age_seconds: a.last_ts ? Math.max(0, Math.floor((now.getTime() - a.last_ts.getTime()) / 1000)) : null,
      }));
      const summary = { online: 0, offline: 0, never_reported: 0 };
      for (const r of rows) summary[r.connectivity]++;
      const devices = f.connectivity ? rows.filter((r) => r.connectivity === f.connectivity) : rows;
      return { summary, devices, count: devices.length };
    },

    async vehiclesTelemetry(ctx: RequestContext, siteId?: string) {
      const now = clock.now();
      const rows = await assetsOf(ctx, { classes: LISTING_CLASSES.vehicles, siteId });
      const devices = rows.map((a) => ({
        ...deviceRow(a, now),
        readings: readingsFor('vehicles', a),
        telemetry: a.last_ts ? { ...latestReading(a)!, raw: a.raw ?? {} } : null,
      }));
      return { devices, count: devices.length };
    },

    async telematics(ctx: RequestContext, siteId?: string) {
      const now = clock.now();
      const rows = await assetsOf(ctx, { classes: LISTING_CLASSES.vehicles, siteId });
      const ids = rows.map((r) => r.asset_id);
      const since = new Date(now.getTime() - TELEMATICS_WINDOW_DAYS * 24 * HOUR);
      const [pos, ign] = ids.length
        ? await Promise.all([telemetry.latestPositions(db, ctx.orgId, ids, since), telemetry.latestIgnition(db, ctx.orgId, ids, since)])
        : [[], []];
      const posBy = new Map(pos.map((p) => [p.asset_id, p]));
      const ignBy = new Map(ign.map((p) => [p.asset_id, p]));
      const vehicles = rows.map((a) => {
        const p = posBy.get(a.asset_id);
        const i = ignBy.get(a.asset_id);
        const { asset_id, site_id, name, type, connectivity, freshness, last_seen_at, last_reported_at, last_reported_source } = deviceRow(a, now);
        return {
          asset_id,
          site_id,
          name,
          type,
          connectivity,
          freshness,
          last_seen_at,
          last_reported_at,
          last_reported_source,
          position: p ? { lat: p.lat, lon: p.lon, measured_at: iso(p.ts)! } : null,
          ignition: i ? { on: ignitionOf(i.value), measured_at: iso(i.ts)! } : null,
        };
      });
      return { vehicles, count: vehicles.length };
    },

    // ---- Source priority ------------------------------------------------------------------

    async priorities(ctx: RequestContext, assetId?: string) {
      const rows = await priorities.list(db, ctx.orgId, assetId);
      return {
        sources: [...REPORTED_SOURCES],
        measurements: [...MEASUREMENTS],
        default_order: [...DEFAULT_SOURCE_ORDER],
        priorities: rows.map((r) => ({ asset_id: r.asset_id, measurement: r.measurement, sources: r.sources, updated_at: iso(r.updated_at)! })),
      };
    },

    async setPriorities(ctx: RequestContext, body: { asset_id: string; priorities: { measurement: string; sources: string[] }[] }) {
      const fe = [];
      const seenM = new Set<string>();
      for (const [i, p] of body.priorities.entries()) {
        if (seenM.has(p.measurement)) fe.push(fieldError(['body', 'priorities', i, 'measurement'], 'Measurement listed twice', p.measurement));
        seenM.add(p.measurement);
        if (new Set(p.sources).size !== p.sources.length) fe.push(fieldError(['body', 'priorities', i, 'sources'], 'A source is listed twice', p.sources));
      }
      if (fe.length) throw errors.validation(fe);
      await db.tx(async (q) => {
        const asset = await registry.asset(q, ctx.orgId, body.asset_id, { forUpdate: true });
        if (!asset) throw errors.validation([fieldError(['body', 'asset_id'], 'Asset not found', body.asset_id)]);
        await priorities.replace(q, ctx.orgId, body.asset_id, body.priorities, clock.now());
        await audit.record(q, ctx, {
          action: 'source_priority.update',
          targetType: 'asset',
          targetId: body.asset_id,
          details: { priorities: body.priorities },
        });
      });
      return api.priorities(ctx, body.asset_id);
    },

    async resolve(ctx: RequestContext, f: { asset_id?: string; site_id?: string; window_hours: number }) {
      const now = clock.now();
      const since = new Date(now.getTime() - f.window_hours * HOUR);
      const assets = await assetsOf(ctx, { siteId: f.site_id, assetIds: f.asset_id ? [f.asset_id] : undefined });
      if (f.asset_id && !assets.length) throw errors.notFound();
      const ids = assets.map((a) => a.asset_id);
      const [values, prios] = ids.length
        ? await Promise.all([telemetry.latestBySource(db, ctx.orgId, ids, since, REPORTED_SOURCES), priorities.list(db, ctx.orgId)])
        : [[], []];
      const prioBy = new Map(prios.map((p) => [`${p.asset_id}\u0000${p.measurement}`, p.sources]));
      const out = assets.map((a) => {
        const mine = values.filter((v) => v.asset_id === a.asset_id);
        const seen = [...new Set(mine.map((v) => v.source))].sort((x, y) => rank(REPORTED_SOURCES, x) - rank(REPORTED_SOURCES, y));
        const measurements = MEASUREMENTS.map((m) => {
          const configured = prioBy.get(`${a.asset_id}\u0000${m}`);
          const order = configured ?? DEFAULT_SOURCE_ORDER;
          const candidates = mine
            .filter((v) => v.measurement === m)
            .map((v) => ({ source: v.source, value: v.num ?? v.txt, ts: iso(v.ts)! }))
            .sort((x, y) => rank(order, x.source) - rank(order, y.source));
          const chosen = order.map((s) => candidates.find((c) => c.source === s)).find(Boolean) ?? null;
          return {
            measurement: m,
            value: chosen?.value ?? null,
            source: chosen?.source ?? null,
            ts: chosen?.ts ?? null,
            order: [...order],
            configured: configured !== undefined,
            candidates,
          };
        });
        const onlyTelemetry = seen.length === 1 && seen[0] === 'telemetry';
        return {
          asset_id: a.asset_id,
          site_id: a.site_id,
          name: a.name,
          sources_seen: seen,
          only_telemetry: onlyTelemetry,
          note: !seen.length
            ? `No record in the last ${f.window_hours} hours.`
            : onlyTelemetry
              ? 'Only telemetry is stored for this asset: every value comes from telemetry and the priority has nothing to choose between.'
              : null,
          measurements,
        };
      });
      return { window: { from: since.toISOString(), to: now.toISOString(), hours: f.window_hours }, assets: out };
    },

    // ---- Data integrity -----------------------------------------------------------------------

    async integrity(ctx: RequestContext, f: { site_id?: string; asset_id?: string; hours: number; gap_minutes: number }) {
      const now = clock.now();
      const since = new Date(now.getTime() - f.hours * HOUR);
      const gapSeconds = f.gap_minutes * 60;
      const assets = await assetsOf(ctx, { siteId: f.site_id, assetIds: f.asset_id ? [f.asset_id] : undefined });
      const ids = assets.map((a) => a.asset_id);
      const [stats, anomalies] = ids.length
        ? await Promise.all([telemetry.integrity(db, ctx.orgId, ids, since, gapSeconds), telemetry.anomalyCounts(db, ctx.orgId, ids, since)])
        : [[], []];
      const statBy = new Map(stats.map((s) => [s.asset_id, s]));
      const rows = assets.map((a) => {
        const s = statBy.get(a.asset_id);
        const by = anomalies.filter((x) => x.asset_id === a.asset_id).map((x) => ({ reason: x.reason, count: x.n }));
        const anomalyTotal = by.reduce((t, x) => t + x.count, 0);
        const records = s?.records ?? 0;
        const issues = (s?.gaps ?? 0) + (s?.duplicate_timestamps ?? 0) + (s?.future_timestamps ?? 0) + anomalyTotal;
        return {
          ...deviceRow(a, now),
          integrity: records === 0 ? 'no_data' : issues > 0 ? 'degraded' : 'ok',
          records,
          first_record_at: iso(s?.first_ts),
          last_record_at: iso(s?.last_ts),
          silent_seconds: a.last_ts ? Math.max(0, Math.floor((now.getTime() - a.last_ts.getTime()) / 1000)) : null,
          gaps: { count: s?.gaps ?? 0, longest_seconds: s?.longest_gap_seconds ?? 0 },
          duplicate_timestamps: s?.duplicate_timestamps ?? 0,
          future_timestamps: s?.future_timestamps ?? 0,
          late_records: s?.late_records ?? 0,
          anomalies: { total: anomalyTotal, by_reason: by },
        };
      });
      return {
        window: { from: since.toISOString(), to: now.toISOString(), hours: f.hours },
        gap_threshold_seconds: gapSeconds,
        assets: rows,
      };
    },

    async runCommissioning(ctx: RequestContext, body: { site_id: string; max_silence_minutes: number }) {
      const now = clock.now();
      return db.tx(async (q) => {
        const assets = await registry.assets(q, ctx.orgId, { siteId: body.site_id });
        const unregistered = await registry.unregisteredDevices(q, ctx.orgId, { siteRef: body.site_id });
        if (!assets.length && !unregistered.length) throw errors.notFound();
        const checks: Check[] = [];
        const add = (check: string, asset_id: string | null, result: Check['result'], message: string) => checks.push({ check, asset_id, result, message });
        if (!assets.length) add('assets_registered', null, 'fail', 'No asset is registered at this site.');
        else add('assets_registered', null, 'pass', `${assets.length} asset(s) registered.`);
        const limitMs = body.max_silence_minutes * 60_000;
        for (const a of assets) {
          if (!a.last_ts) add('reporting', a.asset_id, 'fail', 'No record has ever been stored.');
          else if (now.getTime() - a.last_ts.getTime() > limitMs) {
            add('reporting', a.asset_id, 'fail', `Newest record ${iso(a.last_ts)} is older than ${body.max_silence_minutes} minutes.`);
          } else add('reporting', a.asset_id, 'pass', `Reported at ${iso(a.last_ts)}.`);
          if (!a.last_ts) continue;
          const problems: string[] = [];
          const warnings: string[] = [];
          if (a.soc_pct !== null && (a.soc_pct < 0 || a.soc_pct > 100)) problems.push(`soc_pct ${a.soc_pct} is outside 0 to 100`);
          if (a.power_kw !== null && Math.abs(a.power_kw) > 5000) problems.push(`power_kw ${a.power_kw} exceeds 5000 in magnitude`);
          if (a.voltage !== null && a.voltage < 0) problems.push(`voltage ${a.voltage} is negative`);
          if (a.temp_c !== null && (a.temp_c < -50 || a.temp_c > 150)) warnings.push(`temp_c ${a.temp_c} is outside -50 to 150`);
          if (a.asset_class === 'inverter' && a.power_kw !== null && a.power_kw > 0.5) {
            warnings.push(`power_kw ${a.power_kw} is positive at an inverter (generation is negative): check the sign`);
          }
          if (a.last_status && /fault|error|alarm|trip/i.test(a.last_status)) warnings.push(`status is '${a.last_status}'`);
          if (problems.length) add('plausibility', a.asset_id, 'fail', problems.concat(warnings).join('; ') + '.');
          else if (warnings.length) add('plausibility', a.asset_id, 'warn', warnings.join('; ') + '.');
          else add('plausibility', a.asset_id, 'pass', 'Newest record is within plausible ranges.');
        }
        const findings = findingsOf(assets);
        for (const f of findings) add('topology', f.asset_id, f.severity === 'error' ? 'fail' : 'warn', `${f.code}: ${f.message}`);
        if (assets.length && !findings.length) add('topology', null, 'pass', 'The single-line tree has no finding.');
        if (unregistered.length) {
          add(
            'unregistered_devices',
            null,
            'warn',
            `${unregistered.length} device(s) report with site_ref ${body.site_id} but are not registered: ${unregistered.map((u) => u.asset_id).join(', ')}.`,
          );
        }
        const summary = {
          assets: assets.length,
          pass: checks.filter((c) => c.result === 'pass').length,
          warn: checks.filter((c) => c.result === 'warn').length,
          fail: checks.filter((c) => c.result === 'fail').length,
        };
        const outcome = summary.fail ? 'fail' : summary.warn ? 'pass_with_warnings' : 'pass';
        const run: RunRow = {
          run_id: randomUUID(),
          site_id: body.site_id,
          outcome,
          parameters: { max_silence_minutes: body.max_silence_minutes },
          summary,
          checks,
          created_by: ctx.actor.kind === 'user' ? ctx.actor.userId : null,
          created_at: now,
        };
        await runs.insert(q, ctx.orgId, run);
        await audit.record(q, ctx, {
          action: 'commissioning.run',
          targetType: 'site',
          targetId: body.site_id,
          details: { run_id: run.run_id, outcome, summary },
        });
        return runView(run);
      });
    },

    async latestCommissioning(ctx: RequestContext, siteId: string) {
      const run = await runs.latest(db, ctx.orgId, siteId);
      if (!run) throw errors.notFound();
      return runView(run);
    },
  };
  return api;
}

function runView(r: RunRow) {
  return {
    run_id: r.run_id,
    site_id: r.site_id,
    outcome: r.outcome as 'pass' | 'pass_with_warnings' | 'fail',
    created_at: iso(r.created_at)!,
    created_by: r.created_by,
    parameters: r.parameters as { max_silence_minutes: number },
    summary: r.summary as { assets: number; pass: number; warn: number; fail: number },
    checks: r.checks as Check[],
  };
}

export type DevicesService = ReturnType<typeof createDevicesService>;
