// Invitations (our addition to the catalogue): create, list, revoke, accept.
import { Type } from 'typebox';
import { BEARER, withDefaults } from '../../../platform/operation.ts';
import { bodyTo, bodyToCreated } from '../../../platform/resource.ts';
import { AcceptInvitationBody, CreateInvitationBody, CreatedInvitation, IdParams, Invitation, TokenResponse } from '../schemas.ts';
import type { Invitations } from '../invitations.ts';

const tags = ['auth'];

const op = withDefaults({ tags, status: 'live', access: BEARER.admin });

export function invitationOperations(invitations: Invitations) {
  return [
    op({
      operationId: 'createInvitation',
      method: 'POST',
      path: '/api/auth/invitations',
      summary: 'Invite an email to the organisation with a role',
      description:
        'Organisation administrators only. The answer carries the invitation `token` once; it is stored hashed. ' +
        'No email is sent: pass the token to the invitee, who accepts it with POST /api/auth/invitations/accept ' +
        'within 7 days. 409 when the email is already a member or already has a pending invitation.',
      schema: bodyToCreated(CreateInvitationBody, CreatedInvitation),
      handler: async ({ body, ctx }) => invitations.create(ctx, body),
    }),
    op({
      operationId: 'listInvitations',
      method: 'GET',
      path: '/api/auth/invitations',
      summary: "The organisation's invitations, newest first",
      description: 'Organisation administrators only. Every invitation with its status; tokens are never shown again.',
      schema: { response: { 200: Type.Object({ invitations: Type.Array(Invitation) }) } },
      handler: async ({ ctx }) => ({ invitations: await invitations.list(ctx) }),
    }),
    op({
      operationId: 'revokeInvitation',
      method: 'DELETE',
      path: '/api/auth/invitations/{invitation_id}',
      summary: 'Revoke an invitation',
      description: 'Organisation administrators only. The token stops working at once. 409 when already accepted.',
      schema: { params: IdParams('invitation_id'), response: { 204: Type.Null({ description: 'Revoked' }) } },
      handler: async ({ params, ctx }) => {
        await invitations.revoke(ctx, params.invitation_id);
      },
    }),
    op({
      operationId: 'acceptInvitation',
      method: 'POST',
      path: '/api/auth/invitations/accept',
      summary: 'Accept an invitation and sign in',
      description:
        'Public; limited with the authentication operations. A new invitee sets `password` (at least 12 ' +
        'characters); someone who already has an account sends that account’s password, under the login lockout ' +
        'rules (401, 423). The token is single use. 401 `Invalid or expired invitation` for an unknown, used, ' +
        'revoked or expired token. Answers with the same token object as login.',
      access: { kind: 'public' },
      rateLimit: 'auth',
      schema: bodyTo(AcceptInvitationBody, TokenResponse),
      handler: async ({ body, ctx }) => invitations.accept(ctx, body),
    }),
  ];
}
