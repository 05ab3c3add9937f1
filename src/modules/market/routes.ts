// Market data: tariff prices, GSP regions, GB carbon intensity (endpoints.md 4.2, Market data).
import { isoTime, ErrorResponse } from '../../platform/schema-kit.ts';
import { BEARER, withDefaults } from '../../platform/operation.ts';
import { errors, fieldError } from '../../platform/errors.ts';
import type { AppDeps } from '../../platform/module.ts';
import type { MarketData } from './service.ts';
import { REGIONS, regionOf } from './regions.ts';
import { nextCheapWindow } from './prices.ts';
import type { RateRow } from './tariff-provider.ts';
import type { IntensityRow } from './carbon-provider.ts';
import { VAT_PERCENT } from './tariff-provider.ts';
import { addDays, ceilSlot, days, floorSlot, parseInstant, settlementPeriod, ukDate, ukMidnight, SLOT_MS } from '../../kit/uk-time.ts';
import {
  CurrentIntensityResponse,
  CurrentQuery,
  CurrentResponse,
  ForecastQuery,
  ForecastResponse,
  PricesQuery,
  PricesResponse,
  RegionsResponse,
} from './schemas.ts';

const MAX_RANGE_DAYS = 31;
/** What each market read says of a demo organisation's answer (decision 0486, sample.ts). */
const DEMO_SAMPLE =
  ' A demo organisation’s answer comes from a sample week shipped with the service, replayed onto the days asked for, never from the ' +
  'provider, and says `simulated`.';
const TWO_DAYS = 48 * 3600_000;

export function priceSlot(r: RateRow) {
  const sp = settlementPeriod(r.from);
  return {
    valid_from: isoTime(r.from),
    valid_to: isoTime(r.to),
    settlement_date: sp.date,
    settlement_period: sp.period,
    value_exc_vat: r.exc,
    value_inc_vat: r.inc,
  };
}

export function intensity(r: IntensityRow) {
  const sp = settlementPeriod(r.from);
  return {
    from: isoTime(r.from),
    to: isoTime(r.to),
    settlement_date: sp.date,
    settlement_period: sp.period,
    forecast: r.forecast,
    actual: r.actual,
    index: r.index,
  };
}

function period(query: { period_from?: string; period_to?: string }, now: number): { from: number; to: number } {
  const bad = (name: string, input: string) =>
    errors.validation([
      fieldError(
        ['query', name],
        'Input should be an ISO 8601 date-time with Z or a UTC offset (e.g. 2026-03-29T00:00:00Z), or a date YYYY-MM-DD',
        input,
        'datetime_parsing',
      ),
    ]);
  let from = query.period_from !== undefined ? parseInstant(query.period_from) : undefined;
  let to = query.period_to !== undefined ? parseInstant(query.period_to) : undefined;
  if (from === null) throw bad('period_from', query.period_from!);
  if (to === null) throw bad('period_to', query.period_to!);
  if (from === undefined && to === undefined) {
    from = ukMidnight(ukDate(now));
    to = ukMidnight(addDays(ukDate(now), 2));
  }
  from ??= to! - TWO_DAYS;
  to ??= from + TWO_DAYS;
  if (to <= from) {
    throw errors.validation([fieldError(['query', 'period_to'], 'period_to must be after period_from', query.period_to ?? isoTime(to))]);
  }
  if (to - from > days(MAX_RANGE_DAYS)) {
    throw errors.validation([fieldError(['query', 'period_to'], `The period must not be longer than ${MAX_RANGE_DAYS} days`, query.period_to ?? isoTime(to))]);
  }
  return { from, to };
}

export function marketOperations(deps: AppDeps, market: MarketData) {
  const { clock } = deps;
  const tags = ['market'];
  const op = withDefaults({ tags, status: 'live', access: BEARER.read });
  return [
    op({
      operationId: 'getAgilePrices',
      method: 'GET',
      path: '/api/trading/prices/provider-agile',
      summary: 'Half-hourly import prices for a GSP region',
      description:
        'Agile half-hourly import unit rates in pence per kWh, VAT inclusive with the exclusive figure alongside, ' +
        'ordered by time, UTC timestamps. A full UK day is 48 half hours (46 on the spring clock change, 50 on the ' +
        'autumn one). The next day is published at about 16:00 UK time: before that its half hours are absent, ' +
        '`complete` is false, and that is not an error. Provider failure without usable cached figures: 502 ' +
        '`Tariff provider API error`; cached figures past their lifetime are served with `stale: true`.' +
        DEMO_SAMPLE,
      dataBasis: {
        basis: 'stored',
        method: 'Unit rates as the tariff provider publishes them, relayed unchanged and cached; nothing is estimated.',
        demo:
          'Demo organisation: a sample week of Agile-shaped unit rates shipped with the service, replayed onto the days asked for by weekday ' +
          'and UK clock time; not the tariff provider’s prices for these days.',
      },
      schema: { query: PricesQuery, response: { 200: PricesResponse, 502: ErrorResponse } },
      handler: async ({ query, ctx }) => {
        const region = regionOf(query.region ?? 'C')!;
        const { from, to } = period(query, clock.now().getTime());
        const r = await market.forOrg(ctx.orgId).prices.range(region.letter, from, to);
        const expected = (ceilSlot(to) - floorSlot(from)) / SLOT_MS;
        return {
          region: region.letter,
          region_name: region.name,
          product_code: market.productCode,
          tariff_code: market.tariffCode(region.letter),
          period_from: isoTime(from),
          period_to: isoTime(to),
          unit: 'p/kWh' as const,
          vat_rate_percent: VAT_PERCENT,
          count: r.rows.length,
          expected_count: expected,
          complete: r.rows.length >= expected,
          published_until: r.rows.length ? isoTime(r.rows[r.rows.length - 1].to) : null,
          prices: r.rows.map(priceSlot),
          stale: r.stale,
          cached_at: isoTime(r.fetchedAt),
        };
      },
    }),
    op({
      operationId: 'getCurrentPrice',
      method: 'GET',
      path: '/api/trading/prices/current',
      summary: 'The current price half hour and the next cheap window',
      description:
        'The half hour containing now, and the next cheap window: among runs of `window_minutes` (default 120) of ' +
        'consecutive published half hours that start no earlier than the current half hour, within the published ' +
        'horizon (today and tomorrow, UK time), the run with the lowest mean VAT-inclusive price; the earliest wins ' +
        'a tie. Null when fewer half hours than the window are published.' +
        DEMO_SAMPLE,
      dataBasis: {
        basis: 'calculated',
        method:
          'The current half hour is the published price; the cheap window is the run of consecutive published half ' +
          'hours of the asked length, from the current one on, with the lowest mean VAT-inclusive price.',
        demo:
          'Demo organisation: the current half hour and the cheap window taken from a sample week of Agile-shaped unit rates shipped with the ' +
          'service, replayed onto today and tomorrow by weekday and UK clock time; not the tariff provider’s prices.',
      },
      schema: { query: CurrentQuery, response: { 200: CurrentResponse, 502: ErrorResponse } },
      handler: async ({ query, ctx }) => {
        const region = regionOf(query.region ?? 'C')!;
        const now = clock.now().getTime();
        const windowMinutes = query.window_minutes ?? 120;
        const today = ukDate(now);
        const r = await market.forOrg(ctx.orgId).prices.range(region.letter, ukMidnight(today), ukMidnight(addDays(today, 2)));
        const current = r.rows.find((row) => row.from <= now && now < row.to);
        const w = nextCheapWindow(r.rows, now, windowMinutes / 30);
        return {
          region: region.letter,
          region_name: region.name,
          at: isoTime(now),
          current: current ? priceSlot(current) : null,
          next_cheap_window: w
            ? {
                valid_from: isoTime(w.from),
                valid_to: isoTime(w.to),
                duration_minutes: windowMinutes,
                slots: w.rows.length,
                mean_value_inc_vat: w.meanInc,
                mean_value_exc_vat: w.meanExc,
                min_value_inc_vat: Math.min(...w.rows.map((x) => x.inc)),
                max_value_inc_vat: Math.max(...w.rows.map((x) => x.inc)),
              }
            : null,
          window_minutes: windowMinutes,
          published_until: r.rows.length ? isoTime(r.rows[r.rows.length - 1].to) : null,
          stale: r.stale,
          cached_at: isoTime(r.fetchedAt),
        };
      },
    }),
    op({
      operationId: 'listPriceRegions',
      method: 'GET',
      path: '/api/trading/prices/regions',
      summary: 'The 14 GSP regions',
      description: 'GSP group letters A to P (no I or O) with region name, distribution operator and identifiers.',
      dataBasis: { basis: 'configured' },
      schema: { response: { 200: RegionsResponse } },
      handler: async () => ({ count: REGIONS.length, regions: [...REGIONS] }),
    }),
    op({
      operationId: 'getCarbonIntensity',
      method: 'GET',
      path: '/api/trading/carbon-intensity',
      summary: 'GB grid carbon intensity for the current half hour',
      description:
        'gCO2/kWh for the current half-hour settlement period: the forecast, the actual once estimated (null before), ' +
        'and the index band. Provider failure without usable cached figures: 502 `Carbon Intensity API error`.' +
        DEMO_SAMPLE,
      dataBasis: {
        basis: 'forecast',
        method: 'The national carbon intensity forecast for the current half hour, with the provider’s estimated actual once published.',
        demo:
          'Demo organisation: a sample week of GB carbon intensity shipped with the service, replayed onto the current half hour by weekday ' +
          'and UK clock time; not the national figures for now.',
      },
      schema: { response: { 200: CurrentIntensityResponse, 502: ErrorResponse } },
      handler: async ({ ctx }) => {
        const s = await market.forOrg(ctx.orgId).carbon.current();
        return { region: 'GB' as const, unit: 'gCO2/kWh' as const, ...intensity(s.value), stale: s.stale, cached_at: isoTime(s.fetchedAt) };
      },
    }),
    op({
      operationId: 'getCarbonIntensityForecast',
      method: 'GET',
      path: '/api/trading/carbon-intensity/forecast',
      summary: 'GB grid carbon intensity forecast',
      description: 'Half-hourly forecast from the current half hour for `hours` hours (1 to 48, default 24).' + DEMO_SAMPLE,
      dataBasis: {
        basis: 'forecast',
        method: 'The national 48-hour carbon intensity forecast, half hour by half hour, cut to the hours asked for.',
        demo:
          'Demo organisation: a sample week of GB carbon intensity shipped with the service, replayed onto the hours asked for by weekday ' +
          'and UK clock time; not the national forecast.',
      },
      schema: { query: ForecastQuery, response: { 200: ForecastResponse, 502: ErrorResponse } },
      handler: async ({ query, ctx }) => {
        const hours = query.hours ?? 24;
        const s = await market.forOrg(ctx.orgId).carbon.forward(hours);
        const from = floorSlot(clock.now().getTime());
        return {
          region: 'GB' as const,
          unit: 'gCO2/kWh' as const,
          hours,
          from: isoTime(from),
          to: isoTime(from + hours * 3600_000),
          count: s.value.length,
          periods: s.value.map(intensity),
          stale: s.stale,
          cached_at: isoTime(s.fetchedAt),
        };
      },
    }),
  ];
}
