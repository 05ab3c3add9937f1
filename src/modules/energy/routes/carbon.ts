// Carbon and emissions operations (endpoints.md 4.7).
import { Type } from 'typebox';
import { BEARER, withDefaults, type Operation } from '../../../platform/operation.ts';
import type { Carbon } from '../carbon.ts';
import * as S from '../schemas.ts';
import { ErrorResponse } from '../../../platform/schema-kit.ts';

const tags = ['carbon'];
const Kg = (d = 'kg CO2e, decimal text to the gram') => Type.String({ pattern: '^-?[0-9]+\\.[0-9]{3}$', description: d });
const Factor5 = Type.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]{1,5})?$', description: 'kg CO2e per kWh, up to 5 places' });
const FactorVersion = Type.Object({
  year: Type.Integer(),
  generation_kg_per_kwh: Type.String(),
  td_kg_per_kwh: S.Nullable(Type.String()),
  published: S.Nullable(Type.String()),
  source: Type.String(),
  confidence: Type.String(),
  note: S.Nullable(Type.String()),
});
const AppliedFactor = Type.Object({ ...FactorVersion.properties, applied_to_year: Type.Integer(), note: S.Nullable(Type.String()) });
/** A year's figure: the year, the window it covers and the factor applied to it. */
const YearFigures = { year: Type.Integer(), from: S.Timestamp, to: S.Timestamp, factor: AppliedFactor };
const MarketFactor = Type.Object({
  factor_id: Type.String(),
  site_id: S.Nullable(Type.String()),
  instrument: Type.String(),
  name: Type.String(),
  kg_per_kwh: Type.String(),
  valid_from: Type.String(),
  valid_to: S.Nullable(Type.String()),
  evidence: S.Nullable(Type.String()),
  created_by: S.Nullable(Type.String()),
  created_at: S.Timestamp,
});
const YearQuery = Type.Object({
  year: Type.Optional(Type.Integer({ minimum: 2000, maximum: 2100, description: 'Reporting (calendar) year; default last year' })),
  site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});
const Date = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });

const op = withDefaults({ tags, status: 'live', access: BEARER.read });

export function carbonOperations(c: Carbon): Operation[] {
  return [
    op({
      operationId: 'getScope2',
      method: 'GET',
      path: '/api/hardware/ems/scope2',
      summary: 'Scope 2 emissions, location-based and market-based',
      description:
        "Dual reporting (GHG Protocol Scope 2 Guidance) for a calendar year, all sites or one: grid import × the published DESNZ factor of the year (its source and confidence named), and × the organisation's market factors where an instrument covers the day.",
      dataBasis: {
        basis: 'calculated',
        method:
          'Grid import from the half-hour ledger × the DESNZ UK electricity factor of the year (location-based) or the contractual factor in force (market-based), to the gram.',
      },
      schema: {
        query: YearQuery,
        response: {
          200: Type.Object({
            ...YearFigures,
            import_kwh: S.Kwh(),
            location_based_kg: Kg(),
            market_based_kg: Kg(),
            td_losses_scope3_kg: S.Nullable(Kg()),
            market_based_uncovered_import_kwh: S.Kwh(),
            market_instruments_used: Type.Array(
              Type.Object({ factor_id: Type.String(), name: Type.String(), instrument: Type.String(), kg_per_kwh: Type.String() }),
            ),
            methods: Type.Object({ location_based: Type.String(), market_based: Type.String() }),
            sites: Type.Array(
              Type.Object({
                site_id: Type.String(),
                import_kwh: S.Kwh(),
                location_based_kg: Kg(),
                market_based_kg: Kg(),
                uncovered_import_kwh: S.Kwh(),
                complete_half_hours: Type.Integer(),
                half_hours_with_data: Type.Integer(),
              }),
            ),
          }),
          404: ErrorResponse,
        },
      },
      handler: ({ ctx, query }) => c.scope2(ctx, query),
    }),
    op({
      operationId: 'getScope2Intensity',
      method: 'GET',
      path: '/api/hardware/ems/scope2/intensity',
      summary: "Half-hourly GB grid carbon intensity for a UK day, with a site's import weighted by it",
      description:
        "Every settlement period of the UK day (`date`, default yesterday) with the national intensity (actual where estimated, else forecast, each labelled) from the carbon intensity provider; with `site_id`, the site's import each half hour and its intensity-weighted average and emissions.",
      dataBasis: {
        basis: 'calculated',
        method:
          "National half-hourly intensity from the NESO Carbon Intensity API (actual, else forecast); a site's emissions = Σ import × intensity of its half hour.",
      },
      schema: {
        query: Type.Object({ date: Type.Optional(Date), site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })) }),
        response: {
          200: Type.Object({
            date: Type.String(),
            from: S.Timestamp,
            to: S.Timestamp,
            region: Type.String(),
            source: Type.String(),
            half_hours: Type.Array(
              Type.Object({
                period_start: S.Timestamp,
                period_end: S.Timestamp,
                settlement_period: Type.Integer(),
                forecast_g_per_kwh: Type.Number(),
                actual_g_per_kwh: S.Nullable(Type.Number()),
                index: Type.String(),
                data_basis: Type.String(),
                import_kwh: Type.Optional(S.Nullable(S.Kwh())),
              }),
            ),
            site: S.Nullable(Type.Object({ site_id: Type.String(), import_kwh: S.Kwh(), weighted_g_per_kwh: S.Nullable(Type.Number()), import_kg: Kg() })),
          }),
          404: ErrorResponse,
          502: ErrorResponse,
        },
      },
      handler: ({ ctx, query }) => c.intensity(ctx, query),
    }),
    op({
      operationId: 'getAvoidedEmissions',
      method: 'GET',
      path: '/api/hardware/ems/scope2/avoided',
      summary: 'Emissions avoided by on-site generation',
      description: 'Generation (self-consumed and exported) × the DESNZ factor of the year. Reported beside Scope 2, never netted off it.',
      dataBasis: { basis: 'calculated', method: 'Generation from the half-hour ledger × the DESNZ UK electricity generation factor of the year.' },
      schema: {
        query: YearQuery,
        response: {
          200: Type.Object({
            ...YearFigures,
            generation_kwh: S.Kwh(),
            self_consumed_kwh: S.Kwh(),
            exported_generation_kwh: S.Kwh(),
            avoided_kg: Kg(),
            avoided_self_consumed_kg: Kg(),
            avoided_exported_kg: Kg(),
            method: Type.String(),
            sites: Type.Array(
              Type.Object({ site_id: Type.String(), generation_kwh: S.Kwh(), self_consumed_kwh: S.Kwh(), exported_generation_kwh: S.Kwh(), avoided_kg: Kg() }),
            ),
          }),
          404: ErrorResponse,
        },
      },
      handler: ({ ctx, query }) => c.avoided(ctx, query),
    }),
    op({
      operationId: 'listScope2FactorVersions',
      method: 'GET',
      path: '/api/hardware/ems/scope2/factors/versions',
      summary: 'DESNZ factor versions by reporting year',
      description:
        'The UK electricity generation (Scope 2) and T&D (Scope 3) factors by reporting year as published, each with the source it was taken from and its confidence (figures not confirmed against the DESNZ spreadsheet say so).',
      dataBasis: { basis: 'stored' },
      schema: { response: { 200: Type.Object({ versions: Type.Array(FactorVersion) }) } },
      handler: async () => ({ versions: await c.versions() }),
    }),
    op({
      operationId: 'listScope2FactorChanges',
      method: 'GET',
      path: '/api/hardware/ems/scope2/factors/changes',
      summary: 'Changes between consecutive factor versions',
      description:
        'For each pair of consecutive reporting years: the generation factor before and after, the change in kg CO2e/kWh and per cent, and the T&D factors.',
      dataBasis: { basis: 'calculated', method: 'Differences between consecutive published factor sets (exact decimals; per cent to two places).' },
      schema: {
        response: {
          200: Type.Object({
            changes: Type.Array(
              Type.Object({
                from_year: Type.Integer(),
                to_year: Type.Integer(),
                generation_from: Type.String(),
                generation_to: Type.String(),
                generation_change: Type.String(),
                generation_change_pct: Type.Number(),
                td_from: S.Nullable(Type.String()),
                td_to: S.Nullable(Type.String()),
                confidence: Type.String(),
              }),
            ),
          }),
        },
      },
      handler: () => c.changes(),
    }),
    op({
      operationId: 'listScope2MarketFactors',
      method: 'GET',
      path: '/api/hardware/ems/scope2/market-factors',
      summary: "The organisation's market-based factors",
      description: 'Contractual instruments (REGO-backed supply, supplier-specific rate, PPA, residual mix) with their factor, sites and validity.',
      dataBasis: { basis: 'configured' },
      schema: { response: { 200: Type.Object({ factors: Type.Array(MarketFactor) }) } },
      handler: ({ ctx }) => c.marketFactors(ctx),
    }),
    op({
      operationId: 'createScope2MarketFactor',
      method: 'POST',
      path: '/api/hardware/ems/scope2/market-factors',
      summary: 'Add a market-based factor',
      description:
        "A contractual instrument for all sites (no `site_id`) or one, valid over UK days `valid_from`..`valid_to` (inclusive; open when null). Where two cover a day, a site's own and then the newest wins. Audited.",
      access: BEARER.configure,
      schema: {
        body: Type.Object(
          {
            site_id: Type.Optional(S.Nullable(Type.String({ minLength: 1, maxLength: 128 }))),
            instrument: Type.Union([Type.Literal('rego'), Type.Literal('supplier_specific'), Type.Literal('ppa'), Type.Literal('residual_mix')]),
            name: Type.String({ minLength: 1, maxLength: 200 }),
            kg_per_kwh: Factor5,
            valid_from: Date,
            valid_to: Type.Optional(S.Nullable(Date)),
            evidence: Type.Optional(S.Nullable(Type.String({ maxLength: 500, description: 'Certificate or contract reference' }))),
          },
          { additionalProperties: false },
        ),
        response: { 201: MarketFactor, 404: ErrorResponse },
      },
      handler: ({ ctx, body }) => c.addMarketFactor(ctx, body),
    }),
    op({
      operationId: 'getUsageCarbon',
      method: 'GET',
      path: '/api/hardware/usage/carbon',
      summary: 'Energy use and location-based emissions by day, week or month',
      description:
        'Import, consumption and generation with location-based kg CO2e per UK day, week (Monday to Sunday) or calendar month, for all sites or one; each bucket names the factor years applied.',
      dataBasis: {
        basis: 'calculated',
        method: "Daily rollups of the half-hour ledger summed into UK days, weeks or months; import × the DESNZ factor of each day's year.",
      },
      schema: {
        query: Type.Object({
          period: Type.Optional(Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')])),
          from: Type.Optional(Date),
          to: Type.Optional(Date),
          site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
        }),
        response: {
          200: Type.Object({
            period: Type.String(),
            from: S.Timestamp,
            to: S.Timestamp,
            site_id: S.Nullable(Type.String()),
            buckets: Type.Array(
              Type.Object({
                period_start: S.Timestamp,
                label: Type.String(),
                import_kwh: S.Kwh(),
                consumption_kwh: S.Kwh(),
                generation_kwh: S.Kwh(),
                location_based_kg: Kg(),
                factor_years: Type.Array(Type.Integer()),
                complete_half_hours: Type.Integer(),
                half_hours_with_data: Type.Integer(),
              }),
            ),
          }),
          404: ErrorResponse,
        },
      },
      handler: ({ ctx, query }) => c.usage(ctx, query),
    }),
  ];
}
