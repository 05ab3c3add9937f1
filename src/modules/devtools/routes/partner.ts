// Partner API (/api/devtools/partner/v1): API keys only, own organisation only; the six operations
// a sandbox key may call (x-platform-sandbox), served from generated data for a sandbox key.
import { Type } from 'typebox';
import { defineOperation } from '../../../platform/operation.ts';
import { scopeSchema } from './apikeys.ts';
import { CursorParam, EnvironmentSchema, IdParam, LimitParam, Nullable, PageMembers, Timestamp, optionalBody } from '../common.ts';
import { EventTypeSchema } from './webhooks.ts';
import { CANONICAL_STATUSES } from '../partner/status-canonical.ts';
import { DEFAULT_HOURS, type PartnerService } from '../partner/service.ts';
import type { SandboxService } from '../sandbox/service.ts';
import { Component } from '../../../platform/schema-kit.ts';

const common = { tags: ['partner'], status: 'live' as const, sandbox: true };
const Canonical = Type.Union(
  CANONICAL_STATUSES.map((s) => Type.Literal(s)),
  { description: CANONICAL_STATUSES.join(', ') },
);
const Subject = Nullable(Type.Object({ type: Type.String(), id: Type.String() }));

const Alert = Component(
  'Alert',
  Type.Object({
    id: Type.String(),
    type: Type.String({ description: 'e.g. partner_webhook_disabled, partner_api_key_expiring, partner_api_operation_deprecated' }),
    source: Type.String(),
    severity: Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('critical')]),
    status: Type.Union([Type.Literal('open'), Type.Literal('resolved')]),
    subject: Subject,
    title: Type.String(),
    details: Type.Object({}, { additionalProperties: true }),
    raised_at: Timestamp,
    resolved_at: Nullable(Timestamp),
    resolution: Nullable(Type.String()),
  }),
);

const Device = Component(
  'PartnerDevice',
  Type.Object({
    asset_id: Type.String(),
    site_id: Type.String(),
    type: Type.String(),
    name: Type.String(),
    created_at: Timestamp,
    last_reported_at: Nullable(Type.String({ format: 'date-time', description: 'ISO 8601 UTC (Z) of the newest stored record; null when none' })),
    last_reported_source: Nullable(Type.String({ description: 'ocpp_heartbeat, provider_reading, telemetry or provider_api; null when none' })),
    status_canonical: Canonical,
  }),
);

const Reading = Component(
  'TelemetryReading',
  Type.Object({
    id: Type.String(),
    asset_id: Type.String(),
    site_id: Nullable(Type.String()),
    ts: Timestamp,
    power_kw: Nullable(Type.Number({ description: 'kW, signed: positive = import or charge; negative = export, generation or discharge' })),
    soc_pct: Nullable(Type.Number()),
    voltage: Nullable(Type.Number()),
    current: Nullable(Type.Number()),
    temp_c: Nullable(Type.Number()),
    status: Type.String({
      deprecated: true,
      description:
        'The stored value, in whichever vocabulary its source used. Deprecated: switches to the canonical set on or after 2027-04-15; read status_canonical.',
    }),
    status_canonical: Canonical,
  }),
);

const Paging = { limit: Type.Optional(LimitParam), cursor: Type.Optional(CursorParam) };

export function partnerOperations(partner: PartnerService, sandbox: SandboxService, scopes: Readonly<Record<string, string>>) {
  return [
    defineOperation({
      ...common,
      operationId: 'getPartnerMe',
      method: 'GET',
      path: '/api/devtools/partner/v1/me',
      summary: 'The organisation and key behind this request',
      description: 'Any key. A sandbox key answers for its generated sandbox organisation (demo-sandbox-<16 hex>).',
      access: { kind: 'key', scope: 'any' },
      dataBasis: { basis: 'configured' },
      schema: {
        response: {
          200: Type.Object({
            organisation: Type.Object({ id: Type.String(), name: Type.String() }),
            key: Type.Object({
              id: Type.String(),
              name: Type.String(),
              scopes: Type.Array(scopeSchema(scopes)),
              environment: EnvironmentSchema,
              expires_at: Nullable(Timestamp),
            }),
            environment: EnvironmentSchema,
          }),
        },
      },
      handler: async ({ ctx }) => partner.me(ctx),
    }),
    defineOperation({
      ...common,
      operationId: 'listPartnerAlerts',
      method: 'GET',
      path: '/api/devtools/partner/v1/alerts',
      summary: 'Organisation alerts',
      description:
        'The organisation alert stream, newest first (ties by id). `since` filters on raised_at (not a way to page: ' +
        'follow next_cursor; a cursor only works with the same `since`). A sandbox key reads the generated sandbox organisation (simulated data).',
      access: { kind: 'key', scope: 'alerts:read' },
      dataBasis: { basis: 'stored' },
      schema: {
        query: Type.Object({ ...Paging, since: Type.Optional(Type.String({ format: 'date-time' })) }, { additionalProperties: false }),
        response: { 200: Type.Object({ alerts: Type.Array(Alert), ...PageMembers }) },
      },
      handler: async ({ ctx, query }) => partner.alerts(ctx, query),
    }),
    defineOperation({
      ...common,
      operationId: 'listPartnerDevices',
      method: 'GET',
      path: '/api/devtools/partner/v1/devices',
      summary: 'Registered devices with last-reported fields',
      description:
        'Assets of the registry, newest registration first (ties by asset_id), each with its newest stored record time. A sandbox key reads the generated sandbox organisation (simulated data).',
      access: { kind: 'key', scope: 'devices:read' },
      dataBasis: { basis: 'stored' },
      schema: {
        query: Type.Object(Paging, { additionalProperties: false }),
        response: { 200: Type.Object({ devices: Type.Array(Device), ...PageMembers }) },
      },
      handler: async ({ ctx, query }) => partner.devices(ctx, query),
    }),
    defineOperation({
      ...common,
      operationId: 'listPartnerLatestTelemetry',
      method: 'GET',
      path: '/api/devtools/partner/v1/telemetry/latest',
      summary: 'Recent telemetry readings',
      description:
        `Readings with ts in the last \`hours\` (1 to 168, default ${DEFAULT_HOURS}), newest first (ties by id). The window ` +
        'is fixed by the first page (window_start; the cursor carries it), so paging never shifts it; `hours` is a ' +
        'filter, not a way to page. Records flagged ts_in_future on arrival are left out. Every reading has `status` (stored value, deprecated) and `status_canonical`. A sandbox key reads the generated sandbox organisation (simulated data).',
      access: { kind: 'key', scope: 'telemetry:read' },
      dataBasis: { basis: 'measured' },
      schema: {
        query: Type.Object({ ...Paging, hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 168 })) }, { additionalProperties: false }),
        response: { 200: Type.Object({ readings: Type.Array(Reading), window_start: Timestamp, ...PageMembers }) },
      },
      handler: async ({ ctx, query }) => partner.telemetry(ctx, query),
    }),
    defineOperation({
      ...common,
      operationId: 'getSandboxScenario',
      method: 'GET',
      path: '/api/devtools/partner/v1/sandbox/scenario',
      summary: 'What the sandbox simulates',
      description: 'Any read scope. The generated sandbox organisation: sites, assets, telemetry interval, alerts.',
      access: { kind: 'key', scope: 'read' },
      dataBasis: { basis: 'simulated', method: 'Generated on the fly from a seed derived from the organisation and the clock; nothing is stored.' },
      schema: {
        response: {
          200: Type.Object({
            organisation_id: Type.String(),
            environment: Type.Literal('sandbox'),
            description: Type.String(),
            generated_at: Timestamp,
            telemetry_interval_seconds: Type.Integer(),
            sites: Type.Array(Type.Object({ site_id: Type.String(), name: Type.String(), asset_ids: Type.Array(Type.String()) })),
            assets: Type.Array(Type.Object({ asset_id: Type.String(), site_id: Type.String(), type: Type.String(), name: Type.String() })),
            alerts: Type.Array(Type.Object({ id: Type.String(), type: Type.String(), status: Type.String(), raised_at: Timestamp })),
            webhook_event_types: Type.Array(EventTypeSchema),
          }),
        },
      },
      handler: async ({ ctx }) => partner.scenario(ctx),
    }),
    defineOperation({
      ...common,
      operationId: 'sendSandboxWebhookTest',
      method: 'POST',
      path: '/api/devtools/partner/v1/sandbox/webhooks/test',
      summary: 'Send a sample event to the sandbox endpoints',
      description:
        'Any key. Sends a signed sample `alert.raised`, `alert.resolved`, `device.offline` or `webhook.test` (default) to ' +
        "the organisation's enabled sandbox endpoints taking that type (or to `endpoint_id`), delivered and retried " +
        'exactly as a live event. 202. `Idempotency-Key` (1 to 255 printable characters): a repeat in the same ' +
        'organisation queues nothing and returns the first answer with `Idempotent-Replayed: true`; the same key with ' +
        'another request is 409. Keys are kept 24 hours. Without the shared counter store: 503 (a key write).',
      access: { kind: 'key', scope: 'any' },
      responseHeaders: {
        'Idempotent-Replayed': {
          description: '`true` when this answer replays the first answer to the same Idempotency-Key.',
          schema: { type: 'string', enum: ['true'] },
        },
      },
      schema: {
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' })),
        }),
        body: optionalBody(Type.Object({ event_type: Type.Optional(EventTypeSchema), endpoint_id: Type.Optional(IdParam) }, { additionalProperties: false })),
        response: {
          202: Type.Object({
            event_id: Type.String(),
            event_type: EventTypeSchema,
            organisation_id: Type.String({ description: 'The sandbox organisation (envelope organisation_id)' }),
            created_at: Timestamp,
            queued: Type.Integer({ description: 'Deliveries queued' }),
            deliveries: Type.Array(Type.Object({ delivery_id: Type.String(), endpoint_id: Type.String() })),
          }),
        },
      },
      handler: async ({ ctx, body, req, reply }) => {
        const raw = req.headers['idempotency-key'];
        const key = Array.isArray(raw) ? raw[0] : raw;
        const out = await sandbox.webhookTest(ctx, body ?? null, key);
        if (out.replayed) reply.header('Idempotent-Replayed', 'true');
        reply.code(out.status).type('application/json; charset=utf-8').send(out.body);
        return reply;
      },
    }),
  ];
}
