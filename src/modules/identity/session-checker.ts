// The check the platform guard runs on every request carrying a session id: is the session
// revoked? Postgres is the truth; the cache keeps the answer so that most requests cost one cache
// read. A revocation writes 'revoked' into the cache at once, so with a shared cache (Redis) every
// instance refuses the session's access tokens from the next request on. A process-local cache
// (no Redis: one instance) learns it the same way; a remembered 'active' lives ACTIVE_TTL_MS.
// The revocation is also published on the bus (SESSION_REVOKED_SUBJECT), so what holds a session
// open on any instance (a live stream) ends it at once instead of at its next check.
import type { Cache } from '../../infra/cache/index.ts';
import type { Bus } from '../../infra/bus/index.ts';
import type { Queryable } from '../../infra/db/index.ts';
import type { SessionChecker } from '../../platform/auth.ts';
import { ACCESS_TTL_SECONDS } from './tokens.ts';
import { sessionRevokedById } from './sessions-store.ts';

const ACTIVE_TTL_MS = 10_000;

/** Bus subject of a session's revocation, `{session_id}`: delivered to every instance. */
export const SESSION_REVOKED_SUBJECT = 'auth.session.revoked';
// Past this every access token of the session has expired, so the mark is no longer needed.
const REVOKED_TTL_MS = (ACCESS_TTL_SECONDS + 120) * 1000;

export interface SessionRevocations extends SessionChecker {
  /** Call after the revoking transaction commits. */
  markRevoked(sessionId: string): Promise<void>;
}

export function createSessionChecker(deps: { db: Queryable; cache: Cache; bus?: Bus; namespace: string }): SessionRevocations {
  const keyOf = (sid: string) => `${deps.namespace}:sess:${sid}`;
  return {
    async isRevoked(sessionId) {
      try {
        const cached = await deps.cache.get(keyOf(sessionId));
        if (cached === 'revoked') return true;
        if (cached === 'active') return false;
      } catch {
        // Cache unreachable: ask the store.
      }
      const revoked = await sessionRevokedById(deps.db, sessionId);
      // setIfAbsent: a revocation marked meanwhile is never overwritten by a stale 'active'. Not
      // awaited: filling the cache is no reason to keep the request waiting on a slow Redis.
      void deps.cache.setIfAbsent(keyOf(sessionId), revoked ? 'revoked' : 'active', revoked ? REVOKED_TTL_MS : ACTIVE_TTL_MS).catch(() => false);
      return revoked;
    },
    async markRevoked(sessionId) {
      await deps.cache.set(keyOf(sessionId), 'revoked', REVOKED_TTL_MS).catch(() => {});
      // Best effort: a holder that misses it still finds the revocation at its next check.
      await deps.bus?.publish(SESSION_REVOKED_SUBJECT, { session_id: sessionId }).catch(() => {});
    },
  };
}
