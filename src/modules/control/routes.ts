// Control, grid connection and decision-log operations, and the five demo-realm control operations
// (endpoints.md 4.6 and 4.10).
import { BEARER, withDefaults, type Operation } from '../../platform/operation.ts';
import { paramsTo, queryTo, bodyTo, bodyToCreated } from '../../platform/resource.ts';
import type { DecisionLogService } from './decisions.ts';
import type { DemoModel } from './demo-model.ts';
import type { ExportLimitation } from './export-limit.ts';
import { LOOP_DESCRIPTION } from './model.ts';
import type { Overrides } from './overrides.ts';
import type { Setpoints } from './setpoints.ts';
import type { Sites } from './sites.ts';
import type { Grid } from './grid.ts';
import { CAPACITY_METHOD, PLAN_METHOD } from './grid.ts';
import * as S from './schemas.ts';

const control = ['ems-control'];
const grid = ['grid'];
const decisions = ['decisions'];
const demo = ['demo'];
const live = 'live' as const;
const DEMO_ONLY = 'Demo realm only: production organisations get 403 `Demo realm only` and nothing is recorded.';

/** Control's services, one a sub-domain (index.ts wires them). */
export interface ControlServices {
  decisions: DecisionLogService;
  sites: Sites;
  model: DemoModel;
  overrides: Overrides;
  setpoints: Setpoints;
  exportLimit: ExportLimitation;
}

const op = withDefaults({ tags: control, status: live, access: BEARER.read });
const demoOp = withDefaults({ tags: demo, status: 'demo-realm', access: BEARER.read });
const gridOp = withDefaults({ tags: grid, status: live, access: BEARER.read });
const decisionOp = withDefaults({ tags: decisions, status: live, access: BEARER.read });

export function controlOperations(c: ControlServices, g: Grid): Operation[] {
  return [
    // ---- Demo realm -----------------------------------------------------------------------------
    demoOp({
      operationId: 'writeVerifiedSetpoint',
      method: 'POST',
      path: '/api/hardware/ems/control/setpoints',
      summary: 'Verified setpoint write (synthetic demo devices)',
      description:
        `${DEMO_ONLY} Sends the command to the device, records its answer, reads the device's measured state back independently after the settle time and answers the verdict: ` +
        '`verified`, `readback_mismatch` (accepted, not applied), `unconfirmed` (no answer) or `rejected`. Every write is recorded in the decision log. ' +
        'It acts on the synthetic device model only; there is no real-device adapter behind it. 404 for an unknown device, 422 for a device that takes no setpoint or a value out of its range.',
      access: BEARER.configure,
      dataBasis: {
        basis: 'simulated',
        method:
          'The device model is stepped to the service time; read-back evaluates the model at commanded_at + settle_seconds against the model with the command applied, within 0.05 kW.',
      },
      schema: bodyTo(S.SetpointBody, S.SetpointResult),
      handler: async ({ ctx, body }) => c.setpoints.setpoint(ctx, body),
    }),
    demoOp({
      operationId: 'setDemoDeviceBehaviour',
      method: 'POST',
      path: '/api/hardware/ems/control/demo/devices/{device_id}/behaviour',
      summary: "Switch a synthetic device's failure behaviour",
      description: `${DEMO_ONLY} normal (applies a command at once), ignores (accepts, does not apply), unreachable (does not answer), rejects (refuses), slow (applies 60 s after accepting). 404 for an unknown device.`,
      access: BEARER.configure,
      dataBasis: { basis: 'simulated', method: "The device's behaviour in the synthetic model; its measured power now is shown." },
      schema: { params: S.DeviceParams, body: S.BehaviourBody, response: { 200: S.BehaviourResponse } },
      handler: async ({ ctx, params, body }) => c.model.behaviour(ctx, params.device_id, body.behaviour),
    }),
    demoOp({
      operationId: 'getSiteBalance',
      method: 'GET',
      path: '/api/hardware/ems/control/sites/{site_id}/balance',
      summary: 'Boundary meter reading of the device model',
      description: `${DEMO_ONLY} Each synthetic device's measured power now and the boundary meter: load + battery charge + EV - PV - battery discharge. 404 when the site has no model (POST its scenario first).`,
      dataBasis: {
        basis: 'simulated',
        method: 'The synthetic model stepped to the service time (battery state of charge integrated); the boundary is the sum of device powers.',
      },
      schema: paramsTo(S.SiteParams, S.Balance),
      handler: async ({ ctx, params }) => c.model.balance(ctx, params.site_id),
    }),
    demoOp({
      operationId: 'setDemoSiteScenario',
      method: 'POST',
      path: '/api/hardware/ems/control/demo/sites/{site_id}/scenario',
      summary: 'Set simulated site load and available PV',
      description:
        `${DEMO_ONLY} Creates the site's synthetic model on first use (load, PV inverter, battery, EV charger, boundary meter; registered assets of the site lend their ids to the inverter, ` +
        'battery, charger and meter) and sets load and available PV from now on. Answers the balance.',
      access: BEARER.configure,
      dataBasis: { basis: 'simulated', method: 'The model is stepped to now under the old scenario, then the new one applies.' },
      schema: { params: S.SiteParams, body: S.ScenarioBody, response: { 200: S.Balance } },
      handler: async ({ ctx, params, body }) => c.model.scenario(ctx, params.site_id, body),
    }),
    demoOp({
      operationId: 'runExportLimit',
      method: 'POST',
      path: '/api/hardware/ems/export-limit/{site_id}/run',
      summary: 'Run one export limitation iteration',
      description:
        `${DEMO_ONLY} One iteration now, as the 30 s loop does: read the boundary meter; above the limit less margin, charge the battery harder, then curtail PV; well under it, ` +
        'give curtailment back. Commands go through the verified write; an active override on the site means nothing is sent. Recorded as an event and a decision. ' +
        `404 without a device model; 409 \`Export limitation not configured for this site\` without a limit. ${LOOP_DESCRIPTION}`,
      access: BEARER.configure,
      dataBasis: { basis: 'simulated', method: 'Boundary measured on the synthetic model at the service time, before and after the commands.' },
      schema: paramsTo(S.SiteParams, S.ExportEvent),
      handler: async ({ ctx, params }) => c.exportLimit.run(ctx, params.site_id),
    }),

    // ---- EMS control ------------------------------------------------------------------------------
    op({
      operationId: 'listControlSites',
      method: 'GET',
      path: '/api/hardware/ems/control/sites',
      summary: 'Sites under control',
      description:
        'Sites with a device model or a control configuration: export limitation, connection agreement, active overrides, last setpoint and last loop event.',
      dataBasis: { basis: 'stored' },
      schema: { response: { 200: S.ControlSites } },
      handler: async ({ ctx }) => c.sites.sites(ctx),
    }),
    op({
      operationId: 'listControlSetpoints',
      method: 'GET',
      path: '/api/hardware/ems/control/setpoints',
      summary: 'Setpoint history',
      description: 'Every verified write, newest first, with its verdict; filter by site, device or verdict.',
      dataBasis: { basis: 'stored' },
      schema: queryTo(S.SetpointsQuery, S.SetpointsPage),
      handler: async ({ ctx, query }) => c.setpoints.setpoints(ctx, query),
    }),
    op({
      operationId: 'getControlSiteConfig',
      method: 'GET',
      path: '/api/hardware/ems/control/sites/{site_id}/config',
      summary: "A site's control configuration",
      description:
        'Export limitation (limit, margin), settle time of the verified write, the grid connection agreement, and whether the loop runs here. Defaults with configured=false before any PUT. 404 for an unknown site.',
      dataBasis: { basis: 'configured' },
      schema: paramsTo(S.SiteParams, S.SiteConfig),
      handler: async ({ ctx, params }) => c.sites.config(ctx, params.site_id),
    }),
    op({
      operationId: 'putControlSiteConfig',
      method: 'PUT',
      path: '/api/hardware/ems/control/sites/{site_id}/config',
      summary: "Set a site's control configuration",
      description:
        "Members left out keep their value. The export limit must not exceed the connection agreement's export limit (422). Production organisations: recorded, no loop runs. 404 for an unknown site.",
      access: BEARER.configure,
      dataBasis: { basis: 'configured' },
      schema: { params: S.SiteParams, body: S.ConfigBody, response: { 200: S.SiteConfig } },
      handler: async ({ ctx, params, body }) => c.sites.putConfig(ctx, params.site_id, body),
    }),
    op({
      operationId: 'listExportLimitEvents',
      method: 'GET',
      path: '/api/hardware/ems/export-limit/{site_id}/events',
      summary: 'Export limitation actions and outcomes',
      description: `Each iteration (scheduled or on demand), newest first: boundary before and after, the commands and their verdicts, the outcome. ${LOOP_DESCRIPTION} 404 for an unknown site.`,
      dataBasis: { basis: 'stored' },
      schema: { params: S.SiteParams, query: S.PageOnly, response: { 200: S.EventsPage } },
      handler: async ({ ctx, params, query }) => c.exportLimit.events(ctx, params.site_id, query),
    }),
    op({
      operationId: 'listOverrides',
      method: 'GET',
      path: '/api/hardware/ems/overrides',
      summary: 'Overrides',
      description: 'Newest first; status active, revoked or expired (an override expires by itself at expires_at).',
      dataBasis: { basis: 'stored' },
      schema: queryTo(S.OverridesQuery, S.OverridesPage),
      handler: async ({ ctx, query }) => c.overrides.overrides(ctx, query),
    }),
    op({
      operationId: 'createOverride',
      method: 'POST',
      path: '/api/hardware/ems/overrides',
      summary: 'Place an override',
      description:
        'Holds a site (or one device) against automatic control until it expires or is revoked: while active, the export limitation loop and optimiser dispatch send it nothing ' +
        '(a manual verified write still acts). Carries a reason, an authority and an expiry (in the future, at most 7 days ahead). 404 for an unknown site.',
      access: BEARER.configure,
      schema: bodyToCreated(S.OverrideBody, S.Override),
      handler: async ({ ctx, body }) => c.overrides.createOverride(ctx, body),
    }),
    op({
      operationId: 'revokeOverride',
      method: 'POST',
      path: '/api/hardware/ems/overrides/{override_id}/revoke',
      summary: 'Revoke an override',
      description: 'Records who revoked it and why. 409 `Override not active: <status>` when already revoked or expired; 404 for an unknown override.',
      access: BEARER.configure,
      schema: { params: S.OverrideParams, body: S.RevokeBody, response: { 200: S.Override } },
      handler: async ({ ctx, params, body }) => c.overrides.revokeOverride(ctx, params.override_id, body.reason),
    }),

    // ---- Grid connection ----------------------------------------------------------------------------
    gridOp({
      operationId: 'getGridGuardrails',
      method: 'GET',
      path: '/api/hardware/ems/grid/sites/{site_id}/guardrails',
      summary: 'Grid guardrails of a site',
      description:
        "From the connection agreement in the site's control configuration: import limit, export limit and, for G98, the 16 A per phase generation limit. Sends no device command. 404 for an unknown site.",
      dataBasis: { basis: 'configured' },
      schema: paramsTo(S.SiteParams, S.Guardrails),
      handler: async ({ ctx, params }) => g.guardrails(ctx, params.site_id),
    }),
    gridOp({
      operationId: 'evaluateGridGuardrails',
      method: 'POST',
      path: '/api/hardware/ems/grid/sites/{site_id}/guardrails/evaluate',
      summary: 'Evaluate a plan or setpoint against the guardrails',
      description:
        'A plan (intervals of boundary power and generation) or a setpoint (projected on the demo device model) checked against each guardrail; recorded as a guardrail decision. ' +
        'Sends no device command. 409 `No grid connection agreement for this site` without an agreement; 404 for an unknown site.',
      dataBasis: {
        basis: 'calculated',
        method: 'Import = max(0, boundary), export = max(0, -boundary) and generation compared with each limit; excess = value - limit.',
      },
      schema: { params: S.SiteParams, body: S.EvaluateBody, response: { 200: S.Evaluation } },
      handler: async ({ ctx, params, body }) => g.evaluate(ctx, params.site_id, body),
    }),
    gridOp({
      operationId: 'readGridAgreement',
      method: 'POST',
      path: '/api/hardware/ems/grid/agreements/read',
      summary: "Extract limits from an agreement's stated fields",
      description:
        'Reads import and export limits, G98/G99 category, phases and reference from the fields as stated, showing which field gave each value and which were not used. Stores nothing.',
      dataBasis: { basis: 'calculated', method: "Field-name matching and unit conversion as the answer's method member says." },
      schema: bodyTo(S.ReadBody, S.ReadResult),
      handler: async ({ body }) => g.read(body),
    }),
    gridOp({
      operationId: 'confirmGridAgreement',
      method: 'POST',
      path: '/api/hardware/ems/grid/agreements/confirm',
      summary: 'What would be stored for an agreement (not saved)',
      description:
        'Returns the connection that would be stored for the site, what changes against the current one, its guardrails and warnings. Not saved (stored=false); store it with PUT .../control/sites/{site_id}/config. 404 for an unknown site.',
      dataBasis: {
        basis: 'calculated',
        method: 'The connection as sent, compared member by member with the stored one; guardrails derived as GET .../guardrails does. Nothing is saved.',
      },
      schema: bodyTo(S.ConfirmBody, S.ConfirmResult),
      handler: async ({ ctx, body }) => g.confirm(ctx, body),
    }),
    gridOp({
      operationId: 'getGridCapacity',
      method: 'GET',
      path: '/api/hardware/ems/grid/sites/{site_id}/capacity',
      summary: 'Import capacity and headroom by half hour',
      description: "Measured peak import per UK wall-clock half hour over the last 28 days against the agreement's import limit. 404 for an unknown site.",
      dataBasis: { basis: 'measured', method: CAPACITY_METHOD },
      schema: paramsTo(S.SiteParams, S.Capacity),
      handler: async ({ ctx, params }) => g.capacity(ctx, params.site_id),
    }),
    gridOp({
      operationId: 'planGridCapacity',
      method: 'POST',
      path: '/api/hardware/ems/grid/sites/{site_id}/capacity/plan',
      summary: 'Capacity plan for added load',
      description:
        'Headroom by settlement period of a UK date with load added in a wall-clock window, from the measured peaks. 409 without a connection agreement; 404 for an unknown site.',
      dataBasis: { basis: 'calculated', method: PLAN_METHOD },
      schema: { params: S.SiteParams, body: S.PlanBody, response: { 200: S.CapacityPlan } },
      handler: async ({ ctx, params, body }) => g.plan(ctx, params.site_id, body),
    }),

    // ---- Decision log -------------------------------------------------------------------------------
    decisionOp({
      operationId: 'listDecisions',
      method: 'GET',
      path: '/api/hardware/ems/decisions',
      summary: 'Decision log',
      description: 'Every control, optimisation and guardrail decision, newest first, with its inputs, the rule that produced it and its outcome.',
      dataBasis: { basis: 'stored' },
      schema: queryTo(S.DecisionsQuery, S.DecisionsPage),
      handler: async ({ ctx, query }) => c.decisions.decisions(ctx, query),
    }),
    decisionOp({
      operationId: 'getDecision',
      method: 'GET',
      path: '/api/hardware/ems/decisions/{decision_id}',
      summary: 'One decision',
      description: '404 for an unknown decision.',
      dataBasis: { basis: 'stored' },
      schema: paramsTo(S.DecisionParams, S.Decision),
      handler: async ({ ctx, params }) => c.decisions.decision(ctx, params.decision_id),
    }),
    decisionOp({
      operationId: 'replayDecision',
      method: 'POST',
      path: '/api/hardware/ems/decisions/{decision_id}/replay',
      summary: 'Replay a decision on its recorded inputs',
      description:
        "Re-runs the rule on the recorded inputs with today's code and shows whether it decides the same, and where it differs. Records nothing and sends nothing. 404 for an unknown decision.",
      dataBasis: { basis: 'calculated', method: 'The recorded inputs through the current rule; outputs compared member by member.' },
      schema: paramsTo(S.DecisionParams, S.Replay),
      handler: async ({ ctx, params }) => c.decisions.replay(ctx, params.decision_id),
    }),
  ];
}
