// Optimisation operations (endpoints.md 4.6): advisory and on demand (concepts.md section 1, rule 4).
import { BEARER, withDefaults, type Operation } from '../../../platform/operation.ts';
import { paramsTo } from '../../../platform/resource.ts';
import type { Optimisation } from '../service.ts';
import { MONEY_METHOD, SCHEDULE_METHOD } from '../schedule.ts';
import * as S from '../schemas.ts';
import { optErrors } from '../errors.ts';

const tags = ['optimisation'];
const live = 'live' as const;
const ADVISORY = 'Advisory: the plan is computed and recorded when asked; there is no approve or activate operation and no rolling re-optimisation.';

const op = withDefaults({ tags, status: live, access: BEARER.read });

export function optimisationOperations(o: Optimisation): Operation[] {
  return [
    op({
      operationId: 'getImportLimitConfig',
      method: 'GET',
      path: '/api/optimiser/import-limit/{site_id}/config',
      summary: "A site's import limit and flexible assets",
      description: '`configured: false` until written. 404 `Site not found`.',
      dataBasis: { basis: 'configured' },
      schema: paramsTo(S.SiteParams, S.LimitConfig),
      handler: async ({ ctx, params }) => o.limitConfig(ctx, params.site_id),
    }),
    op({
      operationId: 'putImportLimitConfig',
      method: 'PUT',
      path: '/api/optimiser/import-limit/{site_id}/config',
      summary: "Set a site's import limit and flexible assets",
      description:
        'Replaces the limit and the assets (batteries with capacity and state-of-charge bounds, EV chargers with the energy to deliver and by when). Each asset must be registered at the site. 404 `Site not found`; 422 for a bad value.',
      access: BEARER.configure,
      dataBasis: { basis: 'configured' },
      schema: { params: S.SiteParams, body: S.LimitConfigBody, response: { 200: S.LimitConfig } },
      handler: async ({ ctx, params, body }) => o.putLimitConfig(ctx, params.site_id, body),
    }),
    op({
      operationId: 'getImportLimitSeries',
      method: 'GET',
      path: '/api/optimiser/import-limit/{site_id}/series',
      summary: 'Forecast import against the limit',
      description:
        "Half-hourly forecast import (the site's forecast load less generation, before flexible assets) against the limit. 404 `Site not found`; 409 `Import limit not configured for this site`.",
      dataBasis: {
        basis: 'forecast',
        method: "The site's forecast (measured persistence unless configured otherwise) of load − generation, ÷ 0.5 h for mean kW.",
      },
      schema: { params: S.SiteParams, query: S.HoursQuery, response: { 200: S.LimitSeries } },
      handler: async ({ ctx, params, query }) => o.limitSeries(ctx, params.site_id, query),
    }),
    op({
      operationId: 'runImportLimit',
      method: 'POST',
      path: '/api/optimiser/import-limit/{site_id}/run',
      summary: 'Plan battery and EV power to keep import under the limit',
      description:
        `${ADVISORY} Plans each configured battery and EV charger per half hour so that import stays under the limit at least cost, with the peaks avoided and the cost; recorded as a run and in the decision log. ` +
        'With `dispatch=true` (body member or query parameter) the first half hour is sent through the verified setpoint write: demo realm only (403 `Demo realm only` elsewhere, nothing recorded); refused 409 `Override active` while an override holds the site. 409 `Import limit not configured for this site`.',
      access: BEARER.configure,
      dataBasis: { basis: 'calculated', method: `${SCHEDULE_METHOD} ${MONEY_METHOD}` },
      schema: { params: S.SiteParams, query: S.LimitRunQuery, body: S.LimitRunBody, response: { 200: S.LimitRun } },
      handler: async ({ ctx, params, query, body }) => {
        const b = body ?? {};
        if (query.dispatch !== undefined && b.dispatch !== undefined && query.dispatch !== b.dispatch) {
          throw optErrors.field(['query', 'dispatch'], 'disagrees with body.dispatch', query.dispatch);
        }
        return o.limitRun(ctx, params.site_id, { ...b, dispatch: b.dispatch ?? query.dispatch });
      },
    }),
    op({
      operationId: 'listImportLimitRuns',
      method: 'GET',
      path: '/api/optimiser/import-limit/{site_id}/runs',
      summary: 'Past import-limit runs',
      description: 'Newest first, with peaks avoided, cost and whether the first half hour was dispatched. 404 `Site not found`.',
      dataBasis: { basis: 'stored' },
      schema: { params: S.SiteParams, query: S.PageQuery, response: { 200: S.LimitRuns } },
      handler: async ({ ctx, params, query }) => o.limitRuns(ctx, params.site_id, query),
    }),
    op({
      operationId: 'runTariffSchedule',
      method: 'POST',
      path: '/api/optimiser/tariff-schedule/{site_id}/run',
      summary: 'Battery schedule against half-hourly prices',
      description:
        `${ADVISORY} A linear programme solved by HiGHS over Agile prices from the market adapter or given prices, within capacity, power limits, round-trip efficiency, state-of-charge bounds and each battery's warranty (discharge energy a UK day). ` +
        'The plan states its cost and the savings against doing nothing and against the simple rule. Sends nothing. 404 `Site not found`; 422 for a bad battery or price list; 409 `No feasible plan: ...`.',
      access: BEARER.configure,
      dataBasis: { basis: 'calculated', method: `${SCHEDULE_METHOD} ${MONEY_METHOD}` },
      schema: { params: S.SiteParams, body: S.TariffRunBody, response: { 200: S.TariffRun } },
      handler: async ({ ctx, params, body }) => o.tariffRun(ctx, params.site_id, body),
    }),
    op({
      operationId: 'listTariffScheduleRuns',
      method: 'GET',
      path: '/api/optimiser/tariff-schedule/{site_id}/runs',
      summary: 'Past tariff-schedule runs',
      description: 'Newest first, with costs and savings. 404 `Site not found`.',
      dataBasis: { basis: 'stored' },
      schema: { params: S.SiteParams, query: S.PageQuery, response: { 200: S.TariffRuns } },
      handler: async ({ ctx, params, query }) => o.tariffRuns(ctx, params.site_id, query),
    }),
    op({
      operationId: 'getTariffScheduleRun',
      method: 'GET',
      path: '/api/optimiser/tariff-schedule/{site_id}/runs/{run_id}',
      summary: 'One tariff-schedule run with its plan',
      description: 'The recorded plan as answered when it was run. 404 `Site not found` or `Run not found`.',
      dataBasis: { basis: 'stored' },
      schema: paramsTo(S.RunParams, S.TariffRun),
      handler: async ({ ctx, params }) => o.tariffRunGet(ctx, params.site_id, params.run_id),
    }),
    op({
      operationId: 'getBatteryWarranties',
      method: 'GET',
      path: '/api/optimiser/tariff-schedule/{site_id}/warranty',
      summary: "Warranty limits of the site's batteries",
      description: 'Each registered battery at the site with its cycle and throughput limits a UK day (null: none set). 404 `Site not found`.',
      dataBasis: { basis: 'configured' },
      schema: paramsTo(S.SiteParams, S.Warranties),
      handler: async ({ ctx, params }) => o.warranty(ctx, params.site_id),
    }),
    op({
      operationId: 'putBatteryWarranty',
      method: 'PUT',
      path: '/api/optimiser/tariff-schedule/{site_id}/warranty/{device_id}',
      summary: "Set a battery's warranty limits",
      description:
        'Cycles a day (× capacity) and throughput a day both bound the discharge energy a UK day in every later schedule; the tighter applies. 404 `Site not found` or `Device not found` (not a battery registered at the site).',
      access: BEARER.configure,
      dataBasis: { basis: 'configured' },
      schema: { params: S.DeviceParams, body: S.WarrantyBody, response: { 200: S.Warranty } },
      handler: async ({ ctx, params, body }) => o.putWarranty(ctx, params.site_id, params.device_id, body),
    }),
  ];
}
