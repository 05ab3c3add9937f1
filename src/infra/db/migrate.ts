import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Db } from './index.ts';
import { applyRowLevelSecurity } from './rls.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

export interface Migration {
  name: string;
  sql: string;
}

/** Every migration, in the order they apply. */
export async function listMigrations(): Promise<Migration[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
  return Promise.all(files.map(async (name) => ({ name, sql: await readFile(MIGRATIONS_DIR + name, 'utf8') })));
}

/**
 * Applies every migrations/*.sql not yet recorded, in name order, each in its own transaction.
 * Files are plain SQL that runs unchanged on PGlite and PostgreSQL 15+.
 */
export async function migrate(db: Db): Promise<string[]> {
  await db.exec(`create table if not exists schema_migrations (
    name text primary key,
    applied_at timestamptz not null default now()
  )`);
  const done = new Set(
    (await db.query<{ name: string }>('select name from schema_migrations')).rows.map((r) => r.name),
  );
  const applied: string[] = [];
  for (const { name: file, sql } of await listMigrations()) {
    if (done.has(file)) continue;
    await db.tx(async (q) => {
      // Multi-statement text goes through the simple query protocol on both adapters.
      for (const stmt of splitStatements(sql)) await q.query(stmt);
      await q.query('insert into schema_migrations(name) values ($1)', [file]);
    });
    applied.push(file);
  }
  // Every run, so tables added by any migration are covered by the rule.
  await applyRowLevelSecurity(db);
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
