// Invitations: an organisation administrator invites an email with a role; the invitee accepts
// with the single-use token (shown once, at creation) and receives tokens. A new invitee sets a
// password; someone who already has an account proves it with that account's password, under the
// same lockout rules as login.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { Role } from '../../platform/roles.ts';
import { errors, fieldError } from '../../platform/errors.ts';
import type { AuditLog } from '../audit/index.ts';
import { createInvitationStore, statusOf, type InvitationRow } from './invitations-store.ts';
import { createUserStore } from './users-store.ts';
import { hashPassword } from './password.ts';
import { publish } from '../../platform/jobs.ts';

export const INVITATION_ACCEPTED = 'invitation.accepted';
import { createLockoutStore } from './lockout-store.ts';
import { createPasswordCheck } from './login.ts';
import { identityErrors } from './errors.ts';
import { localSession, userActor, type Sessions, type TokenResponse } from './sessions.ts';

export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
export const MIN_PASSWORD_LENGTH = 12;

const hashToken = (token: string) => createHash('sha256').update(`invitation:${token}`).digest('hex');

export interface InvitationDeps {
  db: Db;
  clock: Clock;
  audit: AuditLog;
  sessions: Sessions;
}

export function createInvitations(deps: InvitationDeps) {
  const { db, clock, audit, sessions } = deps;
  const passwords = createPasswordCheck(deps);
  const actorId = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : null);

  const view = (inv: InvitationRow) => ({
    id: inv.id,
    email: inv.email,
    role: inv.role,
    status: statusOf(inv, clock.now()),
    created_by: inv.created_by,
    created_at: inv.created_at.toISOString(),
    expires_at: inv.expires_at.toISOString(),
    accepted_at: inv.accepted_at?.toISOString() ?? null,
    accepted_user_id: inv.accepted_user_id,
    revoked_at: inv.revoked_at?.toISOString() ?? null,
  });

  return {
    view,

    async create(ctx: RequestContext, input: { email: string; role: Role }) {
      const email = input.email.trim();
      const now = clock.now();
      const token = `inv_${randomBytes(32).toString('base64url')}`;
      const row = await db.tx(async (q) => {
        if (await createUserStore(q).memberByEmail(ctx.orgId, email)) {
          throw errors.conflict('Already a member of this organisation', 'already_member');
        }
        const store = createInvitationStore(q);
        if (await store.pendingExists(ctx.orgId, email, now)) {
          throw errors.conflict('An invitation for this email is already pending', 'invitation_pending');
        }
        const inv = await store.create(ctx.orgId, {
          id: randomUUID(),
          email,
          role: input.role,
          tokenHash: hashToken(token),
          createdBy: actorId(ctx),
          now,
          expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
        });
        await audit.record(q, ctx, {
          action: 'auth.invitation.create',
          targetType: 'invitation',
          targetId: inv.id,
          details: { email, role: input.role },
        });
        return inv;
      });
      return { ...view(row), token };
    },

    async list(ctx: RequestContext) {
      return (await createInvitationStore(db).list(ctx.orgId)).map(view);
    },

    async revoke(ctx: RequestContext, id: string): Promise<void> {
      await db.tx(async (q) => {
        const store = createInvitationStore(q);
        const inv = await store.get(ctx.orgId, id);
        if (!inv) throw errors.notFound();
        if (inv.accepted_at) throw errors.conflict('Invitation already accepted', 'invitation_accepted');
        if (await store.revoke(ctx.orgId, id, clock.now())) {
          await audit.record(q, ctx, { action: 'auth.invitation.revoke', targetType: 'invitation', targetId: id, details: { email: inv.email } });
        }
      });
    },

    async accept(ctx: RequestContext, input: { token: string; password: string }): Promise<TokenResponse> {
      const inv = await createInvitationStore(db).byTokenHash(hashToken(input.token));
      if (!inv || statusOf(inv, clock.now()) !== 'pending') throw identityErrors.invalidInvitation();
      const existing = await createUserStore(db).byEmail(inv.email);
      let passwordHash: string | null = null;
      if (existing) {
        await passwords.verify(ctx, inv.email, input.password);
        await createLockoutStore(db).reset(inv.email);
      } else {
        if (input.password.length < MIN_PASSWORD_LENGTH) {
          throw errors.validation([
            fieldError(['body', 'password'], `String should have at least ${MIN_PASSWORD_LENGTH} characters`, null, 'string_too_short'),
          ]);
        }
        passwordHash = await hashPassword(input.password);
      }
      return db.tx(async (q) => {
        const users = createUserStore(q);
        let user = existing;
        if (!user) {
          if (await users.byEmail(inv.email)) throw errors.conflict('An account for this email was created meanwhile; try again', 'account_exists');
          user = await users.create({ email: inv.email, passwordHash });
        }
        // An invitee who joined meanwhile keeps the role they have.
        const current = await users.membershipIn(inv.org_id, user.id);
        const role = current?.role ?? inv.role;
        if (!current) await users.setMembership(user.id, inv.org_id, role);
        if (!(await createInvitationStore(q).accept(inv.org_id, inv.id, user.id, clock.now()))) {
          throw identityErrors.invalidInvitation();
        }
        const { sessionId, tokens } = await sessions.start(q, inv.org_id, localSession(user, 'invitation', role));
        await audit.record(q, userActor(inv.org_id, user.id, ctx), {
          action: 'auth.invitation.accept',
          targetType: 'invitation',
          targetId: inv.id,
          details: { new_account: !existing, role, session_id: sessionId },
        });
        await publish(
          q,
          clock.now(),
          INVITATION_ACCEPTED,
          { org_id: inv.org_id, invitation_id: inv.id, invited_by: inv.created_by, user_id: user.id, email: user.email, role },
          inv.org_id,
        );
        return tokens;
      });
    },
  };
}

export type Invitations = ReturnType<typeof createInvitations>;
