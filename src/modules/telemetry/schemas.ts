// TypeBox schemas of the telemetry operations. The ingest body is deliberately permissive (any
// object or array): the record rules are applied per record by the service, so one bad record
// never refuses the batch and the validator never changes what was sent.
import { Type } from 'typebox';
import { ASSET_METRICS, ASSET_TYPES, RANGES } from './metrics.ts';
import { Nullable, Component } from '../../platform/schema-kit.ts';

const OpenObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

/** A record as a sender should write it (the document's type; each record is checked on its own). */
const RecordIn = Component(
  'TelemetryRecordIn',
  Type.Object(
    {
      asset_id: Type.Optional(Type.String({ description: 'The asset; required unless device_id is given' })),
      device_id: Type.Optional(Type.String({ description: 'Accepted for asset_id' })),
      ts: Type.String({ format: 'date-time', description: 'ISO 8601 with an explicit UTC offset' }),
      power_kw: Type.Optional(Type.Number({ description: 'kW, signed: positive import or charge, negative export, generation or discharge' })),
      soc_pct: Type.Optional(Type.Number({ description: 'Percent, 0 to 100' })),
      voltage: Type.Optional(Type.Number({ description: 'Volts' })),
      current: Type.Optional(Type.Number({ description: 'Amperes' })),
      temp_c: Type.Optional(Type.Number({ description: 'Degrees C' })),
      status: Type.Optional(Type.String({ description: 'Free text; default "unknown"' })),
      tenant_id: Type.Optional(Type.String({ description: 'Must be your organisation' })),
      run_id: Type.Optional(Type.String()),
      intent_id: Type.Optional(Type.String()),
    },
    { additionalProperties: true, description: 'One telemetry record; every other key is kept verbatim in raw' },
  ),
);

/** The ingest body for the document: one record or an array of them. */
export const IngestBodyDoc = Type.Union([RecordIn, Type.Array(RecordIn, { description: 'Several records, written in array order' })], {
  description: 'One telemetry record or an array of them; each record is checked on its own (per-record results).',
});

export const IngestBody = Type.Union(
  [
    OpenObject('One telemetry record'),
    Type.Array(Type.Unknown({ description: 'A telemetry record (checked per record; see the operation description)' }), {
      description: 'Several records, written in array order',
    }),
  ],
  {
    description:
      'One telemetry record or an array of them. Canonical keys: asset_id (or device_id), ts (ISO 8601 with an ' +
      'explicit offset), power_kw, soc_pct, voltage, current, temp_c (numbers), status (string, default "unknown"), ' +
      'tenant_id (must be your organisation), run_id, intent_id (strings). Every other key is kept verbatim in raw.',
    examples: [
      [
        { asset_id: 'bat-01', ts: '2026-10-15T09:00:00Z', power_kw: -3.2, soc_pct: 64.5, status: 'discharging' },
        { device_id: 'inv-07', ts: '2026-10-15T10:00:00+01:00', power_kw: -4.1, site_ref: 'leeds-2' },
      ],
    ],
  },
);

const RecordProblem = Type.Object({
  field: Nullable(Type.String()),
  reason: Type.String(),
  message: Type.String(),
});

const ResultEntry = Type.Object(
  {
    index: Type.Integer({ description: 'Position of the record in the request (0 for a single object)' }),
    status: Type.Union([Type.Literal('stored'), Type.Literal('duplicate'), Type.Literal('rejected')]),
    field: Type.Optional(Nullable(Type.String({ description: 'Rejected: the key at fault (null when the record is not an object)' }))),
    reason: Type.Optional(
      Type.String({
        description:
          'Rejected: stable reason code: missing_asset_id, invalid_asset_id, missing_ts, unparseable_ts, ' +
          'epoch_ts_not_accepted, ts_beyond_retention, not_a_number, beyond_bound, not_a_string, not_an_object, unsupported_value; ' +
          'with a device credential also device_on_another_site and device_not_in_credential (docs/devices.md)',
      }),
    ),
    message: Type.Optional(Type.String({ description: 'Rejected: the reason in words' })),
    errors: Type.Optional(Type.Array(RecordProblem, { description: 'Rejected: every problem of the record; the first is field/reason' })),
    anomalies: Type.Optional(Type.Array(Type.String(), { description: 'Stored with these anomaly flags' })),
    duplicate_of: Type.Optional(Type.Integer({ description: 'Duplicate: index of the earlier, stored copy' })),
  },
  { description: 'The outcome of one record' },
);

const AnomalyEntry = Type.Object({
  index: Type.Integer(),
  asset_id: Type.String(),
  reasons: Type.Array(Type.String(), {
    description:
      'soc_out_of_range, power_out_of_range, voltage_out_of_range, ts_without_offset, ts_in_future (extensible). ' +
      'A ts_in_future record is stored but never becomes the newest reading',
  }),
  record: OpenObject('The record as sent'),
});

const countMembers = {
  count: Type.Integer({ description: 'Records in the request' }),
  stored: Type.Integer({ description: 'Records committed to the store' }),
  streamed: Type.Integer({
    description:
      'Records the live stream had accepted when the answer was sent; a publish refused while the bus fails over is tried again for up to 30 s, so others may follow (decision 0488)',
  }),
  accepted: Type.Integer({ description: 'Records that passed the rules and were not duplicates (handed to the store)' }),
  rejected: Type.Integer({ description: 'Records rejected (count = accepted + rejected + duplicates)' }),
  duplicates: Type.Integer({ description: 'Exact copies of an earlier record in the same request, stored once' }),
  anomalies: Type.Array(AnomalyEntry, { description: 'Stored records carrying anomaly flags' }),
};

export const IngestResult = Component(
  'IngestionResult',
  Type.Object({
    ...countMembers,
    results: Type.Optional(
      Type.Array(ResultEntry, { description: 'One entry per record, in request order. Present with 207 (and with 422 all_records_rejected).' }),
    ),
  }),
);

const FieldErrorList = Type.Array(
  Type.Object({ type: Type.String(), loc: Type.Array(Type.Union([Type.String(), Type.Integer()])), msg: Type.String(), input: Type.Unknown() }),
);

export const IngestRejected = Type.Object(
  {
    detail: Type.Union([Type.Literal('all_records_rejected'), FieldErrorList], {
      description:
        '`all_records_rejected` (every record rejected, nothing stored, counts and results beside it), or a list of field errors when the body is not an object or array',
    }),
    count: Type.Optional(countMembers.count),
    stored: Type.Optional(countMembers.stored),
    streamed: Type.Optional(countMembers.streamed),
    accepted: Type.Optional(countMembers.accepted),
    rejected: Type.Optional(countMembers.rejected),
    duplicates: Type.Optional(countMembers.duplicates),
    anomalies: Type.Optional(countMembers.anomalies),
    results: Type.Optional(Type.Array(ResultEntry)),
  },
  { additionalProperties: true },
);

export const IngestForbidden = Type.Object(
  {
    detail: Type.String({ description: '`cross_tenant_record`, `Tenant mismatch`, `Insufficient permissions` or `Roles missing on token`' }),
    index: Type.Optional(Type.Integer({ description: 'cross_tenant_record: position of the record naming another organisation' })),
    field: Type.Optional(Type.String({ description: 'cross_tenant_record: the key naming it (tenant_id)' })),
  },
  { additionalProperties: true },
);

export const IngestUnavailable = Type.Union([
  Type.Object(
    {
      detail: Type.Literal('writer_error'),
      ...countMembers,
    },
    {
      additionalProperties: true,
      description: 'The store did not persist the batch (stored 0); `streamed` says how many records reached the live stream. Retry after Retry-After.',
    },
  ),
  Type.Object(
    { detail: Type.Literal('Service Unavailable') },
    {
      description:
        'The store could not be reached before the batch was looked at (the credential could not be checked): nothing was stored or streamed. Retry after Retry-After.',
    },
  ),
]);

// ---------------------------------------------------------------------------------------------

/** A reading's measured values (ReadingValues) as schema members. */
export const ReadingValueProperties = {
  power_kw: Nullable(Type.Number()),
  soc_pct: Nullable(Type.Number()),
  voltage: Nullable(Type.Number()),
  current: Nullable(Type.Number()),
  temp_c: Nullable(Type.Number()),
  status: Type.String(),
};

export const LiveEventsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'Records to return, 1 to 500 (default 50)' })),
  asset_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Only this asset' })),
});

const LiveEvent = Component(
  'TelemetryRecord',
  Type.Object({
    id: Type.Integer({ description: 'Row identifier; ascends in array order within a batch' }),
    asset_id: Type.String(),
    ts: Type.String({ format: 'date-time', description: 'ISO 8601 UTC' }),
    received_at: Type.String({ format: 'date-time', description: 'When the service received the batch, ISO 8601 UTC' }),
    ...ReadingValueProperties,
    run_id: Nullable(Type.String()),
    intent_id: Nullable(Type.String()),
    anomalies: Type.Array(Type.String()),
    raw: OpenObject('The record as sent'),
  }),
);

export const LiveEventsResult = Type.Object({
  events: Type.Array(LiveEvent, { description: 'Stored records, newest received first' }),
  count: Type.Integer(),
  limit: Type.Integer(),
  window_hours: Type.Integer({ description: 'Only records received within this many hours are listed' }),
});

// ---------------------------------------------------------------------------------------------

export const HistoryParams = Type.Object({
  asset_type: Type.Enum(ASSET_TYPES, { description: 'solar, battery, ev, heat-pump, smart-meter or cost-savings' }),
  asset_id: Type.String({ minLength: 1, maxLength: 256 }),
});

const metricDoc = Object.entries(ASSET_METRICS)
  .map(([type, ms]) => `${type}: ${ms.map((m) => m.metric).join(', ')} (default ${ms[0].metric})`)
  .join('; ');

export const HistoryQuery = Type.Object({
  range: Type.Optional(
    Type.Enum(Object.keys(RANGES), {
      default: 'hourly',
      description: 'live 1 h / 5 min buckets, hourly (default) 24 h / 1 h, daily 30 d / 1 d, weekly 12 w / 1 w, historical 365 d / 30 d',
    }),
  ),
  metric: Type.Optional(
    Type.Enum([...new Set(Object.values(ASSET_METRICS).flatMap((ms) => ms.map((m) => m.metric)))].sort(), {
      description: `Metric of the asset type (a metric of another type is refused with 422). ${metricDoc}`,
    }),
  ),
});

export const HistoryResult = Type.Object({
  asset_id: Type.String(),
  asset_type: Type.String(),
  metric: Type.String(),
  range: Type.String(),
  unit: Type.String(),
  bucket: Type.String({ description: 'Bucket width, e.g. "1 hour"' }),
  from: Type.String({ format: 'date-time', description: 'Window start, ISO 8601 UTC' }),
  to: Type.String({ format: 'date-time', description: 'Window end (now), ISO 8601 UTC' }),
  series: Type.Array(
    Type.Object({
      t: Type.String({ format: 'date-time', description: 'Bucket start, ISO 8601 UTC' }),
      v: Type.Number({ description: 'Mean of the bucket samples' }),
    }),
    { description: 'Sparse: buckets without samples are omitted' },
  ),
  summary: Type.Object({
    count: Type.Integer({ description: 'Samples in the window' }),
    min: Nullable(Type.Number()),
    max: Nullable(Type.Number()),
    avg: Nullable(Type.Number({ description: 'Mean of the samples (not of the buckets)' })),
    latest: Nullable(Type.Number({ description: 'The most recent sample' })),
  }),
  source: Type.Union([Type.Literal('timeseries'), Type.Literal('timeseries_unavailable')], {
    description: 'timeseries_unavailable: the store was unreachable and series is empty for that reason, not for lack of data',
  }),
});
