// Migrations: plain SQL files that run unchanged on PGlite and PostgreSQL 15+. The platform's own
// tables (the job queue, row-level security) are in ./migrations; each module keeps its own in
// src/modules/<m>/migrations and the composition root passes them in dependency order. Every
// applied file is recorded with a SHA-256 of its text; a recorded file whose text changed stops
// start-up (applied migrations are never edited: a change is a new file).
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Db } from './index.ts';

const PLATFORM_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/** Where one owner's migrations are. */
export interface MigrationSource {
  owner: string;
  dir: string;
}

export interface Migration {
  owner: string;
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationChangedError extends Error {
  constructor(changed: { owner: string; name: string; recorded: string; now: string }[]) {
    super(
      'Applied migrations were changed: ' +
        changed.map((c) => `${c.owner}/${c.name} (applied as sha256 ${c.recorded.slice(0, 12)}, now ${c.now.slice(0, 12)})`).join('; ') +
        '. An applied migration is never edited: restore it and put the change in a new migration.',
    );
    this.name = 'MigrationChangedError';
  }
}

export const platformMigrations: MigrationSource = { owner: 'platform', dir: PLATFORM_DIR };

/** Every migration, in the order they apply: the platform's first, then each source's by file name. */
export async function listMigrations(sources: readonly MigrationSource[]): Promise<Migration[]> {
  const out: Migration[] = [];
  const names = new Map<string, string>();
  for (const src of [platformMigrations, ...sources.filter((s) => s.dir !== PLATFORM_DIR)]) {
    const files = (await readdir(src.dir).catch(() => [] as string[])).filter((f) => f.endsWith('.sql')).sort();
    for (const name of files) {
      // Names are the record's key, so they are unique across owners (numbered by area).
      const other = names.get(name);
      if (other) throw new Error(`migration ${name} exists in both ${other} and ${src.owner}`);
      names.set(name, src.owner);
      const sql = await readFile(src.dir + (src.dir.endsWith('/') ? '' : '/') + name, 'utf8');
      out.push({ owner: src.owner, name, sql, checksum: createHash('sha256').update(sql).digest('hex') });
    }
  }
  return out;
}

/**
 * Applies every migration not yet recorded, in order, each in its own transaction, after checking
 * that none of the recorded ones changed. Returns the names applied.
 */
export async function migrate(db: Db, sources: readonly MigrationSource[]): Promise<string[]> {
  await db.exec(`create table if not exists schema_migrations (
    name text primary key,
    applied_at timestamptz not null default now()
  )`);
  await db.exec('alter table schema_migrations add column if not exists owner text');
  await db.exec('alter table schema_migrations add column if not exists checksum text');
  const all = await listMigrations(sources);
  const recorded = new Map(
    (await db.query<{ name: string; checksum: string | null }>('select name, checksum from schema_migrations')).rows.map((r) => [r.name, r.checksum]),
  );
  const changed = all
    .filter((m) => recorded.has(m.name) && recorded.get(m.name) !== null && recorded.get(m.name) !== m.checksum)
    .map((m) => ({ owner: m.owner, name: m.name, recorded: recorded.get(m.name)!, now: m.checksum }));
  if (changed.length) throw new MigrationChangedError(changed);
  // Rows recorded before checksums were kept take the file as it is now.
  for (const m of all) {
    if (recorded.has(m.name) && recorded.get(m.name) === null) {
      await db.query('update schema_migrations set owner = $2, checksum = $3 where name = $1', [m.name, m.owner, m.checksum]);
    }
  }
  const applied: string[] = [];
  for (const m of all) {
    if (recorded.has(m.name)) continue;
    await db.tx(async (q) => {
      // Multi-statement text goes through the simple query protocol on both adapters.
      for (const stmt of splitStatements(m.sql)) await q.query(stmt);
      await q.query('insert into schema_migrations(name, owner, checksum) values ($1, $2, $3)', [m.name, m.owner, m.checksum]);
    });
    applied.push(m.name);
  }
  return applied;
}

/** Splits on semicolons at the end of a line, outside $$-quoted bodies. */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let buf = '';
  let inDollar = false;
  for (const line of sql.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.startsWith('--') && !inDollar) continue;
    buf += line + '\n';
    const dollars = (line.match(/\$\$/g) ?? []).length;
    if (dollars % 2 === 1) inDollar = !inDollar;
    if (!inDollar && trimmed.endsWith(';')) {
      if (buf.trim() !== ';') out.push(buf.trim().replace(/;$/, ''));
      buf = '';
    }
  }
  if (buf.trim()) out.push(buf.trim());
  return out;
}
