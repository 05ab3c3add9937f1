// Control in the demo realm: the synthetic device model, the one verified setpoint write, the
// 30-second export limitation loop on the platform job queue (demo-realm sites only, once per tick
// across instances), overrides, grid connection guardrails and capacity, and the decision log with
// replay (concepts.md section 1, demo realm rules 1-3, 5, 6; endpoints.md 4.6 and 4.10).
// One service a sub-domain, each in its own file; this file wires them:
//   decisions.ts (decision log, replay) · sites.ts (sites under control, configuration) ·
//   demo-model.ts (synthetic devices, scenario, behaviour) · overrides.ts · setpoints.ts (the verified
//   write) · export-limit.ts (the 30 s loop, events) · grid.ts (guardrails, agreement reading,
//   capacity, plans) · model.ts (the pure rules and constants) · store.ts (SQL).
import { migrationsDir, type ModuleDefinition, type ModuleCreate } from '../../platform/module.ts';
import { serviceKey } from '../../platform/services.ts';
import { REGISTRY_SITES } from '../registry/index.ts';
import { TELEMETRY_READS, TELEMETRY_WRITER } from '../telemetry/index.ts';
import { createDecisionLog, onRecordedInputs, type DecisionEntry, type Replayer } from './decisions.ts';
import { createDemoModel } from './demo-model.ts';
import { createExportLimitation } from './export-limit.ts';
import { createGrid } from './grid.ts';
import { LOOP_EVERY_MS, LOOP_KIND } from './model.ts';
import { createOverrides } from './overrides.ts';
import { createSetpoints, type SetpointInput, type SetpointResult } from './setpoints.ts';
import { createSites } from './sites.ts';
import { controlOperations, type ControlServices } from './routes.ts';
import { CONTROL_ERROR_DOCS } from './errors.ts';
import { controlConfig } from './config.ts';
import { sectionOf } from '../../core/config-section.ts';
import type { Queryable } from '../../infra/db/index.ts';

/**
 * The verified setpoint write for other modules (the optimiser's dispatch): demo realm only (403
 * `Demo realm only` otherwise), refused 409 `Override active` while an override holds the site or
 * device, recorded in the decision log, in the caller's transaction.
 */
export interface ControlSetpoints {
  write(q: Queryable, orgId: string, input: SetpointInput & { source: 'optimiser' | 'export_limit' | 'manual' }, actor: string | null): Promise<SetpointResult>;
  /** Active overrides on a site now: the whole site, or these devices. */
  overrides(q: Queryable, orgId: string, siteId: string): Promise<{ site: boolean; devices: string[] }>;
}
export const CONTROL_SETPOINTS = serviceKey<ControlSetpoints>('control.setpoints');

/** The decision log for other modules: record a decision (kind 'optimisation' with its plan) and register its replay. */
export interface DecisionLog {
  record(q: Queryable, orgId: string, entry: DecisionEntry): Promise<string>;
  registerReplayer<I>(kind: string, replay: Replayer<I>): void;
}
export const DECISION_LOG = serviceKey<DecisionLog>('control.decisions');

export type { SetpointInput, SetpointResult, DecisionEntry, Replayer };

/** The module's own services, shared between what it provides and its operations. */
const CONTROL = serviceKey<ControlServices>('control.services');

export const controlModule: ModuleCreate = (deps) => {
  const c = deps.services.get(CONTROL);
  const settings = sectionOf(deps.config, controlConfig);
  const g = createGrid({
    db: deps.db,
    clock: deps.clock,
    sites: c.sites,
    demoModel: c.model,
    decisions: c.decisions,
    registry: deps.services.get(REGISTRY_SITES),
    telemetry: deps.services.get(TELEMETRY_READS),
  });
  return {
    tags: {
      'ems-control': 'EMS control: sites under control, setpoint history, per-site configuration, export limitation events and overrides.',
      grid: 'Grid connection: guardrails from the connection agreement, evaluation, agreement reading, capacity and capacity plans. Sends no device command.',
      decisions: 'The decision log: every control, optimisation and guardrail decision with its inputs, rule and outcome, and replay.',
    },
    errors: CONTROL_ERROR_DOCS,
    operations: controlOperations(c, g),
    background: {
      schedules: [
        { kind: LOOP_KIND, everyMs: LOOP_EVERY_MS, run: async () => void (await c.exportLimit.tick()) },
        // The loop writes an iteration every 30 s per site: idle ones are not kept for ever (decision 0186).
        { kind: 'control.retention', everyMs: 3_600_000, run: async () => void (await c.exportLimit.purgeIdleTicks(settings.idleTickRetentionDays)) },
      ],
    },
  };
};

/** This module as the module list names it. */
export const controlDefinition: ModuleDefinition = {
  name: 'control',
  dependsOn: ['orgs', 'registry', 'telemetry', 'market'],
  migrations: migrationsDir(import.meta.url),
  config: controlConfig,
  provides: (deps, registry) => {
    const { db, clock, cursors } = deps;
    const sitesOfRegistry = registry.get(REGISTRY_SITES);
    const decisions = createDecisionLog({ db, clock, cursors });
    const sites = createSites({ db, clock, registry: sitesOfRegistry });
    const model = createDemoModel({ db, clock, registry: sitesOfRegistry });
    const overrides = createOverrides({ db, clock, cursors, registry: sitesOfRegistry, sites });
    const setpoints = createSetpoints({ db, clock, cursors, decisions, model, overrides });
    const exportLimit = createExportLimitation({
      db,
      work: deps.backgroundDb,
      clock,
      cursors,
      units: deps.jobUnits,
      writer: registry.get(TELEMETRY_WRITER),
      sites,
      model,
      overrides,
      setpoints,
    });
    registry.provide(CONTROL, { decisions, sites, model, overrides, setpoints, exportLimit });
    registry.provide(CONTROL_SETPOINTS, {
      write: (q, orgId, input, actor) => setpoints.writeSetpoint(q, orgId, input, actor),
      overrides: (q, orgId, siteId) => overrides.overridesOn(q, orgId, siteId, clock.now()),
    });
    registry.provide(DECISION_LOG, {
      record: (q, orgId, entry) => decisions.recordDecision(q, orgId, entry),
      registerReplayer: (kind, replay) => void decisions.replayers.set(kind, onRecordedInputs(replay)),
    });
  },
  create: controlModule,
};
