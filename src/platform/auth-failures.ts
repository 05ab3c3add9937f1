// The failed-authentication limit (decision 0027): every 401 from the credential guard counts
// against the source address, and an address over the unauthenticated limit is refused 429
// before any token or key is verified. The count is the rate limiter's, in the shared cache; a
// marker in the same cache (expiring with the window) tells every instance that the address is
// over, so the refusal costs one cache read (none for a credential this instance verified lately,
// the common path). A credential this deployment has verified before is
// still verified while its address is blocked, so strangers behind a shared address cannot lock
// out its signed-in users; an unseen credential waits for the window like the unauthenticated.
import { createHash } from 'node:crypto';
import type { Cache } from '../infra/cache/index.ts';
import type { Clock } from './clock.ts';
import { errors } from './errors.ts';
import type { RateLimiter } from './rate-limit.ts';

const MINUTE = 60_000;
/** How long a verified credential is remembered (in the cache, and here to avoid rewriting it). */
const KNOWN_TTL_MS = 10 * MINUTE;
const MAX_LOCAL_ENTRIES = 50_000;

export interface FailedAuthLimit {
  /** Throws 429 when the address is over the limit and the credential was never verified. */
  refuseIfBlocked(ip: string, credential: string | undefined): Promise<void>;
  /** One failed authentication from the address. */
  recordFailure(ip: string): Promise<void>;
  /** The credential verified: it may be verified again while its address is blocked. */
  recordSuccess(credential: string): Promise<void>;
}

export function createFailedAuthLimit(opts: { cache: Cache; limiter: RateLimiter; clock: Clock; namespace: string; limit: number }): FailedAuthLimit {
  const { cache, limiter, clock, namespace } = opts;
  const policy = { name: 'authfail', limit: opts.limit, windowMs: MINUTE };
  const blockKey = (ip: string) => `${namespace}:authfail:blocked:${ip}`;
  const knownKey = (digest: string) => `${namespace}:authfail:known:${digest}`;
  const digestOf = (credential: string) => createHash('sha256').update(credential).digest('base64url');
  // Used only when the shared cache does not answer: what this instance itself saw.
  const localBlocked = new Map<string, number>();
  const localKnown = new Map<string, number>();
  const bounded = (m: Map<string, number>, now: number) => {
    if (m.size < MAX_LOCAL_ENTRIES) return;
    for (const [k, until] of m) if (until <= now) m.delete(k);
    if (m.size >= MAX_LOCAL_ENTRIES) m.clear();
  };

  async function isBlocked(ip: string, now: number): Promise<boolean> {
    try {
      return (await cache.get(blockKey(ip))) !== null;
    } catch {
      return (localBlocked.get(ip) ?? 0) > now;
    }
  }

  async function isKnown(digest: string, now: number): Promise<boolean> {
    if ((localKnown.get(digest) ?? 0) > now) return true;
    try {
      return (await cache.get(knownKey(digest))) !== null;
    } catch {
      return false;
    }
  }

  return {
    async refuseIfBlocked(ip, credential) {
      const now = clock.now().getTime();
      // A credential this instance verified lately passes whether or not its address is blocked:
      // no cache read on the common path (a signed-in client's next request).
      const digest = credential ? digestOf(credential) : undefined;
      if (digest && (localKnown.get(digest) ?? 0) > now) return;
      if (!(await isBlocked(ip, now))) return;
      if (digest && (await isKnown(digest, now))) return;
      // Counting this attempt too tells how long the window has left; the address stays blocked.
      const r = await limiter.check(policy, ip);
      if (!r.allowed) throw errors.rateLimited(r.resetSeconds);
    },

    async recordFailure(ip) {
      const r = await limiter.check(policy, ip);
      // The limit-th failure uses up the address's allowance: the next attempt is refused.
      if (r.allowed && r.remaining > 0) return;
      const now = clock.now().getTime();
      const ttl = r.resetSeconds * 1000;
      bounded(localBlocked, now);
      localBlocked.set(ip, now + ttl);
      await cache.set(blockKey(ip), '1', ttl).catch(() => {});
    },

    async recordSuccess(credential) {
      const now = clock.now().getTime();
      const digest = digestOf(credential);
      if ((localKnown.get(digest) ?? 0) > now + KNOWN_TTL_MS / 2) return;
      bounded(localKnown, now);
      localKnown.set(digest, now + KNOWN_TTL_MS);
      await cache.set(knownKey(digest), '1', KNOWN_TTL_MS).catch(() => {});
    },
  };
}
