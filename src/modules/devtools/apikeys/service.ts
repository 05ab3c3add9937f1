// API keys: issue (secret shown once), list, rotate, revoke, and the credential check the platform
// calls for every `Bearer <prefix>_...`. Rules are in docs/decisions/0081-api-key-lifecycle.md.
import type { JobUnits } from '../../../platform/job-units.ts';
import type { Db } from '../../../infra/db/index.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { RequestContext } from '../../../platform/operation.ts';
import type { ApiKeyAuthenticator, KeyPrincipal } from '../../../platform/auth.ts';
import { errors } from '../../../platform/errors.ts';
import { isReadScope, type Scope } from '../../../platform/roles.ts';
import type { AuditLog } from '../../audit/index.ts';
import type { OrgDirectory } from '../../orgs/index.ts';
import type { Config } from '../../../core/config.ts';
import { DAY_MS, iso, type Environment } from '../common.ts';
import { devtoolsErrors } from '../errors.ts';
import { displayKey, issueKey, parseKey, secretMatches } from './keys.ts';
import { madeBy, revokeCredential, rotateCredential, rotatingStatus as statusOf } from '../../../platform/rotating-credentials.ts';
import { keyStore, type KeyRow } from './store.ts';
import type { KeyAlerts } from './alerts.ts';

export const DEFAULT_LIFETIME_MS = 90 * DAY_MS;
export const MAX_LIFETIME_MS = 366 * DAY_MS;
export const MAX_OVERLAP_SECONDS = 7 * 86_400;
/** last_used_at is written at most this often per key and instance. */
const TOUCH_EVERY_MS = 60_000;

/** The hourly sync of every organisation's key alerts (a schedule). */
export const KEY_ALERTS_KIND = 'devtools.key-alerts';

export interface KeyDeps {
  db: Db;
  clock: Clock;
  audit: AuditLog;
  config: Config;
  keyAlerts: KeyAlerts;
  /** Per-organisation units of the hourly sync (decision 0285). */
  units: Pick<JobUnits, 'each'>;
  /** The organisation's plan limits, locked in the creating transaction. */
  orgs: Pick<OrgDirectory, 'lockPlanLimits'>;
}

export function createKeyService(deps: KeyDeps) {
  const { db, clock, audit, config, keyAlerts, orgs } = deps;
  const prefix = config.apiKeyPrefix;
  const touched = new Map<string, number>();

  const view = (k: KeyRow, now = clock.now()) => ({
    id: k.id,
    name: k.name,
    environment: k.environment,
    scopes: k.scopes,
    key_hint: displayKey(prefix, k.environment, k.id, k.secret_hint),
    status: statusOf(k, now),
    created_at: iso(k.created_at)!,
    expires_at: iso(k.expires_at)!,
    revoked_at: iso(k.revoked_at),
    rotated_at: iso(k.rotated_at),
    replaced_by: k.replaced_by,
    overlap_until: iso(k.overlap_until),
    last_used_at: iso(k.last_used_at),
  });

  function checkScopes(env: Environment, scopes: string[]) {
    if (env === 'sandbox') {
      const bad = scopes.filter((s) => !isReadScope(s));
      if (bad.length) {
        throw devtoolsErrors.invalidField(['body', 'scopes'], `A sandbox key holds read scopes only (not ${bad.join(', ')})`, scopes);
      }
    }
  }

  function checkExpiry(expiresAt: Date, now: Date, loc: (string | number)[]) {
    if (expiresAt <= now) throw devtoolsErrors.invalidField(loc, 'expires_at must be in the future', expiresAt.toISOString());
    if (expiresAt.getTime() - now.getTime() > MAX_LIFETIME_MS) {
      throw devtoolsErrors.invalidField(loc, 'expires_at must be at most 366 days ahead', expiresAt.toISOString());
    }
  }

  return {
    view,

    async list(ctx: RequestContext, env?: Environment) {
      const now = clock.now();
      return (await keyStore.list(db, ctx.orgId, env)).map((k) => view(k, now));
    },

    async create(ctx: RequestContext, env: Environment, body: { name: string; scopes: string[]; expires_at?: string }) {
      const now = clock.now();
      const scopes = [...new Set(body.scopes)];
      checkScopes(env, scopes);
      const expiresAt = body.expires_at ? new Date(body.expires_at) : new Date(now.getTime() + DEFAULT_LIFETIME_MS);
      checkExpiry(expiresAt, now, ['body', 'expires_at']);
      const issued = issueKey(prefix, env);
      const row = await db.tx(async (q) => {
        const limits = await orgs.lockPlanLimits(q, ctx.orgId);
        if (!limits) throw errors.notFound();
        const limit = limits.api_keys;
        if (typeof limit === 'number' && (await keyStore.countValid(q, ctx.orgId, now)) >= limit) {
          throw errors.planLimit('api_keys', limit, `${config.publicDocsOrigin}/docs/plans`);
        }
        const k = await keyStore.insert(q, ctx.orgId, {
          id: issued.id,
          name: body.name,
          environment: env,
          scopes,
          secret_hash: issued.hash,
          secret_hint: issued.hint,
          created_at: now,
          created_by: madeBy(ctx),
          expires_at: expiresAt,
        });
        await audit.record(q, ctx, {
          action: 'apikey.create',
          targetType: 'api_key',
          targetId: k.id,
          details: { environment: env, scopes, expires_at: expiresAt.toISOString() },
        });
        await keyAlerts.sync(q, ctx.orgId, now);
        return k;
      });
      return { ...view(row, now), secret: issued.key };
    },

    async rotate(ctx: RequestContext, id: string, body: { overlap_seconds?: number; expires_at?: string } | null) {
      const now = clock.now();
      const overlap = body?.overlap_seconds ?? 0;
      const issued = { value: undefined as ReturnType<typeof issueKey> | undefined };
      const out = await db.tx(async (q) => {
        const rotated = await rotateCredential(q, ctx.orgId, id, {
          store: keyStore,
          now,
          maxLifetimeMs: MAX_LIFETIME_MS,
          overlapSeconds: overlap,
          expiresAt: body?.expires_at,
          notActive: devtoolsErrors.keyNotActive,
          check: (expiresAt) => checkExpiry(expiresAt, now, ['body', 'expires_at']),
          createdBy: madeBy(ctx),
          issue: (old) => {
            issued.value = issueKey(prefix, old.environment);
            return issued.value;
          },
          audit: (old, details) => audit.record(q, ctx, { action: 'apikey.rotate', targetType: 'api_key', targetId: old.id, details }),
        });
        await keyAlerts.sync(q, ctx.orgId, now);
        return { fresh: rotated.next, prev: rotated.prev };
      });
      return { ...view(out.fresh, now), secret: issued.value!.key, predecessor: view(out.prev, now) };
    },

    async revoke(ctx: RequestContext, id: string) {
      const now = clock.now();
      const { row } = await db.tx((q) =>
        revokeCredential(q, ctx.orgId, id, {
          store: keyStore,
          now,
          audit: async (details) => {
            await audit.record(q, ctx, { action: 'apikey.revoke', targetType: 'api_key', targetId: id, ...details });
            await keyAlerts.sync(q, ctx.orgId, now);
          },
        }),
      );
      return view(row, now);
    },

    /** Scheduled: every organisation holding keys. */
    /** Every organisation's key alerts, each organisation its own unit (decision 0285). */
    async syncAllAlerts() {
      const now = clock.now();
      await deps.units.each(
        KEY_ALERTS_KIND,
        await keyStore.orgsWithKeys(db),
        (orgId) => ({ orgId }),
        (orgId) => db.tx((q) => keyAlerts.sync(q, orgId, now)),
      );
    },

    authenticator: {
      async authenticate(presented: string): Promise<KeyPrincipal | null> {
        const parsed = parseKey(prefix, presented);
        if (!parsed) return null;
        const row = await keyStore.byIdForAuth(db, parsed.id);
        const match = secretMatches(parsed.secret, row?.secret_hash ?? null);
        if (!row || !match || row.environment !== parsed.env) return null;
        const now = clock.now();
        const status = statusOf(row, now);
        if (status !== 'active' && status !== 'rotating') return null;
        const last = touched.get(row.id) ?? 0;
        if (now.getTime() - last >= TOUCH_EVERY_MS) {
          touched.set(row.id, now.getTime());
          await keyStore.touch(db, row.org_id, row.id, now).catch(() => {});
        }
        return { keyId: row.id, orgId: row.org_id, scopes: row.scopes as Scope[], environment: row.environment };
      },
    } satisfies ApiKeyAuthenticator,

    /** The key row behind a request (partner `me`). */
    async get(orgId: string, id: string) {
      const k = await keyStore.get(db, orgId, id);
      return k ? view(k) : null;
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
