// Single sign-on: an organisation administrator configures one identity provider (tenant id,
// issuer, application id, where its keys are published) and group-to-role mappings. Naming a
// tenant id makes a pending claim; it counts once proven by a completed sign-in or approved by a
// platform administrator (decision 0029). The exchange itself is in sso-exchange.ts.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { Role } from '../../platform/roles.ts';
import { errors, fieldError, type FieldError } from '../../platform/errors.ts';
import { checkUrl } from '../../infra/outbound/http-client.ts';
import { runUnscoped } from '../../infra/db/scope.ts';
import type { AuditLog } from '../audit/index.ts';
import { createSsoStore, type MappingRow, type ProviderInput, type ProviderRow } from './sso-store.ts';
import type { JwksCache } from './sso-keys.ts';
import { userActor, type Sessions } from './sessions.ts';
import { createSsoExchange } from './sso-exchange.ts';

export interface SsoDeps {
  db: Db;
  clock: Clock;
  audit: AuditLog;
  sessions: Sessions;
  keys: JwksCache;
  allowPrivateOutbound: boolean;
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
    verification: p ? (p.verified_at ? 'verified' : 'pending') : null,
    verified_at: p?.verified_at?.toISOString() ?? null,
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

  return {
    async provider(ctx: RequestContext) {
      return providerView(await createSsoStore(db).provider(ctx.orgId));
    },

    async setProvider(ctx: RequestContext, input: ProviderInput) {
      checkKeyUrls(input);
      // No look at other organisations: a tenant id another one holds is saved as a pending claim
      // like any other, so the answer tells nothing about who else uses it.
      const row = await db.tx(async (q) => {
        const store = createSsoStore(q);
        const before = await store.provider(ctx.orgId);
        const saved = await store.upsertProvider(ctx.orgId, input, actorId(ctx), clock.now());
        await audit.record(q, ctx, {
          action: 'auth.sso.provider.update',
          targetType: 'sso_provider',
          targetId: input.tid,
          details: { created: before === null, ...input, verification: saved.verified_at ? 'verified' : 'pending' },
        });
        return saved;
      });
      return providerView(row);
    },

    /**
     * A platform administrator approves an organisation's claim on its tenant: it becomes the
     * verified one, and a verified claim another organisation held on that tenant is withdrawn.
     */
    async approveProvider(ctx: RequestContext, orgId: string) {
      const by = actorId(ctx) ?? 'platform-admin';
      return runUnscoped(() =>
        db.tx(async (q) => {
          const store = createSsoStore(q);
          const claim = await store.provider(orgId);
          if (!claim) throw errors.notFound();
          if (claim.verified_at) return providerView(claim);
          const released = await store.releaseTid(claim.tid, orgId);
          const row = await store.markVerified(orgId, claim.tid, by, clock.now());
          if (!row) throw errors.conflict('The claim changed while it was being approved; try again', 'sso_claim_changed');
          const as = (org: string) => userActor(org, by, ctx);
          await audit.record(q, as(orgId), {
            action: 'auth.sso.provider.verify',
            targetType: 'sso_provider',
            targetId: claim.tid,
            details: { tid: claim.tid, method: 'platform_admin' },
          });
          if (released) {
            await audit.record(q, as(released), {
              action: 'auth.sso.provider.release',
              targetType: 'sso_provider',
              targetId: claim.tid,
              details: { tid: claim.tid },
            });
          }
          return providerView(row);
        }),
      );
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

    exchange: createSsoExchange({ db, clock, audit, sessions, keys }),
  };
}

export type Sso = ReturnType<typeof createSso>;
