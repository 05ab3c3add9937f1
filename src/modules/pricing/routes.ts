// Pricing operations: the charge library, MPANs, the pricing engine, and retail tariffs.
import { BEARER, withDefaults, type Operation } from '../../platform/operation.ts';
import { paramsTo, queryTo, bodyTo, bodyToCreated } from '../../platform/resource.ts';
import type { Library } from './library.ts';
import type { Tariffs } from './tariffs.ts';
import { PRICE_METHOD } from './engine.ts';
import { BILL_METHOD } from './billing.ts';
import { smartBands, costPlus, SMART_BANDS_METHOD, COST_PLUS_METHOD } from './calc.ts';
import * as S from './schemas.ts';
import { ErrorResponse } from '../../platform/schema-kit.ts';

const charges = ['charges'];
const tariffs = ['tariffs'];
const live = 'live' as const;
/** A year of half hours with prices is about 2 MB of JSON: batch operations take up to 6 MiB (decision 0154). */
const YEAR_BODY_BYTES = 6 * 1024 * 1024;
const STACK_METHOD =
  "The charge-library rates in force at the MPAN (distributor, line-loss class, supply type), one segment per run of UK local days with the same rates and time bands; per band the exact sum of the p/kWh components; capacity charges at the MPAN's agreed kVA; nothing defaulted (components without a rate are listed).";
const COMPARE_METHOD = `Each tariff is billed on the same consumption (and prices) by the bill method, then ranked by total, cheapest first; each difference is split into standing charges, unit charges and VAT against the cheapest. ${BILL_METHOD}`;

const op = withDefaults({ tags: tariffs, status: live, access: BEARER.read });
const chargeOp = withDefaults({ tags: charges, status: live, access: BEARER.read });

export function pricingOperations(lib: Library, t: Tariffs): Operation[] {
  return [
    // ---- Charge library ------------------------------------------------------------------------
    chargeOp({
      operationId: 'getChargeLibrary',
      method: 'GET',
      path: '/api/trading/cost/library',
      summary: 'The charge library: components, rates with their validity and source, DUoS time bands',
      description:
        'The components (DUoS unit rates by band, fixed and capacity charges; TNUoS; BSUoS; CfD, RO, FiT; CCL; VAT), each with its one unit; the published rates the library ships with ' +
        "(only figures with a published source, named in each record) and the organisation's own; the time-band schedules. Nothing is defaulted: a rate nobody stated is absent. " +
        'Filter by `component` and `distributor_id` (rates of that distributor and rates for every distributor).',
      dataBasis: { basis: 'stored' },
      schema: queryTo(S.LibraryQuery, S.LibraryResponse),
      handler: async ({ ctx, query }) => lib.library(ctx, query),
    }),
    chargeOp({
      operationId: 'addChargeRate',
      method: 'POST',
      path: '/api/trading/cost/library/rates',
      summary: 'Add a rate to the charge library',
      description:
        "A rate in its component's unit (checked: a BSUoS figure published in £/MWh is stated as p/kWh), with its period of validity and its source. DUoS rates name their " +
        'distributor (and band for unit rates); any rate may be narrowed to a line-loss class or supply type. 409 when it clashes: the same component with an overlapping scope ' +
        'and period of validity already in the library (or published), so at most one rate ever applies to a half hour.',
      access: BEARER.configure,
      schema: { body: S.RateBody, response: { 201: S.Rate, 409: ErrorResponse } },
      handler: async ({ ctx, body }) => lib.addRate(ctx, body),
    }),
    chargeOp({
      operationId: 'addTimeBands',
      method: 'POST',
      path: '/api/trading/cost/library/time-bands',
      summary: "Add a distributor's time-band schedule (red, amber, green)",
      description:
        'Periods of the UK local clock on weekdays (Monday to Friday, bank holidays included), weekends or all days. Validated: every half hour of each day type is in exactly one ' +
        'band (gaps and overlaps are named); 409 when the period of validity clashes with another schedule of the distributor.',
      access: BEARER.configure,
      schema: { body: S.TimeBandsBody, response: { 201: S.TimeBands, 409: ErrorResponse } },
      handler: async ({ ctx, body }) => lib.addTimeBands(ctx, body),
    }),
    chargeOp({
      operationId: 'listMpans',
      method: 'GET',
      path: '/api/trading/cost/mpans',
      summary: "The organisation's supply points (MPANs)",
      description: 'Newest first with cursor paging; filter `distributor_id`.',
      dataBasis: { basis: 'stored' },
      schema: queryTo(S.MpansQuery, S.MpansResponse),
      handler: async ({ ctx, query }) => lib.mpans(ctx, query),
    }),
    chargeOp({
      operationId: 'registerMpan',
      method: 'POST',
      path: '/api/trading/cost/mpans',
      summary: 'Register a supply point by its MPAN core',
      description:
        'The 13-digit core is checked (check digit: the first 12 digits times 3, 5, 7, 13, 17, 19, 23, 29, 31, 37, 41, 43, summed, mod 11, mod 10); the distributor comes from its ' +
        'first two digits. Line-loss class, connection voltage and supply type are stated; agreed capacity (kVA) when capacity charges apply. 409 when already registered.',
      access: BEARER.configure,
      schema: { body: S.MpanBody, response: { 201: S.Mpan, 409: ErrorResponse } },
      handler: async ({ ctx, body }) => lib.registerMpan(ctx, body),
    }),
    chargeOp({
      operationId: 'priceHalfHours',
      method: 'POST',
      path: '/api/trading/cost/price',
      summary: 'Price a batch of half hours at an MPAN: each half hour by component and band, plus totals',
      description:
        'Non-energy charges from the charge library in force each UK local day. Components without a rate in force are listed in `unpriced`, never defaulted. ' +
        PRICE_METHOD,
      bodyLimit: YEAR_BODY_BYTES,
      dataBasis: { basis: 'calculated', method: PRICE_METHOD },
      schema: bodyTo(S.PriceBody, S.PriceResponse),
      handler: async ({ ctx, body }) => lib.price(ctx, body),
    }),
    chargeOp({
      operationId: 'getChargeStack',
      method: 'GET',
      path: '/api/trading/cost/stack',
      summary: 'The component stack at an MPAN over a period',
      description:
        'One segment per run of days with the same rates in force: per band, the p/kWh components and their sum; the fixed daily charges (capacity at the agreed kVA); the VAT rate; ' +
        'the components with no rate (`unpriced`). `to` is the day after the last (at most three years).',
      dataBasis: { basis: 'calculated', method: STACK_METHOD },
      schema: queryTo(S.StackQuery, S.StackResponse),
      handler: async ({ ctx, query }) => ({ ...(await lib.stack(ctx, query)), data_basis: { basis: 'calculated' as const, method: STACK_METHOD } }),
    }),

    // ---- Retail tariffs ------------------------------------------------------------------------
    op({
      operationId: 'listRetailTariffs',
      method: 'GET',
      path: '/api/trading/retail-tariffs',
      summary: "The organisation's retail tariffs",
      description: 'Newest first with cursor paging, each with its number of versions and the latest effective date.',
      dataBasis: { basis: 'stored' },
      schema: queryTo(S.TariffsQuery, S.TariffsResponse),
      handler: async ({ ctx, query }) => t.list(ctx, query),
    }),
    op({
      operationId: 'createRetailTariff',
      method: 'POST',
      path: '/api/trading/retail-tariffs',
      summary: 'Create a retail tariff, stored as version 1',
      description:
        'Every rate is stated, none defaulted: the VAT rate, the standing charge and the unit rates (flat; time of use, with a rate for every band and periods covering each day ' +
        'exactly once; or dynamic, with half-hourly prices such as Agile supplied with each bill). A missing rate is a 422 naming it.',
      access: BEARER.configure,
      documentedBody: S.TariffIn,
      schema: bodyToCreated(S.Open, S.Tariff),
      handler: async ({ ctx, body }) => t.create(ctx, body as Record<string, unknown>),
    }),
    op({
      operationId: 'validateRetailTariff',
      method: 'POST',
      path: '/api/trading/retail-tariffs/validate',
      summary: 'Check a tariff (or, with tariff_id, a new version) without storing it',
      description:
        'Answers 200 with `valid` and every problem, each naming its member (a missing rate is named); with `tariff_id`, also whether the version would overlap a stored one. Nothing is stored.',
      documentedBody: S.ValidateIn,
      schema: bodyTo(S.Open, S.ValidateResponse),
      handler: async ({ ctx, body }) => t.validate(ctx, body as Record<string, unknown>),
    }),
    op({
      operationId: 'getRetailTariff',
      method: 'GET',
      path: '/api/trading/retail-tariffs/{tariff_id}',
      summary: 'One retail tariff with every version',
      description:
        "Versions in order, each with its terms as stored (never changed) and `in_force_until`: the earlier of its effective_to and the next version's start.",
      dataBasis: { basis: 'stored' },
      schema: paramsTo(S.TariffParams, S.Tariff),
      handler: async ({ ctx, params }) => t.get(ctx, params.tariff_id),
    }),
    op({
      operationId: 'addRetailTariffVersion',
      method: 'POST',
      path: '/api/trading/retail-tariffs/{tariff_id}/versions',
      summary: 'Append a new version of a retail tariff',
      description:
        'Append only: no version is ever changed in place. The new version must start after every stored version (and on or after any stated effective_to); it ends the previous ' +
        "version's time in force from its effective_from. 409 `version_overlap` otherwise; 422 naming any missing rate.",
      access: BEARER.configure,
      documentedBody: S.VersionIn,
      schema: { params: S.TariffParams, body: S.Open, response: { 201: S.Tariff, 409: ErrorResponse } },
      handler: async ({ ctx, params, body }) => t.addVersion(ctx, params.tariff_id, body),
    }),
    op({
      operationId: 'billRetailTariff',
      method: 'POST',
      path: '/api/trading/retail-tariffs/bill',
      summary: 'Bill half-hourly consumption on a tariff',
      description:
        'Standing charge per UK local day, unit charges per band (or per half hour at supplied prices for dynamic tariffs), VAT, with the version in force each day. A half hour ' +
        'outside the period, a day with no version in force or a dynamic half hour without a price is a 422 naming it. ' +
        BILL_METHOD,
      bodyLimit: YEAR_BODY_BYTES,
      dataBasis: { basis: 'calculated', method: BILL_METHOD },
      schema: bodyTo(S.BillBody, S.BillResponse),
      handler: async ({ ctx, body }) => ({ ...(await t.bill(ctx, body)), data_basis: { basis: 'calculated' as const, method: BILL_METHOD } }),
    }),
    op({
      operationId: 'compareRetailTariffs',
      method: 'POST',
      path: '/api/trading/retail-tariffs/compare',
      summary: 'Compare tariffs on the same consumption, ranked, with the differences explained',
      description: COMPARE_METHOD,
      bodyLimit: YEAR_BODY_BYTES,
      dataBasis: { basis: 'calculated', method: COMPARE_METHOD },
      schema: bodyTo(S.CompareBody, S.CompareResponse),
      handler: async ({ ctx, body }) => ({ ...(await t.compare(ctx, body)), data_basis: { basis: 'calculated' as const, method: COMPARE_METHOD } }),
    }),
    op({
      operationId: 'proposeSmartBands',
      method: 'POST',
      path: '/api/trading/retail-tariffs/smart-bands',
      summary: 'Propose time bands from a price series or a load profile',
      description: `At least one value for every half hour of the UK local day. ${SMART_BANDS_METHOD}`,
      bodyLimit: YEAR_BODY_BYTES,
      dataBasis: { basis: 'calculated', method: SMART_BANDS_METHOD },
      schema: bodyTo(S.SmartBandsBody, S.SmartBandsResponse),
      handler: async ({ body }) => smartBands(body),
    }),
    op({
      operationId: 'priceCostPlusTariff',
      method: 'POST',
      path: '/api/trading/retail-tariffs/cost-plus',
      summary: 'Cost-plus tariff: wholesale + charges + margin, every input listed',
      description: `Answers the proposed standing charge and unit rate, every input (consumption, wholesale, each charge with its rates and sources, margin, VAT), the workings and the components not priced. ${COST_PLUS_METHOD}`,
      bodyLimit: YEAR_BODY_BYTES,
      dataBasis: { basis: 'calculated', method: COST_PLUS_METHOD },
      schema: bodyTo(S.CostPlusBody, S.CostPlusResponse),
      handler: async ({ ctx, body }) => costPlus(lib, ctx, body),
    }),
  ];
}
