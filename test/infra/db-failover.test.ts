// What the service sees of a PostgreSQL failover (issue 43, item 5): the primary killed or shut down
// under live connections (57P01 admin_shutdown, connections dropped, connection refused), and a
// server demoted to a standby under live connections (25006 read_only_sql_transaction on a write).
// Each reaches callers as StoreUnavailableError (503 with Retry-After), the connection that saw it
// is discarded so the next checkout connects again through the cluster's entry, and the write
// pool's ping answers false from a server in recovery (readiness: no primary). Needs a real
// PostgreSQL (TEST_DATABASE_URL).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import pg from 'pg';
import { openPostgres } from '../../src/infra/db/postgres.ts';
import { StoreUnavailableError } from '../../src/infra/db/index.ts';
import { startTestService, json, realServers, type TestService } from '../helpers/service.ts';
import { replicaUrl } from '../helpers/replica.ts';

const url = realServers.database;

const services: TestService[] = [];
after(() => Promise.all(services.map((s) => s.stop())));

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

test('a write refused as read-only (a demoted primary) is StoreUnavailableError and its connection is discarded', { skip: !url, timeout: 30_000 }, async () => {
  const db = await openPostgres({ url: url!, max: 1, requirePrimary: true });
  try {
    // The pool's only connection turns read-only, as a session on a server demoted to a standby does.
    await db.query('set session characteristics as transaction read only');
    await assert.rejects(
      db.query('create temp table failover_t (id int)'),
      (e: unknown) => e instanceof StoreUnavailableError && (e.cause as { code?: string }).code === '25006',
    );
    // The next checkout is a new connection: writable again.
    assert.equal((await db.query<{ ro: string }>("select current_setting('transaction_read_only') as ro")).rows[0].ro, 'off');
    await db.query('create temp table failover_t (id int)');
    // Inside a transaction too: the refusal ends the transaction and the connection.
    await db.query('set session characteristics as transaction read only');
    await assert.rejects(
      db.tx(async (q) => {
        await q.query('create temp table failover_u (id int)');
      }),
      StoreUnavailableError,
    );
    assert.equal((await db.query<{ ro: string }>("select current_setting('transaction_read_only') as ro")).rows[0].ro, 'off');
  } finally {
    await db.close();
  }
});

test('the primary shutting down under a connection (57P01) is StoreUnavailableError; the pool reconnects', { skip: !url, timeout: 30_000 }, async () => {
  const db = await openPostgres({ url: url!, max: 1 });
  try {
    await assert.rejects(
      db.query('select pg_terminate_backend(pg_backend_pid())'),
      (e: unknown) => e instanceof StoreUnavailableError && (e.cause as { code?: string }).code === '57P01',
    );
    assert.equal((await db.query<{ n: number }>('select 1 as n')).rows[0].n, 1);
  } finally {
    await db.close();
  }
});

test('no server at the address (connection refused) is StoreUnavailableError and ping is false', { timeout: 30_000 }, async () => {
  const db = await openPostgres({ url: `postgres://postgres@127.0.0.1:${await closedPort()}/none`, connectTimeoutMs: 1000, requirePrimary: true });
  try {
    await assert.rejects(db.query('select 1'), StoreUnavailableError);
    await assert.rejects(
      db.tx(async () => {}),
      StoreUnavailableError,
    );
    assert.equal(await db.ping(1000), false);
  } finally {
    await db.close();
  }
});

test('the write pool pings true only from a primary; a read pool pings true from any server', { skip: !url, timeout: 30_000 }, async () => {
  const write = await openPostgres({ url: url!, max: 1, requirePrimary: true });
  const read = await openPostgres({ url: url!, max: 1 });
  try {
    assert.equal(await write.ping(2000), true);
    assert.equal(await read.ping(2000), true);
    // The server's answer decides: ask it the question the write pool's ping asks.
    assert.equal((await write.query<{ ok: boolean }>('select not pg_is_in_recovery() as ok')).rows[0].ok, true);
  } finally {
    await Promise.all([write.close(), read.close()]);
  }
});

test('on a standby (no primary behind the entry): the write pool pings false, a write is StoreUnavailableError, the read pool pings true', {
  skip: !replicaUrl,
  timeout: 30_000,
}, async () => {
  const write = await openPostgres({ url: replicaUrl!, max: 1, requirePrimary: true });
  const read = await openPostgres({ url: replicaUrl!, max: 1 });
  try {
    assert.equal((await read.query<{ r: boolean }>('select pg_is_in_recovery() as r')).rows[0].r, true, 'TEST_DATABASE_READ_URL is a standby');
    assert.equal(await write.ping(2000), false, 'readiness: no primary');
    assert.equal(await read.ping(2000), true);
    await assert.rejects(
      write.query('create temp table failover_standby (id int)'),
      (e: unknown) => e instanceof StoreUnavailableError && (e.cause as { code?: string }).code === '25006',
    );
  } finally {
    await Promise.all([write.close(), read.close()]);
  }
});

test('every connection of the service killed under it, then turned read-only: 503 with Retry-After, never a 500, then served again', {
  skip: !url,
  timeout: 60_000,
}, async () => {
  const svc = await startTestService();
  services.push(svc);
  await svc.createOrg('acme');
  const admin = { authorization: `Bearer ${await svc.token({ orgId: 'acme', roles: ['ORG_ADMIN'] })}` };
  const createKey = (name: string) =>
    svc.request({ method: 'POST', url: '/api/devtools/apikeys', headers: admin, payload: { name, scopes: ['devices:read'] } });
  assert.equal((await createKey('before')).statusCode, 201);

  const killer = new pg.Client({ connectionString: url });
  await killer.connect();
  try {
    // The primary goes: every backend of the service's database is terminated (57P01 on the next use).
    const killed = await killer.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [svc.database]);
    assert.ok((killed.rowCount ?? 0) > 0, 'the service had connections to kill');
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await createKey(`after-kill-${i}`);
      statuses.push(res.statusCode);
      if (res.statusCode === 503) assert.ok(Number(res.headers['retry-after']) >= 1, 'a 503 says when to retry');
      else assert.equal(res.statusCode, 201, `answer ${i}: ${res.body}`);
      if (res.statusCode === 201) break;
    }
    assert.equal(statuses.at(-1), 201, `served again after the kill (answers: ${statuses.join(', ')})`);

    // A demotion: the service's connections stay up but the server refuses writes. Every pooled
    // connection is made read-only (ten held at once are the pool's ten connections).
    await Promise.all(
      Array.from({ length: 10 }, () =>
        svc.deps.db
          .tx(async (q) => {
            await q.query('set session characteristics as transaction read only');
            await q.query('select pg_sleep(0.2)');
          })
          .catch(() => {}),
      ),
    );
    const after: number[] = [];
    for (let i = 0; i < 14; i++) {
      const res = await createKey(`after-demotion-${i}`);
      after.push(res.statusCode);
      if (res.statusCode === 503) {
        assert.ok(Number(res.headers['retry-after']) >= 1);
        assert.doesNotMatch(res.body, /read-only|25006/, 'no internals in the answer');
      } else assert.equal(res.statusCode, 201, `answer ${i}: ${res.body}`);
      if (res.statusCode === 201) break;
    }
    assert.ok(after.includes(503), `the read-only connections were refused (answers: ${after.join(', ')})`);
    assert.equal(after.at(-1), 201, `served again once the read-only connections were discarded (answers: ${after.join(', ')})`);
    const keys = await svc.request({ method: 'GET', url: '/api/devtools/apikeys', headers: admin });
    assert.equal(keys.statusCode, 200);
    const names = json(keys).api_keys as { name: string }[];
    assert.equal(names.filter((k) => k.name.startsWith('after-demotion')).length, 1, 'the refused writes stored nothing');
  } finally {
    await killer.end();
  }
});
