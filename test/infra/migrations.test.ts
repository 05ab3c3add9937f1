// Per-module migrations: dependency order, checksums, and the guard that every module's migrations
// are run. On PGlite always, and on PostgreSQL when TEST_DATABASE_URL is set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, existsSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawStores } from '../helpers/raw-stores.ts';
import { migrate, MigrationChangedError } from '../../src/infra/db/migrate.ts';
import { migrationOrder } from '../../src/platform/module.ts';
import { moduleMigrations, moduleList } from '../../src/modules/index.ts';

const stores = rawStores();

function fixtureSource(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
  for (const [name, sql] of Object.entries(files)) writeFileSync(join(dir, name), sql);
  return {
    owner: 'fixture',
    dir,
    write: (name: string, sql: string) => writeFileSync(join(dir, name), sql),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

for (const [name, open] of stores) {
  test(`${name}: an applied migration whose text changed stops start-up, naming it; a new file applies`, async () => {
    const { db, done } = await open();
    const src = fixtureSource({ '9001_fixture.sql': 'create table fixture_a (id int primary key);\n' });
    try {
      const first = await migrate(db, [src]);
      assert.ok(first.includes('0000_row_level_security.sql') && first.includes('9001_fixture.sql'));
      src.write('9001_fixture.sql', 'create table fixture_a (id int primary key, extra text);\n');
      await assert.rejects(migrate(db, [src]), (e: unknown) => {
        assert.ok(e instanceof MigrationChangedError);
        assert.match(e.message, /fixture\/9001_fixture\.sql \(applied as sha256 [0-9a-f]{12}, now [0-9a-f]{12}\)/);
        assert.match(e.message, /never edited/);
        return true;
      });
      // Nothing was applied past the refusal.
      src.write('9001_fixture.sql', 'create table fixture_a (id int primary key);\n');
      src.write('9002_fixture.sql', 'alter table fixture_a add column extra text;\n');
      assert.deepEqual(await migrate(db, [src]), ['9002_fixture.sql']);
      const recorded = await db.query<{ owner: string; checksum: string }>(`select owner, checksum from schema_migrations where name = '9002_fixture.sql'`);
      assert.equal(recorded.rows[0].owner, 'fixture');
      assert.match(recorded.rows[0].checksum, /^[0-9a-f]{64}$/);
    } finally {
      src.remove();
      await done();
    }
  });

  test(`${name}: rows recorded before checksums take the file as it is, then guard it`, async () => {
    const { db, done } = await open();
    const src = fixtureSource({ '9001_fixture.sql': 'create table fixture_b (id int);\n' });
    try {
      await migrate(db, [src]);
      await db.query(`update schema_migrations set checksum = null, owner = null`);
      assert.deepEqual(await migrate(db, [src]), []);
      const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from schema_migrations where checksum is null`);
      assert.equal(rows[0].n, 0);
      src.write('9001_fixture.sql', 'create table fixture_b (id bigint);\n');
      await assert.rejects(migrate(db, [src]), MigrationChangedError);
    } finally {
      src.remove();
      await done();
    }
  });
}

test('modules migrate after the modules they depend on; unknown dependencies and cycles are refused', () => {
  const order = migrationOrder([
    { name: 'b', dependsOn: ['a'], migrations: '/b' },
    { name: 'c', migrations: '/c' },
    { name: 'a', dependsOn: ['c'], migrations: '/a' },
    { name: 'no-tables', dependsOn: ['a'] },
  ]).map((s) => s.owner);
  assert.deepEqual(order, ['c', 'a', 'b']);
  assert.throws(() => migrationOrder([{ name: 'a', dependsOn: ['ghost'] }]), /module a depends on unknown module ghost/);
  assert.throws(
    () =>
      migrationOrder([
        { name: 'a', dependsOn: ['b'] },
        { name: 'b', dependsOn: ['a'] },
      ]),
    /module dependency cycle: a -> b -> a/,
  );
});

test('every module folder with migrations is in the module list, and each owner keeps its files in its own folder', () => {
  const modulesDir = fileURLToPath(new URL('../../src/modules/', import.meta.url));
  const withMigrations = readdirSync(modulesDir).filter((m) => existsSync(join(modulesDir, m, 'migrations')));
  const owners = moduleMigrations.map((s) => s.owner);
  assert.deepEqual([...withMigrations].sort(), [...owners].sort());
  for (const s of moduleMigrations) assert.equal(s.dir, join(modulesDir, s.owner, 'migrations') + '/');
  assert.equal(new Set(moduleList.map((m) => m.name)).size, moduleList.length, 'module names are unique');
});
