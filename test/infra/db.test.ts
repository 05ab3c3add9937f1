// The store adapters agree on what callers see.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { migrate, splitStatements } from '../../src/infra/db/migrate.ts';
import { moduleMigrations } from '../../src/modules/index.ts';
import { rawStores } from '../helpers/raw-stores.ts';

const adapters = rawStores({ inlinePglite: true });

for (const [name, open] of adapters) {
  test(`${name}: rowCount, types, transactions and migrations behave alike`, async () => {
    const { db, done } = await open();
    try {
      const first = await migrate(db, moduleMigrations);
      assert.ok(first.includes('0001_core.sql'));
      assert.deepEqual(await migrate(db, moduleMigrations), [], 'a second run applies nothing');
      await db.query(`insert into organisations (id, name) values ('o1', 'One'), ('o2', 'Two')`);
      const sel = await db.query<{ id: string }>('select id from organisations order by id');
      assert.equal(sel.rowCount, 2, 'SELECT rowCount is the rows returned');
      const upd = await db.query(`update organisations set name = name || '!'`);
      assert.equal(upd.rowCount, 2, 'UPDATE rowCount is the rows affected');
      const none = await db.query(`delete from organisations where id = 'nope'`);
      assert.equal(none.rowCount, 0);
      const t = await db.query<{ n: number; ts: Date; j: unknown; big: number }>(
        `select count(*) as big, 1::int as n, now() as ts, '{"a":1}'::jsonb as j from organisations`,
      );
      assert.equal(typeof t.rows[0].big, 'number', 'int8 is a number on both');
      assert.ok(t.rows[0].ts instanceof Date);
      assert.deepEqual(t.rows[0].j, { a: 1 });
      await assert.rejects(
        db.tx(async (q) => {
          await q.query(`insert into organisations (id, name) values ('o3', 'Three')`);
          throw new Error('abort');
        }),
        /abort/,
      );
      assert.equal((await db.query(`select 1 from organisations where id = 'o3'`)).rowCount, 0, 'rolled back');
      assert.equal(await db.ping(), true);
    } finally {
      await done();
    }
  });
}

test('migration files split on statement ends, not inside $$ bodies', () => {
  const parts = splitStatements(
    `create table a (x int);\n-- comment;\ncreate function f() returns int language plpgsql as $$\nbegin\n  return 1;\nend;\n$$;\nselect 1;`,
  );
  assert.equal(parts.length, 3);
  assert.match(parts[1], /^create function/);
});
