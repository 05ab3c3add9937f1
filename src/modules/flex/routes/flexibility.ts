// Flexibility (partner-gated) and the fleet portfolio (endpoints.md 4.2, Flexibility).
import { isoTime, ErrorResponse } from '../../../platform/schema-kit.ts';
import { Type } from 'typebox';
import { BEARER, withDefaults } from '../../../platform/operation.ts';
import type { AppDeps } from '../../../platform/module.ts';
import type { FlexService } from '../flex-service.ts';
import { REGISTRY_READS } from '../../registry/index.ts';
import { CAPACITY_KEYS_KW, CAPACITY_KEYS_MW, PORTFOLIO_METHOD, portfolioOf } from '../portfolio.ts';
import { ContractsResponse, dnoEnum, OfferResponse, offerBody, PortfolioResponse, TendersResponse } from '../schemas.ts';

const GATED =
  ' Partner-gated: 503 `Credentials not configured` when the operator’s platform is not wired for this ' +
  'environment (not transient); 502 `Flexibility platform API error` when the platform fails.';

export function flexOperations(deps: AppDeps, flex: FlexService) {
  const ids = flex.operators.map((o) => o.id);
  const DnoQuery = Type.Object({ dno: dnoEnum(ids) });
  const tags = ['flex'];
  const op = withDefaults({ tags, status: 'partner-gated', access: BEARER.read });
  const registry = deps.services.get(REGISTRY_READS);
  return [
    op({
      operationId: 'listFlexTenders',
      method: 'GET',
      path: '/api/vpp/vpp/flex/tenders',
      summary: 'Open flexibility tenders of a network operator',
      description: 'Open tenders read live from the operator’s flexibility platform (cached for up to a minute).' + GATED,
      dataBasis: { basis: 'stored', method: 'Tenders as the operator’s platform lists them, relayed unchanged.' },
      schema: { query: DnoQuery, response: { 200: TendersResponse, 502: ErrorResponse, 503: ErrorResponse } },
      handler: async ({ query }) => {
        const s = await flex.tenders(query.dno);
        return { dno: query.dno, count: s.value.length, tenders: s.value, stale: s.stale, cached_at: isoTime(s.fetchedAt) };
      },
    }),
    op({
      operationId: 'listFlexContracts',
      method: 'GET',
      path: '/api/vpp/vpp/flex/contracts',
      summary: 'Awarded flexibility contracts',
      description:
        'Contracts awarded on the operator’s platform with quantity and clearing price, limited to those awarded on ' +
        'offers this organisation submitted through the service.' +
        GATED,
      dataBasis: { basis: 'stored', method: 'Contractual obligations as the operator’s platform lists them.' },
      schema: { query: DnoQuery, response: { 200: ContractsResponse, 502: ErrorResponse, 503: ErrorResponse } },
      handler: async ({ query, ctx }) => {
        const s = await flex.contracts(ctx, query.dno);
        return {
          dno: query.dno,
          count: s.value.length,
          contracts: s.value.map(({ ballot_id: _b, bid_id: _i, ...c }) => c),
          stale: s.stale,
          cached_at: isoTime(s.fetchedAt),
        };
      },
    }),
    op({
      operationId: 'submitFlexOffer',
      method: 'POST',
      path: '/api/vpp/vpp/flex/offers',
      summary: 'Submit a priced flexibility offer',
      description:
        'Validates the offer, records it, submits it to the operator’s platform once (never retried) and records the ' +
        'platform’s answer; both steps are audited. 400 `tender_platform_id is required for offers to <dno>` for the ' +
        'second operator without it; 400 `Offer rejected by the flexibility platform` when the platform refuses it; ' +
        '400 for intervals in the past or overlapping.' +
        GATED,
      access: BEARER.configure,
      dataBasis: { basis: 'stored', method: 'The offer as submitted and the platform’s answer as received.' },
      schema: { body: offerBody(ids), response: { 201: OfferResponse, 400: ErrorResponse, 502: ErrorResponse, 503: ErrorResponse } },
      handler: async ({ body, ctx }) => flex.submitOffer(ctx, body),
    }),
    op({
      operationId: 'getVppPortfolio',
      method: 'GET',
      path: '/api/vpp/vpp/portfolio',
      summary: 'Aggregate fleet capacity',
      description:
        'Rated power of the organisation’s registered assets, summed. `available_capacity_mw` and `availability_rate` ' +
        'come from a fixed availability assumption (80%) and are not for settlement or financial claims; regions are ' +
        'not segmented.',
      status: 'live',
      dataBasis: { basis: 'calculated', method: PORTFOLIO_METHOD },
      schema: { response: { 200: PortfolioResponse } },
      handler: async ({ ctx }) => ({
        as_of: isoTime(deps.clock.now().getTime()),
        ...portfolioOf(await registry.records(deps.db, ctx.orgId)),
        capacity_keys: [...CAPACITY_KEYS_KW, ...CAPACITY_KEYS_MW],
        data_basis: { basis: 'calculated' as const, method: PORTFOLIO_METHOD },
      }),
    }),
  ];
}
