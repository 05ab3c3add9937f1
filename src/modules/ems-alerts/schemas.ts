// Shapes of EMS alerts, routing and alert admin.
import { Type } from 'typebox';
import { Component, Money, Nullable, SINGLE_LINE, Timestamp } from '../../platform/schema-kit.ts';
import { SOURCES } from './sources.ts';

const Pounds = Money('Pounds per day, two decimals');
const PoundsIn = Type.String({ pattern: '^(0|[1-9][0-9]{0,8})(\\.[0-9]{1,2})?$', description: 'Pounds, at most two decimals' });
const Pence = Type.String({ pattern: '^(0|[1-9][0-9]{0,4})(\\.[0-9]{1,4})?$', description: 'Pence per kWh, at most four decimals' });
const HHMM = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM, UK local time' });
export const SourceName = Type.Union(SOURCES.map((s) => Type.Literal(s)));
export const SeverityName = Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('critical')]);

export const EmsAlert = Component(
  'EmsAlert',
  Type.Object({
    id: Type.String({ description: 'The alert id in the organisation alert stream' }),
    source: Type.String({ description: `One of: ${SOURCES.join(', ')}` }),
    severity: SeverityName,
    status: Type.Union([Type.Literal('open'), Type.Literal('resolved')]),
    title: Type.String(),
    site_id: Nullable(Type.String()),
    asset_id: Nullable(Type.String()),
    since: Timestamp,
    raised_at: Timestamp,
    evaluated_at: Timestamp,
    evidence: Type.Object({}, { additionalProperties: true, description: 'The figures the alert rests on and the window they came from' }),
    impact_gbp_per_day: Pounds,
    impact_method: Type.String({ description: 'How the impact was worked out, in one sentence' }),
    acknowledged_at: Nullable(Timestamp),
    acknowledged_by: Nullable(Type.String()),
    assigned_to: Nullable(Type.String()),
  }),
);

const SitePolicy = Type.Object(
  {
    import_p_per_kwh: Type.Optional(Pence),
    peak_import_p_per_kwh: Type.Optional(Pence),
    export_p_per_kwh: Type.Optional(Pence),
    export_limit_kw: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100000 })),
  },
  { additionalProperties: false },
);

const policyMembers = {
  severity: Type.Object(
    { warning_gbp_per_day: PoundsIn, critical_gbp_per_day: PoundsIn },
    { additionalProperties: false, description: 'Impact at or above critical: critical; at or above warning: warning; else info' },
  ),
  window_hours: Type.Integer({ minimum: 1, maximum: 168, description: 'Evaluation window ending now' }),
  silence_after_minutes: Type.Integer({ minimum: 5, maximum: 10080, description: 'asset_silence once the newest record is this old' }),
  pv: Type.Object(
    {
      expected_kwh_per_kwp_day: Type.String({ pattern: '^(0|[1-9][0-9]?)(\\.[0-9]{1,3})?$' }),
      underperformance_pct: Type.Integer({ minimum: 1, maximum: 99 }),
    },
    { additionalProperties: false },
  ),
  battery: Type.Object(
    { min_soc_swing_pct: Type.Number({ minimum: 0.1, maximum: 100 }), charge_held_soc_pct: Type.Number({ minimum: 0, maximum: 100 }) },
    { additionalProperties: false },
  ),
  peak_band: Type.Object({ start: HHMM, end: HHMM }, { additionalProperties: false }),
  prices: Type.Object(
    { import_p_per_kwh: Pence, peak_import_p_per_kwh: Pence, export_p_per_kwh: Pence },
    { additionalProperties: false, description: "The organisation's prices; a site's own override them" },
  ),
  sites: Type.Record(Type.String({ minLength: 1, maxLength: 128 }), SitePolicy, { maxProperties: 1000 }),
};

export const PolicyBody = Type.Object(
  Object.fromEntries(Object.entries(policyMembers).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof typeof policyMembers]: ReturnType<typeof Type.Optional<(typeof policyMembers)[K]>>;
  },
  { additionalProperties: false },
);

export const PolicyOut = Component(
  'EmsAlertPolicy',
  Type.Object({
    policy: Type.Object(policyMembers),
    is_default: Type.Boolean(),
    updated_at: Nullable(Timestamp),
    updated_by: Nullable(Type.String()),
  }),
);

const Url = Type.String({ minLength: 8, maxLength: 2048, format: 'uri' });
export const ChannelIn = Type.Union([
  Type.Object({ type: Type.Literal('email'), to: Type.String({ format: 'email', maxLength: 254 }) }, { additionalProperties: false }),
  Type.Object(
    { type: Type.Literal('team_chat'), url: Url, format: Type.Optional(Type.Union([Type.Literal('slack'), Type.Literal('teams')])) },
    { additionalProperties: false },
  ),
  Type.Object(
    { type: Type.Literal('webhook'), url: Url, secret: Type.Optional(Type.String({ minLength: 1, maxLength: 256, writeOnly: true })) },
    { additionalProperties: false },
  ),
  Type.Object({ type: Type.Literal('user'), user_id: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false }),
]);

export const ChannelOut = Type.Object({
  type: Type.String(),
  channel_key: Type.String({ description: 'What "the same channel" means for deliveries' }),
  to: Type.Optional(Type.String()),
  format: Type.Optional(Type.String()),
  url_hint: Type.Optional(Type.String({ description: 'Team-chat URLs are credentials: only the host is shown' })),
  url: Type.Optional(Type.String()),
  secret_set: Type.Optional(Type.Boolean({ description: 'The secret is write-only and never shown' })),
  user_id: Type.Optional(Type.String()),
});

const Match = Type.Object(
  {
    severities: Type.Optional(Type.Array(SeverityName, { maxItems: 3, uniqueItems: true })),
    sources: Type.Optional(Type.Array(SourceName, { maxItems: SOURCES.length, uniqueItems: true })),
    site_ids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 128, pattern: SINGLE_LINE }), { maxItems: 500, uniqueItems: true })),
    min_impact_gbp_per_day: Type.Optional(PoundsIn),
  },
  { additionalProperties: false, description: 'Every member given must hold; empty lists match everything' },
);

export const RuleBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: SINGLE_LINE,
      description: 'One line (no CR, LF or other control characters): it is written into messages',
    }),
    enabled: Type.Optional(Type.Boolean({ default: true })),
    match: Type.Optional(Match),
    channels: Type.Array(ChannelIn, { minItems: 1, maxItems: 10 }),
    escalation: Type.Optional(
      Nullable(
        Type.Object(
          { after_minutes: Type.Integer({ minimum: 1, maximum: 10080 }), channels: Type.Array(ChannelIn, { minItems: 1, maxItems: 10 }) },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

export const Rule = Component(
  'RoutingRule',
  Type.Object({
    id: Type.String(),
    name: Type.String(),
    enabled: Type.Boolean(),
    match: Type.Object({
      severities: Type.Array(Type.String()),
      sources: Type.Array(Type.String()),
      site_ids: Type.Array(Type.String()),
      min_impact_gbp_per_day: Nullable(Type.String()),
    }),
    channels: Type.Array(ChannelOut),
    escalation: Nullable(Type.Object({ after_minutes: Type.Integer(), channels: Type.Array(ChannelOut) })),
    created_at: Timestamp,
    created_by: Nullable(Type.String()),
    updated_at: Timestamp,
    updated_by: Nullable(Type.String()),
  }),
);

export const Delivery = Component(
  'RoutedDelivery',
  Type.Object({
    id: Type.String(),
    alert_id: Type.String(),
    rule_id: Type.String(),
    channel_type: Type.String({ description: 'email, team_chat, webhook, in_app' }),
    channel_key: Type.String(),
    target: Type.String({ description: 'Email address, webhook URL, team-chat host or user id' }),
    reason: Type.Union([Type.Literal('routed'), Type.Literal('escalated')]),
    trigger: Type.Union([Type.Literal('evaluate'), Type.Literal('dispatch'), Type.Literal('escalations_check')]),
    outcome: Type.Union([Type.Literal('sending'), Type.Literal('delivered'), Type.Literal('failed'), Type.Literal('suppressed')]),
    status_code: Nullable(Type.Integer({ description: 'HTTP status of the answer, or the SMTP reply code' })),
    error: Nullable(Type.String()),
    event_id: Nullable(Type.String({ description: 'emsAlertRouted event id (webhook channel)' })),
    attempted_at: Timestamp,
    duration_ms: Nullable(Type.Integer()),
  }),
);

export const RoutingResult = Type.Object({
  alerts_considered: Type.Integer(),
  deliveries: Type.Array(Delivery),
  already_delivered: Type.Integer({ description: 'Channels skipped because this alert already reached them for this reason' }),
  deferred: Type.Integer({
    description:
      'Deliveries not started because the call ran out of its time (ROUTING_CALL_BUDGET_MS, default 30 s): nothing claimed them, so the next dispatch or escalation check sends them',
  }),
});

const HistoryEntry = Type.Object({
  id: Type.String(),
  action: Type.String(),
  actor_id: Nullable(Type.String()),
  at: Timestamp,
  note: Nullable(Type.String()),
  details: Type.Object({}, { additionalProperties: true }),
});

const adminMembers = {
  id: Type.String(),
  type: Type.String(),
  source: Type.String(),
  severity: SeverityName,
  status: Type.Union([Type.Literal('open'), Type.Literal('resolved')]),
  subject: Nullable(Type.Object({ type: Type.String(), id: Type.String() })),
  title: Type.String(),
  details: Type.Object({}, { additionalProperties: true }),
  raised_at: Timestamp,
  resolved_at: Nullable(Timestamp),
  resolution: Nullable(Type.String()),
  acknowledged_at: Nullable(Timestamp),
  acknowledged_by: Nullable(Type.String()),
  assigned_to: Nullable(Type.String()),
  assigned_by: Nullable(Type.String()),
  assigned_at: Nullable(Timestamp),
  resolved_by: Nullable(Type.String()),
  resolution_reason: Nullable(Type.String()),
};

export const AdminAlert = Component('AdminAlert', Type.Object({ ...adminMembers, history: Type.Array(HistoryEntry) }));
export const StaffAlert = Type.Object({ organisation_id: Type.String(), ...adminMembers });
