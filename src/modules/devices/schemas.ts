// Schemas of the device listings, source priority and data integrity operations.
import { Type, type TSchema } from 'typebox';
import { FreshnessSchema, MEASUREMENTS, REPORTED_SOURCES, SiteId, SourceSchema } from '../registry/index.ts';
import { Nullable, Timestamp } from '../../platform/schema-kit.ts';
import { LISTING_READINGS, type Listing } from './readings.ts';

export const SiteQuery = Type.Object({ site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only this site' })) });

const Connectivity = Type.Enum(['online', 'offline', 'never_reported'], {
  description: 'online: freshness live or recent; offline: stale or silent; never_reported: no record stored',
});

/** Members every device row carries. */
export const DeviceBase = {
  asset_id: Type.String(),
  site_id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  asset_class: Nullable(Type.String()),
  parent_asset_id: Nullable(Type.String()),
  connectivity: Connectivity,
  freshness: FreshnessSchema,
  last_seen_at: Type.String({
    format: 'date-time',
    description: 'Connect time: when the device was registered. Telemetry does not move it.',
  }),
  last_reported_at: Nullable(Timestamp, 'Measurement time (ts) of the newest stored record; null when nothing is known. Never the request time.'),
  last_reported_source: Nullable(SourceSchema, 'Source of that record; null when nothing is known'),
};

const n = () => Nullable(Type.Number());
const BaseReadings = {
  power_kw: Nullable(Type.Number(), 'kW, signed: positive import or charge, negative export, generation or discharge'),
  soc_pct: Nullable(Type.Number(), 'percent 0 to 100'),
  voltage: n(),
  current: n(),
  temp_c: n(),
  status: Nullable(Type.String(), 'status of the newest record as sent'),
};

function readingsSchema(listing: Listing): TSchema {
  const extra: Record<string, TSchema> = {};
  for (const [k, v] of Object.entries(LISTING_READINGS[listing])) {
    const t = v.type === 'number' ? Type.Number() : v.type === 'boolean' ? Type.Boolean() : Type.String();
    extra[k] = Nullable(t, v.description);
  }
  return Type.Object({ ...BaseReadings, ...extra }, { description: 'From the newest stored record; every member null when nothing is known' });
}

export function listingResponse(listing: Listing) {
  return Type.Object({
    devices: Type.Array(Type.Object({ ...DeviceBase, readings: readingsSchema(listing) })),
    count: Type.Integer(),
  });
}

export const HealthQuery = Type.Object({
  site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  connectivity: Type.Optional(Connectivity),
});

export const HealthResponse = Type.Object({
  summary: Type.Object(
    { online: Type.Integer(), offline: Type.Integer(), never_reported: Type.Integer() },
    {
      description: 'Counts over every device of the site filter (before the connectivity filter)',
    },
  ),
  devices: Type.Array(
    Type.Object({
      ...DeviceBase,
      status: Nullable(Type.String(), 'status of the newest record as sent'),
      age_seconds: Nullable(Type.Integer(), 'Age of the newest record at the time of the request'),
    }),
  ),
  count: Type.Integer(),
});

export const VehiclesTelemetryResponse = Type.Object({
  devices: Type.Array(
    Type.Object({
      ...DeviceBase,
      readings: readingsSchema('vehicles'),
      telemetry: Nullable(
        Type.Object({
          ts: Timestamp,
          received_at: Timestamp,
          source: SourceSchema,
          power_kw: n(),
          soc_pct: n(),
          voltage: n(),
          current: n(),
          temp_c: n(),
          status: Type.String(),
          raw: Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, description: 'The record exactly as sent' }),
        }),
        'The newest stored record in full; null when none',
      ),
    }),
  ),
  count: Type.Integer(),
});

export const TelematicsResponse = Type.Object({
  vehicles: Type.Array(
    Type.Object({
      asset_id: Type.String(),
      site_id: Type.String(),
      name: Type.String(),
      type: Type.String(),
      connectivity: Connectivity,
      freshness: FreshnessSchema,
      last_seen_at: DeviceBase.last_seen_at,
      last_reported_at: DeviceBase.last_reported_at,
      last_reported_source: DeviceBase.last_reported_source,
      position: Nullable(
        Type.Object({ lat: Type.Number(), lon: Type.Number(), measured_at: Timestamp }),
        'From the newest record in the last 30 days with raw lat/latitude and lon/lng/longitude numbers in range; null when none',
      ),
      ignition: Nullable(
        Type.Object({ on: Type.Boolean(), measured_at: Timestamp }),
        'From the newest record in the last 30 days with raw ignition or ignition_on (true/false/on/off); null when none',
      ),
    }),
  ),
  count: Type.Integer(),
});

// ---- Source priority --------------------------------------------------------------------------

const MeasurementSchema = Type.Enum([...MEASUREMENTS]);
const SourceList = Type.Array(SourceSchema, {
  minItems: 1,
  maxItems: REPORTED_SOURCES.length,
  description: 'Sources in order of preference; a source left out is never used for this measurement',
});

export const PriorityQuery = Type.Object({ asset_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })) });

export const PriorityResponse = Type.Object({
  sources: Type.Array(SourceSchema),
  measurements: Type.Array(MeasurementSchema),
  default_order: Type.Array(SourceSchema, { description: 'Order used where nothing is configured' }),
  priorities: Type.Array(Type.Object({ asset_id: Type.String(), measurement: MeasurementSchema, sources: Type.Array(SourceSchema), updated_at: Timestamp })),
});

export const PriorityBody = Type.Object(
  {
    asset_id: Type.String({ minLength: 1, maxLength: 128 }),
    priorities: Type.Array(Type.Object({ measurement: MeasurementSchema, sources: SourceList }, { additionalProperties: false }), {
      maxItems: MEASUREMENTS.length,
      description: "Replaces the asset's whole configuration; an empty list returns every measurement to the default order",
    }),
  },
  { additionalProperties: false },
);

export const ResolveQuery = Type.Object({
  asset_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  window_hours: Type.Integer({ minimum: 1, maximum: 720, default: 24, description: 'How far back values are taken (default 24)' }),
});

const Value = Type.Union([Type.Number(), Type.String(), Type.Null()]);

export const ResolveResponse = Type.Object({
  window: Type.Object({ from: Timestamp, to: Timestamp, hours: Type.Integer() }),
  assets: Type.Array(
    Type.Object({
      asset_id: Type.String(),
      site_id: Type.String(),
      name: Type.String(),
      sources_seen: Type.Array(SourceSchema, { description: 'Sources with a record in the window' }),
      only_telemetry: Type.Boolean({ description: 'True when telemetry is the only source with a record in the window' }),
      note: Nullable(Type.String()),
      measurements: Type.Array(
        Type.Object({
          measurement: MeasurementSchema,
          value: Value,
          source: Nullable(SourceSchema, 'The source chosen: the first in `order` with a value'),
          ts: Nullable(Timestamp),
          order: Type.Array(SourceSchema),
          configured: Type.Boolean({ description: 'False when the default order applies' }),
          candidates: Type.Array(Type.Object({ source: SourceSchema, value: Value, ts: Timestamp }), {
            description: 'Newest value of each source in the window',
          }),
        }),
      ),
    }),
  ),
});

// ---- Data integrity ---------------------------------------------------------------------------

export const IntegrityQuery = Type.Object({
  site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  asset_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  hours: Type.Integer({ minimum: 1, maximum: 720, default: 24, description: 'Window length (default 24)' }),
  gap_minutes: Type.Integer({
    minimum: 1,
    maximum: 1440,
    default: 15,
    description: 'A step between consecutive records longer than this is a gap (default 15)',
  }),
});

export const IntegrityResponse = Type.Object({
  window: Type.Object({ from: Timestamp, to: Timestamp, hours: Type.Integer() }),
  gap_threshold_seconds: Type.Integer(),
  assets: Type.Array(
    Type.Object({
      ...DeviceBase,
      integrity: Type.Enum(['ok', 'degraded', 'no_data'], {
        description: 'no_data: no record in the window; degraded: any gap, duplicate timestamp, future timestamp or anomaly; else ok',
      }),
      records: Type.Integer({ description: 'Stored records with ts in the window' }),
      first_record_at: Nullable(Timestamp),
      last_record_at: Nullable(Timestamp),
      silent_seconds: Nullable(Type.Integer(), 'Age of the newest stored record at the time of the request'),
      gaps: Type.Object({ count: Type.Integer(), longest_seconds: Type.Number() }),
      duplicate_timestamps: Type.Integer({ description: 'Records sharing their ts with an earlier stored record of the asset' }),
      future_timestamps: Type.Integer({ description: 'Records whose ts is more than 5 minutes after they were received' }),
      late_records: Type.Integer({ description: 'Records received more than 1 hour after their ts (backfill)' }),
      anomalies: Type.Object({
        total: Type.Integer(),
        by_reason: Type.Array(Type.Object({ reason: Type.String(), count: Type.Integer() })),
      }),
    }),
  ),
});

export const CommissioningQuery = Type.Object({ site_id: Type.String({ minLength: 1, maxLength: 200 }) });

export const CommissioningBody = Type.Object(
  {
    site_id: SiteId,
    max_silence_minutes: Type.Integer({
      minimum: 1,
      maximum: 1440,
      default: 15,
      description: 'An asset passes the reporting check when its newest record is at most this old (default 15)',
    }),
  },
  { additionalProperties: false },
);

export const CommissioningRun = Type.Object({
  run_id: Type.String(),
  site_id: Type.String(),
  outcome: Type.Enum(['pass', 'pass_with_warnings', 'fail']),
  created_at: Timestamp,
  created_by: Nullable(Type.String()),
  parameters: Type.Object({ max_silence_minutes: Type.Integer() }),
  summary: Type.Object({ assets: Type.Integer(), pass: Type.Integer(), warn: Type.Integer(), fail: Type.Integer() }),
  checks: Type.Array(
    Type.Object({
      check: Type.Enum(['assets_registered', 'reporting', 'plausibility', 'topology', 'unregistered_devices']),
      asset_id: Nullable(Type.String()),
      result: Type.Enum(['pass', 'warn', 'fail']),
      message: Type.String(),
    }),
  ),
});
