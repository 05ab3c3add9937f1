// Provisioning and operations CLI. Uses the server's configuration; prints JSON.
//   npm run cli -- org create --id ID --name NAME [--modules field,crm,ems/routing]
//   npm run cli -- org modules --id ID --modules field,crm
//   npm run cli -- org list
//   npm run cli -- user create --org ID --email EMAIL --password PASSWORD --role ROLE [--staff] [--admin]
//   npm run cli -- seed-demo
//   npm run cli -- migrate
//   npm run cli -- job-units list [--kind KIND] [--org ID] [--quarantined]
//   npm run cli -- job-units release --kind KIND [--org ID] [--unit KEY]
//   npm run cli -- --help | help | COMMAND --help
import { parseArgs } from 'node:util';
import { loadConfig, ConfigError } from '../config.ts';
import { openDb } from '../infra/open.ts';
import { migrate } from '../infra/db/migrate.ts';
import { moduleMigrations } from '../modules/index.ts';
import { StoreLockedError } from '../infra/db/lock.ts';
import { createProvisioning, ProvisioningError } from './provisioning.ts';
import { createOrgStore } from '../modules/orgs/index.ts';
import { listUnits, releaseUnits } from '../platform/job-units.ts';

interface Command {
  usage: string;
  summary: string;
  options?: [string, string][];
}

/** Every command, with what `--help` prints for it. */
const COMMANDS: Record<string, Command> = {
  'org create': {
    usage: 'cli org create --id ID --name NAME [--modules LIST]',
    summary: 'Creates an organisation (there is no sign-up).',
    options: [
      ['--id ID', '2-63 lowercase letters, digits or hyphens; demo-* ids are demo-realm organisations'],
      ['--name NAME', 'display name'],
      ['--modules LIST', 'comma-separated modules to enable, e.g. field,crm,ems/routing'],
    ],
  },
  'org modules': {
    usage: 'cli org modules --id ID --modules LIST',
    summary: "Replaces an organisation's enabled modules.",
    options: [
      ['--id ID', 'the organisation'],
      ['--modules LIST', 'comma-separated modules (empty string: none)'],
    ],
  },
  'org list': { usage: 'cli org list', summary: 'Lists the organisations as JSON.' },
  'user create': {
    usage: 'cli user create --org ID --email EMAIL --password PASSWORD --role ROLE [--staff] [--admin]',
    summary: 'Creates a user in an organisation, or adds the membership (or changes the role) of an existing email.',
    options: [
      ['--org ID', 'the organisation'],
      ['--email EMAIL', "the user's email (sign-in name)"],
      ['--password PASSWORD', 'at least 12 characters; optional for an existing user (the password is kept)'],
      ['--role ROLE', 'ORG_ADMIN, OPERATOR, ANALYST or VIEWER'],
      ['--staff', 'platform staff'],
      ['--admin', 'platform administrator'],
    ],
  },
  'seed-demo': { usage: 'cli seed-demo', summary: 'Creates the demo organisation and its admin user (not in production); prints the sign-in.' },
  'job-units list': {
    usage: 'cli job-units list [--kind KIND] [--org ID] [--quarantined]',
    summary:
      'Lists the failing units of cross-organisation background jobs (one organisation, or one key of it): attempts, error class and text, first and last failure, next try, quarantined since (decision 0285).',
    options: [
      ['--kind KIND', 'one job kind, e.g. energy.refresh'],
      ['--org ID', 'one organisation'],
      ['--quarantined', 'only the quarantined units (attempts spent)'],
    ],
  },
  'job-units release': {
    usage: 'cli job-units release --kind KIND [--org ID] [--unit KEY]',
    summary:
      'Releases the matching units (after fixing the data they failed on): out of quarantine, attempts reset, tried at the next run of the job (a success forgets them); prints the units released.',
    options: [
      ['--kind KIND', 'the job kind (required)'],
      ['--org ID', 'one organisation (default: every failing unit of the kind)'],
      ['--unit KEY', "one unit key within the organisation ('' is the whole organisation)"],
    ],
  },
  migrate: { usage: 'cli migrate', summary: 'Applies the SQL migrations to the configured store (DATABASE_URL or DATA_DIR).' },
};

const COMMON = `Uses the server's configuration (DATABASE_URL or DATA_DIR) and prints JSON. Errors: one JSON
line on stderr, exit code 2 (3 when the embedded store is held by a running server).`;

const USAGE = `usage:\n${Object.values(COMMANDS)
  .map((c) => `  ${c.usage}`)
  .join('\n')}\n\n'cli COMMAND --help' describes one command.`;

/** Help for a command, a group ("org", "user") or everything; undefined when nothing matches. */
function help(command: string): string | undefined {
  const one = COMMANDS[command];
  if (one) {
    const width = Math.max(0, ...(one.options ?? []).map(([o]) => o.length));
    const opts = (one.options ?? []).map(([o, text]) => `  ${o.padEnd(width)}  ${text}`).join('\n');
    return `usage: ${one.usage}\n\n${one.summary}${opts ? `\n\noptions:\n${opts}` : ''}\n\n${COMMON}`;
  }
  const group = Object.entries(COMMANDS).filter(([name]) => command === '' || name.startsWith(`${command} `));
  if (group.length === 0) return undefined;
  const width = Math.max(...group.map(([name]) => name.length));
  return `usage: cli COMMAND [options]\n\ncommands:\n${group.map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`).join('\n')}\n\n'cli COMMAND --help' describes one command.\n\n${COMMON}`;
}

class UsageError extends Error {}

function list(v: string | undefined): string[] {
  return (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
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
      kind: { type: 'string' },
      unit: { type: 'string' },
      quarantined: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals.join(' ');
  if (values.help || command === 'help') {
    const text = help(command === 'help' ? '' : command);
    if (text === undefined) throw new UsageError(`unknown command "${command}"`);
    return { help: text };
  }
  if (!COMMANDS[command]) throw new UsageError(command ? `unknown command "${command}"` : 'no command given');

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
      case 'job-units list':
        return await listUnits(db, { kind: values.kind, orgId: values.org, quarantinedOnly: values.quarantined });
      case 'job-units release':
        return { released: await releaseUnits(db, { kind: need(values, 'kind'), orgId: values.org, key: values.unit }) };
    }
  } finally {
    await db.close();
    release();
  }
}

run(process.argv.slice(2)).then(
  (out) => {
    // Help is for people: plain text on stdout, exit 0.
    if (out && typeof out === 'object' && 'help' in out) console.log((out as { help: string }).help);
    else console.log(JSON.stringify(out, null, 2));
  },
  (e) => {
    const known = e instanceof UsageError || e instanceof ProvisioningError || e instanceof ConfigError || e instanceof StoreLockedError;
    const message = known ? e.message : `unexpected failure: ${(e as Error).message}`;
    console.error(JSON.stringify({ error: message }));
    if (e instanceof UsageError) console.error(USAGE);
    process.exit(e instanceof StoreLockedError ? 3 : known ? 2 : 1);
  },
);
