// EMS reporting operations (endpoints.md 4.5): report, lineage, interval exports, PV
// underperformance and its attribution, out-of-hours consumption, PV calibration.
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { BEARER, withDefaults, type Operation } from '../../../platform/operation.ts';
import { LiteralUnion, ErrorResponse } from '../../../platform/schema-kit.ts';
import { csvRecord } from '../../../kit/csv.ts';
import * as S from '../schemas.ts';
import { FIGURE_KEYS } from '../reporting/figures.ts';
import { CAUSE_DEFINITIONS, REPORT_METHOD, type Reporting } from '../reporting/service.ts';

const tags = ['ems-reporting'];
const SiteId = Type.String({ minLength: 1, maxLength: 128, description: "The site (a site id of the organisation's registered assets)" });
const SiteQuery = { site_id: SiteId, ...S.DayQuery };
const OptSiteQuery = { site_id: Type.Optional(SiteId), ...S.DayQuery };
const Window = { from: S.Timestamp, to: S.Timestamp };
const GBP = (d: string) => S.Nullable(S.Money(`${d}, pounds (decimal text; null when the tariff is not set)`));
/** How a PV shortfall is valued (underperformance and its attribution). */
const ShortfallPricing = Type.Object({
  import_p_per_kwh: S.Nullable(Type.String()),
  export_p_per_kwh: S.Nullable(Type.String()),
  self_consumption_share: S.Nullable(Type.Number()),
  method: Type.String(),
});
/** A day of a generation shortfall: what was expected, what came, and the difference. */
const ShortfallDay = {
  date: Type.String(),
  expected_kwh: S.Kwh(),
  actual_kwh: S.Kwh(),
  shortfall_kwh: S.Kwh(),
};

const Value = Type.Union([Type.String(), Type.Number(), Type.Null()], {
  description: 'kWh and GBP as decimal text, kW and ratios as numbers, null when unavailable',
});
const WINDOW_NOTE = 'Window: `date` (one UK day) or `from`..`to` (UK days, inclusive), default the last 30 UK days ending yesterday; at most 366 days.';

const Figure = Type.Object({
  key: Type.String(),
  label: Type.String(),
  value: Value,
  unit: Type.String({ description: 'kWh | kW | ratio | GBP' }),
  basis: Type.String({
    description: 'Data basis of this figure: measured (every half hour complete and metered by counters) or calculated; simulated in a demo organisation',
  }),
  method: Type.String({ description: 'The formula the figure is computed by' }),
  unavailable_reason: S.Nullable(Type.String()),
  inputs: Type.Object({
    rollup: S.Nullable(Type.String({ description: 'The rollup table the figure sums' })),
    rollup_columns: Type.Array(Type.String()),
    days: Type.Integer({ description: 'Rollup days with data in the window' }),
    settings: Type.Record(Type.String(), Type.Unknown(), { description: 'The settings used, by name, as set' }),
  }),
  lineage_url: Type.String({ description: 'GET this for the rows and settings the figure came from' }),
});

const Calibration = Type.Object({
  calibration_id: Type.String(),
  site_id: Type.String(),
  from: Type.String({ description: 'First UK day of the fitting window' }),
  to: Type.String({ description: 'Last UK day (inclusive)' }),
  days_used: Type.Integer(),
  factor: Type.String({ description: 'Measured / clear-sky model energy over the days used (four places)' }),
  previous_factor: S.Nullable(Type.String()),
  days: Type.Array(
    Type.Object({ date: Type.String(), actual_kwh: S.Kwh(), clear_sky_kwh: S.Kwh(), ratio: S.Nullable(Type.Number()), correlation: Type.Number() }),
  ),
  candidates: Type.Integer({ description: 'Days in the window' }),
  rejected: Type.Record(Type.String(), Type.Integer(), { description: 'Days left out, by reason: incomplete, no_generation, not_clear_sky, too_low' }),
  created_by: S.Nullable(Type.String()),
  created_at: S.Timestamp,
});

const IntervalRow = Type.Object({
  site_id: Type.String(),
  settlement_date: Type.String({ description: 'UK local date of the settlement period' }),
  settlement_period: Type.Integer({ minimum: 1, maximum: 50, description: '1..48 (46 on the spring clock change, 50 on the autumn one)' }),
  period_start: S.Timestamp,
  period_end: S.Timestamp,
  period_start_local: Type.String({ description: 'UK local start with its offset, e.g. 2026-10-25T01:00:00+01:00' }),
  import_kwh: S.Nullable(S.Kwh()),
  export_kwh: S.Nullable(S.Kwh()),
  generation_kwh: S.Nullable(S.Kwh()),
  consumption_kwh: S.Nullable(S.Kwh()),
  charge_kwh: S.Nullable(S.Kwh()),
  discharge_kwh: S.Nullable(S.Kwh()),
  residual_kwh: S.Nullable(S.Kwh()),
  gap: Type.Boolean({ description: 'Not every expected asset reported over the whole half hour (no row at all: every figure null)' }),
  coverage: Type.Number(),
  consumption_method: S.Nullable(Type.String()),
  basis_import: S.BasisName,
  basis_export: S.BasisName,
  basis_generation: S.BasisName,
  basis_consumption: S.BasisName,
  basis_charge: S.BasisName,
  basis_discharge: S.BasisName,
});

const EXPORT_DESC =
  'One row per site and half hour of the window (UK local settlement periods: 46 rows a site on the spring clock-change day, 50 on the autumn one), sites in id order, half hours in time order. ' +
  'A half hour the rollup has no row for is still a row, with null figures, `gap` true and every basis `missing`. Streamed from the database in batches, never built whole. ' +
  '`site_id` limits it to one site (404 when the organisation has no asset there); without it every site. ';
const INTERVAL_METHOD =
  'Half-hour energy per site and flow from the energy rollup: counters where every contributing asset has one (measured), otherwise power integrated over time (calculated); each row carries its own basis per flow.';

const op = withDefaults({ tags, status: 'live', access: BEARER.read });

export function reportingOperations(rep: Reporting): Operation[] {
  return operations(rep);
}

function operations(rep: Reporting): Operation[] {
  return [
    op({
      operationId: 'getEmsReport',
      method: 'GET',
      path: '/api/hardware/ems/report',
      summary: 'EMS report of a site: every figure with its method, basis and lineage',
      description:
        "The site's energy figures over a window (import, export, generation, consumption, self-consumption, completeness, peak demand and capacity use, import cost and export income, PV expected yield and performance, out-of-hours consumption). " +
        'Every figure states its formula, its data basis, the rollup columns and settings it used, and `lineage_url`: GET /api/hardware/ems/lineage for the rows it came from. ' +
        'A figure whose settings are not set is null with `unavailable_reason`. ' +
        WINDOW_NOTE,
      dataBasis: { basis: 'calculated', method: REPORT_METHOD },
      schema: {
        query: Type.Object(SiteQuery),
        response: {
          200: S.SiteWindow({
            days: Type.Integer(),
            half_hours: Type.Integer({ description: 'Half hours in the window (UK local days)' }),
            data_basis: Type.String(),
            method: Type.String(),
            settings_configured: Type.Boolean(),
            settings_updated_at: S.Nullable(S.Timestamp),
            calibration: S.Nullable(Type.Object({ calibration_id: Type.String(), factor: Type.String(), created_at: S.Timestamp })),
            figures: Type.Array(Figure),
          }),
          404: ErrorResponse,
        },
      },
      handler: ({ ctx, query }) => rep.report(ctx, query),
    }),
    op({
      operationId: 'getEmsLineage',
      method: 'GET',
      path: '/api/hardware/ems/lineage',
      summary: 'Where a report figure came from: settings, daily rollup rows, half hours',
      description:
        'For one `figure` of the report over the same window: the figure as the report gives it, its formula, the settings used (value, source, when set) and the rollup rows it was computed from. ' +
        'A window of more than one day lists its UK days (energy_site_days: the input columns, half hours with data, complete and measured), each with the one-day lineage URL; a one-day window lists its half hours (energy_site_halfhours: inputs, basis, gap), each with `reading_url` to GET /api/hardware/ems/lineage/reading. ' +
        'Figures: ' +
        FIGURE_KEYS.join(', ') +
        '. ' +
        WINDOW_NOTE,
      dataBasis: { basis: 'calculated', method: REPORT_METHOD },
      schema: {
        query: Type.Object({ ...SiteQuery, figure: LiteralUnion(FIGURE_KEYS, { description: 'A figure key of the report' }) }),
        response: {
          200: S.SiteWindow({
            figure: Figure,
            formula: Type.String(),
            settings: Type.Array(Type.Object({ name: Type.String(), value: Type.Unknown(), source: Type.String(), updated_at: S.Nullable(S.Timestamp) })),
            calibration: S.Nullable(Type.Object({ calibration_id: Type.String(), factor: Type.String(), created_at: S.Timestamp })),
            level: Type.String({ description: 'day (window longer than a day) or half_hour' }),
            days: Type.Array(
              Type.Object({
                date: Type.String(),
                rollup: Type.String(),
                present: Type.Boolean(),
                inputs: Type.Record(Type.String(), Type.Unknown()),
                half_hours: Type.Integer(),
                half_hours_with_data: Type.Integer(),
                complete_half_hours: Type.Integer(),
                measured_half_hours: Type.Integer(),
                lineage_url: Type.String(),
              }),
            ),
            half_hours: Type.Array(
              Type.Object({
                period_start: S.Timestamp,
                period_end: S.Timestamp,
                settlement_date: Type.String(),
                settlement_period: Type.Integer(),
                rollup: Type.String(),
                present: Type.Boolean(),
                gap: Type.Boolean(),
                basis: S.Nullable(S.FlowBasis),
                inputs: Type.Record(Type.String(), Type.Unknown()),
                reading_url: Type.String(),
              }),
            ),
          }),
          404: ErrorResponse,
        },
      },
      handler: ({ ctx, query }) => rep.lineage(ctx, query),
    }),
    op({
      operationId: 'getEmsReadingLineage',
      method: 'GET',
      path: '/api/hardware/ems/lineage/reading',
      summary: 'The asset flows and stored readings behind one half hour of a site',
      description:
        "For the half hour starting at `period_start` (ISO 8601 with an offset, on a half-hour boundary): the site's half hour as the ledger holds it, and for each asset feeding a flow (or only `asset_id`) the flows it contributed (kWh, basis, source `counter:<key>` or `power_kw`, coverage, samples, counter resets) and the stored readings they were computed from: those inside the half hour (at most 500) and the neighbour before and after it that the integration pairs with (reading id, time, time received, power, counter values, anomalies).",
      dataBasis: { basis: 'measured' },
      schema: {
        query: Type.Object({
          site_id: SiteId,
          period_start: Type.String({ minLength: 1, maxLength: 64, description: 'Start of the half hour, e.g. 2026-10-25T01:00:00Z' }),
          asset_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        }),
        response: {
          200: Type.Object({
            site_id: Type.String(),
            ...S.HalfHour.properties,
            method: Type.String(),
            assets: Type.Array(
              Type.Object({
                asset_id: Type.String(),
                asset_class: Type.String(),
                role: Type.String(),
                flows: Type.Array(Type.Object(S.AssetFlowFigures)),
                readings: Type.Array(
                  Type.Object({
                    reading_id: Type.String(),
                    ts: S.Timestamp,
                    received_at: S.Timestamp,
                    position: Type.String({ description: 'before | inside | after the half hour' }),
                    power_kw: S.Nullable(Type.Number()),
                    counters: Type.Record(Type.String(), Type.Number()),
                    anomalies: Type.Array(Type.String()),
                  }),
                ),
                readings_inside: Type.Integer(),
                truncated: Type.Boolean(),
              }),
            ),
          }),
          404: ErrorResponse,
        },
      },
      handler: ({ ctx, query }) => rep.readingLineage(ctx, query),
    }),
    op({
      operationId: 'exportEmsIntervalCsv',
      method: 'GET',
      path: '/api/hardware/ems/exports/interval.csv',
      summary: 'Half-hourly interval data as CSV',
      description:
        EXPORT_DESC +
        '`text/csv` per RFC 4180 (CRLF, header row); a text field a spreadsheet would run as a formula gets a leading apostrophe. Columns: ' +
        Object.keys(IntervalRow.properties).join(', ') +
        '. ' +
        WINDOW_NOTE,
      dataBasis: { basis: 'calculated', method: INTERVAL_METHOD },
      produces: 'text/csv',
      schema: { query: Type.Object(OptSiteQuery), response: { 200: Type.String({ description: 'CSV text with a header row' }), 404: ErrorResponse } },
      handler: async ({ ctx, query, reply }) => {
        const { w, sites } = await rep.exportScope(ctx, query);
        const cols = rep.COLUMNS;
        async function* lines() {
          yield csvRecord([...cols]);
          yield* rep.intervalText(ctx.orgId, sites, w, 'csv');
        }
        reply.type('text/csv; charset=utf-8');
        reply.header('Content-Disposition', 'attachment; filename="interval.csv"');
        return Readable.from(lines());
      },
    }),
    op({
      operationId: 'exportEmsInterval',
      method: 'GET',
      path: '/api/hardware/ems/exports/interval',
      summary: 'Half-hourly interval data as JSON',
      description: EXPORT_DESC + 'A JSON object whose `rows` array is written as it is read. ' + WINDOW_NOTE,
      dataBasis: { basis: 'calculated', method: INTERVAL_METHOD },
      schema: {
        query: Type.Object(OptSiteQuery),
        response: {
          200: Type.Object({ ...Window, site_ids: Type.Array(Type.String()), half_hours_per_site: Type.Integer(), rows: Type.Array(IntervalRow) }),
          404: ErrorResponse,
        },
      },
      handler: async ({ ctx, query, reply }) => {
        const { w, sites } = await rep.exportScope(ctx, query);
        async function* parts() {
          yield `{"from":${JSON.stringify(new Date(w.from).toISOString())},"to":${JSON.stringify(new Date(w.to).toISOString())},` +
            `"site_ids":${JSON.stringify(sites)},"half_hours_per_site":${Math.round((w.to - w.from) / 1_800_000)},"rows":[`;
          let first = true;
          for await (const chunk of rep.intervalText(ctx.orgId, sites, w, 'json')) {
            yield first ? chunk : `,${chunk}`;
            first = false;
          }
          yield ']}';
        }
        reply.type('application/json; charset=utf-8');
        return Readable.from(parts());
      },
    }),
    op({
      operationId: 'exportEmsEnergySummary',
      method: 'GET',
      path: '/api/hardware/ems/exports/energy-summary',
      summary: 'Energy totals per site over a window',
      description:
        "One entry per site (or `site_id` only): each flow's total, generation used on site, peak half-hour demand, data completeness and the basis (measured when every half hour is complete and counter-metered). Read from the daily rollup. " +
        WINDOW_NOTE,
      dataBasis: {
        basis: 'calculated',
        method: "Sums of each site's UK days from the daily rollup (itself the sum of its half hours); peak demand = largest half-hour import × 2.",
      },
      schema: {
        query: Type.Object(OptSiteQuery),
        response: {
          200: Type.Object({
            ...Window,
            days: Type.Integer(),
            half_hours: Type.Integer(),
            sites: Type.Array(
              Type.Object({
                site_id: Type.String(),
                ...S.FlowFigures,
                residual_kwh: S.Kwh(),
                self_consumed_kwh: S.Kwh(),
                peak_demand_kw: S.Nullable(Type.Number()),
                half_hours_with_data: Type.Integer(),
                complete_half_hours: Type.Integer(),
                measured_half_hours: Type.Integer(),
                data_completeness: S.Ratio('complete half hours / half hours in the window'),
                basis: Type.String(),
              }),
            ),
          }),
          404: ErrorResponse,
        },
      },
      handler: ({ ctx, query }) => rep.energySummary(ctx, query),
    }),
    op({
      operationId: 'getPvUnderperformance',
      method: 'GET',
      path: '/api/hardware/ems/underperformance',
      summary: 'PV generation against expected yield, the shortfall priced in pounds',
      description:
        "Each UK day's expected PV energy (pv_kwp × expected_yield_kwh_per_kwp × the month's share of a UK year ÷ days in the month × the calibration factor) against the generation measured, the shortfall (expected - actual where positive) and its value: the self-consumed share at the import unit rate, the exported share at the export rate. " +
        'Needs pv_kwp and expected_yield_kwh_per_kwp in the site settings (409). ' +
        WINDOW_NOTE,
      dataBasis: {
        basis: 'calculated',
        method:
          "Expected yield from the site settings and calibration spread over months by a UK profile, compared with generation from the daily rollup; shortfall valued at the tariff as the window's generation was used.",
      },
      schema: {
        query: Type.Object(SiteQuery),
        response: {
          200: S.SiteWindow({
            pv_kwp: Type.Number(),
            expected_yield_kwh_per_kwp: Type.Number(),
            calibration_factor: Type.String(),
            calibration_id: S.Nullable(Type.String()),
            expected_kwh: S.Kwh(),
            actual_kwh: S.Kwh(),
            shortfall_kwh: S.Kwh(),
            performance_ratio: S.Ratio('actual / expected'),
            value_gbp: GBP('Value of the shortfall'),
            underperforming_days: Type.Integer(),
            pricing: ShortfallPricing,
            days: Type.Array(
              Type.Object({
                ...ShortfallDay,
                performance_ratio: S.Ratio('actual / expected'),
                value_gbp: GBP("Value of the day's shortfall"),
                complete: Type.Boolean(),
                complete_half_hours: Type.Integer(),
              }),
            ),
          }),
          404: ErrorResponse,
          409: ErrorResponse,
        },
      },
      handler: ({ ctx, query }) => rep.underperformance(ctx, query),
    }),
    op({
      operationId: 'getPvUnderperformanceAttribution',
      method: 'GET',
      path: '/api/hardware/ems/underperformance/attribution',
      summary: 'The PV shortfall split by cause',
      description:
        "Each UK day's shortfall split, in this order and each capped by what is left, into: " +
        Object.entries(CAUSE_DEFINITIONS)
          .map(([k, v]) => `\`${k}\` (${v})`)
          .join('; ') +
        " Expected energy is spread over the day's half hours by the clear-sky shape. Causes sum to the shortfall; each is valued as in GET underperformance. At most 92 days. " +
        WINDOW_NOTE.replace('at most 366 days', 'at most 92 days'),
      dataBasis: {
        basis: 'calculated',
        method:
          'Half-hour generation from the rollup against the expected yield shaped by a clear-sky model; the shortfall assigned to causes by the stated rules in order.',
      },
      schema: {
        query: Type.Object(SiteQuery),
        response: {
          200: S.SiteWindow({
            calibration_factor: Type.String(),
            shortfall_kwh: S.Kwh(),
            value_gbp: GBP('Value of the shortfall'),
            causes: Type.Array(
              Type.Object({
                cause: Type.String(),
                kwh: S.Kwh(),
                share: S.Ratio('cause / shortfall'),
                value_gbp: GBP('Value of this cause'),
                days: Type.Integer(),
                definition: Type.String(),
              }),
            ),
            pricing: ShortfallPricing,
            days: Type.Array(
              Type.Object({
                ...ShortfallDay,
                main_cause: S.Nullable(Type.String()),
                causes: Type.Record(Type.String(), S.Kwh()),
              }),
            ),
          }),
          404: ErrorResponse,
          409: ErrorResponse,
        },
      },
      handler: ({ ctx, query }) => rep.attribution(ctx, query),
    }),
    op({
      operationId: 'getOutOfHoursConsumption',
      method: 'GET',
      path: '/api/hardware/ems/out-of-hours',
      summary: "Consumption outside the site's operating hours",
      description:
        'Consumption in and out of the operating hours of the site settings (a half hour is in hours when its UK local start falls in a rule for its UK weekday), per UK day and in total, with the import out of hours and its cost at the import unit rate. Needs operating_hours (409). ' +
        WINDOW_NOTE,
      dataBasis: {
        basis: 'calculated',
        method:
          'Half-hour consumption and import from the rollup split by the configured operating hours in UK local time; cost = out-of-hours import × import unit rate, rounded to the penny once.',
      },
      schema: {
        query: Type.Object(SiteQuery),
        response: {
          200: S.SiteWindow({
            operating_hours: Type.Array(Type.Object({ days: Type.Array(Type.String()), start: Type.String(), end: Type.String() })),
            in_hours_kwh: S.Kwh(),
            out_of_hours_kwh: S.Kwh(),
            out_of_hours_share: S.Ratio('out of hours / all consumption'),
            out_of_hours_import_kwh: S.Kwh(),
            out_of_hours_import_cost_gbp: GBP('Out-of-hours import at the import unit rate'),
            import_p_per_kwh: S.Nullable(Type.String()),
            half_hours: Type.Integer(),
            complete_half_hours: Type.Integer(),
            days: Type.Array(
              Type.Object({
                date: Type.String(),
                weekday: Type.String(),
                in_hours_kwh: S.Kwh(),
                out_of_hours_kwh: S.Kwh(),
                out_of_hours_import_kwh: S.Kwh(),
                out_of_hours_share: S.Ratio(''),
                out_of_hours_import_cost_gbp: GBP("The day's out-of-hours import cost"),
                half_hours: Type.Integer(),
                complete_half_hours: Type.Integer(),
              }),
            ),
          }),
          404: ErrorResponse,
          409: ErrorResponse,
        },
      },
      handler: ({ ctx, query }) => rep.outOfHours(ctx, query),
    }),
    op({
      operationId: 'getPvCalibration',
      method: 'GET',
      path: '/api/hardware/ems/pv-calibration',
      summary: 'The PV calibration of a site and its history',
      description: 'The factor in force (1.0000 until the site is calibrated), the newest calibration and every earlier one, newest first.',
      dataBasis: { basis: 'stored' },
      schema: {
        query: Type.Object({ site_id: SiteId }),
        response: {
          200: Type.Object({
            site_id: Type.String(),
            factor: Type.String(),
            calibrated: Type.Boolean(),
            pv_kwp: S.Nullable(Type.Number()),
            expected_yield_kwh_per_kwp: S.Nullable(Type.Number()),
            current: S.Nullable(Calibration),
            history: Type.Array(Calibration),
          }),
          404: ErrorResponse,
        },
      },
      handler: ({ ctx, query }) => rep.calibrations(ctx, query),
    }),
    op({
      operationId: 'calibratePv',
      method: 'POST',
      path: '/api/hardware/ems/pv-calibration',
      summary: 'Fit the expected PV yield to clear-sky measured days',
      description:
        "Finds the clear-sky days of the window (`from`..`to`, default the last 90 UK days, at most 366): every half hour complete with generation reported, the day's half-hour generation correlating 0.98 or more with the clear-sky model and reaching at least half of it. " +
        "The factor is their generation ÷ the model's energy (four places); it multiplies the expected yield from then on. Kept as history; the newest is in force. 409 when no day qualifies or the PV settings are not set. Audited (`ems.pv_calibration.create`).",
      access: BEARER.configure,
      dataBasis: {
        basis: 'calculated',
        method:
          'Measured half-hour generation on clear-sky days against a clear-sky model (Haurwitz irradiance at a central-England reference point, performance ratio 0.85); factor = Σ measured / Σ model.',
      },
      schema: {
        body: Type.Object(
          {
            site_id: SiteId,
            from: Type.Optional(Type.String({ description: 'First UK day, YYYY-MM-DD' })),
            to: Type.Optional(Type.String({ description: 'Last UK day (inclusive), YYYY-MM-DD' })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Calibration, 404: ErrorResponse, 409: ErrorResponse },
      },
      handler: ({ ctx, body }) => rep.calibrate(ctx, body),
    }),
  ];
}
