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
import { ALL_COUNTER_KEYS, FLOWS, ROLE_FLOWS, roleOf, type Flow, type Role } from './flows.ts';
import { createEnergyStore, type AssetFlowRow, type FlowKwh, type SiteHalfHourRow } from './store.ts';
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

export type FlowBasis = 'measured' | 'calculated' | 'partial' | 'missing' | 'absent';

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
   * Flow rows over [from, to) from the samples for several assets of a site (a counter wins where
   * it covers as much), by asset id. One read of power and one of counters for all of them: each
   * read is a wide statement that costs more to plan than to run on a refresh's few samples, so a
   * site's assets share it rather than planning it once an asset (decision 0498).
   */
  async function assetsFlows(
    q: Queryable,
    orgId: string,
    ras: readonly RoledAsset[],
    from: number,
    to: number,
  ): Promise<Map<string, Omit<AssetFlowRow, 'asset_id'>[]>> {
    const out = new Map<string, Omit<AssetFlowRow, 'asset_id'>[]>();
    if (!ras.length) return out;
    const reads = deps.telemetry.reads(q);
    const ids = ras.map((ra) => ra.asset.asset_id);
    const keys = [...new Set(ras.flatMap((ra) => ROLE_FLOWS[ra.role].flatMap((s) => s.counters)))];
    const [power, counters] = await Promise.all([
      reads.powerHalfHours(orgId, ids, new Date(from), new Date(to), settings.powerGapSeconds),
      reads.counterHalfHours(orgId, ids, new Date(from), new Date(to), settings.counterGapSeconds, keys),
    ]);
    const byAsset = <T extends { asset_id: string }>(rows: T[]) => {
      const m = new Map<string, T[]>();
      for (const r of rows) {
        const list = m.get(r.asset_id);
        if (list) list.push(r);
        else m.set(r.asset_id, [r]);
      }
      return m;
    };
    const powerOf = byAsset(power);
    const countersOf = byAsset(counters);
    for (const ra of ras) out.set(ra.asset.asset_id, flowsOf(ra, powerOf.get(ra.asset.asset_id) ?? [], countersOf.get(ra.asset.asset_id) ?? []));
    return out;
  }

  /** One asset's flow rows over [from, to) from the samples (a counter wins where it covers as much). */
  async function assetFlows(q: Queryable, orgId: string, ra: RoledAsset, from: number, to: number): Promise<Omit<AssetFlowRow, 'asset_id'>[]> {
    return (await assetsFlows(q, orgId, [ra], from, to)).get(ra.asset.asset_id) ?? [];
  }

  /** An asset's flow rows from its own power and counter half hours. */
  function flowsOf(ra: RoledAsset, power: PowerHalfHour[], counters: CounterHalfHour[]): Omit<AssetFlowRow, 'asset_id'>[] {
    const sources = ROLE_FLOWS[ra.role];
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
    // One recompute of a site at a time: two refreshes of different assets of one site would each
    // replace the site's half hours from a snapshot without the other's flows. Callers that lock
    // several sites in one transaction take them in (org, site) order.
    await q.query('select pg_advisory_xact_lock(hashtext($1))', [`energy:site:${orgId}:${siteId}`]);
    const ctx = await siteContext(q, orgId, siteId);
    const f = new Date(floorSlot(from));
    const t = new Date(ceilSlot(to));
    const chosen = onlyAssets ? ctx.roled.filter((ra) => onlyAssets.includes(ra.asset.asset_id)) : ctx.roled;
    const flows = await assetsFlows(q, orgId, chosen, f.getTime(), t.getTime());
    const chosenIds = chosen.map((ra) => ra.asset.asset_id);
    await store.replaceAssetsFlows(
      q,
      orgId,
      siteId,
      chosenIds,
      f,
      t,
      chosenIds.flatMap((id) => (flows.get(id) ?? []).map((row) => ({ ...row, asset_id: id }))),
    );
    await store.dropOtherAssets(
      q,
      orgId,
      siteId,
      ctx.roled.map((r) => r.asset.asset_id),
      f,
      t,
    );
    const rows = await store.assetFlows(q, orgId, siteId, f, t);
    await store.replaceSiteHalfHours(q, orgId, siteId, f, t, aggregateSite(ctx, rows));
  }

  /**
   * Folds pending spans into the rollup, `batch` assets a transaction, until none is left (or
   * `maxAssets` were done). A span is widened to the samples before and after it (within the gap
   * limits), since a new sample changes the segments on either side of it. Returns the assets refreshed.
   */
  async function refreshPending(db: Db, opts: { orgId?: string; batch?: number; maxAssets?: number } = {}): Promise<number> {
    let done = 0;
    const max = opts.maxAssets ?? 100_000;
    // For one organisation (the refresh's unit, decision 0285) each site is recomputed under a
    // savepoint: a site that fails keeps its spans pending and is left alone for the rest of the
    // call, the organisation's other sites are folded in, and the failure is thrown at the end.
    const failedAssets = new Set<string>();
    let failure: { err: unknown } | undefined;
    while (done < max) {
      const n = await db.tx(async (q) => {
        const spans = await store.takePending(q, opts.batch ?? 50, opts.orgId, [...failedAssets]);
        const byOrg = new Map<string, typeof spans>();
        for (const s of spans) byOrg.set(s.org_id, [...(byOrg.get(s.org_id) ?? []), s]);
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
          for (const site of [...bySite.keys()].sort()) {
            const spans = bySite.get(site)!.sort((x, y) => x.from - y.from);
            let cur = { from: spans[0]!.from, to: spans[0]!.to, assets: [spans[0]!.asset] };
            const clusters = [cur];
            for (const sp of spans.slice(1)) {
              if (sp.from <= cur.to) {
                cur.to = Math.max(cur.to, sp.to);
                cur.assets.push(sp.asset);
              } else clusters.push((cur = { from: sp.from, to: sp.to, assets: [sp.asset] }));
            }
            for (const c of clusters) {
              if (opts.orgId === undefined) {
                await recomputeSite(q, orgId, site, c.from, c.to, c.assets);
                continue;
              }
              await q.query('savepoint energy_site');
              try {
                await recomputeSite(q, orgId, site, c.from, c.to, c.assets);
                await q.query('release savepoint energy_site');
              } catch (err) {
                if (isPlatformFailure(err)) throw err;
                await q.query('rollback to savepoint energy_site');
                failure ??= { err };
                for (const a of c.assets) failedAssets.add(a);
                const back = list.filter((s) => c.assets.includes(s.asset_id));
                await store.markPending(
                  q,
                  orgId,
                  back.map((s) => ({ asset_id: s.asset_id, from: s.from_ts.getTime(), to: s.to_ts.getTime() })),
                );
              }
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

  return { store, siteContext, allSites, recomputeSite, refreshPending, assetFlows };
}

export type EnergyModel = ReturnType<typeof createEnergyModel>;
