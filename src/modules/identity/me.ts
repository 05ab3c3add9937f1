// The identity context of the caller's token: who, which organisation, roles, memberships, flags.
import type { Db } from '../../infra/db/index.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { createUserStore } from './users-store.ts';
import { createSessionStore } from './sessions-store.ts';

export async function identityContext(db: Db, ctx: RequestContext) {
  if (ctx.actor.kind !== 'user') throw new Error('identityContext needs a user');
  const actor = ctx.actor;
  const users = createUserStore(db);
  const [user, session, orgName] = await Promise.all([
    users.byId(actor.userId),
    actor.tokenId ? createSessionStore(db).get(ctx.orgId, actor.tokenId) : null,
    users.organisationName(ctx.orgId),
  ]);
  const memberships = user ? await users.memberships(user.id) : [];
  return {
    user_id: actor.userId,
    email: user?.email ?? session?.email ?? null,
    organisation_id: ctx.orgId,
    organisation_name: orgName,
    roles: actor.roles,
    memberships: memberships.map((m) => ({ organisation_id: m.org_id, organisation_name: m.org_name, role: m.role })),
    platform_staff: actor.staff,
    platform_admin: actor.admin,
    auth_method: session?.method ?? null,
    session_id: session?.id ?? null,
  };
}
