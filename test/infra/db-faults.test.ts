// The PostgreSQL adapter when the network or the server misbehaves (found by the T-6 fault run,
// bench/faults/postgres-faults.ts): a connection dropped while checked out must not crash the
// process, and a connection gone silent must fail its query at the client-side cut-off instead of
// holding the request (and its pooled connection) for ever. Needs a real PostgreSQL
// (TEST_DATABASE_URL); the fault proxy sits between the adapter and the server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgres } from '../../src/infra/db/postgres.ts';
import { startFaultProxy, type FaultProxy } from '../../bench/lib/fault-proxy.ts';
import { StoreUnavailableError, type Db } from '../../src/infra/db/index.ts';
import { bounded, deferred } from '../helpers/signal.ts';

const url = process.env.TEST_DATABASE_URL;

/** Resolves when pg next emits 'error' on a client (the adapter's clients are pg.Client instances). */
function nextClientError(): Promise<void> {
  return new Promise((resolve) => {
    const proto = pg.Client.prototype as unknown as { emit(event: string | symbol, ...args: unknown[]): boolean };
    const emit = proto.emit;
    proto.emit = function (this: unknown, event, ...args) {
      if (event === 'error') {
        proto.emit = emit;
        resolve();
      }
      return emit.call(this, event, ...args);
    };
  });
}

async function setup(
  opts: { statementTimeoutMs?: number; max?: number; connectTimeoutMs?: number } = {},
): Promise<{ db: Db; proxy: FaultProxy; done: () => Promise<void> }> {
  const target = new URL(url!);
  const proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const schema = `t_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const via = new URL(url!);
  via.hostname = '127.0.0.1';
  via.port = String(proxy.port);
  const db = await openPostgres({ url: via.toString(), schema, ...opts });
  await db.query('create table t (id int primary key)');
  return {
    db,
    proxy,
    done: async () => {
      proxy.set({ kind: 'pass' });
      await db.close();
      await proxy.close();
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    },
  };
}

test('a connection dropped while checked out fails that work, leaves the process up, and the pool recovers', { skip: !url, timeout: 30_000 }, async () => {
  const { db, proxy, done } = await setup();
  try {
    // Inside a transaction, between two statements: the client has no query in flight when its
    // socket goes (pg then emits 'error' on the client; unhandled, that used to end the process).
    await assert.rejects(
      db.tx(async (q) => {
        await q.query('insert into t values (1)');
        const errored = nextClientError();
        proxy.set({ kind: 'reset' });
        // The client has seen its socket go and emitted 'error' with no query of its own in flight.
        await bounded(errored, "pg emits 'error' on the checked-out client");
        await q.query('insert into t values (2)');
      }),
    );
    // With a query in flight (on a new connection: the proxy passes again), the reset comes as
    // soon as the proxy has passed the query on.
    proxy.set({ kind: 'pass' });
    const sent = new Promise<void>((r) => {
      const stop = proxy.watch((e) => {
        if (e.from === 'client' && e.fate === 'forwarded' && e.chunk.includes('pg_sleep')) {
          stop();
          r();
        }
      });
    });
    const failed = assert.rejects(db.query('select pg_sleep(1)'), StoreUnavailableError);
    await bounded(sent, 'the query reaches the server');
    proxy.set({ kind: 'reset' });
    await failed;
    proxy.set({ kind: 'pass' });
    assert.equal(await db.ping(), true);
    assert.equal((await db.query('select count(*)::int as n from t')).rows[0].n, 0, 'the broken transaction was not committed');
    await db.tx((q) => q.query('insert into t values (3)'));
    assert.deepEqual((await db.query<{ id: number }>('select id from t')).rows, [{ id: 3 }]);
  } finally {
    await done();
  }
});

test('a connection gone silent fails its query at the client-side cut-off; probes and the pool recover', { skip: !url, timeout: 30_000 }, async () => {
  // The cut-offs are real time, and the behaviour under test; short ones keep the test short.
  // Statement timeout 300 ms: the client cuts a silent connection at 800 ms; a new connection
  // through the stalled proxy gives up after 300 ms.
  const { db, proxy, done } = await setup({ statementTimeoutMs: 300, connectTimeoutMs: 300 });
  try {
    await db.query('insert into t values (1)');
    proxy.set({ kind: 'stall' });
    await assert.rejects(db.query('select id from t'), /timeout/i);
    await assert.rejects(
      db.tx(async (q) => {
        await q.query('insert into t values (2)');
      }),
    );
    assert.equal(await db.ping(500), false, 'readiness sees the silent store');
    proxy.set({ kind: 'pass' });
    assert.equal(await db.ping(), true);
    await db.tx((q) => q.query('insert into t values (3)'));
    assert.deepEqual((await db.query<{ id: number }>('select id from t order by id')).rows, [{ id: 1 }, { id: 3 }]);
  } finally {
    await done();
  }
});

test('an error thrown inside a transaction rolls it back and keeps the connection usable', { skip: !url, timeout: 30_000 }, async () => {
  const { db, done } = await setup();
  try {
    await assert.rejects(
      db.tx(async (q) => {
        await q.query('insert into t values (1)');
        throw new Error('domain refusal');
      }),
      /domain refusal/,
    );
    await assert.rejects(
      db.tx((q) => q.query('insert into t values (null)')),
      /null value/,
    );
    assert.equal((await db.query('select count(*)::int as n from t')).rows[0].n, 0);
  } finally {
    await done();
  }
});

test('transient failures reach callers as StoreUnavailableError; refusals of the statement stay as they are', { skip: !url, timeout: 30_000 }, async () => {
  const { db, done } = await setup({ statementTimeoutMs: 300, max: 1, connectTimeoutMs: 200 });
  try {
    await db.query('insert into t values (1)');
    // Pool exhausted: the only connection is held (on a gate, not for a guessed time) past the
    // 200 ms wait for a connection, a real deadline and the behaviour under test.
    const release = deferred();
    const holding = deferred();
    const busy = db.tx(async (q) => {
      await q.query('select 1');
      holding.resolve();
      await release.promise;
    });
    await holding.promise;
    await assert.rejects(db.query('select 1'), StoreUnavailableError);
    release.resolve();
    await busy;
    // A statement past its timeout (57014).
    await assert.rejects(db.query('select pg_sleep(2)'), StoreUnavailableError);
    // A refusal of the statement itself is not a store outage.
    await assert.rejects(
      db.query('insert into t values (1)'),
      (e: unknown) => !(e instanceof StoreUnavailableError) && (e as { code?: string }).code === '23505',
    );
    assert.equal((await db.query('select count(*)::int as n from t')).rows[0].n, 1);
  } finally {
    await done();
  }
});
