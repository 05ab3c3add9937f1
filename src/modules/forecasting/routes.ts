// Forecasting operations (endpoints.md 4.6). Computed on request; they send no device command and
// no market write (concepts.md section 1, rule 8).
import { BEARER, withDefaults, type Operation } from '../../platform/operation.ts';
import { paramsTo } from '../../platform/resource.ts';
import type { JobQueue } from '../../platform/jobs.ts';
import type { Forecasting } from './service.ts';
import { MAX_BACKTEST_DAYS, MAX_BACKTEST_JOB_DAYS, SERIES_METHOD } from './service.ts';
import * as S from './schemas.ts';

const tags = ['forecasting'];
const live = 'live' as const;
const BASIS = "Forecast basis by default is measured persistence: the site's last stored half hours carried forward.";

const op = withDefaults({ tags, status: live, access: BEARER.read });

export function forecastingOperations(f: Forecasting, jobs: Pick<JobQueue, 'enqueue'>): Operation[] {
  return [
    op({
      operationId: 'listForecastSites',
      method: 'GET',
      path: '/api/optimiser/forecasting/sites',
      summary: 'Sites that can be forecast',
      description:
        'Every site with a registered asset or a forecast configuration, with its method and horizon and whether load and generation can be derived.',
      dataBasis: { basis: 'configured', method: 'Sites from the registry; method and horizon as configured, else the defaults (persistence, 48 hours).' },
      schema: { response: { 200: S.SitesResponse } },
      handler: async ({ ctx }) => f.sites(ctx),
    }),
    op({
      operationId: 'getForecastConfig',
      method: 'GET',
      path: '/api/optimiser/forecasting/sites/{site_id}/config',
      summary: "A site's forecast configuration",
      description: `Method, horizon and blend weight (the defaults until written). ${BASIS} 404 \`Site not found\`.`,
      dataBasis: { basis: 'configured' },
      schema: paramsTo(S.SiteParams, S.Config),
      handler: async ({ ctx, params }) => f.getConfig(ctx, params.site_id),
    }),
    op({
      operationId: 'putForecastConfig',
      method: 'PUT',
      path: '/api/optimiser/forecasting/sites/{site_id}/config',
      summary: "Set a site's forecast configuration",
      description:
        'Replaces the method (persistence, seasonal or blend), horizon (1 to 48 hours) and blend weight. 404 `Site not found`; 422 for a value out of range.',
      access: BEARER.configure,
      dataBasis: { basis: 'configured' },
      schema: { params: S.SiteParams, body: S.ConfigBody, response: { 200: S.Config } },
      handler: async ({ ctx, params, body }) => f.putConfig(ctx, params.site_id, body),
    }),
    op({
      operationId: 'getSiteForecast',
      method: 'GET',
      path: '/api/optimiser/forecasting/sites/{site_id}/forecast',
      summary: 'Load and generation forecast, half-hourly (up to 48 hours)',
      description: `From the next half hour for the configured horizon (or \`hours\`), by the configured method (or \`method\`), in UK settlement periods. ${BASIS} 404 \`Site not found\`.`,
      dataBasis: {
        basis: 'forecast',
        method: `${SERIES_METHOD} Forecast: each half hour carried forward from the stored history by the method (persistence: same UK wall-clock half hour on the last whole local day before the origin; seasonal: a local week earlier; blend: weighted mean; clock-change days as decision 0194).`,
      },
      schema: { params: S.SiteParams, query: S.ForecastQuery, response: { 200: S.Forecast } },
      handler: async ({ ctx, params, query }) => f.forecast(ctx, params.site_id, query),
    }),
    op({
      operationId: 'getForecastVsActual',
      method: 'GET',
      path: '/api/optimiser/forecasting/sites/{site_id}/forecast-vs-actual',
      summary: 'Day-ahead forecast against measured, half-hourly',
      description:
        'Each half hour of the window (default the last 24 hours, at most 31 days) as forecast from the UK midnight that starts its day, beside what was measured. 404 `Site not found`; 422 for a window that is empty or too long.',
      dataBasis: {
        basis: 'calculated',
        method: `${SERIES_METHOD} Forecasts recomputed from the same stored history with the origin at each day's UK midnight.`,
      },
      schema: { params: S.SiteParams, query: S.WindowQuery, response: { 200: S.VsActual } },
      handler: async ({ ctx, params, query }) => f.forecastVsActual(ctx, params.site_id, query),
    }),
    op({
      operationId: 'getForecastMetrics',
      method: 'GET',
      path: '/api/optimiser/forecasting/sites/{site_id}/metrics',
      summary: 'Forecast accuracy over a window',
      description:
        'MAE, RMSE, normalised MAE and bias of the day-ahead forecast for load and generation over the window (as forecast-vs-actual). 404 `Site not found`; 422 for a bad window.',
      dataBasis: {
        basis: 'calculated',
        method:
          'Over half hours with both forecast and actual: MAE = mean |f − a|; RMSE = √(mean (f − a)²); nMAE = Σ|f − a| ÷ Σ|a|; bias = mean (f − a). Rounded to 4 decimals.',
      },
      schema: { params: S.SiteParams, query: S.WindowQuery, response: { 200: S.MetricsResponse } },
      handler: async ({ ctx, params, query }) => f.metrics(ctx, params.site_id, query),
    }),
    op({
      operationId: 'runForecastBacktest',
      method: 'POST',
      path: '/api/optimiser/forecasting/sites/{site_id}/backtest',
      summary: 'Rolling-origin backtest comparing methods',
      description: `Every UK day of the period is forecast from its own local midnight by each method, and each method's accuracy is reported with the best one. Up to ${MAX_BACKTEST_DAYS} days: computed in the request, answered 200 with the result, nothing stored. Longer, up to ${MAX_BACKTEST_JOB_DAYS} days: answered 202 with a background job (a week of days a step) and a Location header to GET .../backtest/{backtest_id}, which shows its progress and, once completed, the same result (decision 0196). An organisation may have FORECAST_MAX_QUEUED_BACKTESTS (3 by default) backtest jobs queued or running: past that 429 with Retry-After: 60, and nothing is queued (decision 0291). 404 \`Site not found\`; 422 for a bad period.`,
      dataBasis: {
        basis: 'calculated',
        method: 'Rolling origin at each UK local midnight; metrics as GET metrics, over every half hour of the period (46/50 on clock-change days).',
      },
      locates: '/api/optimiser/forecasting/sites/{site_id}/backtest/{backtest_id}',
      schema: { params: S.SiteParams, body: S.BacktestBody, response: { 200: S.Backtest, 202: S.BacktestJob } },
      handler: async ({ ctx, params, body, reply }) => {
        const r = await f.backtest(ctx, params.site_id, body, jobs);
        if (!r.job) return r.result;
        reply.code(202);
        return r.job;
      },
    }),
    op({
      operationId: 'getForecastBacktest',
      method: 'GET',
      path: '/api/optimiser/forecasting/sites/{site_id}/backtest/{backtest_id}',
      summary: 'A long backtest job: progress, then its result',
      description: `Extension (decision 0196): a backtest longer than ${MAX_BACKTEST_DAYS} days runs as a background job; this reads its status, the UK days done of the days in the period, and the result once completed (the shape POST backtest answers for a short period). 404 \`Site not found\`; 404 \`Backtest not found\`.`,
      dataBasis: { basis: 'stored' },
      schema: paramsTo(S.BacktestJobParams, S.BacktestJob),
      handler: async ({ ctx, params }) => f.backtestJob(ctx, params.site_id, params.backtest_id),
    }),
  ];
}
