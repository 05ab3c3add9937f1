// Request and response schemas of the connect operations.
import { Type } from 'typebox';
import { Nullable, Timestamp, Component, PageMembers, LimitParam, CursorParam, JobProgressSchema } from '../../platform/schema-kit.ts';
import { ASSET_CLASSES, ASSET_ID_PATTERN, SiteId } from '../registry/index.ts';
import { MEASUREMENTS, SIGNS } from './units.ts';

export const SiteParams = Type.Object({ site_id: SiteId });
const AssetClass = Type.Enum([...ASSET_CLASSES], { description: 'Registry asset class' });
const DeviceId = Type.String({ pattern: ASSET_ID_PATTERN, description: 'The id the device reports telemetry with (asset_id/device_id)' });
const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });

// ---- Onboarding ------------------------------------------------------------------------------

export const SlotSchema = Type.Object({
  slot: Type.String({ pattern: '^[a-z][a-z0-9_]{0,39}$', description: 'Slot name within the template' }),
  asset_class: AssetClass,
  type: Type.String({ minLength: 1, maxLength: 64, description: 'Free-form type the asset is registered with (defaults to the class)' }),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  parent_slot: Nullable(Type.String(), 'A slot listed earlier that this asset sits under; null at the top'),
  required: Type.Boolean({ description: 'A required slot must be mapped to a device before confirmation' }),
  keywords: Type.Array(Type.String(), { description: 'Words in a device id or name that suggest it fills this slot' }),
});

export const Template = Component(
  'SiteTemplate',
  Type.Object({
    template_id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    built_in: Type.Boolean({ description: "Built-in GB template (ids gb-*), or the organisation's own" }),
    slots: Type.Array(SlotSchema),
  }),
);

export const TemplateBody = Type.Object(
  {
    template_id: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{1,62}$', description: "Lower-case id; ids starting with 'gb-' are reserved" }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    slots: Type.Array(
      Type.Object(
        {
          slot: SlotSchema.properties.slot,
          asset_class: AssetClass,
          type: Type.Optional(SlotSchema.properties.type),
          name: SlotSchema.properties.name,
          parent_slot: Type.Optional(Nullable(Type.String())),
          required: Type.Optional(Type.Boolean({ description: 'Default true' })),
          keywords: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { maxItems: 20 })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 50 },
    ),
  },
  { additionalProperties: false },
);

const ProposalEntry = Type.Object({
  slot: Type.String(),
  asset_id: Type.String({ description: 'The placeholder asset made for the slot' }),
  asset_class: Type.String(),
  required: Type.Boolean(),
  device_id: Nullable(Type.String(), 'Proposed reporting device; null when none matched'),
  confidence: Type.Number({ minimum: 0, maximum: 1 }),
  confidence_level: Type.Enum(['high', 'medium', 'low', 'none']),
  reasons: Type.Array(Type.String(), { description: 'Why this device was proposed (or why none was)' }),
});

const MappingEntry = Type.Object({
  slot: Type.String(),
  asset_id: Type.String({
    description: 'The registry asset id after confirmation: the device id when one is mapped (the placeholder takes it), else the placeholder',
  }),
  device_id: Nullable(Type.String()),
  source: Type.Enum(['proposed', 'edited']),
  confidence: Nullable(Type.Number(), "The proposal's confidence when the proposed device was kept"),
});

const RunBase = {
  run_id: Type.String(),
  site_id: Type.String(),
  template_id: Type.String(),
  status: Type.Enum(['proposed', 'confirmed']),
  started_at: Timestamp,
  started_by: Nullable(Type.String()),
  confirmed_at: Nullable(Timestamp),
  confirmed_by: Nullable(Type.String()),
  elapsed_seconds: Nullable(Type.Number(), 'Time from start to confirmation (the onboarding clock); null while open'),
};

export const Run = Component(
  'OnboardingRun',
  Type.Object({
    ...RunBase,
    proposal: Type.Object({
      entries: Type.Array(ProposalEntry),
      unassigned_devices: Type.Array(Type.Object({ device_id: Type.String(), reason: Type.String() })),
      method: Type.String(),
    }),
    mapping: Nullable(Type.Array(MappingEntry), 'The confirmed mapping; null until confirmed'),
  }),
);

export const FromTemplateBody = Type.Object(
  {
    template_id: Type.String({ minLength: 1, maxLength: 64 }),
    site_id: SiteId,
    omit_slots: Type.Optional(Type.Array(Type.String(), { maxItems: 50, description: 'Optional slots this site does not have' })),
  },
  { additionalProperties: false },
);

export const FromTemplateResponse = Type.Object({
  run: Run,
  assets: Type.Array(
    Type.Object({
      asset_id: Type.String(),
      asset_class: Nullable(Type.String()),
      type: Type.String(),
      name: Type.String(),
      parent_asset_id: Nullable(Type.String()),
    }),
  ),
});

export const ConfirmBody = Type.Object(
  {
    mapping: Type.Optional(
      Type.Array(Type.Object({ slot: Type.String(), device_id: Nullable(DeviceId) }, { additionalProperties: false }), {
        maxItems: 50,
        description: 'Edits: slots listed here take this device (null: none); other slots keep the proposal. Absent: confirm the proposal as is.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const SiteOnboarding = Type.Object({
  run: Run,
  confirmed_mapping: Nullable(Type.Array(MappingEntry)),
  assets: Type.Array(
    Type.Object({
      asset_id: Type.String(),
      asset_class: Nullable(Type.String()),
      name: Type.String(),
      parent_asset_id: Nullable(Type.String()),
      freshness: Type.String(),
      last_reported_at: Nullable(Timestamp),
    }),
  ),
});

export const RunsQuery = Type.Object({
  limit: Type.Optional(LimitParam({ default: 50, max: 200 })),
  cursor: Type.Optional(CursorParam),
  site_id: Type.Optional(SiteId),
});

export const RunsResponse = Type.Object({
  runs: Type.Array(
    Type.Object({
      ...RunBase,
      slots: Type.Integer(),
      proposed_devices: Type.Integer(),
      mapped_devices: Nullable(Type.Integer()),
    }),
  ),
  summary: Type.Object({
    runs: Type.Integer(),
    confirmed: Type.Integer(),
    open: Type.Integer(),
    median_seconds: Nullable(Type.Number(), 'Median time to confirm across the organisation; null when none confirmed'),
    p90_seconds: Nullable(Type.Number(), 'Nearest-rank 90th percentile time to confirm'),
    method: Type.String(),
  }),
  ...PageMembers,
});

// ---- Gateway ---------------------------------------------------------------------------------

export const HeartbeatBody = Type.Object(
  {
    gateway_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    firmware: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    buffer_depth: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'Readings waiting in the gateway buffer' })),
    sent_at: Type.Optional(
      Type.String({ format: 'date-time', description: "The gateway's own clock, for its logs: last contact is always the service's time" }),
    ),
    thresholds: Type.Optional(
      Type.Object(
        {
          late_after_s: Type.Optional(Type.Integer({ minimum: 10, maximum: 86_400 })),
          silent_after_s: Type.Optional(Type.Integer({ minimum: 20, maximum: 604_800 })),
        },
        { additionalProperties: false, description: "Set the site's thresholds (kept until changed); defaults 120 s and 600 s" },
      ),
    ),
  },
  { additionalProperties: false },
);

export const GatewayStatus = Component(
  'GatewayStatus',
  Type.Object({
    site_id: Type.String(),
    state: Type.Enum(['online', 'late', 'silent']),
    reason: Type.String({ description: 'Why the link is in this state' }),
    seconds_since_heartbeat: Nullable(Type.Integer()),
    last_heartbeat_at: Nullable(Timestamp),
    heartbeat_count: Type.Integer(),
    gateway_id: Nullable(Type.String()),
    firmware: Nullable(Type.String()),
    buffer_depth: Nullable(Type.Integer()),
    thresholds: Type.Object({ late_after_s: Type.Integer(), silent_after_s: Type.Integer() }),
    recorded_state: Nullable(
      Type.Object({ state: Type.String(), since: Timestamp, checked_at: Timestamp }),
      'The state as last recorded by heartbeat, check or the watchdog',
    ),
    watchdog: Type.Object({ active: Type.Boolean(), every_seconds: Nullable(Type.Integer()), description: Type.String() }),
    rehearsal: Type.Object({ dropped: Type.Boolean(), dropped_at: Nullable(Timestamp) }),
    alert: Nullable(
      Type.Object({ id: Type.String(), status: Type.String(), raised_at: Timestamp, title: Type.String() }),
      'The open asset_silence alert (demo realm)',
    ),
  }),
);

// ---- Buffer ----------------------------------------------------------------------------------

export const ReplayBody = Type.Object(
  {
    replay_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: "The gateway's id for this upload (generated when absent)" })),
    remaining: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100_000_000,
        description: 'Readings still buffered after this upload (progress; at most 100,000,000, as buffer_depth)',
      }),
    ),
    records: Type.Array(Type.Object({}, { additionalProperties: true }), {
      minItems: 1,
      maxItems: 5000,
      description: 'Telemetry records (concepts.md, telemetry record) each with `sequence`: a whole number from 0 counted per device by the gateway',
    }),
  },
  { additionalProperties: false },
);

const Gap = Type.Object({ device_id: Type.String(), from_sequence: Type.Integer(), to_sequence: Type.Integer(), missing: Type.Integer() });

export const ReplayResponse = Component(
  'ReplayResult',
  Type.Object({
    site_id: Type.String(),
    replay_id: Type.String(),
    count: Type.Integer(),
    stored: Type.Integer({ description: 'Stored by this call' }),
    duplicates: Type.Integer({ description: 'Already stored (an earlier or concurrent replay) or repeated in this upload: not stored again' }),
    rejected: Type.Integer(),
    anomalies: Type.Array(
      Type.Object({ index: Type.Integer(), asset_id: Type.String(), reasons: Type.Array(Type.String()), record: Open('The record as sent') }),
    ),
    results: Type.Array(
      Type.Object({
        index: Type.Integer(),
        status: Type.Enum(['stored', 'duplicate', 'rejected']),
        device_id: Nullable(Type.String()),
        sequence: Nullable(Type.Integer()),
        anomalies: Type.Optional(Type.Array(Type.String())),
        duplicate_of: Type.Optional(Nullable(Type.Integer(), 'Index of the earlier copy in this upload; null when stored by an earlier upload')),
        field: Type.Optional(Nullable(Type.String())),
        reason: Type.Optional(Type.String()),
        message: Type.Optional(Type.String()),
      }),
    ),
    gaps: Type.Array(Gap, { description: 'Missing sequence runs of the devices in this upload, over everything stored' }),
    remaining: Nullable(Type.Integer()),
  }),
);

export const BufferStatus = Type.Object({
  site_id: Type.String(),
  replays: Type.Integer(),
  received: Type.Integer(),
  stored: Type.Integer(),
  duplicates: Type.Integer(),
  rejected: Type.Integer(),
  remaining: Nullable(Type.Integer(), "Readings still buffered: the newer of the last replay's `remaining` and the heartbeat's buffer_depth"),
  remaining_source: Nullable(Type.Enum(['replay', 'heartbeat'])),
  remaining_reported_at: Nullable(Timestamp),
  progress: JobProgressSchema('readings', 'stored + remaining'),
  progress_pct: Nullable(
    Type.Number(),
    'stored / (stored + remaining) × 100, one decimal; null when remaining is unknown. Kept for clients of this live operation; new clients read `progress`, the shape every long job answers (decision 0451)',
  ),
  first_replay_at: Nullable(Timestamp),
  last_replay_at: Nullable(Timestamp),
  devices: Type.Array(
    Type.Object({
      device_id: Type.String(),
      rows: Type.Integer(),
      first_sequence: Type.Integer(),
      last_sequence: Type.Integer(),
      first_ts: Timestamp,
      last_ts: Timestamp,
      missing: Type.Integer(),
    }),
  ),
  gaps: Type.Array(Gap),
  gaps_truncated: Type.Boolean(),
});

export const RowsQuery = Type.Object({
  limit: Type.Optional(LimitParam({ default: 100, max: 1000 })),
  cursor: Type.Optional(CursorParam),
  device_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
});

export const RowsResponse = Type.Object({
  rows: Type.Array(
    Type.Object({
      device_id: Type.String(),
      sequence: Type.Integer(),
      ts: Timestamp,
      anomalies: Type.Array(Type.String()),
      replay_id: Type.String(),
      received_at: Timestamp,
    }),
  ),
  ...PageMembers,
});

export const BufferRehearseBody = Type.Object(
  {
    readings_per_device: Type.Optional(Type.Integer({ minimum: 2, maximum: 288, description: 'Default 12' })),
    interval_s: Type.Optional(Type.Integer({ minimum: 10, maximum: 3600, description: 'Default 300' })),
  },
  { additionalProperties: false },
);

const AttemptSummary = Type.Object({
  replay_id: Type.String(),
  count: Type.Integer(),
  stored: Type.Integer(),
  duplicates: Type.Integer(),
  rejected: Type.Integer(),
});

export const BufferRehearseResponse = Type.Object({
  site_id: Type.String(),
  devices: Type.Array(Type.String()),
  generated: Type.Integer(),
  interrupted_attempt: AttemptSummary,
  retry: AttemptSummary,
  stored_total: Type.Integer(),
  each_stored_once: Type.Boolean(),
  gaps: Type.Array(Gap),
});

// ---- Home-automation connector ---------------------------------------------------------------

const READ_ONLY = 'Phase 1 is read only: the connector reports and sends readings; no operation sends or queues a device command.';
const EntityId = Type.String({ minLength: 1, maxLength: 255, pattern: '^\\S+$', description: 'The home-automation entity id, e.g. sensor.solar_power' });

export const EntitySchema = Type.Object(
  {
    entity_id: EntityId,
    device_class: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    unit_of_measurement: Type.Optional(Nullable(Type.String({ maxLength: 32 }))),
    friendly_name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  },
  { additionalProperties: false },
);

const HaMappingEntry = Type.Object({
  entity_id: Type.String(),
  asset_id: Type.String(),
  measurement: Type.Enum([...MEASUREMENTS], { description: 'Canonical measurement fed (energy_kwh is kept in raw under that key)' }),
  unit: Type.String({ description: 'Unit the entity reports in' }),
  sign: Type.Enum([...SIGNS], { description: 'Power only: positive_is_export values are negated (export, generation and discharge are negative)' }),
  reason: Type.Optional(Type.String({ description: 'Why this entry was proposed' })),
});

export const ConnectorMapping = Type.Object(
  {
    site_id: Type.String(),
    status: Type.Enum(['none', 'proposed', 'confirmed', 'withdrawn']),
    entries: Type.Array(HaMappingEntry, { description: 'The confirmed mapping the connector applies; empty unless confirmed' }),
    proposed: Type.Array(HaMappingEntry, { description: 'Awaiting confirmation by a person' }),
    connector_asset_id: Type.String({ description: "Asset id of the connector's own records (unmapped entities and health kept in raw)" }),
    read_only: Type.Literal(true, { description: READ_ONLY }),
  },
  { description: READ_ONLY },
);

export const ReportBody = Type.Object(
  { entities: Type.Array(EntitySchema, { minItems: 1, maxItems: 2000 }) },
  { additionalProperties: false, description: `The entities the connector sees. ${READ_ONLY}` },
);

export const ReportResponse = Type.Object({
  site_id: Type.String(),
  entities: Type.Integer(),
  mapping_status: Type.Enum(['none', 'proposed', 'confirmed', 'withdrawn']),
  proposed: Type.Array(HaMappingEntry),
  ignored: Type.Array(Type.Object({ entity_id: Type.String(), reason: Type.String() })),
});

export const HaTelemetryBody = Type.Object(
  {
    readings: Type.Array(
      Type.Object(
        {
          entity_id: EntityId,
          state: Type.Union([Type.Number(), Type.String({ maxLength: 255 })], {
            description: "Number or numeric string; 'unavailable'/'unknown' are recorded as rejected readings",
          }),
          unit_of_measurement: Type.Optional(Type.String({ maxLength: 32, description: 'Defaults to the unit reported for the entity' })),
          ts: Type.String({ minLength: 1, maxLength: 64, description: 'When the state was measured (ISO 8601 with offset)' }),
        },
        { additionalProperties: false },
      ),
      { maxItems: 5000 },
    ),
    health: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'Connector health as the connector states it (e.g. status, version, uptime_s, last_error)' }),
    ),
  },
  { additionalProperties: false, description: `Normalised readings and connector health. ${READ_ONLY}` },
);

export const HaTelemetryResponse = Type.Object({
  site_id: Type.String(),
  count: Type.Integer(),
  stored: Type.Integer(),
  unmapped: Type.Integer(),
  rejected: Type.Integer(),
  records_written: Type.Integer({ description: 'Telemetry records written (readings of one asset at one ts share a record; plus the connector record)' }),
  results: Type.Array(
    Type.Object({
      index: Type.Integer(),
      entity_id: Type.String(),
      status: Type.Enum(['stored', 'unmapped', 'rejected']),
      asset_id: Nullable(Type.String()),
      measurement: Nullable(Type.String()),
      value: Nullable(Type.Number({ description: 'In the canonical unit, sign applied' })),
      reason: Type.Optional(Type.String()),
      message: Type.Optional(Type.String()),
    }),
  ),
});

const HaSummary = {
  site_id: Type.String(),
  mapping_status: Type.Enum(['none', 'proposed', 'confirmed', 'withdrawn']),
  entities: Type.Integer(),
  mapped_entities: Type.Integer(),
  reported_at: Nullable(Timestamp),
  last_telemetry_at: Nullable(Timestamp),
  state: Type.Enum(['online', 'late', 'silent']),
};
const Readings = Type.Object({ received: Type.Integer(), stored: Type.Integer(), unmapped: Type.Integer(), rejected: Type.Integer() });

export const HaSites = Type.Object({ sites: Type.Array(Type.Object(HaSummary)) });
export const HaSite = Type.Object(
  {
    ...HaSummary,
    connector_asset_id: Type.String(),
    reported_entities: Type.Array(EntitySchema),
    mapping: Type.Array(HaMappingEntry),
    mapping_confirmed_at: Nullable(Timestamp),
    mapping_confirmed_by: Nullable(Type.String()),
    readings: Readings,
    read_only: Type.Literal(true, { description: READ_ONLY }),
  },
  { description: READ_ONLY },
);
export const HaHealth = Type.Object({
  site_id: Type.String(),
  state: Type.Enum(['online', 'late', 'silent']),
  reason: Type.String(),
  thresholds: Type.Object({ late_after_s: Type.Integer(), silent_after_s: Type.Integer() }),
  last_telemetry_at: Nullable(Timestamp),
  reported_at: Nullable(Timestamp),
  connector_health: Nullable(Open('Health as the connector last stated it')),
  connector_health_at: Nullable(Timestamp),
  readings: Readings,
});

export const PutMappingBody = Type.Object(
  {
    entries: Type.Optional(
      Type.Array(
        Type.Object(
          {
            entity_id: EntityId,
            asset_id: Type.String({ pattern: ASSET_ID_PATTERN }),
            measurement: Type.Enum([...MEASUREMENTS]),
            unit: Type.String({ minLength: 1, maxLength: 32 }),
            sign: Type.Optional(Type.Enum([...SIGNS])),
          },
          { additionalProperties: false },
        ),
        { maxItems: 2000 },
      ),
    ),
  },
  { additionalProperties: false, description: `Absent entries: confirm the proposed mapping as is. ${READ_ONLY}` },
);
export { READ_ONLY };
