// Request and response schemas of the control, grid and decision-log operations.
import { Type, type TSchema } from 'typebox';
import { Nullable, Timestamp, Component, PageMembers, LimitParam, CursorParam } from '../../platform/schema-kit.ts';
import { ASSET_ID_PATTERN, SiteId } from '../registry/index.ts';
import { BEHAVIOURS, CATEGORIES, DEVICE_KINDS, VERDICTS } from './model.ts';

export const SiteParams = Type.Object({ site_id: SiteId });
const DeviceId = Type.String({ pattern: ASSET_ID_PATTERN, description: "A device of the site's synthetic model (see the balance)" });
export const DeviceParams = Type.Object({ device_id: DeviceId });
const Uuid = Type.String({ format: 'uuid' });
export const OverrideParams = Type.Object({ override_id: Uuid });
export const DecisionParams = Type.Object({ decision_id: Uuid });
const Kw = (description: string, opts: { minimum?: number; maximum?: number } = {}) => Type.Number({ description, ...opts });
const NKw = (description: string) => Nullable(Type.Number(), description);
const Open = (description: string) => Type.Unknown({ description });
const Verdict = Type.Enum([...VERDICTS], {
  description:
    'verified: read back as the command calls for; readback_mismatch: accepted, not applied; unconfirmed: the device did not answer; rejected: the device refused',
});
const Kind = Type.Enum([...DEVICE_KINDS], { description: 'load, pv (inverter), battery, ev (charger) or meter (the boundary meter)' });
const Behaviour = Type.Enum([...BEHAVIOURS], {
  description: 'normal (applies at once), ignores (accepts, does not apply), unreachable (no answer), rejects (refuses), slow (applies 60 s after accepting)',
});
const Category = Type.Enum([...CATEGORIES], { description: 'G98 (up to 16 A per phase) or G99' });
const page = <K extends string, T extends TSchema>(member: K, item: T, extra: Record<string, TSchema> = {}) =>
  Type.Object({ ...extra, [member]: Type.Array(item), ...PageMembers }) as TSchema;
const PageQuery = { limit: Type.Optional(LimitParam({ default: 50, max: 200 })), cursor: Type.Optional(CursorParam) };

// ---- Demo model --------------------------------------------------------------------------------

export const ModelDevice = Type.Object({
  device_id: Type.String(),
  kind: Kind,
  behaviour: Behaviour,
  controllable: Type.Boolean({ description: 'pv, battery and ev take setpoints' }),
  power_kw: Kw('Measured power now: positive import or charge, negative generation or discharge (the meter: the boundary)'),
  rated_kw: Kw('Rated power'),
  setpoint_kw: NKw('The applied command: PV active power limit, battery power (+charge/-discharge), EV charge power'),
  pending_kw: NKw('An accepted command not applied yet (slow device)'),
  pending_at: Nullable(Timestamp, 'When the pending command applies'),
  soc_pct: NKw('Battery state of charge, percent'),
  capacity_kwh: NKw('Battery capacity'),
});

export const Balance = Component(
  'SiteBalance',
  Type.Object(
    {
      site_id: Type.String(),
      at: Timestamp,
      boundary_kw: Kw('The boundary meter: load + battery charge + EV - PV - battery discharge; positive import, negative export'),
      import_kw: Kw('max(0, boundary)'),
      export_kw: Kw('max(0, -boundary)'),
      direction: Type.Enum(['import', 'export', 'balanced']),
      devices: Type.Array(ModelDevice),
      scenario: Type.Object({
        load_kw: Type.Number(),
        pv_available_kw: Type.Number({ description: 'PV the sun offers now; output is the lesser of this, the rating and the limit' }),
      }),
      export_limit_kw: NKw("The site's export limitation limit, when configured"),
    },
    { description: 'The synthetic site measured at the service time' },
  ),
);

export const ScenarioBody = Type.Object(
  {
    load_kw: Kw('Site load now (kW)', { minimum: 0, maximum: 10_000 }),
    pv_available_kw: Kw('PV power available from the sun now (kW)', { minimum: 0, maximum: 10_000 }),
    pv_rated_kw: Type.Optional(Kw('PV inverter rating (default 6)', { minimum: 0, maximum: 10_000 })),
    battery_rated_kw: Type.Optional(Kw('Battery power rating (default 5)', { minimum: 0, maximum: 10_000 })),
    battery_capacity_kwh: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100_000, description: 'Battery capacity (default 13.5 kWh)' })),
    battery_soc_pct: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'Battery state of charge to set (default 50 at creation)' })),
    ev_rated_kw: Type.Optional(Kw('EV charger rating (default 7.4)', { minimum: 0, maximum: 10_000 })),
  },
  { additionalProperties: false },
);

export const BehaviourBody = Type.Object({ behaviour: Behaviour }, { additionalProperties: false });
export const BehaviourResponse = Type.Object({ site_id: Type.String(), ...ModelDevice.properties });

// ---- Setpoints ----------------------------------------------------------------------------------

export const SetpointBody = Type.Object(
  {
    site_id: SiteId,
    device_id: DeviceId,
    value_kw: Kw('PV: active power limit (0 to rating); battery: power, +charge/-discharge (within the rating); EV: charge power (0 to rating)'),
    settle_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 300,
        description: "How long after the command the state is read back (default: the site's configured settle time, else 5 s)",
      }),
    ),
  },
  { additionalProperties: false },
);

const SetpointMembers = {
  setpoint_id: Uuid,
  decision_id: Type.String({ description: 'The decision-log entry of this write' }),
  site_id: Type.String(),
  device_id: Type.String(),
  value_kw: Type.Number(),
  source: Type.Enum(['manual', 'export_limit', 'optimiser'], { description: 'Who asked: a person, the export limitation loop or the optimiser' }),
  verdict: Verdict,
  accepted: Nullable(Type.Boolean(), "The device's answer: true accepted, false refused, null no answer"),
  expected_kw: NKw("The device's measured power the command calls for at read_at"),
  readback_kw: NKw("The device's measured power read back independently at read_at; null when it could not be read"),
  settle_seconds: Type.Integer(),
  commanded_at: Timestamp,
  read_at: Timestamp,
  reason: Type.String({ description: 'The verdict in words' }),
};
export const SetpointResult = Component('VerifiedSetpoint', Type.Object({ ...SetpointMembers, kind: Kind }));
export const SetpointItem = Type.Object({ ...SetpointMembers, actor: Nullable(Type.String(), 'The user (or key) that asked; null for the loop') });
export const SetpointsQuery = Type.Object({
  site_id: Type.Optional(SiteId),
  device_id: Type.Optional(Type.String({ maxLength: 128 })),
  verdict: Type.Optional(Verdict),
  ...PageQuery,
});
export const SetpointsPage = page('setpoints', SetpointItem);

// ---- Sites and configuration --------------------------------------------------------------------

export const ConnectionSchema = Type.Object(
  {
    import_limit_kw: Kw('Maximum import at the boundary (kW)', { minimum: 0, maximum: 1_000_000 }),
    export_limit_kw: Kw('Maximum export at the boundary (kW)', { minimum: 0, maximum: 1_000_000 }),
    category: Category,
    phases: Type.Union([Type.Literal(1), Type.Literal(3)], { description: 'Phases of the connection (default 1)' }),
    reference: Nullable(Type.String({ maxLength: 200 }), "The agreement's reference"),
  },
  { description: "The site's grid connection agreement" },
);

const ConnectionBody = Type.Object(
  {
    import_limit_kw: Kw('Maximum import at the boundary (kW)', { minimum: 0, maximum: 1_000_000 }),
    export_limit_kw: Kw('Maximum export at the boundary (kW)', { minimum: 0, maximum: 1_000_000 }),
    category: Category,
    phases: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(3)], { description: 'Phases of the connection (default 1)' })),
    reference: Type.Optional(Nullable(Type.String({ maxLength: 200 }), "The agreement's reference")),
  },
  { additionalProperties: false },
);

const Loop = Type.Object({
  active: Type.Boolean({ description: 'Whether the 30 s loop runs for this site (demo realm, limitation enabled)' }),
  every_seconds: Type.Integer(),
  description: Type.String({ description: 'What the loop is and is not (cloud hosted, not type tested, not G100 certified)' }),
});

export const SiteConfig = Component(
  'ControlSiteConfig',
  Type.Object({
    site_id: Type.String(),
    configured: Type.Boolean({ description: 'False: nothing stored yet; the defaults are shown' }),
    export_limitation: Type.Object({
      enabled: Type.Boolean(),
      limit_kw: NKw('Hold export at the boundary at or under this'),
      margin_kw: Type.Number({ description: 'The loop aims this far under the limit (default 0.2)' }),
    }),
    settle_seconds: Type.Integer({ description: 'Read-back delay of the verified write for this site' }),
    connection: Nullable(ConnectionSchema, 'The grid connection agreement; the guardrails come from it'),
    loop: Loop,
    updated_at: Nullable(Timestamp),
    updated_by: Nullable(Type.String()),
  }),
);

export const ConfigBody = Type.Object(
  {
    export_limitation: Type.Optional(
      Type.Object(
        {
          enabled: Type.Boolean(),
          limit_kw: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1_000_000 }), "Required when enabled; at most the connection's export limit")),
          margin_kw: Type.Optional(Type.Number({ minimum: 0, maximum: 1000, description: 'Aim this far under the limit (default 0.2)' })),
        },
        { additionalProperties: false },
      ),
    ),
    settle_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 300 })),
    connection: Type.Optional(Nullable(ConnectionBody, 'The grid connection agreement (null removes it)')),
  },
  { additionalProperties: false, description: 'Members left out keep their stored value' },
);

export const ControlSites = Type.Object({
  demo_realm: Type.Boolean({ description: 'Whether the organisation is in the demo realm (only there do setpoints and the loop act)' }),
  sites: Type.Array(
    Type.Object({
      site_id: Type.String(),
      device_model: Type.Boolean({ description: 'The site has a synthetic device model (demo realm)' }),
      export_limitation: Type.Object({ enabled: Type.Boolean(), limit_kw: NKw('The limit'), loop_active: Type.Boolean() }),
      connection: Nullable(ConnectionSchema),
      active_overrides: Type.Integer(),
      last_setpoint_at: Nullable(Timestamp),
      last_export_event: Nullable(Type.Object({ at: Timestamp, outcome: Type.String() })),
    }),
  ),
});

// ---- Export limitation events ---------------------------------------------------------------------

export const ExportEvent = Component(
  'ExportLimitEvent',
  Type.Object({
    event_id: Uuid,
    site_id: Type.String(),
    trigger: Type.Enum(['schedule', 'manual'], { description: 'The 30 s loop or a run on demand' }),
    at: Timestamp,
    tick_at: Nullable(Timestamp, 'The 30 s tick a scheduled iteration belongs to'),
    limit_kw: Type.Number(),
    boundary_before_kw: Type.Number(),
    boundary_after_kw: Type.Number(),
    export_before_kw: Type.Number(),
    export_after_kw: Type.Number(),
    action: Type.String({ description: 'none, reduce_export, release or skipped_override' }),
    outcome: Type.String({
      description: 'held (acted; export at or under the limit), within_limit (nothing needed), over_limit (still above), skipped_override',
    }),
    commands: Type.Array(Type.Object({ setpoint_id: Type.String(), device_id: Type.String(), value_kw: Type.Number(), verdict: Verdict, why: Type.String() })),
    decision_id: Type.String(),
  }),
);
export const EventsPage = page('events', ExportEvent, {
  site_id: Type.String(),
  loop: Type.Object({ every_seconds: Type.Integer(), description: Type.String({ description: 'What the loop is and is not' }) }),
});
export const PageOnly = Type.Object(PageQuery);

// ---- Overrides ------------------------------------------------------------------------------------

export const Override = Component(
  'EmsOverride',
  Type.Object({
    override_id: Uuid,
    site_id: Type.String(),
    device_id: Nullable(Type.String(), 'The device it holds; null: the whole site'),
    reason: Type.String(),
    authority: Type.String({ description: 'On whose authority (a person, a DNO instruction, ...)' }),
    status: Type.Enum(['active', 'revoked', 'expired'], { description: 'expired once expires_at passes, by itself' }),
    starts_at: Timestamp,
    expires_at: Timestamp,
    created_by: Nullable(Type.String()),
    created_at: Timestamp,
    revoked_at: Nullable(Timestamp),
    revoked_by: Nullable(Type.String(), 'Who revoked it'),
    revoke_reason: Nullable(Type.String(), 'Why'),
  }),
);
export const OverrideBody = Type.Object(
  {
    site_id: SiteId,
    device_id: Type.Optional(Nullable(Type.String({ pattern: ASSET_ID_PATTERN }), 'Hold one device; leave out to hold the whole site')),
    reason: Type.String({ minLength: 1, maxLength: 1000 }),
    authority: Type.String({ minLength: 1, maxLength: 200 }),
    expires_at: Type.String({ format: 'date-time', description: 'In the future, at most 7 days ahead' }),
  },
  { additionalProperties: false },
);
export const RevokeBody = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 1000 }) }, { additionalProperties: false });
export const OverridesQuery = Type.Object({ site_id: Type.Optional(SiteId), status: Type.Optional(Type.Enum(['active', 'revoked', 'expired'])), ...PageQuery });
export const OverridesPage = page('overrides', Override);

// ---- Decision log ---------------------------------------------------------------------------------

export const Decision = Component(
  'ControlDecision',
  Type.Object({
    decision_id: Uuid,
    site_id: Type.String(),
    kind: Type.String({ description: 'setpoint, export_limit, guardrail or optimisation' }),
    rule: Type.String({ description: 'The rule or plan (name/version) that produced it' }),
    inputs: Open('What the rule decided on, exactly as recorded'),
    output: Open('What the rule decided'),
    outcome: Open('What came of it (verdicts, boundary after, ...)'),
    actor: Nullable(Type.String()),
    created_at: Timestamp,
  }),
);
export const DecisionsQuery = Type.Object({
  site_id: Type.Optional(SiteId),
  kind: Type.Optional(Type.Enum(['setpoint', 'export_limit', 'guardrail', 'optimisation'])),
  ...PageQuery,
});
export const DecisionsPage = page('decisions', Decision);
export const Replay = Type.Object({
  decision_id: Type.String(),
  kind: Type.String(),
  rule: Type.String(),
  replayable: Type.Boolean({ description: 'False for a kind this service has no rule for' }),
  same: Nullable(Type.Boolean(), "Whether today's code decides the same on the recorded inputs"),
  recorded: Open('The recorded output'),
  replayed: Open("Today's output on the recorded inputs"),
  differences: Type.Array(Type.Object({ path: Type.String(), recorded: Type.Unknown(), replayed: Type.Unknown() })),
  replayed_at: Timestamp,
});

// ---- Grid ----------------------------------------------------------------------------------------

const GuardrailSchema = Type.Object({
  rule: Type.Enum(['import_limit', 'export_limit', 'g98_generation']),
  limit_kw: Type.Number(),
  description: Type.String(),
});
export const Guardrails = Type.Object({
  site_id: Type.String(),
  configured: Type.Boolean(),
  connection: Nullable(ConnectionSchema),
  guardrails: Type.Array(GuardrailSchema),
  source: Type.String(),
});
export const EvaluateBody = Type.Object(
  {
    intervals: Type.Optional(
      Type.Array(
        Type.Object(
          {
            start: Type.Optional(Type.String({ format: 'date-time' })),
            label: Type.Optional(Type.String({ maxLength: 200 })),
            boundary_kw: Type.Number({ description: 'Planned boundary power: positive import, negative export' }),
            generation_kw: Type.Optional(Nullable(Type.Number({ minimum: 0 }), 'Planned generation (for the G98 limit)')),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 100, description: 'A plan: one entry per interval' },
      ),
    ),
    setpoint: Type.Optional(
      Type.Object(
        { device_id: DeviceId, value_kw: Type.Number() },
        { additionalProperties: false, description: "A setpoint, projected on the site's device model (demo realm)" },
      ),
    ),
  },
  { additionalProperties: false, description: 'Exactly one of intervals or setpoint' },
);
export const Evaluation = Type.Object({
  site_id: Type.String(),
  decision_id: Type.String({ description: 'The guardrail decision recorded in the decision log' }),
  subject: Type.Enum(['plan', 'setpoint']),
  allowed: Type.Boolean(),
  checked: Type.Integer(),
  violations: Type.Array(
    Type.Object({
      index: Type.Integer(),
      label: Type.String(),
      rule: Type.String(),
      limit_kw: Type.Number(),
      value_kw: Type.Number(),
      excess_kw: Type.Number(),
    }),
  ),
  guardrails: Type.Array(GuardrailSchema),
});
export const ReadBody = Type.Object(
  {
    fields: Type.Record(Type.String({ maxLength: 200 }), Type.Union([Type.String({ maxLength: 1000 }), Type.Number()]), {
      minProperties: 1,
      maxProperties: 100,
      description: 'The agreement\'s stated fields, name to value, e.g. {"Maximum Import Capacity": "100 kVA"}',
    }),
  },
  { additionalProperties: false },
);
export const ReadResult = Type.Object({
  import_limit_kw: NKw('Read import limit'),
  export_limit_kw: NKw('Read export limit'),
  category: Nullable(Category),
  phases: Nullable(Type.Union([Type.Literal(1), Type.Literal(3)])),
  power_factor: Type.Number({ description: 'The stated power factor, else 1' }),
  reference: Nullable(Type.String()),
  complete: Type.Boolean({ description: 'Import, export and category were all read' }),
  missing: Type.Array(Type.String()),
  extracted: Type.Array(Type.Object({ member: Type.String(), field: Type.String(), value: Type.String(), note: Nullable(Type.String()) })),
  unread: Type.Array(Type.String({ description: 'Fields not used' })),
  method: Type.String(),
});
export const ConfirmBody = Type.Object({ site_id: SiteId, ...ConnectionBody.properties }, { additionalProperties: false });
export const ConfirmResult = Type.Object({
  site_id: Type.String(),
  stored: Type.Literal(false, { description: 'Always false: confirm saves nothing' }),
  would_store: ConnectionSchema,
  current: Nullable(ConnectionSchema),
  changes: Type.Array(Type.Object({ member: Type.String(), current: Type.Unknown(), proposed: Type.Unknown() })),
  guardrails: Type.Array(GuardrailSchema),
  warnings: Type.Array(Type.String()),
  note: Type.String(),
});
export const Capacity = Type.Object({
  site_id: Type.String(),
  import_limit_kw: NKw('From the connection agreement; null when none is recorded'),
  window: Type.Object({ from: Timestamp, to: Timestamp, days: Type.Integer() }),
  meters: Type.Array(Type.String()),
  peak_import_kw: NKw('Highest half-hour mean import measured in the window'),
  peak_at: Nullable(Timestamp),
  headroom_kw: NKw('import limit - peak'),
  half_hours: Type.Array(
    Type.Object({
      slot: Type.String({ description: 'UK wall-clock start, HH:MM' }),
      peak_kw: NKw('Peak of this half hour'),
      headroom_kw: NKw('Headroom'),
      half_hours_measured: Type.Integer(),
    }),
  ),
  method: Type.String(),
});
const HHMM = Type.String({ pattern: '^([01][0-9]|2[0-3]):(00|30)$', description: 'UK wall clock, HH:00 or HH:30' });
export const PlanBody = Type.Object(
  {
    date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'UK local date' }),
    added_kw: Type.Number({ minimum: 0, maximum: 1_000_000, description: 'Load to add (a new charger, a heat pump)' }),
    from: Type.Optional(HHMM),
    to: Type.Optional(HHMM),
  },
  { additionalProperties: false },
);
export const CapacityPlan = Type.Object({
  site_id: Type.String(),
  date: Type.String(),
  periods: Type.Integer({ description: '48, or 46/50 on clock-change days' }),
  import_limit_kw: Type.Number(),
  added_kw: Type.Number(),
  window: Type.Object({ from: Type.String(), to: Type.String() }),
  fits: Nullable(Type.Boolean(), 'Null when no period has a measured peak'),
  shortfall_periods: Type.Integer(),
  first_shortfall: Nullable(Timestamp),
  unmeasured_periods: Type.Integer(),
  half_hours: Type.Array(
    Type.Object({
      period: Type.Integer(),
      start: Timestamp,
      slot: Type.String(),
      peak_kw: NKw('Measured peak'),
      added_kw: Type.Number(),
      planned_peak_kw: NKw('peak + added'),
      headroom_kw: NKw('limit - planned peak'),
      fits: Nullable(Type.Boolean()),
    }),
  ),
  method: Type.String(),
});
