// Shapes of the energy module's answers (schema kit members; kWh as decimal text to the watt-hour).
import { Type, type TProperties, type TSchema } from 'typebox';
import { JobProgressSchema, Money, Nullable, Timestamp } from '../../platform/schema-kit.ts';

export const Kwh = (description = 'kWh, decimal text to the watt-hour') => Type.String({ pattern: '^-?[0-9]+\\.[0-9]{3}$', description });
export const Ratio = (description: string) => Nullable(Type.Number(), description);
export const BasisName = Type.String({
  description: 'measured | calculated | partial | missing | absent; simulated in a demo organisation where measured or calculated would stand',
});
export const SiteParams = Type.Object({ site_id: Type.String({ minLength: 1, maxLength: 128 }) });
export const DayQuery = {
  date: Type.Optional(Type.String({ description: 'One UK local day, YYYY-MM-DD' })),
  from: Type.Optional(Type.String({ description: 'First UK local day, YYYY-MM-DD' })),
  to: Type.Optional(Type.String({ description: 'Last UK local day (inclusive), YYYY-MM-DD' })),
};

/** The path's site and a window of UK days (`date`, or `from`..`to`). */
export const SiteDays = { params: SiteParams, query: Type.Object(DayQuery) };
/** An answer about one site over a window: `site_id`, `from`, `to`, then its own members. */
export const SiteWindow = <P extends TProperties>(members: P) => Type.Object({ site_id: Type.String(), from: Timestamp, to: Timestamp, ...members });

export const FlowFigures = {
  import_kwh: Kwh('Grid import'),
  export_kwh: Kwh('Grid export'),
  generation_kwh: Kwh('On-site generation'),
  consumption_kwh: Kwh('Site consumption (metered loads, or the balance when none is metered)'),
  charge_kwh: Kwh('Battery charge'),
  discharge_kwh: Kwh('Battery discharge'),
};

/** One asset's contribution to one flow in a half hour: how much, how it was measured, and from what. */
export const AssetFlowFigures = {
  flow: Type.String(),
  kwh: Kwh(),
  basis: Type.String(),
  source: Type.String(),
  coverage: Type.Number(),
  samples: Type.Integer(),
  counter_resets: Type.Integer(),
};

export const FlowBasis = Type.Object(
  {
    import: BasisName,
    export: BasisName,
    generation: BasisName,
    consumption: BasisName,
    charge: BasisName,
    discharge: BasisName,
  },
  { description: 'Data basis of each flow in this half hour' },
);

export const HalfHour = Type.Object({
  period_start: Timestamp,
  period_end: Timestamp,
  settlement_date: Type.String({ description: 'UK local date the settlement period belongs to' }),
  settlement_period: Type.Integer({ minimum: 1, maximum: 50, description: 'Counted from UK local midnight: 1..48 (46 or 50 on clock-change days)' }),
  gap: Type.Boolean({ description: 'True when not every expected asset reported over the whole half hour' }),
  import_kwh: Nullable(Kwh()),
  export_kwh: Nullable(Kwh()),
  generation_kwh: Nullable(Kwh()),
  consumption_kwh: Nullable(Kwh()),
  charge_kwh: Nullable(Kwh()),
  discharge_kwh: Nullable(Kwh()),
  residual_kwh: Nullable(Kwh('generation + import + discharge - consumption - export - charge')),
  basis: Nullable(FlowBasis),
  consumption_method: Nullable(Type.String({ description: 'metered | derived' })),
  coverage: Nullable(Type.Number({ description: 'Least share of the half hour covered by any expected asset (1 = whole)' })),
  assets_expected: Type.Integer(),
  assets_reporting: Type.Integer(),
  meters_disagree: Type.Boolean({
    description:
      "True when the half hour's consumption is negative: derived from the meters (generation + import + discharge - export - charge), it can only be negative where the site's meters disagree (e.g. export with no matching generation: a partial or mis-scaled register). The figures are shown as stored, not corrected (decision 0495).",
  }),
});

export const Totals = Type.Object({
  ...FlowFigures,
  residual_kwh: Kwh("Sum of the half hours' residuals"),
  half_hours: Type.Integer({ description: 'Half hours in the window' }),
  half_hours_with_data: Type.Integer(),
  complete_half_hours: Type.Integer(),
  gap_half_hours: Type.Integer(),
  measured_half_hours: Type.Integer({ description: 'Half hours whose every flow is measured' }),
  meters_disagree_half_hours: Type.Integer({ description: 'Half hours with `meters_disagree: true` (negative consumption)' }),
});

export const SettlementDay = Type.Object({ date: Type.String(), periods: Type.Integer() });

export const Rebuild = Type.Object({
  rebuild_id: Type.String(),
  site_id: Type.String(),
  status: Type.String({ description: 'queued | running | completed | failed' }),
  from: Timestamp,
  to: Timestamp,
  days_total: Type.Integer(),
  days_done: Type.Integer(),
  progress: JobProgressSchema('days', 'UK days from `from` to `to`'),
  requested_at: Timestamp,
  finished_at: Nullable(Timestamp),
  error: Nullable(Type.String()),
});

export const PpaContract = Type.Object({
  contract_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }),
  counterparty: Type.String({ minLength: 1, maxLength: 200 }),
  flow: Type.Union([Type.Literal('generation'), Type.Literal('export'), Type.Literal('import'), Type.Literal('consumption')], {
    description: 'The metered flow the contract pays for',
  }),
  price_p_per_kwh: Type.String({ pattern: '^-?(0|[1-9][0-9]*)(\\.[0-9]{1,4})?$', description: 'Contract price, pence per kWh (decimal, up to 4 places)' }),
  start_date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'First UK day of the contract' }),
  end_date: Nullable(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'Last UK day of the contract (inclusive); null = open' })),
});

export { Money, Nullable, Timestamp };
export const obj = (props: Record<string, TSchema>, description?: string) => Type.Object(props, description ? { description } : {});
