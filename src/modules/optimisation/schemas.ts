// Request and response shapes of the optimisation operations.
import { Type } from 'typebox';
import { Money, Nullable, Timestamp, LimitParam, CursorParam, PageMembers } from '../../platform/schema-kit.ts';
import { SiteId } from '../registry/index.ts';

export const SiteParams = Type.Object({ site_id: SiteId });
export const RunParams = Type.Object({ site_id: SiteId, run_id: Type.String({ minLength: 1, maxLength: 64, description: 'Run id' }) });
export const DeviceParams = Type.Object({
  site_id: SiteId,
  device_id: Type.String({ minLength: 1, maxLength: 200, description: 'A battery registered at the site' }),
});
export const PageQuery = Type.Object(
  { limit: Type.Optional(LimitParam({ default: 20, max: 100 })), cursor: Type.Optional(CursorParam) },
  { additionalProperties: false },
);

const Pct = (d: string) => Type.Number({ minimum: 0, maximum: 100, description: d });
const Pos = (d: string, max = 100_000) => Type.Number({ exclusiveMinimum: 0, maximum: max, description: d });
const Price = Type.Number({ minimum: -1000, maximum: 1000, description: 'p/kWh' });

export const Battery = Type.Object(
  {
    device_id: Type.String({ minLength: 1, maxLength: 200, description: 'A battery registered at the site' }),
    capacity_kwh: Pos('Usable capacity, kWh'),
    max_charge_kw: Pos('Charge power limit, kW'),
    max_discharge_kw: Type.Optional(Pos('Discharge power limit, kW (default: max_charge_kw)')),
    round_trip_efficiency: Type.Optional(Type.Number({ minimum: 0.5, maximum: 1, description: 'Round-trip efficiency 0.5 to 1 (default 0.9)' })),
    min_soc_pct: Type.Optional(Pct('Lowest state of charge allowed, % (default 10)')),
    max_soc_pct: Type.Optional(Pct('Highest state of charge allowed, % (default 100)')),
    initial_soc_pct: Pct('State of charge at the start, %'),
  },
  { additionalProperties: false },
);

export const TariffRunBody = Type.Object(
  {
    start: Type.Optional(Type.String({ format: 'date-time', description: 'First half hour (floored); default the next half hour' })),
    hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 48, description: 'Horizon, 1 to 48 hours (default 24)' })),
    batteries: Type.Array(Battery, { minItems: 1, maxItems: 10, description: 'The batteries to schedule (1 to 10)' }),
    prices: Type.Union(
      [
        Type.Object(
          {
            source: Type.Literal('agile'),
            region: Type.Optional(Type.String({ pattern: '^[A-HJ-NP]$', description: 'GSP region letter (default C, London)' })),
          },
          { additionalProperties: false },
        ),
        Type.Object(
          {
            source: Type.Literal('manual'),
            import_p_per_kwh: Type.Array(Price, {
              minItems: 1,
              maxItems: 96,
              description: 'One import price a half hour (a retail tariff expanded to half hours)',
            }),
            export_p_per_kwh: Type.Optional(Type.Array(Price, { minItems: 1, maxItems: 96, description: 'One export price a half hour' })),
          },
          { additionalProperties: false },
        ),
        Type.Object(
          {
            source: Type.Literal('retail_tariff'),
            tariff_id: Type.String({
              minLength: 1,
              maxLength: 100,
              description:
                "One of the organisation's retail tariffs (POST /api/trading/retail-tariffs): its flat or time-of-use unit rate, VAT inclusive, from the version in force each UK day; a dynamic tariff is refused (use agile)",
            }),
          },
          { additionalProperties: false },
        ),
      ],
      { description: "Half-hourly prices: Agile from the market adapter, given in the request, or a stored retail tariff's unit rates" },
    ),
    export_p_per_kwh: Type.Optional(Type.Number({ minimum: 0, maximum: 1000, description: 'Flat export price where none is given per half hour (default 0)' })),
    include_site_forecast: Type.Optional(Type.Boolean({ description: "Plan around the site's forecast load and generation (default true)" })),
  },
  { additionalProperties: false },
);

const DevicePlan = Type.Object({
  device_id: Type.String(),
  kind: Type.Union([Type.Literal('battery'), Type.Literal('ev_charger')]),
  power_kw: Type.Number({ description: 'Planned power, kW: positive charges' }),
  soc_kwh: Nullable(Type.Number(), 'Battery state of charge at the end of the half hour, kWh'),
});
export const HalfHourPlan = Type.Array(
  Type.Object({
    start: Timestamp,
    end: Timestamp,
    settlement_date: Type.String({ description: 'UK settlement date' }),
    settlement_period: Type.Integer({ description: 'Settlement period (46/50 on clock-change days)' }),
    import_p_per_kwh: Type.Number({ description: 'Import price used' }),
    export_p_per_kwh: Type.Number({ description: 'Export price used' }),
    site_net_kwh: Type.Number({ description: 'Forecast site import before the flexible assets (negative: export)' }),
    devices: Type.Array(DevicePlan),
    grid_import_kwh: Type.Number({ description: 'Planned grid import' }),
    grid_export_kwh: Type.Number({ description: 'Planned grid export' }),
    // Optional only so that plans recorded before decision 0195 still read back; every new plan has them.
    cost_gbp: Type.Optional(
      Money(
        "The plan's cost in this half hour, £ (net grid energy to the Wh × price, rounded to £0.0001); the plan's total is the exact sum of these. Absent on plans recorded before decision 0195",
      ),
    ),
    cost_do_nothing_gbp: Type.Optional(Money('Cost in this half hour with the flexible assets idle, £ (same rounding)')),
    cost_simple_rule_gbp: Type.Optional(Money('Cost in this half hour under the simple rule, £ (same rounding)')),
  }),
  { description: 'The plan, one entry a half hour' },
);

const RunCommon = {
  run_id: Type.String({ description: 'Run id' }),
  site_id: Type.String({ description: 'Site id' }),
  created_at: Timestamp,
  created_by: Nullable(Type.String(), 'Who asked'),
  dispatched: Type.Boolean({ description: 'Whether the first half hour was sent (import limit, demo realm only)' }),
  start: Timestamp,
  end: Timestamp,
};
const TariffSummary = {
  ...RunCommon,
  half_hours: Type.Integer({ description: 'Half hours planned' }),
  cost_do_nothing_gbp: Money('Energy cost with the batteries idle, £'),
  cost_simple_rule_gbp: Money('Energy cost under the simple rule, £'),
  cost_optimised_gbp: Money('Energy cost of the plan, £'),
  saving_vs_do_nothing_gbp: Money('Saving of the plan against doing nothing, £'),
  saving_vs_simple_rule_gbp: Money('Saving of the plan against the simple rule, £'),
};
export const TariffRunSummary = Type.Object(TariffSummary);
export const TariffRun = Type.Object({
  ...TariffSummary,
  status: Type.String({ description: 'optimal' }),
  solver: Type.String({ description: 'The solver used' }),
  method: Type.String({ description: 'The optimisation in one sentence' }),
  baseline_method: Type.String({ description: 'The simple rule compared against' }),
  price_source: Type.String({ description: 'Where the prices came from' }),
  site_forecast: Type.String({ description: 'The site forecast used, or that none was' }),
  batteries: Type.Array(
    Type.Object({
      device_id: Type.String(),
      capacity_kwh: Type.Number(),
      min_soc_kwh: Type.Number(),
      max_soc_kwh: Type.Number(),
      initial_soc_kwh: Type.Number(),
      max_discharge_kwh_per_day: Nullable(Type.Number(), 'Warranty limit applied: discharge energy a UK day'),
    }),
  ),
  solve_ms: Type.Number({ description: 'Solver time, ms' }),
  half_hour_plan: HalfHourPlan,
});
export const TariffRuns = Type.Object({ runs: Type.Array(TariffRunSummary), ...PageMembers });

const WarrantyFields = {
  max_cycles_per_day: Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 10 }), 'Full cycles a UK day the warranty allows (null: no limit)'),
  max_throughput_kwh_per_day: Nullable(
    Type.Number({ exclusiveMinimum: 0, maximum: 100_000 }),
    'Discharge energy a UK day the warranty allows, kWh (null: no limit)',
  ),
};
export const WarrantyBody = Type.Object(
  { ...WarrantyFields, warranty_end: Type.Optional(Nullable(Type.String({ format: 'date' }), 'End of the warranty')) },
  { additionalProperties: false },
);
const WarrantyItem = Type.Object({
  device_id: Type.String(),
  ...WarrantyFields,
  warranty_end: Nullable(Type.String(), 'End of the warranty'),
  updated_at: Nullable(Timestamp, 'When last written'),
  updated_by: Nullable(Type.String(), 'Who wrote it'),
});
export const Warranty = WarrantyItem;
export const Warranties = Type.Object({
  site_id: Type.String(),
  devices: Type.Array(WarrantyItem, { description: "The site's registered batteries and their warranty limits" }),
});

export const LimitAssetT = Type.Object(
  {
    device_id: Type.String({ minLength: 1, maxLength: 200, description: 'An asset registered at the site (in the demo realm, a device of its model)' }),
    kind: Type.Union([Type.Literal('battery'), Type.Literal('ev_charger')]),
    max_power_kw: Pos('Power limit, kW'),
    capacity_kwh: Type.Optional(Pos('Battery: usable capacity, kWh')),
    initial_soc_pct: Type.Optional(Pct('Battery: state of charge at the start of a run, % (default 50)')),
    min_soc_pct: Type.Optional(Pct('Battery: lowest state of charge, % (default 10)')),
    max_soc_pct: Type.Optional(Pct('Battery: highest state of charge, % (default 100)')),
    round_trip_efficiency: Type.Optional(Type.Number({ minimum: 0.5, maximum: 1, description: 'Battery: round-trip efficiency (default 0.9)' })),
    energy_kwh: Type.Optional(Type.Number({ minimum: 0, maximum: 1000, description: 'EV: energy to deliver, kWh (default 0)' })),
    ready_within_hours: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 48, description: 'EV: hours from the run start by which it is delivered (default 8)' }),
    ),
  },
  { additionalProperties: false },
);
export const LimitConfigBody = Type.Object(
  { import_limit_kw: Pos('The site import limit, kW'), assets: Type.Array(LimitAssetT, { maxItems: 20, description: 'The flexible assets and their limits' }) },
  { additionalProperties: false },
);
export const LimitConfig = Type.Object({
  site_id: Type.String(),
  configured: Type.Boolean({ description: 'False until written' }),
  import_limit_kw: Nullable(Type.Number(), 'The import limit, kW'),
  assets: Type.Array(LimitAssetT),
  updated_at: Nullable(Timestamp),
  updated_by: Nullable(Type.String()),
});
export const HoursQuery = Type.Object(
  { hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 48, description: 'Horizon in hours (default 48)' })) },
  { additionalProperties: false },
);
export const LimitSeries = Type.Object({
  site_id: Type.String(),
  import_limit_kw: Type.Number(),
  forecast_method: Type.String({ description: 'The site forecast method' }),
  half_hours_over: Type.Integer({ description: 'Half hours forecast above the limit' }),
  half_hours: Type.Array(
    Type.Object({
      start: Timestamp,
      end: Timestamp,
      forecast_import_kw: Nullable(Type.Number(), 'Forecast mean import (load − generation), kW; null without history'),
      limit_kw: Type.Number(),
      over_kw: Nullable(Type.Number(), 'By how much the forecast exceeds the limit'),
    }),
  ),
});
/** `dispatch` may also be a query parameter (`?dispatch=true`, as the spec writes it); decision 0192. */
export const LimitRunQuery = Type.Object({
  dispatch: Type.Optional(Type.Boolean({ description: 'The same as the body member `dispatch`; when both are given they must agree' })),
});
export const LimitRunBody = Type.Object(
  {
    hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 48, description: 'Horizon (default 24)' })),
    dispatch: Type.Optional(
      Type.Boolean({ description: "Send the plan's first half hour through the verified setpoint write (demo realm only; default false)" }),
    ),
    import_p_per_kwh: Type.Optional(Type.Array(Price, { minItems: 1, maxItems: 96, description: 'One import price a half hour (default a flat 25 p/kWh)' })),
  },
  { additionalProperties: false },
);
const LimitSummary = {
  ...RunCommon,
  import_limit_kw: Type.Number(),
  peaks_before: Type.Integer({ description: 'Half hours above the limit with the battery idle and EVs charging at once' }),
  peaks_after: Type.Integer({ description: 'Half hours above the limit in the plan (unavoidable ones)' }),
  peaks_avoided: Type.Integer({ description: 'peaks_before − peaks_after' }),
  max_import_before_kw: Type.Number(),
  max_import_after_kw: Type.Number(),
  cost_gbp: Money('Energy cost of the plan, £'),
  decision_id: Type.String({ description: 'The decision-log entry' }),
};
export const LimitRun = Type.Object({
  ...LimitSummary,
  method: Type.String(),
  dispatch: Nullable(
    Type.Array(Type.Object({ device_id: Type.String(), value_kw: Type.Number(), verdict: Type.String(), setpoint_id: Type.String() })),
    'What was sent (null: advisory only)',
  ),
  half_hour_plan: HalfHourPlan,
});
export const LimitRuns = Type.Object({ runs: Type.Array(Type.Object(LimitSummary)), ...PageMembers });

// ---- Awareness ----------------------------------------------------------------------------------
const LayerName = Type.String({ description: 'prices, carbon, site_forecast, grid_constraints, flexibility_tenders or device_availability' });
export const Catalogue = Type.Object({
  layers: Type.Array(
    Type.Object({
      layer: LayerName,
      name: Type.String(),
      source: Type.String({ description: 'Where the layer comes from' }),
      fallback: Type.String({ description: 'What is used when it is not live' }),
      used_by_plan: Type.Boolean({ description: 'Whether the shadow plan uses it' }),
    }),
  ),
});
const LayerState = Type.Object({
  layer: LayerName,
  status: Type.Union([Type.Literal('live'), Type.Literal('fallback'), Type.Literal('missing')]),
  why: Type.String({ description: 'Why the layer has this status' }),
  as_of: Nullable(Timestamp, 'How recent the data is, where known'),
});
export const LayersQuery = Type.Object(
  {
    site_id: Type.Optional(SiteId),
    region: Type.Optional(Type.String({ pattern: '^[A-HJ-NP]$', description: 'GSP region letter for prices (default C)' })),
  },
  { additionalProperties: false },
);
export const Layers = Type.Object({ site_id: Nullable(Type.String()), as_of: Timestamp, layers: Type.Array(LayerState) });
export const Settings = Type.Object({
  default_region: Type.String(),
  horizon_hours: Type.Integer(),
  fallback_import_p_per_kwh: Type.Number(),
  forecast_stale_after_hours: Type.Integer(),
  device_stale_after_minutes: Type.Integer(),
  shadow_only: Type.Boolean({ description: 'Always true: awareness plans are never sent' }),
});
export const GridQuery = Type.Object({ site_id: SiteId }, { additionalProperties: false });
export const Grid = Type.Object({
  site_id: Type.String(),
  import_limit_kw: Nullable(Type.Number(), 'The configured import limit (null: none)'),
  forecast_peak_import_kw: Nullable(Type.Number(), 'Highest forecast mean import over the horizon'),
  headroom_kw: Nullable(Type.Number(), 'Limit − forecast peak'),
  half_hours_over: Nullable(Type.Integer(), 'Forecast half hours above the limit'),
  forecast_method: Type.String(),
  from: Timestamp,
  to: Timestamp,
});
export const PlanBody = Type.Object(
  {
    site_id: SiteId,
    region: Type.Optional(Type.String({ pattern: '^[A-HJ-NP]$', description: 'GSP region letter for prices (default C)' })),
    hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 48, description: 'Horizon (default 24)' })),
  },
  { additionalProperties: false },
);
export const ShadowPlan = Type.Object({
  plan_id: Type.String(),
  site_id: Type.String(),
  created_at: Timestamp,
  created_by: Nullable(Type.String()),
  start: Timestamp,
  end: Timestamp,
  shadow: Type.Boolean({ description: 'Always true' }),
  sent: Type.Boolean({ description: 'Always false: nothing is sent to any device or market' }),
  cost_gbp: Money('Energy cost of the plan, £'),
  cost_do_nothing_gbp: Money('Energy cost with flexible assets idle, £'),
  layers: Type.Array(LayerState, { description: 'The layers as they stood when planned' }),
  half_hour_plan: HalfHourPlan,
});
