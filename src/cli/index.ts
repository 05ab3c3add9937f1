// Provisioning and operations CLI. Uses the server's configuration; prints JSON.
//   npm run cli -- org create --id ID --name NAME [--modules field,crm,ems/routing]
//   npm run cli -- org modules --id ID --modules field,crm
//   npm run cli -- org list
//   npm run cli -- user create --org ID --email EMAIL --password PASSWORD --role ROLE [--staff] [--admin]
//   npm run cli -- seed-demo
//   npm run cli -- migrate
import { parseArgs } from 'node:util';
import { loadConfig, ConfigError } from '../config.ts';
import { openDb } from '../infra/open.ts';
import { migrate } from '../infra/db/migrate.ts';
import { moduleMigrations } from '../modules/index.ts';
import { StoreLockedError } from '../infra/db/lock.ts';
import { createProvisioning, ProvisioningError } from '../modules/provisioning/service.ts';
import { createOrgStore } from '../modules/orgs/index.ts';

const USAGE = `usage:
  cli org create --id ID --name NAME [--modules field,crm,ems/routing]
  cli org modules --id ID --modules LIST
  cli org list
  cli user create --org ID --email EMAIL --password PASSWORD --role ORG_ADMIN|OPERATOR|ANALYST|VIEWER [--staff] [--admin]
  cli seed-demo
  cli migrate`;

class UsageError extends Error {}

function list(v: string | undefined): string[] {
  return (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

function need(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

async function run(argv: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      id: { type: 'string' },
      name: { type: 'string' },
      modules: { type: 'string' },
      org: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      role: { type: 'string' },
      staff: { type: 'boolean' },
      admin: { type: 'boolean' },
    },
  });
  const command = positionals.join(' ');
  const known = ['org create', 'org modules', 'org list', 'user create', 'seed-demo', 'migrate'];
  if (!known.includes(command)) throw new UsageError(command ? `unknown command "${command}"` : 'no command given');

  const config = loadConfig();
  const { db, release } = await openDb(config, { holder: 'cli' });
  try {
    await migrate(db, moduleMigrations);
    const p = createProvisioning(db);
    switch (command) {
      case 'migrate':
        return { migrated: true };
      case 'org create':
        return await p.createOrg({ id: need(values, 'id'), name: need(values, 'name'), modules: list(values.modules) });
      case 'org modules':
        return await p.setModules(need(values, 'id'), list(values.modules));
      case 'org list':
        return await createOrgStore(db).list();
      case 'user create':
        return await p.createUser({
          orgId: need(values, 'org'),
          email: need(values, 'email'),
          password: values.password,
          role: need(values, 'role'),
          staff: values.staff,
          admin: values.admin,
        });
      case 'seed-demo':
        return await p.seedDemo();
    }
  } finally {
    await db.close();
    release();
  }
}

run(process.argv.slice(2)).then(
  (out) => {
    console.log(JSON.stringify(out, null, 2));
  },
  (e) => {
    const known = e instanceof UsageError || e instanceof ProvisioningError || e instanceof ConfigError || e instanceof StoreLockedError;
    const message = known ? e.message : `unexpected failure: ${(e as Error).message}`;
    console.error(JSON.stringify({ error: message }));
    if (e instanceof UsageError) console.error(USAGE);
    process.exit(e instanceof StoreLockedError ? 3 : known ? 2 : 1);
  },
);
