// Energy accounting: the half-hour energy model kept current from ingestion, the ledger and PPA
// statements, site energy, EMS reporting with lineage, and carbon (Scope 2). One module: every
// figure is read from the same rollup (decision 0140).
import { migrationsDir, type ModuleDefinition, type ModuleCreate } from '../../platform/module.ts';
import { sectionOf } from '../../core/config-section.ts';
import { TELEMETRY_ENERGY } from '../telemetry/index.ts';
import { ASSETS_CHANGED, REGISTRY_SITES } from '../registry/index.ts';
import { energyConfig } from './config.ts';
import { createEnergyModel } from './model.ts';
import { createEnergyStore } from './store.ts';
import { ASSETS_CHANGED_KIND, createLedger, REBUILD_KIND, REFRESH_KIND } from './ledger.ts';
import { ledgerOperations } from './routes/ledger.ts';
import { ENERGY_ERROR_DOCS } from './errors.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { createSettings } from './settings.ts';
import { createSiteEnergy } from './site.ts';
import { siteOperations } from './routes/site.ts';
import { CARBON_INTENSITY } from '../market/index.ts';
import { createCarbon } from './carbon.ts';
import { carbonOperations } from './routes/carbon.ts';
import { createReporting } from './reporting/service.ts';
import { reportingOperations } from './routes/reporting.ts';
import { serviceKey } from '../../platform/services.ts';
import { energyExportables } from './exportable.ts';
import type { Queryable } from '../../infra/db/index.ts';
import type { AssetFlowRow, FactorVersionRow, SiteDayRow, SiteHalfHourRow } from './store.ts';
import type { Flow } from './flows.ts';

/**
 * Energy figures for other modules (fleet savings statements, forecasting, EMS alerts): a site's UK
 * days and half hours from the energy model (the ledger's flows, basis and completeness), each
 * asset's half hours of a flow, the ledger's pending state and the DESNZ location factor versions,
 * read in the caller's Queryable. No other module reads the energy tables.
 */
export interface EnergyFigures {
  siteDays(q: Queryable, orgId: string, siteId: string, fromDay: string, toDayExclusive: string): Promise<SiteDayRow[]>;
  /** The ledger's half hours of a site with a row in [from, to) (UTC slot starts), in slot order; a half hour without a row has no data. */
  siteHalfHours(q: Queryable, orgId: string, siteId: string, from: Date, to: Date): Promise<SiteHalfHourRow[]>;
  /**
   * The assets' energy per half hour in [from, to) (slot starts) of the given flows, as the ledger
   * holds it: counters measured, power integrated (calculated), kWh to the watt-hour. A half hour
   * the ledger has no row for is absent.
   */
  assetHalfHours(q: Queryable, orgId: string, assetIds: string[], flows: readonly Flow[], from: Date, to: Date): Promise<AssetFlowRow[]>;
  /** The assets among these whose readings are still waiting to be folded into the ledger. */
  pendingAssets(q: Queryable, orgId: string, assetIds: string[]): Promise<string[]>;
  /**
   * Folds the organisation's pending spans in now (what the background refresh does, for one
   * organisation, at most 1 000 spans; idempotent). Throws what the refresh would throw: the caller decides whether to
   * go on with the ledger as it stands (pendingAssets then says which figures are behind).
   */
  bringUpToDate(orgId: string): Promise<void>;
  factorVersions(q: Queryable): Promise<FactorVersionRow[]>;
}
export const ENERGY_FIGURES = serviceKey<EnergyFigures>('energy.figures');
/** Pending spans one bringUpToDate folds in at most. */
const BRING_UP_TO_DATE_MAX_SPANS = 1000;
export type { AssetFlowRow, FactorVersionRow, SiteDayRow, SiteHalfHourRow } from './store.ts';
export type { Flow } from './flows.ts';

export const energyModule: ModuleCreate = (deps) => {
  const settings = sectionOf(deps.config, energyConfig);
  const telemetry = deps.services.get(TELEMETRY_ENERGY);
  const model = createEnergyModel({ telemetry, sites: deps.services.get(REGISTRY_SITES), settings, clock: deps.clock, log: deps.log });
  const audit = deps.services.get(AUDIT_LOG);
  const ledger = createLedger({
    db: deps.db,
    backgroundDb: deps.backgroundDb,
    clock: deps.clock,
    model,
    telemetry,
    jobs: deps.jobs,
    jobUnits: deps.jobUnits,
    audit,
    maxQueuedRebuilds: settings.maxQueuedRebuilds,
  });
  const siteSettings = createSettings({ db: deps.db, clock: deps.clock, model, audit });
  const carbon = createCarbon({ db: deps.db, clock: deps.clock, model, intensity: deps.services.get(CARBON_INTENSITY), audit });
  const site = createSiteEnergy({ db: deps.db, clock: deps.clock, model, settings: siteSettings, telemetry });
  const reporting = createReporting({ db: deps.db, readDb: deps.readDb, clock: deps.clock, model, settings: siteSettings, telemetry, audit, config: settings });
  return {
    tags: {
      'energy-ledger': 'The half-hourly energy ledger of a site, its rebuild, PPA contracts and monthly statements.',
      'site-energy': 'Site energy: self-consumption, battery state, the portfolio league and capacity against the agreed figure.',
      carbon: 'Carbon and Scope 2: location- and market-based emissions, DESNZ factor versions, grid intensity, avoided emissions, usage with carbon.',
      'ems-reporting': 'EMS reporting: site settings, reports with figure-level lineage, interval exports, PV underperformance and calibration.',
    },
    errors: ENERGY_ERROR_DOCS,
    operations: [
      ...ledgerOperations(ledger),
      ...siteOperations(site, siteSettings, model, deps.db),
      ...carbonOperations(carbon),
      ...reportingOperations(reporting),
    ],
    background: {
      jobs: [
        { kind: REBUILD_KIND, handler: ledger.runRebuild },
        { kind: ASSETS_CHANGED_KIND, handler: ledger.assetsChanged },
      ],
      // Readings stored before their asset was registered (or counted under another role before a
      // change) reach the ledger by themselves: the registry's change queues a rebuild of the site.
      subscriptions: [{ topic: ASSETS_CHANGED, kind: ASSETS_CHANGED_KIND }],
      schedules: [
        {
          kind: REFRESH_KIND,
          everyMs: settings.refreshIntervalSeconds * 1000,
          // Each organisation is its own unit (decision 0285): one whose spans cannot be folded in
          // (its transaction rolls back) is retried, then quarantined, and the others are refreshed.
          run: async () => {
            const orgs = await model.store.pendingOrgs(deps.backgroundDb);
            await deps.jobUnits.each(
              REFRESH_KIND,
              orgs,
              (orgId) => ({ orgId }),
              (orgId) => model.refreshPending(deps.backgroundDb, { orgId }),
            );
          },
        },
      ],
    },
  };
};

/** This module as the module list names it. */
export const energyDefinition: ModuleDefinition = {
  name: 'energy',
  dependsOn: ['orgs', 'audit', 'telemetry', 'registry', 'market'],
  migrations: migrationsDir(import.meta.url),
  config: energyConfig,
  // The ledger's half hours for the organisation's data export.
  exportable: energyExportables,
  // Ingestion records what each batch touched for the energy model, in the batch's own statement.
  provides: (deps, registry) => {
    const store = createEnergyStore();
    registry.get(TELEMETRY_ENERGY).onBatchStatement(store.pendingFromBatch);
    // The same model the module's refresh runs (stateless over the store), for bringUpToDate.
    const model = createEnergyModel({
      telemetry: registry.get(TELEMETRY_ENERGY),
      sites: registry.get(REGISTRY_SITES),
      settings: sectionOf(deps.config, energyConfig),
      clock: deps.clock,
      log: deps.log,
    });
    registry.provide(ENERGY_FIGURES, {
      siteDays: (q, orgId, siteId, fromDay, toDay) => store.siteDays(q, orgId, [siteId], fromDay, toDay),
      siteHalfHours: (q, orgId, siteId, from, to) => store.siteHalfHours(q, orgId, siteId, from, to),
      assetHalfHours: (q, orgId, assetIds, flows, from, to) => store.assetFlowsOf(q, orgId, assetIds, from, to, flows),
      pendingAssets: (q, orgId, assetIds) => store.pendingAssets(q, orgId, assetIds),
      bringUpToDate: async (orgId) => {
        // Bounded (a request waits for it): a larger backlog stays pending for the background refresh.
        await model.refreshPending(deps.db, { orgId, maxAssets: BRING_UP_TO_DATE_MAX_SPANS });
      },
      factorVersions: (q) => store.factorVersions(q),
    });
  },
  create: energyModule,
};
