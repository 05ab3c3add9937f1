// Registry v1: /api/twin/ (create, list, update, delete).
import { Type } from 'typebox';
import { defineOperation } from '../../platform/operation.ts';
import { CAN_CONFIGURE, CAN_READ } from '../../platform/roles.ts';
import type { RegistryService } from './service.ts';
import { AssetParams, ErrorBody, TwinAsset, TwinCreateBody, TwinUpdateBody } from './schemas.ts';

const tags = ['registry'];

export function twinOperations(service: RegistryService) {
  return [
    defineOperation({
      operationId: 'createTwinAsset',
      method: 'POST',
      path: '/api/twin/',
      summary: 'Register an asset',
      description:
        'Body `site_id`, `type`, `name`, optional `details` (any object, stored verbatim) and optional `asset_id` ' +
        '(the identifier the asset sends telemetry under; generated when absent). `asset_id` is unique within the ' +
        'organisation: a duplicate answers 409. The registry class is derived from `type` where it names one ' +
        '(see the vocabulary), else null.',
      tags,
      status: 'live',
      access: { kind: 'bearer', roles: CAN_CONFIGURE },
      successStatus: 201,
      schema: { body: TwinCreateBody, response: { 201: TwinAsset, 409: ErrorBody } },
      handler: async ({ ctx, body }) => service.createTwin(ctx, body),
    }),
    defineOperation({
      operationId: 'listTwinAssets',
      method: 'GET',
      path: '/api/twin/',
      summary: 'Every asset of the organisation',
      description: 'Unpaginated, oldest first.',
      tags,
      status: 'live',
      access: { kind: 'bearer', roles: CAN_READ },
      dataBasis: { basis: 'stored' },
      schema: { response: { 200: Type.Array(TwinAsset) } },
      handler: async ({ ctx }) => service.listTwin(ctx),
    }),
    defineOperation({
      operationId: 'updateTwinAsset',
      method: 'PUT',
      path: '/api/twin/{asset_id}',
      summary: 'Change the name and/or details of an asset',
      description: 'Partial: only `name` and `details` may be sent; `details` replaces the stored object.',
      tags,
      status: 'live',
      access: { kind: 'bearer', roles: CAN_CONFIGURE },
      schema: { params: AssetParams, body: TwinUpdateBody, response: { 200: TwinAsset } },
      handler: async ({ ctx, params, body }) => service.updateTwin(ctx, params.asset_id, body),
    }),
    defineOperation({
      operationId: 'deleteTwinAsset',
      method: 'DELETE',
      path: '/api/twin/{asset_id}',
      summary: 'Remove an asset from the registry',
      description:
        'Removes the entry. Stored telemetry of the asset is kept and still readable. Assets linked below it ' +
        'become top-level (the topology then reports them as orphans where their class needs a parent).',
      tags,
      status: 'live',
      access: { kind: 'bearer', roles: CAN_CONFIGURE },
      successStatus: 204,
      schema: { params: AssetParams, response: { 204: Type.Null({ description: 'Removed' }) } },
      handler: async ({ ctx, params }) => {
        await service.deleteTwin(ctx, params.asset_id);
        return undefined;
      },
    }),
  ];
}
