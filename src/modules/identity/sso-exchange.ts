// The id_token exchange (concepts.md 5.6). The token's tenant id (tid) names the organisation whose
// claim on that tenant is verified; while no claim is, the token is tried against every pending
// claim, and the one it passes in full becomes the verified one (decision 0029): proof of control
// is one completed sign-in, never being first to type the tenant id.
import { decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { Role } from '../../platform/roles.ts';
import type { AuditLog } from '../audit/index.ts';
import { createSsoStore, type ProviderRow } from './sso-store.ts';
import { KeysUnavailableError, type JwksCache, type KeySet } from './sso-keys.ts';
import { identityErrors } from './errors.ts';
import { userActor, type Sessions, type TokenResponse } from './sessions.ts';

const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];
const CLOCK_TOLERANCE_S = 30;

export interface ExchangeDeps {
  db: Db;
  clock: Clock;
  audit: AuditLog;
  sessions: Sessions;
  keys: JwksCache;
}

interface Admitted {
  provider: ProviderRow;
  payload: JWTPayload;
  subject: string;
  groups: string[];
  roles: Role[];
}
interface Refusal {
  provider: ProviderRow;
  status: 401 | 403 | 502;
  reason: string;
  extra?: Record<string, unknown>;
}

const refused = identityErrors.ssoRefused;
const notConfigured = () => refused(404, 'tenant_not_configured');

/** Why a token did not verify, in the words of the refusal's `reason`. */
function reasonOf(e: unknown): string {
  if (e instanceof joseErrors.JWTExpired) return 'token_expired';
  if (e instanceof joseErrors.JWTClaimValidationFailed) {
    if (e.claim === 'iss') return 'issuer_mismatch';
    if (e.claim === 'aud') return 'audience_mismatch';
    if (e.claim === 'nbf') return 'token_not_yet_valid';
    return 'invalid_claims';
  }
  if (e instanceof joseErrors.JWSSignatureVerificationFailed) return 'invalid_signature';
  if (e instanceof joseErrors.JWKSNoMatchingKey) return 'unknown_signing_key';
  if (e instanceof joseErrors.JOSEAlgNotAllowed) return 'algorithm_not_allowed';
  return 'malformed_token';
}

export function createSsoExchange(deps: ExchangeDeps) {
  const { db, clock, audit, sessions, keys } = deps;

  /** The verified payload, or why the token does not verify against this provider's keys. */
  async function verify(token: string, provider: ProviderRow): Promise<{ payload: JWTPayload } | { reason: string }> {
    const attempt = (set: KeySet) =>
      jwtVerify(token, set.getKey, {
        issuer: provider.issuer,
        audience: provider.application_id,
        algorithms: ALGORITHMS,
        currentDate: clock.now(),
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['exp'],
      });
    try {
      const set = await keys.current(provider);
      try {
        return { payload: (await attempt(set)).payload };
      } catch (e) {
        if (!(e instanceof joseErrors.JWKSNoMatchingKey)) throw e;
        // Keys may have rotated: look again, within the cooldown.
        const fresh = await keys.refetch(provider, set);
        if (!fresh) throw e;
        return { payload: (await attempt(fresh)).payload };
      }
    } catch (e) {
      if (e instanceof KeysUnavailableError) throw e;
      return { reason: reasonOf(e) };
    }
  }

  /** Every check of 5.6 against one organisation's configuration. */
  async function admit(token: string, provider: ProviderRow): Promise<Admitted | Refusal> {
    let verified;
    try {
      verified = await verify(token, provider);
    } catch {
      return { provider, status: 502, reason: 'keys_unavailable' };
    }
    if ('reason' in verified) return { provider, status: 401, reason: verified.reason };
    const { payload } = verified;
    if (payload.tid !== provider.tid) return { provider, status: 401, reason: 'tenant_mismatch' };
    // Too many groups for the token: the list is elsewhere and incomplete here. Refuse.
    const claimNames = payload._claim_names as Record<string, unknown> | undefined;
    if (payload.hasgroups === true || (claimNames && typeof claimNames === 'object' && 'groups' in claimNames)) {
      return { provider, status: 403, reason: 'groups_overage' };
    }
    const groups = Array.isArray(payload.groups) ? payload.groups.filter((g): g is string => typeof g === 'string') : [];
    const subject = typeof payload.oid === 'string' ? payload.oid : payload.sub;
    if (!subject) return { provider, status: 401, reason: 'subject_missing' };
    const roles = await createSsoStore(db).rolesFor(provider.org_id, groups);
    if (roles.length === 0) return { provider, status: 403, reason: 'no_mapped_group', extra: { groups } };
    return { provider, payload, subject, groups, roles };
  }

  async function auditRefusal(ctx: RequestContext, r: Refusal, tid: unknown) {
    await audit.record(
      db,
      { orgId: r.provider.org_id, actorType: 'anonymous', actorId: null, requestId: ctx.requestId, ip: ctx.ip },
      {
        action: 'auth.sso.refused',
        details: { reason: r.reason, tid, ...r.extra },
      },
    );
  }

  function refusalError(r: Refusal) {
    return r.status === 502 ? identityErrors.idpUnavailable() : refused(r.status, r.reason, r.extra);
  }

  async function startSession(ctx: RequestContext, a: Admitted, verifiedNow: boolean): Promise<TokenResponse> {
    const { provider, payload } = a;
    const orgId = provider.org_id;
    const userId = `sso:${provider.tid}:${a.subject}`;
    const who = userActor(orgId, userId, ctx);
    return db
      .tx(async (q) => {
        if (verifiedNow) {
          // The unique index on verified tenants settles two claims completing at once.
          const won = await createSsoStore(q).markVerified(orgId, provider.tid, userId, clock.now());
          if (!won) throw notConfigured();
          await audit.record(q, who, {
            action: 'auth.sso.provider.verify',
            targetType: 'sso_provider',
            targetId: provider.tid,
            details: { tid: provider.tid, method: 'sign_in' },
          });
        }
        const email = [payload.email, payload.preferred_username, payload.upn].find((v) => typeof v === 'string') as string | undefined;
        const { sessionId, tokens } = await sessions.start(q, orgId, { userId, method: 'sso', email, roles: a.roles, ssoGroups: a.groups });
        await audit.record(q, who, {
          action: 'auth.sso.login',
          targetType: 'session',
          targetId: sessionId,
          details: { tid: provider.tid, roles: a.roles, groups: a.groups },
        });
        return tokens;
      })
      .catch((e: unknown) => {
        if ((e as { code?: string }).code === '23505') throw notConfigured();
        throw e;
      });
  }

  return async function exchange(ctx: RequestContext, idToken: string): Promise<TokenResponse> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(idToken);
    } catch {
      throw refused(401, 'malformed_token');
    }
    const tid = unverified.tid;
    if (typeof tid !== 'string' || !tid) throw notConfigured();
    const store = createSsoStore(db);

    const owner = await store.verifiedByTid(tid);
    if (owner) {
      if (!owner.enabled) throw notConfigured();
      const out = await admit(idToken, owner);
      if ('status' in out) {
        await auditRefusal(ctx, out, tid);
        throw refusalError(out);
      }
      return startSession(ctx, out, false);
    }

    // No organisation has proven the tenant yet: the token may prove one pending claim.
    const claims = await store.pendingByTid(tid);
    if (claims.length === 0) throw notConfigured();
    const outcomes = await Promise.all(claims.map((p) => admit(idToken, p)));
    const admitted = outcomes.filter((o): o is Admitted => !('status' in o));
    if (admitted.length === 1) return startSession(ctx, admitted[0], true);
    for (const o of outcomes) {
      await auditRefusal(ctx, 'status' in o ? o : { provider: o.provider, status: 401, reason: 'tenant_claim_ambiguous' }, tid);
    }
    // Several claims: say nothing about any one of them (each organisation's log has its reason).
    if (claims.length > 1) throw notConfigured();
    throw refusalError(outcomes[0] as Refusal);
  };
}
