// Verifies the credential on every non-public operation and builds the request context.
// The answers are the spec's, to the letter (concepts.md sections 5 and 7).
import { jwtVerify, errors as joseErrors, type JWTPayload } from 'jose';
import type { FastifyRequest } from 'fastify';
import { AppError } from './errors.ts';
import type { Operation, RequestContext, Actor, DeviceRefusal } from './operation.ts';
import { isRole, isReadScope, type DeviceScope, type Role, type Scope } from './roles.ts';
import type { Clock } from './clock.ts';

export interface KeyPrincipal {
  keyId: string;
  orgId: string;
  scopes: Scope[];
  environment: 'live' | 'sandbox';
}

/** Provided by the developer-tools module; until then every API key is refused. */
export interface ApiKeyAuthenticator {
  authenticate(presented: string): Promise<KeyPrincipal | null>;
}

export interface DevicePrincipal {
  credentialId: string;
  orgId: string;
  siteId: string;
  deviceIds: readonly string[] | null;
  scopes: DeviceScope[];
  refusals(assetIds: readonly string[]): Promise<Map<string, DeviceRefusal>>;
}

/** Provided by the device-credentials module; until then every device credential is refused. */
export interface DeviceAuthenticator {
  /** The credential text's prefix (`<API key prefix>dev`), without the underscore. */
  readonly prefix: string;
  authenticate(presented: string): Promise<DevicePrincipal | null>;
}

/** Provided by the identity module: sessions revoked by logout or refresh-token reuse. */
export interface SessionChecker {
  isRevoked(sessionId: string): Promise<boolean>;
}

export interface AccessClaims {
  sub: string;
  tenant_id?: string;
  org_id?: string;
  roles?: unknown;
  sid?: string;
  exp?: number;
  platform_staff?: boolean;
  platform_admin?: boolean;
}

export interface AuthDeps {
  jwtKey: Uint8Array;
  apiKeyPrefix: string;
  clock: Clock;
  apiKeys?: ApiKeyAuthenticator;
  devices?: DeviceAuthenticator;
  sessions?: SessionChecker;
  /** The declared read scopes, in the order a refusal names them. */
  readScopes: readonly string[];
}

const IAT_LEEWAY_S = 60;

/**
 * A compact JWS whose three parts are canonical base64url: only the alphabet, no padding, and no
 * stray bits in the last character. Base64 decoders ignore those bits, so without this one token
 * would have several spellings that all verify (the T-21 bit-flip test met one in about sixteen).
 */
export function isCanonicalCompactJws(token: string): boolean {
  const parts = token.split('.');
  if (parts.length !== 3) return false;
  return parts.every((p) => /^[A-Za-z0-9_-]*$/.test(p) && Buffer.from(p, 'base64url').toString('base64url') === p);
}

const unauthorized = (detail: string, code = 'unauthorized') => new AppError(401, detail, { code });
const forbidden = (detail: string, code = 'forbidden', extra?: Record<string, unknown>) => new AppError(403, detail, { code, extra });

export function ipOf(req: FastifyRequest): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

function headerValue(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Bearer tokens whose signature and claims jwtVerify accepted, per signing key (decision 0255):
 * the token text, which includes its signature, maps to its payload. A client sends the same access
 * token on every request until it expires, and WebCrypto's HMAC verification cost about 0.4 ms of
 * CPU a request. Only the time-dependent checks can change for a token already verified, so a
 * cached token gets them again, exactly as jwtVerify makes them: not before `nbf`, and expired
 * from `exp` on (whole seconds of the service clock). Failures are never cached. Bounded: the
 * oldest entry leaves when the cache is full.
 */
const verifiedTokens = new WeakMap<Uint8Array, Map<string, JWTPayload>>();
const VERIFIED_TOKENS_MAX = 10_000;

async function verifyAccessJws(token: string, deps: AuthDeps): Promise<JWTPayload> {
  let cache = verifiedTokens.get(deps.jwtKey);
  if (!cache) verifiedTokens.set(deps.jwtKey, (cache = new Map()));
  const now = deps.clock.now();
  const hit = cache.get(token);
  if (hit) {
    const nowS = Math.floor(now.getTime() / 1000);
    if (typeof hit.nbf === 'number' && hit.nbf > nowS) throw new Error('nbf in the future');
    if (typeof hit.exp === 'number' && hit.exp <= nowS) {
      cache.delete(token);
      throw new Error('expired');
    }
    return hit;
  }
  if (!isCanonicalCompactJws(token)) throw new Error('non-canonical base64url');
  const out = await jwtVerify(token, deps.jwtKey, {
    algorithms: ['HS256'],
    currentDate: now,
    requiredClaims: ['sub', 'exp', 'iat'],
  });
  if (cache.size >= VERIFIED_TOKENS_MAX) cache.delete(cache.keys().next().value!);
  cache.set(token, out.payload);
  return out.payload;
}

export async function authenticate(req: FastifyRequest, op: Operation, deps: AuthDeps): Promise<RequestContext> {
  const base = { requestId: String(req.id), ip: ipOf(req) };
  if (op.access.kind === 'public') return { ...base, orgId: '', actor: { kind: 'anonymous' } };

  const header = headerValue(req, 'authorization');
  if (header === undefined || header === '') throw unauthorized('Authorization header missing');
  const m = /^Bearer ([^\s]+)$/i.exec(header.trim());
  if (!m) throw unauthorized('Invalid authorization header');
  const token = m[1];
  const tenantHeader = headerValue(req, 'x-tenant-id');

  if (token.startsWith(`${deps.apiKeyPrefix}_`)) {
    return { ...base, ...(await authenticateKey(token, op, deps, tenantHeader)) };
  }
  if (deps.devices && token.startsWith(`${deps.devices.prefix}_`)) {
    return { ...base, ...(await authenticateDevice(token, op, deps.devices, req, tenantHeader)) };
  }
  if (op.access.kind === 'key' && !op.access.bearerRoles) {
    throw unauthorized('This operation requires an API key', 'api_key_required');
  }

  let claims: AccessClaims;
  try {
    const payload = await verifyAccessJws(token, deps);
    claims = payload as unknown as AccessClaims;
    // A token issued in the future (beyond clock skew) was not issued by us.
    const nowS = Math.floor(deps.clock.now().getTime() / 1000);
    if (typeof payload.iat !== 'number' || payload.iat > nowS + IAT_LEEWAY_S) throw new Error('iat in the future');
    if ((payload as { typ?: unknown }).typ !== undefined && (payload as { typ?: unknown }).typ !== 'access') {
      throw new Error('not an access token');
    }
  } catch (e) {
    if (e instanceof AppError) throw e;
    void joseErrors;
    throw unauthorized('Invalid or expired token', 'invalid_token');
  }

  const tenant = claims.tenant_id ?? tenantHeader;
  if (!tenant) throw unauthorized('Tenant missing', 'tenant_missing');
  if (tenantHeader !== undefined && claims.tenant_id !== undefined && tenantHeader !== claims.tenant_id) {
    throw forbidden('Tenant mismatch', 'tenant_mismatch');
  }
  if (!claims.org_id) throw new AppError(400, 'Organisation context missing', { code: 'organisation_context_missing' });
  if (tenant !== claims.org_id) throw forbidden('Tenant mismatch', 'tenant_mismatch');
  if (!Array.isArray(claims.roles) || claims.roles.length === 0) {
    throw forbidden('Roles missing on token', 'roles_missing');
  }
  if (claims.sid && deps.sessions && (await deps.sessions.isRevoked(claims.sid))) {
    throw unauthorized('Invalid or expired token', 'invalid_token');
  }
  const roles = claims.roles.filter(isRole) as Role[];
  const allowed = op.access.kind === 'bearer' ? op.access.roles : (op.access.bearerRoles ?? []);
  if (!roles.some((r) => allowed.includes(r))) throw forbidden('Insufficient permissions', 'insufficient_permissions');

  const actor: Actor = {
    kind: 'user',
    userId: claims.sub,
    roles,
    staff: claims.platform_staff === true,
    admin: claims.platform_admin === true,
    tokenId: claims.sid,
    ...(typeof claims.exp === 'number' && { expiresAt: new Date(claims.exp * 1000) }),
  };
  return { ...base, orgId: claims.org_id, actor };
}

async function authenticateKey(
  presented: string,
  op: Operation,
  deps: AuthDeps,
  tenantHeader: string | undefined,
): Promise<Pick<RequestContext, 'orgId' | 'actor'>> {
  if (op.access.kind !== 'key') {
    throw unauthorized('API keys are not accepted by this operation', 'api_key_not_accepted');
  }
  const principal = deps.apiKeys ? await deps.apiKeys.authenticate(presented) : null;
  if (!principal) throw unauthorized('Invalid or expired API key', 'invalid_api_key');
  if (tenantHeader !== undefined && tenantHeader !== principal.orgId) throw forbidden('Tenant mismatch', 'tenant_mismatch');
  if (principal.environment === 'sandbox' && !op.sandbox) {
    throw forbidden('Sandbox keys may only call the sandbox operations', 'sandbox_not_allowed');
  }
  const need = op.access.scope;
  const ok = need === 'any' || (need === 'read' ? principal.scopes.some(isReadScope) : principal.scopes.includes(need));
  if (!ok) {
    const required = need === 'read' ? deps.readScopes.join(' | ') : need;
    throw forbidden(`Missing scope: ${required}`, 'insufficient_scope', { required_scope: required });
  }
  return {
    orgId: principal.orgId,
    actor: { kind: 'key', keyId: principal.keyId, scopes: principal.scopes, environment: principal.environment },
  };
}

/**
 * A device credential (decision 0375): accepted only by operations that declare a device scope, for
 * the credential's own site. Refusals: 401 `device_credential_not_accepted` elsewhere, 401
 * `invalid_device_credential` when unknown, revoked, expired or rotated out; 403
 * `insufficient_scope` without the operation's scope, 403 `device_site_mismatch` for another site.
 */
async function authenticateDevice(
  presented: string,
  op: Operation,
  devices: DeviceAuthenticator,
  req: FastifyRequest,
  tenantHeader: string | undefined,
): Promise<Pick<RequestContext, 'orgId' | 'actor'>> {
  const admits = op.access.kind === 'bearer' ? op.access.device : undefined;
  if (!admits) throw unauthorized('Device credentials are not accepted by this operation', 'device_credential_not_accepted');
  const p = await devices.authenticate(presented);
  if (!p) throw unauthorized('Invalid, revoked or expired device credential', 'invalid_device_credential');
  if (tenantHeader !== undefined && tenantHeader !== p.orgId) throw forbidden('Tenant mismatch', 'tenant_mismatch');
  if (!p.scopes.includes(admits.scope)) {
    throw forbidden(`Missing scope: ${admits.scope}`, 'insufficient_scope', { required_scope: admits.scope });
  }
  if (admits.siteParam) {
    const params = (req.params ?? {}) as Record<string, unknown>;
    if (params[admits.siteParam] !== p.siteId) {
      throw forbidden('This device credential is bound to another site', 'device_site_mismatch');
    }
  }
  return {
    orgId: p.orgId,
    actor: { kind: 'device', credentialId: p.credentialId, siteId: p.siteId, deviceIds: p.deviceIds, scopes: p.scopes, refusals: p.refusals },
  };
}
