// Password sign-in with lockout. An unknown email costs the same work and gets the same answer
// as a wrong password, and is locked the same way, so no answer tells whether an account exists.
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { AuditActor, AuditLog } from '../audit/index.ts';
import { createUserStore, type User } from './users-store.ts';
import { verifyPassword } from './password.ts';
import { createLockoutStore } from './lockout-store.ts';
import { identityErrors } from './errors.ts';
import { localSession, userActor, type Sessions, type TokenResponse } from './sessions.ts';

export interface LoginDeps {
  db: Db;
  clock: Clock;
  audit: AuditLog;
  sessions: Sessions;
}

export function createPasswordCheck(deps: Pick<LoginDeps, 'db' | 'clock' | 'audit'>) {
  const { db, clock, audit } = deps;

  /** Audit rows for a known user go to each of their organisations; for an unknown email, to none. */
  async function recordRefusal(q: Queryable, ctx: RequestContext, user: User | null, action: string, details: Record<string, unknown>) {
    const orgIds = user ? (await createUserStore(q).memberships(user.id)).map((m) => m.org_id) : [];
    const targets = orgIds.length ? orgIds : [null];
    for (const orgId of targets) {
      const who: AuditActor = {
        orgId,
        actorType: user ? 'user' : 'anonymous',
        actorId: user?.id ?? null,
        requestId: ctx.requestId,
        ip: ctx.ip,
      };
      await audit.record(q, who, { action, targetType: 'user', targetId: user?.id, details });
    }
  }

  return {
    /**
     * Checks email and password under the lockout rules; the verified user, or a refusal
     * (423 while locked, 401 otherwise). Used by login and by invitation acceptance.
     */
    async verify(ctx: RequestContext, email: string, password: string): Promise<User> {
      const lockout = createLockoutStore(db);
      if (await lockout.lockedUntil(email, clock.now())) throw identityErrors.locked();
      const user = await createUserStore(db).byEmail(email);
      const usable = user && !user.disabled ? user : null;
      const ok = await verifyPassword(password, usable?.password_hash ?? null);
      if (ok && usable) return usable;
      await db.tx(async (q) => {
        const { failures, lockedNow } = await createLockoutStore(q).recordFailure(email, clock.now());
        await recordRefusal(q, ctx, usable, 'auth.login.failed', { reason: usable ? 'bad_password' : 'unknown_account', failures });
        if (lockedNow) await recordRefusal(q, ctx, usable, 'auth.lockout', { failures, minutes: 15 });
      });
      throw identityErrors.invalidCredentials();
    },
  };
}

export function createLogin(deps: LoginDeps) {
  const { db, audit, sessions } = deps;
  const passwords = createPasswordCheck(deps);

  return {
    async login(ctx: RequestContext, input: { email: string; password: string; organisation_id?: string }): Promise<TokenResponse> {
      const user = await passwords.verify(ctx, input.email, input.password);
      // The password is right: the run of failures ends whatever happens next.
      await createLockoutStore(db).reset(input.email);
      const memberships = await createUserStore(db).memberships(user.id);
      if (memberships.length === 0) throw identityErrors.noMembership();
      let chosen = memberships[0];
      if (input.organisation_id !== undefined) {
        const m = memberships.find((x) => x.org_id === input.organisation_id);
        if (!m) throw identityErrors.notAMember();
        chosen = m;
      } else if (memberships.length > 1) {
        throw identityErrors.organisationRequired(memberships.map((m) => m.org_id));
      }
      return db.tx(async (q) => {
        const { sessionId, tokens } = await sessions.start(q, chosen.org_id, localSession(user, 'password', chosen.role));
        await audit.record(q, userActor(chosen.org_id, user.id, ctx), {
          action: 'auth.login',
          targetType: 'session',
          targetId: sessionId,
          details: { method: 'password', role: chosen.role },
        });
        return tokens;
      });
    },
  };
}
