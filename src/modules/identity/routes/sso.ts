// Single sign-on: provider configuration, group-to-role mappings, and the id_token exchange.
import { Type } from 'typebox';
import { BEARER, withDefaults } from '../../../platform/operation.ts';
import { bodyTo, bodyToCreated } from '../../../platform/resource.ts';
import { ExchangeBody, IdParams, Mapping, MappingBody, Provider, ProviderBody, TokenResponse } from '../schemas.ts';
import type { Sso } from '../sso.ts';

const tags = ['auth'];

const op = withDefaults({ tags, status: 'live', access: BEARER.admin });

export function ssoOperations(sso: Sso) {
  return [
    op({
      operationId: 'exchangeSsoToken',
      method: 'POST',
      path: '/api/auth/sso/idp/exchange',
      summary: "Exchange an identity provider's id_token for a session",
      description:
        'A session only when the token’s `tid` matches an enabled provider, its signature verifies against the ' +
        'provider’s published keys, issuer, audience (the application id) and validity hold, and at least one of ' +
        'its `groups` maps to a role; roles are the union of mapped roles. Refusals: `detail` is ' +
        '`{error: "sso_refused", reason}`: 404 `tenant_not_configured`; 401 `invalid_signature`, ' +
        '`unknown_signing_key`, `issuer_mismatch`, `audience_mismatch`, `token_expired`, `token_not_yet_valid`, ' +
        '`malformed_token`, `subject_missing` (neither `oid` nor `sub`); 403 `no_mapped_group` (with `groups`, the token’s group ids) or `groups_overage` ' +
        '(the token signals more groups than it carries). 502 `Identity provider API error` when the keys cannot be ' +
        'fetched. Audited as `auth.sso.login`. While no organisation has a verified claim on the tenant, the first ' +
        'sign-in that passes every check of one pending claim verifies it (`auth.sso.provider.verify`); with several ' +
        'pending claims any other outcome is 404 `tenant_not_configured`.',
      access: { kind: 'public' },
      rateLimit: 'auth',
      schema: bodyTo(ExchangeBody, TokenResponse),
      handler: async ({ body, ctx }) => sso.exchange(ctx, body.id_token),
    }),
    op({
      operationId: 'getSsoProvider',
      method: 'GET',
      path: '/api/auth/sso/idp/provider',
      summary: "The organisation's identity provider configuration",
      description: 'Organisation administrators only. `configured: false` until the first PUT.',
      dataBasis: { basis: 'configured' },
      schema: { response: { 200: Provider } },
      handler: async ({ ctx }) => sso.provider(ctx),
    }),
    op({
      operationId: 'setSsoProvider',
      method: 'PUT',
      path: '/api/auth/sso/idp/provider',
      summary: "Set the organisation's identity provider configuration",
      description:
        'Organisation administrators only. Replaces the configuration: `tid` (the provider’s tenant id), ' +
        '`issuer`, `application_id` (the audience), `jwks_url` or `discovery_url` (at least one; https), ' +
        '`enabled` (default true). Naming a tenant id makes a pending claim (`verification: pending`), whatever ' +
        'other organisations have configured: it becomes `verified` when one sign-in from the tenant completes ' +
        'through this configuration, or when a platform administrator approves it. Changing `tid` starts a new claim.',
      schema: bodyTo(ProviderBody, Provider),
      handler: async ({ body, ctx }) =>
        sso.setProvider(ctx, {
          tid: body.tid,
          issuer: body.issuer,
          application_id: body.application_id,
          jwks_url: body.jwks_url ?? null,
          discovery_url: body.discovery_url ?? null,
          enabled: body.enabled ?? true,
        }),
    }),
    op({
      operationId: 'approveSsoProvider',
      method: 'POST',
      path: '/api/auth/sso/idp/providers/{organisation_id}/approve',
      summary: "Approve an organisation's claim on its identity provider tenant",
      description:
        'Platform administrators only. The organisation’s configuration becomes the verified one for its `tid`; a ' +
        'verified claim another organisation held on that tenant goes back to pending (audited there as ' +
        '`auth.sso.provider.release`). Idempotent. 404 when the organisation has no provider configuration.',
      access: BEARER.anyRole,
      platformAdmin: true,
      schema: { params: IdParams('organisation_id'), response: { 200: Provider } },
      handler: async ({ params, ctx }) => sso.approveProvider(ctx, params.organisation_id),
    }),
    op({
      operationId: 'listSsoMappings',
      method: 'GET',
      path: '/api/auth/sso/idp/mappings',
      summary: 'Group-to-role mappings',
      description: 'Organisation administrators only.',
      dataBasis: { basis: 'configured' },
      schema: { response: { 200: Type.Object({ mappings: Type.Array(Mapping) }) } },
      handler: async ({ ctx }) => ({ mappings: await sso.mappings(ctx) }),
    }),
    op({
      operationId: 'createSsoMapping',
      method: 'POST',
      path: '/api/auth/sso/idp/mappings',
      summary: 'Map an identity provider group to a role',
      description: 'Organisation administrators only. A group may map to several roles; 409 for a repeat of the same pair.',
      schema: bodyToCreated(MappingBody, Mapping),
      handler: async ({ body, ctx }) => sso.addMapping(ctx, body),
    }),
    op({
      operationId: 'deleteSsoMapping',
      method: 'DELETE',
      path: '/api/auth/sso/idp/mappings/{mapping_id}',
      summary: 'Remove a group-to-role mapping',
      description: 'Organisation administrators only. Sessions lose the role at their next refresh.',
      schema: { params: IdParams('mapping_id'), response: { 204: Type.Null({ description: 'Removed' }) } },
      handler: async ({ params, ctx }) => {
        await sso.deleteMapping(ctx, params.mapping_id);
      },
    }),
  ];
}
