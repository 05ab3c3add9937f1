// Provisioning: the API has no sign-up, so organisations and users are made here, by the CLI
// and by the demo seed (main.ts). Every write is one transaction. Not a module (it serves no
// operation): it sits with the CLI, its main user, above the modules, and uses the orgs and
// identity modules through their index.ts (decision 0355).
import type { Db } from '../infra/db/index.ts';
import { createOrgStore, MODULES } from '../modules/orgs/index.ts';
import { createUserStore, hashPassword } from '../modules/identity/index.ts';
import { isRole, type Role } from '../platform/roles.ts';

export class ProvisioningError extends Error {}

export const DEMO_ORG = { id: 'demo-energy', name: 'Demo Energy Co' };
export const DEMO_ADMIN = { email: 'admin@demo-energy.example', password: 'demo-admin-password' };

const ORG_ID = /^[a-z0-9][a-z0-9-]{1,62}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function createProvisioning(db: Db) {
  return {
    async createOrg(input: { id: string; name: string; modules?: string[] }) {
      if (!ORG_ID.test(input.id)) {
        throw new ProvisioningError('--id must be 2-63 lowercase letters, digits or hyphens, starting with a letter or digit');
      }
      if (!input.name.trim()) throw new ProvisioningError('--name must not be empty');
      const modules = [...new Set(input.modules ?? [])].sort();
      for (const m of modules) {
        if (!(MODULES as readonly string[]).includes(m)) {
          throw new ProvisioningError(`unknown module "${m}" (known: ${MODULES.join(', ')})`);
        }
      }
      return createOrgStore(db).upsert({ id: input.id, name: input.name.trim(), modules });
    },
    async setModules(orgId: string, modules: string[]) {
      for (const m of modules) {
        if (!(MODULES as readonly string[]).includes(m)) {
          throw new ProvisioningError(`unknown module "${m}" (known: ${MODULES.join(', ')})`);
        }
      }
      const org = await createOrgStore(db).setModules(orgId, modules);
      if (!org) throw new ProvisioningError(`organisation ${orgId} does not exist`);
      return org;
    },
    /** Creates the user, or adds the membership (and updates flags) when the email exists. */
    async createUser(input: { orgId: string; email: string; password?: string; role: string; staff?: boolean; admin?: boolean }) {
      if (!EMAIL.test(input.email)) throw new ProvisioningError('--email must be an email address');
      if (!isRole(input.role)) throw new ProvisioningError('--role must be ORG_ADMIN, OPERATOR, ANALYST or VIEWER');
      if (input.password !== undefined && input.password.length < 12) {
        throw new ProvisioningError('--password must be at least 12 characters');
      }
      const passwordHash = input.password ? await hashPassword(input.password) : undefined;
      return db.tx(async (q) => {
        const orgs = createOrgStore(q);
        if (!(await orgs.get(input.orgId))) throw new ProvisioningError(`organisation ${input.orgId} does not exist`);
        const users = createUserStore(q);
        let user = await users.byEmail(input.email);
        let created = false;
        if (!user) {
          if (!passwordHash) throw new ProvisioningError('--password is required for a new user');
          user = await users.create({ email: input.email, passwordHash, staff: input.staff, admin: input.admin });
          created = true;
        } else {
          await users.update(user.id, { passwordHash, staff: input.staff || undefined, admin: input.admin || undefined });
        }
        await users.setMembership(user.id, input.orgId, input.role as Role);
        const fresh = (await users.byId(user.id))!;
        return {
          id: fresh.id,
          email: fresh.email,
          created,
          platform_staff: fresh.platform_staff,
          platform_admin: fresh.platform_admin,
          memberships: (await users.memberships(user.id)).map((m) => ({ org_id: m.org_id, role: m.role })),
        };
      });
    },
    /** The demo organisation with every module and an ORG_ADMIN; safe to run repeatedly. */
    async seedDemo() {
      const org = await createOrgStore(db).upsert({ ...DEMO_ORG, modules: [...MODULES] });
      const existing = await createUserStore(db).byEmail(DEMO_ADMIN.email);
      if (!existing) {
        await this.createUser({ orgId: org.id, email: DEMO_ADMIN.email, password: DEMO_ADMIN.password, role: 'ORG_ADMIN' });
      }
      return { organisation_id: org.id, email: DEMO_ADMIN.email, password: DEMO_ADMIN.password };
    },
  };
}
