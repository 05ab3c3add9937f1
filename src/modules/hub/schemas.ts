// Request and response shapes of the hub operations.
import { Type } from 'typebox';
import { METER_ANOMALIES } from './meter-rules.ts';
import { Money, Nullable, Timestamp, LimitParam, CursorParam, Page, Component } from '../../platform/schema-kit.ts';

export const ErrorBody = Type.Object({ detail: Type.String() });

const Id = (what: string) =>
  Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,35}$', description: `${what}: 1 to 36 of A-Z a-z 0-9 . _ - (starting with a letter or digit)` });
export const SiteIdParam = Type.Object({ site_id: Id('Site id') });
const Pence = (d: string) => Money(`${d}, in pence (decimal text, up to 6 places)`);
const Percent = Type.String({ pattern: '^(0|[1-9][0-9]?|100)(\\.[0-9]{1,2})?$', description: 'Percent as decimal text, 0 to 100' });
const DataBasis = Type.Object(
  { basis: Type.Union([Type.Literal('calculated'), Type.Literal('measured'), Type.Literal('configured')]), method: Type.String() },
  { description: "How the figures were produced (as the operation's x-platform-data-basis and x-platform-method say)" },
);

// ---- sites --------------------------------------------------------------------------------------
const SiteFields = {
  name: Type.String({ minLength: 1, maxLength: 200, description: 'Site name shown to drivers' }),
  address: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'Street address' }))),
  postcode: Type.Optional(Nullable(Type.String({ maxLength: 10, description: 'UK postcode' }))),
  capacity_kw: Type.Optional(
    Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 100_000, description: "Power available to the site's chargers, kW (load sharing splits it)" })),
  ),
  helpline_phone: Type.Optional(
    Nullable(Type.String({ minLength: 5, maxLength: 30, description: 'Free helpline number displayed at the site (PCPR 2023 reg 9)' })),
  ),
  helpline_24_7: Type.Optional(
    Nullable(Type.Boolean({ description: 'Whether the helpline is staffed 24 hours a day, every day (PCPR 2023 reg 9); null when not known' })),
  ),
  open_data_url: Type.Optional(
    Nullable(
      Type.String({
        format: 'uri',
        maxLength: 500,
        description: "Where the site's OCPI 2.2.1 location and availability data is published free and without terms (PCPR 2023 reg 10)",
      }),
    ),
  ),
  payment_roaming: Type.Optional(
    Nullable(Type.Boolean({ description: 'Whether the site can be paid for through at least one roaming provider (PCPR 2023 reg 6); null when not known' })),
  ),
  free_vend: Type.Optional(
    Type.Boolean({
      description:
        "Free vend: the site's chargers accept every id token (and sessions without one) without checking the organisation's id tokens; each session records it. Default false",
    }),
  ),
};
export const SiteCreateBody = Type.Object({ site_id: Type.Optional(Id('Site id (made when absent)')), ...SiteFields }, { additionalProperties: false });
export const SitePutBody = Type.Object(SiteFields, { additionalProperties: false, description: 'The whole site: members left out become null' });

const ConnectorState = Type.Object({
  connector_id: Type.Integer({ description: 'Connector (1.6) or EVSE (2.0.1) number' }),
  status: Type.String({ description: 'Last OCPP status reported (Offline when the connection ended)' }),
  ocpi_status: Type.String({ description: 'That status in OCPI EVSE terms (AVAILABLE, CHARGING, RESERVED, INOPERATIVE, OUTOFORDER, UNKNOWN)' }),
  since: Timestamp,
});
const SecurityProfileSchema = (d: string) =>
  Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)], {
    description: `${d}. 1: HTTP Basic (ws:// or wss://); 2: HTTP Basic over TLS (wss://); 3: TLS with a client certificate from the organisation's charger CA, its CN the charge point id (no password). A charger is refused below it`,
  });

export const ChargePointView = Component(
  'HubChargePoint',
  Type.Object({
    charge_point_id: Type.String(),
    asset_id: Type.String({ description: "The charger's asset in the registry; meter values are its telemetry" }),
    max_power_kw: Type.Number(),
    rapid: Type.Boolean({ description: '50 kW or more (PCPR 2023 "rapid charge point")' }),
    connectors: Type.Integer(),
    contactless: Nullable(Type.Boolean()),
    connected: Type.Boolean({ description: 'Whether a WebSocket connection from the charger is open on some instance' }),
    ocpp_version: Nullable(Type.String({ description: 'Subprotocol of the last connection' })),
    vendor: Nullable(Type.String()),
    model: Nullable(Type.String()),
    firmware: Nullable(Type.String()),
    last_boot_at: Nullable(Timestamp),
    last_heartbeat_at: Nullable(Timestamp),
    local_list_version: Type.Integer({
      description: 'The local authorisation list version the charger last accepted (SendLocalList) or reported (GetLocalListVersion); 0: none',
    }),
    security_profile: SecurityProfileSchema('The OCPP security profile the charger must connect at'),
    password_change_pending: Type.Boolean({
      description: 'A new password was sent (rotate-password) and the charger has not yet confirmed it: the old one is still valid',
    }),
    firmware_status: Nullable(
      Type.Object(
        { status: Type.String(), at: Timestamp },
        { description: 'The last FirmwareStatusNotification (Downloading, Installed, InstallationFailed, ...) and when it arrived' },
      ),
    ),
    diagnostics_status: Nullable(
      Type.Object(
        { status: Type.String(), at: Timestamp },
        {
          description: 'The last 1.6 DiagnosticsStatusNotification or 2.0.1 LogStatusNotification (Uploading, Uploaded, UploadFailed, ...) and when it arrived',
        },
      ),
    ),
    connector_status: Type.Array(ConnectorState),
  }),
);
export const Site = Component(
  'HubSite',
  Type.Object({
    site_id: Type.String(),
    name: Type.String(),
    address: Nullable(Type.String()),
    postcode: Nullable(Type.String()),
    capacity_kw: Nullable(Type.Number()),
    helpline_phone: Nullable(Type.String()),
    helpline_24_7: Nullable(Type.Boolean()),
    open_data_url: Nullable(Type.String()),
    payment_roaming: Nullable(Type.Boolean()),
    free_vend: Type.Boolean({ description: 'Whether every id token is accepted at the site (no check)' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);
export const SiteDetail = Type.Object({ ...Site.properties, charge_points: Type.Array(ChargePointView) });
export const SitesQuery = Type.Object(
  { limit: Type.Optional(LimitParam({ default: 50, max: 200 })), cursor: Type.Optional(CursorParam) },
  { additionalProperties: false },
);
export const SitesPage = Page('sites', Site);

// ---- charge points ------------------------------------------------------------------------------
export const ChargePointBody = Type.Object(
  {
    charge_point_id: Id('Charge point id: the OCPP identity the charger connects with'),
    max_power_kw: Type.Number({ exclusiveMinimum: 0, maximum: 1000, description: 'Rated output, kW (50 and above is rapid)' }),
    connectors: Type.Optional(Type.Integer({ minimum: 1, maximum: 8, description: 'Connectors (1.6) or EVSEs (2.0.1), default 1' })),
    contactless: Type.Optional(Nullable(Type.Boolean({ description: 'Whether it takes contactless card payment (PCPR 2023 reg 5); null when not known' }))),
    security_profile: Type.Optional(
      SecurityProfileSchema('The OCPP security profile it must connect at (default 1); 3 needs the charger CA (409 `no_charger_ca` without)'),
    ),
  },
  { additionalProperties: false },
);
export const SecurityProfileBody = Type.Object(
  { security_profile: SecurityProfileSchema('The OCPP security profile the charger must connect at from its next connection') },
  { additionalProperties: false },
);
export const SecurityProfileSet = Type.Object({ charge_point_id: Type.String(), security_profile: SecurityProfileSchema('The profile now registered') });
export const ChargerCaBody = Type.Object(
  {
    certificate_pem: Type.String({
      minLength: 1,
      maxLength: 65_536,
      description:
        "PEM: one or more CA certificates (at most 5; e.g. the CA and its successor) that issue the organisation's charger certificates. Certificates only: a private key is refused",
    }),
  },
  { additionalProperties: false },
);
export const ChargerCas = Type.Object({
  certificates: Type.Array(
    Type.Object({
      fingerprint_sha256: Type.String({ description: 'SHA-256 of the DER certificate, hex' }),
      subject: Type.String(),
      not_before: Timestamp,
      not_after: Timestamp,
      certificate_pem: Type.String(),
      created_at: Timestamp,
    }),
    { description: "The CA certificates a profile 3 charger's client certificate must be issued by (directly); empty: none" },
  ),
});
export const ChargePointCreated = Type.Object({
  charge_point_id: Type.String(),
  site_id: Type.String(),
  asset_id: Type.String(),
  ocpp_endpoint: Type.String({ description: "The charger's central system URL (OCPP: the charge point id is appended to it)" }),
  ocpp_url: Type.String({ description: 'The full connection URL: endpoint and charge point id' }),
  subprotocols: Type.Array(Type.String(), { description: 'Sec-WebSocket-Protocol values served' }),
  security_profile: SecurityProfileSchema('The OCPP security profile registered'),
  password: Type.String({
    description: 'HTTP Basic password (username: the charge point id; profiles 1 and 2, and 3 if it is lowered). Shown once: only its hash is kept',
  }),
});

// ---- price schedules ----------------------------------------------------------------------------
const Hhmm = (d: string) => Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$', description: `${d}, UK local wall clock HH:MM` });
const BandSchema = Type.Object(
  {
    start: Hhmm('Band start (inclusive)'),
    end: Hhmm('Band end (exclusive; 24:00 for midnight)'),
    energy_p_per_kwh: Pence('Energy price in this band per kWh, ex VAT'),
  },
  { additionalProperties: false },
);
export const ScheduleBody = Type.Object(
  {
    energy_p_per_kwh: Pence('Energy price per kWh outside any band, ex VAT'),
    time_p_per_minute: Type.Optional(Pence('Per-minute fee from start to stop, ex VAT (default 0)')),
    connection_fee_p: Type.Optional(Pence('Fee per session, ex VAT (default 0)')),
    overstay_p_per_minute: Type.Optional(Pence('Overstay fee per minute after the energy stops rising and the grace period ends, ex VAT (default 0)')),
    overstay_grace_minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 1440, description: 'Grace before overstay fees, minutes (default 10)' })),
    vat_percent: Type.Optional(Percent),
    bands: Type.Optional(Type.Array(BandSchema, { maxItems: 24, description: 'Time-of-day energy prices (no overlaps; split an overnight band at midnight)' })),
    note: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
export const Schedule = Component(
  'HubPriceSchedule',
  Type.Object({
    site_id: Type.String(),
    version: Type.Integer(),
    status: Type.Union([Type.Literal('draft'), Type.Literal('published')], { description: 'draft: not shown to drivers; published: shown and never edited' }),
    energy_p_per_kwh: Type.String(),
    time_p_per_minute: Type.String(),
    connection_fee_p: Type.String(),
    overstay_p_per_minute: Type.String(),
    overstay_grace_minutes: Type.Integer(),
    vat_percent: Type.String(),
    bands: Type.Array(BandSchema),
    energy_p_per_kwh_inc_vat: Type.String({ description: 'The base energy price including VAT, pence per kWh (what PCPR 2023 reg 11 has drivers shown)' }),
    note: Nullable(Type.String()),
    created_at: Timestamp,
    published_at: Nullable(Timestamp),
  }),
);
export const ScheduleList = Type.Object({
  schedules: Type.Array(Schedule, { description: 'Newest version first' }),
  in_force: Nullable(Type.Integer({ description: 'The version drivers see now' })),
});
export const PublishParams = Type.Object({ site_id: SiteIdParam.properties.site_id, version: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });

// ---- quote, transactions, cost ------------------------------------------------------------------
export const QuoteQuery = Type.Object(
  {
    energy_kwh: Type.String({ pattern: '^(0|[1-9][0-9]{0,3})(\\.[0-9]{1,3})?$', description: 'Energy to deliver, kWh (up to 9999.999)' }),
    duration_minutes: Type.Integer({ minimum: 1, maximum: 2880, description: 'Minutes connected' }),
    start: Type.Optional(Type.String({ format: 'date-time', description: 'Session start (default now)' })),
    overstay_minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 2880, description: 'Minutes staying after charging ends (default 0)' })),
  },
  { additionalProperties: false },
);
const Line = Type.Object({
  kind: Type.Union([Type.Literal('energy'), Type.Literal('time'), Type.Literal('connection'), Type.Literal('overstay')]),
  description: Type.String(),
  quantity: Type.String({ description: 'Decimal text in `unit`' }),
  unit: Type.String(),
  rate_p: Type.String({ description: 'Pence per unit, ex VAT' }),
  amount_p: Type.String({ description: 'Pence, ex VAT, 4 places' }),
});
export const MeterAnomalies = Type.Array(
  Type.Object({
    reason: Type.Union(
      METER_ANOMALIES.map((r) => Type.Literal(r)),
      {
        description:
          'Refused (not stored): timestamp_out_of_range (unreadable or before 2000-01-01), ahead_of_clock (more than 5 minutes ahead of the service), ' +
          'outside_transaction (before its start or after its stop), register_out_of_range (not a whole number of Wh from 0 to 10^12), power_out_of_range ' +
          '(negative or above the rated power by more than 10%). Flagged (kept, never billed): register_backwards, beyond_rated_power (more energy than the rated ' +
          'power with 10% and 30 s of slack can deliver since the last accepted sample), out_of_order (at or before the latest accepted sample)',
      },
    ),
    samples: Type.Integer({ description: 'Samples with this reason' }),
    first_received_at: Timestamp,
    last_received_at: Timestamp,
  }),
  {
    description:
      'Meter samples from the charger that were refused or flagged, by reason (empty when every sample was plausible); none of them is billed or in the energy figure',
  },
);
const CostMembers = {
  schedule_version: Type.Integer({ description: 'The published price schedule used' }),
  energy_kwh: Type.String(),
  duration_minutes: Type.String(),
  overstay_minutes: Type.String({ description: 'Chargeable overstay: beyond the grace period' }),
  lines: Type.Array(Line),
  net_gbp: Money('Total ex VAT, pounds'),
  vat_percent: Type.String(),
  vat_gbp: Money('VAT, pounds'),
  total_gbp: Money('Total inc VAT, pounds'),
  currency: Type.Literal('GBP'),
  data_basis: DataBasis,
};
export const Quote = Type.Object({ site_id: Type.String(), start: Timestamp, ...CostMembers });
export const TxParams = Type.Object({ transaction_id: Type.String({ format: 'uuid', description: 'Transaction id (as the transactions list gives it)' }) });
export const Transaction = Component(
  'HubTransaction',
  Type.Object({
    transaction_id: Type.String(),
    site_id: Type.String(),
    charge_point_id: Type.String(),
    connector_id: Type.Integer(),
    ocpp_transaction_id: Type.String({ description: "The id on the OCPP link (1.6: integer the hub gave; 2.0.1: the charger's)" }),
    ocpp_version: Type.String(),
    id_tag: Nullable(Type.String()),
    started_at: Timestamp,
    stopped_at: Nullable(Timestamp),
    meter_start_wh: Type.Integer(),
    meter_stop_wh: Nullable(Type.Integer()),
    energy_kwh: Type.String({ description: 'Energy so far (open) or delivered (stopped), kWh' }),
    stop_reason: Nullable(Type.String()),
    schedule_version: Nullable(Type.Integer({ description: 'Price schedule in force when it started' })),
    authorisation: Nullable(
      Type.Union([Type.Literal('id_token'), Type.Literal('free_vend'), Type.Literal('none')], {
        description:
          "What authorised the session: id_token (checked against the organisation's id tokens), free_vend (the site accepts every token), none (no token; a 2.0.1 session begun without one takes the first token a later event carries); null for sessions before id tokens existed",
      }),
    ),
    id_token_status: Nullable(
      Type.String({
        description:
          "The status the hub answered for the session's token, in the OCPP version's terms (Accepted, Blocked, Expired, Invalid; 2.0.1 also Unknown)",
      }),
    ),
    meter_anomalies: MeterAnomalies,
  }),
);
export const TxQuery = SitesQuery;
export const TxPage = Page('transactions', Transaction);
export const Cost = Type.Object({
  transaction_id: Type.String(),
  status: Type.Union([Type.Literal('open'), Type.Literal('stopped')], { description: 'open: the cost so far' }),
  ...CostMembers,
  meter_anomalies: MeterAnomalies,
});

// ---- reliability, compliance, regulations -------------------------------------------------------
const Hours = (d: string) => Type.Number({ description: `${d}, hours (2 places)` });
const ReliabilityFigure = {
  reliability_percent: Nullable(Type.Number({ description: 'Reliable time / (reliable + unreliable time) x 100, 2 places; null when nothing was measured' })),
  reliable_hours: Hours('AVAILABLE, CHARGING or RESERVED'),
  unreliable_hours: Hours('INOPERATIVE or OUTOFORDER'),
  excluded_hours: Hours('UNKNOWN (offline, or nothing reported yet)'),
};
export const Reliability = Type.Object({
  site_id: Type.String(),
  from: Timestamp,
  to: Timestamp,
  target: Type.Object({ percent: Type.Number(), applies_to: Type.String(), source: Type.String() }),
  site: Type.Object({
    ...ReliabilityFigure,
    rapid_reliability_percent: Nullable(Type.Number({ description: 'The same over rapid connectors only' })),
    meets_target: Nullable(Type.Boolean({ description: 'Rapid connectors at or above the target; null without rapid connectors or measurements' })),
  }),
  connectors: Type.Array(
    Type.Object({
      charge_point_id: Type.String(),
      connector_id: Type.Integer(),
      rapid: Type.Boolean(),
      ...ReliabilityFigure,
      meets_target: Nullable(Type.Boolean({ description: 'Rapid only; null otherwise or when not measured' })),
    }),
  ),
  data_basis: DataBasis,
});
const Duty = Type.Object({
  duty: Type.String({ description: 'contactless, pricing_p_per_kwh, reliability_99, helpline_24_7, open_data, payment_roaming' }),
  regulation: Type.String(),
  charge_point_id: Nullable(Type.String({ description: 'The charger this finding is about; null for a site-wide duty' })),
  applies: Type.Boolean({ description: 'Whether the duty applies (by power and commencement date)' }),
  result: Type.Union([Type.Literal('met'), Type.Literal('not_met'), Type.Literal('not_known'), Type.Literal('not_applicable')]),
  evidence: Type.String({ description: 'What the result rests on' }),
});
export const Compliance = Type.Object({
  site_id: Type.String(),
  assessed_at: Timestamp,
  summary: Type.Object({ met: Type.Integer(), not_met: Type.Integer(), not_known: Type.Integer(), not_applicable: Type.Integer() }),
  duties: Type.Array(Duty),
  data_basis: DataBasis,
});
export const Regulations = Type.Object({
  instrument: Type.String(),
  in_force: Type.String({ format: 'date' }),
  sources: Type.Array(Type.String()),
  duties: Type.Array(
    Type.Object({
      duty: Type.String(),
      regulation: Type.String(),
      requirement: Type.String(),
      applies_to: Type.String(),
      threshold: Nullable(Type.String()),
      commences: Type.String({ format: 'date' }),
      source: Type.String(),
    }),
  ),
});

// ---- load sharing -------------------------------------------------------------------------------
export const LoadSharingBody = Type.Object(
  { capacity_kw: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100_000, description: "Power to share, kW (default: the site's capacity_kw)" })) },
  { additionalProperties: false },
);
export const LoadSharing = Type.Object({
  site_id: Type.String(),
  capacity_kw: Type.Number(),
  sessions: Type.Array(
    Type.Object({
      transaction_id: Type.String(),
      charge_point_id: Type.String(),
      connector_id: Type.Integer(),
      limit_kw: Type.Number({ description: 'Limit sent (W on the wire), 3 places' }),
      delivery: Type.String({ description: 'local, routed (sent by the instance holding the charger), not_connected, timeout or error' }),
      charger_status: Nullable(Type.String({ description: 'SetChargingProfile status from the charger (Accepted, Rejected, NotSupported)' })),
      error: Nullable(Type.String()),
    }),
  ),
  data_basis: DataBasis,
});

// ---- id tokens ----------------------------------------------------------------------------------
const TokenValue = (d: string) =>
  Type.String({
    pattern: '^[A-Za-z0-9._:-]{1,36}$',
    description: `${d}: 1 to 36 of A-Z a-z 0-9 . _ : - (OCPP 1.6 chargers present at most 20), matched case-insensitively`,
  });
export const ID_TOKEN_TYPES = ['Central', 'eMAID', 'ISO14443', 'ISO15693', 'KeyCode', 'Local', 'MacAddress', 'NoAuthorization'] as const;
const TokenMembers = {
  type: Type.Union(
    ID_TOKEN_TYPES.map((t) => Type.Literal(t)),
    {
      description:
        'The kind of token (OCPP 2.0.1 IdTokenEnumType): ISO14443 for RFID cards, eMAID for ISO 15118 contract ids, Central for app ids. Default ISO14443',
    },
  ),
  status: Type.Union([Type.Literal('accepted'), Type.Literal('blocked'), Type.Literal('expired'), Type.Literal('invalid')], {
    description: 'accepted: may charge (until expires_at); blocked, expired, invalid: refused with that status. Default accepted',
  }),
  expires_at: Nullable(Type.String({ format: 'date-time', description: 'After this instant an accepted token is answered Expired; null: no expiry' })),
  group_id: Nullable(
    Type.String({
      pattern: '^[A-Za-z0-9._:-]{1,20}$',
      description: "The token's group (1.6 parentIdTag, 2.0.1 groupIdToken), up to 20 characters; null: none",
    }),
  ),
  note: Nullable(Type.String({ maxLength: 200, description: "Operator's note (whose card, which fleet)" })),
};
export const IdTokenParam = Type.Object({ id_token: TokenValue('Id token') });
export const IdTokenCreateBody = Type.Object(
  {
    id_token: TokenValue('Id token (an RFID UID in hex, an eMAID, an app id)'),
    type: Type.Optional(TokenMembers.type),
    status: Type.Optional(TokenMembers.status),
    expires_at: Type.Optional(TokenMembers.expires_at),
    group_id: Type.Optional(TokenMembers.group_id),
    note: Type.Optional(TokenMembers.note),
  },
  { additionalProperties: false },
);
export const IdTokenPatchBody = Type.Object(
  {
    type: Type.Optional(TokenMembers.type),
    status: Type.Optional(TokenMembers.status),
    expires_at: Type.Optional(TokenMembers.expires_at),
    group_id: Type.Optional(TokenMembers.group_id),
    note: Type.Optional(TokenMembers.note),
  },
  { additionalProperties: false, minProperties: 1, description: 'The members to change; those left out stay as they are' },
);
export const IdToken = Component(
  'HubIdToken',
  Type.Object({
    id_token: Type.String(),
    ...TokenMembers,
    expires_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);
export const IdTokensQuery = Type.Object(
  { limit: Type.Optional(LimitParam({ default: 100, max: 500 })), cursor: Type.Optional(CursorParam) },
  { additionalProperties: false },
);
export const IdTokensPage = Page('id_tokens', IdToken);

// ---- commands -----------------------------------------------------------------------------------
export const CpIdParam = Type.Object({ charge_point_id: Id('Charge point id') });
export const CommandIdParam = Type.Object({ command_id: Type.String({ format: 'uuid', description: 'Command id (as sending it answered)' }) });
export const Command = Component(
  'HubCommand',
  Type.Object({
    command_id: Type.String({ format: 'uuid' }),
    charge_point_id: Type.String(),
    action: Type.String({
      description:
        'The command: remote-start, remote-stop, reset, unlock-connector, change-availability, trigger-message, get-configuration, change-configuration, clear-cache, send-local-list, get-local-list-version, reserve-now, cancel-reservation, update-firmware, get-diagnostics, rotate-password',
    }),
    parameters: Type.Record(Type.String(), Type.Unknown(), { description: 'The parameters as the command was sent to the API' }),
    status: Type.Union(
      [Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('rejected'), Type.Literal('timeout'), Type.Literal('offline'), Type.Literal('failed')],
      {
        description:
          "pending: sent, no answer yet; accepted / rejected: the charger's answer; timeout: no answer within HUB_COMMAND_TIMEOUT_MS; offline: the charger was not connected (not sent); failed: the charger answered a CALLERROR or an answer the hub refuses, or its outcome was never recorded (the instance stopped or its store failed after the CALL left; set a minute after the answer was due) (`error` says which)",
      },
    ),
    ocpp_version: Nullable(Type.String({ description: 'The OCPP version the charger speaks' })),
    ocpp_action: Nullable(Type.String({ description: 'The OCPP CALL sent (e.g. RemoteStartTransaction); null when none could be made' })),
    request: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: "The CALL's payload as sent" })),
    response: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: "The charger's CALLRESULT payload (configuration values are here)" })),
    error: Nullable(Type.String({ description: 'Why there is no answer (timeout, CALLERROR code)' })),
    requested_by: Nullable(Type.String({ description: 'The user or API key that sent it' })),
    created_at: Timestamp,
    completed_at: Nullable(Timestamp),
  }),
);
export const CommandsQuery = SitesQuery;
export const CommandsPage = Page('commands', Command);
