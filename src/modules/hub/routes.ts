// Hub operations (endpoints.md 4.6, base /api/csms/api/hub).
import { defineOperation, type Operation } from '../../platform/operation.ts';
import { CAN_CONFIGURE, CAN_READ } from '../../platform/roles.ts';
import type { HubService } from './service.ts';
import { LOAD_SHARING_METHOD } from './service.ts';
import { COST_METHOD, QUOTE_METHOD } from './tariff.ts';
import { COMPLIANCE_METHOD, RELIABILITY_METHOD } from './pcpr.ts';
import * as S from './schemas.ts';

const BASE = '/api/csms/api/hub';
const tags = ['hub'];
const live = 'live' as const;
const read = { kind: 'bearer' as const, roles: CAN_READ };
const configure = { kind: 'bearer' as const, roles: CAN_CONFIGURE };

export function hubOperations(h: HubService): Operation[] {
  return [
    defineOperation({
      operationId: 'listHubSites',
      method: 'GET',
      path: `${BASE}/sites`,
      summary: 'Charging hub sites',
      description: "The organisation's public charging sites, newest first, with cursor paging.",
      tags,
      status: live,
      access: read,
      dataBasis: { basis: 'configured' },
      schema: { query: S.SitesQuery, response: { 200: S.SitesPage } },
      handler: async ({ ctx, query }) => h.listSites(ctx, query),
    }),
    defineOperation({
      operationId: 'createHubSite',
      method: 'POST',
      path: `${BASE}/sites`,
      summary: 'Add a charging hub site',
      description:
        'A public charging site: name, address, the power its chargers share (`capacity_kw`), and the facts PCPR 2023 compliance rests on (helpline, open data URL, roaming). `site_id` is made when absent; 409 when it exists.',
      tags,
      status: live,
      access: configure,
      successStatus: 201,
      dataBasis: { basis: 'configured' },
      schema: { body: S.SiteCreateBody, response: { 201: S.Site, 409: S.ErrorBody } },
      handler: async ({ ctx, body }) => h.createSite(ctx, body),
    }),
    defineOperation({
      operationId: 'getHubSite',
      method: 'GET',
      path: `${BASE}/sites/{site_id}`,
      summary: 'One charging hub site with its charge points',
      description: "The site, and each charge point with its connection, last boot and heartbeat, and each connector's last status (OCPP and OCPI terms).",
      tags,
      status: live,
      access: read,
      dataBasis: { basis: 'measured' },
      schema: { params: S.SiteIdParam, response: { 200: S.SiteDetail, 404: S.ErrorBody } },
      handler: async ({ ctx, params }) => h.getSite(ctx, params.site_id),
    }),
    defineOperation({
      operationId: 'replaceHubSite',
      method: 'PUT',
      path: `${BASE}/sites/{site_id}`,
      summary: "Replace a charging hub site's details",
      description: 'The whole site: members left out become null. Charge points and price schedules are untouched.',
      tags,
      status: live,
      access: configure,
      dataBasis: { basis: 'configured' },
      schema: { params: S.SiteIdParam, body: S.SitePutBody, response: { 200: S.Site, 404: S.ErrorBody } },
      handler: async ({ ctx, params, body }) => h.putSite(ctx, params.site_id, body),
    }),
    defineOperation({
      operationId: 'registerHubChargePoint',
      method: 'POST',
      path: `${BASE}/sites/{site_id}/charge-points`,
      summary: 'Register a charge point at a site',
      description:
        'Registers the charger (and its asset in the registry: meter values become its telemetry) and answers with its OCPP endpoint, its charge point id and ' +
        'its HTTP Basic password (security profile 1), shown this once: only a hash is kept. The charger connects with subprotocol `ocpp1.6` or `ocpp2.0.1`. ' +
        '409 when the charge point id (or an asset of that id) exists.',
      tags,
      status: live,
      access: configure,
      successStatus: 201,
      dataBasis: { basis: 'configured' },
      schema: { params: S.SiteIdParam, body: S.ChargePointBody, response: { 201: S.ChargePointCreated, 404: S.ErrorBody, 409: S.ErrorBody } },
      handler: async ({ ctx, params, body }) => h.registerChargePoint(ctx, params.site_id, body),
    }),
    defineOperation({
      operationId: 'listHubPriceSchedules',
      method: 'GET',
      path: `${BASE}/sites/{site_id}/price-schedules`,
      summary: "A site's price schedule versions",
      description: 'Every version, newest first, draft or published, and the version in force now (the one published most recently).',
      tags,
      status: live,
      access: read,
      dataBasis: { basis: 'configured' },
      schema: { params: S.SiteIdParam, response: { 200: S.ScheduleList, 404: S.ErrorBody } },
      handler: async ({ ctx, params }) => h.listSchedules(ctx, params.site_id),
    }),
    defineOperation({
      operationId: 'createHubPriceSchedule',
      method: 'POST',
      path: `${BASE}/sites/{site_id}/price-schedules`,
      summary: 'Add a draft price schedule version',
      description:
        'A draft (not shown to drivers) with the next version number: energy p/kWh ex VAT, optional time-of-day bands (UK local wall clock, no overlaps), ' +
        'per-minute, connection and overstay fees (with grace minutes) and the VAT rate (default 20). Publish it to put it in force.',
      tags,
      status: live,
      access: configure,
      successStatus: 201,
      dataBasis: { basis: 'configured' },
      schema: { params: S.SiteIdParam, body: S.ScheduleBody, response: { 201: S.Schedule, 404: S.ErrorBody } },
      handler: async ({ ctx, params, body }) => h.createSchedule(ctx, params.site_id, body),
    }),
    defineOperation({
      operationId: 'publishHubPriceSchedule',
      method: 'POST',
      path: `${BASE}/sites/{site_id}/price-schedules/{version}/publish`,
      summary: 'Publish a price schedule version',
      description: 'Makes the draft the schedule drivers see from now on. A published version is never edited: 409 when it is already published.',
      tags,
      status: live,
      access: configure,
      dataBasis: { basis: 'configured' },
      schema: { params: S.PublishParams, response: { 200: S.Schedule, 404: S.ErrorBody, 409: S.ErrorBody } },
      handler: async ({ ctx, params }) => h.publish(ctx, params.site_id, params.version),
    }),
    defineOperation({
      operationId: 'quoteHubSession',
      method: 'GET',
      path: `${BASE}/sites/{site_id}/quote`,
      summary: 'Price a stated session ahead',
      description:
        'The cost of a stated session (energy, minutes connected, start, overstay) under the published schedule, line by line, with VAT. 409 when nothing is published. ' +
        QUOTE_METHOD,
      tags,
      status: live,
      access: read,
      dataBasis: { basis: 'calculated', method: QUOTE_METHOD },
      schema: { params: S.SiteIdParam, query: S.QuoteQuery, response: { 200: S.Quote, 404: S.ErrorBody, 409: S.ErrorBody } },
      handler: async ({ ctx, params, query }) => h.quote(ctx, params.site_id, query),
    }),
    defineOperation({
      operationId: 'listHubTransactions',
      method: 'GET',
      path: `${BASE}/sites/{site_id}/transactions`,
      summary: "A site's charging transactions",
      description: "Transactions the site's chargers reported over OCPP, newest start first, with cursor paging; open ones have no stop yet.",
      tags,
      status: live,
      access: read,
      dataBasis: { basis: 'measured' },
      schema: { params: S.SiteIdParam, query: S.TxQuery, response: { 200: S.TxPage, 404: S.ErrorBody } },
      handler: async ({ ctx, params, query }) => h.transactions(ctx, params.site_id, query),
    }),
    defineOperation({
      operationId: 'getHubTransactionCost',
      method: 'GET',
      path: `${BASE}/transactions/{transaction_id}/cost`,
      summary: 'The cost of one transaction',
      description:
        'From its metered energy and times under the schedule in force when it started, line by line, decimal money with VAT shown. An open transaction is costed so far. ' +
        COST_METHOD,
      tags,
      status: live,
      access: read,
      dataBasis: { basis: 'calculated', method: COST_METHOD },
      schema: { params: S.TxParams, response: { 200: S.Cost, 404: S.ErrorBody, 409: S.ErrorBody } },
      handler: async ({ ctx, params }) => h.cost(ctx, params.transaction_id),
    }),
    defineOperation({
      operationId: 'getHubSiteReliability',
      method: 'GET',
      path: `${BASE}/sites/{site_id}/reliability`,
      summary: 'Reliability per connector and per site (rolling 12 months)',
      description: 'From connector status history, with the PCPR 2023 99% target for rapid charge points stated beside the figure. ' + RELIABILITY_METHOD,
      tags,
      status: live,
      access: read,
      dataBasis: { basis: 'calculated', method: RELIABILITY_METHOD },
      schema: { params: S.SiteIdParam, response: { 200: S.Reliability, 404: S.ErrorBody } },
      handler: async ({ ctx, params }) => h.reliability(ctx, params.site_id),
    }),
    defineOperation({
      operationId: 'getHubSiteCompliance',
      method: 'GET',
      path: `${BASE}/sites/{site_id}/compliance`,
      summary: "PCPR 2023 compliance of a site's charge points",
      description:
        'Each duty (contactless, pence per kWh shown, 99% rapid reliability, 24/7 helpline, open data, roaming): met, not_met, not_known or not_applicable, with the evidence. ' +
        COMPLIANCE_METHOD,
      tags,
      status: live,
      access: read,
      dataBasis: { basis: 'calculated', method: COMPLIANCE_METHOD },
      schema: { params: S.SiteIdParam, response: { 200: S.Compliance, 404: S.ErrorBody } },
      handler: async ({ ctx, params }) => h.compliance(ctx, params.site_id),
    }),
    defineOperation({
      operationId: 'shareHubSiteLoad',
      method: 'POST',
      path: `${BASE}/sites/{site_id}/load-sharing`,
      summary: "Split a site's capacity across active sessions (demo realm only)",
      description:
        "Sends SetChargingProfile to each charger with an open transaction, wherever it is connected (through the instance that holds it), and answers with each limit and the charger's answer. " +
        '403 `Demo realm only` outside demo organisations. ' +
        LOAD_SHARING_METHOD,
      tags,
      status: live,
      access: configure,
      dataBasis: { basis: 'calculated', method: LOAD_SHARING_METHOD },
      schema: { params: S.SiteIdParam, body: S.LoadSharingBody, response: { 200: S.LoadSharing, 403: S.ErrorBody, 404: S.ErrorBody, 409: S.ErrorBody } },
      handler: async ({ ctx, params, body }) => h.loadSharing(ctx, params.site_id, body),
    }),
    defineOperation({
      operationId: 'listHubRegulations',
      method: 'GET',
      path: `${BASE}/regulations`,
      summary: 'The Public Charge Point Regulations 2023 duties',
      description: 'Each duty with its regulation, threshold, commencement date and source.',
      tags,
      status: live,
      access: read,
      dataBasis: { basis: 'configured' },
      schema: { response: { 200: S.Regulations } },
      handler: async () => h.regulations(),
    }),
  ];
}
