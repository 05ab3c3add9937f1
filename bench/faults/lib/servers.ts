// Private servers for the fault runs (reliability plan ground rules): a throwaway PostgreSQL
// cluster, Redis and NATS JetStream on their own loopback ports, started and stopped by the run
// itself, so a fault never touches the shared servers on 5432, 6379 and 4222. Also: free ports,
// throwaway databases on the shared PostgreSQL (runs that kill only the service), and a cleanup
// stack that runs on success, on failure and on Ctrl-C.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import pg from 'pg';
import { connect as natsConnect } from 'nats';

/**
 * Removes the run's NATS JetStream stream (`<namespace>_BUS`) at the end: the service keeps its
 * streams on shutdown, so a run on the shared NATS server deletes its own namespace's stream.
 */
export function removeBusStreamAtEnd(natsUrl: string, namespace: string): void {
  onCleanup('nats stream', async () => {
    const nc = await natsConnect({ servers: natsUrl.replace(/^nats:\/\//, ''), timeout: 2000 }).catch(() => undefined);
    if (!nc) return;
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(`${namespace}_BUS`).catch(() => false);
    await nc.close();
  });
}

// ---------------------------------------------------------------------------------------------
// Cleanup: every private server, temp dir, database and child registers how to undo itself.

const cleanups: { name: string; fn: () => Promise<void> | void }[] = [];
export function onCleanup(name: string, fn: () => Promise<void> | void): void {
  cleanups.push({ name, fn });
}
let cleaning: Promise<void> | undefined;
export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    while (cleanups.length) {
      const c = cleanups.pop()!;
      try {
        await c.fn();
      } catch (e) {
        console.error(`cleanup ${c.name}: ${(e as Error).message}`);
      }
    }
  })();
  return cleaning;
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    console.error(`\n${sig}: cleaning up private servers and temp dirs`);
    void cleanup().finally(() => process.exit(130));
  });
}

/** Runs main, then the cleanup stack whatever happened; exit code 1 on a thrown error. */
export function runMain(main: () => Promise<number>): void {
  main().then(
    async (code) => {
      await cleanup();
      process.exit(code);
    },
    async (e) => {
      console.error(e);
      await cleanup();
      process.exit(1);
    },
  );
}

/** A temp dir removed at the end (kept, with its service logs, when BENCH_KEEP_TMP=1). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (process.env.BENCH_KEEP_TMP === '1') console.log(`(keeping ${dir})`);
  else onCleanup(`rm ${dir}`, () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export function portOpen(port: number, host = '127.0.0.1', timeoutMs = 300): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(port, host);
    const t = setTimeout(() => {
      c.destroy();
      resolve(false);
    }, timeoutMs);
    c.once('connect', () => {
      clearTimeout(t);
      c.destroy();
      resolve(true);
    });
    c.once('error', () => {
      clearTimeout(t);
      resolve(false);
    });
  });
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`${what}: not up within ${timeoutMs} ms`);
}

async function requireFreePort(port: number, what: string) {
  if (await portOpen(port)) {
    throw new Error(`${what}: port ${port} is already in use (another run?). Choose another port with the variable named in the run's header.`);
  }
}

function exited(p: ChildProcess): Promise<void> {
  return p.exitCode !== null || p.signalCode !== null ? Promise.resolve() : new Promise((r) => p.once('exit', () => r()));
}

// ---------------------------------------------------------------------------------------------
// Redis.

export interface PrivateServer {
  port: number;
  pid(): number | undefined;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startRedis(port: number): Promise<PrivateServer> {
  await requireFreePort(port, 'private Redis');
  let proc: ChildProcess | undefined;
  const server: PrivateServer = {
    port,
    pid: () => proc?.pid,
    async start() {
      proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
        stdio: 'ignore',
      });
      await waitFor(`redis on ${port}`, () => portOpen(port));
    },
    async stop() {
      if (!proc) return;
      const p = proc;
      proc = undefined;
      p.kill('SIGTERM');
      await exited(p);
    },
  };
  await server.start();
  onCleanup(`redis ${port}`, () => server.stop());
  return server;
}

// ---------------------------------------------------------------------------------------------
// NATS JetStream (file store in a temp dir, so a stopped and restarted server keeps its streams).

export async function startNats(port: number): Promise<PrivateServer & { dir: string }> {
  await requireFreePort(port, 'private NATS');
  const dir = tempDir('fault-nats-');
  let proc: ChildProcess | undefined;
  const server = {
    port,
    dir,
    pid: () => proc?.pid,
    async start() {
      proc = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir], { stdio: 'ignore' });
      await waitFor(`nats on ${port}`, () => portOpen(port));
    },
    async stop() {
      if (!proc) return;
      const p = proc;
      proc = undefined;
      p.kill('SIGTERM');
      await exited(p);
    },
  };
  await server.start();
  onCleanup(`nats ${port}`, () => server.stop());
  return server;
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL: a throwaway cluster run as the postgres user (initdb refuses root).

const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

function asPostgres(cmd: string): { status: number | null; out: string } {
  const r = spawnSync('su', ['postgres', '-c', cmd], { encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

export interface PrivatePostgres extends PrivateServer {
  url(db?: string): string;
  dir: string;
  /** Stops the server: 'fast' (clean shutdown) or 'immediate' (crash-like, WAL recovery at start). */
  stopMode(mode: 'fast' | 'immediate'): Promise<void>;
}

export async function startPostgres(port: number): Promise<PrivatePostgres> {
  await requireFreePort(port, 'private PostgreSQL');
  const dir = mkdtempSync(join(tmpdir(), 'fault-pg-'));
  onCleanup(`rm ${dir}`, () => rmSync(dir, { recursive: true, force: true }));
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  chownSync(dir, id('-u'), id('-g'));
  const data = join(dir, 'data');
  const init = asPostgres(`${PG_BIN}/initdb -D ${data} -A trust -U postgres --no-sync`);
  if (init.status !== 0) throw new Error(`initdb failed: ${init.out}`);
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=100`;
  let running = false;
  const server: PrivatePostgres = {
    port,
    dir,
    url: (db = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${db}`,
    pid: () => {
      const r = spawnSync('head', ['-1', join(data, 'postmaster.pid')], { encoding: 'utf8' });
      return r.status === 0 ? Number(r.stdout.trim()) : undefined;
    },
    async start() {
      const r = asPostgres(`${PG_BIN}/pg_ctl -D ${data} -o "${opts}" -l ${join(dir, 'server.log')} -w -t 60 start`);
      if (r.status !== 0) throw new Error(`pg_ctl start failed: ${r.out}`);
      running = true;
    },
    async stopMode(mode) {
      if (!running) return;
      const r = asPostgres(`${PG_BIN}/pg_ctl -D ${data} -m ${mode} -w -t 60 stop`);
      if (r.status !== 0) throw new Error(`pg_ctl stop failed: ${r.out}`);
      running = false;
    },
    stop: () => server.stopMode('fast'),
  };
  await server.start();
  onCleanup(`postgres ${port}`, () => server.stopMode('immediate'));
  return server;
}

// ---------------------------------------------------------------------------------------------
// A throwaway database on a server (the shared one for runs that kill only the service).

export async function createDatabase(adminUrl: string, name: string): Promise<string> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  await c.query(`create database ${name}`);
  await c.end();
  onCleanup(`drop database ${name}`, async () => {
    const d = new pg.Client({ connectionString: adminUrl });
    await d.connect();
    await d.query(`drop database if exists ${name} with (force)`);
    await d.end();
  });
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Open connections to a database, as pg_stat_activity shows them (from a separate admin session). */
export async function connectionsTo(adminUrl: string, db: string): Promise<number> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const r = await c.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [db]);
    return r.rows[0].n;
  } finally {
    await c.end();
  }
}
