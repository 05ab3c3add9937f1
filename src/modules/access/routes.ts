// Site access operations: the persona catalogue, grants per site and user, and the caller's own.
import { Type } from 'typebox';
import { BEARER, withDefaults } from '../../platform/operation.ts';
import { PERMISSIONS, PERSONAS, PERSONA_IDS } from './personas.ts';
import type { SiteAccess } from './service.ts';
import { Nullable } from '../../platform/schema-kit.ts';

const tags = ['access'];
const SiteId = Type.String({ minLength: 1, maxLength: 128, description: "The organisation's own site id" });
const UserId = Type.String({ minLength: 1, maxLength: 128 });
const PersonaId = Type.Union(
  PERSONA_IDS.map((p) => Type.Literal(p)),
  { description: 'One of the five personas' },
);
const Permissions = Type.Array(Type.String());

const Grant = Type.Object({
  site_id: Type.String(),
  user_id: Type.String(),
  email: Type.String(),
  persona: Type.String(),
  permissions: Permissions,
  granted_by: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

const op = withDefaults({ tags, status: 'live' });

export function accessOperations(access: SiteAccess) {
  return [
    op({
      operationId: 'listSitePersonas',
      method: 'GET',
      path: '/api/hardware/ems/access/personas',
      summary: 'The five site personas and their permissions',
      description:
        'The personas a site membership can grant (decision 0026), each with the permissions it carries. ' +
        'The same for every organisation; readable by every role.',
      access: BEARER.read,
      dataBasis: { basis: 'configured' },
      schema: {
        response: {
          200: Type.Object({
            personas: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), description: Type.String(), permissions: Permissions })),
            permissions: Type.Array(Type.Object({ id: Type.String(), description: Type.String() })),
          }),
        },
      },
      handler: async () => ({
        personas: PERSONAS.map((p) => ({ ...p, permissions: [...p.permissions] })),
        permissions: Object.entries(PERMISSIONS).map(([id, description]) => ({ id, description })),
      }),
    }),
    op({
      operationId: 'listSiteMemberships',
      method: 'GET',
      path: '/api/hardware/ems/access/memberships',
      summary: "Who holds which persona at the organisation's sites",
      description: 'Organisation administrators and operators. Optional filters `site_id` and `user_id`; the whole set, unpaginated.',
      access: BEARER.configure,
      dataBasis: { basis: 'configured' },
      schema: {
        query: Type.Object({ site_id: Type.Optional(SiteId), user_id: Type.Optional(UserId) }),
        response: { 200: Type.Object({ memberships: Type.Array(Grant) }) },
      },
      handler: async ({ query, ctx }) => ({ memberships: await access.list(ctx, query) }),
    }),
    op({
      operationId: 'setSiteMembership',
      method: 'PUT',
      path: '/api/hardware/ems/access/memberships',
      summary: "Set a member's persona at a site",
      description:
        'Organisation administrators only. Names the user by `user_id` or `email` (exactly one); the user must be ' +
        'a member of the organisation (422 otherwise). Creates the grant or replaces the persona.',
      access: BEARER.admin,
      schema: {
        body: Type.Object(
          {
            site_id: SiteId,
            user_id: Type.Optional(UserId),
            email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })),
            persona: PersonaId,
          },
          { additionalProperties: false },
        ),
        response: { 200: Grant },
      },
      handler: async ({ body, ctx }) => access.set(ctx, body),
    }),
    op({
      operationId: 'deleteSiteMembership',
      method: 'DELETE',
      path: '/api/hardware/ems/access/memberships',
      summary: "Remove a member's access to a site",
      description: 'Organisation administrators only. 404 when the user holds no persona at the site.',
      access: BEARER.admin,
      schema: {
        query: Type.Object({ site_id: SiteId, user_id: UserId }),
        response: { 204: Type.Null({ description: 'Removed' }) },
      },
      handler: async ({ query, ctx }) => {
        await access.remove(ctx, query.site_id, query.user_id);
      },
    }),
    op({
      operationId: 'getMySiteAccess',
      method: 'GET',
      path: '/api/hardware/ems/access/me',
      summary: "The caller's personas per site",
      description: 'The sites where the signed-in user holds a site membership, with the persona and permissions at each.',
      access: BEARER.read,
      dataBasis: { basis: 'configured' },
      schema: {
        response: {
          200: Type.Object({
            user_id: Type.String(),
            sites: Type.Array(Type.Object({ site_id: Type.String(), persona: Type.String(), permissions: Permissions })),
          }),
        },
      },
      handler: async ({ ctx }) => access.mine(ctx),
    }),
  ];
}
