// /api/hardware/device-credentials: ORG_ADMIN and OPERATOR issue, list, rotate and revoke the
// credentials gateways and devices sign in with (decision 0375, docs/devices.md). An extension
// beside the spec's user sign-in for gateways.
import { Type } from 'typebox';
import { defineOperation } from '../../platform/operation.ts';
import { CAN_CONFIGURE } from '../../platform/roles.ts';
import { Component, LiteralUnion, Nullable, SINGLE_LINE, Timestamp } from '../../platform/schema-kit.ts';
import { ASSET_ID_PATTERN, SiteId } from '../registry/index.ts';
import { DEVICE_SCOPES, type CredentialService } from './service.ts';

const Scope = LiteralUnion(DEVICE_SCOPES, {
  description:
    '`telemetry:write`: POST /api/telemetry/ingest for its site; `gateway:heartbeat`: POST /api/hardware/ems/comms/{site_id}/heartbeat; ' +
    '`buffer:replay`: POST /api/hardware/ems/buffer/{site_id}/replay',
});
const DeviceId = Type.String({ pattern: ASSET_ID_PATTERN, description: 'A device id the credential may write (asset_id/device_id of its records)' });

const DeviceCredential = Component(
  'DeviceCredential',
  Type.Object({
    id: Type.String({ description: 'Credential id (non-secret; embedded in the credential; the MQTT username)' }),
    name: Type.String(),
    site_id: Type.String({ description: 'The one site the credential acts for' }),
    device_ids: Nullable(Type.Array(Type.String()), 'The devices it may write; null: any device not registered at another site'),
    scopes: Type.Array(Scope),
    credential_hint: Type.String({ description: 'The credential with its secret elided: prefix, id and the last four characters' }),
    status: LiteralUnion(['active', 'rotating', 'rotated', 'revoked', 'expired'], {
      description: '`active`; `rotating` (replaced, still accepted until `overlap_until`); `rotated` (replaced, refused); `revoked`; `expired`',
    }),
    created_at: Timestamp,
    expires_at: Timestamp,
    revoked_at: Nullable(Timestamp),
    rotated_at: Nullable(Timestamp),
    replaced_by: Nullable(Type.String({ description: 'Id of the credential that replaced this one' })),
    overlap_until: Nullable(Timestamp),
    last_used_at: Nullable(Timestamp, 'Last successful authentication (written at most once a minute)'),
  }),
);
const Secret = Type.String({
  description:
    'The whole credential, `<prefix>dev_<id>_<secret>`: the device sends it as `Authorization: Bearer` or as its MQTT password. Shown once: only a hash is stored.',
});
const Issued = Type.Object({ ...DeviceCredential.properties, secret: Secret });
const IdParams = Type.Object({ credential_id: Type.String({ pattern: '^[0-9a-f]{16}$' }) });

const common = { tags: ['device-credentials'], status: 'live' as const };
const access = { kind: 'bearer' as const, roles: CAN_CONFIGURE };

export function credentialOperations(service: CredentialService) {
  return [
    defineOperation({
      ...common,
      operationId: 'listDeviceCredentials',
      method: 'GET',
      path: '/api/hardware/device-credentials',
      summary: 'List device credentials',
      description: 'Every device credential of the organisation, newest first; `site_id` filters. Secrets are never returned.',
      access,
      dataBasis: { basis: 'configured' },
      schema: {
        query: Type.Object({ site_id: Type.Optional(SiteId) }, { additionalProperties: false }),
        response: { 200: Type.Object({ device_credentials: Type.Array(DeviceCredential) }) },
      },
      handler: async ({ ctx, query }) => ({ device_credentials: await service.list(ctx, query.site_id) }),
    }),
    defineOperation({
      ...common,
      operationId: 'issueDeviceCredential',
      method: 'POST',
      path: '/api/hardware/device-credentials',
      summary: 'Issue a device credential',
      description:
        'A credential for a gateway or device, bound to `site_id` (a known site of the organisation; 422 otherwise) and, with ' +
        '`device_ids`, to those devices (none of them registered at another site; 422 otherwise). `scopes` say which gateway ' +
        'operations it may call. The credential is in `secret`, shown once. Default expiry 365 days, at most 1096. ' +
        'It is accepted by heartbeat, buffer replay and ingestion for its own site and refused everywhere else.',
      access,
      dataBasis: { basis: 'configured' },
      schema: {
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 100, pattern: SINGLE_LINE }),
            site_id: SiteId,
            device_ids: Type.Optional(Type.Array(DeviceId, { minItems: 1, maxItems: 100, uniqueItems: true })),
            scopes: Type.Array(Scope, { minItems: 1, maxItems: DEVICE_SCOPES.length, uniqueItems: true }),
            expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'Default: 365 days from now; at most 1096 days' })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Issued },
      },
      handler: async ({ ctx, body }) => service.issue(ctx, body),
    }),
    defineOperation({
      ...common,
      operationId: 'rotateDeviceCredential',
      method: 'POST',
      path: '/api/hardware/device-credentials/{credential_id}/rotate',
      summary: 'Rotate a device credential',
      description:
        'Issues a successor with the same name, site, devices and scopes (secret shown once). The predecessor stops at once, ' +
        'unless `overlap_seconds` (at most 604800, never past its own expiry) asks for a bounded overlap during which both work, ' +
        'so a device can be given its new credential without a gap. Only an `active` credential can be rotated (409 otherwise).',
      access,
      dataBasis: { basis: 'configured' },
      schema: {
        params: IdParams,
        body: Type.Optional(
          Type.Object(
            {
              overlap_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800, description: 'Default 0: the old credential stops at once' })),
              expires_at: Type.Optional(Type.String({ format: 'date-time' })),
            },
            { additionalProperties: false },
          ),
        ),
        response: { 200: Type.Object({ ...Issued.properties, predecessor: DeviceCredential }) },
      },
      handler: async ({ ctx, params, body }) => service.rotate(ctx, params.credential_id, body ?? null),
    }),
    defineOperation({
      ...common,
      operationId: 'revokeDeviceCredential',
      method: 'POST',
      path: '/api/hardware/device-credentials/{credential_id}/revoke',
      summary: 'Revoke a device credential',
      description:
        'Refused from the next request on (and its MQTT connection dropped); a predecessor still in its rotation overlap stops too. ' +
        'Idempotent: revoking a revoked credential answers the same record.',
      access,
      dataBasis: { basis: 'configured' },
      schema: { params: IdParams, response: { 200: DeviceCredential } },
      handler: async ({ ctx, params }) => service.revoke(ctx, params.credential_id),
    }),
  ];
}
