// Request and response schemas of the pricing operations.
import { Type } from 'typebox';
import { LiteralUnion, Nullable, Timestamp, Component, PageMembers, LimitParam, CursorParam, Money } from '../../platform/schema-kit.ts';
import { COMPONENT_NAMES } from './components.ts';

const Dec = (description: string) => Type.String({ pattern: '^-?(0|[1-9][0-9]*)(\\.[0-9]{1,6})?$', description });
const Date_ = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description });
const DecIn = (description: string) => Type.Union([Dec(description), Type.Number({ description })]);
const DataBasis = Type.Object(
  { basis: Type.Literal('calculated'), method: Type.String() },
  { description: 'How the figures were produced (x-platform-data-basis and x-platform-method of the operation)' },
);
const MpanCore = Type.String({ minLength: 13, maxLength: 20, description: 'MPAN core: 13 digits (spaces allowed), check digit verified' });
const DistributorId = Type.String({
  pattern: '^\\d{2}$',
  description: 'Distributor id: the first two digits of an MPAN core (10-23 the 14 licence areas; 24 and up independent operators)',
});
const Band = Type.String({ pattern: '^[a-z][a-z0-9_]{0,31}$', description: 'Band name, lower case (red, amber, green, super_red, night, ...)' });
const SupplyType = Type.Union([Type.Literal('domestic'), Type.Literal('business')]);
const Origin = Type.Union([Type.Literal('published'), Type.Literal('organisation')], {
  description: 'published: shipped with the library, with its published source; organisation: added by the organisation',
});

// ---- Charge library ---------------------------------------------------------------------------

export const BandPeriodSchema = Type.Object(
  {
    band: Band,
    days: Type.Union([Type.Literal('all'), Type.Literal('weekdays'), Type.Literal('weekends')], {
      description: 'weekdays are Monday to Friday including bank holidays',
    }),
    from: Type.String({ pattern: '^\\d{2}:\\d{2}$', description: 'UK local clock time, HH:MM on a half hour' }),
    to: Type.String({
      pattern: '^\\d{2}:\\d{2}$',
      description: 'UK local clock time, HH:MM on a half hour, up to 24:00; earlier than from wraps past midnight',
    }),
  },
  { additionalProperties: false },
);

export const Rate = Component(
  'ChargeRate',
  Type.Object({
    rate_id: Type.String(),
    component: Type.String({ description: 'One of the library components' }),
    unit: Type.String({ description: 'p/kWh, p/day, p/kVA/day or percent' }),
    rate: Dec('The rate in its unit (VAT exclusive)'),
    distributor_id: Nullable(Type.String()),
    line_loss_class: Nullable(Type.String()),
    supply_type: Nullable(Type.String()),
    band: Nullable(Type.String()),
    valid_from: Type.String({ description: 'First UK local day in force' }),
    valid_to: Nullable(Type.String({ description: 'First day no longer in force; null while open' })),
    source: Type.String({ description: 'Where the figure is published' }),
    origin: Origin,
    created_at: Nullable(Timestamp),
  }),
);

export const RateBody = Type.Object(
  {
    component: LiteralUnion(COMPONENT_NAMES, { description: 'The charge' }),
    unit: Type.String({ description: "The unit the rate is stated in; must be the component's (p/kWh, p/day, p/kVA/day, percent)" }),
    rate: Dec('The rate, VAT exclusive, at most 6 decimal places'),
    distributor_id: Type.Optional(Nullable(DistributorId)),
    line_loss_class: Type.Optional(
      Nullable(Type.String({ pattern: '^[A-Z0-9]{3}$', description: 'Line-loss factor class, 3 characters; null or absent: every class' })),
    ),
    supply_type: Type.Optional(Nullable(SupplyType)),
    band: Type.Optional(Nullable(Band)),
    valid_from: Date_('First UK local day in force, YYYY-MM-DD'),
    valid_to: Type.Optional(Nullable(Date_('First day no longer in force; null or absent while open'))),
    source: Type.String({ minLength: 3, maxLength: 1000, description: 'Where the figure is published (required: the library holds no unsourced figure)' }),
  },
  { additionalProperties: false },
);

export const TimeBands = Component(
  'TimeBandSchedule',
  Type.Object({
    schedule_id: Type.String(),
    distributor_id: Type.String(),
    valid_from: Type.String(),
    valid_to: Nullable(Type.String()),
    periods: Type.Array(BandPeriodSchema),
    source: Type.String(),
    created_at: Timestamp,
  }),
);

export const TimeBandsBody = Type.Object(
  {
    distributor_id: DistributorId,
    valid_from: Date_('First UK local day in force, YYYY-MM-DD (DUoS charging years start 1 April)'),
    valid_to: Type.Optional(Nullable(Date_('First day no longer in force'))),
    periods: Type.Array(BandPeriodSchema, { minItems: 1, maxItems: 96 }),
    source: Type.String({ minLength: 3, maxLength: 1000, description: 'The charging statement the bands come from' }),
  },
  { additionalProperties: false },
);

export const LibraryQuery = Type.Object({ component: Type.Optional(Type.String()), distributor_id: Type.Optional(DistributorId) });

export const LibraryResponse = Type.Object({
  components: Type.Array(
    Type.Object({ component: Type.String(), unit: Type.String(), description: Type.String(), needs_distributor: Type.Boolean(), needs_band: Type.Boolean() }),
  ),
  rates: Type.Array(Rate),
  time_bands: Type.Array(TimeBands),
});

// ---- MPANs ------------------------------------------------------------------------------------

const Distributor = Type.Object({
  distributor_id: Type.String(),
  name: Nullable(Type.String()),
  operator: Nullable(Type.String()),
  gsp_group: Nullable(Type.String({ description: 'GSP group letter A-P; null for independent operators' })),
  mpid: Nullable(Type.String()),
  kind: Type.Union([Type.Literal('dno'), Type.Literal('idno')]),
});

export const Mpan = Component(
  'SupplyPoint',
  Type.Object({
    mpan_core: Type.String(),
    distributor: Distributor,
    line_loss_class: Type.String(),
    connection_voltage: Type.String(),
    supply_type: Type.String(),
    agreed_capacity_kva: Nullable(Type.String()),
    site_id: Nullable(Type.String()),
    label: Nullable(Type.String()),
    created_at: Timestamp,
  }),
);

export const MpanBody = Type.Object(
  {
    mpan_core: MpanCore,
    line_loss_class: Type.String({ pattern: '^[A-Z0-9]{3}$', description: 'Line-loss factor class (3 characters, from the MPAN top line)' }),
    connection_voltage: Type.Union([Type.Literal('LV'), Type.Literal('LV_SUB'), Type.Literal('HV'), Type.Literal('EHV')]),
    supply_type: SupplyType,
    agreed_capacity_kva: Type.Optional(
      Nullable(Type.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]{1,3})?$', description: 'Agreed supply capacity in kVA (needed for DUoS capacity charges)' })),
    ),
    site_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    label: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  },
  { additionalProperties: false },
);

export const MpansQuery = Type.Object({
  limit: Type.Optional(LimitParam({ default: 50, max: 200 })),
  cursor: Type.Optional(CursorParam),
  distributor_id: Type.Optional(DistributorId),
});
export const MpansResponse = Type.Object({ mpans: Type.Array(Mpan), ...PageMembers });

// ---- Pricing engine ---------------------------------------------------------------------------

const HalfHourIn = Type.Object(
  {
    start: Type.String({ description: 'Start of the half hour, ISO 8601 with an offset (UTC Z preferred), on :00 or :30' }),
    kwh: DecIn('kWh in the half hour, not negative'),
  },
  { additionalProperties: false },
);

export const PriceBody = Type.Object(
  {
    mpan_core: MpanCore,
    half_hours: Type.Array(HalfHourIn, { minItems: 1, maxItems: 20_000, description: 'Up to 20 000 half hours (a leap year is 17 568)' }),
    detail: Type.Optional(
      Type.Union([Type.Literal('half_hours'), Type.Literal('totals')], {
        description: 'half_hours (default): every half hour broken down; totals: days and totals only',
      }),
    ),
  },
  { additionalProperties: false },
);

const Charges = Type.Record(Type.String(), Money('Pence, 4 decimal places'), { description: 'Charge per component, pence to 0.0001p' });
const Unpriced = Type.Object({
  component: Type.String(),
  band: Nullable(Type.String()),
  reason: Type.String(),
  first: Type.String({ description: 'First local date affected' }),
  last: Type.String({ description: 'Last local date affected' }),
  count: Type.Integer(),
  per: Type.Union([Type.Literal('half_hour'), Type.Literal('day')]),
});
const RateUsed = Type.Object({
  rate_id: Type.String(),
  component: Type.String(),
  unit: Type.String(),
  rate: Type.String(),
  distributor_id: Nullable(Type.String()),
  line_loss_class: Nullable(Type.String()),
  supply_type: Nullable(Type.String()),
  band: Nullable(Type.String()),
  valid_from: Type.String(),
  valid_to: Nullable(Type.String()),
  source: Type.String(),
  origin: Origin,
});

export const PriceResponse = Type.Object({
  mpan: Mpan,
  half_hours: Type.Array(
    Type.Object({
      start: Type.String(),
      local_date: Type.String(),
      local_time: Type.String({ description: 'UK local wall-clock time of the start' }),
      settlement_period: Type.Integer({ description: '1 to 48 (46 or 50 on clock-change days)' }),
      band: Nullable(Type.String({ description: 'DUoS time band at that clock time; null with no schedule in force' })),
      kwh: Type.String(),
      charges: Charges,
      total_p: Money('Pence'),
    }),
  ),
  days: Type.Array(
    Type.Object({ date: Type.String(), half_hours: Type.Integer(), half_hours_in_day: Type.Integer(), charges: Charges, total_p: Money('Pence') }),
  ),
  totals: Type.Object({
    kwh: Type.String(),
    by_component: Type.Array(
      Type.Object({ component: Type.String(), unit: Type.String(), quantity: Type.String({ description: 'kWh, days or kVA-days' }), cost_p: Money('Pence') }),
    ),
    by_band: Type.Array(Type.Object({ band: Type.String(), kwh: Type.String(), cost_p: Money('Pence: DUoS unit charges of the band') })),
    total_p: Money('Pence: the sum of every line'),
    total_gbp: Money('Pounds: total_p / 100, exact'),
  }),
  rates_used: Type.Array(RateUsed),
  schedules_used: Type.Array(Type.String()),
  unpriced: Type.Array(Unpriced, { description: 'Components with no rate (or no band schedule, or no capacity) in force: not priced, never defaulted' }),
  vat_rates: Type.Array(Type.Object({ rate_percent: Type.String(), rate_id: Type.String(), source: Type.String() }), {
    description: 'VAT rates in force for the supply (figures above exclude VAT)',
  }),
  rounding: Type.String(),
  data_basis: DataBasis,
});

export const StackQuery = Type.Object({
  mpan_core: MpanCore,
  from: Date_('First UK local day, YYYY-MM-DD'),
  to: Date_('The day after the last, YYYY-MM-DD'),
});

const StackComponent = Type.Object({
  component: Type.String(),
  band: Nullable(Type.String()),
  rate_p_per_kwh: Type.String(),
  rate_id: Type.String(),
  source: Type.String(),
  origin: Origin,
});
export const StackResponse = Type.Object({
  mpan: Mpan,
  from: Type.String(),
  to: Type.String(),
  segments: Type.Array(
    Type.Object({
      from: Type.String(),
      to: Type.String(),
      days: Type.Integer(),
      time_bands: Nullable(Type.Object({ schedule_id: Type.String(), periods: Type.Array(BandPeriodSchema), source: Type.String() })),
      per_kwh: Type.Array(
        Type.Object({
          band: Nullable(Type.String()),
          components: Type.Array(StackComponent),
          total_p_per_kwh: Type.String(),
          unpriced: Type.Array(Type.String()),
        }),
      ),
      daily: Type.Array(
        Type.Object({
          component: Type.String(),
          rate: Type.String(),
          unit: Type.String(),
          p_per_day: Nullable(Type.String()),
          rate_id: Type.String(),
          source: Type.String(),
          origin: Origin,
        }),
      ),
      daily_total_p: Type.String(),
      vat_rate_percent: Nullable(Type.String()),
    }),
  ),
  data_basis: DataBasis,
});

// ---- Retail tariffs ---------------------------------------------------------------------------

const UnitRates = Type.Union([
  Type.Object({ type: Type.Literal('flat'), rate_p_per_kwh: Dec('p/kWh, VAT exclusive') }, { additionalProperties: false }),
  Type.Object(
    {
      type: Type.Literal('time_of_use'),
      rates: Type.Record(Type.String(), Dec('p/kWh, VAT exclusive'), { description: 'A rate for every band the periods name' }),
      periods: Type.Array(BandPeriodSchema),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    { type: Type.Literal('dynamic'), description: Type.Optional(Type.String()) },
    { additionalProperties: false, description: 'Half-hourly prices (such as Agile), supplied with each bill' },
  ),
]);

export const VersionIn = Type.Object(
  {
    effective_from: Date_('First UK local day in force'),
    effective_to: Type.Optional(Nullable(Date_('First day no longer in force; absent or null: until the next version'))),
    vat_rate_percent: Dec('VAT rate, percent (stated: 5 domestic, 20 business)'),
    standing_charge_p_per_day: Dec('Standing charge, p/day, VAT exclusive'),
    unit_rates: UnitRates,
  },
  { additionalProperties: false },
);

export const TariffIn = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    supply_type: SupplyType,
    version: VersionIn,
  },
  { additionalProperties: false },
);

export const ValidateIn = Type.Object(
  {
    tariff_id: Type.Optional(Type.String({ description: 'Check `version` as a new version of this tariff (overlap included)' })),
    name: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    supply_type: Type.Optional(SupplyType),
    version: VersionIn,
  },
  { additionalProperties: false },
);

/** Bodies judged by the module itself, so a missing rate is named (the documented body is the schema above). */
export const Open = Type.Object({}, { additionalProperties: true });

const Version = Type.Object({
  version: Type.Integer(),
  effective_from: Type.String(),
  effective_to: Nullable(Type.String()),
  in_force_until: Nullable(Type.String({ description: "First day no longer in force: the earlier of effective_to and the next version's effective_from" })),
  vat_rate_percent: Type.String(),
  standing_charge_p_per_day: Type.String(),
  unit_rates: UnitRates,
  created_at: Timestamp,
});

export const Tariff = Component(
  'RetailTariff',
  Type.Object({
    tariff_id: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    supply_type: Type.String(),
    created_at: Timestamp,
    versions: Type.Array(Version),
  }),
);

export const TariffParams = Type.Object({ tariff_id: Type.String({ minLength: 1, maxLength: 100 }) });
export const TariffsQuery = Type.Object({ limit: Type.Optional(LimitParam({ default: 50, max: 200 })), cursor: Type.Optional(CursorParam) });
export const TariffsResponse = Type.Object({
  tariffs: Type.Array(
    Type.Object({
      tariff_id: Type.String(),
      name: Type.String(),
      description: Nullable(Type.String()),
      supply_type: Type.String(),
      versions: Type.Integer(),
      latest_effective_from: Type.String(),
      created_at: Timestamp,
    }),
  ),
  ...PageMembers,
});

export const ValidateResponse = Type.Object({
  valid: Type.Boolean(),
  errors: Type.Array(Type.Object({ loc: Type.Array(Type.Union([Type.String(), Type.Integer()])), msg: Type.String(), type: Type.String() })),
  checked: Type.Union([Type.Literal('new_tariff'), Type.Literal('new_version')]),
});

const Consumption = Type.Array(HalfHourIn, { maxItems: 20_000, description: 'Half-hourly consumption, UTC starts' });
const Prices = Type.Array(
  Type.Object({ start: Type.String(), rate_p_per_kwh: DecIn('p/kWh, VAT exclusive; may be negative') }, { additionalProperties: false }),
  { maxItems: 20_000, description: 'Half-hourly prices for dynamic tariff versions (such as Agile), VAT exclusive' },
);
const BillPeriod = {
  from: Date_('First UK local day of the bill'),
  to: Date_('The day after the last day of the bill'),
  consumption: Consumption,
  prices: Type.Optional(Prices),
};

export const BillBody = Type.Object({ tariff_id: Type.String({ minLength: 1, maxLength: 100 }), ...BillPeriod }, { additionalProperties: false });
export const CompareBody = Type.Object(
  { tariff_ids: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 2, maxItems: 10 }), ...BillPeriod },
  { additionalProperties: false },
);

const BillLine = Type.Object({
  kind: Type.Union([Type.Literal('standing_charge'), Type.Literal('unit')]),
  version: Type.Integer(),
  description: Type.String(),
  from: Type.String(),
  to: Type.String(),
  band: Nullable(Type.String()),
  quantity: Type.String(),
  unit: Type.Union([Type.Literal('day'), Type.Literal('kWh')]),
  rate_p: Nullable(Type.String({ description: 'VAT exclusive; null for half-hourly prices' })),
  rate_p_inc_vat: Nullable(Type.String({ description: 'Derived from the exact exclusive rate' })),
  average_rate_p: Nullable(Type.String({ description: 'Dynamic tariffs: the line amount over its kWh (information)' })),
  amount_gbp: Money('Pounds, VAT exclusive, rounded to the penny'),
});

export const Bill = Component(
  'RetailBill',
  Type.Object({
    tariff_id: Type.String(),
    name: Type.String(),
    period: Type.Object({ from: Type.String(), to: Type.String(), days: Type.Integer() }),
    versions_used: Type.Array(
      Type.Object({ version: Type.Integer(), from: Type.String(), to: Type.String(), days: Type.Integer(), vat_rate_percent: Type.String() }),
    ),
    lines: Type.Array(BillLine),
    totals: Type.Object({
      kwh: Type.String(),
      net_gbp: Money('Sum of the lines'),
      vat: Type.Array(Type.Object({ rate_percent: Type.String(), net_gbp: Money('Lines at this rate'), vat_gbp: Money('Rounded to the penny') })),
      vat_gbp: Money('Sum of the VAT'),
      total_gbp: Money('net_gbp + vat_gbp'),
    }),
    coverage: Type.Object({
      half_hours_expected: Type.Integer(),
      half_hours_present: Type.Integer(),
      half_hours_missing: Type.Integer(),
      first_missing: Type.Array(Type.String()),
    }),
    rounding: Type.String(),
  }),
);

export const BillResponse = Type.Object({ ...Bill.properties, data_basis: DataBasis });

export const CompareResponse = Type.Object({
  period: Type.Object({ from: Type.String(), to: Type.String(), days: Type.Integer() }),
  kwh: Type.String(),
  ranked: Type.Array(
    Type.Object({
      rank: Type.Integer({ description: '1 = cheapest; equal totals share a rank' }),
      tariff_id: Type.String(),
      name: Type.String(),
      total_gbp: Money('Bill total, VAT inclusive'),
      difference_gbp: Money('More than the cheapest'),
      difference: Type.Object({
        standing_charges_gbp: Money('Standing charges against the cheapest'),
        unit_charges_gbp: Money('Unit charges against the cheapest'),
        vat_gbp: Money('VAT against the cheapest'),
      }),
      explanation: Type.String(),
      bill: Bill,
    }),
  ),
  data_basis: DataBasis,
});

export const SmartBandsBody = Type.Object(
  {
    series: Type.Array(Type.Object({ start: Type.String(), value: DecIn('Price (p/kWh) or load (kWh or kW)') }, { additionalProperties: false }), {
      minItems: 48,
      maxItems: 20_000,
    }),
    kind: Type.Union([Type.Literal('price'), Type.Literal('load')], { description: 'What the series is: a price series or a load profile' }),
    band_count: Type.Integer({ minimum: 2, maximum: 4, description: 'How many bands to propose' }),
  },
  { additionalProperties: false },
);

export const SmartBandsResponse = Type.Object({
  kind: Type.String(),
  band_count: Type.Integer(),
  requested_band_count: Type.Integer(),
  days: Type.Integer(),
  half_hours: Type.Integer(),
  bands: Type.Array(
    Type.Object({ band: Type.String(), half_hours: Type.Integer(), hours: Type.String(), mean: Type.String(), min: Type.String(), max: Type.String() }),
  ),
  periods: Type.Array(BandPeriodSchema),
  slot_means: Type.Array(Type.Object({ from: Type.String(), to: Type.String(), mean: Type.String(), values: Type.Integer(), band: Type.String() })),
  data_basis: DataBasis,
});

export const CostPlusBody = Type.Object(
  {
    mpan_core: MpanCore,
    from: Date_('First UK local day'),
    to: Date_('The day after the last'),
    consumption: Type.Array(HalfHourIn, { minItems: 1, maxItems: 20_000 }),
    wholesale: Type.Union([
      Type.Object({ type: Type.Literal('flat'), rate_p_per_kwh: Dec('Wholesale p/kWh') }, { additionalProperties: false }),
      Type.Object(
        {
          type: Type.Literal('half_hourly'),
          prices: Type.Array(Type.Object({ start: Type.String(), rate_p_per_kwh: DecIn('Wholesale p/kWh') }, { additionalProperties: false }), {
            maxItems: 20_000,
          }),
        },
        { additionalProperties: false },
      ),
    ]),
    margin: Type.Object(
      { unit_p_per_kwh: Dec('Margin added to the unit rate, p/kWh'), standing_p_per_day: Dec('Margin added to the standing charge, p/day') },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const CostPlusResponse = Type.Object({
  mpan: Mpan,
  period: Type.Object({ from: Type.String(), to: Type.String(), days: Type.Integer() }),
  inputs: Type.Object({
    consumption: Type.Object({ kwh: Type.String(), half_hours: Type.Integer() }),
    wholesale: Type.Object({
      type: Type.String(),
      rate_p_per_kwh: Type.Optional(Type.String()),
      prices: Type.Optional(Type.Integer()),
      average_p_per_kwh: Type.Optional(Type.String()),
      cost_p: Type.String(),
    }),
    charges: Type.Array(
      Type.Object({
        component: Type.String(),
        unit: Type.String(),
        quantity: Type.String(),
        cost_p: Type.String(),
        rates: Type.Array(
          Type.Object({
            rate_id: Type.String(),
            rate: Type.String(),
            unit: Type.String(),
            band: Nullable(Type.String()),
            valid_from: Type.String(),
            valid_to: Nullable(Type.String()),
            source: Type.String(),
            origin: Origin,
          }),
        ),
      }),
    ),
    time_bands: Type.Array(Type.String()),
    margin: Type.Object({ unit_p_per_kwh: Type.String(), standing_p_per_day: Type.String() }),
    vat: Nullable(Type.Object({ rate_percent: Type.String(), rate_id: Type.String(), source: Type.String() })),
  }),
  unpriced: Type.Array(Unpriced),
  workings: Type.Array(Type.String()),
  proposal: Type.Object({
    unit_rate_p_per_kwh: Type.String(),
    standing_charge_p_per_day: Type.String(),
    vat_rate_percent: Nullable(Type.String()),
    unit_rate_p_per_kwh_inc_vat: Nullable(Type.String()),
    standing_charge_p_per_day_inc_vat: Nullable(Type.String()),
    version: Nullable(VersionIn, 'Ready to POST as a tariff version; null when no VAT rate is in force in the library (state one)'),
  }),
  data_basis: DataBasis,
});
