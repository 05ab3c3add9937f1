// Identity: sign-in, sessions and tokens, invitations, single sign-on. Provides the platform's
// session check (revoked sign-ins stop working at once).
import { migrationsDir, type ModuleCreate, type ModuleDefinition } from '../../platform/module.ts';
import { createTokenIssuer } from './tokens.ts';
import { createSessionChecker } from './session-checker.ts';
import { createSessions, sessionState, type SessionState } from './sessions.ts';
import { createLogin } from './login.ts';
import { createInvitations } from './invitations.ts';
import { createJwksCache } from './sso-keys.ts';
import { createSso } from './sso.ts';
import { authOperations } from './routes/auth.ts';
import { invitationOperations } from './routes/invitations.ts';
import { ssoOperations } from './routes/sso.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { serviceKey } from '../../platform/services.ts';
import type { Queryable } from '../../infra/db/index.ts';
import type { Role } from '../../platform/roles.ts';
import { createUserStore } from './users-store.ts';
import { runUnscoped } from '../../infra/db/scope.ts';
import { IDENTITY_ERROR_DOCS } from './errors.ts';

/**
 * Who belongs to an organisation, for modules that address people (alert routing, notifications,
 * site access). Identity owns the users and memberships tables (decision 0356): no other module's
 * SQL names them.
 */
export interface Members {
  /** The member's id, email and role in this organisation; null when not a member (or disabled). */
  member(q: Queryable, orgId: string, userId: string): Promise<{ id: string; email: string; role: Role } | null>;
  /** Active members holding this role (e.g. the administrators to tell about an expiring key). */
  withRole(q: Queryable, orgId: string, role: Role): Promise<{ id: string; email: string; role: Role }[]>;
  /** A member by email (any case), the account disabled or not; null when not a member of this organisation. */
  memberByEmail(q: Queryable, orgId: string, email: string): Promise<{ id: string; email: string; role: Role } | null>;
  /** Whether the user holds a membership of this organisation, the account disabled or not. */
  isMember(q: Queryable, orgId: string, userId: string): Promise<boolean>;
  /** The email of each of these users that exists, ordered by email as the store collates it. */
  emails(q: Queryable, userIds: readonly string[]): Promise<{ id: string; email: string }[]>;
}
export const MEMBERS = serviceKey<Members>('identity.members');

/**
 * Whether a session still grants access, read from the store now (for what holds a session open,
 * as the live stream does): revoked, withdrawn (user disabled, membership gone, SSO role gone), or
 * active with its current roles. Revocations are also published on the bus as they happen
 * (`SESSION_REVOKED_SUBJECT`, `{session_id}`).
 */
export interface SessionAccess {
  state(orgId: string, sessionId: string): Promise<SessionState>;
}
export const SESSION_ACCESS = serviceKey<SessionAccess>('identity.session-access');
export { SESSION_REVOKED_SUBJECT } from './session-checker.ts';
export type { SessionState } from './sessions.ts';

/**
 * Domain event published when an invitee accepts: `{org_id, invitation_id, invited_by, user_id,
 * email, role}` (`invited_by` null when the inviter is unknown). Subscribe with `background.subscriptions`.
 */
export { INVITATION_ACCEPTED } from './invitations.ts';

export { createUserStore, type User, type Membership, type UserStore } from './users-store.ts';
export { hashPassword, verifyPassword, KDF_PARAMETERS } from './password.ts';

export const identityModule: ModuleCreate = (deps) => {
  const { db, clock, config } = deps;
  const audit = deps.services.get(AUDIT_LOG);
  const issuer = createTokenIssuer(config.jwtSecret);
  const revocations = createSessionChecker({ db, cache: deps.cache, bus: deps.bus, namespace: config.namespace });
  const sessions = createSessions({ db, clock, issuer, audit, revocations });
  const login = createLogin({ db, clock, audit, sessions });
  const invitations = createInvitations({ db, clock, audit, sessions });
  const keys = createJwksCache({ clock, allowPrivate: config.allowPrivateOutbound, timeoutMs: config.upstreams.timeoutMs });
  const sso = createSso({ db, clock, audit, sessions, keys, allowPrivateOutbound: config.allowPrivateOutbound });
  return {
    tags: {
      auth: 'Sign-in, tokens, logout, single sign-on with an identity provider, invitations and the signed-in user.',
    },
    errors: IDENTITY_ERROR_DOCS,
    operations: [...authOperations({ db, login, sessions }), ...invitationOperations(invitations), ...ssoOperations(sso)],
    provides: { sessions: revocations },
  };
};

/** This module as the module list names it. */
export const identityDefinition: ModuleDefinition = {
  name: 'identity',
  dependsOn: ['orgs', 'audit'],
  migrations: migrationsDir(import.meta.url),
  provides: (deps, registry) => {
    registry.provide(MEMBERS, {
      member: (q, orgId, userId) => createUserStore(q).memberById(orgId, userId),
      withRole: (q, orgId, role) => createUserStore(q).membersWithRole(orgId, role),
      memberByEmail: (q, orgId, email) => createUserStore(q).memberByEmail(orgId, email),
      isMember: async (q, orgId, userId) => (await createUserStore(q).membershipIn(orgId, userId)) !== null,
      emails: (q, userIds) => createUserStore(q).emails(userIds),
    });
    // Filtered on the organisation it is given, whichever request or background work asks.
    registry.provide(SESSION_ACCESS, { state: (orgId, sessionId) => runUnscoped(() => sessionState(deps.db, orgId, sessionId)) });
  },
  create: identityModule,
};
