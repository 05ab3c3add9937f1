// Request and response schemas of the identity operations.
import { Type } from 'typebox';
import { ROLES } from '../../platform/roles.ts';
import { Nullable } from '../../platform/schema-kit.ts';

export const RoleSchema = Type.Union(
  ROLES.map((r) => Type.Literal(r)),
  { description: 'Organisation role' },
);
const DateTime = Type.String({ format: 'date-time' });

export const LoginBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    organisation_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description: 'Required when the account belongs to several organisations (422 without it).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const TokenResponse = Type.Object(
  {
    access_token: Type.String({ description: 'JWT (HS256), 60 minutes' }),
    token_type: Type.Literal('bearer'),
    expires_in: Type.Integer({ description: 'Seconds until the access token expires (3600)' }),
    refresh_token: Type.String({ description: 'Single use; 7 days; rotated on every refresh' }),
    refresh_expires_in: Type.Integer({ description: 'Seconds until the refresh token expires (604800)' }),
    organisation_id: Type.String(),
    roles: Type.Array(RoleSchema),
  },
  { additionalProperties: false },
);

export const RefreshBody = Type.Object({ refresh_token: Type.String({ minLength: 1, maxLength: 4096 }) }, { additionalProperties: false });
/**
 * What refresh and logout validate: `refresh_token` may be left out for the opt-in refresh cookie
 * (decision 0365); the handler answers the schema's own 422 when neither is there. The OpenAPI
 * document shows `RefreshBody`.
 */
export const RefreshBodyOrCookie = Type.Object(
  { refresh_token: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })) },
  { additionalProperties: false },
);

export const LogoutResponse = Type.Object({ status: Type.Literal('ok'), message: Type.String() });

export const MeResponse = Type.Object({
  user_id: Type.String(),
  email: Nullable(Type.String()),
  organisation_id: Type.String(),
  organisation_name: Nullable(Type.String()),
  roles: Type.Array(RoleSchema),
  memberships: Type.Array(Type.Object({ organisation_id: Type.String(), organisation_name: Type.String(), role: RoleSchema }), {
    description: 'Every organisation the account belongs to (empty for single sign-on identities)',
  }),
  platform_staff: Type.Boolean(),
  platform_admin: Type.Boolean(),
  auth_method: Nullable(Type.Union([Type.Literal('password'), Type.Literal('invitation'), Type.Literal('sso')])),
  session_id: Nullable(Type.String()),
});

export const Invitation = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  status: Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('revoked'), Type.Literal('expired')]),
  created_by: Nullable(Type.String()),
  created_at: DateTime,
  expires_at: DateTime,
  accepted_at: Nullable(DateTime),
  accepted_user_id: Nullable(Type.String()),
  revoked_at: Nullable(DateTime),
});

export const CreatedInvitation = Type.Intersect([
  Invitation,
  Type.Object({
    token: Type.String({
      description: 'The invitation token, shown once. There is no email sender: pass it to the invitee, who accepts with POST /api/auth/invitations/accept.',
    }),
  }),
]);

export const CreateInvitationBody = Type.Object({ email: Type.String({ format: 'email', maxLength: 320 }), role: RoleSchema }, { additionalProperties: false });

export const AcceptInvitationBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 256 }),
    password: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'A new account: the password to set (at least 12 characters). An existing account: its current password.',
    }),
  },
  { additionalProperties: false },
);

export const IdParams = (name: string) => Type.Object({ [name]: Type.String({ minLength: 1, maxLength: 128 }) });

export const Provider = Type.Object({
  configured: Type.Boolean({ description: 'False until the first PUT' }),
  tid: Nullable(Type.String({ description: "The identity provider's tenant id (the tokens' `tid` claim)" })),
  issuer: Nullable(Type.String()),
  application_id: Nullable(Type.String({ description: 'The audience tokens must carry' })),
  jwks_url: Nullable(Type.String()),
  discovery_url: Nullable(Type.String()),
  enabled: Type.Boolean(),
  updated_at: Nullable(DateTime),
  updated_by: Nullable(Type.String()),
  verification: Nullable(
    Type.Union([Type.Literal('pending'), Type.Literal('verified')], {
      description:
        '`pending` until one sign-in from the tenant completes through this configuration, or a platform ' +
        'administrator approves it; only a verified configuration admits sign-ins once another is verified',
    }),
  ),
  verified_at: Nullable(DateTime),
});

export const ProviderBody = Type.Object(
  {
    tid: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._-]+$' }),
    issuer: Type.String({ minLength: 1, maxLength: 512 }),
    application_id: Type.String({ minLength: 1, maxLength: 512 }),
    jwks_url: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 2048 }))),
    discovery_url: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 2048 }))),
    enabled: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);

export const Mapping = Type.Object({
  id: Type.String(),
  group_id: Type.String(),
  role: RoleSchema,
  created_by: Nullable(Type.String()),
  created_at: DateTime,
});

export const MappingBody = Type.Object({ group_id: Type.String({ minLength: 1, maxLength: 256 }), role: RoleSchema }, { additionalProperties: false });

export const ExchangeBody = Type.Object({ id_token: Type.String({ minLength: 1, maxLength: 16384 }) }, { additionalProperties: false });
