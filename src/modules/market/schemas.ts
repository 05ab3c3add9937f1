import { Type } from 'typebox';
import { DEFAULT_REGION, REGION_LETTERS } from './regions.ts';
import { INDEX_BANDS } from './carbon-provider.ts';

const Z = (description: string) => Type.String({ format: 'date-time', description });

export const RegionQuery = Type.Enum(REGION_LETTERS, {
  default: DEFAULT_REGION,
  description: 'GSP group letter, one of the 14 letters A to P without I and O (upper case). Default C (London).',
});

export const Freshness = {
  stale: Type.Boolean({
    description: 'True when the provider could not be reached and figures past their cache lifetime are served; ' + 'see cached_at for their age.',
  }),
  cached_at: Z('When the oldest figure in this answer was fetched from the provider (UTC).'),
};

export const PriceSlot = Type.Object({
  valid_from: Z('Start of the half hour, UTC'),
  valid_to: Z('End of the half hour, UTC'),
  settlement_date: Type.String({ description: 'UK local date of the half hour (YYYY-MM-DD)' }),
  settlement_period: Type.Integer({ description: 'Settlement period, 1 from UK local midnight: up to 46, 48 or 50' }),
  value_exc_vat: Type.Number({ description: 'p/kWh excluding VAT, as published' }),
  value_inc_vat: Type.Number({ description: 'p/kWh including 5% VAT, unrounded (derived from the unrounded exclusive figure)' }),
});

export const PricesQuery = Type.Object({
  region: Type.Optional(RegionQuery),
  period_from: Type.Optional(
    Type.String({
      description:
        'Start (inclusive): ISO 8601 date-time with Z or an offset, or a date YYYY-MM-DD meaning UK local midnight. ' +
        'Default: UK local midnight today (or period_to minus 48 hours).',
    }),
  ),
  period_to: Type.Optional(
    Type.String({
      description: 'End (exclusive), same forms. Default: period_from plus 48 hours (today and tomorrow). At most 31 days after period_from.',
    }),
  ),
});

export const PricesResponse = Type.Object({
  region: Type.String(),
  region_name: Type.String(),
  product_code: Type.String(),
  tariff_code: Type.String(),
  period_from: Z('Start of the period asked for, UTC'),
  period_to: Z('End of the period asked for (exclusive), UTC'),
  unit: Type.Literal('p/kWh'),
  vat_rate_percent: Type.Number(),
  count: Type.Integer({ description: 'Half hours in `prices`' }),
  expected_count: Type.Integer({ description: 'Half hours the period spans (48 a full UK day; 46 or 50 on clock-change days)' }),
  complete: Type.Boolean({ description: 'False while part of the period is not yet published (next day before about 16:00 UK time)' }),
  published_until: Type.Union([Z('End of the last published half hour in the period'), Type.Null()]),
  prices: Type.Array(PriceSlot, { description: 'Half-hourly import prices, ascending by time' }),
  ...Freshness,
});

export const CheapWindow = Type.Object({
  valid_from: Z('Start of the window, UTC'),
  valid_to: Z('End of the window, UTC'),
  duration_minutes: Type.Integer(),
  slots: Type.Integer(),
  mean_value_inc_vat: Type.Number({ description: 'Mean p/kWh including VAT over the window, 4 decimals' }),
  mean_value_exc_vat: Type.Number({ description: 'Mean p/kWh excluding VAT over the window, 4 decimals' }),
  min_value_inc_vat: Type.Number(),
  max_value_inc_vat: Type.Number(),
});

export const CurrentQuery = Type.Object({
  region: Type.Optional(RegionQuery),
  window_minutes: Type.Optional(
    Type.Integer({
      minimum: 30,
      maximum: 720,
      multipleOf: 30,
      default: 120,
      description: 'Length of the cheap window, a multiple of 30 minutes from 30 to 720. Default 120.',
    }),
  ),
});

export const CurrentResponse = Type.Object({
  region: Type.String(),
  region_name: Type.String(),
  at: Z('The instant the answer is for (now), UTC'),
  current: Type.Union([PriceSlot, Type.Null()], { description: 'The half hour containing now; null when not published' }),
  next_cheap_window: Type.Union([CheapWindow, Type.Null()], {
    description:
      'Among runs of consecutive published half hours of window_minutes that start no earlier than the current ' +
      'half hour, the run with the lowest mean VAT-inclusive price (earliest on ties); null when too few are published.',
  }),
  window_minutes: Type.Integer(),
  published_until: Type.Union([Z('End of the last published half hour'), Type.Null()]),
  ...Freshness,
});

export const Region = Type.Object({
  letter: Type.String(),
  name: Type.String(),
  gsp_group_id: Type.String({ description: 'The provider’s group id, e.g. _C' }),
  distributor_id: Type.Integer({ description: 'MPAN distributor id (10-23)' }),
  dno_licensee: Type.String(),
  distribution_operator: Type.String({ description: 'Current operator group' }),
  carbon_region_id: Type.Integer({ description: 'Region id in the carbon intensity API' }),
});

export const RegionsResponse = Type.Object({ count: Type.Integer(), regions: Type.Array(Region) });

export const Intensity = Type.Object({
  from: Z('Start of the half hour, UTC'),
  to: Z('End of the half hour, UTC'),
  settlement_date: Type.String({ description: 'UK local date (YYYY-MM-DD)' }),
  settlement_period: Type.Integer({ description: 'Settlement period from UK local midnight' }),
  forecast: Type.Number({ description: 'gCO2/kWh' }),
  actual: Type.Union([Type.Number(), Type.Null()], { description: 'gCO2/kWh; null until the provider has estimated it' }),
  index: Type.Enum([...INDEX_BANDS], { description: 'Index band as the provider gives it' }),
});

export const CurrentIntensityResponse = Type.Object({
  region: Type.Literal('GB'),
  unit: Type.Literal('gCO2/kWh'),
  ...Intensity.properties,
  ...Freshness,
});

export const ForecastQuery = Type.Object({
  hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 48, default: 24, description: 'Hours ahead, 1 to 48. Default 24.' })),
});

export const ForecastResponse = Type.Object({
  region: Type.Literal('GB'),
  unit: Type.Literal('gCO2/kWh'),
  hours: Type.Integer(),
  from: Z('Start of the current half hour, UTC'),
  to: Z('End of the horizon, UTC'),
  count: Type.Integer(),
  periods: Type.Array(Intensity),
  ...Freshness,
});
