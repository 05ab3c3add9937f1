// Request and response shapes of the forecasting operations.
import { Type } from 'typebox';
import { JobProgressSchema, Nullable, Timestamp } from '../../platform/schema-kit.ts';
import { SiteId } from '../registry/index.ts';

const MethodT = Type.Union([Type.Literal('persistence'), Type.Literal('seasonal'), Type.Literal('blend')], {
  description: 'persistence (last stored day carried forward), seasonal (same half hour last week) or blend (weighted mean of the two)',
});
const DateT = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'UK local date YYYY-MM-DD' });

export const SiteParams = Type.Object({ site_id: SiteId });

export const SitesResponse = Type.Object({
  sites: Type.Array(
    Type.Object({
      site_id: Type.String({ description: 'Site id' }),
      method: MethodT,
      horizon_hours: Type.Integer({ description: 'Configured horizon in hours' }),
      configured: Type.Boolean({ description: 'False while the site uses the defaults' }),
      forecasts_load: Type.Boolean({ description: 'Whether the site has a grid meter or metered loads from which load is derived' }),
      forecasts_generation: Type.Boolean({ description: 'Whether the site has an inverter from which generation is derived' }),
    }),
    { description: 'Every site with a registered asset or a forecast configuration, by site id' },
  ),
});

export const ConfigBody = Type.Object(
  {
    method: MethodT,
    horizon_hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 48, description: 'Forecast horizon in hours, 1 to 48 (default 48)' })),
    seasonal_weight: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Blend only: weight of the seasonal forecast, 0 to 1 (default 0.5)' })),
  },
  { additionalProperties: false },
);

export const Config = Type.Object({
  site_id: Type.String({ description: 'Site id' }),
  method: MethodT,
  horizon_hours: Type.Integer({ description: 'Forecast horizon in hours' }),
  seasonal_weight: Type.Number({ description: 'Weight of the seasonal forecast in the blend' }),
  is_default: Type.Boolean({ description: 'True when nothing was configured (measured persistence, 48 hours)' }),
  updated_at: Nullable(Timestamp, 'When the configuration was last written'),
  updated_by: Nullable(Type.String(), 'Who wrote it (user id, or key:<id>)'),
});

export const ForecastQuery = Type.Object(
  {
    hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 48, description: 'Horizon in hours (default: the configured horizon)' })),
    method: Type.Optional(MethodT),
  },
  { additionalProperties: false },
);

const Slot = {
  start: Timestamp,
  end: Timestamp,
  settlement_date: Type.String({ description: 'UK settlement date' }),
  settlement_period: Type.Integer({ description: 'Settlement period 1-46/48/50 counted from UK local midnight' }),
};
const Kwh = (d: string) => Nullable(Type.Number(), d);

export const Forecast = Type.Object({
  site_id: Type.String({ description: 'Site id' }),
  method: MethodT,
  method_description: Type.String({ description: 'The method in one sentence' }),
  seasonal_weight: Type.Number({ description: 'Weight of seasonal in the blend' }),
  origin: Timestamp,
  horizon_hours: Type.Integer({ description: 'Horizon in hours' }),
  last_stored_half_hour: Nullable(Timestamp, 'The newest half hour of stored history (null: none)'),
  half_hours: Type.Array(
    Type.Object({
      ...Slot,
      load_kwh: Kwh('Forecast site load, kWh (null: no history for it)'),
      generation_kwh: Kwh('Forecast generation, kWh (null: no history or no inverter)'),
    }),
    { description: 'One entry a half hour from the origin' },
  ),
});

export const WindowQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Window start (floored to the half hour; default 24 hours before to)' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Window end, exclusive (default the current half hour); at most 31 days after from' })),
    method: Type.Optional(MethodT),
  },
  { additionalProperties: false },
);

export const VsActual = Type.Object({
  site_id: Type.String({ description: 'Site id' }),
  method: MethodT,
  from: Timestamp,
  to: Timestamp,
  half_hours: Type.Array(
    Type.Object({
      ...Slot,
      load_forecast_kwh: Kwh('Day-ahead forecast of load, kWh'),
      load_actual_kwh: Kwh('Measured load, kWh'),
      generation_forecast_kwh: Kwh('Day-ahead forecast of generation, kWh'),
      generation_actual_kwh: Kwh('Measured generation, kWh'),
    }),
    { description: 'Each half hour of the window, forecast from the UK midnight that starts its day' },
  ),
});

export const MetricsT = Type.Object({
  n: Type.Integer({ description: 'Half hours with both a forecast and an actual' }),
  mae_kwh: Kwh('Mean absolute error, kWh'),
  rmse_kwh: Kwh('Root mean square error, kWh'),
  nmae: Kwh('MAE ÷ mean absolute actual'),
  bias_kwh: Kwh('Mean of forecast − actual, kWh (positive: over-forecast)'),
});

export const MetricsResponse = Type.Object({
  site_id: Type.String({ description: 'Site id' }),
  method: MethodT,
  from: Timestamp,
  to: Timestamp,
  load: MetricsT,
  generation: MetricsT,
});

export const BacktestBody = Type.Object(
  {
    from: DateT,
    to: {
      ...DateT,
      description: 'UK local date after the last day tested (exclusive); up to 28 days is answered in the request, up to 366 days as a background job (202)',
    },
    methods: Type.Optional(Type.Array(MethodT, { minItems: 1, maxItems: 3, description: 'Methods to compare (default all three)' })),
  },
  { additionalProperties: false },
);

export const Backtest = Type.Object({
  site_id: Type.String({ description: 'Site id' }),
  from: Type.String({ description: 'First day tested' }),
  to: Type.String({ description: 'Day after the last day tested' }),
  origins: Type.Integer({ description: 'Forecast origins (one a UK day, at local midnight)' }),
  half_hours: Type.Integer({ description: 'Half hours in the period (46/50 on clock-change days)' }),
  seasonal_weight: Type.Number({ description: 'Blend weight used' }),
  results: Type.Array(Type.Object({ method: MethodT, load: MetricsT, generation: MetricsT }), { description: 'Accuracy of each method' }),
  best_for_load: Nullable(MethodT, 'The method with the lowest load MAE'),
  best_for_generation: Nullable(MethodT, 'The method with the lowest generation MAE'),
});

export const BacktestJobParams = Type.Object({ site_id: SiteId, backtest_id: Type.String({ format: 'uuid', description: 'Backtest job id' }) });

export const BacktestJob = Type.Object({
  backtest_id: Type.String({ description: 'Backtest job id' }),
  site_id: Type.String({ description: 'Site id' }),
  status: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('completed'), Type.Literal('failed')], {
    description: 'queued, running, completed or failed',
  }),
  from: Type.String({ description: 'First day tested' }),
  to: Type.String({ description: 'Day after the last day tested' }),
  methods: Type.Array(MethodT, { description: 'Methods compared' }),
  progress: JobProgressSchema('days', 'UK days in the period, backtested a week at a time'),
  created_at: Timestamp,
  started_at: Nullable(Timestamp, 'When the first chunk was computed'),
  completed_at: Nullable(Timestamp, 'When it completed or failed'),
  error: Nullable(Type.String(), 'Why it failed'),
  result: Nullable(Backtest, 'The backtest, once completed (the same shape as a short period answered in the request)'),
});
