// /api/devtools/webhooks: organisation administrators only, 60 management requests a minute.
import { Type } from 'typebox';
import { BEARER, defineOperation } from '../../../platform/operation.ts';
import {
  CursorParam,
  EVENT_TYPES,
  EnvironmentQuery,
  EnvironmentSchema,
  IdParam,
  LimitParam,
  Nullable,
  PageMembers,
  Text,
  Timestamp,
  optionalBody,
} from '../common.ts';
import { DEFAULT_SECRET_OVERLAP_SECONDS, type WebhookService } from '../webhooks/service.ts';
import { Component } from '../../../platform/schema-kit.ts';

export const EventTypeSchema = Type.Union(
  EVENT_TYPES.map((t) => Type.Literal(t)),
  { description: EVENT_TYPES.join(', ') },
);

const Endpoint = Component(
  'WebhookEndpoint',
  Type.Object({
    id: Type.String(),
    url: Type.String(),
    description: Type.String(),
    environment: EnvironmentSchema,
    event_types: Type.Array(EventTypeSchema, { description: 'Event types delivered to this endpoint' }),
    enabled: Type.Boolean(),
    disabled_reason: Nullable(
      Type.Union([Type.Literal('manual'), Type.Literal('failing')], {
        description: '`manual` (PATCH enabled=false) or `failing` (72 hours of continuous delivery failure)',
      }),
    ),
    disabled_at: Nullable(Timestamp),
    failing_since: Nullable(Type.String({ description: 'Start of the current run of failed attempts; null after a success' })),
    last_success_at: Nullable(Timestamp),
    last_failure_at: Nullable(Timestamp),
    previous_secret_valid_until: Nullable(
      Type.String({ description: 'During a secret rotation window: until when the previous secret also signs (a second v1=)' }),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);
const WithSecret = Type.Object({
  ...Endpoint.properties,
  secret: Type.String({ description: 'Signing secret `whsec_<base64>`, shown once; the HMAC key is the base64-decoded part' }),
});

const Attempt = Type.Object({
  attempt: Type.Integer({ description: '1 to 8' }),
  attempted_at: Timestamp,
  status_code: Nullable(Type.Integer()),
  outcome: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
  error: Nullable(Type.String()),
  duration_ms: Type.Integer(),
});
const Delivery = Component(
  'WebhookDelivery',
  Type.Object({
    id: Type.String(),
    event_id: Type.String(),
    event_type: Type.String(),
    status: Type.Union(['pending', 'succeeded', 'failed', 'cancelled'].map((s) => Type.Literal(s))),
    replay: Type.Boolean(),
    attempt_count: Type.Integer(),
    next_attempt_at: Nullable(Timestamp),
    last_status_code: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    created_at: Timestamp,
    completed_at: Nullable(Timestamp),
    attempts: Type.Array(Attempt, { description: 'Every attempt, oldest first' }),
  }),
);
export const Queued = Type.Object({
  event_id: Type.String(),
  event_type: EventTypeSchema,
  delivery_id: Type.String(),
  endpoint_id: Type.String(),
});

const EndpointId = Type.Object({ endpoint_id: IdParam });
const common = { tags: ['devtools'], status: 'live' as const, rateLimit: 'devtools-management' as const };
const Url = Text({ minLength: 1, maxLength: 2048, description: 'HTTPS address on a public host' });
const EventTypes = Type.Array(EventTypeSchema, { minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true });

export function webhookOperations(hooks: WebhookService) {
  return [
    defineOperation({
      ...common,
      operationId: 'listWebhookEndpoints',
      method: 'GET',
      path: '/api/devtools/webhooks',
      summary: 'List webhook endpoints',
      description: 'Every endpoint of the organisation (unpaginated); `environment` filters. Secrets are never returned.',
      access: BEARER.admin,
      dataBasis: { basis: 'configured' },
      schema: { query: EnvironmentQuery, response: { 200: Type.Object({ webhooks: Type.Array(Endpoint) }) } },
      handler: async ({ ctx, query }) => ({ webhooks: await hooks.list(ctx, query.environment) }),
    }),
    defineOperation({
      ...common,
      operationId: 'createWebhookEndpoint',
      method: 'POST',
      path: '/api/devtools/webhooks',
      summary: 'Register a webhook endpoint',
      description:
        'Registers an HTTPS address for this organisation and environment (`environment=sandbox` for the sandbox). ' +
        'Loopback, private, link-local and metadata addresses are refused (checked again when each delivery connects). ' +
        'The signing secret is in `secret`, shown once. `event_types` defaults to every type.',
      access: BEARER.admin,
      schema: {
        query: EnvironmentQuery,
        body: Type.Object(
          { url: Url, description: Type.Optional(Text({ maxLength: 500 })), event_types: Type.Optional(EventTypes) },
          { additionalProperties: false },
        ),
        response: { 201: WithSecret },
      },
      handler: async ({ ctx, query, body }) => hooks.create(ctx, query.environment ?? 'live', body),
    }),
    defineOperation({
      ...common,
      operationId: 'updateWebhookEndpoint',
      method: 'PATCH',
      path: '/api/devtools/webhooks/{endpoint_id}',
      summary: 'Change, disable or re-enable a webhook endpoint',
      description:
        '`enabled: false` disables (deliveries waiting for it are cancelled when due); `enabled: true` re-enables, clears ' +
        'the failure record and resolves its `partner_webhook_disabled` alert.',
      access: BEARER.admin,
      schema: {
        params: EndpointId,
        body: Type.Object(
          {
            url: Type.Optional(Url),
            description: Type.Optional(Text({ maxLength: 500 })),
            event_types: Type.Optional(EventTypes),
            enabled: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: Endpoint },
      },
      handler: async ({ ctx, params, body }) => hooks.update(ctx, params.endpoint_id, body),
    }),
    defineOperation({
      ...common,
      operationId: 'deleteWebhookEndpoint',
      method: 'DELETE',
      path: '/api/devtools/webhooks/{endpoint_id}',
      summary: 'Delete a webhook endpoint',
      description: 'Deletes the endpoint and its delivery log; resolves its `partner_webhook_disabled` alert. 204.',
      access: BEARER.admin,
      schema: { params: EndpointId, response: { 204: Type.Null() } },
      handler: async ({ ctx, params }) => {
        await hooks.remove(ctx, params.endpoint_id);
      },
    }),
    defineOperation({
      ...common,
      operationId: 'rotateWebhookSecret',
      method: 'POST',
      path: '/api/devtools/webhooks/{endpoint_id}/rotate-secret',
      summary: 'Rotate the signing secret',
      description:
        `New secret shown once. For \`overlap_seconds\` (default ${DEFAULT_SECRET_OVERLAP_SECONDS}, at most 604800; 0 = none) ` +
        'deliveries carry a v1= signature for each of the new and the previous secret.',
      access: BEARER.admin,
      schema: {
        params: EndpointId,
        body: optionalBody(Type.Object({ overlap_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800 })) }, { additionalProperties: false })),
        response: { 200: WithSecret },
      },
      handler: async ({ ctx, params, body }) => hooks.rotateSecret(ctx, params.endpoint_id, body?.overlap_seconds ?? DEFAULT_SECRET_OVERLAP_SECONDS),
    }),
    defineOperation({
      ...common,
      operationId: 'listWebhookDeliveries',
      method: 'GET',
      path: '/api/devtools/webhooks/{endpoint_id}/deliveries',
      summary: 'Delivery log of an endpoint',
      description: 'Deliveries newest first (ties by id), each with every attempt; follow `next_cursor` until null.',
      access: BEARER.admin,
      dataBasis: { basis: 'stored' },
      schema: {
        params: EndpointId,
        query: Type.Object({ limit: Type.Optional(LimitParam), cursor: Type.Optional(CursorParam) }, { additionalProperties: false }),
        response: { 200: Type.Object({ deliveries: Type.Array(Delivery), ...PageMembers }) },
      },
      handler: async ({ ctx, params, query }) => hooks.deliveries(ctx, params.endpoint_id, query.limit, query.cursor),
    }),
    defineOperation({
      ...common,
      operationId: 'testWebhookEndpoint',
      method: 'POST',
      path: '/api/devtools/webhooks/{endpoint_id}/test',
      summary: 'Send a test event',
      description:
        'Queues a signed event to this endpoint, delivered like any other. `event_type` defaults to `webhook.test`; ' +
        'other types (sample data) are sent from the sandbox only: a live endpoint answers 400 for them. 202.',
      access: BEARER.admin,
      locates: '/api/devtools/webhooks/{endpoint_id}/deliveries',
      schema: {
        params: EndpointId,
        body: optionalBody(Type.Object({ event_type: Type.Optional(EventTypeSchema) }, { additionalProperties: false })),
        response: { 202: Queued },
      },
      handler: async ({ ctx, params, body }) => hooks.test(ctx, params.endpoint_id, body?.event_type ?? 'webhook.test'),
    }),
    defineOperation({
      ...common,
      operationId: 'replayWebhookEvent',
      method: 'POST',
      path: '/api/devtools/webhooks/{endpoint_id}/replay',
      summary: 'Replay a stored event to an endpoint',
      description:
        'Our addition: events are kept 30 days; this queues a new delivery of `event_id` (same id and body, fresh ' +
        'signature) to this endpoint, which must be enabled and of the same environment. 202.',
      access: BEARER.admin,
      locates: '/api/devtools/webhooks/{endpoint_id}/deliveries',
      schema: {
        params: EndpointId,
        body: Type.Object({ event_id: IdParam }, { additionalProperties: false }),
        response: { 202: Queued },
      },
      handler: async ({ ctx, params, body }) => hooks.replay(ctx, params.endpoint_id, body.event_id),
    }),
  ];
}
