// Single sign-on: an organisation administrator configures one identity provider (tenant id,
// issuer, application id, where its keys are published) and group-to-role mappings. An id_token
// becomes a session only when every check of concepts.md section 5.6 holds.
import { randomUUID } from 'node:crypto';
import { decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { Role } from '../../platform/roles.ts';
import { errors, fieldError, type FieldError } from '../../platform/errors.ts';
import { checkUrl } from '../../infra/outbound/http-client.ts';
import { runUnscoped } from '../../infra/db/scope.ts';
import type { AuditLog } from '../audit/index.ts';
import { createSsoStore, type MappingRow, type ProviderInput, type ProviderRow } from './sso-store.ts';
import { KeysUnavailableError, type JwksCache, type KeySet } from './sso-keys.ts';
import { identityErrors } from './errors.ts';
import type { Sessions, TokenResponse } from './sessions.ts';

const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];
const CLOCK_TOLERANCE_S = 30;

export interface SsoDeps {
  db: Db;
  clock: Clock;
  audit: AuditLog;
  sessions: Sessions;
  keys: JwksCache;
  allowPrivateOutbound: boolean;
}

const refused = identityErrors.ssoRefused;

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

export function providerView(p: ProviderRow | null) {
  return {
    configured: p !== null,
    tid: p?.tid ?? null,
    issuer: p?.issuer ?? null,
    application_id: p?.application_id ?? null,
    jwks_url: p?.jwks_url ?? null,
    discovery_url: p?.discovery_url ?? null,
    enabled: p?.enabled ?? false,
    updated_at: p?.updated_at.toISOString() ?? null,
    updated_by: p?.updated_by ?? null,
  };
}

export const mappingView = (m: MappingRow) => ({
  id: m.id,
  group_id: m.group_id,
  role: m.role,
  created_by: m.created_by,
  created_at: m.created_at.toISOString(),
});

export function createSso(deps: SsoDeps) {
  const { db, clock, audit, sessions, keys } = deps;
  const actorId = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : null);

  function checkKeyUrls(input: ProviderInput) {
    const problems: FieldError[] = [];
    if (!input.jwks_url && !input.discovery_url) {
      problems.push(fieldError(['body', 'jwks_url'], 'Either jwks_url or discovery_url is required', null, 'missing'));
    }
    for (const name of ['jwks_url', 'discovery_url'] as const) {
      const v = input[name];
      if (!v) continue;
      try {
        checkUrl(v, { allowPrivate: deps.allowPrivateOutbound, requireHttps: true });
      } catch (e) {
        problems.push(fieldError(['body', name], `URL not allowed: ${(e as Error).message}`, v, 'url_not_allowed'));
      }
    }
    if (problems.length) throw errors.validation(problems);
  }

  /** The verified payload, or why the token does not verify. */
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
      if (e instanceof KeysUnavailableError) throw identityErrors.idpUnavailable();
      return { reason: reasonOf(e) };
    }
  }

  return {
    async provider(ctx: RequestContext) {
      return providerView(await createSsoStore(db).provider(ctx.orgId));
    },

    async setProvider(ctx: RequestContext, input: ProviderInput) {
      checkKeyUrls(input);
      const taken = () => errors.conflict('This identity provider tenant is configured by another organisation', 'tid_taken');
      // A tenant id names one organisation, so uniqueness is checked across organisations: outside
      // the request's row-level scope, and answering nothing but yes or no.
      if (await runUnscoped(() => createSsoStore(db).tidTakenElsewhere(ctx.orgId, input.tid))) throw taken();
      const row = await db.tx(async (q) => {
        const store = createSsoStore(q);
        const before = await store.provider(ctx.orgId);
        const saved = await store.upsertProvider(ctx.orgId, input, actorId(ctx), clock.now());
        await audit.record(q, ctx, {
          action: 'auth.sso.provider.update',
          targetType: 'sso_provider',
          targetId: input.tid,
          details: { created: before === null, ...input },
        });
        return saved;
      }).catch((e: unknown) => {
        // Another organisation took the tenant id between the check and the write.
        if ((e as { code?: string }).code === '23505') throw taken();
        throw e;
      });
      return providerView(row);
    },

    async mappings(ctx: RequestContext) {
      return (await createSsoStore(db).mappings(ctx.orgId)).map(mappingView);
    },

    async addMapping(ctx: RequestContext, input: { group_id: string; role: Role }) {
      const row = await db.tx(async (q) => {
        const m = await createSsoStore(q).addMapping(ctx.orgId, {
          id: randomUUID(),
          groupId: input.group_id,
          role: input.role,
          by: actorId(ctx),
          now: clock.now(),
        });
        if (!m) throw errors.conflict('This group already maps to this role', 'mapping_exists');
        await audit.record(q, ctx, {
          action: 'auth.sso.mapping.create',
          targetType: 'sso_mapping',
          targetId: m.id,
          details: { group_id: m.group_id, role: m.role },
        });
        return m;
      });
      return mappingView(row);
    },

    async deleteMapping(ctx: RequestContext, id: string): Promise<void> {
      await db.tx(async (q) => {
        const m = await createSsoStore(q).deleteMapping(ctx.orgId, id);
        if (!m) throw errors.notFound();
        await audit.record(q, ctx, {
          action: 'auth.sso.mapping.delete',
          targetType: 'sso_mapping',
          targetId: m.id,
          details: { group_id: m.group_id, role: m.role },
        });
      });
    },

    async exchange(ctx: RequestContext, idToken: string): Promise<TokenResponse> {
      let unverified: JWTPayload;
      try {
        unverified = decodeJwt(idToken);
      } catch {
        throw refused(401, 'malformed_token');
      }
      const tid = unverified.tid;
      const provider = typeof tid === 'string' && tid ? await createSsoStore(db).providerByTid(tid) : null;
      if (!provider || !provider.enabled) throw refused(404, 'tenant_not_configured');
      const orgId = provider.org_id;
      const refuse = async (status: 401 | 403, reason: string, extra: Record<string, unknown> = {}) => {
        await audit.record(db, { orgId, actorType: 'anonymous', actorId: null, requestId: ctx.requestId, ip: ctx.ip }, {
          action: 'auth.sso.refused',
          details: { reason, tid, ...extra },
        });
        return refused(status, reason, extra);
      };

      const verified = await verify(idToken, provider);
      if ('reason' in verified) throw await refuse(401, verified.reason);
      const { payload } = verified;
      if (payload.tid !== provider.tid) throw await refuse(401, 'tenant_mismatch');
      // Too many groups for the token: the list is elsewhere and incomplete here. Refuse.
      const claimNames = payload._claim_names as Record<string, unknown> | undefined;
      if (payload.hasgroups === true || (claimNames && typeof claimNames === 'object' && 'groups' in claimNames)) {
        throw await refuse(403, 'groups_overage');
      }
      const groups = Array.isArray(payload.groups) ? payload.groups.filter((g): g is string => typeof g === 'string') : [];
      const subject = typeof payload.oid === 'string' ? payload.oid : payload.sub;
      if (!subject) throw await refuse(401, 'subject_missing');

      const roles = await createSsoStore(db).rolesFor(orgId, groups);
      if (roles.length === 0) throw await refuse(403, 'no_mapped_group', { groups });

      return db.tx(async (q) => {
        const userId = `sso:${provider.tid}:${subject}`;
        const email = [payload.email, payload.preferred_username, payload.upn].find((v) => typeof v === 'string') as string | undefined;
        const { sessionId, tokens } = await sessions.start(q, orgId, { userId, method: 'sso', email, roles, ssoGroups: groups });
        await audit.record(q, { orgId, actorType: 'user', actorId: userId, requestId: ctx.requestId, ip: ctx.ip }, {
          action: 'auth.sso.login',
          targetType: 'session',
          targetId: sessionId,
          details: { tid: provider.tid, roles, groups },
        });
        return tokens;
      });
    },
  };
}

export type Sso = ReturnType<typeof createSso>;
