// One migrated store per migration set, made once and copied for each test service instead of
// migrating a new one (migrations cost about 0.5 s a start on either engine, and grow with the
// modules). The name carries a digest of the migrations (and, for PGlite, its version): a changed
// migration makes a new template.
// - Embedded: a tarball of a migrated PGlite cluster in the temp directory; a test service starts
//   from a copy of it (no initdb, no migrations). Concurrent test processes that build it at once
//   each write a whole file and rename.
// - PostgreSQL: a migrated database `eps_tpl_<digest>` on the test server, cloned per test service
//   with CREATE DATABASE ... TEMPLATE (tens of milliseconds). Built under an advisory lock, as
//   `<name>_b` and renamed when whole, so no process clones a half-migrated one.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openPglite, dumpPglite } from '../../src/infra/db/pglite.ts';
import { openPostgres } from '../../src/infra/db/postgres.ts';
import { listMigrations, migrate } from '../../src/infra/db/migrate.ts';
import { moduleMigrations } from '../../src/modules/index.ts';

async function migrationsDigest(extra = ''): Promise<string> {
  const digest = createHash('sha256').update(extra);
  for (const m of await listMigrations(moduleMigrations)) digest.update(`${m.owner}/${m.name}\n${m.checksum}\n`);
  return digest.digest('hex').slice(0, 16);
}

let cached: Promise<Blob> | undefined;

export function pgliteTemplate(): Promise<Blob> {
  cached ??= build();
  return cached;
}

async function build(): Promise<Blob> {
  // The installed PGlite's own package.json (not exported, so found next to its entry point).
  const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
  const version = readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8');
  const file = join(tmpdir(), `eps-pglite-template-${await migrationsDigest(version)}.tar`);
  if (!existsSync(file)) {
    const db = await openPglite();
    try {
      await migrate(db, moduleMigrations);
      const dump = await dumpPglite(db);
      const part = `${file}.${randomBytes(4).toString('hex')}.part`;
      writeFileSync(part, Buffer.from(await dump.arrayBuffer()));
      renameSync(part, file);
    } finally {
      await db.close();
    }
  }
  return new Blob([readFileSync(file)]);
}

/** `url` with another database name. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

const templates = new Map<string, Promise<string>>();

/** The name of the migrated template database on the server `url` points at (built if missing). */
export function postgresTemplate(url: string): Promise<string> {
  let t = templates.get(url);
  if (!t) {
    t = buildPostgresTemplate(url);
    templates.set(url, t);
    t.catch(() => templates.delete(url));
  }
  return t;
}

async function buildPostgresTemplate(url: string): Promise<string> {
  const name = `eps_tpl_${await migrationsDigest()}`;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const exists = async () => (await c.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  try {
    if (await exists()) return name;
    await c.query(`select pg_advisory_lock(hashtext('eps_tpl'))`);
    try {
      if (await exists()) return name;
      const building = `${name}_b`;
      await c.query(`drop database if exists ${building} with (force)`);
      await c.query(`create database ${building}`);
      const db = await openPostgres({ url: withDatabase(url, building) });
      try {
        await migrate(db, moduleMigrations);
      } finally {
        await db.close();
      }
      await c.query(`alter database ${building} rename to ${name}`);
      return name;
    } finally {
      await c.query(`select pg_advisory_unlock(hashtext('eps_tpl'))`);
    }
  } finally {
    await c.end();
  }
}

/** A new database copied from the migrated template; its URL and a function that drops it. */
export async function clonePostgresTemplate(url: string): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const template = await postgresTemplate(url);
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`create database ${name} template ${template}`);
  return { url: withDatabase(url, name), name, drop: () => admin(`drop database if exists ${name} with (force)`) };
}
