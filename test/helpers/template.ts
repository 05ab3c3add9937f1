// One migrated embedded store per migration set, kept as a tarball in the temp directory, so a test
// service starts from a copy of it (no initdb, no migrations) instead of building its own. The file
// name carries a digest of the migrations and the PGlite version: a changed migration makes a new
// template, and concurrent test processes that build it at once each write a whole file and rename.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPglite, dumpPglite } from '../../src/infra/db/pglite.ts';
import { listMigrations, migrate } from '../../src/infra/db/migrate.ts';
import { moduleMigrations } from '../../src/modules/index.ts';

let cached: Promise<Blob> | undefined;

export function pgliteTemplate(): Promise<Blob> {
  cached ??= build();
  return cached;
}

async function build(): Promise<Blob> {
  // The installed PGlite's own package.json (not exported, so found next to its entry point).
  const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
  const version = readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8');
  const digest = createHash('sha256').update(version);
  for (const m of await listMigrations(moduleMigrations)) digest.update(`${m.owner}/${m.name}\n${m.checksum}\n`);
  const file = join(tmpdir(), `eps-pglite-template-${digest.digest('hex').slice(0, 16)}.tar`);
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
