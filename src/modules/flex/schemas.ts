import { Type } from 'typebox';
import { REGION_LETTERS } from '../market/index.ts';
import { Nullable } from '../../platform/schema-kit.ts';

const Z = (description: string) => Type.String({ format: 'date-time', description });

const Freshness = {
  stale: Type.Boolean({ description: 'True when the platform could not be reached and an expired copy is served; see cached_at.' }),
  cached_at: Z('When this list was read from the platform (UTC)'),
};

export function dnoEnum(ids: string[]) {
  return Type.Enum(ids, { description: `Network operator: ${ids.join(' or ')} (the second requires tender_platform_id on offers)` });
}

export const Tender = Type.Object({
  tender_platform_id: Type.String({ description: 'The tender’s id on the operator’s platform' }),
  reserve_object_id: Type.String({ description: 'The operator’s reference for the requirement; name it in offers' }),
  name: Nullable(Type.String()),
  zone: Nullable(Type.String()),
  product: Nullable(Type.String()),
  status: Nullable(Type.String()),
  bidding_closes_at: Nullable(Z('Bidding deadline, UTC')),
  capacity_required_mw: Nullable(Type.Number()),
  service_windows: Type.Array(Type.Object({ id: Type.String(), start_utc: Nullable(Type.String()), end_utc: Nullable(Type.String()) })),
});

export const TendersResponse = Type.Object({ dno: Type.String(), count: Type.Integer(), tenders: Type.Array(Tender), ...Freshness });

export const Contract = Type.Object({
  contract_id: Type.String({ description: 'The platform’s id of the contractual obligation' }),
  tender_platform_id: Nullable(Type.String()),
  reserve_object_id: Nullable(Type.String()),
  start_utc: Nullable(Type.String()),
  end_utc: Nullable(Type.String()),
  quantity_mw: Type.Number({ description: 'Awarded quantity, MW' }),
  clearing_price_gbp_per_mwh: Nullable(Type.Number({ description: 'Clearing price, £/MWh' })),
  price_type: Nullable(Type.String({ description: 'availability, utilisation or service_fee, as the platform states' })),
  status: Type.String(),
});

export const ContractsResponse = Type.Object({ dno: Type.String(), count: Type.Integer(), contracts: Type.Array(Contract), ...Freshness });

const UTC = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|\\+00:00)$';

export const Interval = Type.Object(
  {
    start_utc: Type.String({ pattern: UTC, description: 'ISO 8601 in UTC (Z), e.g. 2026-06-01T17:00:00Z' }),
    duration_minutes: Type.Integer({ exclusiveMinimum: 0, maximum: 10_080, description: 'Positive whole minutes (at most a week)' }),
    price_gbp_per_mwh: Type.Number({ description: '£/MWh' }),
    capacity_mw: Type.Number({ exclusiveMinimum: 0, maximum: 10_000, description: 'MW, positive' }),
  },
  { additionalProperties: false },
);

export function offerBody(ids: string[]) {
  return Type.Object(
    {
      dno: dnoEnum(ids),
      reserve_object_id: Type.String({ minLength: 1, maxLength: 200, description: 'The tender’s reserve_object_id as listed' }),
      tender_platform_id: Type.Optional(
        Type.String({ minLength: 1, maxLength: 200, description: 'The tender’s id on the platform; mandatory for the second operator' }),
      ),
      direction_turn_up: Type.Boolean({ description: 'true: increase demand or reduce generation; false: the opposite' }),
      intervals: Type.Array(Interval, { minItems: 1, maxItems: 500 }),
    },
    { additionalProperties: false },
  );
}

export const OfferResponse = Type.Object({
  offer_id: Type.String(),
  dno: Type.String(),
  reserve_object_id: Type.String(),
  tender_platform_id: Type.String(),
  direction_turn_up: Type.Boolean(),
  intervals: Type.Array(Interval),
  status: Type.Literal('submitted'),
  platform_reference: Type.String({ description: 'The platform’s id of the submitted ballot' }),
  submitted_at: Z('When the offer was sent'),
  answered_at: Z('When the platform answered'),
});

const DataBasis = Type.Object({ basis: Type.Literal('calculated'), method: Type.String() });

export const PortfolioResponse = Type.Object({
  as_of: Z('When the figures were calculated'),
  asset_count: Type.Integer({ description: 'Assets in the registry' }),
  counted_assets: Type.Integer({ description: 'Assets with a stated rated power (meters excluded)' }),
  uncounted_assets: Type.Integer(),
  sites: Type.Integer({ description: 'Sites with at least one counted asset' }),
  total_capacity_mw: Type.Number(),
  available_capacity_mw: Type.Number({ description: 'From a fixed availability assumption: not for settlement or financial claims' }),
  availability_rate: Type.Number({ description: 'The fixed availability assumption applied' }),
  by_type: Type.Array(Type.Object({ type: Type.String(), assets: Type.Integer(), capacity_mw: Type.Number(), available_capacity_mw: Type.Number() })),
  regions: Type.Array(Type.Object({ region: Type.String(), total_capacity_mw: Type.Number(), available_capacity_mw: Type.Number(), assets: Type.Integer() }), {
    description: 'Not segmented: one entry, region "unsegmented", for the whole fleet',
  }),
  regions_segmented: Type.Boolean(),
  capacity_keys: Type.Array(Type.String(), { description: 'Keys of an asset’s details read for rated power, in order' }),
  data_basis: DataBasis,
});

export const SiteParams = Type.Object({ site_id: Type.String({ minLength: 1, maxLength: 200 }) });

export const EnrolBody = Type.Object(
  { region: Type.Enum(REGION_LETTERS, { description: 'GSP group letter of the site (A to P without I and O): its prices drive the signal' }) },
  { additionalProperties: false },
);

export const Enrolment = Type.Object({
  site_id: Type.String(),
  status: Type.Enum(['not_enrolled', 'enrolled', 'withdrawn'], {
    description: 'Enrolment only: says nothing of partnership, qualification or dispatch',
  }),
  region: Nullable(Type.String()),
  enrolled_at: Nullable(Z('When the current (or last) enrolment began')),
  withdrawn_at: Nullable(Z('When the site was withdrawn')),
  updated_at: Nullable(Z('Last change')),
});

export const SignalQuery = Type.Object({
  hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 24, default: 4, description: 'Coming hours to signal, 1 to 24. Default 4.' })),
});

export const SignalResponse = Type.Object({
  site_id: Type.String(),
  region: Type.String(),
  generated_at: Z('Now'),
  action: Type.Enum(['charge', 'discharge', 'hold'], { description: 'For the current half hour' }),
  reason: Type.String(),
  slots: Type.Array(
    Type.Object({
      valid_from: Z('Start of the half hour'),
      valid_to: Z('End of the half hour'),
      action: Type.Enum(['charge', 'discharge', 'hold']),
      reason: Type.String(),
      value_inc_vat: Type.Number({ description: 'p/kWh' }),
      value_exc_vat: Type.Number({ description: 'p/kWh' }),
      carbon_intensity: Nullable(Type.Number({ description: 'gCO2/kWh, GB (actual when estimated, else forecast)' })),
      carbon_index: Nullable(Type.String()),
    }),
  ),
  thresholds: Type.Object({
    cheap_value_inc_vat: Nullable(Type.Number({ description: 'Lower quartile of the published horizon, p/kWh' })),
    dear_value_inc_vat: Nullable(Type.Number({ description: 'Upper quartile of the published horizon, p/kWh' })),
    horizon_slots: Type.Integer({ description: 'Published half hours from now the quartiles are taken over' }),
  }),
  device_command_sent: Type.Literal(false),
  data_basis: DataBasis,
  stale: Type.Boolean(),
  cached_at: Z('Age of the oldest input'),
});
