// The energy model: half-hour energy per asset and flow from stored telemetry (counters measured,
// power integrated = calculated), summed per site into the ledger's half hours and UK days.
// Ingestion leaves pending spans (energy_pending, in its own transaction); `refreshPending` folds
// them in; `recomputeSite` rebuilds any range of a site from the samples. Both replace the rows of
// the range they compute, so running either twice gives the same rows (idempotent).
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { TelemetryEnergy } from '../telemetry/index.ts';
import type { RegistrySites, SiteAsset } from '../registry/index.ts';
import { ceilSlot, floorSlot, ukDate } from '../../kit/uk-time.ts';
import type { EnergyConfig } from './config.ts';

type EnergyReads = ReturnType<TelemetryEnergy['reads']>;
type PowerHalfHour = Awaited<ReturnType<EnergyReads['powerHalfHours']>>[number];
type CounterHalfHour = Awaited<ReturnType<EnergyReads['counterHalfHours']>>[number];
type EnergyWindow = Parameters<EnergyReads['powerHalfHoursIn']>[1][number];
import { ALL_COUNTER_KEYS, FLOWS, ROLE_FLOWS, roleOf, type Flow, type Role } from './flows.ts';
import { createEnergyStore, type AssetFlowRow, type FlowKwh, type PendingKey, type SiteHalfHourRow } from './store.ts';
import { kwhText, toWh } from '../../kit/decimal.ts';
import { isPlatformFailure } from '../../platform/job-units.ts';

/** Whole watt-hours by flow (and the residual) as the rollups' kWh texts. */
export function flowKwh(wh: Record<Flow | 'residual', number>): FlowKwh {
  return {
    import_kwh: kwhText(wh.import),
    export_kwh: kwhText(wh.export),
    generation_kwh: kwhText(wh.generation),
    consumption_kwh: kwhText(wh.consumption),
    charge_kwh: kwhText(wh.charge),
    discharge_kwh: kwhText(wh.discharge),
    residual_kwh: kwhText(wh.residual),
  };
}

export const DAY_MS = 86_400_000;

/**
 * A refresh transaction takes the pending rows of this many assets (decision 0514): a batch's
 * sites are recomputed together (decision 0512), so a larger batch shares each statement among more
 * sites; assets on no site cost only their rows' delete.
 */
const REFRESH_BATCH_ASSETS = 1000;
/** And at most this many rows (an asset has one a batch or message that touched it since the last run). */
const REFRESH_BATCH_ROWS = 20_000;

export type FlowBasis = 'measured' | 'calculated' | 'partial' | 'missing' | 'absent';

/** A site's range to recompute (ms), for all its assets or only some. */
export interface RecomputeItem {
  siteId: string;
  from: number;
  to: number;
  onlyAssets?: readonly string[];
}

export interface RoledAsset {
  asset: SiteAsset;
  role: Role;
}

export interface SiteContext {
  siteId: string;
  assets: SiteAsset[];
  roled: RoledAsset[];
  /** Flows some asset at the site feeds. */
  flows: Set<Flow>;
  metersLoads: boolean;
}

export function siteContextOf(siteId: string, assets: SiteAsset[]): SiteContext {
  const byId = new Map(assets.map((a) => [a.asset_id, a]));
  const roled: RoledAsset[] = [];
  for (const a of assets) {
    const role = roleOf(a, byId);
    if (role) roled.push({ asset: a, role });
  }
  const flows = new Set<Flow>(roled.flatMap((r) => ROLE_FLOWS[r.role].map((f) => f.flow)));
  return { siteId, assets, roled, flows, metersLoads: roled.some((r) => r.role === 'load') };
}

/**
 * One site's half hours from its assets' flow rows (pure: the reference tests call it too).
 * Sums are integer Wh; each flow's basis says whether every asset feeding it reported (measured or
 * calculated), some did (partial) or none (missing), or the site has no such flow (absent).
 */
export function aggregateSite(ctx: SiteContext, rows: AssetFlowRow[]): SiteHalfHourRow[] {
  const bySlot = new Map<number, AssetFlowRow[]>();
  for (const r of rows) {
    const k = r.slot.getTime();
    const list = bySlot.get(k);
    if (list) list.push(r);
    else bySlot.set(k, [r]);
  }
  const expectedByFlow = new Map<Flow, string[]>();
  for (const ra of ctx.roled) for (const f of ROLE_FLOWS[ra.role]) expectedByFlow.set(f.flow, [...(expectedByFlow.get(f.flow) ?? []), ra.asset.asset_id]);
  const out: SiteHalfHourRow[] = [];
  for (const slot of [...bySlot.keys()].sort((a, b) => a - b)) {
    const list = bySlot.get(slot)!;
    const wh: Record<Flow, number> = { import: 0, export: 0, generation: 0, consumption: 0, charge: 0, discharge: 0 };
    const basis: Record<string, FlowBasis> = {};
    for (const flow of FLOWS) {
      const expected = expectedByFlow.get(flow) ?? [];
      const got = list.filter((r) => r.flow === flow);
      for (const r of got) wh[flow] += toWh(r.kwh);
      if (!expected.length) basis[flow] = 'absent';
      else if (!got.length) basis[flow] = 'missing';
      else if (expected.some((id) => !got.some((r) => r.asset_id === id))) basis[flow] = 'partial';
      else basis[flow] = got.every((r) => r.basis === 'measured') ? 'measured' : 'calculated';
    }
    let method: 'metered' | 'derived' = 'metered';
    if (!ctx.metersLoads) {
      method = 'derived';
      wh.consumption = wh.generation + wh.import + wh.discharge - wh.export - wh.charge;
      const parts = (['import', 'export', 'generation', 'charge', 'discharge'] as Flow[]).map((f) => basis[f]).filter((b) => b !== 'absent');
      basis.consumption = parts.includes('missing') ? 'missing' : parts.includes('partial') ? 'partial' : 'calculated';
    }
    const residual = wh.generation + wh.import + wh.discharge - wh.export - wh.charge - wh.consumption;
    let coverage = 1;
    let reporting = 0;
    for (const ra of ctx.roled) {
      const mine = list.filter((r) => r.asset_id === ra.asset.asset_id);
      if (mine.length) reporting++;
      coverage = Math.min(coverage, mine.length ? Math.max(...mine.map((r) => r.coverage)) : 0);
    }
    const allMeasured = Object.values(basis).every((b) => b === 'measured' || b === 'absent');
    out.push({
      slot: new Date(slot),
      day: ukDate(slot),
      ...flowKwh({ ...wh, residual }),
      basis,
      consumption_method: method,
      coverage: Math.round(coverage * 10_000) / 10_000,
      assets_expected: ctx.roled.length,
      assets_reporting: reporting,
      complete: reporting === ctx.roled.length && coverage >= 0.9999,
      all_measured: allMeasured,
    });
  }
  return out;
}

export interface EnergyModelDeps {
  telemetry: TelemetryEnergy;
  sites: RegistrySites;
  settings: EnergyConfig;
  clock: Clock;
  log: FastifyBaseLogger;
}

export function createEnergyModel(deps: EnergyModelDeps) {
  const store = createEnergyStore();
  const { settings } = deps;

  async function siteContext(q: Queryable, orgId: string, siteId: string): Promise<SiteContext> {
    return siteContextOf(siteId, await deps.sites.assets(q, orgId, { siteId }));
  }

  /** Every site of the organisation with at least one registered asset, by site id. */
  async function allSites(q: Queryable, orgId: string): Promise<SiteContext[]> {
    const by = new Map<string, SiteAsset[]>();
    for (const a of await deps.sites.assets(q, orgId)) by.set(a.site_id, [...(by.get(a.site_id) ?? []), a]);
    return [...by.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([id, list]) => siteContextOf(id, list));
  }

  /**
   * Flow rows from the samples for each window (an asset over its own slots [from, to); a counter
   * wins where it covers as much), by window index. One read of power and one of counters for all
   * of them: each read is a wide statement that costs more to plan than to run on a refresh's few
   * samples, so a refresh's sites share it rather than planning it once a site (decisions 0498, 0512).
   */
  async function windowsFlows(q: Queryable, orgId: string, windows: readonly (EnergyWindow & { role: Role })[]): Promise<Omit<AssetFlowRow, 'asset_id'>[][]> {
    if (!windows.length) return [];
    const reads = deps.telemetry.reads(q);
    const keys = [...new Set(windows.flatMap((x) => ROLE_FLOWS[x.role].flatMap((s) => s.counters)))];
    const [first] = windows;
    const ids = windows.map((x) => x.asset_id);
    if (new Set(ids).size === ids.length && windows.every((x) => x.from.getTime() === first!.from.getTime() && x.to.getTime() === first!.to.getTime())) {
      // One range for all, an asset once (a rebuild, a site alone, a refresh of current half hours):
      // the reads' common-window form, whose range the planner sees.
      const [power, counters] = await Promise.all([
        reads.powerHalfHours(orgId, ids, first!.from, first!.to, settings.powerGapSeconds),
        reads.counterHalfHours(orgId, ids, first!.from, first!.to, settings.counterGapSeconds, keys),
      ]);
      return flowsByWindow(windows, power, counters);
    }
    const [power, counters] = await Promise.all([
      reads.powerHalfHoursIn(orgId, windows, settings.powerGapSeconds),
      reads.counterHalfHoursIn(orgId, windows, settings.counterGapSeconds, keys),
    ]);
    return flowsByWindow(windows, power, counters);
  }

  function flowsByWindow(windows: readonly { role: Role }[], power: PowerHalfHour[], counters: CounterHalfHour[]): Omit<AssetFlowRow, 'asset_id'>[][] {
    const byWindow = <T extends { w: number }>(rows: T[]) => {
      const out: T[][] = windows.map(() => []);
      for (const r of rows) out[r.w]!.push(r);
      return out;
    };
    const powerOf = byWindow(power);
    const countersOf = byWindow(counters);
    return windows.map((x, i) => flowsOf(ROLE_FLOWS[x.role], powerOf[i]!, countersOf[i]!));
  }

  /** One asset's flow rows over [from, to) from the samples (a counter wins where it covers as much). */
  async function assetFlows(q: Queryable, orgId: string, ra: RoledAsset, from: number, to: number): Promise<Omit<AssetFlowRow, 'asset_id'>[]> {
    const [rows] = await windowsFlows(q, orgId, [{ asset_id: ra.asset.asset_id, role: ra.role, from: new Date(from), to: new Date(to) }]);
    return rows ?? [];
  }

  /** An asset's flow rows from its own power and counter half hours. */
  function flowsOf(sources: (typeof ROLE_FLOWS)[Role], power: PowerHalfHour[], counters: CounterHalfHour[]): Omit<AssetFlowRow, 'asset_id'>[] {
    const slots = new Set<number>([...power.map((p) => p.slot.getTime()), ...counters.map((c) => c.slot.getTime())]);
    const powerAt = new Map(power.map((p) => [p.slot.getTime(), p]));
    const out: Omit<AssetFlowRow, 'asset_id'>[] = [];
    for (const slot of [...slots].sort((a, b) => a - b)) {
      const p = powerAt.get(slot);
      for (const src of sources) {
        let counter: (typeof counters)[number] | undefined;
        for (const key of src.counters) {
          counter = counters.find((c) => c.key === key && c.slot.getTime() === slot && c.covered_s > 0);
          if (counter) break;
        }
        if (counter && counter.covered_s >= (p?.covered_s ?? 0)) {
          out.push({
            slot: new Date(slot),
            flow: src.flow,
            kwh: String(counter.kwh),
            basis: 'measured',
            source: `counter:${counter.key}`,
            coverage: Math.min(1, counter.covered_s / 1800),
            samples: p?.samples ?? 0,
            resets: counter.resets,
          });
        } else if (p && (p.covered_s > 0 || p.samples > 0)) {
          out.push({
            slot: new Date(slot),
            flow: src.flow,
            kwh: String(src.sign === 'pos' ? p.pos_kwh : p.neg_kwh),
            basis: 'calculated',
            source: 'power_kw',
            coverage: Math.min(1, p.covered_s / 1800),
            samples: p.samples,
            resets: 0,
          });
        }
      }
    }
    return out;
  }

  /** Recomputes the site's assets over [from, to) (slot-aligned) and then the site's half hours and days. */
  async function recomputeSite(q: Queryable, orgId: string, siteId: string, from: number, to: number, onlyAssets?: string[]): Promise<void> {
    await recomputeSites(q, orgId, [{ siteId, from, to, onlyAssets }]);
  }

  /**
   * Recomputes each item's assets (all the site's, or `onlyAssets`) over its range widened to whole
   * slots, then the sites' half hours, days and months: the same dozen statements for a refresh's
   * fifty sites as for one (decision 0512). A site's items must not overlap once widened to slots.
   */
  async function recomputeSites(q: Queryable, orgId: string, items: readonly RecomputeItem[]): Promise<void> {
    if (!items.length) return;
    // One recompute of a site at a time: two refreshes of different assets of one site would each
    // replace the site's half hours from a snapshot without the other's flows. Sites are locked in
    // (org, site) order, whoever locks them, so two callers never wait on each other in a circle.
    const siteIds = [...new Set(items.map((x) => x.siteId))].sort();
    await q.query('select pg_advisory_xact_lock(hashtext(k)) from unnest($1::text[]) as u(k)', [siteIds.map((site) => `energy:site:${orgId}:${site}`)]);
    // The sites' assets are read after the lock, not taken from the caller (the refresh has read its
    // pending assets' sites before): every recompute of a site, a refresh's or a rebuild's after a
    // registry change, reads them under the same lock, so the last to write read the newest set.
    const assetsBySite = new Map<string, SiteAsset[]>(siteIds.map((id) => [id, []]));
    for (const a of await deps.sites.assets(q, orgId, { siteIds })) assetsBySite.get(a.site_id)?.push(a);
    const ctxOf = new Map(siteIds.map((id) => [id, siteContextOf(id, assetsBySite.get(id)!)]));
    const windows = items.map((x) => {
      const ctx = ctxOf.get(x.siteId)!;
      const chosen = x.onlyAssets ? ctx.roled.filter((ra) => x.onlyAssets!.includes(ra.asset.asset_id)) : ctx.roled;
      return { ctx, chosen, site_id: x.siteId, from: new Date(floorSlot(x.from)), to: new Date(ceilSlot(x.to)) };
    });
    const assetWindows = windows.flatMap((x) =>
      x.chosen.map((ra) => ({ asset_id: ra.asset.asset_id, role: ra.role, site_id: x.site_id, from: x.from, to: x.to })),
    );
    const flows = await windowsFlows(q, orgId, assetWindows);
    await store.replaceAssetsFlows(
      q,
      orgId,
      assetWindows,
      assetWindows.flatMap((x, i) => flows[i]!.map((row) => ({ ...row, asset_id: x.asset_id, site_id: x.site_id }))),
    );
    await store.dropOtherAssets(
      q,
      orgId,
      windows,
      [...ctxOf.values()].flatMap((ctx) => ctx.roled.map((r) => ({ site_id: ctx.siteId, asset_id: r.asset.asset_id }))),
    );
    const rowsOf = windows.map((): AssetFlowRow[] => []);
    for (const r of await store.assetFlowsIn(q, orgId, windows)) rowsOf[r.w]!.push(r);
    await store.replaceSiteHalfHours(
      q,
      orgId,
      windows,
      windows.flatMap((x, i) => aggregateSite(x.ctx, rowsOf[i]!).map((row) => ({ ...row, site_id: x.site_id }))),
    );
  }

  /**
   * Folds pending spans into the rollup, REFRESH_BATCH_ASSETS assets a transaction, walking the
   * rows pending at the start once (decision 0514), until none is left (or `maxAssets` were done).
   * A span is widened to the samples before and after it (within the gap limits), since a new
   * sample changes the segments on either side of it. Returns the assets refreshed.
   */
  async function refreshPending(db: Db, opts: { orgId?: string; maxAssets?: number } = {}): Promise<number> {
    let done = 0;
    const max = opts.maxAssets ?? 100_000;
    // For one organisation (the refresh's unit, decision 0285) the batch's sites are recomputed
    // together under a savepoint, and on a failure again one by one, each under its own: a site that
    // fails keeps its spans pending and is left alone for the rest of the call, the organisation's
    // other sites are folded in, and the failure is thrown at the end (decision 0512).
    const failedAssets = new Set<string>();
    let failure: { err: unknown } | undefined;
    // The spans pending when the call starts, and no more: spans that ingestion adds meanwhile wait
    // for the next run (at most ENERGY_REFRESH_INTERVAL_SECONDS), so that under steady ingestion a
    // run ends, rather than chasing new spans for as long as readings arrive (decision 0512).
    const upTo = await store.pendingHighWater(db, opts.orgId);
    if (upTo === null) return 0;
    let after: PendingKey | null = null;
    while (done < max) {
      const n = await db.tx(async (q) => {
        const taken = await store.takePending(q, {
          maxAssets: REFRESH_BATCH_ASSETS,
          maxRows: REFRESH_BATCH_ROWS,
          upToSeq: upTo,
          after,
          ...(opts.orgId !== undefined && { orgId: opts.orgId, skipAssets: [...failedAssets] }),
        });
        const spans = taken.spans;
        after = taken.last ?? after;
        const byOrg = new Map<string, typeof spans>();
        for (const s of spans) {
          const list = byOrg.get(s.org_id);
          if (list) list.push(s);
          else byOrg.set(s.org_id, [s]);
        }
        for (const [orgId, list] of [...byOrg].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
          const assets = await deps.sites.assets(q, orgId, { assetIds: list.map((s) => s.asset_id) });
          const siteOf = new Map(assets.map((a) => [a.asset_id, a.site_id]));
          // A site is recomputed once for all its pending assets whose (widened) spans overlap, not
          // once an asset: a site of a thousand chargers reporting together is one recompute.
          // A span reaches back to the sample before it and on to the one after (the segments its
          // samples join), not a whole gap limit each way (decision 0491): a charger reporting each
          // minute recomputes its current half hour, not the four hours around it.
          const registered = list.filter((s) => siteOf.has(s.asset_id)); // others belong to no site's ledger
          const near = await deps.telemetry.reads(q).spanNeighbours(
            orgId,
            registered.map((s) => ({ asset_id: s.asset_id, from: s.from_ts, to: s.to_ts })),
            { powerSeconds: settings.powerGapSeconds, counterSeconds: settings.counterGapSeconds },
            ALL_COUNTER_KEYS,
          );
          const bySite = new Map<string, { from: number; to: number; asset: string }[]>();
          registered.forEach((s, i) => {
            const site = siteOf.get(s.asset_id)!;
            const spans = bySite.get(site) ?? [];
            const n = near[i]!;
            // +1 ms: the half hour that starts at the last sample holds it (its sample count).
            spans.push({ from: (n.before ?? s.from_ts).getTime(), to: (n.after ?? s.to_ts).getTime() + 1, asset: s.asset_id });
            bySite.set(site, spans);
          });
          // A site's spans that overlap, once widened to whole slots, are one item: its items never
          // replace the same half hour twice, so all the organisation's sites are one recompute.
          const items: RecomputeItem[] = [];
          for (const site of [...bySite.keys()].sort()) {
            const spans = bySite
              .get(site)!
              .map((sp) => ({ ...sp, from: floorSlot(sp.from), to: ceilSlot(sp.to) }))
              .sort((x, y) => x.from - y.from);
            let cur = { siteId: site, from: spans[0]!.from, to: spans[0]!.to, onlyAssets: [spans[0]!.asset] };
            items.push(cur);
            for (const sp of spans.slice(1)) {
              if (sp.from < cur.to) {
                cur.to = Math.max(cur.to, sp.to);
                if (!cur.onlyAssets.includes(sp.asset)) cur.onlyAssets.push(sp.asset);
              } else items.push((cur = { siteId: site, from: sp.from, to: sp.to, onlyAssets: [sp.asset] }));
            }
          }
          if (!items.length) continue;
          if (opts.orgId === undefined) {
            await recomputeSites(q, orgId, items);
            continue;
          }
          // All at once; if that fails, site by site, so that one site's failure keeps only its own
          // spans pending and the organisation's other sites are folded in.
          await q.query('savepoint energy_sites');
          try {
            await recomputeSites(q, orgId, items);
            await q.query('release savepoint energy_sites');
            continue;
          } catch (err) {
            if (isPlatformFailure(err)) throw err;
            await q.query('rollback to savepoint energy_sites');
          }
          for (const c of items) {
            await q.query('savepoint energy_site');
            try {
              await recomputeSites(q, orgId, [c]);
              await q.query('release savepoint energy_site');
            } catch (err) {
              if (isPlatformFailure(err)) throw err;
              await q.query('rollback to savepoint energy_site');
              failure ??= { err };
              for (const a of c.onlyAssets!) failedAssets.add(a);
              const back = list.filter((s) => c.onlyAssets!.includes(s.asset_id));
              await store.markPending(
                q,
                orgId,
                back.map((s) => ({ asset_id: s.asset_id, from: s.from_ts.getTime(), to: s.to_ts.getTime() })),
              );
            }
          }
        }
        return spans.length;
      });
      done += n;
      if (n === 0) break;
    }
    if (failure) throw failure.err;
    return done;
  }

  return { store, siteContext, allSites, recomputeSite, recomputeSites, refreshPending, assetFlows };
}

export type EnergyModel = ReturnType<typeof createEnergyModel>;
