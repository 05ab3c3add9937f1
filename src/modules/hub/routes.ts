// Hub operations (endpoints.md 4.6, base /api/csms/api/hub).
import { Type } from 'typebox';
import { BEARER, withDefaults, type Operation } from '../../platform/operation.ts';
import { type ResourceHead, resourceOps } from '../../platform/resource.ts';
import type { HubService } from './service.ts';
import { LOAD_SHARING_METHOD } from './service.ts';
import { COMMANDS } from './services/commands.ts';
import { COST_METHOD, QUOTE_METHOD } from './tariff.ts';
import { COMPLIANCE_METHOD, RELIABILITY_METHOD } from './pcpr.ts';
import * as S from './schemas.ts';

const BASE = '/api/csms/api/hub';
const SITES: ResourceHead = { name: 'HubSite', path: `${BASE}/sites`, id: 'site_id', params: S.SiteIdParam, item: S.Site };
const ID_TOKENS: ResourceHead = { name: 'HubIdToken', path: `${BASE}/id-tokens`, id: 'id_token', params: S.IdTokenParam, item: S.IdToken };
const op = withDefaults({ tags: ['hub'], status: 'live', access: BEARER.read, dataBasis: { basis: 'configured' } });

/** One operation per command of the table (services/commands.ts): the same machinery, each its own body. */
function commandOperations(h: HubService): Operation[] {
  return COMMANDS.map((e) =>
    op({
      operationId: e.operationId,
      method: 'POST',
      path: `${BASE}/charge-points/{charge_point_id}/commands/${e.name}`,
      summary: e.summary,
      description:
        `${e.description} Sent over the charger's live connection (through the instance holding it) and answered when the charger answers or after ` +
        'HUB_COMMAND_TIMEOUT_MS (status timeout); stored as a command (GET /commands/{command_id}) and audited. 409 `Charge point not connected` when it has no connection (stored as offline).',
      access: BEARER.configure,
      dataBasis: { basis: 'measured' },
      schema: { params: S.CpIdParam, body: e.body, response: { 201: e.response ?? S.Command, 404: S.ErrorBody, 409: S.ErrorBody } },
      handler: async ({ ctx, params, body }) => h.sendCommand(ctx, params.charge_point_id, e, body),
    }),
  );
}

export function hubOperations(h: HubService): Operation[] {
  return [
    ...commandOperations(h),
    op({
      operationId: 'listHubCommands',
      method: 'GET',
      path: `${BASE}/charge-points/{charge_point_id}/commands`,
      summary: "A charge point's commands",
      description: 'Every command sent to the charger (or refused as offline), newest first, with its status and answer; cursor paging.',
      dataBasis: { basis: 'measured' },
      schema: { params: S.CpIdParam, query: S.CommandsQuery, response: { 200: S.CommandsPage, 404: S.ErrorBody } },
      handler: async ({ ctx, params, query }) => h.listCommands(ctx, params.charge_point_id, query),
    }),
    op({
      operationId: 'getHubCommand',
      method: 'GET',
      path: `${BASE}/commands/{command_id}`,
      summary: 'One command and its result',
      description: "The command's parameters, the OCPP CALL sent, its status and the charger's answer.",
      dataBasis: { basis: 'measured' },
      schema: { params: S.CommandIdParam, response: { 200: S.Command, 404: S.ErrorBody } },
      handler: async ({ ctx, params }) => h.getCommand(ctx, params.command_id),
    }),
    ...resourceOps(op, SITES, {
      list: {
        summary: 'Charging hub sites',
        description: "The organisation's public charging sites, newest first, with cursor paging.",
        query: S.SitesQuery,
        response: S.SitesPage,
        handler: (ctx, query) => h.listSites(ctx, query),
      },
      create: {
        summary: 'Add a charging hub site',
        description:
          'A public charging site: name, address, the power its chargers share (`capacity_kw`), and the facts PCPR 2023 compliance rests on (helpline, open data URL, roaming). `site_id` is made when absent; 409 when it exists.',
        access: BEARER.configure,
        body: S.SiteCreateBody,
        errors: { 409: S.ErrorBody },
        handler: (ctx, body) => h.createSite(ctx, body),
      },
      get: {
        summary: 'One charging hub site with its charge points',
        description: "The site, and each charge point with its connection, last boot and heartbeat, and each connector's last status (OCPP and OCPI terms).",
        dataBasis: { basis: 'measured' },
        response: S.SiteDetail,
        errors: { 404: S.ErrorBody },
        handler: (ctx, id) => h.getSite(ctx, id),
      },
      update: {
        summary: "Replace a charging hub site's details",
        description: 'The whole site: members left out become null. Charge points and price schedules are untouched.',
        access: BEARER.configure,
        method: 'PUT',
        verb: 'replace',
        body: S.SitePutBody,
        errors: { 404: S.ErrorBody },
        handler: (ctx, id, body) => h.putSite(ctx, id, body),
      },
    }),
    op({
      operationId: 'registerHubChargePoint',
      method: 'POST',
      path: `${BASE}/sites/{site_id}/charge-points`,
      summary: 'Register a charge point at a site',
      description:
        'Registers the charger (and its asset in the registry: meter values become its telemetry) and answers with its OCPP endpoint, its charge point id and ' +
        'its HTTP Basic password, shown this once: only a hash is kept. The endpoint is wss:// when the OCPP TLS listener is configured. `security_profile` (default 1) is the profile it must connect at ' +
        "(2: TLS and the password; 3: a client certificate from the organisation's charger CA, 409 `no_charger_ca` without one). The charger connects with subprotocol `ocpp1.6` or `ocpp2.0.1`. " +
        '409 when the charge point id (or an asset of that id) exists.',
      access: BEARER.configure,
      schema: { params: S.SiteIdParam, body: S.ChargePointBody, response: { 201: S.ChargePointCreated, 404: S.ErrorBody, 409: S.ErrorBody } },
      handler: async ({ ctx, params, body }) => h.registerChargePoint(ctx, params.site_id, body),
    }),
    op({
      operationId: 'listHubPriceSchedules',
      method: 'GET',
      path: `${BASE}/sites/{site_id}/price-schedules`,
      summary: "A site's price schedule versions",
      description: 'Every version, newest first, draft or published, and the version in force now (the one published most recently).',
      schema: { params: S.SiteIdParam, response: { 200: S.ScheduleList, 404: S.ErrorBody } },
      handler: async ({ ctx, params }) => h.listSchedules(ctx, params.site_id),
    }),
    op({
      operationId: 'createHubPriceSchedule',
      method: 'POST',
      path: `${BASE}/sites/{site_id}/price-schedules`,
      summary: 'Add a draft price schedule version',
      description:
        'A draft (not shown to drivers) with the next version number: energy p/kWh ex VAT, optional time-of-day bands (UK local wall clock, no overlaps), ' +
        'per-minute, connection and overstay fees (with grace minutes) and the VAT rate (default 20). Publish it to put it in force.',
      access: BEARER.configure,
      schema: { params: S.SiteIdParam, body: S.ScheduleBody, response: { 201: S.Schedule, 404: S.ErrorBody } },
      handler: async ({ ctx, params, body }) => h.createSchedule(ctx, params.site_id, body),
    }),
    op({
      operationId: 'publishHubPriceSchedule',
      method: 'POST',
      path: `${BASE}/sites/{site_id}/price-schedules/{version}/publish`,
      summary: 'Publish a price schedule version',
      description: 'Makes the draft the schedule drivers see from now on. A published version is never edited: 409 when it is already published.',
      access: BEARER.configure,
      schema: { params: S.PublishParams, response: { 200: S.Schedule, 404: S.ErrorBody, 409: S.ErrorBody } },
      handler: async ({ ctx, params }) => h.publish(ctx, params.site_id, params.version),
    }),
    op({
      operationId: 'quoteHubSession',
      method: 'GET',
      path: `${BASE}/sites/{site_id}/quote`,
      summary: 'Price a stated session ahead',
      description:
        'The cost of a stated session (energy, minutes connected, start, overstay) under the published schedule, line by line, with VAT. 409 when nothing is published. ' +
        QUOTE_METHOD,
      dataBasis: { basis: 'calculated', method: QUOTE_METHOD },
      schema: { params: S.SiteIdParam, query: S.QuoteQuery, response: { 200: S.Quote, 404: S.ErrorBody, 409: S.ErrorBody } },
      handler: async ({ ctx, params, query }) => h.quote(ctx, params.site_id, query),
    }),
    op({
      operationId: 'listHubTransactions',
      method: 'GET',
      path: `${BASE}/sites/{site_id}/transactions`,
      summary: "A site's charging transactions",
      description: "Transactions the site's chargers reported over OCPP, newest start first, with cursor paging; open ones have no stop yet.",
      dataBasis: { basis: 'measured' },
      schema: { params: S.SiteIdParam, query: S.TxQuery, response: { 200: S.TxPage, 404: S.ErrorBody } },
      handler: async ({ ctx, params, query }) => h.transactions(ctx, params.site_id, query),
    }),
    op({
      operationId: 'getHubTransactionCost',
      method: 'GET',
      path: `${BASE}/transactions/{transaction_id}/cost`,
      summary: 'The cost of one transaction',
      description:
        'From its metered energy and times under the schedule in force when it started, line by line, decimal money with VAT shown. An open transaction is costed so far. ' +
        COST_METHOD,
      dataBasis: { basis: 'calculated', method: COST_METHOD },
      schema: { params: S.TxParams, response: { 200: S.Cost, 404: S.ErrorBody, 409: S.ErrorBody } },
      handler: async ({ ctx, params }) => h.cost(ctx, params.transaction_id),
    }),
    op({
      operationId: 'getHubSiteReliability',
      method: 'GET',
      path: `${BASE}/sites/{site_id}/reliability`,
      summary: 'Reliability per connector and per site (rolling 12 months)',
      description: 'From connector status history, with the PCPR 2023 99% target for rapid charge points stated beside the figure. ' + RELIABILITY_METHOD,
      dataBasis: { basis: 'calculated', method: RELIABILITY_METHOD },
      schema: { params: S.SiteIdParam, response: { 200: S.Reliability, 404: S.ErrorBody } },
      handler: async ({ ctx, params }) => h.reliability(ctx, params.site_id),
    }),
    op({
      operationId: 'getHubSiteCompliance',
      method: 'GET',
      path: `${BASE}/sites/{site_id}/compliance`,
      summary: "PCPR 2023 compliance of a site's charge points",
      description:
        'Each duty (contactless, pence per kWh shown, 99% rapid reliability, 24/7 helpline, open data, roaming): met, not_met, not_known or not_applicable, with the evidence. ' +
        COMPLIANCE_METHOD,
      dataBasis: { basis: 'calculated', method: COMPLIANCE_METHOD },
      schema: { params: S.SiteIdParam, response: { 200: S.Compliance, 404: S.ErrorBody } },
      handler: async ({ ctx, params }) => h.compliance(ctx, params.site_id),
    }),
    op({
      operationId: 'shareHubSiteLoad',
      method: 'POST',
      path: `${BASE}/sites/{site_id}/load-sharing`,
      summary: "Split a site's capacity across active sessions (demo realm only)",
      description:
        "Sends SetChargingProfile to each charger with an open transaction, wherever it is connected (through the instance that holds it), and answers with each limit and the charger's answer. " +
        '403 `Demo realm only` outside demo organisations. ' +
        LOAD_SHARING_METHOD,
      access: BEARER.configure,
      dataBasis: { basis: 'calculated', method: LOAD_SHARING_METHOD },
      schema: { params: S.SiteIdParam, body: S.LoadSharingBody, response: { 200: S.LoadSharing, 403: S.ErrorBody, 404: S.ErrorBody, 409: S.ErrorBody } },
      handler: async ({ ctx, params, body }) => h.loadSharing(ctx, params.site_id, body),
    }),
    ...resourceOps(op, ID_TOKENS, {
      list: {
        summary: "The organisation's id tokens",
        description:
          'The tokens chargers are answered from in Authorize, StartTransaction (1.6) and TransactionEvent (2.0.1), in token order (case-insensitive), with cursor paging. ' +
          'A token not here is answered Invalid (1.6) or Unknown (2.0.1), except at a free vend site.',
        query: S.IdTokensQuery,
        response: S.IdTokensPage,
        handler: (ctx, query) => h.listIdTokens(ctx, query),
      },
      create: {
        summary: 'Add an id token',
        description:
          "An RFID card, app id or ISO 15118 contract id (eMAID) that may charge at the organisation's sites: status (default accepted), expiry, group (1.6 parentIdTag, 2.0.1 groupIdToken). " +
          'Matched case-insensitively, as OCPP compares id tokens; 409 when the token exists in any letter case. Audited.',
        access: BEARER.configure,
        body: S.IdTokenCreateBody,
        errors: { 409: S.ErrorBody },
        handler: (ctx, body) => h.createIdToken(ctx, body),
      },
      get: { summary: 'One id token', description: 'Found in any letter case.', errors: { 404: S.ErrorBody }, handler: (ctx, id) => h.getIdToken(ctx, id) },
      update: {
        summary: 'Change an id token',
        description:
          'Status, expiry, group, type or note; members left out stay as they are, null clears expiry, group or note. The next Authorize or transaction start is answered from it. Audited.',
        access: BEARER.configure,
        body: S.IdTokenPatchBody,
        errors: { 404: S.ErrorBody },
        handler: (ctx, id, body) => h.updateIdToken(ctx, id, body),
      },
      remove: {
        summary: 'Remove an id token',
        description: 'From then on the token is unknown (answered Invalid in 1.6, Unknown in 2.0.1). Sessions it started keep their record. Audited.',
        access: BEARER.configure,
        deleted: 'Removed',
        errors: { 404: S.ErrorBody },
        handler: (ctx, id) => h.deleteIdToken(ctx, id),
      },
    }),
    op({
      operationId: 'setHubChargePointSecurityProfile',
      method: 'PUT',
      path: `${BASE}/charge-points/{charge_point_id}/security-profile`,
      summary: 'Set the OCPP security profile a charger must connect at',
      description:
        '1: HTTP Basic (ws:// or wss://); 2: HTTP Basic over TLS (wss://: the TLS listener, or TLS ended by a proxy in TRUST_PROXY that sends X-Forwarded-Proto https); ' +
        "3: TLS with a client certificate issued by the organisation's charger CA whose subject CN is the charge point id (no password). " +
        'A charger connecting below its profile is refused (401) from its next connection on; an open connection is not closed. 409 `no_charger_ca` for 3 when the organisation has no charger CA. Audited.',
      access: BEARER.configure,
      schema: { params: S.CpIdParam, body: S.SecurityProfileBody, response: { 200: S.SecurityProfileSet, 404: S.ErrorBody, 409: S.ErrorBody } },
      handler: async ({ ctx, params, body }) => h.setSecurityProfile(ctx, params.charge_point_id, body),
    }),
    op({
      operationId: 'getHubChargerCa',
      method: 'GET',
      path: `${BASE}/charger-ca`,
      summary: "The organisation's charger CA certificates",
      description:
        'The CA certificates whose charger certificates the hub accepts at security profile 3 (empty when none), with their fingerprints and validity.',
      schema: { response: { 200: S.ChargerCas } },
      handler: async ({ ctx }) => h.getChargerCas(ctx),
    }),
    op({
      operationId: 'putHubChargerCa',
      method: 'PUT',
      path: `${BASE}/charger-ca`,
      summary: "Set the organisation's charger CA certificates",
      description:
        "Replaces the CA certificates (PEM, at most 5: e.g. the CA and its successor while chargers move over) that issue the organisation's charger certificates. " +
        'A profile 3 charger is accepted when its TLS client certificate is signed by one of them, both are within their validity, and its subject CN is the charge point id. ' +
        "Each must be a CA certificate (basicConstraints CA:TRUE) not yet expired; a private key in the PEM is refused (422). The hub never issues certificates: the organisation signs its chargers' CSRs. Audited.",
      access: BEARER.configure,
      schema: { body: S.ChargerCaBody, response: { 200: S.ChargerCas } },
      handler: async ({ ctx, body }) => h.putChargerCas(ctx, body),
    }),
    op({
      operationId: 'deleteHubChargerCa',
      method: 'DELETE',
      path: `${BASE}/charger-ca`,
      summary: "Remove the organisation's charger CA certificates",
      description: 'From then on no charger certificate is accepted (profile 3 chargers are refused until a CA is set again). 404 when there is none. Audited.',
      access: BEARER.configure,
      schema: { response: { 204: Type.Null({ description: 'Removed' }), 404: S.ErrorBody } },
      handler: async ({ ctx }) => {
        await h.deleteChargerCas(ctx);
      },
    }),
    op({
      operationId: 'listHubRegulations',
      method: 'GET',
      path: `${BASE}/regulations`,
      summary: 'The Public Charge Point Regulations 2023 duties',
      description: 'Each duty with its regulation, threshold, commencement date and source.',
      schema: { response: { 200: S.Regulations } },
      handler: async () => h.regulations(),
    }),
  ];
}
