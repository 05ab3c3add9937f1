// Field request and response shapes (TypeBox).
import { Type } from 'typebox';
import { Component, Nullable, Timestamp } from '../../platform/schema-kit.ts';
import { CLOCK_STATES, KINDS, MEASURES, PRIORITIES, SLA_RISKS, SOURCE_TYPES, STATUSES } from './vocabulary.ts';

/** One of the vocabulary's words: an `enum` schema whose static type is the words' union (Type.Enum alone widens it to string). */
const lit = <T extends readonly string[]>(values: T, description: string) => Type.Unsafe<T[number]>(Type.Enum([...values], { description }));

export const StatusName = lit(STATUSES, 'Work order status (see GET /api/hardware/field/vocabulary)');
export const PriorityName = lit(PRIORITIES, 'Priority: critical, high, medium or low');
export const KindName = lit(KINDS, 'Kind of work');
export const MeasureName = lit(
  MEASURES,
  'calendar_hours: elapsed time; business_hours: the business day on working days (UK local time, England and Wales bank holidays excluded)',
);
export const RiskName = lit(
  SLA_RISKS,
  'SLA risk now: ok, at_risk (a running clock past at_risk_percent of its target) or breached (a clock reached its target)',
);
const hhmm = (description: string) => Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description });
const HHMM = hhmm('HH:MM, UK local time');

export const WorkOrderId = Type.Object({ work_order_id: Type.String({ minLength: 1, maxLength: 100, description: 'Work order id (wo_...)' }) });
export const PriorityParams = Type.Object({ priority: PriorityName });

const PolicyMembers = {
  response_minutes: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    description: 'Target from creation to the first move to in_progress, in minutes of the measure',
  }),
  resolution_minutes: Type.Integer({ minimum: 1, maximum: 86_400, description: 'Target from creation to completed, in minutes of the measure' }),
  measure: MeasureName,
  business_day_start: HHMM,
  business_day_end: HHMM,
  pause_on_hold: Type.Boolean({ description: 'Both clocks pause while the work order is on_hold' }),
  at_risk_percent: Type.Integer({ minimum: 1, maximum: 99, description: 'A clock is at risk once this share of its target has elapsed' }),
};

export const SlaPolicyBody = Type.Object(
  {
    response_minutes: PolicyMembers.response_minutes,
    resolution_minutes: PolicyMembers.resolution_minutes,
    measure: MeasureName,
    business_day_start: Type.Optional(hhmm('Start of the business day, UK local time, 02:00 or later (default 08:00)')),
    business_day_end: Type.Optional(hhmm('End of the business day, UK local time, at least an hour after the start (default 18:00)')),
    pause_on_hold: Type.Optional(Type.Boolean({ description: "Clocks pause while on_hold (default: the priority's default)" })),
    at_risk_percent: Type.Optional(Type.Integer({ minimum: 1, maximum: 99, description: 'At-risk threshold in percent of the target (default 75)' })),
  },
  { additionalProperties: false },
);

export const SlaPolicy = Component(
  'FieldSlaPolicy',
  Type.Object({
    priority: PriorityName,
    ...PolicyMembers,
    is_default: Type.Boolean({ description: 'True when the organisation has not set this priority (the default is in force)' }),
    updated_at: Nullable(Timestamp, 'When the organisation last set it; null for the default'),
  }),
);

const PolicySnapshot = Type.Object(
  { priority: PriorityName, ...PolicyMembers },
  { description: 'The policy the clocks use: taken at creation and at each priority change' },
);

const ClockView = Type.Object({
  target_minutes: Type.Integer({ description: 'The target, in minutes of the measure' }),
  state: lit(CLOCK_STATES, 'ok, at_risk, breached (the target was reached), met (stopped before the target) or cancelled (stopped by cancellation)'),
  elapsed_seconds: Type.Integer({ description: 'SLA time elapsed now, in seconds of the measure' }),
  running: Type.Boolean({ description: 'The clock runs now' }),
  paused: Type.Boolean({ description: 'Neither running nor stopped: on hold under a pausing policy' }),
  due_at: Nullable(
    Timestamp,
    'When the target is (or was) reached: projected while running; the past crossing otherwise; null when paused or stopped before the target',
  ),
  at_risk_at: Nullable(Timestamp, 'Same for the at-risk threshold'),
  stopped_at: Nullable(Timestamp, 'When the clock stopped for good (response: first in_progress; resolution: completed; either: cancelled)'),
});

const WorkOrderMembers = {
  id: Type.String(),
  site_id: Nullable(Type.String(), 'Site; null when the signal named none'),
  asset_id: Nullable(Type.String()),
  priority: PriorityName,
  kind: KindName,
  description: Type.String(),
  status: StatusName,
  allowed_transitions: Type.Array(StatusName, { description: 'Statuses the transition operation may move to now' }),
  assignee_id: Nullable(Type.String(), 'The member who owns it'),
  scheduled_for: Nullable(Timestamp, 'The booked visit (set when moved to scheduled)'),
  source: Type.Object({ type: lit(SOURCE_TYPES, 'manual, alert or stale_feed'), id: Nullable(Type.String(), 'The alert id or device id') }),
  sla: Type.Object({
    risk: RiskName,
    measure: MeasureName,
    pause_on_hold: Type.Boolean(),
    clocks_computed_at: Timestamp,
    response: ClockView,
    resolution: ClockView,
  }),
  created_by: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const WorkOrderSummary = Component('FieldWorkOrderSummary', Type.Object(WorkOrderMembers));

export const HistoryEntry = Type.Object({
  id: Type.String(),
  type: Type.String({ description: 'created, assigned, transition, priority_changed, note or attachment' }),
  at: Timestamp,
  actor_id: Nullable(Type.String()),
  data: Type.Object({}, { additionalProperties: true, description: 'What changed (from/to, reason, recomputed due times, ...)' }),
});

export const Note = Type.Object({
  id: Type.String(),
  work_order_id: Type.Optional(Type.String()),
  text: Type.String(),
  author_id: Nullable(Type.String()),
  at: Timestamp,
});

const AttachmentMembers = {
  name: Type.String({ minLength: 1, maxLength: 255, description: 'File name' }),
  content_type: Type.String({
    minLength: 3,
    maxLength: 127,
    pattern: '^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+$',
    description: 'Media type, e.g. image/jpeg',
  }),
  size_bytes: Type.Integer({ minimum: 0, maximum: 10_000_000_000, description: 'Size in bytes' }),
  sha256: Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'SHA-256 of the file, hex' }),
  external_ref: Type.String({ minLength: 1, maxLength: 2000, description: 'Where the file is kept (a document store reference or URL); never fetched' }),
};
export const AttachmentBody = Type.Object(AttachmentMembers, { additionalProperties: false });
export const Attachment = Type.Object({
  id: Type.String(),
  work_order_id: Type.Optional(Type.String()),
  ...AttachmentMembers,
  added_by: Nullable(Type.String()),
  at: Timestamp,
});

export const WorkOrder = Component(
  'FieldWorkOrder',
  Type.Object({
    ...WorkOrderMembers,
    sla_policy: PolicySnapshot,
    history: Type.Array(HistoryEntry, { description: 'Every change, oldest first' }),
    notes: Type.Array(Note),
    attachments: Type.Array(Attachment, { description: 'Metadata only: no file is stored' }),
  }),
);

export const CreateBody = Type.Object(
  {
    site_id: Type.String({ minLength: 1, maxLength: 128, description: 'A site of the organisation' }),
    asset_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'A registered asset at that site' })),
    priority: PriorityName,
    kind: KindName,
    description: Type.String({ minLength: 1, maxLength: 4000 }),
  },
  { additionalProperties: false },
);

export const TransitionBody = Type.Object(
  {
    to: StatusName,
    note: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Why; kept in the history' })),
    scheduled_for: Type.Optional(Type.String({ format: 'date-time', description: 'The booked visit, ISO 8601; required when moving to scheduled' })),
  },
  { additionalProperties: false },
);

export const FieldAsset = Type.Object({
  asset_id: Type.String(),
  site_id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  asset_class: Nullable(Type.String()),
  last_reported_at: Nullable(Timestamp),
  freshness: Type.String({ description: 'Registry freshness band: live, recent, stale, silent or never' }),
  feed_stale: Type.Boolean({ description: 'No record for an hour or more (or never): from-stale-feed accepts it' }),
  open_work_orders: Type.Integer(),
});

export const FieldAlert = Type.Object({
  id: Type.String(),
  type: Type.String(),
  source: Type.String(),
  severity: Type.String(),
  status: Type.String(),
  title: Type.String(),
  site_id: Nullable(Type.String()),
  asset_id: Nullable(Type.String()),
  raised_at: Timestamp,
  work_order_id: Nullable(Type.String(), 'The work order opened from it, if any'),
});

const Summary = Type.Object({
  total: Type.Integer({ description: 'Work orders created in the period (cancelled ones left out)' }),
  met: Type.Integer({ description: 'Completed or verified with neither clock breached' }),
  breached: Type.Integer({ description: 'A clock reached its target' }),
  at_risk: Type.Integer({ description: 'Open, not breached, a clock past its at-risk threshold' }),
  on_track: Type.Integer({ description: 'Open and neither breached nor at risk' }),
  met_percent: Nullable(Type.Number(), 'Share of total, one decimal; null when total is 0'),
  breached_percent: Nullable(Type.Number()),
  at_risk_percent: Nullable(Type.Number()),
  median_response_minutes: Nullable(Type.Number(), 'Median wall-clock minutes from creation to the first in_progress, of those that got there'),
  median_resolution_minutes: Nullable(Type.Number(), 'Median wall-clock minutes from creation to completed, of those completed'),
});
const Group = Type.Object({ key: Type.String(), ...Summary.properties });

export const SlaReport = Type.Object({
  period: Type.Object({ from: Timestamp, to: Timestamp }),
  as_of: Timestamp,
  overall: Summary,
  by_priority: Type.Array(Group),
  by_site: Type.Array(Group, { description: "Key 'none' for work orders without a site" }),
  by_assignee: Type.Array(Group, { description: "Key: the member id, or 'unassigned'" }),
});
