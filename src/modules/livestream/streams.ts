// The open streams of this instance (decision 0290): admitted against the per-user and
// per-organisation caps, and each held to the session it was opened with. A stream ends (an `end`
// event with the reason, then the answer ends) when
// - its session is revoked (logout, refresh-token reuse): at once, from the identity module's
//   revocation on the bus, and at the next check if that message was missed;
// - its access token expires: a timer at `exp`, and the next check on the service clock;
// - its member is removed, disabled, or holds another role than the token says, or its SSO
//   mapping no longer gives a role: at the next check.
// The check runs on every instance when the `livestream.session-check` schedule (one instance,
// every LIVE_SESSION_CHECK_SECONDS) publishes SESSION_CHECK_SUBJECT on the bus; tests move the
// clock and run what is due. A token without a session id (not issued by the identity module)
// is held to its expiry only, as the request guard holds it.
import type { FastifyBaseLogger } from 'fastify';
import type { Bus } from '../../infra/bus/index.ts';
import { runUnscoped } from '../../infra/db/scope.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Role } from '../../platform/roles.ts';
import { SESSION_REVOKED_SUBJECT, type SessionAccess } from '../identity/index.ts';

export const SESSION_CHECK_SUBJECT = 'live.session-check';

export type EndReason = 'session_revoked' | 'token_expired' | 'access_withdrawn' | 'role_changed' | 'service_stopping';

export interface StreamHolder {
  orgId: string;
  userId: string;
  sessionId?: string;
  roles: readonly Role[];
  expiresAt?: Date;
  /** Sends the `end` event with the reason and ends the answer. */
  end(reason: EndReason): void;
}

export interface StreamLimits {
  perUser: number;
  perOrganisation: number;
}

export interface StreamRegistry {
  /**
   * Counts the stream in and returns its release (idempotent), or null when the user or the
   * organisation already holds its cap. Throws when the bus cannot be subscribed.
   */
  admit(h: StreamHolder): Promise<(() => void) | null>;
  /** Checks every open stream's expiry and session now. */
  check(): Promise<void>;
  count(): number;
  /** Ends every open stream (the service is stopping). */
  close(): Promise<void>;
}

/** setTimeout's longest delay; a later expiry re-arms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function createStreamRegistry(deps: {
  bus: Bus;
  clock: Clock;
  log: FastifyBaseLogger;
  sessions: SessionAccess;
  limits: StreamLimits;
  onEnd?: (reason: EndReason) => void;
}): StreamRegistry {
  interface Entry {
    release: () => void;
    timer?: NodeJS.Timeout;
  }
  const open = new Map<StreamHolder, Entry>();
  const perUser = new Map<string, number>();
  const perOrg = new Map<string, number>();
  let control: Promise<Array<() => Promise<void>>> | undefined;
  let running: Promise<void> | undefined;

  const bump = (m: Map<string, number>, key: string, by: number) => {
    const n = (m.get(key) ?? 0) + by;
    if (n > 0) m.set(key, n);
    else m.delete(key);
  };

  function endOne(h: StreamHolder, reason: EndReason) {
    const entry = open.get(h);
    if (!entry) return;
    entry.release();
    deps.onEnd?.(reason);
    try {
      h.end(reason);
    } catch (err) {
      deps.log.warn({ err }, 'live: ending a stream failed');
    }
  }

  /** The bus subscriptions every instance holding streams needs; made with the first stream. */
  function subscribeControl() {
    // Made outside the admitting request's organisation scope: the handlers (and the session
    // reads they start) are the instance's background work, for streams of every organisation.
    control ??= runUnscoped(() =>
      Promise.all([
        deps.bus.subscribe(SESSION_REVOKED_SUBJECT, (payload) => {
          const sid = (payload as { session_id?: unknown } | null)?.session_id;
          if (typeof sid !== 'string') return;
          for (const h of [...open.keys()]) if (h.sessionId === sid) endOne(h, 'session_revoked');
        }),
        // The bus guards its handlers (a failure is logged and counted, decision 0270).
        deps.bus.subscribe(SESSION_CHECK_SUBJECT, () => check()),
      ]),
    );
    const made = control;
    made.catch(() => control === made && (control = undefined));
    return made;
  }

  /** Ends the stream at its token's expiry (a far one re-arms: setTimeout's longest delay is ~24 days). */
  function armExpiry(h: StreamHolder, entry: Entry) {
    if (!h.expiresAt) return;
    const ms = Math.min(MAX_TIMER_MS, Math.max(0, h.expiresAt.getTime() - deps.clock.now().getTime()));
    entry.timer = setTimeout(() => {
      if (open.get(h) !== entry) return;
      if (deps.clock.now() >= h.expiresAt!) endOne(h, 'token_expired');
      else if (ms === MAX_TIMER_MS) armExpiry(h, entry);
    }, ms);
    entry.timer.unref();
  }

  const sameRoles = (a: readonly Role[], b: readonly Role[]) => a.length === b.length && a.every((r) => b.includes(r));

  async function runCheck() {
    const now = deps.clock.now();
    const bySession = new Map<string, StreamHolder[]>();
    for (const h of [...open.keys()]) {
      if (h.expiresAt && h.expiresAt <= now) {
        endOne(h, 'token_expired');
        continue;
      }
      if (!h.sessionId) continue;
      const key = `${h.orgId}\n${h.sessionId}`;
      const group = bySession.get(key);
      if (group) group.push(h);
      else bySession.set(key, [h]);
    }
    // One read per session, one session at a time: a check never takes more than one connection.
    for (const group of bySession.values()) {
      const { orgId, sessionId } = group[0];
      let state;
      try {
        state = await deps.sessions.state(orgId, sessionId!);
      } catch (err) {
        deps.log.warn({ err, orgId }, 'live: session check failed; the next check tries again');
        continue;
      }
      for (const h of group) {
        if (state.state === 'revoked') endOne(h, 'session_revoked');
        else if (state.state === 'withdrawn') endOne(h, 'access_withdrawn');
        else if (!sameRoles(h.roles, state.roles)) endOne(h, 'role_changed');
      }
    }
  }

  function check(): Promise<void> {
    running ??= runCheck()
      .catch((err) => deps.log.warn({ err }, 'live: session check failed'))
      .finally(() => (running = undefined));
    return running;
  }

  return {
    async admit(h) {
      await subscribeControl();
      // Counted synchronously after the await: two requests cannot both take the last place.
      if ((perUser.get(h.userId) ?? 0) >= deps.limits.perUser) return null;
      if ((perOrg.get(h.orgId) ?? 0) >= deps.limits.perOrganisation) return null;
      bump(perUser, h.userId, 1);
      bump(perOrg, h.orgId, 1);
      const entry: Entry = {
        release: () => {
          if (open.get(h) !== entry) return;
          open.delete(h);
          if (entry.timer) clearTimeout(entry.timer);
          bump(perUser, h.userId, -1);
          bump(perOrg, h.orgId, -1);
        },
      };
      open.set(h, entry);
      armExpiry(h, entry);
      return entry.release;
    },
    check,
    count: () => open.size,
    async close() {
      for (const h of [...open.keys()]) endOne(h, 'service_stopping');
      const subs = control;
      control = undefined;
      if (subs) await subs.then((stops) => Promise.all(stops.map((stop) => stop()))).catch(() => {});
    },
  };
}
