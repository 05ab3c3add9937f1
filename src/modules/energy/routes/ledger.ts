// Energy ledger and PPA operations (endpoints.md 4.7).
import { Type } from 'typebox';
import { BEARER, withDefaults, type Operation } from '../../../platform/operation.ts';
import type { Ledger } from '../ledger.ts';
import { COUNTER_METHOD, POWER_METHOD } from '../flows.ts';
import * as S from '../schemas.ts';
import { ErrorResponse } from '../../../platform/schema-kit.ts';

const tags = ['energy-ledger'];
const LEDGER_METHOD =
  "Half-hour energy per flow summed over the site's assets: counters where a device reports them (measured), otherwise power integrated (calculated); consumption from metered loads, else the balance; the residual is what the metered flows leave unexplained.";

const op = withDefaults({ tags, status: 'live', access: BEARER.read });

export function ledgerOperations(l: Ledger): Operation[] {
  return [
    op({
      operationId: 'getSiteLedger',
      method: 'GET',
      path: '/api/telemetry/sites/{site_id}/ledger',
      summary: 'The half-hourly energy ledger of a site',
      description:
        'Every settlement period of the UK local days asked for (`date`, or `from`..`to` inclusive, at most 31 days; default yesterday): ' +
        '48 a day, 46 on the spring clock change, 50 on the autumn one, each with its start in UTC. Each flow carries its basis; half hours ' +
        'without data are listed with null figures and `gap: true`. Totals are exact sums (watt-hours) and the balance identity holds exactly. ' +
        'A half hour whose consumption is negative (derived from meters that disagree, e.g. export with no matching generation) says `meters_disagree: true` and is shown as stored, not corrected; `totals.meters_disagree_half_hours` counts them. ' +
        LEDGER_METHOD +
        ' ' +
        POWER_METHOD +
        ' ' +
        COUNTER_METHOD,
      dataBasis: { basis: 'calculated', method: LEDGER_METHOD },
      schema: {
        ...S.SiteDays,
        response: {
          200: S.SiteWindow({
            timezone: Type.String(),
            settlement_days: Type.Array(S.SettlementDay),
            half_hours: Type.Array(S.HalfHour),
            totals: S.Totals,
            balance: Type.Object({ identity: Type.String(), inputs_kwh: S.Kwh(), outputs_kwh: S.Kwh(), residual_kwh: S.Kwh(), balances: Type.Boolean() }),
            assets: Type.Array(Type.Object({ asset_id: Type.String(), asset_class: S.Nullable(Type.String()), role: Type.String() })),
            pending_refresh: Type.Boolean({ description: 'Telemetry stored since the last refresh is still being folded in' }),
            refresh_quarantine: S.Nullable(
              Type.Object({
                since: S.Timestamp,
                error_class: Type.String({ description: 'What kind of failure (e.g. numeric_value_out_of_range), never the error text' }),
                next_retry_at: S.Timestamp,
              }),
              "Set when the organisation's pending telemetry could not be folded in after repeated attempts (quarantined): the figures are stale until the data is corrected and the operator releases it, or the long retry succeeds",
            ),
            rebuild: S.Nullable(S.Rebuild),
          }),
          404: ErrorResponse,
        },
      },
      handler: ({ ctx, params, query }) => l.ledger(ctx, params.site_id, query),
    }),
    op({
      operationId: 'getLedgerPeriod',
      method: 'GET',
      path: '/api/telemetry/ledger/period/{site_id}/{period_start}',
      summary: "One settlement period of a site's ledger in detail",
      description:
        "The half hour starting at `period_start` (ISO 8601 with an offset, on a half-hour boundary) with each asset's contribution: flow, energy, basis, source (counter key or power_kw), coverage, samples and counter resets; `meters_disagree` as on the ledger (negative consumption). " +
        LEDGER_METHOD,
      dataBasis: { basis: 'calculated', method: LEDGER_METHOD },
      schema: {
        params: Type.Object({ site_id: Type.String({ minLength: 1, maxLength: 128 }), period_start: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: {
          200: Type.Object({
            site_id: Type.String(),
            ...S.HalfHour.properties,
            balance: S.Nullable(Type.Object({ identity: Type.String(), inputs_kwh: S.Kwh(), outputs_kwh: S.Kwh(), residual_kwh: S.Kwh() })),
            contributions: Type.Array(Type.Object({ asset_id: Type.String(), role: S.Nullable(Type.String()), ...S.AssetFlowFigures })),
            readings_url: Type.String(),
          }),
          404: ErrorResponse,
        },
      },
      handler: ({ ctx, params }) => l.period(ctx, params.site_id, params.period_start),
    }),
    op({
      operationId: 'rebuildSiteLedger',
      method: 'POST',
      path: '/api/telemetry/sites/{site_id}/ledger/rebuild',
      summary: "Rebuild a site's ledger from stored telemetry",
      description:
        'Queues a rebuild (a background job, a week of the site a step) over `from`..`to` (UK days, inclusive) or, by default, every day the site has telemetry. ' +
        'Idempotent: the rows of each day are replaced by what the samples give, and while a rebuild of the site is queued or running a second request returns it (200) instead of starting another (202). ' +
        'Progress is `days_done` of `days_total`, also shown on the ledger.',
      access: BEARER.configure,
      // The ledger shows the rebuild's progress (days_done of days_total).
      locates: '/api/telemetry/sites/{site_id}/ledger',
      schema: {
        params: S.SiteParams,
        body: Type.Optional(Type.Object({ from: Type.Optional(Type.String()), to: Type.Optional(Type.String()) }, { additionalProperties: false })),
        response: { 202: S.Rebuild, 200: S.Rebuild, 404: ErrorResponse },
      },
      handler: async ({ ctx, params, body, reply }) => {
        const r = await l.requestRebuild(ctx, params.site_id, body);
        if (r.created) reply.code(202);
        return r.rebuild;
      },
    }),
    op({
      operationId: 'listPpaContracts',
      method: 'GET',
      path: '/api/telemetry/sites/{site_id}/ppa/contracts',
      summary: 'PPA contracts of a site',
      description:
        "The site's power purchase agreements as set in its EMS settings (`ppa_contracts` of PUT /api/hardware/ems/sites/{site_id}/settings): counterparty, the flow paid for, price in pence per kWh, and the UK days in force.",
      dataBasis: { basis: 'configured' },
      schema: {
        params: S.SiteParams,
        response: {
          200: Type.Object({ site_id: Type.String(), contracts: Type.Array(S.PpaContract), updated_at: S.Nullable(S.Timestamp) }),
          404: ErrorResponse,
        },
      },
      handler: ({ ctx, params }) => l.contracts(ctx, params.site_id),
    }),
    op({
      operationId: 'getPpaStatement',
      method: 'GET',
      path: '/api/telemetry/sites/{site_id}/ppa/statement',
      summary: 'Monthly PPA statement of a site',
      description:
        "One UK calendar month (`month` YYYY-MM; default last month): for each contract (or `contract_id`), a line per UK day in force with the day's energy of the contract's flow, the price and the amount in pounds " +
        '(rounded to the penny per line; totals are sums of lines), and the data basis of each line: `measured` only when every settlement period of the day is complete and measured.',
      dataBasis: {
        basis: 'calculated',
        method:
          'Energy of the contracted flow from the ledger (measured where every half hour of the day is metered by counters) multiplied by the contract price, rounded to the penny per daily line.',
      },
      schema: {
        params: S.SiteParams,
        query: Type.Object({
          month: Type.Optional(Type.String({ description: 'YYYY-MM (UK calendar month)' })),
          contract_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        }),
        response: {
          200: Type.Object({
            site_id: Type.String(),
            month: Type.String(),
            from: S.Timestamp,
            to: S.Timestamp,
            timezone: Type.String(),
            currency: Type.String(),
            rounding: Type.String(),
            statements: Type.Array(
              Type.Object({
                contract: S.PpaContract,
                lines: Type.Array(
                  Type.Object({
                    date: Type.String(),
                    settlement_periods: Type.Integer(),
                    half_hours_with_data: Type.Integer(),
                    gap_half_hours: Type.Integer(),
                    energy_kwh: S.Kwh(),
                    price_p_per_kwh: Type.String(),
                    amount_gbp: S.Money('Pounds'),
                    data_basis: Type.String(),
                  }),
                ),
                total_energy_kwh: S.Kwh(),
                total_amount_gbp: S.Money('Pounds, the sum of the lines'),
                data_basis: Type.String(),
              }),
            ),
          }),
          404: ErrorResponse,
        },
      },
      handler: ({ ctx, params, query }) => l.statement(ctx, params.site_id, query),
    }),
  ];
}
