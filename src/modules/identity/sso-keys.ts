// The identity providers' published signing keys (JWKS), fetched through the SSRF-guarded client
// and kept per instance. Keys are reused for JWKS_MAX_AGE_MS; a token naming an unknown key id
// may trigger one refetch, but never two within JWKS_COOLDOWN_MS of the last fetch (or attempt)
// of the same source, so a flood of made-up key ids costs the provider at most one request per
// cooldown. Concurrent fetches of one source share one request.
import { createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { outboundRequest } from '../../infra/outbound/http-client.ts';
import type { Clock } from '../../platform/clock.ts';

export const JWKS_MAX_AGE_MS = 10 * 60 * 1000;
export const JWKS_COOLDOWN_MS = 30 * 1000;

export interface KeySource {
  jwks_url: string | null;
  discovery_url: string | null;
}

export interface KeySet {
  fetchedAt: number;
  /** Increases with every fetch, so a caller can tell that keys changed under it. */
  generation: number;
  getKey: ReturnType<typeof createLocalJWKSet>;
}

/** The provider's keys could not be fetched or read. */
export class KeysUnavailableError extends Error {}

export function createJwksCache(deps: { clock: Clock; allowPrivate: boolean; timeoutMs: number }) {
  const entries = new Map<string, KeySet>();
  const lastAttempt = new Map<string, number>();
  const inflight = new Map<string, Promise<KeySet>>();
  const keyOf = (s: KeySource) => `${s.jwks_url ?? ''} ${s.discovery_url ?? ''}`;
  const now = () => deps.clock.now().getTime();
  let generation = 0;

  async function getJson(url: string): Promise<Record<string, unknown>> {
    try {
      const res = await outboundRequest(
        url,
        { headers: { accept: 'application/json' } },
        { allowPrivate: deps.allowPrivate, timeoutMs: deps.timeoutMs, maxResponseBytes: 512 * 1024 },
      );
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      const body = res.json<unknown>();
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('not a JSON object');
      return body as Record<string, unknown>;
    } catch (e) {
      throw new KeysUnavailableError(e instanceof Error ? e.message : 'fetch failed');
    }
  }

  async function load(source: KeySource): Promise<KeySet> {
    let jwksUrl = source.jwks_url;
    if (!jwksUrl) {
      const doc = await getJson(source.discovery_url ?? '');
      if (typeof doc.jwks_uri !== 'string') throw new KeysUnavailableError('discovery document has no jwks_uri');
      jwksUrl = doc.jwks_uri;
    }
    const jwks = await getJson(jwksUrl);
    if (!Array.isArray(jwks.keys)) throw new KeysUnavailableError('JWKS has no keys array');
    return { fetchedAt: now(), generation: ++generation, getKey: createLocalJWKSet(jwks as unknown as JSONWebKeySet) };
  }

  function fetchShared(source: KeySource): Promise<KeySet> {
    const key = keyOf(source);
    let p = inflight.get(key);
    if (!p) {
      lastAttempt.set(key, now());
      p = load(source)
        .then((set) => {
          entries.set(key, set);
          return set;
        })
        .finally(() => inflight.delete(key));
      inflight.set(key, p);
    }
    return p;
  }

  const coolingDown = (key: string) => now() - (lastAttempt.get(key) ?? -Infinity) < JWKS_COOLDOWN_MS;

  return {
    /** The cached keys, fetched when absent or older than the maximum age. */
    async current(source: KeySource): Promise<KeySet> {
      const key = keyOf(source);
      const set = entries.get(key);
      if (set && now() - set.fetchedAt < JWKS_MAX_AGE_MS) return set;
      if (inflight.has(key) || !coolingDown(key)) {
        try {
          return await fetchShared(source);
        } catch (e) {
          if (set) return set; // the provider is down: keep using the keys we had
          throw e;
        }
      }
      if (set) return set;
      throw new KeysUnavailableError('provider keys unavailable; retry shortly');
    },

    /** After an unknown key id: fresher keys, or null while the cooldown holds. */
    async refetch(source: KeySource, seen: KeySet): Promise<KeySet | null> {
      const key = keyOf(source);
      const set = entries.get(key);
      if (set && set.generation > seen.generation) return set; // someone refetched meanwhile
      if (inflight.has(key)) return fetchShared(source);
      if (coolingDown(key)) return null;
      return fetchShared(source);
    },
  };
}

export type JwksCache = ReturnType<typeof createJwksCache>;
