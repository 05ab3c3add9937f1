// /api/devtools/apikeys: organisation administrators only, 60 management requests a minute.
import { Type } from 'typebox';
import { BEARER, defineOperation } from '../../../platform/operation.ts';
import { EnvironmentQuery, EnvironmentSchema, IdParam, Nullable, Text, Timestamp, optionalBody } from '../common.ts';
import type { KeyService } from '../apikeys/service.ts';
import { Component } from '../../../platform/schema-kit.ts';

/** A scope a key may hold: one the modules declare (AppDeps.scopes), with what each allows. */
export function scopeSchema(scopes: Readonly<Record<string, string>>) {
  const names = Object.keys(scopes).sort();
  return Type.Union(
    names.map((s) => Type.Literal(s)),
    {
      description: names.map((s) => `\`${s}\`: ${scopes[s]}`).join('; '),
    },
  );
}

const apiKeySchemas = (scopes: Readonly<Record<string, string>>) => {
  const Scope = scopeSchema(scopes);
  const ApiKey = Component(
    'ApiKey',
    Type.Object({
      id: Type.String({ description: 'Key id (non-secret; embedded in the key itself)' }),
      name: Type.String(),
      environment: EnvironmentSchema,
      scopes: Type.Array(Scope),
      key_hint: Type.String({ description: 'The key with its secret elided: prefix, environment, id and the last four characters' }),
      status: Type.Union(
        ['active', 'rotating', 'rotated', 'revoked', 'expired'].map((s) => Type.Literal(s)),
        {
          description: '`active`; `rotating` (replaced, still accepted until `overlap_until`); `rotated` (replaced, refused); `revoked`; `expired`',
        },
      ),
      created_at: Timestamp,
      expires_at: Timestamp,
      revoked_at: Nullable(Timestamp),
      rotated_at: Nullable(Timestamp),
      replaced_by: Nullable(Type.String({ description: 'Id of the key that replaced this one' })),
      overlap_until: Nullable(Timestamp),
      last_used_at: Nullable(Type.String({ format: 'date-time', description: 'Last successful authentication (updated at most once a minute)' })),
    }),
  );

  const Secret = Type.String({
    description: 'The whole API key, `<prefix>_<environment>_<id>_<secret>`. Shown once: only a hash is stored.',
  });
  const IssuedKey = Type.Object({ ...ApiKey.properties, secret: Secret });
  return { Scope, ApiKey, IssuedKey, count: Object.keys(scopes).length };
};

const KeyId = Type.Object({ key_id: IdParam });
const common = { tags: ['devtools'], status: 'live' as const, rateLimit: 'devtools-management' as const };

export function apiKeyOperations(keys: KeyService, scopes: Readonly<Record<string, string>>) {
  const { Scope, ApiKey, IssuedKey, count } = apiKeySchemas(scopes);
  return [
    defineOperation({
      ...common,
      operationId: 'listApiKeys',
      method: 'GET',
      path: '/api/devtools/apikeys',
      summary: 'List API keys',
      description: 'Every key of the organisation (unpaginated), newest first; `environment` filters. Secrets are never returned.',
      access: BEARER.admin,
      dataBasis: { basis: 'configured' },
      schema: { query: EnvironmentQuery, response: { 200: Type.Object({ api_keys: Type.Array(ApiKey) }) } },
      handler: async ({ ctx, query }) => ({ api_keys: await keys.list(ctx, query.environment) }),
    }),
    defineOperation({
      ...common,
      operationId: 'createApiKey',
      method: 'POST',
      path: '/api/devtools/apikeys',
      summary: 'Issue an API key',
      description:
        'Issues a key for this organisation; `environment=sandbox` issues a sandbox key (read scopes only; it reads the ' +
        'generated sandbox organisation). The secret is in `secret`, shown once. Default expiry 90 days, at most 366. ' +
        'Over the plan limit `api_keys` (valid keys): 402.',
      access: BEARER.admin,
      schema: {
        query: EnvironmentQuery,
        body: Type.Object(
          {
            name: Text({ minLength: 1, maxLength: 100 }),
            scopes: Type.Array(Scope, { minItems: 1, maxItems: count, uniqueItems: true }),
            expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'Default: 90 days from now; at most 366 days' })),
          },
          { additionalProperties: false },
        ),
        response: { 201: IssuedKey },
      },
      handler: async ({ ctx, query, body }) => keys.create(ctx, query.environment ?? 'live', body),
    }),
    defineOperation({
      ...common,
      operationId: 'rotateApiKey',
      method: 'POST',
      path: '/api/devtools/apikeys/{key_id}/rotate',
      summary: 'Rotate an API key',
      description:
        'Issues a successor with the same name, environment and scopes (secret shown once). Rotation rule: the ' +
        'predecessor stops working at once, unless `overlap_seconds` (at most 604800, never past its own expiry) asks ' +
        'for a bounded overlap during which both work. Only an `active` key can be rotated (409 otherwise). The ' +
        "successor's expiry is `expires_at`, or the predecessor's lifetime counted from now.",
      access: BEARER.admin,
      schema: {
        params: KeyId,
        body: optionalBody(
          Type.Object(
            {
              overlap_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800, description: 'Default 0: the old key stops at once' })),
              expires_at: Type.Optional(Type.String({ format: 'date-time' })),
            },
            { additionalProperties: false },
          ),
        ),
        response: { 200: Type.Object({ ...IssuedKey.properties, predecessor: ApiKey }) },
      },
      handler: async ({ ctx, params, body }) => keys.rotate(ctx, params.key_id, body ?? null),
    }),
    defineOperation({
      ...common,
      operationId: 'revokeApiKey',
      method: 'POST',
      path: '/api/devtools/apikeys/{key_id}/revoke',
      summary: 'Revoke an API key',
      description: 'The key is refused from now on (idempotent: revoking a revoked key answers the same record).',
      access: BEARER.admin,
      schema: { params: KeyId, response: { 200: ApiKey } },
      handler: async ({ ctx, params }) => keys.revoke(ctx, params.key_id),
    }),
  ];
}
