// Connect operations: site onboarding, gateway link and buffer replay, the home-automation
// connector, and the three demo-realm rehearsals.
import { Type } from 'typebox';
import { BEARER, withDefaults, type Operation } from '../../platform/operation.ts';
import { paramsTo, queryTo } from '../../platform/resource.ts';
import type { Onboarding } from './onboarding.ts';
import { TIMINGS_METHOD } from './onboarding.ts';
import type { GatewayLink } from './gateway.ts';
import { STATE_METHOD } from './gateway.ts';
import type { BufferReplay } from './buffer.ts';
import type { HomeAutomation } from './home-automation.ts';
import { PROPOSAL_METHOD } from './templates.ts';
import * as S from './schemas.ts';
import { ErrorResponse } from '../../platform/schema-kit.ts';

const onboarding = ['onboarding'];
const gateway = ['gateway'];
const ha = ['home-automation'];
const live = 'live' as const;

const op = withDefaults({ tags: ha, status: live });

export function connectOperations(o: Onboarding, g: GatewayLink, b: BufferReplay, h: HomeAutomation): Operation[] {
  return [
    // ---- Onboarding ----------------------------------------------------------------------------
    op({
      operationId: 'listSiteTemplates',
      method: 'GET',
      path: '/api/hardware/sites/templates',
      summary: "Site templates: built-in GB shapes and the organisation's own",
      description:
        "Built-in templates (home with PV and battery, home with heat pump, small commercial with PV, depot with chargers) then the organisation's own, each with its slots: the assets a site of that shape has, where each sits in the single-line tree, and the words that tie a reporting device to it.",
      tags: onboarding,
      access: BEARER.read,
      dataBasis: { basis: 'configured' },
      schema: { response: { 200: Type.Object({ templates: Type.Array(S.Template) }) } },
      handler: async ({ ctx }) => ({ templates: await o.templates(ctx) }),
    }),
    op({
      operationId: 'createSiteTemplate',
      method: 'POST',
      path: '/api/hardware/sites/templates',
      summary: 'Add an organisation template',
      description:
        'Slots are made in order; a `parent_slot` must name an earlier slot whose class is an allowed parent (the registry vocabulary). Ids starting with `gb-` are reserved. 409 when the id exists.',
      tags: onboarding,
      access: BEARER.configure,
      schema: { body: S.TemplateBody, response: { 201: S.Template, 409: ErrorResponse } },
      handler: async ({ ctx, body }) => o.addTemplate(ctx, body),
    }),
    op({
      operationId: 'createSiteFromTemplate',
      method: 'POST',
      path: '/api/hardware/sites/from-template',
      summary: 'Create a site from a template and propose the device mapping',
      description:
        'Registers one placeholder asset per slot (`<site>.<slot>`, origin `onboarding`) in the registry, starts the onboarding clock, and proposes which ' +
        'device already reporting telemetry fills each slot, with reasons and a confidence. Optional slots the site lacks go in `omit_slots`. ' +
        '409 when the site already has registered assets. ' +
        PROPOSAL_METHOD,
      tags: onboarding,
      access: BEARER.configure,
      dataBasis: { basis: 'calculated', method: PROPOSAL_METHOD },
      schema: { body: S.FromTemplateBody, response: { 201: S.FromTemplateResponse, 409: ErrorResponse } },
      handler: async ({ ctx, body }) => o.fromTemplate(ctx, body),
    }),
    op({
      operationId: 'listOnboardingRuns',
      method: 'GET',
      path: '/api/hardware/sites/onboarding/runs',
      summary: 'Onboarding runs with timings',
      description:
        'Newest first with cursor paging (filter `site_id`), each with its start, confirmation and elapsed time; `summary` gives median and p90 time to confirm across the organisation.',
      tags: onboarding,
      access: BEARER.read,
      dataBasis: { basis: 'calculated', method: TIMINGS_METHOD },
      schema: queryTo(S.RunsQuery, S.RunsResponse),
      handler: async ({ ctx, query }) => o.runs(ctx, query),
    }),
    op({
      operationId: 'getSiteOnboarding',
      method: 'GET',
      path: '/api/hardware/sites/{site_id}/onboarding',
      summary: 'Latest onboarding run of a site and its confirmed mapping',
      description:
        "The latest run (proposal, clock), the confirmed mapping (null until confirmed) and the site's registered assets with freshness. 404 when the site has no run.",
      tags: onboarding,
      access: BEARER.read,
      dataBasis: { basis: 'stored' },
      schema: paramsTo(S.SiteParams, S.SiteOnboarding),
      handler: async ({ ctx, params }) => o.siteOnboarding(ctx, params.site_id),
    }),
    op({
      operationId: 'confirmSiteMapping',
      method: 'POST',
      path: '/api/hardware/sites/{site_id}/confirm-mapping',
      summary: 'Confirm the device mapping and stop the onboarding clock',
      description:
        "Confirms the proposal as is (no body) or with edits (`mapping`: slots given take the device named, or none with null). Each mapped slot's placeholder " +
        "asset takes the device's id, so its telemetry joins the asset. Required slots need a device. The clock stops and the elapsed time is recorded; " +
        'a second confirmation is 409 `Mapping already confirmed`.',
      tags: onboarding,
      access: BEARER.configure,
      schema: { params: S.SiteParams, body: Type.Optional(S.ConfirmBody), response: { 200: S.Run, 409: ErrorResponse } },
      handler: async ({ ctx, params, body }) => o.confirm(ctx, params.site_id, body ?? {}),
    }),

    // ---- Gateway link ----------------------------------------------------------------------------
    op({
      operationId: 'recordGatewayHeartbeat',
      method: 'POST',
      path: '/api/hardware/ems/comms/{site_id}/heartbeat',
      summary: 'Gateway heartbeat: record last contact, firmware and buffer depth',
      description:
        'Gateways call with a user-style bearer token or a device credential of the site with scope gateway:heartbeat (decision 0375, docs/devices.md). Records the service time as last contact, and firmware, gateway id and buffer depth when sent; ' +
        "`thresholds` sets the site's late and silent thresholds. Production organisations: state is recorded only. Demo realm: a heartbeat resolves an open asset_silence alert. 404 for an unknown site.",
      tags: gateway,
      access: { ...BEARER.ingest, device: { scope: 'gateway:heartbeat', siteParam: 'site_id' } },
      dataBasis: { basis: 'calculated', method: STATE_METHOD },
      schema: { params: S.SiteParams, body: Type.Optional(S.HeartbeatBody), response: { 200: S.GatewayStatus } },
      handler: async ({ ctx, params, body }) => g.heartbeat(ctx, params.site_id, body ?? {}),
    }),
    op({
      operationId: 'getGatewayStatus',
      method: 'GET',
      path: '/api/hardware/ems/comms/{site_id}/status',
      summary: 'Gateway link status: online, late or silent, and why',
      description:
        "Evaluated now from the last heartbeat and the site's thresholds (records nothing); shows whether the watchdog walks this site (demo realm only) and any open asset_silence alert.",
      tags: gateway,
      access: BEARER.read,
      dataBasis: { basis: 'calculated', method: STATE_METHOD },
      schema: paramsTo(S.SiteParams, S.GatewayStatus),
      handler: async ({ ctx, params }) => g.status(ctx, params.site_id),
    }),
    op({
      operationId: 'checkGatewayLink',
      method: 'POST',
      path: '/api/hardware/ems/comms/{site_id}/check',
      summary: 'Evaluate the gateway link now and record the state',
      description:
        'Records the state evaluated now. Demo realm: raises the asset_silence alert when silent and resolves it when online, as the watchdog does. Production organisations: state recorded only.',
      tags: gateway,
      access: BEARER.ingest,
      dataBasis: { basis: 'calculated', method: STATE_METHOD },
      schema: paramsTo(S.SiteParams, S.GatewayStatus),
      handler: async ({ ctx, params }) => g.check(ctx, params.site_id),
    }),
    op({
      operationId: 'replayGatewayBuffer',
      method: 'POST',
      path: '/api/hardware/ems/buffer/{site_id}/replay',
      summary: 'Replay buffered readings as production telemetry, idempotent on (device, sequence) at the site',
      description:
        'Each record is a telemetry record with `sequence`, judged by the ingestion rules (per-record outcome, anomalies) and stored once per (device, sequence) at the site: ' +
        'a replay retried after a timeout, or sent twice at once, stores nothing twice (those records answer `duplicate`). A stored (device, sequence) sent again with a different record ' +
        'is refused per record (`reason: sequence_conflict`), never a duplicate. A `replay_id` already used at the site with different records is 409 with nothing stored. ' +
        '200 when nothing was rejected (stored now or before), 207 when some records were rejected, 422 `all_records_rejected` when all were. `gaps` lists missing sequence runs of the devices sent. ' +
        'A device credential of the site with scope buffer:replay may call it too (decision 0375); one limited to some device ids has the others refused per record (`reason: device_not_in_credential`).',
      tags: gateway,
      access: { ...BEARER.ingest, device: { scope: 'buffer:replay', siteParam: 'site_id' } },
      requestIdHeader: true,
      schema: { params: S.SiteParams, body: S.ReplayBody, response: { 200: S.ReplayResponse, 207: S.ReplayResponse, 409: ErrorResponse } },
      handler: async ({ ctx, params, body, reply }) => {
        const { httpStatus, ...out } = await b.replay(ctx, params.site_id, body);
        reply.code(httpStatus);
        return out;
      },
    }),
    op({
      operationId: 'getBufferStatus',
      method: 'GET',
      path: '/api/hardware/ems/buffer/{site_id}/status',
      summary: 'Buffer replay progress and gaps',
      description:
        "Totals over every replay of the site, readings still buffered (the newer of the last replay's `remaining` and the heartbeat's buffer depth), progress, each device's sequence span and the missing runs.",
      tags: gateway,
      access: BEARER.read,
      dataBasis: { basis: 'stored' },
      schema: paramsTo(S.SiteParams, S.BufferStatus),
      handler: async ({ ctx, params }) => b.status(ctx, params.site_id),
    }),
    op({
      operationId: 'listBufferRows',
      method: 'GET',
      path: '/api/hardware/ems/buffer/{site_id}/rows',
      summary: 'Replayed readings in device and sequence order',
      description: 'Cursor paging (`limit` 1 to 1000, default 100); filter `device_id`.',
      tags: gateway,
      access: BEARER.read,
      dataBasis: { basis: 'stored' },
      schema: { params: S.SiteParams, query: S.RowsQuery, response: { 200: S.RowsResponse } },
      handler: async ({ ctx, params, query }) => b.rows(ctx, params.site_id, query),
    }),

    // ---- Rehearsals (demo realm) -----------------------------------------------------------------
    op({
      operationId: 'rehearseGatewayDrop',
      method: 'POST',
      path: '/api/hardware/ems/comms/{site_id}/rehearse/drop',
      summary: "Rehearsal: silence a demo site's gateway",
      description:
        'Demo realm only (production organisations: 403 `Demo realm only`, nothing recorded). The link is silent from now until restore; the asset_silence alert is raised at once.',
      tags: ['demo'],
      status: 'demo-realm',
      access: BEARER.configure,
      dataBasis: { basis: 'simulated', method: 'The gateway link is marked dropped; heartbeats received meanwhile are recorded but do not bring it back.' },
      schema: paramsTo(S.SiteParams, S.GatewayStatus),
      handler: async ({ ctx, params }) => g.drop(ctx, params.site_id),
    }),
    op({
      operationId: 'rehearseGatewayRestore',
      method: 'POST',
      path: '/api/hardware/ems/comms/{site_id}/rehearse/restore',
      summary: "Rehearsal: bring a demo site's gateway back",
      description: 'Demo realm only. Clears the drop and records a heartbeat now; the asset_silence alert resolves.',
      tags: ['demo'],
      status: 'demo-realm',
      access: BEARER.configure,
      dataBasis: { basis: 'simulated', method: 'A synthetic heartbeat at the service time ends the rehearsal drop.' },
      schema: paramsTo(S.SiteParams, S.GatewayStatus),
      handler: async ({ ctx, params }) => g.restore(ctx, params.site_id),
    }),
    op({
      operationId: 'rehearseBufferReplay',
      method: 'POST',
      path: '/api/hardware/ems/buffer/{site_id}/rehearse',
      summary: 'Rehearsal: replay synthetic buffered data',
      description:
        "Demo realm only. Generates buffered readings for the site's devices (up to ten; a synthetic meter when none), replays the first half as an interrupted upload " +
        'and then the whole set as its retry, through the same replay path: each reading is stored exactly once.',
      tags: ['demo'],
      status: 'demo-realm',
      access: BEARER.configure,
      dataBasis: {
        basis: 'simulated',
        method: "Synthetic power readings (0.4 to 1.6 kW sine per device) at a fixed interval ending now, sequences continuing each device's stored ones.",
      },
      schema: { params: S.SiteParams, body: Type.Optional(S.BufferRehearseBody), response: { 200: S.BufferRehearseResponse } },
      handler: async ({ ctx, params, body }) => b.rehearse(ctx, params.site_id, body ?? {}),
    }),

    // ---- Home-automation connector -----------------------------------------------------------------
    op({
      operationId: 'getConnectorMapping',
      method: 'GET',
      path: '/api/telemetry/connectors/home-automation/v1/sites/{site_id}/mapping',
      summary: 'Connector: read the site mapping',
      description: `API key with a read scope (telemetry:read recommended). The confirmed entity-to-asset mapping the connector applies, and any proposal awaiting a person. ${S.READ_ONLY}`,
      access: { kind: 'key', scope: 'read' },
      requestIdHeader: true,
      dataBasis: { basis: 'configured' },
      schema: paramsTo(S.SiteParams, S.ConnectorMapping),
      handler: async ({ ctx, params }) => h.connectorMapping(ctx, params.site_id),
    }),
    op({
      operationId: 'reportConnectorEntities',
      method: 'POST',
      path: '/api/telemetry/connectors/home-automation/v1/sites/{site_id}/report',
      summary: 'Connector: report the entities it sees',
      description: `API key with telemetry:write. Records the entities (ids, device classes, units) and, unless a mapping is confirmed, proposes one against the site's registered assets. ${S.READ_ONLY}`,
      access: { kind: 'key', scope: 'telemetry:write' },
      requestIdHeader: true,
      schema: { params: S.SiteParams, body: S.ReportBody, response: { 200: S.ReportResponse } },
      handler: async ({ ctx, params, body }) => h.report(ctx, params.site_id, body),
    }),
    op({
      operationId: 'postConnectorTelemetry',
      method: 'POST',
      path: '/api/telemetry/connectors/home-automation/v1/sites/{site_id}/telemetry',
      summary: 'Connector: post readings and connector health',
      description:
        'API key with telemetry:write. Readings of mapped entities are converted to the canonical units (W→kW, Wh→kWh, °F/K→°C) with the power sign applied and stored as telemetry ' +
        "(one record per asset and ts, through the ingestion rules); readings of unmapped entities and the health are kept in the raw of the connector's own record. " +
        S.READ_ONLY,
      access: { kind: 'key', scope: 'telemetry:write' },
      requestIdHeader: true,
      schema: { params: S.SiteParams, body: S.HaTelemetryBody, response: { 200: S.HaTelemetryResponse } },
      handler: async ({ ctx, params, body }) => h.telemetry(ctx, params.site_id, body),
    }),
    op({
      operationId: 'listConnectorSites',
      method: 'GET',
      path: '/api/telemetry/connectors/home-automation/sites',
      summary: 'Sites with a home-automation connector',
      description: `Each site the connector has reported or sent readings for, with mapping status and link state. ${S.READ_ONLY}`,
      access: BEARER.read,
      requestIdHeader: true,
      dataBasis: { basis: 'stored' },
      schema: { response: { 200: S.HaSites } },
      handler: async ({ ctx }) => h.sites(ctx),
    }),
    op({
      operationId: 'getConnectorSite',
      method: 'GET',
      path: '/api/telemetry/connectors/home-automation/sites/{site_id}',
      summary: 'One connector site: entities, mapping, counters',
      description: `404 when the connector has not reported for the site. ${S.READ_ONLY}`,
      access: BEARER.read,
      requestIdHeader: true,
      dataBasis: { basis: 'stored' },
      schema: paramsTo(S.SiteParams, S.HaSite),
      handler: async ({ ctx, params }) => h.site(ctx, params.site_id),
    }),
    op({
      operationId: 'getConnectorHealth',
      method: 'GET',
      path: '/api/telemetry/connectors/home-automation/sites/{site_id}/health',
      summary: 'Connector health',
      description:
        'Link state from the last telemetry (late after 10 minutes, silent after an hour), the health the connector last stated, and reading counters.',
      access: BEARER.read,
      requestIdHeader: true,
      dataBasis: {
        basis: 'calculated',
        method: 'online while the last connector telemetry is at most 600 s old, late until 3600 s, silent after; on the service clock.',
      },
      schema: paramsTo(S.SiteParams, S.HaHealth),
      handler: async ({ ctx, params }) => h.health(ctx, params.site_id),
    }),
    op({
      operationId: 'putConnectorMapping',
      method: 'PUT',
      path: '/api/telemetry/connectors/home-automation/sites/{site_id}/mapping',
      summary: 'Confirm or edit the connector mapping',
      description: `No entries: confirm the proposal as is (409 when there is none). With entries: the mapping becomes exactly these (assets must be registered at the site; units must measure the measurement). ${S.READ_ONLY}`,
      access: BEARER.configure,
      requestIdHeader: true,
      schema: { params: S.SiteParams, body: Type.Optional(S.PutMappingBody), response: { 200: S.HaSite, 409: ErrorResponse } },
      handler: async ({ ctx, params, body }) => h.putMapping(ctx, params.site_id, body ?? {}),
    }),
    op({
      operationId: 'deleteConnectorMapping',
      method: 'DELETE',
      path: '/api/telemetry/connectors/home-automation/sites/{site_id}/mapping',
      summary: 'Withdraw the connector mapping',
      description: `Readings are then kept in raw of the connector record only, until a mapping is confirmed again. Stored telemetry is kept. ${S.READ_ONLY}`,
      access: BEARER.configure,
      requestIdHeader: true,
      schema: paramsTo(S.SiteParams, S.HaSite),
      handler: async ({ ctx, params }) => h.deleteMapping(ctx, params.site_id),
    }),
  ];
}
