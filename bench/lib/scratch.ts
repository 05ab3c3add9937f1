// What the database benchmarks share: their arguments, and a scratch schema of the service's own
// tables (migrated, telemetry partitions made) that they drop when done.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgres } from '../../src/infra/db/postgres.ts';
import { migrate } from '../../src/infra/db/migrate.ts';
import type { Db } from '../../src/infra/db/index.ts';
import { moduleMigrations } from '../../src/modules/index.ts';

/** `--name=value` arguments and the positional ones, and the database they run on (`--database-url`, DATABASE_URL, the local test database). */
export function benchArgs(argv = process.argv.slice(2)) {
  const arg = (name: string, d: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? d;
  return {
    arg,
    positional: argv.filter((a) => !a.startsWith('--')),
    url: arg('database-url', process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'),
  };
}

export interface Scratch {
  schema: string;
  /** A connection outside the schema (the statistics views, the drop). */
  admin: pg.Client;
  /** The service's store on the schema. */
  db: Db;
  /** A plain connection on the schema and its backend's pid (for its CPU, bench/lib/pg-cpu.ts). */
  client(): Promise<{ c: pg.Client; pid: number }>;
  /** Closes the store and the admin connection, dropping the schema unless `keep`. */
  drop(opts?: { keep?: boolean }): Promise<void>;
}

/** A schema `<prefix>_<random>` migrated as the service migrates, with telemetry partitions over [from, to]. */
export async function scratchSchema(opts: { url: string; prefix: string; from: Date; to: Date; statementTimeoutMs?: number }): Promise<Scratch> {
  const schema = `${opts.prefix}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: opts.url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const db = await openPostgres({ url: opts.url, schema, ...(opts.statementTimeoutMs !== undefined && { statementTimeoutMs: opts.statementTimeoutMs }) });
  await migrate(db, moduleMigrations);
  await db.query('select telemetry_ensure_partitions($1, $2)', [opts.from, opts.to]);
  return {
    schema,
    admin,
    db,
    async client() {
      const c = new pg.Client({ connectionString: opts.url });
      await c.connect();
      await c.query(`set search_path = ${schema}`);
      const pid = (await c.query<{ p: number }>('select pg_backend_pid() as p')).rows[0]!.p;
      return { c, pid };
    },
    async drop({ keep = false } = {}) {
      await db.close().catch(() => {});
      if (!keep) await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    },
  };
}

/** Now plus or minus whole months: the partitions a benchmark of current readings needs. */
export const monthsAround = (before: number, after: number): { from: Date; to: Date } => {
  const now = Date.now();
  return { from: new Date(now - before * 31 * 86_400_000), to: new Date(now + after * 31 * 86_400_000) };
};
