// Registry v1: /api/twin/ (create, list, update, delete).
import { Type } from 'typebox';
import { BEARER, withDefaults } from '../../../platform/operation.ts';
import type { RegistryService } from '../service.ts';
import { AssetParams, TwinAsset, TwinCreateBody, TwinUpdateBody } from '../schemas.ts';
import { ErrorResponse } from '../../../platform/schema-kit.ts';

const tags = ['registry'];

const op = withDefaults({ tags, status: 'live', access: BEARER.configure });

export function twinOperations(service: RegistryService) {
  return [
    op({
      operationId: 'createTwinAsset',
      method: 'POST',
      path: '/api/twin/',
      summary: 'Register an asset',
      description:
        'Body `site_id`, `type`, `name`, optional `details` (any object, stored verbatim) and optional `asset_id` ' +
        '(the identifier the asset sends telemetry under; generated when absent). `asset_id` is unique within the ' +
        'organisation: a duplicate answers 409. The registry class is derived from `type` where it names one ' +
        '(see the vocabulary), else null.',
      schema: { body: TwinCreateBody, response: { 201: TwinAsset, 409: ErrorResponse } },
      handler: async ({ ctx, body }) => service.createTwin(ctx, body),
    }),
    op({
      operationId: 'listTwinAssets',
      method: 'GET',
      path: '/api/twin/',
      summary: 'Every asset of the organisation',
      description: 'Unpaginated, oldest first.',
      access: BEARER.read,
      dataBasis: { basis: 'stored' },
      schema: { response: { 200: Type.Array(TwinAsset) } },
      handler: async ({ ctx }) => service.listTwin(ctx),
    }),
    op({
      operationId: 'updateTwinAsset',
      method: 'PUT',
      path: '/api/twin/{asset_id}',
      summary: 'Change the name and/or details of an asset',
      description: 'Partial: only `name` and `details` may be sent; `details` replaces the stored object.',
      schema: { params: AssetParams, body: TwinUpdateBody, response: { 200: TwinAsset } },
      handler: async ({ ctx, params, body }) => service.updateTwin(ctx, params.asset_id, body),
    }),
    op({
      operationId: 'deleteTwinAsset',
      method: 'DELETE',
      path: '/api/twin/{asset_id}',
      summary: 'Remove an asset from the registry',
      description:
        'Removes the entry. Stored telemetry of the asset is kept and still readable. Assets linked below it ' +
        'become top-level (the topology then reports them as orphans where their class needs a parent).',
      schema: { params: AssetParams, response: { 204: Type.Null({ description: 'Removed' }) } },
      handler: async ({ ctx, params }) => {
        await service.deleteTwin(ctx, params.asset_id);
        return undefined;
      },
    }),
  ];
}
