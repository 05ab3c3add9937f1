// Bare stores without a service: embedded PGlite always (its engine in a worker thread, the
// default; with `inlinePglite` also in the test's own thread), and a fresh PostgreSQL schema when
// TEST_DATABASE_URL is set. For tests of the store adapters and the migration runner themselves.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Db } from '../../src/infra/db/index.ts';
import { openPglite } from '../../src/infra/db/pglite.ts';
import { openPostgres } from '../../src/infra/db/postgres.ts';

export type RawStore = { db: Db; done: () => Promise<void> };

export function rawStores(opts: { inlinePglite?: boolean } = {}): [string, () => Promise<RawStore>][] {
  const stores: [string, () => Promise<RawStore>][] = [
    [
      'pglite',
      async () => {
        const db = await openPglite();
        return { db, done: () => db.close() };
      },
    ],
  ];
  if (opts.inlinePglite) {
    stores.push([
      'pglite-inline',
      async () => {
        const db = await openPglite(undefined, { worker: false });
        return { db, done: () => db.close() };
      },
    ]);
  }
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    stores.push([
      'postgres',
      async () => {
        const schema = `t_${randomBytes(5).toString('hex')}`;
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query(`create schema ${schema}`);
        const db = await openPostgres({ url, schema });
        return {
          db,
          done: async () => {
            await db.close();
            await c.query(`drop schema ${schema} cascade`);
            await c.end();
          },
        };
      },
    ]);
  }
  return stores;
}
