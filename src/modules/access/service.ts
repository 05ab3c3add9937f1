// Site access rules: only members of the caller's organisation can hold a persona at its sites;
// every grant and removal is audited in the same transaction.
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { errors, fieldError } from '../../platform/errors.ts';
import type { AuditLog } from '../audit/index.ts';
import type { Members } from '../identity/index.ts';
import type { Queryable } from '../../infra/db/index.ts';
import { createSiteAccessStore, type SiteAccessRow } from './store.ts';
import { personaById } from './personas.ts';

/**
 * The grants with their members' emails (from identity, which owns the users: decision 0356), in
 * site order as the store gave them, then by email; a grant whose user is gone is left out.
 */
async function withEmails(q: Queryable, members: Members, rows: SiteAccessRow[]): Promise<(SiteAccessRow & { email: string })[]> {
  const users = await members.emails(q, [...new Set(rows.map((r) => r.user_id))]);
  const byId = new Map(users.map((u, i) => [u.id, { email: u.email, rank: i }]));
  const site = new Map<string, number>();
  for (const r of rows) if (!site.has(r.site_id)) site.set(r.site_id, site.size);
  return rows
    .filter((r) => byId.has(r.user_id))
    .map((r) => ({ ...r, email: byId.get(r.user_id)!.email }))
    .sort((a, b) => site.get(a.site_id)! - site.get(b.site_id)! || byId.get(a.user_id)!.rank - byId.get(b.user_id)!.rank);
}

export const grantView = (r: SiteAccessRow & { email: string }) => ({
  site_id: r.site_id,
  user_id: r.user_id,
  email: r.email,
  persona: r.persona,
  permissions: personaById(r.persona)?.permissions ?? [],
  granted_by: r.granted_by,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

export function createSiteAccess(deps: { db: Db; clock: Clock; audit: AuditLog; members: Members }) {
  const { db, clock, audit, members } = deps;
  const one = async (q: Queryable, orgId: string, siteId: string, userId: string) => {
    const row = await createSiteAccessStore(q).get(orgId, siteId, userId);
    return row ? ((await withEmails(q, members, [row]))[0] ?? null) : null;
  };

  return {
    async list(ctx: RequestContext, f: { site_id?: string; user_id?: string }) {
      return (await withEmails(db, members, await createSiteAccessStore(db).list(ctx.orgId, { siteId: f.site_id, userId: f.user_id }))).map(grantView);
    },

    async set(ctx: RequestContext, input: { site_id: string; user_id?: string; email?: string; persona: string }) {
      if ((input.user_id === undefined) === (input.email === undefined)) {
        throw errors.validation([fieldError(['body', 'user_id'], 'Send exactly one of user_id or email', input.user_id ?? null)]);
      }
      return db.tx(async (q) => {
        // A user of another organisation is indistinguishable from one that does not exist.
        const member = input.user_id
          ? (await members.isMember(q, ctx.orgId, input.user_id))
            ? { id: input.user_id }
            : null
          : await members.memberByEmail(q, ctx.orgId, input.email!);
        if (!member) {
          const loc = input.user_id ? 'user_id' : 'email';
          throw errors.validation([fieldError(['body', loc], 'Not a member of this organisation', input.user_id ?? input.email, 'not_a_member')]);
        }
        const store = createSiteAccessStore(q);
        const before = await store.get(ctx.orgId, input.site_id, member.id);
        await store.upsert(ctx.orgId, {
          siteId: input.site_id,
          userId: member.id,
          persona: input.persona,
          by: ctx.actor.kind === 'user' ? ctx.actor.userId : null,
          now: clock.now(),
        });
        await audit.record(q, ctx, {
          action: 'access.membership.set',
          targetType: 'site',
          targetId: input.site_id,
          details: { user_id: member.id, persona: input.persona, previous_persona: before?.persona ?? null },
        });
        return grantView((await one(q, ctx.orgId, input.site_id, member.id))!);
      });
    },

    async remove(ctx: RequestContext, siteId: string, userId: string): Promise<void> {
      await db.tx(async (q) => {
        const removed = await createSiteAccessStore(q).remove(ctx.orgId, siteId, userId);
        if (!removed) throw errors.notFound();
        await audit.record(q, ctx, {
          action: 'access.membership.remove',
          targetType: 'site',
          targetId: siteId,
          details: { user_id: userId, persona: removed.persona },
        });
      });
    },

    async mine(ctx: RequestContext) {
      const userId = ctx.actor.kind === 'user' ? ctx.actor.userId : '';
      const rows = await createSiteAccessStore(db).list(ctx.orgId, { userId });
      return {
        user_id: userId,
        sites: rows.map((r) => ({ site_id: r.site_id, persona: r.persona, permissions: personaById(r.persona)?.permissions ?? [] })),
      };
    },
  };
}

export type SiteAccess = ReturnType<typeof createSiteAccess>;
